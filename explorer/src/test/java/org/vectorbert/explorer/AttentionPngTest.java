package org.vectorbert.explorer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The head view as PNG for 8, 128 and 512 tokens, read back from the file. */
@Tag("heavy")
class AttentionPngTest {
    @Test
    void rendersEightToFiveHundredTwelveTokens() throws Exception {
        for (int tokens : new int[] {8, 128, 512}) {
            AttentionRun run = Seed.ofLength(tokens);
            Path png = Path.of("target", "attention-" + tokens + ".png");
            long start = System.nanoTime();
            AttentionPng.headView(run, 3, List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
            long drawn = System.nanoTime();
            AttentionPng.write(run, 3, List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), png);
            BufferedImage image = ImageIO.read(png.toFile());
            System.out.printf("%d tokens: %d x %d px, %.1f MB, drawn in %d ms, drawn and written in %d ms%n", tokens, image.getWidth(),
                    image.getHeight(), Files.size(png) / 1e6, (drawn - start) / 1_000_000, (System.nanoTime() - drawn) / 1_000_000);
            int scale = tokens <= 128 ? 3 : 2;
            int pitch = tokens <= 128 ? 20 : tokens <= 256 ? 14 : 11;
            assertEquals((44 + tokens * pitch + 10) * scale, image.getHeight());
            assertTrue(image.getWidth() >= 320 * scale, "two columns of tokens and the lines between");
            // Coloured (not grey) pixels between the columns: the lines were drawn.
            int coloured = 0;
            for (int y = 50 * scale; y < image.getHeight(); y += 3) {
                for (int x = image.getWidth() / 3; x < image.getWidth() * 2 / 3; x += 3) {
                    int rgb = image.getRGB(x, y);
                    int r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
                    if (Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 20) {
                        coloured++;
                    }
                }
            }
            assertTrue(coloured > 100, tokens + " tokens: " + coloured + " coloured pixels");
        }
    }

    @Test
    void seedPairHeadEight() throws Exception {
        AttentionRun run = Seed.pair();
        Path png = Path.of("target", "attention-seed-layer0-head8.png");
        AttentionPng.write(run, 0, List.of(8), png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals((44 + 14 * 20 + 10) * 3, image.getHeight(), "13 tokens and the gap between the sentences");
    }
}
