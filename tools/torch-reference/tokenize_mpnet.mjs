// Tokenizer side of make_mpnet_fixtures.py: Hugging Face's tokenizers library (its Node binding, npm package
// "tokenizers") loads a tokenizer.json and encodes texts and text pairs, so every input id of the MPNet fixtures comes
// from the library itself. The library is found through NODE_PATH (the script passes it on):
//
//   mkdir -p /tmp/mpnet-npm && cd /tmp/mpnet-npm && npm install tokenizers@0.23.2
//   NODE_PATH=/tmp/mpnet-npm/node_modules node tokenize_mpnet.mjs < request.json > answer.json
//
// request: {"tokenizer": "/path/tokenizer.json", "inputs": [{"text": "...", "pair": null | "..."}, ...]}
// answer:  {"version": "0.23.2", "encodings": [{ids, type_ids, attention_mask, special_tokens_mask, offsets,
//           tokens, vocab_tokens}, ...]}  (one per input, same order)
// tokens are the Encoding's own tokens (an added token with lstrip can carry the space it swallowed), vocab_tokens
// are idToToken(id). Offsets are the library's character offsets into the text of their sequence (code points).
// Each input is encoded with addSpecialTokens true and with padding and truncation disabled, as transformers' fast
// tokenizer does when called on one text or pair; make_mpnet_fixtures.py pads the batches itself (right, <pad> = 1).
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
