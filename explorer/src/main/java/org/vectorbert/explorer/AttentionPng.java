package org.vectorbert.explorer;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Line2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.vectorbert.common.AtomicFiles;

/**
 * The head view drawn with Java2D, without a browser: the tokens in two columns, a line from each
 * query token to each key token it attends to, coloured per head, as opaque as the probability.
 * Drawn at 3 pixels per point (2 beyond 128 tokens, where the picture is already tall), about 300 dpi
 * when printed at the page's size.
 */
public final class AttentionPng {
    /** The page's palette, so a head has one colour in both. */
    static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf),
        new Color(0x393b79), new Color(0xad494a), new Color(0x637939), new Color(0x843c39), new Color(0x7b4173), new Color(0x3182bd)};
    /**
     * Lines fainter than this opacity (of 255) are not drawn, as in the page: they do not show, and
     * drawing them was most of the time (a line's opacity is p/√heads).
     */
    static final int MIN_ALPHA = 3;
    private static final int LINES = 300;

    private AttentionPng() {}

    /**
     * Writes the head view of a layer as PNG, whole or not at all.
     *
     * @param run    the captured pass
     * @param layer  the layer, from 0
     * @param heads  the heads whose lines are drawn
     * @param target the PNG file
     */
    public static void write(AttentionRun run, int layer, List<Integer> heads, Path target) {
        BufferedImage image = headView(run, layer, heads);
        Path partial = AtomicFiles.partial(target);
        try {
            try (var out = Files.newOutputStream(partial)) {
                ImageIO.write(image, "png", out);
            }
            AtomicFiles.moveIntoPlace(partial, target);
        } catch (IOException e) {
            try {
                AtomicFiles.discard(partial);
            } catch (IOException ignored) {
                // the shutdown hook tries again
            }
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * The head view of a layer, the lines of the heads on top of each other.
     *
     * @param run   the captured pass
     * @param layer the layer, from 0
     * @param heads the heads whose lines are drawn
     * @return the picture
     */
    public static BufferedImage headView(AttentionRun run, int layer, List<Integer> heads) {
        Selection.requireIndex(layer, run.layers(), "layer");
        heads.forEach(h -> Selection.requireIndex(h, run.heads(), "head"));
        int n = run.length();
        int pitch = n <= 128 ? 20 : n <= 256 ? 14 : 11;
        int scale = n <= 128 ? 3 : 2;
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, Math.round(pitch * 0.6f));
        Font titleFont = new Font(Font.SANS_SERIF, Font.BOLD, 13);
        FontMetrics metrics = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics().getFontMetrics(font);
        int tokenWidth = Math.min(160, run.tokens().stream().mapToInt(metrics::stringWidth).max().orElse(0) + 10);
        int top = 44;
        int gap = run.sentenceB() > 0 ? 1 : 0;
        int x1 = 10 + tokenWidth;
        int x2 = x1 + LINES;
        int width = x2 + tokenWidth + 10;
        int height = top + (n + gap) * pitch + 10;

        BufferedImage image = new BufferedImage(width * scale, height * scale, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
            g.scale(scale, scale);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(new Color(0x222222));
            g.setFont(titleFont);
            g.drawString(run.model() + "  ·  layer " + layer + "  ·  " + n + " tokens", 10, 18);
            int legend = 10;
            g.setFont(font.deriveFont(11f));
            for (int h : heads) {
                g.setColor(COLORS[h % COLORS.length]);
                g.fillRect(legend, 26, 10, 10);
                g.setColor(new Color(0x222222));
                String name = "head " + h;
                g.drawString(name, legend + 13, 35);
                legend += 13 + g.getFontMetrics().stringWidth(name) + 10;
            }
            float[] rowY = new float[n];
            for (int i = 0; i < n; i++) {
                rowY[i] = top + (i + (run.sentenceB() > 0 && i >= run.sentenceB() ? 1 : 0)) * pitch + pitch / 2f;
            }
            g.setFont(font);
            int ascent = g.getFontMetrics().getAscent() - g.getFontMetrics().getDescent();
            for (int i = 0; i < n; i++) {
                String token = run.tokens().get(i);
                int y = Math.round(rowY[i] + ascent / 2f);
                g.drawString(token, x1 - 6 - g.getFontMetrics().stringWidth(token), y);
                g.drawString(token, x2 + 6, y);
            }
            g.setStroke(new BasicStroke(1.4f));
            float fade = (float) Math.sqrt(heads.size());
            Line2D.Float line = new Line2D.Float();
            for (int h : heads) {
                Color[] shades = new Color[256];
                float[][] p = run.attentions()[layer][h];
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        int alpha = Math.round(255 * Math.min(1f, p[i][j] / fade));
                        if (alpha >= MIN_ALPHA) {
                            if (shades[alpha] == null) {
                                Color c = COLORS[h % COLORS.length];
                                shades[alpha] = new Color(c.getRed(), c.getGreen(), c.getBlue(), alpha);
                            }
                            g.setColor(shades[alpha]);
                            line.setLine(x1, rowY[i], x2, rowY[j]);
                            g.draw(line);
                        }
                    }
                }
            }
        } finally {
            g.dispose();
        }
        return image;
    }
}
