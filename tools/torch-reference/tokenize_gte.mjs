// Tokenizer side of make_gte_fixtures.py: Hugging Face's tokenizers library (its Node binding, npm package
// "tokenizers") loads a tokenizer.json and encodes texts and text pairs, so every input id of the GTE ("new")
// fixtures comes from the library itself. The library is found through NODE_PATH (the script passes it on):
//
//   mkdir -p /tmp/gte-npm && cd /tmp/gte-npm && npm install tokenizers@0.23.2
//   NODE_PATH=/tmp/gte-npm/node_modules node tokenize_gte.mjs < request.json > answer.json
//
// request: {"tokenizer": "/path/tokenizer.json", "inputs": [{"text": "...", "pair": null | "..."}, ...]}
// answer:  {"version": "0.23.2", "encodings": [{ids, type_ids, attention_mask, special_tokens_mask, offsets,
//           tokens, vocab_tokens}, ...]}  (one per input, same order)
// tokens are the Encoding's own tokens, vocab_tokens are idToToken(id). Each input is encoded with addSpecialTokens
// true and with padding and truncation disabled, as transformers' fast tokenizer does when called on one text or
// pair; make_gte_fixtures.py pads the batches itself (right side, the tokenizer's pad id, type id 0).
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url); // CommonJS resolution, so NODE_PATH is honoured
const tk = require('tokenizers');
const version = require('tokenizers/package.json').version;

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const tokenizer = tk.Tokenizer.fromString(fs.readFileSync(request.tokenizer, 'utf8'));
tokenizer.disablePadding();
tokenizer.disableTruncation();

const encodings = [];
for (const input of request.inputs) {
  const e = await tokenizer.encode(input.text, input.pair ?? null, { addSpecialTokens: true });
  const ids = e.getIds();
  encodings.push({
    ids,
    type_ids: e.getTypeIds(),
    attention_mask: e.getAttentionMask(),
    special_tokens_mask: e.getSpecialTokensMask(),
    offsets: e.getOffsets(),
    tokens: e.getTokens(),
    vocab_tokens: ids.map((id) => tokenizer.idToToken(id)),
  });
}
process.stdout.write(JSON.stringify({ version, encodings }) + '\n');
