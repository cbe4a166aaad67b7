// Part of make-pipeline-fixtures.mjs: the legacy files written from the trained fixtures, a
// CamemBERT-layout Unigram, and small tokenizers that use the stages the five main fixtures do not.
import fs from 'node:fs';
import path from 'node:path';

// ---- protobuf (proto2 wire format) for sentencepiece's ModelProto ----
function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n)); // int32 -1 is written as ten bytes, as protobuf does
  const bytes = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    bytes.push(b);
  } while (v);
  return Buffer.from(bytes);
}
const key = (field, wire) => varint((field << 3) | wire);
const bytesField = (field, buf) => Buffer.concat([key(field, 2), varint(buf.length), buf]);
const intField = (field, n) => Buffer.concat([key(field, 0), varint(n)]);
function floatField(field, f) {
  const b = Buffer.alloc(4);
  b.writeFloatLE(f);
  return Buffer.concat([key(field, 5), b]);
}

/** pieces: [piece, score, type] (type NORMAL 1, UNKNOWN 2, CONTROL 3). */
export function sentencePieceModel(pieces, charsmapBase64) {
  const parts = pieces.map(([p, score, type]) => bytesField(1, Buffer.concat([
    bytesField(1, Buffer.from(p, 'utf8')), floatField(2, score), intField(3, type)])));
  const trainer = Buffer.concat([intField(3, 1), intField(4, pieces.length), intField(40, 0), intField(41, 1),
    intField(42, 2), intField(43, -1)]);
  const normalizer = Buffer.concat([bytesField(1, Buffer.from('nmt_nfkc')),
    bytesField(2, Buffer.from(charsmapBase64 ?? '', 'base64')), intField(3, 1), intField(4, 1), intField(5, 1)]);
  return Buffer.concat([...parts, bytesField(2, trainer), bytesField(3, normalizer)]);
}

/** The spm pieces behind an XLM-R-layout vocabulary: <unk>, <s>, </s>, then the pieces after XLM-R's four. */
function spmPieces(xlmr) {
  const vocab = xlmr.model.vocab;
  return [['<unk>', 0, 2], ['<s>', 0, 3], ['</s>', 0, 3],
    ...vocab.slice(4, vocab.length - 1).map(([p, score]) => [p, score, 1])];
}

export function legacyFiles({ out, roberta, xlmr }) {
  const config = (extra) => JSON.stringify({ bos_token: '<s>', eos_token: '</s>', sep_token: '</s>', cls_token: '<s>',
    unk_token: '<unk>', pad_token: '<pad>', mask_token: { content: '<mask>', lstrip: true, rstrip: false,
      normalized: false, single_word: false, special: true }, model_max_length: 512, ...extra });
  const bpeDir = path.join(out, 'legacy-roberta');
  fs.mkdirSync(bpeDir, { recursive: true });
  fs.writeFileSync(path.join(bpeDir, 'vocab.json'), JSON.stringify(roberta.model.vocab));
  fs.writeFileSync(path.join(bpeDir, 'merges.txt'),
    '#version: 0.2\n' + roberta.model.merges.map((m) => (Array.isArray(m) ? m.join(' ') : m)).join('\n') + '\n');
  fs.writeFileSync(path.join(bpeDir, 'tokenizer_config.json'),
    config({ tokenizer_class: 'RobertaTokenizer', add_prefix_space: false, trim_offsets: true }));

  const charsmap = xlmr.normalizer.normalizers.find((n) => n.type === 'Precompiled')?.precompiled_charsmap;
  const model = sentencePieceModel(spmPieces(xlmr), charsmap);
  for (const [dir, cls] of [['legacy-xlmr', 'XLMRobertaTokenizer'], ['legacy-camembert', 'CamembertTokenizer']]) {
    fs.mkdirSync(path.join(out, dir), { recursive: true });
    fs.writeFileSync(path.join(out, dir, 'sentencepiece.bpe.model'), model);
    fs.writeFileSync(path.join(out, dir, 'tokenizer_config.json'), config({ tokenizer_class: cls }));
  }
}

