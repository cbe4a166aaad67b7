package org.vectorbert.convert;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.loader.LoaderException;

/**
 * The parts of an ONNX model (a {@code ModelProto}, protobuf) that importing a BERT export needs:
 * the graph's nodes, initializers and inputs. Read straight from the file's bytes (mapped): an
 * initializer's {@code raw_data} stays a view into them.
 *
 * <p>Field numbers, from onnx.proto: ModelProto 7 graph; GraphProto 1 node, 5 initializer, 11 input,
 * 12 output; NodeProto 1 input, 2 output, 3 name, 4 op_type, 5 attribute; AttributeProto 1 name, 2 f,
 * 3 i, 5 t, 8 ints; TensorProto 1 dims, 2 data_type, 4 float_data, 7 int64_data, 8 name, 9 raw_data,
 * 13 external_data, 14 data_location; ValueInfoProto 1 name.
 *
 * @param nodes        in graph order
 * @param initializers by name
 * @param inputs       the graph's input names
 */
record OnnxGraph(List<Node> nodes, Map<String, Tensor> initializers, List<String> inputs) {
    /** TensorProto data types vectorbert reads. */
    static final int FLOAT = 1;
    static final int INT64 = 7;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * A TensorProto: an initializer, or a Constant node's value.
     *
     * @param data little-endian values ({@code raw_data}, or {@code float_data}/{@code int64_data} copied out)
     * @param external whether the values live in another file ({@code data_location} EXTERNAL)
     */
    record Tensor(String name, int dataType, long[] dims, MemorySegment data, boolean external) {
        long elements() {
            long n = 1;
            for (long d : dims) {
                n = Math.multiplyExact(n, d);
            }
            return n;
        }

        /** The values of a float tensor. */
        float[] floats() {
            return data.toArray(F32);
        }

        /** The values of an int64 tensor. */
        long[] longs() {
            return data.toArray(I64);
        }
    }

    /** An attribute: its float, integer, integers or tensor, whichever it holds. */
    record Attribute(String name, float f, long i, long[] ints, Tensor t) {}

    /** A NodeProto. */
    record Node(String name, String op, List<String> inputs, List<String> outputs, Map<String, Attribute> attributes) {}

    /** Parses a ModelProto; {@code source} names it in messages. */
    static OnnxGraph parse(MemorySegment model, String source) {
        try {
            Reader graph = null;
            for (Reader r = new Reader(model, 0, model.byteSize()); r.next(); ) {
                if (r.field == 7) {
                    graph = r.message();
                } else {
                    r.skip();
                }
            }
            if (graph == null) {
                throw new LoaderException(source + " is not an ONNX model (no graph)");
            }
            List<Node> nodes = new ArrayList<>();
            Map<String, Tensor> initializers = new LinkedHashMap<>();
            List<String> inputs = new ArrayList<>();
            while (graph.next()) {
                switch (graph.field) {
                    case 1 -> nodes.add(node(graph.message()));
                    case 5 -> {
                        Tensor t = tensor(graph.message());
                        initializers.put(t.name(), t);
                    }
                    case 11 -> inputs.add(valueInfoName(graph.message()));
                    default -> graph.skip();
                }
            }
            return new OnnxGraph(List.copyOf(nodes), initializers, List.copyOf(inputs));
        } catch (IndexOutOfBoundsException | IllegalStateException e) {
            throw new LoaderException(source + " is not a readable ONNX model (" + e.getMessage() + ")");
        }
    }

    private static Node node(Reader r) {
        String name = "";
        String op = "";
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        Map<String, Attribute> attributes = new LinkedHashMap<>();
        while (r.next()) {
            switch (r.field) {
                case 1 -> inputs.add(r.string());
                case 2 -> outputs.add(r.string());
                case 3 -> name = r.string();
                case 4 -> op = r.string();
                case 5 -> {
                    Attribute a = attribute(r.message());
                    attributes.put(a.name(), a);
                }
                default -> r.skip();
            }
        }
        return new Node(name, op, List.copyOf(inputs), List.copyOf(outputs), attributes);
    }

    private static Attribute attribute(Reader r) {
        String name = "";
        float f = 0;
        long i = 0;
        List<Long> ints = new ArrayList<>();
        Tensor t = null;
        while (r.next()) {
            switch (r.field) {
                case 1 -> name = r.string();
                case 2 -> f = Float.intBitsToFloat((int) r.fixed32());
                case 3 -> i = r.varint();
                case 5 -> t = tensor(r.message());
                case 8 -> r.varints(ints);
                default -> r.skip();
            }
        }
        return new Attribute(name, f, i, ints.stream().mapToLong(Long::longValue).toArray(), t);
    }

