package org.vectorbert.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "tokenize",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = {
            "Split texts into tokens and ids, with character offsets, as the model's Hugging Face tokenizer does (WordPiece, byte-level BPE or Unigram, from tokenizer.json or the older files).",
            "Without --model or --vocab it uses bert-base-uncased, fetched through Maven on first use."},
        footer = {"", "Examples:",
            "  vectorbert tokenize \"Paris is the [MASK] of France.\"",
            "  vectorbert tokenize --json --pair \"It is in Europe.\" \"Where is Paris?\"",
            "  vectorbert tokenize --json --file texts.txt      (one text per line; - reads standard input)",
            "  vectorbert tokenize -- \"-starts with a dash\""},
        sortOptions = false)
final class TokenizeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--model", paramLabel = "MODEL", description = ModelOptions.MODEL_HELP)
    String model;

    @Option(names = "--vocab", paramLabel = "FILE", description = "A vocab.txt, with bert-base-uncased settings unless --cased.")
    Path vocab;

    @Option(names = "--cased", description = "With --vocab: keep case and accents (for cased vocabularies).")
    boolean cased;

    @Option(names = "--pair", paramLabel = "TEXT_B", description = "Second text of a pair, joined as the model's template says ([CLS] TEXT [SEP] TEXT_B [SEP] for BERT).")
    String pair;

    @Option(names = "--no-special-tokens", description = "Do not add the template's special tokens ([CLS] and [SEP] for BERT).")
    boolean noSpecialTokens;

    @Option(names = "--max-length", paramLabel = "N", description = "Truncate to N tokens, special tokens included.")
    Integer maxLength;

    @Option(names = "--truncation", paramLabel = "STRATEGY", defaultValue = "longest_first",
            description = "With --max-length: longest_first (default), only_first or only_second.")
    String truncation;

    @Option(names = "--json", description = "One JSON object per text: tokens, input_ids, token_type_ids, attention_mask, special_tokens_mask, offsets (code points into the text, [0, 0] for special tokens).")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Texts to tokenize.")
    List<String> texts = new ArrayList<>();

    @Override
    public Integer call() {
        if (model != null && vocab != null) {
            throw new UserError("give --model or --vocab, not both");
        }
        if (cased && vocab == null) {
            throw new UserError("--cased goes with --vocab (a model directory states its own casing)");
        }
        EncodeOptions options = EncodeOptions.defaults().withAddSpecialTokens(!noSpecialTokens);
        if (maxLength != null) {
            if (maxLength <= 0) {
                throw new UserError("--max-length must be positive, was " + maxLength);
            }
            options = options.withMaxLength(maxLength).withTruncation(Truncation.parse(truncation));
        }
        Tokenizer tokenizer = loadTokenizer();
        PrintWriter out = spec.commandLine().getOut();
        EncodeOptions encodeOptions = options;
        TextInput.forEach(texts, file, System.in, text -> {
            // An empty text is encoded too: the template's special tokens alone ([CLS] [SEP]), as Hugging Face gives.
            Encoding encoding = tokenizer.encode(text, pair, encodeOptions);
            out.println(json ? toJson(encoding, text) : table(encoding, text));
            out.flush();
        });
        return 0;
    }

    private Tokenizer loadTokenizer() {
        if (vocab != null) {
            return Tokenizer.fromWordPieceVocab(vocab, cased);
        }
        return Tokenizer.fromDirectory(ModelOptions.resolve(model, spec.commandLine().getErr()));
    }

    /** The JSON line for one text. */
    private String toJson(Encoding e, String text) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("tokens", e.tokens());
        object.put("input_ids", e.ids());
        object.put("token_type_ids", e.typeIds());
        object.put("attention_mask", e.attentionMask());
        object.put("special_tokens_mask", e.specialTokensMask());
        object.put("offsets", e.codePointOffsets(text, pair));
        return JsonText.of(object);
    }

    /** A readable table: position, token, id, type and the covered source text. */
    private String table(Encoding e, String text) {
        StringBuilder b = new StringBuilder();
        b.append(pair == null ? quote(text) : quote(text) + " + " + quote(pair));
        if (e.length() == 0) {
            return b.append("  (no tokens)\n").toString();   // --no-special-tokens and an empty text
        }
        b.append("  (").append(e.length()).append(e.length() == 1 ? " token)\n" : " tokens)\n");
        int tokenWidth = "token".length();
        for (String t : e.tokens()) {
            tokenWidth = Math.max(tokenWidth, t.codePointCount(0, t.length()));
        }
        b.append(String.format("  %4s  %-" + tokenWidth + "s  %6s  %4s  %s%n", "#", "token", "id", "type", "text"));
        for (int i = 0; i < e.length(); i++) {
            String source = e.sequenceIds()[i] == 1 ? pair : text;
            String covered = e.sequenceIds()[i] < 0 ? "" : source.substring(e.starts()[i], e.ends()[i]);
            String token = e.tokens().get(i);
            int pad = tokenWidth - token.codePointCount(0, token.length());
            b.append(String.format("  %4d  %s%s  %6d  %4d  %s%n", i, token, " ".repeat(pad), e.ids()[i],
                    e.typeIds()[i], covered));
        }
        return b.toString();
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
