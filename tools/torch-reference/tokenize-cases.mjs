// Tokenizer side of make_pipeline_fixtures.py: Hugging Face's tokenizers library (its Node binding, installed by
// tools/tokenizer-reference: cd ../tokenizer-reference && npm ci) run as a JSON-lines server. The Python script
// starts it, writes one request a line on stdin and reads one answer a line on stdout:
//
//   {"op": "load", "name": "bert", "file": "/path/tokenizer.json"}            -> {"ok": true}
//   {"op": "encode", "name": "bert", "text": "...", "pair": null | "...",
//    "truncation": null | {"max_length": 128, "strategy": "LongestFirst" | "OnlySecond" | "OnlyFirst",
//                          "stride": 0},
//    "word_chars": false}                                                      -> {"encodings": [main, ...overflowing]}
//                                                                                 or {"error": "..."}
//   {"op": "decode", "name": "bert", "tokens": ["##a", ...]}                   -> {"text": "..."}  (decoder.decode)
//   {"op": "check_offsets"}                                                    -> {"ok": true} or {"error": "..."}
//
// Every encoding is {ids, type_ids, attention_mask, special_tokens_mask, offsets, word_ids, sequence_ids, tokens}
// where tokens are id_to_token(id) (what transformers' convert_ids_to_tokens returns; an added token's Encoding
// token can differ, e.g. " <mask>" with lstrip), and with word_chars also word_chars[i] = word_to_chars(
// token_to_word(i), sequence_ids[i]) (null for special tokens). Offsets are the library's character offsets: Unicode
// code points of the input, like Python string indices (check_offsets verifies that on non-BMP text).
// Padding is always disabled and truncation is disabled unless asked for, as transformers does at every call.
//
// Overflowing windows. Since tokenizers 0.23.1 (huggingface/tokenizers#1990, reported as #2091, fix #2098 still open
// at 0.23.2, the version here) an encode with right-direction truncation stops tokenizing once max_length tokens
// exist, so Encoding.overflowing is empty or stops short (a text of 120 tokens with max_length 12, stride 2 gives one
// overflow window instead of fourteen). transformers' question-answering and strided token-classification pipelines read those
// windows, and they were written for (and until 0.22.2 got) all of them. So truncating requests are built the
// pre-0.23.1 way from the library's own pieces: each sequence is encoded whole by a copy of the tokenizer without
// post-processor, cut with the library's Encoding.truncate (max_length less the special tokens, stride, right), and
// every window goes through the real tokenizer's postProcess (special tokens, type ids, sequence ids, RoBERTa's
// offset trimming). A request with nothing to cut is a plain encode; otherwise the first window must equal the first
// window of the library's own truncating encode (the early exit only loses overflow), else the answer is an error. Only LongestFirst (a single sequence, or a pair with stride 0: no windows are
// used), OnlySecond and OnlyFirst (a pair with stride 0: zero-shot classification) truncation are supported.
// The library aborts the process (a Rust panic) when a stride is not below the truncated sequence's share of
// max_length; such requests are refused here with an error instead, and so are too-short second sequences.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tk = (await import(path.join(here, '../tokenizer-reference/node_modules/tokenizers/index.js'))).default;

const tokenizers = new Map();

