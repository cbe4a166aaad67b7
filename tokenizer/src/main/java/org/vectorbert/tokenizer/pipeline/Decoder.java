package org.vectorbert.tokenizer.pipeline;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A decoder stage of tokenizer.json: rewrites the token strings; decoding joins the result. */
public interface Decoder {
    List<String> decode(List<String> tokens);

    /** {@code WordPiece}: continuation prefixes removed, other tokens after a space; optional cleanup per token. */
    record WordPiece(String prefix, boolean cleanup) implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            List<String> out = new ArrayList<>(tokens.size());
            for (int i = 0; i < tokens.size(); i++) {
                String t = tokens.get(i);
                if (i != 0) {
                    t = t.startsWith(prefix) ? t.substring(prefix.length()) : " " + t;
                }
                out.add(cleanup ? cleanup(t) : t);
            }
            return out;
        }

        /** The tokenizers library's cleanup (spaces before punctuation and in English contractions). */
        static String cleanup(String s) {
            return s.replace(" .", ".").replace(" ?", "?").replace(" !", "!").replace(" ,", ",")
                    .replace(" ' ", "'").replace(" n't", "n't").replace(" 'm", "'m").replace(" do not", " don't")
                    .replace(" 's", "'s").replace(" 've", "'ve").replace(" 're", "'re");
        }
    }

    /** {@code ByteLevel}: the byte characters back to bytes, then UTF-8 with replacement characters. */
    record ByteLevelDecoder() implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (String t : tokens) {
                byte[] mapped = new byte[t.length()];
                boolean all = true;
                for (int k = 0; k < t.length() && all; k++) {
                    int b = ByteLevel.byteOf(t.charAt(k));
                    all = b >= 0;
                    mapped[k] = (byte) b;
                }
                byte[] raw = all ? mapped : t.getBytes(StandardCharsets.UTF_8);
                bytes.write(raw, 0, raw.length);
            }
            return List.of(bytes.toString(StandardCharsets.UTF_8));
        }
    }

    /** {@code Metaspace}: the replacement back to spaces; in the first token it is dropped unless prepending is off. */
    record MetaspaceDecoder(int replacement, boolean prepended) implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            List<String> out = new ArrayList<>(tokens.size());
            for (int i = 0; i < tokens.size(); i++) {
                StringBuilder b = new StringBuilder();
                String t = tokens.get(i);
                for (int k = 0; k < t.length(); ) {
                    int c = t.codePointAt(k);
                    k += Character.charCount(c);
                    if (c != replacement) {
                        b.appendCodePoint(c);
                    } else if (i != 0 || !prepended) {
                        b.append(' ');
                    }
                }
                out.add(b.toString());
            }
            return out;
        }
    }

    /** {@code BPEDecoder}: the end-of-word suffix becomes a space, nothing in the last token. */
    record BpeDecoder(String suffix) implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            List<String> out = new ArrayList<>(tokens.size());
            for (int i = 0; i < tokens.size(); i++) {
                out.add(tokens.get(i).replace(suffix, i == tokens.size() - 1 ? "" : " "));
            }
            return out;
        }
    }

    /** {@code ByteFallback}: runs of {@code <0xHH>} become their UTF-8 text, or one U+FFFD per byte if invalid. */
    record ByteFallback() implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            List<String> out = new ArrayList<>(tokens.size());
            ByteArrayOutputStream run = new ByteArrayOutputStream();
            for (String t : tokens) {
                int b = t.length() == 6 && t.startsWith("<0x") && t.endsWith(">") ? hex(t.substring(3, 5)) : -1;
                if (b >= 0) {
                    run.write(b);
                    continue;
                }
                flush(run, out);
                out.add(t);
            }
            flush(run, out);
            return out;
        }

        private static int hex(String s) {
            try {
                return Integer.parseInt(s, 16);
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        private static void flush(ByteArrayOutputStream run, List<String> out) {
            if (run.size() == 0) {
                return;
            }
            byte[] bytes = run.toByteArray();
            run.reset();
            var decoder = StandardCharsets.UTF_8.newDecoder();
            try {
                out.add(decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString());
            } catch (java.nio.charset.CharacterCodingException e) {
                for (int k = 0; k < bytes.length; k++) {
                    out.add("\uFFFD");
                }
            }
        }
    }

    /** {@code Fuse}: all tokens as one string. */
    record Fuse() implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            return List.of(String.join("", tokens));
        }
    }

    /** {@code Strip}: up to {@code start} leading and {@code stop} trailing {@code content} characters off each token. */
    record Strip(int content, int start, int stop) implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            List<String> out = new ArrayList<>(tokens.size());
            for (String t : tokens) {
                int[] cps = t.codePoints().toArray();
                int from = 0;
                while (from < start && from < cps.length && cps[from] == content) {
                    from++;
                }
                int to = cps.length;
                int stripped = 0;
                while (stripped < stop && to > from && cps[to - 1] == content) {
                    to--;
                    stripped++;
                }
                out.add(new String(cps, from, to - from));
            }
            return out;
        }
    }

    /** {@code Replace}: as the normalizer, on each token. */
    record Replace(SplitPattern pattern, String content) implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            List<String> out = new ArrayList<>(tokens.size());
            for (String t : tokens) {
                out.add(pattern.regex().matcher(t).replaceAll(java.util.regex.Matcher.quoteReplacement(content)));
            }
            return out;
        }
    }

    /** {@code Sequence}: each decoder on the output of the one before. */
    record Sequence(List<Decoder> decoders) implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            for (Decoder d : decoders) {
                tokens = d.decode(tokens);
            }
            return tokens;
        }
    }

    /** No decoder: tokens joined with spaces. */
    record Spaces() implements Decoder {
        @Override
        public List<String> decode(List<String> tokens) {
            return List.of(String.join(" ", tokens));
        }
    }
}
