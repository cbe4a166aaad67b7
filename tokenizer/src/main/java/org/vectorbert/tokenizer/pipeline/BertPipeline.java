package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Tokenizer;

/** BertTokenizerFast's stages for a vocab.txt and its settings, as transformers' converter builds them. */
public final class BertPipeline {
    private BertPipeline() {}

    public static Tokenizer of(List<String> vocab, boolean lowercase, boolean stripAccents, boolean chinese,
                               boolean cleanText, String prefix, int maxChars, int modelMaxLength, String unk,
                               String cls, String sep, String pad, String mask, List<String> specials) {
        Map<String, Integer> ids = new HashMap<>();
        for (int i = 0; i < vocab.size(); i++) {
            ids.putIfAbsent(vocab.get(i), i);
        }
        Model model = WordPieceModel.of(ids, unk, prefix, maxChars, "vocab.txt");
        List<AddedVocabulary.AddedToken> added = new ArrayList<>();
        for (String s : specials) {
            added.add(new AddedVocabulary.AddedToken(ids.get(s), s, false, false, false, false, true));
        }
        int padId = ids.getOrDefault(pad, -1);
        return new PipelineTokenizer(new PipelineTokenizer.Stages(
                new BertNormalizer(cleanText, chinese, stripAccents, lowercase), new PreTokenizer.Bert(), model,
                new PostProcessor.Bert(new PostProcessor.Special(cls, ids.get(cls)), new PostProcessor.Special(sep, ids.get(sep))),
                new Decoder.WordPiece(prefix, true), added,
                new PipelineTokenizer.Roles(ids.getOrDefault(mask, -1), padId, ids.get(unk)),
                EncodeOptions.defaults(), padId < 0 ? null : new PipelineTokenizer.PadSettings(padId, 0, pad),
                modelMaxLength));
    }
}
