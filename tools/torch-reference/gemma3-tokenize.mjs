// Tokenizer side of make_gemma3_fixtures.py: Hugging Face's tokenizers library (its Node binding, npm package
// "tokenizers", 0.23.2) run once per call. The Python script writes one JSON request on stdin and reads one JSON
// answer on stdout:
//
//   {"op": "encode", "file": "tokenizer.json", "save": "/tmp/x.json" | null,
//    "batches": [{"name": ..., "inputs": ["text" | ["a", "b"], ...]}]}
//                                               -> {"batches": [{"name", "encodings": [enc, ...]}], "vocab_size"}
//
// "encode" loads the file with Tokenizer.fromFile, and encodes every batch the way transformers' tokenizer(texts,
// padding=True) does with a fast tokenizer: each input (a text, or a pair [a, b]) with special tokens and no
// truncation, then every encoding padded to the batch's longest with the library's Encoding.pad (right side, pad id
// and token of "<pad>" read from the file's added tokens, pad type id 0), which is what its BatchLongest padding
// runs. Each encoding is {ids, type_ids, attention_mask, special_tokens_mask, tokens, offsets}; tokens are the
// Encoding's own tokens. With "save", the loaded tokenizer is written back with Tokenizer.save, so the caller can
// check that the library read every field of the file the way it was meant.
//
// The library is found with Node's CommonJS resolution from this file, so NODE_PATH works:
//   mkdir -p /tmp/gemma3-npm && (cd /tmp/gemma3-npm && npm install tokenizers@0.23.2)
//   NODE_PATH=/tmp/gemma3-npm/node_modules node gemma3-tokenize.mjs < request.json
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
    case 'encode': {
      const tokenizer = tk.Tokenizer.fromFile(req.file);
      const json = JSON.parse(fs.readFileSync(req.file, 'utf8'));
      const pad = json.added_tokens.find((t) => t.content === '<pad>');
      tokenizer.disableTruncation();
      const batches = [];
      for (const b of req.batches) {
        const encodings = [];
        for (const x of b.inputs) {
          const [a, pair] = Array.isArray(x) ? x : [x, null];
          encodings.push(await tokenizer.encode(a, pair, { addSpecialTokens: true }));
        }
        const longest = Math.max(...encodings.map((e) => e.getLength()));
        const padding = { padId: pad.id, padToken: pad.content, padTypeId: 0, direction: 'right' };
        for (const e of encodings) e.pad(longest, padding);
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
