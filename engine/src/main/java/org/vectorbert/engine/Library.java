package org.vectorbert.engine;

import java.lang.System.Logger.Level;
import org.vectorbert.loader.ModelResolver;

/** What a library user sees while a model is fetched or converted: the platform logger, not stderr. */
final class Library {
    private static final System.Logger LOG = System.getLogger("org.vectorbert");

    private Library() {}

    static ModelResolver.Listener listener() {
        return new ModelResolver.Listener() {
            private int lastDecile = -1;
            private String lastTask;

            @Override
            public void log(String message) {
                LOG.log(Level.INFO, message);
            }

            @Override
            public void progress(String task, long done, long total) {
                int decile = total > 0 ? (int) (10 * done / total) : 0;
                if (!task.equals(lastTask) || decile != lastDecile) {
                    lastTask = task;
                    lastDecile = decile;
                    LOG.log(Level.DEBUG, () -> task + " " + (10 * decile) + "%");
                }
            }
        };
    }
}
