// Trains small tokenizers with Hugging Face's tokenizers library on Debian's license texts, saves
// them as tokenizer.json, and records the library's encodings of seeded varied texts, so that
// vectorbert's pipeline is compared with the library and never with itself.
//
//   cd tools/tokenizer-reference && npm ci && node make-pipeline-fixtures.mjs [minilm-tokenizer.json [bge-e5-tokenizer.json]] [--retrain]
//
// Writes tokenizer/src/test/resources/pipeline/<name>.tokenizer.json and <name>.expected.jsonl.gz
// for: bpe-roberta, unigram-xlmr, unigram-xlmr-precompiled, wordpiece-trained and (given the
// tokenizer.json from langchain4j's all-MiniLM-L6-v2 jar) minilm, and (given the one in its bge-small-en-v15 or
// e5-small-v2 jar) bge-e5; then (pipeline-extra.mjs) the legacy
// files (vocab.json + merges.txt, a sentencepiece .model), a CamemBERT-layout Unigram and the small
// stage fixtures (stages-*), 300 texts each.
import tk from 'tokenizers';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const { Tokenizer, BPE, Unigram, WordPiece, byteLevelPreTokenizer, metaspacePreTokenizer, bertPreTokenizer,
  bertNormalizer } = tk;
const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../../tokenizer/src/test/resources/pipeline');
fs.mkdirSync(out, { recursive: true });

const CORPUS = ['GPL-3', 'Apache-2.0', 'LGPL-2.1', 'MPL-2.0', 'Artistic', 'GFDL-1.3']
  .map((f) => '/usr/share/common-licenses/' + f).filter((f) => fs.existsSync(f));
const corpusLines = CORPUS.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n')).map((l) => l.trim()).filter((l) => l);

// Training is not bit-for-bit repeatable across machines, so a committed fixture's tokenizer.json
// is reused (its expected outputs are recomputed, identically) unless --retrain is given.
const RETRAIN = process.argv.includes('--retrain');
const ARGS = process.argv.slice(2).filter((a) => !a.startsWith('--'));
function committed(name) {
  const file = path.join(out, name + '.tokenizer.json');
  return !RETRAIN && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
}

function trained(model, pre) {
  const t = new Tokenizer(model);
  t.setPreTokenizer(pre);
  t.train(CORPUS);
  const file = path.join(out, '.trained.json');
  t.save(file);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.unlinkSync(file);
  return json.model;
}

function added(id, content, special, extra = {}) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: !special, special, ...extra };
}

function base(model) {
  return { version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
    post_processor: null, decoder: null, model };
}

// ---- (a) byte-level BPE with RoBERTa's template ----
function bpeRoberta() {
  const m = trained(BPE.empty(), byteLevelPreTokenizer(false));
  const vocab = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3 };
  let next = 4;
  for (const c of tk.byteLevelAlphabet()) if (!(c in vocab)) vocab[c] = next++;
  for (const [tok] of Object.entries(m.vocab).sort((a, b) => a[1] - b[1])) if (!(tok in vocab)) vocab[tok] = next++;
  const merges = m.merges.map((x) => (Array.isArray(x) ? x : x.split(' ')));
  vocab['<mask>'] = next;
  const j = base({ type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges });
  j.added_tokens = [added(0, '<s>', true), added(1, '<pad>', true), added(2, '</s>', true), added(3, '<unk>', true),
    added(next, '<mask>', true, { lstrip: true })];
  j.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  j.post_processor = { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false };
  j.decoder = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
  return j;
}

