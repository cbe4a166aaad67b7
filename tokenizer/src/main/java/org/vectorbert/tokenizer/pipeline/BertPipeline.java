package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.SpecialTokens;
import org.vectorbert.tokenizer.TokenizerConfig;

/**
 * The stages transformers' converter builds for a BERT {@code vocab.txt} and its settings
 * (BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing, the WordPiece decoder), with the
 * special tokens matched whole in the raw text as unnormalised added tokens.
 */
public final class BertPipeline {
    private BertPipeline() {}

    /**
     * The pipeline of a vocabulary and settings.
     *
     * @param specials the special tokens to match in text, each present in {@code vocab}
     */
    public static PipelineTokenizer of(Vocab vocab, TokenizerConfig config, List<String> specials) {
        SpecialTokens roles = config.specialTokens();
        Model model = new WordPieceModel(vocab, roles.unk(), config.continuingSubwordPrefix(),
                config.maxInputCharsPerWord(), "vocab.txt");
        List<AddedVocabulary.AddedToken> added = new ArrayList<>(specials.size());
        for (String s : specials) {
            added.add(new AddedVocabulary.AddedToken(vocab.id(s), s, false, false, false, false, true));
        }
        int padId = vocab.id(roles.pad());
        return new PipelineTokenizer(new PipelineTokenizer.Stages(
                new BertNormalizer(config.cleanText(), config.tokenizeChineseChars(), config.stripAccents(),
                        config.lowercase()),
                new PreTokenizer.Bert(), model,
                new PostProcessor.Bert(new PostProcessor.Special(roles.cls(), vocab.id(roles.cls())),
                        new PostProcessor.Special(roles.sep(), vocab.id(roles.sep()))),
                new Decoder.WordPiece(config.continuingSubwordPrefix(), true), added,
                new PipelineTokenizer.Roles(vocab.id(roles.mask()), padId, vocab.id(roles.unk())),
                EncodeOptions.defaults(), padId < 0 ? null : new PipelineTokenizer.PadSettings(padId, 0, roles.pad()),
                config.modelMaxLength()));
    }
}
