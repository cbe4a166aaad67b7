package org.vectorbert.tokenizer.pipeline;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Turns a JSON number's decimal text into the double the tokenizers library reads from it.
 * The library parses tokenizer.json with serde_json built without {@code float_roundtrip}, whose
 * documented "best-effort" parser takes the decimal digits as a u64 (digits past 19-20 dropped),
 * converts that to a double and multiplies or divides once by a power of ten. Above 2^53 or past
 * 10^22 that is up to one ulp off the correctly rounded value Java's parser gives, and Unigram
 * totals that tie except in the last bit ("1,000" as 0+00 or 00+0) then flip the library's way.
 */
final class JsonFloats {
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final double[] POW10 = new double[309];

    static {
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = Double.parseDouble("1e" + i);
        }
    }

    private JsonFloats() {}

    /** The library's double for a number written as {@code value} (digits and scale as in the text). */
    static double libraryDouble(BigDecimal value) {
        BigInteger digits = value.unscaledValue().abs();
        long exponent = -(long) value.scale();
        // Digits that no longer fit in a u64 are dropped, their place value kept in the exponent.
        String text = digits.toString();
        int keep = Math.min(text.length(), 20);
        if (new BigInteger(text.substring(0, keep)).compareTo(U64_MAX) > 0) {
            keep--;
        }
        exponent += text.length() - keep;
        BigInteger significand = new BigInteger(text.substring(0, keep));
        double f = significand.doubleValue(); // u64 -> f64 rounds to nearest, as Rust's `as` does
        while (true) {
            long abs = Math.abs(exponent);
            if (abs < POW10.length) {
                f = exponent >= 0 ? f * POW10[(int) abs] : f / POW10[(int) abs];
                break;
            }
            if (f == 0.0) {
                break;
            }
            if (exponent >= 0) {
                // The library refuses such a number as out of range; infinity is as unusable a score.
                f = Double.POSITIVE_INFINITY;
                break;
            }
            f /= 1e308;
            exponent += 308;
        }
        return value.signum() < 0 ? -f : f;
    }
}
