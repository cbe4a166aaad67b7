package org.vectorbert.loader;

/** Element types of safetensors files, by their header names. */
public enum DType {
    BOOL(1), U8(1), I8(1), F8_E5M2(1), F8_E4M3(1), I16(2), U16(2), F16(2), BF16(2), I32(4), U32(4), F32(4),
    F64(8), I64(8), U64(8);

    private final int bytes;

    DType(int bytes) {
        this.bytes = bytes;
    }

    public int bytes() {
        return bytes;
    }

    /** Whether vectorbert can read it as float32 (F32 as is, F16 and BF16 widened). */
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
