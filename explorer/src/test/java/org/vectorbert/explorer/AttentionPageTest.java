package org.vectorbert.explorer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.vectorbert.engine.EngineException;

/** The page's embedded numbers, read back as its script reads them, against the engine's forward pass. */
@Tag("heavy")
class AttentionPageTest {
    private static final Pattern DATA = Pattern.compile("<script type=\"application/json\" id=\"vectorbert-data\">(.*?)</script>",
            Pattern.DOTALL);

    static JsonNode data(String html) throws Exception {
        Matcher m = DATA.matcher(html);
        assertTrue(m.find(), "the page holds its data");
        return new ObjectMapper().readTree(m.group(1));
    }

    static byte[] inflated(String base64) throws Exception {
        Inflater inflater = new Inflater(true);
        inflater.setInput(Base64.getDecoder().decode(base64));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[1 << 16];
        while (!inflater.finished()) {
            out.write(buffer, 0, inflater.inflate(buffer));
        }
        inflater.end();
        return out.toByteArray();
    }

    @Test
    void seedPairPageHoldsTheEnginesAttentionsQueriesAndKeys() throws Exception {
        AttentionRun run = Seed.pair();
        assertEquals(List.of("[CLS]", "time", "flies", "like", "an", "arrow", "[SEP]", "fruit", "flies", "like", "a", "banana", "[SEP]"),
                run.tokens());
        assertEquals(7, run.sentenceB());
        String html = AttentionPage.html(run, Selection.all(run), View.ALL, null);
        JsonNode data = data(html);
        int n = run.length();
        assertEquals(run.tokens().toString(), data.get("tokens").toString().replace("\"", "").replace(",", ", "));
        assertEquals(12, data.get("attention").get("byLayer").size());
        double worst = 0;
        for (int l = 0; l < 12; l++) {
            byte[] bytes = inflated(data.get("attention").get("byLayer").get(l).asText());
            assertEquals(12 * n * n, bytes.length);
            for (int h = 0; h < 12; h++) {
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        double p = run.attentions()[l][h][i][j];
                        double stored = AttentionPage.dequantized(bytes[(h * n + i) * n + j]);
                        double bound = (2 * Math.sqrt(p) + 1 / 510.0) / 510.0 + 1e-7;
                        assertTrue(Math.abs(stored - p) <= bound, "layer " + l + " head " + h + " " + i + "->" + j + ": " + stored + " vs " + p);
                        worst = Math.max(worst, Math.abs(stored - p));
                    }
                }
            }
        }
        assertTrue(worst > 0 && worst <= 0.004, "worst " + worst);
        // Queries and keys: every layer for 13 tokens, float32 exactly as the engine gave them.
        JsonNode neuron = data.get("neuron");
        assertEquals(12, neuron.get("layers").size());
        for (int l = 0; l < 12; l++) {
            float[] q = floats(inflated(neuron.get("queries").get(l).asText()));
            float[] k = floats(inflated(neuron.get("keys").get(l).asText()));
            for (int h = 0; h < 12; h++) {
                for (int t = 0; t < n; t++) {
                    int at = (h * n + t) * 64;
                    assertArrayEquals(run.queries()[l][h][t], java.util.Arrays.copyOfRange(q, at, at + 64));
                    assertArrayEquals(run.keys()[l][h][t], java.util.Arrays.copyOfRange(k, at, at + 64));
                }
            }
        }
    }

    static float[] floats(byte[] bytes) {
        float[] v = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
        return v;
    }

    @Test
    void chosenLayersAndHeadsOnlyAreStored() throws Exception {
        AttentionRun run = Seed.pair();
        JsonNode data = data(AttentionPage.html(run, Selection.parse("2,5-6", "8", 12, 12), View.NEURON, null));
        assertEquals("[2,5,6]", data.get("layers").toString());
        assertEquals("[8]", data.get("heads").toString());
        assertEquals("neuron", data.get("view").asText());
        byte[] layer5 = inflated(data.get("attention").get("byLayer").get(1).asText());
        assertEquals(13 * 13, layer5.length);
        assertEquals(Math.round(255 * Math.sqrt(run.attentions()[5][8][3][4])), layer5[3 * 13 + 4] & 0xff);
        assertEquals(3, data.get("neuron").get("queries").size());
        JsonNode headOnly = data(AttentionPage.html(run, Selection.all(run), View.HEAD, null));
        assertEquals(0, headOnly.get("neuron").get("layers").size(), "a page for the head view alone holds no queries and keys");
    }

    @Test
    void thePageAsksForNothing() throws Exception {
        AttentionRun run = Seed.pair();
        String html = AttentionPage.html(run, Selection.all(run), View.ALL, null);
        assertTrue(html.contains("Content-Security-Policy\" content=\"default-src 'none'"), "a policy that forbids requests");
        for (String reference : List.of("http:", "https:", "src=", "url(", "@import", "{{")) {
            assertFalse(html.contains(reference), "the page mentions " + reference);
        }
        assertFalse(data(html).has("form"), "no form unless served");
    }

    @Test
    void tokensCannotCloseTheScript() throws Exception {
        AttentionRun run = Seed.pair();
        List<String> tokens = new java.util.ArrayList<>(run.tokens());
        tokens.set(1, "</script><script>alert(1)</script>");
        AttentionRun hostile = new AttentionRun("x</title>", tokens, run.sentenceB(), run.attentions(), run.queries(), run.keys(), false);
        String html = AttentionPage.html(hostile, Selection.all(run), View.HEAD, null);
        assertEquals(2, html.split("</script>", -1).length - 1, "only the page's own two scripts close");
        assertEquals(tokens.get(1), data(html).get("tokens").get(1).asText());
    }

    @Test
    void longestInputStaysSmall() throws Exception {
        AttentionRun run = Seed.ofLength(512);
        Path page = Path.of("target", "attention-512.html");
        AttentionPage.write(run, Selection.all(run), View.ALL, page);
        long size = Files.size(page);
        System.out.printf("512 tokens, 144 heads: page of %.1f MB (attention raw as float32: %.1f MB)%n", size / 1e6,
                12 * 12 * 512 * 512 * 4 / 1e6);
        assertTrue(size < 40_000_000, "page of " + size + " bytes");
        JsonNode data = data(Files.readString(page, StandardCharsets.UTF_8));
        // 512 tokens x 12 heads x 64 x (query, key) = 786,432 floats a layer: two layers fit the budget.
        assertEquals(2, data.get("neuron").get("layers").size(), "queries and keys for as many layers as the budget allows");
    }

    @Test
    void selectionsParseAndRefuse() {
        assertEquals(List.of(0, 5, 6, 7), Selection.parse("0,5-7", null, 12, 12).layers());
        assertEquals(12, Selection.parse("", " ", 12, 12).heads().size());
        assertEquals("layer 12 is out of range: the model has 12 layers, 0 to 11",
                assertThrows(EngineException.class, () -> Selection.parse("12", null, 12, 12)).getMessage());
        assertEquals("head 13 is out of range: the model has 12 heads, 0 to 11",
                assertThrows(EngineException.class, () -> Selection.parse(null, "3,13", 12, 12)).getMessage());
        assertEquals("'a' is not a list of layers such as 0,5-7", assertThrows(EngineException.class, () -> Selection.parse("a", null, 12, 12)).getMessage());
        assertEquals("the head range '7-5' runs backwards", assertThrows(EngineException.class, () -> Selection.parse(null, "7-5", 12, 12)).getMessage());
        assertEquals("'-1' is not a list of layers such as 0,5-7", assertThrows(EngineException.class, () -> Selection.parse("-1", null, 12, 12)).getMessage());
        assertEquals("the text is empty: there is no attention to show",
                assertThrows(EngineException.class, () -> AttentionRun.capture(Seed.pipeline(), "m", " ", null)).getMessage());
    }
}