// ---- (b) Unigram with Metaspace and XLM-R's template ----
function unigramXlmr(charsmap) {
  const m = trained(Unigram.empty(), metaspacePreTokenizer());
  const vocab = [['<s>', 0], ['<pad>', 0], ['</s>', 0], ['<unk>', 0]];
  for (const [piece, score] of m.vocab) if (!['<s>', '<pad>', '</s>', '<unk>'].includes(piece)) vocab.push([piece, score]);
  vocab.push(['<mask>', 0]);
  const mask = vocab.length - 1;
  const j = base({ type: 'Unigram', unk_id: 3, vocab, byte_fallback: false });
  j.added_tokens = [added(0, '<s>', true), added(1, '<pad>', true), added(2, '</s>', true), added(3, '<unk>', true),
    added(mask, '<mask>', true, { lstrip: true })];
  const normalizers = [];
  if (charsmap) normalizers.push({ type: 'Precompiled', precompiled_charsmap: charsmap });
  normalizers.push({ type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' });
  j.normalizer = { type: 'Sequence', normalizers };
  j.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true };
  const s = (id) => ({ SpecialToken: { id, type_id: 0 } });
  const a = { Sequence: { id: 'A', type_id: 0 } };
  const b = { Sequence: { id: 'B', type_id: 0 } };
  j.post_processor = { type: 'TemplateProcessing', single: [s('<s>'), a, s('</s>')],
    pair: [s('<s>'), a, s('</s>'), s('</s>'), b, s('</s>')],
    special_tokens: { '<s>': { id: '<s>', ids: [0], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } } };
  j.decoder = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true };
  return j;
}

// ---- (c) WordPiece ----
function wordPiece() {
  const m = trained(WordPiece.empty(), bertPreTokenizer());
  const vocab = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, '[MASK]': 4 };
  let next = 5;
  for (const [tok] of Object.entries(m.vocab).sort((a, b) => a[1] - b[1])) if (!(tok in vocab)) vocab[tok] = next++;
  const j = base({ type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab });
  j.added_tokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t, i) => added(i, t, true));
  j.normalizer = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true };
  j.pre_tokenizer = { type: 'BertPreTokenizer' };
  j.post_processor = { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] };
  j.decoder = { type: 'WordPiece', prefix: '##', cleanup: true };
  return j;
}

// ---- a small SentencePiece charsmap: a Darts-clone double array (XOR layout) + NUL-terminated strings ----
function charsmap(rules) {
  const strings = [];
  let blob = Buffer.alloc(0);
  const keys = Object.entries(rules).map(([k, v]) => {
    const at = blob.length;
    blob = Buffer.concat([blob, Buffer.from(v, 'utf8'), Buffer.from([0])]);
    return [Buffer.from(k, 'utf8'), at];
  });
  // Trie of byte keys.
  const root = { children: new Map(), value: -1 };
  for (const [k, v] of keys) {
    let n = root;
    for (const b of k) { if (!n.children.has(b)) n.children.set(b, { children: new Map(), value: -1 }); n = n.children.get(b); }
    n.value = v;
  }
  const units = new Array(1 << 16).fill(0);
  const used = new Set([0]);
  const bases = new Set();
  // Place the children of node n (at position pos) under a base b: child c at b ^ c, a leaf at b ^ 0 = b.
  function place(n, pos) {
    const labels = [...n.children.keys()];
    if (n.value >= 0) labels.push(0);
    if (labels.length === 0) return;
    let b = 1;
    for (;; b++) {
      if (bases.has(b) || (b & 0x200)) continue;
      if (labels.every((c) => !used.has(b ^ c))) break;
    }
    bases.add(b);
    const off = pos ^ b;
    units[pos] = (units[pos] & 0x1ff) | (off << 10);
    if (n.value >= 0) { units[pos] |= 0x100; used.add(b); units[b] = (n.value | 0x80000000) >>> 0; }
    for (const [c, child] of n.children) { used.add(b ^ c); units[b ^ c] = c; }
    for (const [c, child] of n.children) place(child, b ^ c);
  }
  place(root, 0);
  const size = Math.max(...used) + 1;
  const trie = Buffer.alloc(size * 4);
  for (let i = 0; i < size; i++) trie.writeUInt32LE(units[i] >>> 0, i * 4);
  const head = Buffer.alloc(4);
  head.writeUInt32LE(trie.length, 0);
  return Buffer.concat([head, trie, blob]).toString('base64');
}

