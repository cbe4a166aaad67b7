package org.vectorbert.spark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * A partition's rows read a batch at a time and given back by {@code work} with their new columns,
 * in order: the transformers' way of grouping a partition's texts into forward passes without
 * holding the partition.
 */
final class BatchedRows implements Iterator<Row> {
    private final Iterator<Row> rows;
    private final int batch;
    private final Function<List<Row>, List<Row>> work;
    private Iterator<Row> ready = Collections.emptyIterator();

    BatchedRows(Iterator<Row> rows, int batch, Function<List<Row>, List<Row>> work) {
        this.rows = rows;
        this.batch = batch;
        this.work = work;
    }

    @Override
    public boolean hasNext() {
        if (!ready.hasNext() && rows.hasNext()) {
            List<Row> in = new ArrayList<>(batch);
            while (in.size() < batch && rows.hasNext()) {
                in.add(rows.next());
            }
            ready = work.apply(in).iterator();
        }
        return ready.hasNext();
    }

    @Override
    public Row next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return ready.next();
    }

    /** {@code r} with {@code values} appended as its last columns. */
    static Row appended(Row r, Object... values) {
        Object[] all = new Object[r.length() + values.length];
        for (int i = 0; i < r.length(); i++) {
            all[i] = r.get(i);
        }
        System.arraycopy(values, 0, all, r.length(), values.length);
        return RowFactory.create(all);
    }
}
