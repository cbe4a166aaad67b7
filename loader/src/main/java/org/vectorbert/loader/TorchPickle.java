package org.vectorbert.loader;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pickle VM that knows only what {@code torch.save} writes for a dict of tensors (protocol 2, as torch 1.6 to 2.x
 * write it): its opcodes, the globals {@code collections.OrderedDict}, {@code torch._utils._rebuild_tensor_v2},
 * {@code torch._utils._rebuild_parameter} and the typed storage classes, and persistent ids
 * {@code ('storage', class, key, location, numel)}. Nothing is executed: a global is a name, a call builds one of a
 * few records. Any other opcode or global is refused in one line naming it.
 */
final class TorchPickle {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong F64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** A global the VM knows: a name, never resolved to code. */
    record Global(String name) {}

    /** A storage a persistent id names: record {@code data/<key>} holding {@code numel} elements of {@code dtype}. */
    record Storage(DType dtype, String key, long numel) {}

    /** What {@code _rebuild_tensor_v2} would build: a view of a storage. */
    record TensorView(Storage storage, long offset, long[] shape, long[] stride) {}

    /** An immutable pickle tuple. */
    record Tuple(List<Object> items) {}

    private static final Object NONE = new Object();
    static final Map<String, DType> STORAGES = Map.of("torch.FloatStorage", DType.F32, "torch.HalfStorage", DType.F16,
            "torch.BFloat16Storage", DType.BF16, "torch.DoubleStorage", DType.F64, "torch.LongStorage", DType.I64,
            "torch.IntStorage", DType.I32, "torch.ShortStorage", DType.I16, "torch.CharStorage", DType.I8,
            "torch.ByteStorage", DType.U8, "torch.BoolStorage", DType.BOOL);
    private static final String ORDERED_DICT = "collections.OrderedDict";
    private static final String REBUILD_TENSOR = "torch._utils._rebuild_tensor_v2";
    private static final String REBUILD_PARAMETER = "torch._utils._rebuild_parameter";

    // Bounds far past any state dict (names of a few hundred bytes, SETITEMS batched by 1,000, a few memo entries and
    // dict entries per tensor), so that a hostile pickle of many small opcodes cannot fill the heap.
    private static final int MAX_TEXT = 1 << 20;
    private static final int MAX_STACK = 1 << 20;
    private static final int MAX_MEMO = 1 << 22;
    private static final int MAX_HELD = 1 << 22;

    private final MemorySegment bytes;
    private final String where;
    private final List<Object> stack = new ArrayList<>();
    private final List<Integer> marks = new ArrayList<>();
    private final Map<Long, Object> memo = new HashMap<>();
    private long pos;
    private long held; // elements added to lists and dicts, all told

    private TorchPickle(MemorySegment bytes, String where) {
        this.bytes = bytes;
        this.where = where;
    }

    /**
     * Runs the pickle to its STOP.
     *
     * @param bytes the pickle ({@code data.pkl})
     * @param where the file and record, for messages
     * @return the top object: a {@code Map<String, Object>} for a state dict, or whatever else it holds
     * @throws LoaderException naming the first opcode, global or structure it does not accept
     */
    static Object load(MemorySegment bytes, String where) {
        return new TorchPickle(bytes, where).run();
    }

