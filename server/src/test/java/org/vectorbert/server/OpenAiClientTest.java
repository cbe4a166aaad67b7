package org.vectorbert.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.NotFoundException;
import com.openai.errors.UnauthorizedException;
import com.openai.models.embeddings.CreateEmbeddingResponse;
import com.openai.models.embeddings.EmbeddingCreateParams;
import com.openai.models.models.Model;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.catalog.ModelDescription;
import dev.langchain4j.model.openai.OpenAiEmbeddingModel;
import dev.langchain4j.model.openai.OpenAiModelCatalog;
import dev.langchain4j.model.output.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.Embeddings;

/**
 * Real OpenAI clients pointed at the server's /v1 base URL: langchain4j's OpenAiEmbeddingModel and OpenAiModelCatalog, and
 * OpenAI's own Java client (com.openai:openai-java). The server runs with its default options but for a free port and an
 * API key, so what passes here is what such a client gets from a plain {@code vectorbert serve}: 100 texts in one request
 * (over TEI's 32), some longer than the model's 512 tokens (cut, as an OpenAI client cannot ask), each vector the library's
 * own for the text cut to the model's length and normalised, the tokens the model ran counted in {@code usage}, and the
 * served model's name in the answers and in /v1/models.
 */
@Tag("heavy")
class OpenAiClientTest {
    private static final String KEY = "sk-local";
    private static final String NAME = "bert-base-uncased";

    private static Embeddings embeddings;
    private static EmbeddingServer server;
    /** 100 texts of 1 to 80 words, every tenth of 600 to 1,500 words (over 512 tokens). */
    private static List<String> texts;
    /** The library's vectors for them: cut to 512 tokens, unit length. */
    private static List<float[]> expected;
    /** Their tokens as the model runs them: each text's, special tokens included, at most 512. */
    private static int tokens;

