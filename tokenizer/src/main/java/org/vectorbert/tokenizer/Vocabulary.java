package org.vectorbert.tokenizer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.vectorbert.tokenizer.pipeline.Vocab;

/** The WordPiece vocabulary: token strings by id (ids 0..n-1, no token twice), and ids by token. */
public final class Vocabulary {
    private final String[] tokens;
    private final Map<String, Integer> ids;
    /** The same tokens as the pipeline's WordPiece model reads them (sharing the map). */
    private final Vocab vocab;

    private Vocabulary(String[] tokens, Map<String, Integer> ids) {
        this.tokens = tokens;
        this.ids = ids;
        this.vocab = Vocab.ofChecked(ids, tokens);
    }

    /**
     * Builds a vocabulary from tokens in id order.
     *
     * @param tokens the tokens, the first with id 0
     * @return the vocabulary
     * @throws TokenizerException if the list is empty or names a token twice
     */
    public static Vocabulary of(List<String> tokens) {
        return of(tokens, "vocabulary", "ids", 0);
    }

    /** Numbers positions from {@code firstNumber} in messages, so vocab.txt errors can name lines. */
    private static Vocabulary of(List<String> tokens, String source, String unit, int firstNumber) {
        if (tokens.isEmpty()) {
            throw new TokenizerException(source + " is empty");
        }
        Map<String, Integer> ids = HashMap.newHashMap(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            Integer previous = ids.putIfAbsent(tokens.get(i), i);
            if (previous != null) {
                throw new TokenizerException(source + " has duplicate token '" + tokens.get(i) + "' (" + unit + " "
                        + (previous + firstNumber) + " and " + (i + firstNumber) + ")");
            }
        }
        return new Vocabulary(tokens.toArray(String[]::new), ids);
    }

    /** Builds a vocabulary from a token-to-id map (tokenizer.json); ids must be exactly 0..n-1. */
    static Vocabulary of(Map<String, Integer> tokenIds) {
        if (tokenIds.isEmpty()) {
            throw new TokenizerException("the WordPiece vocabulary is empty");
        }
        String[] tokens = new String[tokenIds.size()];
        for (Map.Entry<String, Integer> e : tokenIds.entrySet()) {
            int id = e.getValue();
            if (id < 0 || id >= tokens.length) {
                throw new TokenizerException("token '" + e.getKey() + "' has id " + id
                        + ", outside 0.." + (tokens.length - 1));
            }
            if (tokens[id] != null) {
                throw new TokenizerException("tokens '" + tokens[id] + "' and '" + e.getKey() + "' share id " + id);
            }
            tokens[id] = e.getKey();
        }
        return new Vocabulary(tokens, new HashMap<>(tokenIds));
    }

    /**
     * Reads a {@code vocab.txt}: strict UTF-8, one token per line, the line number being the id.
     * A trailing carriage return is not part of the token.
     *
     * @param vocabTxt the file
     * @return the vocabulary
     * @throws TokenizerException if the file is missing, unreadable, not UTF-8, empty, or names a token twice
     */
    public static Vocabulary load(Path vocabTxt) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(vocabTxt);
        } catch (NoSuchFileException e) {
            throw new TokenizerException("vocabulary file not found: " + vocabTxt);
        } catch (IOException e) {
            throw new TokenizerException("cannot read vocabulary " + vocabTxt + ": " + e.getMessage());
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new TokenizerException("vocabulary " + vocabTxt + " is not valid UTF-8");
        }
        List<String> lines = new ArrayList<>(32_000);
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            int stop = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
            lines.add(text.substring(start, stop));
            start = end + 1;
        }
        return of(lines, "vocabulary " + vocabTxt, "lines", 1);
    }

    /**
     * The number of tokens.
     *
     * @return how many tokens, so ids run from 0 to one less
     */
    public int size() {
        return tokens.length;
    }

    /**
     * The token with this id.
     *
     * @param id a token id
     * @return the token
     * @throws TokenizerException for an id outside the vocabulary
     */
    public String token(int id) {
        if (id < 0 || id >= tokens.length) {
            throw new TokenizerException("token id " + id + " is outside the vocabulary (0.." + (tokens.length - 1) + ")");
        }
        return tokens[id];
    }

    /**
     * The id of a token.
     *
     * @param token a token string
     * @return its id, or empty if the vocabulary lacks it
     */
    public OptionalInt id(String token) {
        Integer id = ids.get(token);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /**
     * Whether the vocabulary has this token.
     *
     * @param token a token string
     * @return true if it has
     */
    public boolean contains(String token) {
        return ids.containsKey(token);
    }

    Vocab vocab() {
        return vocab;
    }

    /**
     * Tokens in id order.
     *
     * @return an unmodifiable copy
     */
    public List<String> tokens() {
        return List.of(tokens);
    }
}
