// Tokenizer side of make_jinabert_fixtures.py: Hugging Face's tokenizers library (its Node binding, npm package
// "tokenizers", 0.23.2) loads the small BERT-uncased WordPiece tokenizer.json the script writes and encodes every test
// text and text pair, so every input id of the JinaBERT fixtures comes from the library itself. One JSON request on
// stdin, one JSON answer on stdout:
//
//   request: {"tokenizer": "/path/tokenizer.json", "save": "/path/saved.json" | null,
//             "inputs": [{"text": "...", "pair": null | "..."}, ...]}
//   answer:  {"version": "0.23.2", "vocab_size": n, "encodings": [{ids, type_ids, attention_mask,
//             special_tokens_mask, offsets, tokens}, ...]}   (one per input, same order)
//
// Each input is encoded with addSpecialTokens true and with padding and truncation disabled, as transformers' fast
// tokenizer does for one text or pair; make_jinabert_fixtures.py pads the batches itself (right, [PAD] = 0, type 0,
// mask 0), which is what padding=True does. vocab_size is getVocabSize(true) (added tokens included). With "save"
// the loaded tokenizer is written back with Tokenizer.save, so the caller can check the library read every field.
//
// The library is found with Node's CommonJS resolution, so NODE_PATH works:
//   mkdir -p /tmp/jinabert-npm && (cd /tmp/jinabert-npm && npm install tokenizers@0.23.2)
//   NODE_PATH=/tmp/jinabert-npm/node_modules node jinabert-tokenize.mjs < request.json
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tk = require('tokenizers');
const version = require('tokenizers/package.json').version;

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
