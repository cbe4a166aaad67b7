// Tokenizer side of make_nomicbert_fixtures.py: Hugging Face's tokenizers library (its Node binding, npm package
// "tokenizers", 0.23.2) loads a tokenizer.json and encodes texts and text pairs, so every input id of the NomicBERT
// fixtures comes from the library itself. The Python script writes one JSON request on stdin and reads one answer:
//
//   request: {"tokenizer": "/path/tokenizer.json", "save": "/tmp/x.json" | null,
//             "inputs": [{"text": "...", "pair": null | "..."}, ...]}
//   answer:  {"version": "0.23.2", "vocab_size": n, "encodings": [{ids, type_ids, attention_mask,
//             special_tokens_mask, offsets, tokens}, ...]}   (one per input, same order)
//
// Each input is encoded with addSpecialTokens true and with padding and truncation disabled, as transformers' fast
// tokenizer does when called on one text or pair; make_nomicbert_fixtures.py pads the batches itself (right, [PAD] =
// 0, token type 0, attention mask 0). With "save", the loaded tokenizer is written back with Tokenizer.save, so the
// caller can check that the library read every field of the file the way it was meant.
//
// The library is found with Node's CommonJS resolution from this file, so NODE_PATH works:
//   mkdir -p /tmp/nomicbert-npm && (cd /tmp/nomicbert-npm && npm install tokenizers@0.23.2)
//   NODE_PATH=/tmp/nomicbert-npm/node_modules node tokenize_nomicbert.mjs < request.json
// and ../tokenizer-reference/node_modules (tools/tokenizer-reference's npm ci, the same version) is tried after it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

function load(name) {
  try {
    return require(name);
  } catch (first) {
    try {
      return require(path.join(here, '../tokenizer-reference/node_modules', name));
    } catch {
      throw new Error('npm package "tokenizers" not found: set NODE_PATH to the node_modules holding it ('
        + String(first?.message ?? first).split('\n')[0] + ')');
    }
  }
}

const tk = load('tokenizers');
const version = load('tokenizers/package.json').version;

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const tokenizer = tk.Tokenizer.fromFile(request.tokenizer);
tokenizer.disablePadding();
tokenizer.disableTruncation();

const encodings = [];
for (const input of request.inputs) {
  const e = await tokenizer.encode(input.text, input.pair ?? null, { addSpecialTokens: true });
  encodings.push({
    ids: e.getIds(),
    type_ids: e.getTypeIds(),
    attention_mask: e.getAttentionMask(),
    special_tokens_mask: e.getSpecialTokensMask(),
    offsets: e.getOffsets(),
    tokens: e.getTokens(),
  });
}
if (request.save) tokenizer.save(request.save, true);
process.stdout.write(JSON.stringify({ version, vocab_size: tokenizer.getVocabSize(true), encodings }) + '\n');
