package org.vectorbert.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading vocabularies and Hugging Face tokenizer files, good and broken. */
class LoadingTest {
    @TempDir
    Path dir;

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    }

    private static String message(Runnable action) {
        return assertThrows(TokenizerException.class, action::run).getMessage();
    }

    private static final String SMALL_VOCAB = String.join("\n",
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "Hello", "hello", "world", "##s", ",", "!", "café", "cafe", "ü", "u") + "\n";

    @Test
    void missingVocabularyIsNamed() {
        String m = message(() -> BertTokenizer.fromVocab(dir.resolve("nope.txt")));
        assertEquals("vocabulary file not found: " + dir.resolve("nope.txt"), m);
    }

    @Test
    void emptyVocabularyIsRefused() throws IOException {
        Path vocab = write("vocab.txt", "");
        assertEquals("vocabulary " + vocab + " is empty", message(() -> BertTokenizer.fromVocab(vocab)));
    }

    @Test
    void duplicateTokensNameBothLines() throws IOException {
        Path vocab = write("vocab.txt", "[PAD]\n[UNK]\nhello\n[CLS]\nhello\n");
        assertEquals("vocabulary " + vocab + " has duplicate token 'hello' (lines 3 and 5)",
                message(() -> BertTokenizer.fromVocab(vocab)));
    }

    @Test
    void invalidUtf8VocabularyIsRefused() throws IOException {
        Path vocab = Files.write(dir.resolve("vocab.txt"), new byte[] {'[', 'U', 'N', 'K', ']', '\n', (byte) 0xC3, '(', '\n'});
        assertEquals("vocabulary " + vocab + " is not valid UTF-8", message(() -> BertTokenizer.fromVocab(vocab)));
    }

    @Test
    void vocabularyWithoutUnknownTokenIsRefused() throws IOException {
        Path vocab = write("vocab.txt", "[CLS]\n[SEP]\nhello\n");
        assertEquals("the vocabulary has no unknown token '[UNK]'", message(() -> BertTokenizer.fromVocab(vocab)));
    }

    @Test
    void aVocabularyWithoutPaddingFailsOnlyWhenAPadIsNeeded() throws IOException {
        BertTokenizer tokenizer = BertTokenizer.fromVocab(write("vocab.txt", "[UNK]\n[CLS]\n[SEP]\nhello\n"));
        EncodeOptions padded = EncodeOptions.defaults().withMaxLength(3).withPadding(Padding.MAX_LENGTH);
        assertEquals(List.of("[CLS]", "hello", "[SEP]"), tokenizer.encode("hello", padded).tokens());
        assertEquals(2, tokenizer.encodeBatch(List.of("hello", "hello"),
                EncodeOptions.defaults().withPadding(Padding.LONGEST)).size());
        assertEquals("this tokenizer has no padding token", message(() -> tokenizer.encode("", padded)));
        assertEquals("the vocabulary has no padding token '[PAD]'", message(tokenizer::padTokenId));
    }

    @Test
    void windowsLineEndingsAreNotPartOfTokens() throws IOException {
        Path vocab = write("vocab.txt", SMALL_VOCAB.replace("\n", "\r\n"));
        assertEquals(List.of("hello", "world", "##s"), BertTokenizer.fromVocab(vocab).tokenize("Hello worlds"));
    }

    @Test
    void unreadableTokenizerJsonSaysWhereItBroke() throws IOException {
        write("tokenizer.json", "{\"model\": {\"type\": \"WordPiece\", ");
        String m = message(() -> BertTokenizer.fromDirectory(dir));
        assertTrue(m.startsWith("cannot parse " + dir.resolve("tokenizer.json") + " at line 1"), m);
        assertFalse(m.contains("\n"), m);
    }

    @Test
    void tokenizerJsonOfAnotherKindIsRefusedByName() throws IOException {
        write("tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {}}}");
        assertEquals("tokenizer.json: model type 'BPE' is not supported; vectorbert reads WordPiece (BERT) tokenizers",
                message(() -> BertTokenizer.fromDirectory(dir)));
    }

    @Test
    void tokenizerJsonWithClashingIdsIsRefused() throws IOException {
        write("tokenizer.json", "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"[UNK]\": 0, \"a\": 0}}}");
        String m = message(() -> BertTokenizer.fromDirectory(dir));
        assertTrue(m.startsWith("tokenizer.json: tokens '"), m);
        assertTrue(m.endsWith("share id 0"), m);
    }

    @Test
    void directoryWithoutTokenizerFilesIsExplained() throws IOException {
        write("config.json", "{}");
        assertEquals("no tokenizer in " + dir + ": expected tokenizer.json or vocab.txt",
                message(() -> BertTokenizer.fromDirectory(dir)));
        assertEquals("model directory not found: " + dir.resolve("missing"),
                message(() -> BertTokenizer.fromDirectory(dir.resolve("missing"))));
    }

    @Test
    void tokenizerConfigSetsCasingAndLength() throws IOException {
        write("vocab.txt", SMALL_VOCAB);
        write("tokenizer_config.json", "{\"do_lower_case\": false, \"model_max_length\": 1000000000000000019884624838656}");
        BertTokenizer cased = BertTokenizer.fromDirectory(dir);
        assertFalse(cased.config().lowercase());
        assertFalse(cased.config().stripAccents(), "strip_accents follows do_lower_case when unset");
        assertEquals(Integer.MAX_VALUE, cased.config().modelMaxLength());
        assertEquals(List.of("Hello", "[UNK]", "café"), cased.tokenize("Hello World café"));

        write("tokenizer_config.json", "{\"do_lower_case\": true, \"strip_accents\": false, \"model_max_length\": 128}");
        BertTokenizer keepAccents = BertTokenizer.fromDirectory(dir);
        assertEquals(List.of("hello", "world", "café", "ü"), keepAccents.tokenize("Hello World CAFÉ Ü"));
        assertEquals(128, keepAccents.config().modelMaxLength());
    }

    @Test
    void specialTokensMayBeRenamedAndGivenAsObjects() throws IOException {
        write("vocab.txt", "<unk>\n<s>\n</s>\n<pad>\n<mask>\nhello\n");
        write("special_tokens_map.json", "{\"unk_token\": \"<unk>\", \"cls_token\": {\"content\": \"<s>\"}, \"sep_token\": \"</s>\"}");
        write("tokenizer_config.json", "{\"pad_token\": \"<pad>\", \"mask_token\": {\"__type\": \"AddedToken\", \"content\": \"<mask>\"}}");
        BertTokenizer tokenizer = BertTokenizer.fromDirectory(dir);
        Encoding e = tokenizer.encode("hello<mask>!");
        assertEquals(List.of("<s>", "hello", "<mask>", "<unk>", "</s>"), e.tokens());
        assertEquals(4, tokenizer.maskTokenId());
        assertEquals(3, tokenizer.padTokenId());
    }

    @Test
    void tokenizerConfigOverridesTokenizerJson() throws IOException {
        Path json = Path.of(ParityTest.resourcePath("tokenizer.json"));
        Files.copy(json, dir.resolve("tokenizer.json"));
        write("tokenizer_config.json", "{\"do_lower_case\": false}");
        BertTokenizer tokenizer = BertTokenizer.fromDirectory(dir);
        assertFalse(tokenizer.config().lowercase());
        assertEquals(List.of("[UNK]", "world"), tokenizer.tokenize("Hello world"));
    }

    @Test
    void tokenizerJsonAloneKeepsItsNormaliserButADirectoryTakesTransformersDefaults() throws IOException {
        String cased = Files.readString(Path.of(ParityTest.resourcePath("tokenizer.json")))
                .replace("\"lowercase\":true", "\"lowercase\":false").replace("\"strip_accents\":true", "\"strip_accents\":null");
        Path json = write("tokenizer.json", cased);
        BertTokenizer file = BertTokenizer.fromTokenizerJson(json);
        assertFalse(file.config().lowercase());
        assertFalse(file.config().stripAccents(), "strip_accents null follows lowercase");
        // transformers' BertTokenizerFast resets casing to tokenizer_config.json's values or its defaults.
        BertTokenizer directory = BertTokenizer.fromDirectory(dir);
        assertTrue(directory.config().lowercase());
        assertTrue(directory.config().stripAccents());
    }
}
