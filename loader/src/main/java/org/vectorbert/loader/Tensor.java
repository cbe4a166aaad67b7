package org.vectorbert.loader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A named tensor whose bytes are a view into a mapped checkpoint (little-endian, row-major, not
 * necessarily aligned). Valid until the file it came from is closed.
 *
 * @param name  the name the checkpoint gives it
 * @param dtype the element type
 * @param shape the dimensions, outermost first
 * @param data  the elements' bytes
 */
public record Tensor(String name, DType dtype, long[] shape, MemorySegment data) {
    public static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** {@return the number of elements} */
    public long elementCount() {
        return elementCount(shape);
    }

    /**
     * The number of elements of a tensor of {@code shape}; throws on overflow.
     *
     * @param shape the dimensions
     * @return their product (1 for a scalar)
     */
    public static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /**
     * One element as float32.
     *
     * @param i the element's row-major index
     * @return its value
     */
    public float getFloat(long i) {
        return switch (dtype) {
            case F32 -> data.getAtIndex(F32, i);
            case F16 -> Float.float16ToFloat(data.getAtIndex(F16, i));
            case BF16 -> Float.intBitsToFloat(data.getAtIndex(F16, i) << 16);
            default -> throw new LoaderException("tensor " + name + " is " + dtype + ", not a floating-point type");
        };
    }

    /**
     * The elements as float32 in native byte order: the mapped bytes themselves for F32 on a
     * little-endian machine, otherwise a converted copy allocated in {@code arena}.
     *
     * @param arena where a converted copy goes
     * @return the float32 elements
     */
    public MemorySegment asFloat32(Arena arena) {
        if (dtype == DType.F32 && ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
            return data;
        }
        long n = elementCount();
        MemorySegment out = arena.allocate(ValueLayout.JAVA_FLOAT, n);
        for (long i = 0; i < n; i++) {
            out.setAtIndex(ValueLayout.JAVA_FLOAT, i, getFloat(i));
        }
        return out;
    }

    /** {@return a copy of the elements as a float array} For tests, small tensors and conversions. */
    public float[] toFloatArray() {
        long n = elementCount();
        if (n > Integer.MAX_VALUE - 8) {
            throw new LoaderException("tensor " + name + " has " + n + " elements, too many for one Java array");
        }
        float[] out = new float[(int) n];
        if (dtype == DType.F32) {
            MemorySegment.copy(data, F32, 0, out, 0, out.length);
        } else {
            for (int i = 0; i < out.length; i++) {
                out[i] = getFloat(i);
            }
        }
        return out;
    }

    /** {@return the shape as {@code [a, b]}} */
    public String shapeString() {
        return Arrays.toString(shape);
    }

    @Override
    public String toString() {
        return name + " " + dtype + shapeString();
    }
}