const RULES = { '\u00a0': ' ', '\u2026': '...', '\ufb01': 'fi', '\u2460': '1', '\u200b': '', 'e\u0301': '\u00e9',
  '\u3000': ' ', '\u00bd': '1/2', '\u2122': 'TM', '\u212b': '\u00c5', '\u0133': 'ij' };
for (let c = 0xff01; c <= 0xff5e; c++) RULES[String.fromCodePoint(c)] = String.fromCodePoint(c - 0xfee0);

// ---- seeded varied texts ----
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const PIECES = [
  'the', 'The', 'running', 'unbelievable', 'Tokenization', 'xylophonist', 'HELLO', 'naïve', 'Café', 'déjà vu',
  '42', '3.14', '1,000', '2024-01-15', 'https://ex.com/a?b=c', 'e-mail@host.org', "don't", "it's", "we'll", "I'M",
  '.', ',', '!', '?', ';', ':', '-', '—', '…', '"', "'", '(', ')', '[', ']', '$', '^', '`', '~', '|', '«', '»', '¿', '·',
  ' ', ' ', ' ', '  ', '   ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '\u000b', '\u0085', '\u2003', ' \n ',
  '\u0000', '\u0001', '\u001f', '\u007f', '\u200b', '\u200d', '\ufeff', '\u00ad', '\ue000', '\ufffd',
  'é', 'Å', 'ñ', 'Ü', 'İ', 'ß', 'ẞ', 'Σ', 'ς', 'ǅ', 'ﬁ', 'Ａ', 'ＡＢＣ１２３', 'ｈｅｌｌｏ', 'e\u0301', 'a\u0308o\u0308', 'ά', 'Ω', 'Ⅻ', '½', '①', '™', 'Å',
  '東', '京', '日本語のテキスト', '中文字', '𠀀', '豈', 'カタカナ', 'ひらがな', '한국어', 'ไทย', 'हिन्दी', 'עברית', 'عربي', 'Привет мир', 'Ελληνικά',
  '😀', '👍🏽', '🇫🇷', '👨‍👩‍👧', '❤️', '☕', '🫠', '🏳️‍🌈',
  '<s>', '</s>', '<pad>', '<unk>', '<mask>', ' <mask>', '[MASK]', '[CLS]', '[SEP]', '[PAD]', '[UNK]', '[mask]', '<mask',
];
function makeTexts(seed, count) {
  const random = mulberry32(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  function piece() {
    const r = random();
    if (r < 0.25) return pick(corpusLines);
    if (r < 0.29) return pick(['a', 'é', 'z', 'x', '東', 'ab']).repeat(20 + Math.floor(random() * 110));
    if (r < 0.36) {
      let w = '';
      const n = 1 + Math.floor(random() * 14);
      for (let i = 0; i < n; i++) w += String.fromCharCode((random() < 0.3 ? 65 : 97) + Math.floor(random() * 26));
      return w;
    }
    return pick(PIECES);
  }
  function text() {
    let s = '';
    const n = Math.floor(random() * 12);
    for (let i = 0; i < n; i++) s += piece() + (random() < 0.6 ? ' ' : '');
    return s;
  }
  const cases = [];
  for (let i = 0; i < count; i++) {
    const c = { text: text() };
    if (random() < 0.3) c.pair = text();
    if (random() < 0.1) c.add = false;
    if (random() < 0.3) {
      c.max = 6 + Math.floor(random() * 40);
      c.strategy = c.pair ? pick(['LongestFirst', 'LongestFirst', 'OnlyFirst', 'OnlySecond']) : 'LongestFirst';
      c.dir = random() < 0.5 ? 'left' : 'right';
      c.stride = random() < 0.5 ? Math.floor(random() * 4) : 0;
      // The library panics (aborting the process) when the stride reaches a sequence's share of
      // max_length; a pair's share can be 1 token, so pairs get a stride only when it stays below.
      if (c.pair && (c.strategy !== 'LongestFirst' || c.max < 2 * c.stride + 10)) c.stride = 0;
    }
    cases.push(c);
  }
  return cases;
}

// The newer, smaller fixtures keep ids and offsets only (tokens: false); the first five keep token strings too.
function record(e, tokens = true) {
  const r = { ids: e.getIds(), types: e.getTypeIds(), attn: e.getAttentionMask(), special: e.getSpecialTokensMask(),
    offsets: e.getOffsets().flat() };
  if (tokens) r.tokens = e.getTokens();
  return r;
}

async function fixture(name, json, seed, count = 2200, tokens = true) {
  const text = JSON.stringify(json);
  const tok = Tokenizer.fromString(text); // the library's own loader checks the file
  fs.writeFileSync(path.join(out, name + '.tokenizer.json'), text);
  const lines = [];
  for (const c of makeTexts(seed, count)) {
    if (c.max) tok.setTruncation(c.max, { strategy: c.strategy, direction: c.dir, stride: c.stride });
    else tok.disableTruncation();
    let line;
    try {
      const e = await tok.encode(c.text, c.pair ?? null, { addSpecialTokens: c.add ?? true });
      line = { ...c, ...record(e, tokens), overflow: e.getOverflowing().map((o) => record(o, tokens)),
        decoded: await tok.decode(e.getIds(), true) };
    } catch (err) {
      line = { ...c, error: String(err.message ?? err).split('\n')[0] };
    }
    lines.push(JSON.stringify(line));
  }
  fs.writeFileSync(path.join(out, name + '.expected.jsonl.gz'), zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }));
  console.log(name, lines.length, 'cases');
}

