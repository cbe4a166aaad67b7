package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Truncation;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * Truncation with overflow windows, the post-processor, and padding, in the tokenizers library's
 * order and with its arithmetic (Encoding::truncate, truncate_encodings, Encoding::merge_with).
 */
final class Assembly {
    /** The most overflow windows one encoding may hold (a 100,000-token text in 512-token windows with a stride of 128 makes 260). */
    static final int MAX_OVERFLOW_WINDOWS = 10_000;

    private Assembly() {}

    static Tokens assemble(Tokens a, Tokens b, EncodeOptions options, PostProcessor post, int maxLength) {
        if (options.truncation() != Truncation.NONE) {
            int added = options.addSpecialTokens() ? post.added(b != null) : 0;
            if (maxLength < added) {
                throw new TokenizerException("max length " + maxLength + " leaves no room for the " + added
                        + " special tokens");
            }
            truncate(a, b, maxLength - added, options);
        }
        boolean windows = !a.overflowing.isEmpty() || (b != null && !b.overflowing.isEmpty());
        if (!windows) {
            Tokens single = b == null && options.addSpecialTokens() ? single(a, post) : null;
            if (single != null) {
                return single;
            }
            // Nothing else reads a and b afterwards, so the post-processor may retype them in place.
            return concat(post.apply(b == null ? new ArrayList<>(List.of(a)) : new ArrayList<>(List.of(a, b)),
                    options.addSpecialTokens()));
        }
        long count = (long) (a.overflowing.size() + 1) * (b == null ? 1 : b.overflowing.size() + 1) - 1;
        if (count > MAX_OVERFLOW_WINDOWS) {
            // A pair's windows are the product of its texts' (as in the library): a normaliser that multiplies a text's
            // length can make millions, more than memory holds.
            throw new TokenizerException("truncation would cut this input into " + count + " overflow windows, more than "
                    + MAX_OVERFLOW_WINDOWS + ": raise max_length or the stride's step");
        }
        Tokens main = process(a, b, options, post);
        // Overflow windows: each of A's with B and with each of B's, then A with each of B's (merge_with's order).
        for (Tokens ao : a.overflowing) {
            main.overflowing.add(process(ao, b == null ? null : b, options, post));
            if (b != null) {
                for (Tokens bo : b.overflowing) {
                    main.overflowing.add(process(ao, bo, options, post));
                }
            }
        }
        if (b != null) {
            for (Tokens bo : b.overflowing) {
                main.overflowing.add(process(a, bo, options, post));
            }
        }
        return main;
    }

    /**
     * One text with special tokens, for the usual post-processors: exactly what {@code concat(post.apply(...))}
     * gives, written straight into the result instead of making each special token a list of its own
     * (eight arrays) and copying the parts again. Null for other post-processors. (instanceof, not a pattern
     * switch, whose bootstrap spins a class at the first encode.)
     */
    private static Tokens single(Tokens a, PostProcessor post) {
        if (post instanceof PostProcessor.Bert bert) {
            return wrap(a, bert.cls(), bert.sep());
        }
        if (post instanceof TemplateProcessing t) {
            return t.single(a);
        }
        if (post instanceof PostProcessor.Roberta r) {
            if (r.trimOffsets()) {
                PostProcessor.trimByteLevelOffsets(a, r.addPrefixSpace());
            }
            return wrap(a, r.cls(), r.sep());
        }
        return null;
    }

    /** {@code cls A sep}, all of type 0 (PostProcessor.wrap for one text). */
    private static Tokens wrap(Tokens a, PostProcessor.Special cls, PostProcessor.Special sep) {
        Tokens out = new Tokens(a.size + 2);
        out.add(cls.id(), cls.token(), 0, 0, 0, 1, -1);
        a.setSequence(0, 0);
        out.addAll(a);
        out.add(sep.id(), sep.token(), 0, 0, 0, 1, -1);
        return out;
    }

    /** Runs the post-processor on copies (it retypes in place) and concatenates its parts. */
    private static Tokens process(Tokens a, Tokens b, EncodeOptions options, PostProcessor post) {
        List<Tokens> parts = new ArrayList<>(2);
        parts.add(copy(a));
        if (b != null) {
            parts.add(copy(b));
        }
        return concat(post.apply(parts, options.addSpecialTokens()));
    }

    private static Tokens concat(List<Tokens> parts) {
        int n = 0;
        for (Tokens part : parts) {
            n += part.size;
        }
        Tokens out = new Tokens(n);
        for (Tokens part : parts) {
            out.addAll(part);
        }
        return out;
    }

    private static Tokens copy(Tokens t) {
        Tokens c = t.range(0, t.size);
        c.window = t.window;
        return c;
    }

