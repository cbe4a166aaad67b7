package org.vectorbert.tokenizer.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.vectorbert.tokenizer.TokenizerException;

/** Builds the tokenizer.json a converter would write from older file layouts. */
final class LegacyFiles {
    private LegacyFiles() {}

    static JsonNode robertaBpe(Path vocabJson, Path mergesTxt, JsonNode config) {
        throw new TokenizerException(vocabJson + ": vocab.json + merges.txt are not read yet");
    }

    static JsonNode sentencePiece(Path model, JsonNode config) {
        throw new TokenizerException(model + ": sentencepiece models are not read yet");
    }
}
