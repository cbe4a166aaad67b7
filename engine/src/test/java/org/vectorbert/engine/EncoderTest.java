package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModelConfig;
import org.vectorbert.tokenizer.Tokenizer;

/** The encoder seam: config.json's model_type chooses the architecture, and the tasks reach a model only through {@link Encoder}. */
class EncoderTest {
    @TempDir
    Path work;

    @Test
    void theModelTypeChoosesTheArchitecture() {
        Encoder roberta = Encoder.load(FamilyReferenceTest.resource("roberta-mlm"));
        assertInstanceOf(BertModel.class, roberta);
        assertEquals("roberta", roberta.config().modelType());
        assertTrue(roberta.hasMlmHead());
    }

    @Test
    void anUnknownModelTypeIsRefusedNamingTheSupportedOnes() throws IOException {
        Files.writeString(work.resolve("config.json"), "{\"model_type\": \"gpt2\", \"vocab_size\": 10}");
        LoaderException e = assertThrows(LoaderException.class, () -> Encoder.load(work));
        assertTrue(e.getMessage().startsWith("config.json: model_type 'gpt2' is not supported (supported: bert, distilbert, roberta,"),
                e.getMessage());
    }

    @Test
    void aDirectoryWithoutConfigIsBertsToRefuse() {
        LoaderException e = assertThrows(LoaderException.class, () -> Encoder.load(work));
        assertEquals("no config.json in " + work, e.getMessage());
    }

    /** An encoder the tasks know only by the interface: each call goes to BERT's implementation. */
    private record Through(Encoder inner) implements Encoder {
        @Override
        public ModelConfig config() {
            return inner.config();
        }

        @Override
        public Path directory() {
            return inner.directory();
        }

        @Override
        public Precision precision() {
            return inner.precision();
        }

        @Override
        public long weightBytes() {
            return inner.weightBytes();
        }

        @Override
        public Set<HeadKind> heads() {
            return inner.heads();
        }

        @Override
        public Labels labels() {
            return inner.labels();
        }

        @Override
        public void requireHead(HeadKind kind, String consequence) {
            inner.requireHead(kind, consequence);
        }

        @Override
        public Output forward(Batch batch, Request request) {
            return inner.forward(batch, request);
        }

        @Override
        public <T> T forward(Batch batch, Request request, Function<Output, T> reader) {
            return inner.forward(batch, request, reader);
        }
    }

    @Test
    void theTasksNeedNothingButTheInterface() throws IOException {
        Path dir = FamilyReferenceTest.resource("roberta-mlm");
        Files.writeString(work.resolve("tokenizer.json"), NumberedTokenizer.roberta(160, 0, 2));
        Tokenizer tokenizer = Tokenizer.fromDirectory(work);
        Encoder bert = Encoder.load(dir);
        Encoder through = new Through(bert);
        List<String> texts = List.of("t69 t12 t127 t8", "t5");
        List<float[]> expected = Embeddings.of(bert, tokenizer, EmbeddingOptions.defaults()).embed(texts);
        List<float[]> got = Embeddings.of(through, tokenizer, EmbeddingOptions.defaults()).embed(texts);
        for (int i = 0; i < texts.size(); i++) {
            assertArrayEquals(expected.get(i), got.get(i), "text " + i);
        }
        FillMaskOptions top3 = FillMaskOptions.defaults().withTopK(3);
        assertEquals(FillMask.of(bert, tokenizer, top3).predict("t69 <mask> t127 t8"),
                FillMask.of(through, tokenizer, top3).predict("t69 <mask> t127 t8"));
    }
}
