// Word ids (the tokenizers library's Encoding.word_ids) of the parity fixtures' texts, encoded alone with no
// special tokens, truncation or padding: the reference for Tokenizer.wordIds, which the question-answering
// pipeline uses to widen answers to whole words. Run: node make-word-ids.mjs  (writes <name>.word-ids.jsonl.gz
// beside each fixture; the first 400 texts of each).
import tk from 'tokenizers';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const { Tokenizer } = tk;
const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.resolve(here, '../../tokenizer/src/test/resources/pipeline');
const NAMES = ['minilm', 'wordpiece-trained', 'bpe-roberta', 'unigram-xlmr', 'unigram-xlmr-precompiled', 'stages-llama',
  'stages-splits'];

for (const name of NAMES) {
  const json = JSON.parse(fs.readFileSync(path.join(dir, name + '.tokenizer.json'), 'utf8'));
  json.truncation = null;
  json.padding = null;
  const tok = Tokenizer.fromString(JSON.stringify(json));
  const texts = zlib.gunzipSync(fs.readFileSync(path.join(dir, name + '.expected.jsonl.gz'))).toString('utf8')
    .split('\n').filter((l) => l).map((l) => JSON.parse(l)).filter((c) => c.pair == null).map((c) => c.text);
  const seen = new Set();
  const lines = [];
  for (const text of texts) {
    if (seen.has(text) || lines.length >= 400) continue;
    seen.add(text);
    const e = await tok.encode(text, null, { addSpecialTokens: false });
    lines.push(JSON.stringify({ text, tokens: e.getTokens(), word_ids: e.getWordIds() }));
  }
  fs.writeFileSync(path.join(dir, name + '.word-ids.jsonl.gz'), zlib.gzipSync(lines.join('\n') + '\n'));
  console.log(name, lines.length, 'texts');
}
