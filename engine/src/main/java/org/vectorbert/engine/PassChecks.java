package org.vectorbert.engine;

import org.vectorbert.loader.ModelConfig;

/** What every encoder checks before a pass: the batch fits the model, and the request's rows and heads fit the batch. */
final class PassChecks {
    private PassChecks() {}

    /** Throws, naming the first thing that does not fit: a sequence too long, an id or type id out of range, a row outside the batch, a head the model lacks. */
    static void check(Encoder encoder, Batch batch, Encoder.Request request) {
        ModelConfig config = encoder.config();
        if (batch.length() > config.maxTokens()) {
            throw new EngineException("a sequence of " + batch.length() + " tokens is longer than the model's maximum of "
                    + config.maxTokens() + " positions; truncate it to " + config.maxTokens() + " tokens");
        }
        for (int i = 0; i < batch.ids().length; i++) {
            int id = batch.ids()[i];
            if (id < 0 || id >= config.vocabSize()) {
                throw new EngineException("token id " + id + " is outside the model's vocabulary (0.." + (config.vocabSize() - 1) + ")");
            }
            int type = batch.typeIds()[i];
            if (config.hasTokenTypes() && (type < 0 || type >= config.typeVocabSize())) {
                throw new EngineException("token type id " + type + " is outside 0.." + (config.typeVocabSize() - 1));
            }
        }
        for (int row : request.readRows() == null ? new int[0] : request.readRows()) {
            if (row < 0 || row >= batch.rows()) {
                throw new EngineException("last hidden state row " + row + " is outside the batch");
            }
        }
        request.heads().forEach((kind, rows) -> {
            encoder.requireHead(kind, kind == HeadKind.POOLER ? ": use cls or mean pooling" : "");
            for (int row : rows == null ? new int[0] : rows) {
                if (row < 0 || row >= batch.rows()) {
                    throw new EngineException(kind.title() + " row " + row + " is outside the batch");
                }
            }
        });
    }
}
