package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * vocab.json + merges.txt and sentencepiece .model files, which make-pipeline-fixtures.mjs writes
 * from the trained fixtures' vocabularies, give the library's encodings of those fixtures' texts:
 * RoBERTa's files the bpe-roberta ones, the .model with XLM-R's class the
 * unigram-xlmr-precompiled ones, and with CamemBERT's class the unigram-camembert ones (that
 * layout built by the script as transformers' CamembertConverter does).
 */
class LegacyFilesTest {
    @ParameterizedTest
    @CsvSource({"legacy-roberta, bpe-roberta", "legacy-xlmr, unigram-xlmr-precompiled",
        "legacy-camembert, unigram-camembert"})
    void legacyFilesEncodeAsTheLibraryDoes(String directory, String fixture) throws IOException {
        Tokenizer tokenizer = Tokenizer.fromDirectory(PipelineParityTest.resource(directory));
        assertEquals(List.of(), PipelineParityTest.failures(tokenizer, PipelineParityTest.cases(fixture)), directory);
    }

    @Test
    void xlmrIdsFollowFairseq() {
        Tokenizer t = Tokenizer.fromDirectory(PipelineParityTest.resource("legacy-xlmr"));
        assertEquals(List.of(0, 1, 2, 3), List.of(t.tokenToId("<s>"), t.tokenToId("<pad>"), t.tokenToId("</s>"),
                t.tokenToId("<unk>")));
        assertEquals(t.vocabSize() - 1, t.maskTokenId());
        Tokenizer camembert = Tokenizer.fromDirectory(PipelineParityTest.resource("legacy-camembert"));
        assertEquals(List.of(5, 1, 6, 3, 4), List.of(camembert.tokenToId("<s>"), camembert.padTokenId(),
                camembert.tokenToId("</s>"), camembert.unkTokenId(), camembert.tokenToId("<unk>NOTUSED")));
    }

    @Test
    void aTruncatedModelFailsWithOneLine(@TempDir Path dir) throws IOException {
        byte[] model = Files.readAllBytes(PipelineParityTest.resource("legacy-xlmr/sentencepiece.bpe.model"));
        Path cut = dir.resolve("sentencepiece.bpe.model");
        Files.write(cut, Arrays.copyOf(model, model.length / 2));
        String message = assertThrows(TokenizerException.class, () -> Tokenizer.fromDirectory(dir)).getMessage();
        // The cut lands inside a piece message whose declared length runs past the end of the file.
        assertTrue(message.matches(java.util.regex.Pattern.quote(cut + ": not a sentencepiece model (length ")
                + "\\d+ runs past the end at byte \\d+\\)"), message);
    }

    @Test
    void piecesWithoutScoresFailWithOneLine(@TempDir Path dir) throws IOException {
        // ModelProto { pieces { piece: "a" type: NORMAL } pieces { piece: "b" } }: no score anywhere.
        byte[] model = {0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x01, 0x0a, 0x03, 0x0a, 0x01, 'b'};
        Path file = dir.resolve("spiece.model");
        Files.write(file, model);
        TokenizerException e = assertThrows(TokenizerException.class, () -> Tokenizer.fromDirectory(dir));
        assertEquals(file + ": the sentencepiece pieces have no scores; a Unigram model needs them", e.getMessage());
    }

    @Test
    void mergesNamingMissingTokensFailWithOneLine(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("vocab.json"), "{\"a\": 0, \"b\": 1, \"ab\": 2, \"c\": 3}");
        Files.writeString(dir.resolve("merges.txt"), "#version: 0.2\na b\nab x\n", StandardCharsets.UTF_8);
        TokenizerException e = assertThrows(TokenizerException.class, () -> Tokenizer.fromDirectory(dir));
        assertEquals(dir.resolve("merges.txt") + ": line 3 merges \"ab x\" but 'x' is not in vocab.json", e.getMessage());
    }
}