    /** Fits A (and B) into {@code max} tokens, the cut parts becoming overflow windows. */
    private static void truncate(Tokens a, Tokens b, int max, EncodeOptions options) {
        int n1 = a.size;
        int n2 = b == null ? 0 : b.size;
        if (n1 + n2 <= max) {
            return;
        }
        int toRemove = n1 + n2 - max;
        switch (options.truncation()) {
            case LONGEST_FIRST -> {
                if (b == null) {
                    window(a, max, options);
                    return;
                }
                boolean swap = n1 > n2;
                int shorter = Math.min(n1, n2);
                int longer = shorter > max ? shorter : Math.max(shorter, max - shorter);
                if (shorter + longer > max) {
                    shorter = max / 2;
                    longer = shorter + max % 2;
                }
                window(a, swap ? longer : shorter, options);
                window(b, swap ? shorter : longer, options);
            }
            case ONLY_FIRST, ONLY_SECOND -> {
                Tokens target = options.truncation() == Truncation.ONLY_FIRST ? a : b;
                if (target == null) {
                    throw new TokenizerException("truncation only_second needs a second text");
                }
                if (target.size <= toRemove) {
                    throw new TokenizerException("cannot truncate with "
                            + options.truncation().name().toLowerCase(java.util.Locale.ROOT) + ": the "
                            + (target == a ? "first" : "second") + " text has " + target.size + " tokens but "
                            + toRemove + " must go to fit in " + max + " (special tokens excluded); use longest_first");
                }
                window(target, target.size - toRemove, options);
            }
            case NONE -> { }
        }
    }

    /** Encoding::truncate: keeps one window of {@code max} tokens, the others stepping by max - stride go to overflowing. */
    private static void window(Tokens t, int max, EncodeOptions options) {
        int n = t.size;
        if (max >= n) {
            return;
        }
        List<int[]> parts = new ArrayList<>();
        if (max == 0) {
            parts.add(new int[] {0, 0});
            parts.add(new int[] {0, n});
        } else {
            int stride = options.stride();
            if (stride >= max) {
                throw new TokenizerException("stride " + stride + " must be less than the " + max
                        + " tokens left for the text after special tokens");
            }
            int step = max - stride;
            if (options.truncationSide() == EncodeOptions.Side.RIGHT) {
                for (int start = 0; start < n; start += step) {
                    int stop = Math.min(start + max, n);
                    parts.add(new int[] {start, stop});
                    if (stop == n) {
                        break;
                    }
                }
            } else {
                for (int stop = n; stop > 0; stop -= step) {
                    int start = Math.max(0, stop - max);
                    parts.add(new int[] {start, stop});
                    if (start == 0) {
                        break;
                    }
                }
            }
        }
        Tokens whole = t.range(0, n);
        List<Tokens> windows = new ArrayList<>();
        for (int k = 1; k < parts.size(); k++) {
            Tokens w = whole.range(parts.get(k)[0], parts.get(k)[1]);
            w.window = true;
            windows.add(w);
        }
        Tokens first = whole.range(parts.get(0)[0], parts.get(0)[1]);
        t.size = 0;
        for (int i = 0; i < first.size; i++) {
            t.addFrom(first, i);
        }
        t.overflowing.clear();
        t.overflowing.addAll(windows);
    }

    /**
     * Pads to {@code length} (rounded up to the multiple), on the side the options say; overflow windows too.
     * Without a padding token ({@code pad} null) that is an error only when a pad is needed.
     */
    static void pad(Tokens t, int length, EncodeOptions options, PipelineTokenizer.PadSettings pad) {
        int target = length;
        int multiple = options.padToMultipleOf();
        if (multiple > 0 && target % multiple != 0) {
            target += multiple - target % multiple;
        }
        for (Tokens o : t.overflowing) {
            pad(o, length, options, pad);
        }
        if (t.size >= target) {
            return;
        }
        if (pad == null) {
            throw new TokenizerException("this tokenizer has no padding token");
        }
        int missing = target - t.size;
        if (options.paddingSide() == EncodeOptions.Side.RIGHT) {
            for (int k = 0; k < missing; k++) {
                t.add(pad.id(), pad.token(), 0, 0, pad.typeId(), 1, -1);
                t.setAttention(t.size - 1, 0);
            }
            return;
        }
        Tokens old = t.range(0, t.size);
        t.size = 0;
        for (int k = 0; k < missing; k++) {
            t.add(pad.id(), pad.token(), 0, 0, pad.typeId(), 1, -1);
            t.setAttention(t.size - 1, 0);
        }
        for (int i = 0; i < old.size; i++) {
            t.addFrom(old, i);
        }
    }
}
