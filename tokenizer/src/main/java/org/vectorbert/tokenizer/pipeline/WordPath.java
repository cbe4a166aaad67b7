package org.vectorbert.tokenizer.pipeline;

import java.util.List;

/**
 * Pre-tokenizer to model without a Normalized per word: the pre-tokenizer writes each word's
 * units and original spans into a scratch {@link WordChars} and the model reads them there (and
 * looks them up in its word cache), for the BPE and Unigram models, instead of a Normalized of
 * its own per word (a substring, two copied alignment arrays and an Edit per step), which was
 * those pipelines' largest cost. ByteLevel and Metaspace write words directly; any other
 * pre-tokenizer still splits into Normalized words, copied over one by one.
 */
final class WordPath {
    /** A model that reads scratch words. */
    @FunctionalInterface
    interface WordModel {
        void tokenize(WordChars word, Tokens out);
    }

    /** A pre-tokenizer that writes scratch words: each one into {@link #word}, then {@link #flush}. */
    @FunctionalInterface
    interface Splitter {
        /** The words of a normalised piece; false when the sink stopped the text. */
        boolean split(Normalized piece, WordPath path);
    }

    /** The word being built; it grows to the longest word (sized to the text up front, it made most of the garbage). */
    final WordChars word = new WordChars(16);
    private final WordModel model;
    private final TokenSink sink;

    WordPath(WordModel model, TokenSink sink) {
        this.model = model;
        this.sink = sink;
    }

    /** The word model of a model, or null when it has none. */
    static WordModel modelOf(Model model) {
        if (model instanceof BpeModel bpe) {
            return bpe::tokenize;
        }
        if (model instanceof UnigramModel unigram) {
            return unigram::tokenize;
        }
        return null;
    }

    /** How a pre-tokenizer (null for none) writes scratch words. */
    static Splitter splitterOf(PreTokenizer pre) {
        if (pre instanceof ByteLevel b) {
            return b::words;
        }
        if (pre instanceof Metaspace m) {
            return m::words;
        }
        if (pre == null) {
            return (piece, path) -> path.word.set(piece, 0, piece.length()).length == 0 || path.flush();
        }
        return (piece, path) -> {
            List<Normalized> words = pre.split(piece);
            for (Normalized w : words) {
                if (!w.isEmpty()) {
                    path.word.set(w, 0, w.length());
                    if (!path.flush()) {
                        return false;
                    }
                }
            }
            return true;
        };
    }

    /** Tokenizes {@link #word} (non-empty) and empties it; false when the text must stop here. */
    boolean flush() {
        int before = sink.out.size;
        model.tokenize(word, sink.out);
        word.clear();
        return !sink.word(before);
    }
}
