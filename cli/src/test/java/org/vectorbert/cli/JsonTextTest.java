package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.vectorbert.common.Json;

/** The requests {@link ServeClient} sends, written without a mapper ({@link Json#text}): the text a mapper writes. */
class JsonTextTest {
    @Test
    void aTreeIsWrittenAsTheMapperWritesIt() throws Exception {
        ObjectNode body = JsonText.object();
        body.putArray("inputs").add("Crème brûlée 🙂 東京").add("a \"quoted\"\ttab\n\u0001").add("");
        body.put("truncate", true).put("normalize", false).putNull("prompt_name");
        body.putObject("parameters").put("top_k", 3).put("long", 1L << 40).put("float", 0.1f).put("double", 1e-300)
                .put("big", new BigInteger("123456789012345678901234567890")).put("decimal", new BigDecimal("1.500"));
        body.putArray("nested").addArray().add(1).addArray();
        String expected = new ObjectMapper().writeValueAsString(body);
        assertEquals(expected, Json.text(body));
        assertThrows(IllegalArgumentException.class, () -> Json.text(JsonText.object().putPOJO("pojo", new Object())));
    }
}
