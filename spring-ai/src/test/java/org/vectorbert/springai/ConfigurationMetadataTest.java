package org.vectorbert.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The metadata IDEs complete vectorbert.* from: one entry per property, each described, and the value hints. */
class ConfigurationMetadataTest {
    @Test
    void everyPropertyIsDescribedAndPrecisionAndPoolingHaveHints() throws IOException {
        JsonNode metadata;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(in);
        }
        Map<String, String> described = new TreeMap<>();
        for (JsonNode p : metadata.get("properties")) {
            described.put(p.get("name").asText(), p.path("description").asText());
        }
        List<String> expected = new ArrayList<>(Arrays.stream(VectorbertProperties.class.getRecordComponents())
                .map(c -> "vectorbert." + c.getName().replaceAll("([A-Z])", "-$1").toLowerCase()).sorted().toList());
        assertEquals(expected, List.copyOf(described.keySet()));
        described.forEach((name, description) -> assertFalse(description.isBlank(), name + " has no description"));
        Map<String, List<String>> hints = new TreeMap<>();
        for (JsonNode h : metadata.get("hints")) {
            List<String> values = new ArrayList<>();
            h.get("values").forEach(v -> values.add(v.get("value").asText()));
            hints.put(h.get("name").asText(), values);
        }
        assertEquals(List.of("f32", "bf16"), hints.get("vectorbert.precision"));
        assertEquals(List.of("cls", "mean", "max", "mean_sqrt_len", "lasttoken", "pooler"), hints.get("vectorbert.pooling"));
        assertEquals(List.of("vectorbert"), hints.get("spring.ai.model.embedding"));
    }
}