function record(tokenizer, e, wordChars) {
  const ids = e.getIds();
  const sequenceIds = e.getSequenceIds().map((s) => (s === undefined ? null : s));
  const wordIds = e.getWordIds().map((w) => (w === undefined ? null : w));
  const r = {
    ids,
    type_ids: e.getTypeIds(),
    attention_mask: e.getAttentionMask(),
    special_tokens_mask: e.getSpecialTokensMask(),
    offsets: e.getOffsets(),
    word_ids: wordIds,
    sequence_ids: sequenceIds,
    tokens: ids.map((id) => tokenizer.idToToken(id)),
  };
  if (wordChars) {
    r.word_chars = ids.map((_, i) => {
      const word = e.tokenToWord(i);
      if (word === null || word === undefined || sequenceIds[i] === null) return null;
      const chars = e.wordToChars(word, sequenceIds[i]);
      return chars ? [chars[0], chars[1]] : null;
    });
  }
  return r;
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameEncoding(x, y) {
  return same(x.getIds(), y.getIds()) && same(x.getTypeIds(), y.getTypeIds()) && same(x.getOffsets(), y.getOffsets())
    && same(x.getWordIds(), y.getWordIds()) && same(x.getSequenceIds(), y.getSequenceIds())
    && same(x.getSpecialTokensMask(), y.getSpecialTokensMask()) && same(x.getAttentionMask(), y.getAttentionMask());
}

async function encode(req) {
  const { real, raw } = tokenizers.get(req.name);
  real.disablePadding();
  real.disableTruncation();
  const plain = await real.encode(req.text, req.pair ?? null, { addSpecialTokens: true });
  const trunc = req.truncation;
  if (!trunc || plain.getLength() <= trunc.max_length) {
    return { encodings: [record(real, plain, req.word_chars)] };
  }
  const a = await raw.encode(req.text, null, { addSpecialTokens: false });
  const b = req.pair == null ? null : await raw.encode(req.pair, null, { addSpecialTokens: false });
  const specials = plain.getLength() - a.getLength() - (b ? b.getLength() : 0);
  let windows;
  if (b === null && trunc.strategy === 'LongestFirst') {
    const share = trunc.max_length - specials;
    if (share <= 0) return { error: 'max_length too small' };
    if (trunc.stride >= share) return { error: `stride ${trunc.stride} >= share ${share}` };
    a.truncate(share, trunc.stride, 'right');
    windows = [a, ...a.getOverflowing()].map((w) => real.postProcess(w, null, true));
  } else if (b !== null && trunc.strategy === 'OnlySecond') {
    const share = trunc.max_length - specials - a.getLength();
    if (share <= 0) return { error: 'second sequence too short to be truncated' };
    if (trunc.stride >= share) return { error: `stride ${trunc.stride} >= share ${share}` };
    b.truncate(share, trunc.stride, 'right');
    windows = [b, ...b.getOverflowing()].map((w) => real.postProcess(a, w, true));
  } else if (b !== null && trunc.strategy === 'OnlyFirst' && trunc.stride === 0) {
    // the zero-shot pipeline's ONLY_FIRST: the premise is cut, the hypothesis kept whole (no windows used)
    const share = trunc.max_length - specials - b.getLength();
    if (share <= 0) return { error: 'first sequence too short to be truncated' };
    a.truncate(share, 0, 'right');
    windows = [real.postProcess(a, b, true)];
  } else if (b !== null && trunc.strategy === 'LongestFirst' && trunc.stride === 0) {
    // tokenizers' truncate_encodings, LongestFirst with a pair (max_length less the special tokens)
    const max = trunc.max_length - specials;
    let n1 = a.getLength();
    let n2 = b.getLength();
    const swap = n1 > n2;
    if (swap) [n1, n2] = [n2, n1];
    n2 = n1 > max ? n1 : Math.max(n1, max - n1);
    if (n1 + n2 > max) {
      n1 = Math.floor(max / 2);
      n2 = n1 + (max % 2);
    }
    if (swap) [n1, n2] = [n2, n1];
    a.truncate(n1, 0, 'right');
    b.truncate(n2, 0, 'right');
    windows = [real.postProcess(a, b, true)];
  } else {
    return { error: 'unsupported truncation ' + JSON.stringify(trunc) };
  }
  real.setTruncation(trunc.max_length, { strategy: trunc.strategy, direction: 'right', stride: trunc.stride });
  const library = await real.encode(req.text, req.pair ?? null, { addSpecialTokens: true });
  real.disableTruncation();
  if (!sameEncoding(library, windows[0])) return { error: 'first window differs from the library\'s truncating encode' };
  return { encodings: windows.map((w) => record(real, w, req.word_chars)) };
}

async function checkOffsets() {
  // "a😀 bé 東京 x": code points a=0 😀=1 ' '=2 b=3 é=4 ' '=5 東=6 京=7 ' '=8 x=9; UTF-16 would put x at 10.
  const t = tokenizers.get('bert').real;
  t.disablePadding();
  t.disableTruncation();
  const e = await t.encode('a😀 bé 東京 x', null, { addSpecialTokens: true });
  const got = JSON.stringify(e.getOffsets());
  const want = JSON.stringify([[0, 0], [0, 2], [3, 5], [6, 7], [7, 8], [9, 10], [0, 0]]);
  return got === want ? { ok: true } : { error: 'offsets ' + got + ' are not code points ' + want };
}

async function handle(req) {
  try {
    switch (req.op) {
      case 'load': {
        const json = fs.readFileSync(req.file, 'utf8');
        const rawJson = { ...JSON.parse(json), post_processor: null, truncation: null, padding: null };
        tokenizers.set(req.name, { real: tk.Tokenizer.fromString(json), raw: tk.Tokenizer.fromString(JSON.stringify(rawJson)) });
        return { ok: true };
      }
      case 'encode':
        return await encode(req);
      case 'decode':
        return { text: tokenizers.get(req.name).real.getDecoder().decode(req.tokens) };
      case 'check_offsets':
        return await checkOffsets();
      default:
        return { error: 'unknown op ' + req.op };
    }
  } catch (err) {
    return { error: String(err?.message ?? err).split('\n')[0] };
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  process.stdout.write(JSON.stringify(await handle(JSON.parse(line))) + '\n');
}