await fixture('wordpiece-trained', committed('wordpiece-trained') ?? wordPiece(), 27001);
const roberta = committed('bpe-roberta') ?? bpeRoberta();
await fixture('bpe-roberta', roberta, 27002);
await fixture('unigram-xlmr', committed('unigram-xlmr') ?? unigramXlmr(null), 27003);
// A sentencepiece .model stores float32 scores, and the library reads tokenizer.json floats with
// serde_json's best-effort parser (up to an ulp off). Scores rounded to multiples of 2^-10 are float32
// values whose short decimals every reader gets exactly, so this fixture's tokenizer.json and its
// .model (written below) hold the very same scores; unigram-xlmr keeps the trainer's own doubles.
const xlmr = committed('unigram-xlmr-precompiled') ?? unigramXlmr(charsmap(RULES));
xlmr.model.vocab = xlmr.model.vocab.map(([p, score]) => [p, Math.round(score * 1024) / 1024]);
await fixture('unigram-xlmr-precompiled', xlmr, 27004);
const minilm = ARGS[0] ? JSON.parse(fs.readFileSync(ARGS[0], 'utf8')) : committed('minilm');
if (minilm) await fixture('minilm', minilm, 27005);
// bge-small-en-v1.5's and e5-small-v2's tokenizer.json (langchain4j's jars; the two files are byte-identical) differ
// from all-MiniLM-L6-v2's only in having no truncation or padding section: they get texts of their own.
const bgeE5 = ARGS[1] ? JSON.parse(fs.readFileSync(ARGS[1], 'utf8')) : committed('bge-e5');
if (bgeE5) await fixture('bge-e5', bgeE5, 27007);

const extra = await import('./pipeline-extra.mjs');
extra.legacyFiles({ out, roberta, xlmr });
await fixture('unigram-camembert', extra.camembert(xlmr), 27006, 300, false);
const saved = (name) => JSON.parse(fs.readFileSync(path.join(out, name + '.tokenizer.json'), 'utf8'));
for (const [name, json, seed] of extra.stageTokenizers({ committed, saved, trained, corpusLines, tk, base, added })) {
  await fixture(name, json, seed, 300, false);
}
