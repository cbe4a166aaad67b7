package org.vectorbert.loader;

/** Element types of safetensors files, by their header names. */
public enum DType {
    /** Booleans, a byte each. */
    BOOL(1),
    /** Unsigned bytes. */
    U8(1),
    /** Signed bytes. */
    I8(1),
    /** 8-bit floats with 5 exponent bits. */
    F8_E5M2(1),
    /** 8-bit floats with 4 exponent bits. */
    F8_E4M3(1),
    /** 16-bit signed integers. */
    I16(2),
    /** 16-bit unsigned integers. */
    U16(2),
    /** IEEE half-precision floats. */
    F16(2),
    /** bfloat16: the top half of a float32. */
    BF16(2),
    /** 32-bit signed integers. */
    I32(4),
    /** 32-bit unsigned integers. */
    U32(4),
    /** IEEE single-precision floats. */
    F32(4),
    /** IEEE double-precision floats. */
    F64(8),
    /** 64-bit signed integers. */
    I64(8),
    /** 64-bit unsigned integers. */
    U64(8);

    private final int bytes;

    DType(int bytes) {
        this.bytes = bytes;
    }

    /** {@return bytes per element} */
    public int bytes() {
        return bytes;
    }

    /** {@return whether vectorbert can read it as float32} F32 as is, F16 and BF16 widened. */
    public boolean isFloat() {
        return this == F32 || this == F16 || this == BF16;
    }

    /** The type named in a safetensors header, or null if there is none. */
    static DType byName(String name) {
        for (DType t : values()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
