package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * The token-classification pipeline's last steps: labelled tokens or words grouped into entities by their B-/I-
 * tags, and the entities of overlapping windows reconciled.
 */
final class EntityGroups {
    private EntityGroups() {}

    /** A labelled token or word before grouping. */
    record Labelled(String entity, float score, int index, String word, int start, int end) {}

    /**
     * Labelled tokens or words grouped into entities: one continues the group before it when it has the
     * same tag and is not a B-; the group's label loses its prefix, its score is the mean.
     */
    static List<TokenClassifier.Entity> group(List<Labelled> labelled, Tokenizer tokenizer) {
        List<TokenClassifier.Entity> groups = new ArrayList<>();
        List<Labelled> group = new ArrayList<>();
        for (Labelled l : labelled) {
            if (!group.isEmpty()) {
                String[] tag = tag(l.entity());
                String[] last = tag(group.getLast().entity());
                if (!(tag[1].equals(last[1]) && !tag[0].equals("B"))) {
                    groups.add(entity(group, tokenizer));
                    group = new ArrayList<>();
                }
            }
            group.add(l);
        }
        if (!group.isEmpty()) {
            groups.add(entity(group, tokenizer));
        }
        return groups;
    }

    private static TokenClassifier.Entity entity(List<Labelled> group, Tokenizer tokenizer) {
        String label = group.getFirst().entity();
        int dash = label.indexOf('-');
        float sum = 0;
        for (Labelled l : group) {
            sum += l.score();
        }
        String word = tokenizer.tokensToText(group.stream().map(Labelled::word).toList());
        return new TokenClassifier.Entity(dash < 0 ? label : label.substring(dash + 1), sum / group.size(), -1, word, group.getFirst().start(),
                group.getLast().end());
    }

    /** The pipeline's get_tag: "B-X" is (B, X), "I-X" (I, X), anything else (I, itself). */
    private static String[] tag(String label) {
        if (label.startsWith("B-")) {
            return new String[] {"B", label.substring(2)};
        }
        if (label.startsWith("I-")) {
            return new String[] {"I", label.substring(2)};
        }
        return new String[] {"I", label};
    }

    /**
     * The pipeline's aggregate_overlapping_entities: by start (stably), an entity that starts inside the one kept
     * before it replaces that one when longer, or as long and surer; otherwise it is kept after it.
     */
    static List<TokenClassifier.Entity> overlapsResolved(List<TokenClassifier.Entity> entities) {
        if (entities.isEmpty()) {
            return entities;
        }
        List<TokenClassifier.Entity> sorted = entities.stream().sorted(Comparator.comparingInt(TokenClassifier.Entity::start)).toList();
        List<TokenClassifier.Entity> kept = new ArrayList<>();
        TokenClassifier.Entity previous = sorted.getFirst();
        for (TokenClassifier.Entity e : sorted) {
            if (previous.start() <= e.start() && e.start() < previous.end()) {
                int length = e.end() - e.start();
                int previousLength = previous.end() - previous.start();
                if (length > previousLength || length == previousLength && e.score() > previous.score()) {
                    previous = e;
                }
            } else {
                kept.add(previous);
                previous = e;
            }
        }
        kept.add(previous);
        return kept;
    }
}
