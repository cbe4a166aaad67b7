// Token ids for the sentence-transformers reference, from Hugging Face's tokenizers library (the
// Rust code sentence-transformers' fast tokenizers run), independently of vectorbert's tokenizer.
//
//   node tokenize.mjs TOKENIZER_JSON < requests.json > ids.json
//
// requests.json: [{"text": "...", "max_length": 256}, ...]. Each text is encoded with special
// tokens, truncated to max_length tokens (special tokens included) as sentence-transformers asks
// the tokenizer to, without padding: the file's own truncation and padding settings are replaced.
import tk from 'tokenizers';
import fs from 'node:fs';

const { Tokenizer } = tk;
const tokenizer = Tokenizer.fromFile(process.argv[2]);
tokenizer.disablePadding();
const requests = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = [];
for (const r of requests) {
  tokenizer.setTruncation(r.max_length);
  const e = await tokenizer.encode(r.text);
  out.push(e.getIds());
}
process.stdout.write(JSON.stringify(out));
