package org.vectorbert.cli;

import java.nio.file.Path;
import org.vectorbert.convert.testing.RealModels;

/** The real bert-base-uncased, converted once per test JVM from the Maven Central jar and removed at exit. */
final class TestModels {
    private TestModels() {}

    static Path bertBaseUncased() {
        return RealModels.bertBaseUncased();
    }
}