    private Object run() {
        while (true) {
            long at = pos;
            int op = u8();
            switch (op) {
                case 0x80 -> { // PROTO
                    int protocol = u8();
                    if (protocol > 5) {
                        throw bad("pickle protocol " + protocol + " is not known");
                    }
                }
                case 0x95 -> take(8); // FRAME: a length hint, the opcodes follow inline
                case '}' -> push(new LinkedHashMap<String, Object>()); // EMPTY_DICT
                case ')' -> push(new Tuple(List.of())); // EMPTY_TUPLE
                case ']' -> push(new ArrayList<>()); // EMPTY_LIST
                case '(' -> { // MARK
                    if (marks.size() >= MAX_STACK) {
                        throw bad("more than " + MAX_STACK + " nested MARKs");
                    }
                    marks.add(stack.size());
                }
                case 't' -> push(new Tuple(List.copyOf(popMark()))); // TUPLE
                case 0x85 -> push(new Tuple(List.of(pop()))); // TUPLE1
                case 0x86 -> { // TUPLE2
                    Object b = pop();
                    push(new Tuple(List.of(pop(), b)));
                }
                case 0x87 -> { // TUPLE3
                    Object c = pop();
                    Object b = pop();
                    push(new Tuple(List.of(pop(), b, c)));
                }
                case 'X' -> push(text(Integer.toUnsignedLong(take(4).get(I32, 0)))); // BINUNICODE
                case 0x8c -> push(text(u8())); // SHORT_BINUNICODE
                case 'J' -> push((long) take(4).get(I32, 0)); // BININT
                case 'K' -> push((long) u8()); // BININT1
                case 'M' -> push((long) Short.toUnsignedInt(take(2).get(U16, 0))); // BININT2
                case 0x8a -> push(long1(u8())); // LONG1
                case 'G' -> push(Double.longBitsToDouble(take(8).get(F64, 0))); // BINFLOAT
                case 0x88 -> push(Boolean.TRUE); // NEWTRUE
                case 0x89 -> push(Boolean.FALSE); // NEWFALSE
                case 'N' -> push(NONE); // NONE
                case 'c' -> push(global(line(), line())); // GLOBAL
                case 'q' -> memoPut(u8()); // BINPUT
                case 'r' -> memoPut(Integer.toUnsignedLong(take(4).get(I32, 0))); // LONG_BINPUT
                case 0x94 -> memoPut(memo.size()); // MEMOIZE
                case 'h' -> push(memoGet(u8())); // BINGET
                case 'j' -> push(memoGet(Integer.toUnsignedLong(take(4).get(I32, 0)))); // LONG_BINGET
                case 'R' -> { // REDUCE
                    Object args = pop();
                    push(reduce(pop(), args));
                }
                case 'b' -> build(pop(), peek()); // BUILD
                case 's' -> { // SETITEM
                    Object value = pop();
                    Object key = pop();
                    put(peek(), key, value);
                }
                case 'u' -> { // SETITEMS
                    List<Object> items = popMark();
                    if (items.size() % 2 != 0) {
                        throw bad("SETITEMS has an odd number of items");
                    }
                    Object dict = peek();
                    for (int i = 0; i < items.size(); i += 2) {
                        put(dict, items.get(i), items.get(i + 1));
                    }
                }
                case 'a' -> { // APPEND
                    Object value = pop();
                    list(peek()).add(value);
                    hold(1);
                }
                case 'e' -> { // APPENDS
                    List<Object> items = popMark();
                    list(peek()).addAll(items);
                    hold(items.size());
                }
                case 'Q' -> push(storage(pop())); // BINPERSID
                case '.' -> { // STOP
                    if (stack.size() != 1) {
                        throw bad("STOP leaves " + stack.size() + " objects on the stack, not 1");
                    }
                    return stack.get(0);
                }
                default -> throw bad("opcode 0x" + Integer.toHexString(op) + printable(op) + " at byte " + at
                        + " is not one a state dict of tensors needs");
            }
        }
    }

    /** Only the allowed names become globals; any other is refused before anything could use it. */
    private Object global(String module, String name) {
        String full = module + "." + name;
        if (full.equals(ORDERED_DICT) || full.equals(REBUILD_TENSOR) || full.equals(REBUILD_PARAMETER) || STORAGES.containsKey(full)) {
            return new Global(full);
        }
        throw bad("global " + full + " is not allowed: only tensors, storages and OrderedDict are read, nothing is executed");
    }

    private Object reduce(Object callable, Object argsObject) {
        if (!(callable instanceof Global g) || !(argsObject instanceof Tuple(List<Object> args))) {
            throw bad("REDUCE needs a global and a tuple of arguments, found " + kind(callable) + " and " + kind(argsObject));
        }
        switch (g.name) {
            case ORDERED_DICT -> {
                if (!args.isEmpty()) {
                    throw bad("OrderedDict is called with arguments");
                }
                return new LinkedHashMap<String, Object>();
            }
            case REBUILD_TENSOR -> {
                // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
                if (args.size() != 6 && args.size() != 7 || !(args.get(0) instanceof Storage s) || !(args.get(1) instanceof Long offset)) {
                    throw bad("_rebuild_tensor_v2 is called with arguments other than (storage, offset, size, stride, ...)");
                }
                return new TensorView(s, offset, dims(args.get(2), "size"), dims(args.get(3), "stride"));
            }
            case REBUILD_PARAMETER -> {
                if (args.size() != 3 || !(args.get(0) instanceof TensorView t)) {
                    throw bad("_rebuild_parameter is called with arguments other than (tensor, requires_grad, hooks)");
                }
                return t;
            }
            default -> throw bad("global " + g.name + " is called; it only names a storage type");
        }
    }

    /** BUILD on a dict sets attributes (a module's {@code _metadata}): nothing a tensor needs, so dropped. */
    private void build(Object state, Object target) {
        if (!(target instanceof Map) || !(state instanceof Map)) {
            throw bad("BUILD on " + kind(target) + " with " + kind(state) + " state is not part of a state dict");
        }
    }

    /** A persistent id: {@code ('storage', storage class, key, location, numel)}. */
    private Storage storage(Object pid) {
        if (pid instanceof Tuple(List<Object> t) && t.size() == 5 && "storage".equals(t.get(0)) && t.get(1) instanceof Global g
                && STORAGES.containsKey(g.name) && t.get(2) instanceof String key && t.get(3) instanceof String
                && t.get(4) instanceof Long numel && numel >= 0) {
            return new Storage(STORAGES.get(g.name), key, numel);
        }
        throw bad("a persistent id is not ('storage', storage type, key, location, numel)");
    }