    private static Tensor tensor(Reader r) {
        String name = "";
        int type = 0;
        List<Long> dims = new ArrayList<>();
        MemorySegment raw = null;
        List<Float> floats = new ArrayList<>();
        List<Long> longs = new ArrayList<>();
        boolean external = false;
        while (r.next()) {
            switch (r.field) {
                case 1 -> r.varints(dims);
                case 2 -> type = (int) r.varint();
                case 4 -> r.floats(floats);
                case 7 -> r.varints(longs);
                case 8 -> name = r.string();
                case 9 -> raw = r.bytes();
                case 13 -> {
                    external = true;
                    r.skip();
                }
                case 14 -> external |= r.varint() == 1;
                default -> r.skip();
            }
        }
        long[] shape = dims.stream().mapToLong(Long::longValue).toArray();
        if (raw == null && !floats.isEmpty()) {
            float[] values = new float[floats.size()];
            for (int k = 0; k < values.length; k++) {
                values[k] = floats.get(k);
            }
            raw = MemorySegment.ofArray(values);
        } else if (raw == null && !longs.isEmpty()) {
            raw = MemorySegment.ofArray(longs.stream().mapToLong(Long::longValue).toArray());
        }
        return new Tensor(name, type, shape, raw == null ? MemorySegment.ofArray(new byte[0]) : raw, external);
    }

    private static String valueInfoName(Reader r) {
        String name = "";
        while (r.next()) {
            if (r.field == 1) {
                name = r.string();
            } else {
                r.skip();
            }
        }
        return name;
    }

    /** Protobuf wire format over [at, end) of a segment: fields one at a time. */
    private static final class Reader {
        private final MemorySegment bytes;
        private long at;
        private final long end;
        int field;
        int wire;

        Reader(MemorySegment bytes, long from, long to) {
            this.bytes = bytes;
            this.at = from;
            this.end = to;
        }

        /** Moves to the next field's value; false at the end. */
        boolean next() {
            if (at >= end) {
                return false;
            }
            long key = varint();
            field = (int) (key >>> 3);
            wire = (int) (key & 7);
            if (field <= 0) {
                throw new IllegalStateException("field number " + field + " at byte " + at);
            }
            return true;
        }

        long varint() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= end) {
                    throw new IllegalStateException("a number runs past its message at byte " + at);
                }
                byte b = bytes.get(ValueLayout.JAVA_BYTE, at++);
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw new IllegalStateException("a varint longer than 10 bytes at byte " + at);
        }

        long fixed32() {
            expect(5);
            long v = bytes.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), at) & 0xFFFFFFFFL;
            at += 4;
            return v;
        }

        /** The value of a length-delimited field, as a view. */
        MemorySegment bytes() {
            Reader r = message();
            return bytes.asSlice(r.at, r.end - r.at);
        }

        /** The value of a length-delimited field, to read as a message. */
        Reader message() {
            expect(2);
            long length = varint();
            if (length < 0 || length > end - at) {
                throw new IllegalStateException("a field of " + length + " bytes runs past its message at byte " + at);
            }
            Reader r = new Reader(bytes, at, at + length);
            at += length;
            return r;
        }

        String string() {
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(bytes().asByteBuffer()).toString();
            } catch (CharacterCodingException e) {
                throw new IllegalStateException("a name that is not UTF-8 at byte " + at);
            }
        }

        /** A repeated varint field, packed or not. */
        void varints(List<Long> into) {
            if (wire == 0) {
                into.add(varint());
                return;
            }
            Reader packed = message();
            while (packed.at < packed.end) {
                into.add(packed.varint());
            }
        }

        /** A repeated float field, packed or not. */
        void floats(List<Float> into) {
            if (wire == 5) {
                into.add(Float.intBitsToFloat((int) fixed32()));
                return;
            }
            MemorySegment packed = bytes();
            for (long k = 0; k + 4 <= packed.byteSize(); k += 4) {
                into.add(packed.get(F32, k));
            }
        }

        void skip() {
            switch (wire) {
                case 0 -> varint();
                case 1 -> at += 8;
                case 2 -> bytes();
                case 5 -> at += 4;
                default -> throw new IllegalStateException("wire type " + wire + " (groups are not used by ONNX) at byte " + at);
            }
            if (at > end) {
                throw new IllegalStateException("a field runs past its message");
            }
        }

        private void expect(int wireType) {
            if (wire != wireType) {
                throw new IllegalStateException("field " + field + " has wire type " + wire + ", expected " + wireType);
            }
        }
    }
}
