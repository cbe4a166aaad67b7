package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A JVM of its own for {@link PlainKernelsTest}: loads the model in {@code args[0]} and runs three passes over
 * {@code args[1]} positions, then prints which kernels each ran (plain or vector), whether their hidden
 * states are the same bits, and a hash of those bits (to hold JVMs run with other flags to each other).
 */
public final class PlainFirstPassMain {
    private PlainFirstPassMain() {}

    public static void main(String[] args) {
        BertModel model = BertModel.load(Path.of(args[0]));
        int[] ids = new int[Integer.parseInt(args[1])];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1000 + 37 * i;
        }
        Batch batch = Batch.of(ids, new int[ids.length]);
        List<String> kinds = new ArrayList<>();
        List<float[]> states = new ArrayList<>();
        for (int pass = 1; pass <= 3; pass++) {
            // The reader runs inside the pass, while the kernels are still what the pass chose.
            states.add(model.forward(batch, Encoder.Request.lastHiddenState(), out -> {
                kinds.add(PlainKernels.active() ? "plain" : "vector");
                return out.lastHiddenState().clone();
            }));
        }
        System.out.println("pass 1 " + kinds.get(0) + ", pass 2 " + kinds.get(1) + ", pass 3 " + kinds.get(2));
        boolean same = Arrays.equals(states.get(0), states.get(1)) && Arrays.equals(states.get(1), states.get(2));
        System.out.println(same ? "pass 1 = pass 2 = pass 3" : "the passes differ");
        System.out.println("bits " + Arrays.hashCode(states.get(2)));
    }
}