/** CamembertConverter's layout of the same spm pieces: fairseq offset 4, <unk>NOTUSED at -100, <mask> last. */
export function camembert(xlmr) {
  const j = structuredClone(xlmr);
  const pieces = spmPieces(xlmr);
  const vocab = [['<s>NOTUSED', 0], ['<pad>', 0], ['</s>NOTUSED', 0], ['<unk>', 0], ['<unk>NOTUSED', -100],
    ...pieces.slice(1).map(([p, score]) => [p, score]), ['<mask>', 0]];
  j.model = { type: 'Unigram', unk_id: 3, vocab, byte_fallback: false };
  const id = (p) => vocab.findIndex(([q]) => q === p);
  const added = (content, extra = {}) => ({ id: id(content), content, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: true, ...extra });
  j.added_tokens = ['<s>NOTUSED', '<pad>', '</s>NOTUSED', '<unk>', '<unk>NOTUSED', '<s>', '</s>'].map((t) => added(t));
  j.added_tokens.push(added('<mask>', { lstrip: true }));
  j.post_processor.special_tokens['<s>'].ids = [id('<s>')];
  j.post_processor.special_tokens['</s>'].ids = [id('</s>')];
  return j;
}

// ---- a small BPE trainer of our own for end_of_word_suffix (the npm binding's train() takes no options) ----
function suffixBpe(lines, merges) {
  const counts = new Map();
  for (const l of lines) {
    for (const w of l.normalize('NFKD').toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const words = [...counts].map(([w, n]) => {
    const chars = [...w];
    chars[chars.length - 1] += '</w>';
    return [chars, n];
  });
  const vocab = { '<pad>': 0, '<unk>': 1, '[CLS]': 2, '[SEP]': 3 };
  for (const [chars] of words) for (const c of chars) if (!(c in vocab)) vocab[c] = Object.keys(vocab).length;
  const rules = [];
  for (let k = 0; k < merges; k++) {
    const pairs = new Map();
    for (const [chars, n] of words) {
      for (let i = 0; i + 1 < chars.length; i++) {
        const p = chars[i] + ' ' + chars[i + 1];
        pairs.set(p, (pairs.get(p) ?? 0) + n);
      }
    }
    let best = null;
    for (const [p, n] of pairs) if (!best || n > best[1] || (n === best[1] && p < best[0])) best = [p, n];
    if (!best) break;
    const [a, b] = best[0].split(' ');
    rules.push([a, b]);
    if (!((a + b) in vocab)) vocab[a + b] = Object.keys(vocab).length;
    for (const w of words) {
      const c = w[0];
      const merged = [];
      for (let i = 0; i < c.length; i++) {
        if (i + 1 < c.length && c[i] === a && c[i + 1] === b) { merged.push(a + b); i++; } else merged.push(c[i]);
      }
      w[0] = merged;
    }
  }
  // Whole words the merges do not build: ignore_merges looks the word up as it is (without the
  // suffix, as bpe/model.rs does) and takes it as one token, where merges would give pieces.
  for (const w of ['xylophonist', 'tokenization', 'unbelievable', 'running', 'the', 'license']) {
    if (!(w in vocab)) vocab[w] = Object.keys(vocab).length;
  }
  return { vocab, merges: rules };
}

const byteTokens = () => Array.from({ length: 256 }, (_, b) => '<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>');

export function* stageTokenizers({ committed, saved, trained, corpusLines, tk, base, added }) {
  // Llama's layout: Prepend + Replace instead of a pre-tokenizer, BPE with byte_fallback and fuse_unk,
  // and the Replace / ByteFallback / Fuse / Strip decoders; NFD first so accents become bytes.
  let llama = committed('stages-llama');
  if (!llama) {
    const m = trained(tk.BPE.empty(), tk.metaspacePreTokenizer());
    const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
    for (const b of byteTokens()) vocab[b] = Object.keys(vocab).length;
    for (const [t] of Object.entries(m.vocab).sort((x, y) => x[1] - y[1])) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
    llama = base({ type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges: m.merges.map((x) => (Array.isArray(x) ? x : x.split(' '))) });
    llama.added_tokens = [added(0, '<unk>', true), added(1, '<s>', true), added(2, '</s>', true)];
    llama.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'Prepend', prepend: '▁' },
      { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] };
    const s = (id, type_id = 0) => ({ SpecialToken: { id, type_id } });
    llama.post_processor = { type: 'TemplateProcessing', single: [s('<s>'), { Sequence: { id: 'A', type_id: 0 } }],
      pair: [s('<s>'), { Sequence: { id: 'A', type_id: 0 } }, s('</s>'), { Sequence: { id: 'B', type_id: 1 } }, s('</s>', 1)],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] }, '</s>': { id: '</s>', ids: [2], tokens: ['</s>'] } } };
    llama.decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' },
      { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] };
  }
  yield ['stages-llama', llama, 27101];

  // end_of_word_suffix, ignore_merges and the BPEDecoder; NFKD + Lowercase, Whitespace + Digits; fixed padding.
  let suffix = committed('stages-suffix');
  if (!suffix) {
    const { vocab, merges } = suffixBpe(corpusLines, 600);
    suffix = base({ type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null,
      end_of_word_suffix: '</w>', fuse_unk: false, byte_fallback: false, ignore_merges: true, vocab, merges });
    suffix.added_tokens = [added(0, '<pad>', true), added(1, '<unk>', true), added(2, '[CLS]', true), added(3, '[SEP]', true)];
    suffix.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'Lowercase' }] };
    suffix.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, { type: 'Digits', individual_digits: true }] };
    suffix.post_processor = { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] };
    suffix.decoder = { type: 'BPEDecoder', suffix: '</w>' };
    suffix.padding = { strategy: { Fixed: 48 }, direction: 'Right', pad_to_multiple_of: null, pad_id: 0, pad_type_id: 0,
      pad_token: '<pad>' };
  }
  yield ['stages-suffix', suffix, 27102];

  // Unigram with byte_fallback; NFC + Strip; Punctuation, WhitespaceSplit, Metaspace "first"; no post-processor.
  let unigram = committed('stages-unigram-bytes');
  if (!unigram) {
    const xlmr = saved('unigram-xlmr');
    const vocab = [...xlmr.model.vocab, ...byteTokens().map((b) => [b, 0])];
    unigram = base({ type: 'Unigram', unk_id: 3, vocab, byte_fallback: true });
    unigram.added_tokens = xlmr.added_tokens;
    unigram.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Strip', strip_left: true, strip_right: true }] };
    unigram.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'Punctuation', behavior: 'MergedWithPrevious' },
      { type: 'WhitespaceSplit' }, { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true }] };
    unigram.decoder = { type: 'Sequence', decoders: [{ type: 'ByteFallback' },
      { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true }] };
  }
  yield ['stages-unigram-bytes', unigram, 27103];

  // Every Split behaviour (and invert) before Whitespace; NFKC + Lowercase; left padding to a multiple of 8.
  let splits = committed('stages-splits');
  if (!splits) {
    const wp = saved('wordpiece-trained');
    splits = structuredClone(wp);
    splits.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] };
    const split = (pattern, behavior, invert = false) => ({ type: 'Split', pattern, behavior, invert });
    splits.pre_tokenizer = { type: 'Sequence', pretokenizers: [split({ String: '-' }, 'Removed'),
      split({ Regex: '[,;]' }, 'Isolated'), split({ String: '.' }, 'MergedWithPrevious'),
      split({ String: "'" }, 'MergedWithNext'), split({ String: '!' }, 'Contiguous'),
      split({ Regex: '\\d+' }, 'MergedWithNext', true), { type: 'Whitespace' }] };
    splits.padding = { strategy: 'BatchLongest', direction: 'Left', pad_to_multiple_of: 8, pad_id: 0, pad_type_id: 0,
      pad_token: '[PAD]' };
  }
  yield ['stages-splits', splits, 27104];
}
