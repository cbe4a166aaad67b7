package org.vectorbert.tokenizer.pipeline;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * The parts of sentencepiece's {@code ModelProto} (sentencepiece_model.proto, proto2) a tokenizer
 * needs: the pieces {piece = 1, score = 2, type = 3}, trainer_spec = 2 {model_type = 3,
 * byte_fallback = 35, unk_id = 40} and normalizer_spec = 3 {name = 1, precompiled_charsmap = 2,
 * add_dummy_prefix = 3, remove_extra_whitespaces = 4}. Other fields are skipped by wire type,
 * as protobuf readers do; a length or varint running past the end is an error naming the file.
 */
record SentencePieceProto(List<Piece> pieces, int modelType, boolean byteFallback, int unkId, String normalizerName,
                          byte[] precompiledCharsmap, boolean addDummyPrefix, boolean removeExtraWhitespaces) {
    /** sentencepiece's piece types: NORMAL 1, UNKNOWN 2, CONTROL 3, USER_DEFINED 4, UNUSED 5, BYTE 6. */
    record Piece(String piece, float score, int type, boolean hasScore) {}

    static final int UNIGRAM = 1;
    static final int BPE = 2;

    static SentencePieceProto parse(byte[] bytes, String file) {
        Reader model = new Reader(bytes, 0, bytes.length, file);
        List<Piece> pieces = new ArrayList<>();
        int[] trainer = {UNIGRAM, 0, 0};
        Object[] normalizer = {"", new byte[0], true, true};
        while (model.more()) {
            int key = model.varint32();
            switch (key) {
                case (1 << 3) | 2 -> pieces.add(piece(model.message(), pieces.size()));
                case (2 << 3) | 2 -> trainer(model.message(), trainer);
                case (3 << 3) | 2 -> normalizer(model.message(), normalizer);
                default -> model.skip(key);
            }
        }
        return new SentencePieceProto(pieces, trainer[0], trainer[1] != 0, trainer[2], (String) normalizer[0],
                (byte[]) normalizer[1], (Boolean) normalizer[2], (Boolean) normalizer[3]);
    }

    private static Piece piece(Reader r, int index) {
        String piece = null;
        float score = 0f;
        boolean hasScore = false;
        int type = 1;
        while (r.more()) {
            int key = r.varint32();
            switch (key) {
                case (1 << 3) | 2 -> piece = r.string("pieces[" + index + "].piece");
                case (2 << 3) | 5 -> {
                    score = Float.intBitsToFloat(r.fixed32());
                    hasScore = true;
                }
                case 3 << 3 -> type = r.varint32();
                default -> r.skip(key);
            }
        }
        if (piece == null) {
            throw r.error("pieces[" + index + "] has no piece string");
        }
        return new Piece(piece, score, type, hasScore);
    }

    private static void trainer(Reader r, int[] out) {
        while (r.more()) {
            int key = r.varint32();
            switch (key) {
                case 3 << 3 -> out[0] = r.varint32();
                case 35 << 3 -> out[1] = r.varint32();
                case 40 << 3 -> out[2] = r.varint32();
                default -> r.skip(key);
            }
        }
    }

    private static void normalizer(Reader r, Object[] out) {
        while (r.more()) {
            int key = r.varint32();
            switch (key) {
                case (1 << 3) | 2 -> out[0] = r.string("normalizer_spec.name");
                case (2 << 3) | 2 -> out[1] = r.bytes();
                case 3 << 3 -> out[2] = r.varint32() != 0;
                case 4 << 3 -> out[3] = r.varint32() != 0;
                default -> r.skip(key);
            }
        }
    }

    /** A bounded view of the bytes with protobuf's wire-format primitives. */
    private static final class Reader {
        private final byte[] bytes;
        private final int end;
        private final String file;
        private int at;

        Reader(byte[] bytes, int from, int end, String file) {
            this.bytes = bytes;
            this.at = from;
            this.end = end;
            this.file = file;
        }

        boolean more() {
            return at < end;
        }

        TokenizerException error(String problem) {
            return new TokenizerException(file + ": not a sentencepiece model (" + problem + " at byte " + at + ")");
        }

        long varint() {
            long value = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                if (at >= end) {
                    throw error("truncated varint");
                }
                byte b = bytes[at++];
                value |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw error("varint longer than 10 bytes");
        }

        /** int32 fields are written sign-extended to 64 bits; the low 32 bits are the value. */
        int varint32() {
            return (int) varint();
        }

        int fixed32() {
            if (end - at < 4) {
                throw error("truncated fixed32");
            }
            int v = (bytes[at] & 0xff) | (bytes[at + 1] & 0xff) << 8 | (bytes[at + 2] & 0xff) << 16
                    | (bytes[at + 3] & 0xff) << 24;
            at += 4;
            return v;
        }

        private int length() {
            long n = varint();
            if (n < 0 || n > end - at) {
                throw error("length " + n + " runs past the end");
            }
            return (int) n;
        }

        Reader message() {
            int n = length();
            Reader r = new Reader(bytes, at, at + n, file);
            at += n;
            return r;
        }

        byte[] bytes() {
            int n = length();
            byte[] out = java.util.Arrays.copyOfRange(bytes, at, at + n);
            at += n;
            return out;
        }

        String string(String field) {
            int n = length();
            try {
                String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(bytes, at, n)).toString();
                at += n;
                return s;
            } catch (CharacterCodingException e) {
                throw error(field + " is not UTF-8");
            }
        }

        void skip(int key) {
            if (key >>> 3 == 0) {
                throw error("field number 0");
            }
            switch (key & 7) {
                case 0 -> varint();
                case 1 -> skipBytes(8);
                case 2 -> skipBytes(length());
                case 5 -> skipBytes(4);
                default -> throw error("wire type " + (key & 7) + " of field " + (key >>> 3));
            }
        }

        private void skipBytes(int n) {
            if (end - at < n) {
                throw error("truncated field");
            }
            at += n;
        }
    }
}
