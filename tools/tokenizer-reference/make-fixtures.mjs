// Generates the tokenizer parity fixtures from Hugging Face's tokenizers library (the Rust code
// behind BertTokenizerFast), independently of vectorbert's own tokenizer.
//
//   cd tools/tokenizer-reference && npm install && node make-fixtures.mjs /path/to/vocab.txt
//
// Reads  tokenizer/src/test/resources/parity/cases.json
// Writes tokenizer/src/test/resources/parity/expected.jsonl   (one result per case, same order)
//        tokenizer/src/test/resources/parity/fuzz.jsonl       (seeded random strings and their encodings)
//        tokenizer/src/test/resources/parity/batch.json       (a padded batch)
//        tokenizer/src/test/resources/parity/tokenizer.json   (bert-base-uncased as a tokenizer.json)
import tk from 'tokenizers';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const { Tokenizer, WordPiece, bertNormalizer, bertPreTokenizer, bertProcessing, wordPieceDecoder } = tk;

const vocabPath = process.argv[2];
if (!vocabPath) {
  console.error('usage: node make-fixtures.mjs VOCAB_TXT');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const parity = path.resolve(here, '../../tokenizer/src/test/resources/parity');

const lines = fs.readFileSync(vocabPath, 'utf8').split('\n');
if (lines[lines.length - 1] === '') lines.pop();
const vocab = {};
lines.forEach((token, id) => { vocab[token] = id; });

const NORMALIZERS = {
  'uncased': { cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true },
  'cased': { cleanText: true, handleChineseChars: true, stripAccents: false, lowercase: false },
  'cased-strip-accents': { cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: false },
  'lowercase-keep-accents': { cleanText: true, handleChineseChars: true, stripAccents: false, lowercase: true },
  'no-chinese-split': { cleanText: true, handleChineseChars: false, stripAccents: true, lowercase: true },
};

function bertTokenizer(config) {
  const tok = new Tokenizer(WordPiece.init(vocab, { unkToken: '[UNK]', continuingSubwordPrefix: '##', maxInputCharsPerWord: 100 }));
  tok.setNormalizer(bertNormalizer(NORMALIZERS[config]));
  tok.setPreTokenizer(bertPreTokenizer());
  tok.setPostProcessor(bertProcessing(['[SEP]', vocab['[SEP]']], ['[CLS]', vocab['[CLS]']]));
  tok.setDecoder(wordPieceDecoder('##', true));
  tok.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
  return tok;
}

// transformers' PreTrainedTokenizerBase.clean_up_tokenization, which BertTokenizerFast.decode
// applies after the Rust decoder when clean_up_tokenization_spaces is true (BERT's default).
function cleanUpTokenization(s) {
  return s.replaceAll(' .', '.').replaceAll(' ?', '?').replaceAll(' !', '!').replaceAll(' ,', ',')
    .replaceAll(" ' ", "'").replaceAll(" n't", "n't").replaceAll(" 'm", "'m").replaceAll(" 's", "'s")
    .replaceAll(" 've", "'ve").replaceAll(" 're", "'re");
}

const STRATEGY = { longest_first: 'LongestFirst', only_first: 'OnlyFirst', only_second: 'OnlySecond' };

const cases = JSON.parse(fs.readFileSync(path.join(parity, 'cases.json'), 'utf8'));
const out = [];
for (const c of cases) {
  const tok = bertTokenizer(c.config ?? 'uncased');
  if (c.maxLength) tok.setTruncation(c.maxLength, { strategy: STRATEGY[c.truncation ?? 'longest_first'] });
  let e;
  try {
    e = await tok.encode(c.text, c.pair ?? null, { addSpecialTokens: c.addSpecialTokens ?? true });
  } catch (err) {
    out.push({ error: String(err.message ?? err) });
    continue;
  }
  const ids = e.getIds();
  out.push({
    tokens: e.getTokens(),
    ids,
    typeIds: e.getTypeIds(),
    attentionMask: e.getAttentionMask(),
    specialTokensMask: e.getSpecialTokensMask(),
    offsets: e.getOffsets(),
    decoded: cleanUpTokenization(await tok.decode(ids, false)),
    decodedSkipSpecial: cleanUpTokenization(await tok.decode(ids, true)),
  });
}
fs.writeFileSync(path.join(parity, 'expected.jsonl'), out.map((o) => JSON.stringify(o)).join('\n') + '\n');

// Seeded random texts built from the pieces that exercise every rule, plus random code points.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(20261121);
const pick = (list) => list[Math.floor(random() * list.length)];
const PIECES = [
  'the', 'The', 'running', 'unbelievable', 'Tokenization', 'xylophonist', 'qwzx', 'HELLO', 'naïve', 'Café',
  '42', '3.14', '1,000', '2024-01-15', 'https://ex.com/a?b=c', 'e-mail@host.org', "don't", "it's",
  '.', ',', '!', '?', ';', ':', '-', '—', '…', '"', "'", '(', ')', '[', ']', '{', '}', '$', '^', '`', '~', '|', '«', '»', '¿', '¡', '·',
  ' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '\u000b', '\u0085', '\u2003',
  '\u0000', '\u0001', '\u001f', '\u007f', '\u200b', '\u200d', '\ufeff', '\u00ad', '\ue000', '\ufffd', '\u202e',
  'é', 'Å', 'ñ', 'Ü', 'İ', 'ß', 'ẞ', 'Σ', 'ς', 'ǅ', 'ﬁ', 'Ａ', 'e\u0301', '\u0301', 'ά', 'Ω', 'Ⅻ', '½', 'ℌ',
  '東', '京', '日本語', '中文字', '𠀀', '豈', 'カタカナ', 'ひらがな', '한국어', 'ไทย', 'हिन्दी', 'עברית', 'عربي',
  '😀', '👍🏽', '🇫🇷', '👨‍👩‍👧', '❤️', '☕', '🫠',
  '[MASK]', '[CLS]', '[SEP]', '[PAD]', '[UNK]', '[mask]', '[MASK', 'MASK]',
];
function randomPiece() {
  const r = random();
  if (r < 0.08) {
    // A random code point: BMP (no surrogates) or a supplementary plane.
    // Non-spacing marks are left out: the tokenizers library strips only those its (older) Unicode
    // tables know, vectorbert all that Java's Unicode 16 knows; ParityTest covers that difference.
    let c;
    do {
      const cp = random() < 0.8 ? Math.floor(random() * 0xd800) : 0x10000 + Math.floor(random() * 0x20000);
      c = String.fromCodePoint(cp);
    } while (/\p{Mn}/u.test(c));
    return c;
  }
  if (r < 0.1) return pick(['a', 'é', 'z', 'x']).repeat(95 + Math.floor(random() * 12));
  if (r < 0.2) {
    let word = '';
    const n = 1 + Math.floor(random() * 12);
    for (let i = 0; i < n; i++) word += String.fromCharCode((random() < 0.3 ? 65 : 97) + Math.floor(random() * 26));
    return word;
  }
  return pick(PIECES);
}
function randomText() {
  let text = '';
  const n = Math.floor(random() * 16);
  for (let i = 0; i < n; i++) text += randomPiece() + (random() < 0.5 ? ' ' : '');
  return text;
}
const fuzzTok = bertTokenizer('uncased');
const fuzz = [];
for (let i = 0; i < 1500; i++) {
  const text = randomText();
  const pair = random() < 0.2 ? randomText() : null;
  const e = await fuzzTok.encode(text, pair);
  fuzz.push(JSON.stringify({ text, pair, ids: e.getIds(), typeIds: e.getTypeIds(), offsets: e.getOffsets(),
    decodedSkipSpecial: cleanUpTokenization(await fuzzTok.decode(e.getIds(), true)) }));
}
fs.writeFileSync(path.join(parity, 'fuzz.jsonl'), fuzz.join('\n') + '\n');

const batchTexts = ['a short text', 'a rather longer text with more words in it', '', 'Déjà vu [MASK]!'];
const batchTok = bertTokenizer('uncased');
batchTok.setPadding({ padId: vocab['[PAD]'], padToken: '[PAD]' });
const batch = await batchTok.encodeBatch(batchTexts);
fs.writeFileSync(path.join(parity, 'batch.json'), JSON.stringify({
  texts: batchTexts,
  encodings: batch.map((e) => ({
    tokens: e.getTokens(), ids: e.getIds(), typeIds: e.getTypeIds(), attentionMask: e.getAttentionMask(),
    specialTokensMask: e.getSpecialTokensMask(), offsets: e.getOffsets(),
  })),
}, null, 1) + '\n');

bertTokenizer('uncased').save(path.join(parity, 'tokenizer.json'), false);
console.log(`wrote ${out.length} cases, ${fuzz.length} random texts, a batch of ${batch.length} and tokenizer.json to ${parity}`);
