package org.vectorbert.langchain4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.langchain4j.data.document.Document;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.request.EmbeddingInputType;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.retriever.EmbeddingStoreContentRetriever;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.EmbeddingStoreIngestor;
import dev.langchain4j.store.embedding.inmemory.InMemoryEmbeddingStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.vectorbert.engine.Embeddings;

/**
 * langchain4j's own RAG pieces end to end on the real all-MiniLM-L6-v2: EmbeddingStoreIngestor
 * embeds real paragraphs (from the licence texts in /usr/share/common-licenses) into an
 * InMemoryEmbeddingStore, and a query finds the paragraph that answers it first; once with the model
 * given, once with none, through this module's EmbeddingModelFactory (the one line that changes).
 */
@Tag("heavy")
class IngestionTest {
    /** A paragraph of each licence, found by words it holds, and a question only it answers. */
    private static final Map<String, String> PARAGRAPH_MARKERS = Map.of(
            "Apache-2.0", "Grant of Patent License",
            "GPL-3", "The GNU General Public License is a free, copyleft license",
            "CC0-1.0", "Certain owners wish to permanently relinquish",
            "MPL-2.0", "Disclaimer of Warranty",
            "Artistic", "You may make and give away verbatim copies");
    private static final Map<String, String> QUESTIONS = Map.of(
            "Apache-2.0", "Does each contributor grant me a license to their patents?",
            "GPL-3", "Is this a copyleft license for software and other works?",
            "CC0-1.0", "Why would owners give up their rights so that a commons of creative works can be reused freely?",
            "MPL-2.0", "Is the software provided as is, with no warranty of any kind?",
            "Artistic", "Can I give away exact copies of the source code of the package?");

    private static List<Document> documents;

    @BeforeAll
    static void readParagraphs() throws IOException {
        documents = new ArrayList<>();
        for (var licence : PARAGRAPH_MARKERS.entrySet()) {
            String text = Files.readString(Path.of("/usr/share/common-licenses", licence.getKey()));
            String paragraph = List.of(text.split("\\n\\s*\\n")).stream().filter(p -> p.contains(licence.getValue())).findFirst()
                    .orElseThrow(() -> new IllegalStateException(licence.getKey() + " has no paragraph with " + licence.getValue()))
                    .strip().replaceAll("\\s+", " ");
            documents.add(Document.from(paragraph, Metadata.from("licence", licence.getKey())));
        }
    }

    private static String licenceOf(TextSegment segment) {
        return segment.metadata().getString("licence");
    }

    @Test
    void theIngestorsVectorsAreTheEnginesAndEachQuestionFindsItsParagraphFirst() {
        VectorbertEmbeddingModel model = VectorbertEmbeddingModel.builder().model(TestModels.miniLmJar()).build();
        InMemoryEmbeddingStore<TextSegment> store = new InMemoryEmbeddingStore<>();
        EmbeddingStoreIngestor.builder().embeddingModel(model).embeddingStore(store).build().ingest(documents);

        Embeddings direct = Embeddings.load(TestModels.miniLmJar());
        for (var question : QUESTIONS.entrySet()) {
            List<EmbeddingMatch<TextSegment>> matches = store.search(EmbeddingSearchRequest.builder()
                    .queryEmbedding(model.embed(question.getValue()).content()).maxResults(documents.size()).build()).matches();
            assertEquals(documents.size(), matches.size());
            assertEquals(question.getKey(), licenceOf(matches.getFirst().embedded()), question.getValue() + " -> "
                    + matches.stream().map(m -> licenceOf(m.embedded()) + String.format(" %.3f", m.score())).toList());
            for (EmbeddingMatch<TextSegment> m : matches) {
                assertArrayEquals(direct.embed(m.embedded().text()), m.embedding().vector(), licenceOf(m.embedded()));
            }
        }
    }

    @Test
    void withNoModelGivenLangchain4jFindsVectorbertThroughItsFactory() {
        System.setProperty("vectorbert.langchain4j.model", TestModels.miniLmJar());
        try {
            InMemoryEmbeddingStore<TextSegment> store = new InMemoryEmbeddingStore<>();
            EmbeddingStoreIngestor.ingest(documents, store);   // no model: langchain4j's EmbeddingModelFactory service
            EmbeddingStoreContentRetriever retriever = EmbeddingStoreContentRetriever.builder().embeddingStore(store)
                    .embeddingInputType(EmbeddingInputType.QUERY).maxResults(1).build();
            for (var question : QUESTIONS.entrySet()) {
                List<Content> found = retriever.retrieve(Query.from(question.getValue()));
                assertEquals(1, found.size());
                assertEquals(question.getKey(), licenceOf(found.getFirst().textSegment()), question.getValue());
            }
            assertInstanceOf(VectorbertEmbeddingModel.class, new VectorbertEmbeddingModelFactory().create());
        } finally {
            System.clearProperty("vectorbert.langchain4j.model");
        }
    }
}