    @BeforeAll
    static void start() {
        embeddings = Embeddings.load(RealModels.bertBaseUncased().toString());
        server = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withApiKey(KEY));
        server.ready(Models.of(NAME, embeddings));
        texts = mixedTexts(100, new Random(50));
        expected = embeddings.with(embeddings.options().withNormalize(true).withTruncate(true)).embed(texts);
        tokens = texts.stream().mapToInt(t -> Math.min(embeddings.tokenizer().encode(t).length(), embeddings.maxTokens())).sum();
        assertTrue(texts.stream().filter(t -> embeddings.tokenizer().encode(t).length() > 512).count() >= 10, "texts over 512 tokens");
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    /** {@code count} texts of words drawn from a small vocabulary: mostly short, every tenth 600 to 1,500 words. */
    static List<String> mixedTexts(int count, Random random) {
        String[] words = ("the a of to and in is it that for on was with as by at from this an be are or have not but which "
                + "their one all were we when there can more if will about up out so what its into than time only new some "
                + "could these two may first then do any like my now over such our man me even most made after also did "
                + "many before must through back years where much your way well down should because each just those people "
                + "how too little state good very make world still own see men work long get here between both life being "
                + "under never day same another know while last might us great old year off come since against go came right "
                + "used take three paris berlin river mountain protein enzyme quantum lattice sonata harbour wheat glacier").split(" ");
        String[] ends = {".", ",", "!", "?", ";", ""};
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = i % 10 == 9 ? 600 + random.nextInt(901) : 1 + random.nextInt(80);
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < length; w++) {
                String word = words[random.nextInt(words.length)];
                text.append(w == 0 ? Character.toUpperCase(word.charAt(0)) + word.substring(1) : word);
                text.append(w == length - 1 ? "." : random.nextInt(8) == 0 ? ends[random.nextInt(ends.length)] : "").append(' ');
            }
            out.add(text.toString().strip());
        }
        return out;
    }

    @Test
    void langchain4jsOpenAiEmbeddingModelGetsTheLibrarysVectors() {
        OpenAiEmbeddingModel client = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey(KEY).modelName(NAME)
                .maxRetries(0).timeout(Duration.ofMinutes(5)).build();
        Response<List<Embedding>> answer = client.embedAll(texts.stream().map(TextSegment::from).toList());
        assertEquals(texts.size(), answer.content().size());
        for (int i = 0; i < texts.size(); i++) {
            assertArrayEquals(expected.get(i), answer.content().get(i).vector(), "text " + i);
        }
        assertEquals(tokens, answer.tokenUsage().inputTokenCount());
        assertEquals(768, client.dimension());

        // The client's dimensions parameter: the first 256 components, normalised after the cut.
        OpenAiEmbeddingModel shorter = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey(KEY).modelName(NAME)
                .dimensions(256).maxRetries(0).build();
        assertArrayEquals(embeddings.with(embeddings.options().withNormalize(true).withDimensions(256)).embed(texts.getFirst()),
                shorter.embed(texts.getFirst()).content().vector());

        // langchain4j's list of the server's models: the one it serves, by its name.
        List<ModelDescription> models = OpenAiModelCatalog.builder().baseUrl(server.uri() + "v1").apiKey(KEY).build().listModels();
        assertEquals(1, models.size(), models.toString());
        assertEquals(NAME, models.getFirst().name());
        assertEquals("vectorbert", models.getFirst().owner());

        OpenAiEmbeddingModel wrongKey = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey("sk-other").modelName(NAME)
                .maxRetries(0).build();
        RuntimeException refused = assertThrows(RuntimeException.class, () -> wrongKey.embed("Hello"));
        assertTrue(refused.getMessage().contains("API key"), refused.getMessage());
    }

    @Test
    void langchain4jSendsUpToOpenAisLimitOf2048TextsARequestAndTheServerTakesThem() {
        // 2,049 one-word texts (short, to keep the test cheap): langchain4j sends 2,048 in one request and the last in another.
        List<String> many = java.util.stream.IntStream.range(0, 2049).mapToObj(i -> "n" + i).toList();
        OpenAiEmbeddingModel client = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey(KEY).modelName(NAME)
                .maxRetries(0).timeout(Duration.ofMinutes(5)).build();
        Response<List<Embedding>> answer = client.embedAll(many.stream().map(TextSegment::from).toList());
        assertEquals(many.size(), answer.content().size());
        Embeddings unit = embeddings.with(embeddings.options().withNormalize(true));
        for (int i : new int[] {0, 1000, 2047, 2048}) {
            assertArrayEquals(unit.embed(many.get(i)), answer.content().get(i).vector(), "text " + i);
        }
        assertEquals(many.stream().mapToInt(t -> embeddings.tokenizer().encode(t).length()).sum(), answer.tokenUsage().inputTokenCount());
    }

    @Test
    void openAisJavaClientGetsTheLibrarysVectorsAndTheModel() {
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(server.uri() + "v1").apiKey(KEY).maxRetries(0)
                .timeout(Duration.ofMinutes(5)).build();
        try {
            // The client's own default encoding (it asks for base64 and decodes it), with a model name of OpenAI's: not checked.
            CreateEmbeddingResponse answer = client.embeddings().create(EmbeddingCreateParams.builder().inputOfArrayOfStrings(texts)
                    .model("text-embedding-3-small").build());
            assertEquals(texts.size(), answer.data().size());
            for (int i = 0; i < texts.size(); i++) {
                assertEquals(i, answer.data().get(i).index());
                assertArrayEquals(expected.get(i), floats(answer.data().get(i).embedding()), "text " + i);
            }
            assertEquals(tokens, answer.usage().promptTokens());
            assertEquals(tokens, answer.usage().totalTokens());
            assertEquals(NAME, answer.model());

            // Floats asked for, and one text alone.
            CreateEmbeddingResponse one = client.embeddings().create(EmbeddingCreateParams.builder().input(texts.get(9))
                    .model(NAME).encodingFormat(EmbeddingCreateParams.EncodingFormat.FLOAT).build());
            assertArrayEquals(expected.get(9), floats(one.data().getFirst().embedding()));
            assertEquals(512, one.usage().promptTokens());

            List<Model> models = client.models().list().data();
            assertEquals(1, models.size(), models.toString());
            assertEquals(NAME, models.getFirst().id());
            assertEquals("vectorbert", models.getFirst().ownedBy());
            long now = Instant.now().getEpochSecond();
            assertTrue(models.getFirst().created() > now - 3600 && models.getFirst().created() <= now, models.toString());
            assertEquals(models.getFirst(), client.models().retrieve(NAME));
            NotFoundException unknown = assertThrows(NotFoundException.class, () -> client.models().retrieve("text-embedding-3-small"));
            assertEquals(java.util.Optional.of("model_not_found"), unknown.code(), unknown.getMessage());
        } finally {
            client.close();
        }
        OpenAIClient wrongKey = OpenAIOkHttpClient.builder().baseUrl(server.uri() + "v1").apiKey("sk-other").maxRetries(0).build();
        try {
            assertThrows(UnauthorizedException.class, () -> wrongKey.models().list());
            assertThrows(UnauthorizedException.class, () -> wrongKey.embeddings().create(EmbeddingCreateParams.builder().input("Hello")
                    .model(NAME).build()));
        } finally {
            wrongKey.close();
        }
    }

    @Test
    void openAisJavaClientFindsAModelWhoseNameHoldsASlash() throws Exception {
        // A hub id is served under its org/name: the client sends it in the path as it is.
        try (EmbeddingServer named = EmbeddingServer.start(ServerOptions.defaults().withPort(0))) {
            named.ready(Models.of("google-bert/bert-base-uncased", embeddings));
            for (String path : List.of("v1/models/google-bert/bert-base-uncased", "v1/models/google-bert%2Fbert-base-uncased")) {
                java.net.http.HttpResponse<String> r = ServerTest.get(named, path);
                assertEquals(200, r.statusCode(), path + ": " + r.body());
                assertEquals("google-bert/bert-base-uncased", ServerTest.json(r).get("id").asText(), r.body());
            }
            OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(named.uri() + "v1").apiKey("unused").maxRetries(0).build();
            try {
                assertEquals("google-bert/bert-base-uncased", client.models().retrieve("google-bert/bert-base-uncased").id());
                assertEquals("google-bert/bert-base-uncased", client.embeddings().create(EmbeddingCreateParams.builder().input("Hello")
                        .model("google-bert/bert-base-uncased").build()).model());
            } finally {
                client.close();
            }
        }
    }

    private static float[] floats(List<Float> values) {
        float[] out = new float[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }
}