    private long[] dims(Object o, String what) {
        if (!(o instanceof Tuple(List<Object> items))) {
            throw bad("a tensor's " + what + " is " + kind(o) + ", not a tuple");
        }
        long[] out = new long[items.size()];
        for (int i = 0; i < out.length; i++) {
            if (!(items.get(i) instanceof Long d) || d < 0) {
                throw bad("a tensor's " + what + " holds " + kind(items.get(i)) + ", not a size");
            }
            out[i] = d;
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private void put(Object dict, Object key, Object value) {
        if (!(dict instanceof Map)) {
            throw bad("SETITEM on " + kind(dict) + ", not a dict");
        }
        if (!(key instanceof String k)) {
            throw bad("a dict key is " + kind(key) + ", not a string");
        }
        ((Map<String, Object>) dict).put(k, value);
        hold(1);
    }

    private void hold(int n) {
        held += n;
        if (held > MAX_HELD) {
            throw bad("more than " + MAX_HELD + " entries in its lists and dicts");
        }
    }

    @SuppressWarnings("unchecked")
    private List<Object> list(Object o) {
        if (!(o instanceof ArrayList)) {
            throw bad("APPEND on " + kind(o) + ", not a list");
        }
        return (List<Object>) o;
    }

    /** A value's kind for messages: never its contents, which may be large or hold themselves. */
    static String kind(Object o) {
        return switch (o) {
            case null -> "nothing";
            case Map<?, ?> m -> "a dict";
            case List<?> l -> "a list";
            case Tuple t -> "a tuple of " + t.items.size();
            case String s -> "a string";
            case Long l -> "an integer";
            case Double d -> "a float";
            case Boolean b -> "a boolean";
            case Global g -> g.name;
            case Storage s -> "a storage";
            case TensorView t -> "a tensor";
            default -> o == NONE ? "None" : "a mark";
        };
    }

    private long long1(int n) {
        if (n > 8) {
            throw bad("an integer of " + n + " bytes is too large");
        }
        MemorySegment b = take(n);
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = (v << 8) | Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, i));
        }
        if (n > 0 && n < 8 && b.get(ValueLayout.JAVA_BYTE, n - 1) < 0) {
            v -= 1L << (8 * n); // two's complement of n bytes
        }
        return v;
    }

    private void memoPut(long index) {
        Object top = peek();
        if (memo.size() >= MAX_MEMO && !memo.containsKey(index)) {
            throw bad("more than " + MAX_MEMO + " memo entries");
        }
        memo.put(index, top);
    }

    private String text(long length) {
        if (length > MAX_TEXT) {
            throw bad("a string of " + length + " bytes at byte " + pos + ", longer than any name in a state dict");
        }
        return new String(take(length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** GLOBAL's operands: text up to a newline, at most 256 bytes. */
    private String line() {
        long start = pos;
        while (pos < bytes.byteSize() && pos - start < 256) {
            if (bytes.get(ValueLayout.JAVA_BYTE, pos++) == '\n') {
                return new String(bytes.asSlice(start, pos - 1 - start).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            }
        }
        throw bad("GLOBAL at byte " + (start - 1) + " has no name ending in a newline");
    }

    private MemorySegment take(long n) {
        if (n > bytes.byteSize() - pos) {
            throw bad("the pickle ends inside an opcode's operand at byte " + pos + " (truncated?)");
        }
        MemorySegment s = bytes.asSlice(pos, n);
        pos += n;
        return s;
    }

    private int u8() {
        return Byte.toUnsignedInt(take(1).get(ValueLayout.JAVA_BYTE, 0));
    }

    private void push(Object o) {
        if (stack.size() >= MAX_STACK) {
            throw bad("more than " + MAX_STACK + " objects on the stack");
        }
        stack.add(o);
    }

    private Object pop() {
        int floor = marks.isEmpty() ? 0 : marks.getLast();
        if (stack.size() <= floor) {
            throw bad("an opcode at byte " + (pos - 1) + " pops an empty stack");
        }
        return stack.removeLast();
    }

    private Object peek() {
        int floor = marks.isEmpty() ? 0 : marks.getLast();
        if (stack.size() <= floor) {
            throw bad("an opcode at byte " + (pos - 1) + " needs an object on an empty stack");
        }
        return stack.getLast();
    }

    private List<Object> popMark() {
        if (marks.isEmpty()) {
            throw bad("an opcode at byte " + (pos - 1) + " needs a MARK that is not there");
        }
        int from = marks.removeLast();
        List<Object> top = stack.subList(from, stack.size());
        List<Object> items = new ArrayList<>(top);
        top.clear();
        return items;
    }

    private Object memoGet(long index) {
        Object o = memo.get(index);
        if (o == null) {
            throw bad("memo entry " + index + " is read before it is written");
        }
        return o;
    }

    private static String printable(int op) {
        return op >= 0x20 && op < 0x7f ? " ('" + (char) op + "')" : "";
    }

    private LoaderException bad(String what) {
        return new LoaderException(where + ": " + what);
    }
}
