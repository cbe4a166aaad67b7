package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vectorbert attention} on the real bert-base-uncased: the page, the PNG, and bad input in one line. */
@Tag("heavy")
class AttentionCommandTest {
    @TempDir
    Path work;

    @Test
    void writesThePageAndThePicture() throws Exception {
        Path page = work.resolve("flies.html");
        Path png = work.resolve("flies.png");
        var r = run("attention", "--model", TestModels.bertBaseUncased().toString(), "time flies like an arrow",
                "--pair", "fruit flies like a banana", "--layers", "0,5-6", "--heads", "8", "--view", "neuron",
                "--output", page.toString(), "--png", png.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("wrote " + page + " (13 tokens; layers [0, 5, 6]; heads [8])"), r.err());
        String html = Files.readString(page);
        assertTrue(html.contains("\"layers\":[0,5,6],\"heads\":[8],\"view\":\"neuron\""), "the selection and view are in the page");
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals((44 + 14 * 20 + 10) * 3, image.getHeight(), "13 tokens, a gap between the sentences, at 3 pixels a point");
        try (var files = Files.list(work)) {
            assertEquals(2, files.count(), "no partial file left");
        }
    }

    @Test
    void badInputIsOneLineAndExitTwo() {
        String model = TestModels.bertBaseUncased().toString();
        String out = work.resolve("a.html").toString();
        refused(run("attention", "--model", model, "", "--output", out), "the text is empty: there is no attention to show");
        refused(run("attention", "--model", model, "hi", "--pair", " ", "--output", out), "--pair is empty");
        refused(run("attention", "--model", model, "hi", "--layers", "12", "--output", out),
                "layer 12 is out of range: the model has 12 layers, 0 to 11");
        refused(run("attention", "--model", model, "hi", "--heads", "0,12", "--output", out),
                "head 12 is out of range: the model has 12 heads, 0 to 11");
        refused(run("attention", "--model", model, "word ".repeat(600), "--output", out),
                "is 602 tokens, longer than the model's 512; shorten it or turn truncation on (--truncate cuts it to fit)");
        refused(run("attention", "--model", model, "hi"), "say where to write: --output FILE.html, --png FILE.png, or both");
        refused(run("attention", "--model", model, "hi", "--view", "grid", "--output", out), "--view: unknown view 'grid'");
        refused(run("attention", "--model", model, "hi", "--png", work.resolve("no/such/dir.png").toString()),
                "does not exist");
        assertTrue(Files.notExists(Path.of(out)), "nothing written for bad input");
        var cut = run("attention", "--model", model, "word ".repeat(600), "--truncate", "--output", out);
        assertEquals(0, cut.exit(), cut.err());
        assertTrue(cut.err().contains("(512 tokens;"), cut.err());
    }

    /** Exit 2, nothing on stdout, and one line on stderr that says {@code message}. */
    private static void refused(TokenizeCommandTest.Run r, String message) {
        TokenizeCommandTest.assertUserError(r, message);
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }
}
