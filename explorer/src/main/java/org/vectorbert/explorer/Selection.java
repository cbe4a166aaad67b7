package org.vectorbert.explorer;

import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.vectorbert.engine.EngineException;

/**
 * The layers and heads a page or picture shows, each in ascending order.
 *
 * @param layers layer indices, from 0
 * @param heads  head indices, from 0
 */
public record Selection(List<Integer> layers, List<Integer> heads) {
    /** Copies the lists; refuses an empty one. */
    public Selection {
        layers = List.copyOf(layers);
        heads = List.copyOf(heads);
        if (layers.isEmpty() || heads.isEmpty()) {
            throw new EngineException("a selection needs at least one layer and one head");
        }
    }

    /**
     * Every layer and head.
     *
     * @param run a captured pass
     * @return all its layers and heads
     */
    public static Selection all(AttentionRun run) {
        return new Selection(range(run.layers()), range(run.heads()));
    }

    /**
     * Layers and heads written as {@code 0,5-7} (null or empty: all), checked against the model's
     * {@code layerCount} and {@code headCount}.
     *
     * @param layers     layers as {@code 0,5-7}, or null or empty for all
     * @param heads      heads likewise
     * @param layerCount the model's layers
     * @param headCount  the model's heads per layer
     * @return the selection
     */
    public static Selection parse(String layers, String heads, int layerCount, int headCount) {
        return new Selection(parse(layers, layerCount, "layer"), parse(heads, headCount, "head"));
    }

    /** {@code 0,5-7} as a sorted list of indices below {@code count}; null or empty means all. */
    static List<Integer> parse(String spec, int count, String what) {
        if (spec == null || spec.isBlank()) {
            return range(count);
        }
        TreeSet<Integer> chosen = new TreeSet<>();
        for (String part : spec.split(",", -1)) {
            String p = part.trim();
            int dash = p.indexOf('-', 1);
            int from = number(dash < 0 ? p : p.substring(0, dash), spec, what);
            int to = dash < 0 ? from : number(p.substring(dash + 1), spec, what);
            if (to < from) {
                throw new EngineException("the " + what + " range '" + p + "' runs backwards");
            }
            requireIndex(to, count, what);
            IntStream.rangeClosed(from, to).forEach(chosen::add);
        }
        return List.copyOf(chosen);
    }

    /** Refuses an index at or past {@code count}: "layer 12 is out of range: the model has 12 layers, 0 to 11". */
    static void requireIndex(int index, int count, String what) {
        if (index < 0 || index >= count) {
            throw new EngineException(what + " " + index + " is out of range: the model has " + count + " " + what + "s, 0 to " + (count - 1));
        }
    }

    private static int number(String s, String spec, String what) {
        try {
            int n = Integer.parseInt(s.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new EngineException("'" + spec + "' is not a list of " + what + "s such as 0,5-7");
        }
    }

    private static List<Integer> range(int count) {
        return IntStream.range(0, count).boxed().toList();
    }
}
