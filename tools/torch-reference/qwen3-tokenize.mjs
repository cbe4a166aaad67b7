// Tokenizer side of make_qwen3_fixtures.py: Hugging Face's tokenizers library (its Node binding, npm package
// "tokenizers", 0.23.2) run once per call. The Python script writes one JSON request on stdin and reads one JSON
// answer on stdout:
//
//   {"op": "alphabet"}                          -> {"alphabet": [256 strings]}   byteLevelAlphabet(), the ByteLevel
//                                                  pre-tokenizer's 256 byte characters
//   {"op": "encode", "file": "tokenizer.json", "save": "/tmp/x.json" | null, "pad": "<|endoftext|>",
//    "batches": [{"name": ..., "side": "left" | "right" | null, "special": true | false,
//                 "inputs": ["text" | ["a", "b"] | {"parts": ["p", "t", "s"]}, ...]}]}
//                                               -> {"batches": [{"name", "encodings": [enc, ...]}], "vocab_size"}
//
// "encode" loads the file with Tokenizer.fromFile and encodes every input without truncation: a text or a pair
// [a, b] with addSpecialTokens = "special" (default true), as transformers' tokenizer(texts) does with a fast
// tokenizer; {"parts": [prefix, body, suffix]} as Qwen3-Reranker's model card builds its inputs: prefix and suffix
// encoded with addSpecialTokens false, the body with addSpecialTokens true (tokenizer(pairs, ...) in the card),
// and the three id lists concatenated (the library's mergeEncodings, no re-tokenization across the joins). With a
// "side", every encoding of the batch is then padded to the batch's longest with the library's Encoding.pad (pad id
// and token of "pad" from the file's added tokens, pad type id 0) on that side, which is what BatchLongest padding
// runs. Each encoding is {ids, type_ids, attention_mask, special_tokens_mask, tokens, offsets}. With "save", the
// loaded tokenizer is written back with Tokenizer.save, so the caller can check that the library read every field of
// the file the way it was meant.
//
// The library is found with Node's CommonJS resolution from this file, so NODE_PATH works:
//   mkdir -p /tmp/qwen3-npm && (cd /tmp/qwen3-npm && npm install tokenizers@0.23.2)
//   NODE_PATH=/tmp/qwen3-npm/node_modules node qwen3-tokenize.mjs < request.json
// and ../tokenizer-reference/node_modules (tools/tokenizer-reference's npm ci, the same version) is tried after it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

function load() {
  try {
    return require('tokenizers');
  } catch (first) {
    try {
      return require(path.join(here, '../tokenizer-reference/node_modules/tokenizers'));
    } catch {
      throw new Error('npm package "tokenizers" not found: set NODE_PATH to the node_modules holding it ('
        + String(first?.message ?? first).split('\n')[0] + ')');
    }
  }
}

const tk = load();

function record(e) {
  return {
    ids: e.getIds(),
    type_ids: e.getTypeIds(),
    attention_mask: e.getAttentionMask(),
    special_tokens_mask: e.getSpecialTokensMask(),
    tokens: e.getTokens(),
    offsets: e.getOffsets(),
  };
}

async function handle(req) {
  switch (req.op) {
    case 'alphabet':
      return { alphabet: tk.byteLevelAlphabet() };
    case 'encode': {
      const tokenizer = tk.Tokenizer.fromFile(req.file);
      const json = JSON.parse(fs.readFileSync(req.file, 'utf8'));
      const pad = json.added_tokens.find((t) => t.content === req.pad);
      tokenizer.disableTruncation();
      const batches = [];
      for (const b of req.batches) {
        const encodings = [];
        const special = b.special ?? true;
        for (const x of b.inputs) {
          if (x !== null && typeof x === 'object' && !Array.isArray(x)) {
            const [prefix, body, suffix] = x.parts;
            const parts = [await tokenizer.encode(prefix, null, { addSpecialTokens: false }),
              await tokenizer.encode(body, null, { addSpecialTokens: true }),
              await tokenizer.encode(suffix, null, { addSpecialTokens: false })];
            encodings.push(tk.mergeEncodings(parts, false));
          } else {
            const [a, pair] = Array.isArray(x) ? x : [x, null];
            encodings.push(await tokenizer.encode(a, pair, { addSpecialTokens: special }));
          }
        }
        if (b.side) {
          const longest = Math.max(...encodings.map((e) => e.getLength()));
          const padding = { padId: pad.id, padToken: pad.content, padTypeId: 0, direction: b.side };
          for (const e of encodings) e.pad(longest, padding);
        }
        batches.push({ name: b.name, encodings: encodings.map(record) });
      }
      if (req.save) tokenizer.save(req.save, true);
      return { batches, vocab_size: tokenizer.getVocabSize(true) };
    }
    default:
      throw new Error('unknown op ' + req.op);
  }
}

const input = fs.readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify(await handle(JSON.parse(input))) + '\n');
