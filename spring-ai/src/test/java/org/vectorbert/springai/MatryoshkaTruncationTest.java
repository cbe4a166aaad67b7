package org.vectorbert.springai;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MatryoshkaTruncationTest {
    @Test
    void keepsTheFirstComponentsScaledToUnitLength() {
        float[] cut = MatryoshkaTruncation.truncate(new float[] {3, 4, 12, 84}, 2);
        assertArrayEquals(new float[] {0.6f, 0.8f}, cut, 1e-7f);
    }

    @Test
    void theFullLengthIsTheVectorItselfNotRenormalised() {
        float[] v = {3, 4, 12};
        assertSame(v, MatryoshkaTruncation.truncate(v, 3));
    }

    @Test
    void zerosStayZerosRatherThanNaN() {
        assertArrayEquals(new float[] {0, 0}, MatryoshkaTruncation.truncate(new float[] {0, 0, 1}, 2));
    }

    @Test
    void zeroAndMoreThanTheModelHasAreRefusedNamingBoth() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> MatryoshkaTruncation.requireValid(0, 384, "vectorbert.dimensions"));
        assertEquals("vectorbert.dimensions is 0, but the model's vectors have 384 dimensions: ask for 1 to 384"
                + " (fewer keeps the first components, renormalised)", zero.getMessage());
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                () -> MatryoshkaTruncation.truncate(new float[4], 5));
        assertEquals("the number of dimensions asked for is 5, but the model's vectors have 4 dimensions: ask for 1 to 4"
                + " (fewer keeps the first components, renormalised)", tooMany.getMessage());
        assertEquals(384, MatryoshkaTruncation.requireValid(384, 384, "x"));
        assertEquals(1, MatryoshkaTruncation.requireValid(1, 384, "x"));
    }
}
