package org.vectorbert.explorer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Deflater;
import org.vectorbert.common.AtomicFiles;

/**
 * bertviz's head, model and neuron views in one HTML file: its script, styles and numbers inline, so
 * it opens from {@code file://} with the network off and makes no request.
 *
 * <p>What keeps a 512-token page small and quick: attention is stored as 8-bit square roots of the
 * probabilities, p ≈ (b/255)², deflated, one block per layer that the page inflates when a view
 * first needs it (the browser's own DecompressionStream). The square root spends the 256 steps
 * where attention lives: an error of at most (2√p + 1/510)/510, 0.004 at p = 1 and 0.0004 at
 * p = 0.01, where plain 8-bit steps of 1/255 would round every weight of a head that spreads evenly
 * over 512 tokens (about 0.002) to zero. Queries and keys for the neuron view are float32, for as
 * many of the chosen layers as {@link #NEURON_FLOATS} allows (at least one; none in a page made for
 * the head or model view alone); the page says which.
 */
public final class AttentionPage {
    /** Queries and keys a page holds for the neuron view: 8 MB of float32 before deflating (which barely shrinks them). */
    static final int NEURON_FLOATS = 1 << 21;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(TITLE|STYLE|SCRIPT|DATA)}}");

    private AttentionPage() {}

    /**
     * Writes the page to {@code target} whole or not at all.
     *
     * @param run       the captured pass
     * @param selection the layers and heads shown
     * @param view      the view the page opens on
     * @param target    the HTML file
     */
    public static void write(AttentionRun run, Selection selection, View view, Path target) {
        try {
            AtomicFiles.write(target, html(run, selection, view, null).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * A form at the top of a served page, filled in with what made it, that asks {@code action} (a
     * server's path, by GET with the fields text, pair, layers and heads) for another text's page.
     * Null fields are left empty.
     *
     * @param action the server's path the form asks
     * @param text   the text, or null
     * @param pair   the pair's second text, or null
     * @param layers the layers, as {@link Selection#parse} reads them, or null
     * @param heads  the heads, likewise, or null
     */
    public record Form(String action, String text, String pair, String layers, String heads) {}

    /**
     * The page as a string.
     *
     * @param run       the captured pass
     * @param selection the layers and heads shown
     * @param view      the view the page opens on
     * @param form      a form the page starts with, or null for none
     * @return the HTML
     */
    public static String html(AttentionRun run, Selection selection, View view, Form form) {
        check(run, selection);
        // '<' only occurs inside JSON strings, where its escape means the same and cannot close the script element.
        String data = data(run, selection, view, form).toString().replace("<", "\\u003c");
        String title = escape("Attention: " + String.join(" ", run.tokens().subList(1, Math.min(run.length(), 12)))
                + (run.length() > 12 ? " …" : ""));
        Map<String, String> parts = Map.of("TITLE", title, "STYLE", resource("attention.css"), "SCRIPT", resource("attention.js"),
                "DATA", data);
        // One pass, so nothing a part holds is taken for a placeholder.
        return PLACEHOLDER.matcher(resource("attention.html")).replaceAll(m -> Matcher.quoteReplacement(parts.get(m.group(1))));
    }

    private static void check(AttentionRun run, Selection selection) {
        Selection.requireIndex(selection.layers().getLast(), run.layers(), "layer");
        Selection.requireIndex(selection.heads().getLast(), run.heads(), "head");
    }

    static ObjectNode data(AttentionRun run, Selection selection, View view, Form form) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", run.model());
        root.set("tokens", JSON.valueToTree(run.tokens()));
        root.put("sentenceB", run.sentenceB());
        root.put("truncated", run.truncated());
        root.put("layerCount", run.layers());
        root.put("headCount", run.heads());
        root.put("headSize", run.headSize());
        root.set("layers", JSON.valueToTree(selection.layers()));
        root.set("heads", JSON.valueToTree(selection.heads()));
        root.put("view", view.id());
        if (form != null) {
            root.set("form", JSON.valueToTree(form));
        }
        ObjectNode attention = root.putObject("attention");
        attention.put("encoding", "sqrt-u8");
        ArrayNode byLayer = attention.putArray("byLayer");
        for (int layer : selection.layers()) {
            byLayer.add(deflated(quantized(run.attentions()[layer], selection.heads())));
        }
        // A page made for the head or model view alone leaves the neuron view's vectors out (a third of a 512-token page).
        int perLayer = 2 * selection.heads().size() * run.length() * run.headSize();
        int neuronLayers = view == View.HEAD || view == View.MODEL ? 0
                : Math.max(1, Math.min(selection.layers().size(), NEURON_FLOATS / perLayer));
        ObjectNode neuron = root.putObject("neuron");
        List<Integer> kept = new ArrayList<>(selection.layers().subList(0, neuronLayers));
        neuron.set("layers", JSON.valueToTree(kept));
        ArrayNode queries = neuron.putArray("queries");
        ArrayNode keys = neuron.putArray("keys");
        for (int layer : kept) {
            queries.add(deflated(floats(run.queries()[layer], selection.heads())));
            keys.add(deflated(floats(run.keys()[layer], selection.heads())));
        }
        return root;
    }

    /** The chosen heads' probabilities, [head][query][key], each as round(255·√p). */
    static byte[] quantized(float[][][] layer, List<Integer> heads) {
        int n = layer[0].length;
        byte[] out = new byte[heads.size() * n * n];
        int at = 0;
        for (int h : heads) {
            for (float[] row : layer[h]) {
                for (float p : row) {
                    out[at++] = (byte) Math.round(255 * Math.sqrt(Math.max(0f, Math.min(1f, p))));
                }
            }
        }
        return out;
    }

    /** What the page reads back from a quantized byte: (b/255)². */
    static double dequantized(byte b) {
        double s = (b & 0xff) / 255.0;
        return s * s;
    }

    /** The chosen heads' vectors, [head][token][head size], as little-endian float32. */
    static byte[] floats(float[][][] layer, List<Integer> heads) {
        ByteBuffer out = ByteBuffer.allocate(heads.size() * layer[0].length * layer[0][0].length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int h : heads) {
            for (float[] vector : layer[h]) {
                for (float v : vector) {
                    out.putFloat(v);
                }
            }
        }
        return out.array();
    }

    /** Raw deflate (no zlib header: the browser's "deflate-raw"), in base64. */
    static String deflated(byte[] bytes) {
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        deflater.setInput(bytes);
        deflater.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 4 + 64);
        byte[] buffer = new byte[1 << 16];
        while (!deflater.finished()) {
            out.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    private static String resource(String name) {
        try (InputStream in = AttentionPage.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
