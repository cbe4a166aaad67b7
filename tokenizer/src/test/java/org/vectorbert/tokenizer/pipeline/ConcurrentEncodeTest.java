package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * One tokenizer shared by threads that fill its word cache (WordCache, read without a lock) while
 * they read it: every encoding still equals the library's.
 */
class ConcurrentEncodeTest {
    @ParameterizedTest
    @ValueSource(strings = {"bpe-roberta", "unigram-xlmr", "stages-llama"})
    void threadsSharingTheWordCacheEncodeAsTheLibrary(String name) throws Exception {
        Tokenizer tokenizer = Tokenizer.fromTokenizerJson(PipelineParityTest.resource(name + ".tokenizer.json"));
        List<JsonNode> cases = PipelineParityTest.cases(name);
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            List<JsonNode> order = new ArrayList<>(cases);
            Collections.shuffle(order, new Random(t));
            threads.add(Thread.ofPlatform().start(() -> {
                for (JsonNode c : order) {
                    String failure = PipelineParityTest.check(tokenizer, c);
                    if (failure != null) {
                        failures.add(c.get("text").asText() + ": " + failure);
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(List.of(), List.copyOf(failures).subList(0, Math.min(8, failures.size())), name);
    }
}
