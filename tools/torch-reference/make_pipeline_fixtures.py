#!/usr/bin/env python3
"""Reference fixtures for transformers' task pipelines (text-classification, token-classification, question-answering,
zero-shot-classification) and for CrossEncoder / TEI reranking, computed independently of vectorbert.

    cd tools/tokenizer-reference && npm ci && cd ../..       # once: Hugging Face's tokenizers (Node binding)
    nice -n 19 /usr/bin/python3 tools/torch-reference/make_pipeline_fixtures.py   # no arguments; about a minute

Writes engine/src/test/resources/pipelines/ (the same bytes on every run; README.md there documents every file, the
JSON schema of each cases.jsonl line and the semantics followed). In short:

  <family>.encoder.safetensors   the shared random encoder (float16, exact HF names, prefix bert. / roberta.)
  <family>.tokenizer.json        all-MiniLM-L6-v2's WordPiece tokenizer / the trained byte-level BPE with RoBERTa's
                                 template (copies of tokenizer/src/test/resources/pipeline/{minilm,bpe-roberta}.*)
  <task>-<family>/               config.json, tokenizer_config.json, model.safetensors.index.json,
                                 model-00002-of-00002.safetensors (the head tensors only) and cases.jsonl; a test
                                 copies ../<family>.encoder.safetensors in as model-00001-of-00002.safetensors and
                                 ../<family>.tokenizer.json as tokenizer.json to get a loadable model directory.

Nothing here uses transformers or vectorbert. Tokenization is Hugging Face's tokenizers library (tokenize-cases.mjs,
a JSON-lines server over the Node binding, the Rust code transformers' fast tokenizers run); the forward pass is
make_family_fixtures.py's plain-torch encoder and heads (imported, float64, one thread); the pipeline logic
(post-processing, word aggregation, span decoding, ...) is written below from transformers' pipeline sources
(text_classification.py and token_classification.py of 4.5x, question_answering.py of 4.53,
zero_shot_classification.py of v5 main) and sentence-transformers' CrossEncoder / TEI's router, as summarised in
/work/shared/reference/tasks-and-apis.md sections 1a-1c, 2, 3, 7 (zero-shot: from the transformers source itself).

The overflowing windows of QA and strided NER are built the tokenizers <= 0.22.2 way: 0.23.1+ (the Node binding here
is 0.23.2) stops tokenizing right-truncated text at max_length and loses them (see tokenize-cases.mjs).

Numbers: the weights are drawn in float32 (numpy RandomState, as the sibling script draws them), the last linear
layer of each head standardised over seeded calibration inputs (calibrate_head), every tensor rounded to float16
for storage, and the reference is computed in float64 from exactly those float16 values; every reported score and
logit is then rounded to float32 (what transformers' float32 pipeline returns, up to its own rounding), except the QA
score of an answer merged from several spans, which is a Python float sum of float32 span scores as in the pipeline.
Cases whose outcome a float32 engine could legitimately flip (an argmax, a sort order, a top-k cut, an overlap
tie-break within 2e-5 absolute for probabilities / 1e-5 for logits, or within 1e-4 relative for QA span scores) are
dropped and the next seeded candidate taken; so every label, order, word, start and end is robust, and scores
compare with a tolerance (1e-4 is ample).
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
OUT = os.path.join(ROOT, 'engine', 'src', 'test', 'resources', 'pipelines')
TOKENIZER_SOURCES = {
    'bert': os.path.join(ROOT, 'tokenizer', 'src', 'test', 'resources', 'pipeline', 'minilm.tokenizer.json'),
    'roberta': os.path.join(ROOT, 'tokenizer', 'src', 'test', 'resources', 'pipeline', 'bpe-roberta.tokenizer.json'),
}
CORPUS_FILES = ['GPL-3', 'Apache-2.0', 'MPL-2.0', 'LGPL-2.1', 'Artistic', 'GFDL-1.3']

sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import make_family_fixtures as fam  # noqa: E402  (sets torch's default dtype to float64 and one thread)
import make_fixtures  # noqa: E402  (an independent float32 BERT forward, used only as a self-check)

HIDDEN, LAYERS, HEADS, INTERMEDIATE = 16, 2, 2, 32
MODEL_MAX_LENGTH = 128                                  # tokenizer_config.json model_max_length
MAX_POSITIONS = {'bert': 128, 'roberta': 130}           # RoBERTa positions start at pad_token_id + 1 = 2
VOCAB = {'bert': 30522, 'roberta': 5291}
SPECIAL = {'bert': dict(cls=101, sep=102, pad=0, unk=100), 'roberta': dict(cls=0, sep=2, pad=1, unk=3)}
ENCODER_SHARD = 'model-00001-of-00002.safetensors'
HEAD_SHARD = 'model-00002-of-00002.safetensors'

PROB_MARGIN = 2e-5    # probabilities / sigmoid / softmax scores: minimum gap behind any decision
LOGIT_MARGIN = 1e-5   # raw logits (function_to_apply none, reranker logits)
REL_MARGIN = 1e-4     # QA span and answer scores (products of probabilities, small): relative gap

LABELS_SEQCLS = ['NEGATIVE', 'NEUTRAL', 'POSITIVE']
LABELS_MULTI = ['toxic', 'obscene', 'insult']
LABELS_NER = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC', 'B-MISC', 'I-MISC']
# NLI heads for zero-shot classification, in id order
LABELS_NLI_DEBERTA = ['entailment', 'neutral', 'contradiction']        # MoritzLaurer's DeBERTa NLI models
LABELS_NLI_MNLI = ['CONTRADICTION', 'NEUTRAL', 'ENTAILMENT']           # roberta-large-mnli
LABELS_NLI_MIDDLE = ['neutral', 'entailment', 'contradiction']         # entailment in the middle
LABELS_NLI_BINARY = ['entailment', 'not_entailment']
# (entailment_id, the column the pipeline uses as contradiction) that the pipeline must derive from each label2id
NLI_COLUMNS = {('zeroshot', 'bert'): (0, 2), ('zeroshot', 'roberta'): (2, 0), ('zeroshot-middle', 'bert'): (1, 0),
               ('zeroshot-binary', 'bert'): (0, 1)}


def labels(names):
    return {'id2label': {str(i): n for i, n in enumerate(names)}, 'label2id': {n: i for i, n in enumerate(names)}}


class PerFamily(dict):
    """Config extras that differ by family: {family: extras}."""


# task: (families, architecture suffix, kind of head (seqcls, tokcls, qa), config extras, number of cases)
TASKS = {
    'seqcls': (('bert', 'roberta'), 'ForSequenceClassification', 'seqcls',
               dict(problem_type='single_label_classification', **labels(LABELS_SEQCLS)), 300),
    'multilabel': (('bert',), 'ForSequenceClassification', 'seqcls',
                   dict(problem_type='multi_label_classification', **labels(LABELS_MULTI)), 300),
    'rerank': (('bert', 'roberta'), 'ForSequenceClassification', 'seqcls', labels(['LABEL_0']), 100),
    'ner': (('bert', 'roberta'), 'ForTokenClassification', 'tokcls', labels(LABELS_NER), 300),
    'qa': (('bert', 'roberta'), 'ForQuestionAnswering', 'qa', {}, 300),
    # appended after the others: their seeds (enumerate(TASKS) from 7100) and so their bytes stay as they were
    'zeroshot': (('bert', 'roberta'), 'ForSequenceClassification', 'seqcls',
                 PerFamily(bert=labels(LABELS_NLI_DEBERTA), roberta=labels(LABELS_NLI_MNLI)), 40),
    'zeroshot-middle': (('bert',), 'ForSequenceClassification', 'seqcls', labels(LABELS_NLI_MIDDLE), 40),
    'zeroshot-binary': (('bert',), 'ForSequenceClassification', 'seqcls', labels(LABELS_NLI_BINARY), 40),
}


class Rejected(Exception):
    """A candidate case whose expected output is not robust to float32 rounding (or that the pipeline refuses)."""


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def f32(x):
    """The float32 nearest to x, as a Python float (what np.float32(x).item() gives)."""
    return float(np.float32(x))


# ---------------------------------------------------------------------------------------------------- tokenizers

class Tokenizers:
    """tokenize-cases.mjs as a subprocess: one JSON request a line in, one answer a line out."""

    def __init__(self):
        script = os.path.join(HERE, 'tokenize-cases.mjs')
        self.proc = subprocess.Popen(['node', script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding='utf-8', bufsize=1)
        self.decoded = {}

    def call(self, request):
        self.proc.stdin.write(json.dumps(request, ensure_ascii=True) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit('tokenize-cases.mjs died (run npm ci in tools/tokenizer-reference?)')
        return json.loads(line)

    def load(self, name, path):
        check(self.call({'op': 'load', 'name': name, 'file': path}).get('ok'), 'cannot load ' + path)

    def encode(self, name, text, pair=None, truncation=None, word_chars=False):
        """[main encoding] + overflowing ones, or raises Rejected with the library's (or the guard's) error."""
        answer = self.call({'op': 'encode', 'name': name, 'text': text, 'pair': pair, 'truncation': truncation,
                            'word_chars': word_chars})
        if 'error' in answer:
            raise Rejected(answer['error'])
        return answer['encodings']

    def decode(self, name, tokens):
        """transformers' fast convert_tokens_to_string: backend_tokenizer.decoder.decode(tokens)."""
        key = (name, tuple(tokens))
        if key not in self.decoded:
            answer = self.call({'op': 'decode', 'name': name, 'tokens': list(tokens)})
            check('text' in answer, 'decode failed: %s' % answer)
            self.decoded[key] = answer['text']
        return self.decoded[key]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def truncation(strategy='LongestFirst', stride=0):
    return {'max_length': MODEL_MAX_LENGTH, 'strategy': strategy, 'stride': stride}


# ---------------------------------------------------------------------------------------------------- models

def model_config(family, task):
    _, suffix, _, extra, _ = TASKS[task]
    if isinstance(extra, PerFamily):
        extra = extra[family]
    architecture = ('Bert' if family == 'bert' else 'Roberta') + suffix
    config = fam.make_config(family, architecture, dict(extra), VOCAB[family])
    config.update(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                  intermediate_size=INTERMEDIATE, max_position_embeddings=MAX_POSITIONS[family])
    return config


def sibling_head(family, task):
    head = TASKS[task][2]
    if head == 'seqcls':
        return 'bert-seqcls' if family == 'bert' else 'roberta-seqcls'
    return head


def to_f16_values(weights):
    """Rounded to float16 (round to nearest even) and held as float32 tensors: the values the shards store."""
    return {k: torch.from_numpy(v.numpy().astype(np.float16).astype(np.float32)) for k, v in weights.items()}


def is_encoder_tensor(family, name):
    return name.startswith(family + '.') and not name.startswith(family + '.pooler.')


def encoder_weights(family):
    """Drawn once per family with the sibling's make_weights (its head tensors are dropped)."""
    config = model_config(family, 'ner')
    drawn = fam.make_weights(family, 'tokcls', config, seed=7000 + (family == 'roberta'))
    return to_f16_values({k: v for k, v in drawn.items() if is_encoder_tensor(family, k)})


def head_weights(family, task, seed):
    config = model_config(family, task)
    drawn = fam.make_weights(family, sibling_head(family, task), config, seed)
    return to_f16_values({k: v for k, v in drawn.items() if not is_encoder_tensor(family, k)})


FINAL_LAYER = {('bert', 'seqcls'): 'classifier', ('roberta', 'seqcls'): 'classifier.out_proj',
               ('bert', 'tokcls'): 'classifier', ('roberta', 'tokcls'): 'classifier', ('bert', 'qa'): 'qa_outputs',
               ('roberta', 'qa'): 'qa_outputs'}


def calibration_logits(tok, model):
    """The head's logits over seeded calibration inputs drawn like the task's cases: [inputs or tokens, labels]."""
    family, task, rows = model.family, model.task, []
    for i in range(200):
        rng = random.Random('calibration-%s-%d' % (task, i))
        if task in ('seqcls', 'multilabel'):
            case = seqcls_case(rng, task, i)
            inp = case['input']
            text, pair = (inp['text'], inp['text_pair']) if isinstance(inp, dict) else (inp, None)
            enc = tok.encode(family, text, pair, truncation())[0]
            rows.append(model.run(enc['ids'], enc['type_ids'])[None, :])
        elif task == 'rerank':
            case = rerank_case(rng, task, i)
            for doc in case['documents'][:4]:
                enc = tok.encode(family, case['query'], doc, truncation())[0]
                rows.append(model.run(enc['ids'], enc['type_ids'])[None, :])
        elif task.startswith('zeroshot'):
            case = zeroshot_case(rng, task, 1000 + i)
            sequences = case['sequence'] if isinstance(case['sequence'], list) else [case['sequence']]
            for hypothesis in zeroshot_hypotheses(case)[:4]:
                enc = tok.encode(family, sequences[0], hypothesis, truncation('OnlyFirst'))[0]
                rows.append(model.run(enc['ids'], enc['type_ids'])[None, :])
        elif task == 'ner':
            enc = tok.encode(family, ner_case(rng, task, len(EDGE_TEXTS))['text'], None, truncation())[0]
            rows.append(model.run(enc['ids'], enc['type_ids'])[1:-1])
        else:  # qa: start and end logits of the context tokens
            case = qa_case(rng, task, i)
            enc = tok.encode(family, case['question'], case['context'], truncation('OnlySecond', 0))[0]
            start, end = model.run(enc['ids'], enc['type_ids'])
            context = [j for j, s in enumerate(enc['sequence_ids']) if s == 1]
            rows.append(np.stack([start[context], end[context]], axis=1))
    return np.concatenate(rows)


def calibrate_head(tok, family, task, encoder, head):
    """A random head on a random encoder barely varies with the input (the [CLS] state hardly moves; the token
    states share a direction), so one label would win almost everywhere. Each output of the head's last linear layer
    is standardised over seeded calibration inputs drawn like the task's cases (row j of the weight and bias j
    shifted by the mean and divided by the standard deviation of logit j), so labels, spans and rankings vary.
    For NER, O then gets the offset that makes it the argmax of half of the calibration tokens: every label occurs,
    entities are frequent, and O still splits groups."""
    logits = calibration_logits(tok, Model(family, task, encoder, head))
    mean, std = logits.mean(axis=0), logits.std(axis=0)
    name = FINAL_LAYER[(family, TASKS[task][2])]
    weight = head[name + '.weight'].double().numpy() / std[:, None]
    bias = (head[name + '.bias'].double().numpy() - mean) / std
    if task == 'ner':
        z = (logits - mean) / std
        low, high = 0.0, 4.0
        for _ in range(50):
            offset = (low + high) / 2
            shifted = z.copy()
            shifted[:, 0] += offset
            low, high = (offset, high) if (shifted.argmax(axis=1) == 0).mean() < 0.5 else (low, offset)
        bias[0] += round(offset, 2)
    calibrated = dict(head)
    calibrated.update(to_f16_values({name + '.weight': torch.from_numpy(weight),
                                     name + '.bias': torch.from_numpy(bias)}))
    return calibrated


def write_f16_safetensors(path, tensors):
    """safetensors with F16 data, names sorted, __metadata__ {"format": "pt"}; returns the data size in bytes."""
    return make_fixtures.write_safetensors(path, tensors, {'format': 'pt'}, dtype='F16', sort=True)


def tokenizer_config(family):
    if family == 'bert':
        return {'clean_up_tokenization_spaces': True, 'cls_token': '[CLS]', 'do_basic_tokenize': True,
                'do_lower_case': True, 'mask_token': '[MASK]', 'model_max_length': MODEL_MAX_LENGTH,
                'never_split': None, 'pad_token': '[PAD]', 'sep_token': '[SEP]', 'strip_accents': None,
                'tokenize_chinese_chars': True, 'tokenizer_class': 'BertTokenizer', 'unk_token': '[UNK]'}
    return {'add_prefix_space': False, 'bos_token': '<s>', 'clean_up_tokenization_spaces': True, 'cls_token': '<s>',
            'eos_token': '</s>', 'errors': 'replace',
            'mask_token': {'content': '<mask>', 'lstrip': True, 'normalized': False, 'rstrip': False,
                           'single_word': False, 'special': True},
            'model_max_length': MODEL_MAX_LENGTH, 'pad_token': '<pad>', 'sep_token': '</s>',
            'tokenizer_class': 'RobertaTokenizer', 'trim_offsets': True, 'unk_token': '<unk>'}


class Model:
    """One task model: config, the float16-valued weights (encoder + head), and a cached float64 forward."""

    def __init__(self, family, task, encoder, head):
        self.family, self.task = family, task
        self.config = model_config(family, task)
        self.head = head
        self.w = {k: v.double() for k, v in dict(encoder, **head).items()}
        self.cache = {}

    def run(self, ids, type_ids=None):
        """The head's outputs for one unpadded sequence, float64 numpy (logits [labels] or [len, labels], or
        start/end logits [len]). RoBERTa gets no token types (its tokenizer returns none; type vocabulary 1)."""
        types = tuple(type_ids) if (type_ids is not None and self.family == 'bert') else (0,) * len(ids)
        key = (tuple(ids), types)
        if key not in self.cache:
            check(len(ids) <= MODEL_MAX_LENGTH, 'sequence of %d tokens' % len(ids))
            with torch.no_grad():
                t_ids = torch.tensor([list(ids)])
                hidden = fam.encoder(self.family, self.config, self.w, t_ids, torch.ones_like(t_ids),
                                     torch.tensor([list(types)]))
                out = fam.heads_forward(self.family, sibling_head(self.family, self.task), self.config, self.w,
                                        hidden)
            if self.task == 'qa':
                self.cache[key] = (out['start_logits'][0].numpy(), out['end_logits'][0].numpy())
            else:
                self.cache[key] = out['logits'][0].numpy()
        return self.cache[key]


# ---------------------------------------------------------------------------------------------------- texts

def corpus():
    lines = []
    for name in CORPUS_FILES:
        with open('/usr/share/common-licenses/' + name, encoding='utf-8') as f:
            lines += [' '.join(line.split()) for line in f]
    lines = [line for line in lines if line]
    return lines, ' '.join(lines).split(' ')


LINES, WORDS = corpus()
NAMES = ['John Smith', 'Marie Curie', 'Paris', 'New York', 'Ada Lovelace', 'Berlin', 'Mount Everest', 'Amazon',
         'Barack Obama', 'Rio de Janeiro', "O'Neil", 'McDonald', 'al-Khwārizmī', 'Jean-Baptiste', 'Los Angeles',
         'Microsoft', 'Nakamura Hiroshi', 'Angela Merkel', 'Lake Geneva', 'the Free Software Foundation']
ACCENTED = ['naïve', 'Café', 'déjà vu', 'Zürich', 'São Paulo', 'Málaga', 'Dvořák', 'Björk', 'façade', 'crème brûlée',
            'Ångström', 'İstanbul', 'straße', 'ÉCOLE', 'e\u0301cole', 'a\u0308o\u0308', 'Łódź', 'Øresund']
CJK = ['東京', '日本語のテキスト', '中文字', '北京大学', 'カタカナ', 'ひらがな', '한국어', '𠀀', '豈', '東京タワー']
SCRIPTS = ['Привет мир', 'Ελληνικά', 'עברית', 'عربي', 'ไทย', 'हिन्दी', 'Ωmega']
EMOJI = ['😀', '👍🏽', '🇫🇷', '👨\u200d👩\u200d👧', '❤️', '☕', '🫠', '🏳️\u200d🌈', '🧑🏾\u200d💻', '🎉🎉']
SPACES = ['  ', '   ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2003', ' \n ', '\u200b', '\n\n']
PUNCT = ['.', ',', '!', '?', ';', ':', '-', '—', '…', '"', "'", '(', ')', '[', ']', '$', '%', '&', '«', '»', '¿',
         '·', '/', '!!', '...']
NUMBERS = ['42', '3.14', '1,000', '2024-01-15', '10:30', '#1', '50%', '123,456.78', '0x1F']
MISC = ['https://example.com/a?b=c', 'e-mail@host.org', "don't", "it's", "we'll", "I'M", 'ﬁ', 'Ａ', 'ＡＢＣ１２３',
        '½', '①', '™', 'Ⅻ', '\u00ad', '\ufeff', '\u0001', '\u007f', 'x' * 120, 'Supercalifragilisticexpialidocious']
LITERALS = ['[MASK]', '[UNK]', '[CLS]', '[SEP]', '[PAD]', '<s>', '</s>', '<pad>', '<unk>', '<mask>', ' <mask>']

EDGE_TEXTS = ['', ' ', '   ', 'a', 'A', '.', '😀', '👨\u200d👩\u200d👧', '東京', '[UNK]', '<unk>', '\n', '\t\t', 'e\u0301',
              'ﬁ', 'John', 'John Smith lives in New York.', 'naïve café', 'ＡＢＣ１２３', 'a😀b', 'Hello,world!!',
              'a' * 130, "don't stop", '123,456.78', 'https://example.com/a?b=c', 'Paris  Berlin\tRome\nMadrid',
              '  leading and trailing  ', 'İstanbul ŁÓDŹ Øresund', '🇫🇷🇩🇪 flags', '[CLS] literal [SEP] tokens']


def pick(rng, items):
    return items[int(rng.random() * len(items))]


def corpus_words(rng, n):
    start = int(rng.random() * (len(WORDS) - n))
    return ' '.join(WORDS[start:start + n])


def corpus_lines(rng, n, joiner=' '):
    start = int(rng.random() * (len(LINES) - n))
    return joiner.join(LINES[start:start + n])


def mixed_text(rng, units, literals=True, exotic=1.0):
    """units pieces: mostly consecutive license words, names, accents, CJK, other scripts, emoji, punctuation,
    numbers, odd characters (and special-token literals when allowed), joined by a space or odd whitespace."""
    parts = []
    for _ in range(units):
        r = rng.random()
        if r < 1 - 0.5 * exotic:
            parts.append(corpus_words(rng, 1 + int(rng.random() * 8)))
        elif r < 1 - 0.38 * exotic:
            parts.append(pick(rng, NAMES))
        elif r < 1 - 0.30 * exotic:
            parts.append(pick(rng, ACCENTED))
        elif r < 1 - 0.25 * exotic:
            parts.append(pick(rng, CJK))
        elif r < 1 - 0.22 * exotic:
            parts.append(pick(rng, SCRIPTS))
        elif r < 1 - 0.17 * exotic:
            parts.append(pick(rng, EMOJI))
        elif r < 1 - 0.10 * exotic:
            parts.append(pick(rng, PUNCT))
        elif r < 1 - 0.06 * exotic:
            parts.append(pick(rng, NUMBERS))
        elif r < 1 - 0.03 * exotic or not literals:
            parts.append(pick(rng, MISC))
        else:
            parts.append(pick(rng, LITERALS))
    out = ''
    for i, p in enumerate(parts):
        if i:
            r = rng.random()
            out += ' ' if r < 0.8 else ('' if r < 0.88 else pick(rng, SPACES))
        out += p
    return out


def free_text(rng, literals=True, allow_long=True):
    r = rng.random()
    if r < 0.03:
        return pick(rng, EDGE_TEXTS)
    if r < 0.15:
        return mixed_text(rng, 1 + int(rng.random() * 3), literals)
    if r < 0.62:
        return mixed_text(rng, 3 + int(rng.random() * 12), literals)
    if r < 0.86 or not allow_long:
        return mixed_text(rng, 12 + int(rng.random() * 14), literals)
    # long: over the 128-token maximum
    return corpus_words(rng, 100 + int(rng.random() * 150)) + ' ' + mixed_text(rng, 5 + int(rng.random() * 20),
                                                                              literals)


# ---------------------------------------------------------------------------------------------------- decisions

def gaps_ok(values, margin):
    """Sorted descending, every adjacent gap at least margin (an order that float32 noise cannot flip)."""
    v = sorted(values, reverse=True)
    return all(a - b >= margin for a, b in zip(v, v[1:]))


def softmax64(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def argmax_robust(p, margin=PROB_MARGIN):
    i = int(np.argmax(p))
    others = np.delete(p, i)
    if len(others) and p[i] - others.max() < margin:
        raise Rejected('argmax near-tie')
    return i


# ---------------------------------------------------------------------------------------------------- text-classification

def text_classification(model, tok, case):
    """TextClassificationPipeline.__call__(case['input'], **case['kwargs']) (1a)."""
    family, kwargs, inp = model.family, case['kwargs'], case['input']
    text, pair = (inp['text'], inp['text_pair']) if isinstance(inp, dict) else (inp, None)
    enc = tok.encode(family, text, pair, truncation() if kwargs.get('truncation') else None)[0]
    if len(enc['ids']) > MODEL_MAX_LENGTH:
        raise Rejected('longer than the model and not truncated')  # transformers would fail in the embeddings
    logits = model.run(enc['ids'], enc['type_ids'])
    config = model.config
    fn = kwargs.get('function_to_apply')
    if fn is None:
        num_labels = len(config['id2label'])
        if config.get('problem_type') == 'regression':
            fn = 'none'
        elif config.get('problem_type') == 'multi_label_classification' or num_labels == 1:
            fn = 'sigmoid'
        elif config.get('problem_type') == 'single_label_classification' or num_labels > 1:
            fn = 'softmax'
        else:
            fn = 'none'
    fn = fn.lower()  # ClassificationFunction[function_to_apply.upper()]
    if fn == 'softmax':
        scores, margin = softmax64(logits), PROB_MARGIN
    elif fn == 'sigmoid':
        scores, margin = 1.0 / (1.0 + np.exp(-logits)), PROB_MARGIN
    else:
        scores, margin = logits, LOGIT_MARGIN
    if not gaps_ok(list(scores), margin):
        raise Rejected('score near-tie')
    id2label = config['id2label']
    legacy = 'top_k' not in kwargs
    if legacy:
        i = int(np.argmax(scores))
        result = {'label': id2label[str(i)], 'score': f32(scores[i])}
        output = [result] if isinstance(inp, str) else result
    else:
        items = [{'label': id2label[str(i)], 'score': f32(s)} for i, s in enumerate(scores)]
        order = sorted(range(len(items)), key=lambda i: -scores[i])  # stable; no ties (checked)
        items = [items[i] for i in order]
        if kwargs['top_k'] is not None:
            items = items[:kwargs['top_k']]
        output = items
    return {'n_tokens': len(enc['ids']), 'logits': [f32(x) for x in logits], 'output': output}


def seqcls_case(rng, task, index):
    if rng.random() < 0.08:
        text = corpus_words(rng, 110 + int(rng.random() * 150))  # long: only with truncation=True
        inp = text if rng.random() < 0.6 else {'text': text, 'text_pair': mixed_text(rng, 2 + int(rng.random() * 10))}
        kwargs = {'truncation': True}
    else:
        text = free_text(rng, allow_long=False)
        inp = {'text': text, 'text_pair': free_text(rng, allow_long=False)} if rng.random() < 0.3 else text
        kwargs = {}
    r = rng.random()
    if r < 0.25:
        pass  # top_k not passed: legacy output
    elif r < 0.5:
        kwargs['top_k'] = None
    else:
        kwargs['top_k'] = pick(rng, [1, 1, 2, 2, 3, 3, 5, 0])
    if rng.random() >= 0.4:
        kwargs['function_to_apply'] = pick(rng, ['softmax', 'sigmoid', 'none', 'softmax', 'sigmoid', 'none',
                                                 'SOFTMAX', 'Sigmoid', 'NONE'])
    return {'input': inp, 'kwargs': kwargs}


# ---------------------------------------------------------------------------------------------------- rerank

def rerank(model, tok, case):
    """CrossEncoder.predict / rank (section 2) and TEI /rerank (section 3) for one query and its documents.
    Each pair is tokenized as (query, document) with truncation=True (longest_first at model_max_length 128)."""
    ids, logits = [], []
    for doc in case['documents']:
        enc = tok.encode(model.family, case['query'], doc, truncation())[0]
        ids.append(tuple(enc['ids']))
        logits.append(float(model.run(enc['ids'], enc['type_ids'])[0]))
    sigmoid = [1.0 / (1.0 + np.exp(-x)) for x in logits]
    order = sorted(range(len(logits)), key=lambda i: -logits[i])
    for a, b in zip(order, order[1:]):
        if ids[a] != ids[b] and (logits[a] - logits[b] < LOGIT_MARGIN or sigmoid[a] - sigmoid[b] < 2e-6):
            raise Rejected('rerank near-tie')
    logits32 = [f32(x) for x in logits]
    scores32 = [f32(x) for x in sigmoid]  # TEI (and CrossEncoder's default for 1 label): sigmoid, float32
    # TEI: ranks.sort_by(score ascending) (stable) then reverse -> equal scores in descending index order.
    tei = sorted(range(len(scores32)), key=lambda i: scores32[i])[::-1]
    # CrossEncoder.rank: sorted(results, key=score, reverse=True) (stable) -> equal scores in ascending index order.
    ce = sorted(range(len(scores32)), key=lambda i: scores32[i], reverse=True)
    return {'n_tokens': [len(x) for x in ids], 'logits': logits32, 'scores': scores32,
            'tei_rerank': [{'index': i, 'score': scores32[i]} for i in tei],
            'ce_rank': [{'corpus_id': i, 'score': scores32[i]} for i in ce]}


def rerank_case(rng, task, index):
    r = rng.random()
    if r < 0.5:
        query = corpus_words(rng, 2 + int(rng.random() * 10))
    elif r < 0.8:
        query = mixed_text(rng, 1 + int(rng.random() * 4), literals=False)
    else:
        query = pick(rng, NAMES) + '?'
    query = query.strip() or 'query'
    n = 1 + int(rng.random() * 20)
    docs = []
    for _ in range(n):
        r = rng.random()
        if r < 0.03 and docs:
            docs.append(pick(rng, docs))                # an exact duplicate: an exact tie
        elif r < 0.05 and docs:
            docs.append(pick(rng, docs).upper())        # the BERT tokenizer lowercases: often an exact tie there
        elif r < 0.065:
            docs.append('')
        elif r < 0.15:
            docs.append(corpus_words(rng, 95 + int(rng.random() * 40)))   # over 128 tokens: truncated (longest_first)
        else:
            docs.append(mixed_text(rng, 1 + int(rng.random() * 12), literals=False).strip())
    return {'query': query, 'documents': docs}


# ---------------------------------------------------------------------------------------------------- token-classification

class Ner:
    """TokenClassificationPipeline (1b): gather_pre_entities, aggregate, aggregate_words, group_entities,
    aggregate_overlapping_entities, as in transformers' token_classification.py."""

    def __init__(self, model, tok):
        self.model, self.tok, self.family = model, tok, model.family
        self.id2label = model.config['id2label']
        self.unk = SPECIAL[self.family]['unk']

    def label(self, i):
        return self.id2label[str(i)]

    def decode(self, tokens):
        return self.tok.decode(self.family, tokens)

    def __call__(self, text, strategy, stride, chunks_probs):
        """pipe(text, aggregation_strategy=strategy[, stride=stride]); strategy None = not passed (NONE)."""
        agg = strategy or 'none'
        if stride is not None and strategy == 'none':
            return {'error': 'ValueError'}  # explicit "none" with a stride
        all_entities = []
        for enc, probs in chunks_probs:
            pre = self.gather_pre_entities(text, enc, probs)
            if agg in ('none', 'simple'):
                entities = []
                for p in pre:
                    i = argmax_robust(p['scores'])
                    entities.append({'entity': self.label(i), 'score': f32(p['scores'][i]), 'score64': p['scores'][i],
                                     'index': p['index'], 'word': p['word'], 'start': p['start'], 'end': p['end']})
            else:
                entities = self.aggregate_words(pre, agg)
            if agg != 'none':
                entities = self.group_entities(entities)
            all_entities += [e for e in entities if e.get('entity') != 'O' and e.get('entity_group') != 'O']
        if len(chunks_probs) > 1:
            all_entities = self.aggregate_overlapping_entities(all_entities)
        return [{k: v for k, v in e.items() if k != 'score64'} for e in all_entities]

    def gather_pre_entities(self, text, enc, probs):
        pre = []
        for idx in range(len(enc['ids'])):
            if enc['special_tokens_mask'][idx]:
                continue
            word = enc['tokens'][idx]  # convert_ids_to_tokens
            start, end = enc['offsets'][idx]
            word_ref = text[start:end]
            if self.family == 'bert':  # the model has a continuing_subword_prefix ("##")
                is_subword = len(word) != len(word_ref)
            else:  # fallback heuristic
                is_subword = start > 0 and ' ' not in text[start - 1:start + 1]
            if enc['ids'][idx] == self.unk:
                word = word_ref
                is_subword = False
            pre.append({'word': word, 'scores': probs[idx], 'start': start, 'end': end, 'index': idx,
                        'is_subword': is_subword})
        return pre

    def aggregate_word(self, entities, agg):
        word = self.decode([e['word'] for e in entities])
        if agg == 'first':
            scores = entities[0]['scores']
            i = argmax_robust(scores)
            score = scores[i]
        elif agg == 'max':
            maxes = [e['scores'].max() for e in entities]
            best = int(np.argmax(maxes))  # max(): the first maximal entity
            for j, m in enumerate(maxes):
                if j != best and maxes[best] - m < PROB_MARGIN:
                    raise Rejected('max-strategy near-tie')
            scores = entities[best]['scores']
            i = argmax_robust(scores)
            score = scores[i]
        elif agg == 'average':
            # np.nanmean over the float32 probability vectors; here the float64 mean of the float32 values
            average = np.mean(np.stack([np.float32(e['scores']).astype(np.float64) for e in entities]), axis=0)
            i = argmax_robust(average)
            score = average[i]
        else:
            raise ValueError(agg)
        return {'entity': self.label(i), 'score': f32(score), 'score64': float(score), 'word': word,
                'start': entities[0]['start'], 'end': entities[-1]['end']}

    def aggregate_words(self, pre, agg):
        words, group = [], None
        for p in pre:
            if group is None:
                group = [p]
            elif p['is_subword']:
                group.append(p)
            else:
                words.append(self.aggregate_word(group, agg))
                group = [p]
        if group is not None:
            words.append(self.aggregate_word(group, agg))
        return words

    @staticmethod
    def get_tag(name):
        if name.startswith('B-'):
            return 'B', name[2:]
        if name.startswith('I-'):
            return 'I', name[2:]
        return 'I', name

    def group_sub_entities(self, entities):
        scores32 = [e['score'] for e in entities]
        mean = f32(np.mean(np.array(scores32, dtype=np.float64)))  # np.nanmean of float32 scores
        return {'entity_group': entities[0]['entity'].split('-', 1)[-1], 'score': mean,
                'score64': float(np.mean([e['score64'] for e in entities])),
                'word': self.decode([e['word'] for e in entities]),
                'start': entities[0]['start'], 'end': entities[-1]['end']}

    def group_entities(self, entities):
        groups, current = [], []
        for e in entities:
            if not current:
                current.append(e)
                continue
            bi, tag = self.get_tag(e['entity'])
            _, last_tag = self.get_tag(current[-1]['entity'])
            if tag == last_tag and bi != 'B':
                current.append(e)
            else:
                groups.append(self.group_sub_entities(current))
                current = [e]
        if current:
            groups.append(self.group_sub_entities(current))
        return groups

    @staticmethod
    def aggregate_overlapping_entities(entities):
        if not entities:
            return entities
        entities = sorted(entities, key=lambda x: x['start'])  # stable
        out, previous = [], entities[0]
        for e in entities:
            if previous['start'] <= e['start'] < previous['end']:
                current_length = e['end'] - e['start']
                previous_length = previous['end'] - previous['start']
                if current_length > previous_length:
                    previous = e
                elif current_length == previous_length:
                    if e is not previous and abs(e['score64'] - previous['score64']) < PROB_MARGIN:
                        raise Rejected('overlap score near-tie')
                    if e['score'] > previous['score']:
                        previous = e
            else:
                out.append(previous)
                previous = e
        out.append(previous)
        return out


def ner_run(model, tok, case):
    ner = Ner(model, tok)
    text, stride = case['text'], case['stride']
    if stride is None:
        chunks = tok.encode(model.family, text, None, truncation())[:1]  # truncation=True, no overflow returned
    else:
        chunks = tok.encode(model.family, text, None, truncation(stride=stride))  # return_overflowing_tokens
    chunks_probs = [(enc, softmax64(model.run(enc['ids'], enc['type_ids']))) for enc in chunks]
    strategies = ['none', 'simple', 'first', 'average', 'max'] + ([None] if stride is not None else [])
    outputs = {}
    for s in strategies:
        outputs['default' if s is None else s] = ner(text, s, stride, chunks_probs)
    return {'n_tokens': [len(enc['ids']) for enc in chunks], 'outputs': outputs}


def ner_case(rng, task, index):
    """Mostly short texts (the outputs list every other token five times over: the file size); 2.5% over the
    128-token maximum (truncated) and 3.5% run with a stride over 2 or 3 windows."""
    if index < len(EDGE_TEXTS):
        return {'text': EDGE_TEXTS[index], 'stride': None}
    r = rng.random()
    if r < 0.035:
        text = corpus_words(rng, 85 + int(rng.random() * 30)) + ' ' + mixed_text(rng, 2 + int(rng.random() * 4))
        return {'text': text, 'stride': pick(rng, [0, 8, 16, 32, 64, 100])}
    if r < 0.06:
        return {'text': corpus_words(rng, 95 + int(rng.random() * 10)) + ' ' + mixed_text(rng, 3), 'stride': None}
    r = rng.random()
    units = 1 + int(rng.random() * 2) if r < 0.45 else (2 + int(rng.random() * 3) if r < 0.9 else
                                                       4 + int(rng.random() * 3))
    return {'text': mixed_text(rng, units), 'stride': None}


# ---------------------------------------------------------------------------------------------------- question-answering

def question_answering(model, tok, case):
    """QuestionAnsweringPipeline(question=, context=, **kwargs), fast-tokenizer path of transformers 4.53 (1c)."""
    family = model.family
    q, context, kwargs = case['question'], case['context'], case['kwargs']
    top_k = kwargs.get('top_k', 1)
    max_answer_len = kwargs.get('max_answer_len', 15)
    handle_impossible = kwargs.get('handle_impossible_answer', False)
    align = kwargs.get('align_to_words', True)
    max_seq_len = min(MODEL_MAX_LENGTH, 384)
    doc_stride = kwargs.get('doc_stride', min(max_seq_len // 2, 128))
    windows = tok.encode(family, q, context, {'max_length': max_seq_len, 'strategy': 'OnlySecond',
                                              'stride': doc_stride}, word_chars=True)
    cls = SPECIAL[family]['cls']
    pre_topk = top_k * 2 + 10 if align else top_k
    min_null_score = 1000000
    answers = []
    for w, enc in enumerate(windows):
        n = len(enc['ids'])
        start_logits, end_logits = model.run(enc['ids'], enc['type_ids'])
        p_mask = [1 if s != 1 else 0 for s in enc['sequence_ids']]
        for i, token in enumerate(enc['ids']):
            if token == cls:
                p_mask[i] = 0
        allowed = np.array([(1 - p) & a for p, a in zip(p_mask, enc['attention_mask'])])
        start = softmax64(np.where(allowed == 0, -10000.0, start_logits))
        end = softmax64(np.where(allowed == 0, -10000.0, end_logits))
        start32, end32 = np.float32(start), np.float32(end)
        if handle_impossible:
            min_null_score = min(min_null_score, float(np.float32(start32[0] * end32[0])))
        start[0] = end[0] = 0.0
        start32[0] = end32[0] = 0.0
        # decode_spans: outer product, 0 <= end - start <= max_answer_len - 1, top pre_topk, then keep spans whose
        # start and end are allowed (np.isin against undesired_tokens.nonzero(), which also lets index 0 in).
        candidates = []
        for s in range(n):
            if not allowed[s] or start32[s] == 0:
                continue
            for e in range(s, min(n, s + max_answer_len)):
                if allowed[e] and end32[e] != 0:
                    candidates.append((float(np.float32(start32[s] * end32[e])), start[s] * end[e], s, e))
        candidates.sort(key=lambda c: -c[1])
        head = [c[1] for c in candidates[:pre_topk + 1]]
        if any(a - b < REL_MARGIN * a for a, b in zip(head, head[1:])):
            raise Rejected('span score near-tie')
        if len(candidates) < pre_topk and w != len(windows) - 1:
            # zero-score spans fill the top-k here, in an order numpy does not define, before later windows
            raise Rejected('zero-score spans in a window before the last')
        for score32, score64, s, e in candidates[:pre_topk]:
            if align:
                start_index, end_index = enc['word_chars'][s][0], enc['word_chars'][e][1]
            else:
                start_index, end_index = enc['offsets'][s][0], enc['offsets'][e][1]
            target = context[start_index:end_index]
            found = next((a for a in answers if a['answer'].lower() == target.lower()), None)
            if found:
                found['score'] += score32
                found['score64'] += score64
            else:
                answers.append({'score': score32, 'start': start_index, 'end': end_index, 'answer': target,
                                'score64': score64})
    zero_filled = len(candidates) < pre_topk
    if handle_impossible:
        answers.append({'score': min_null_score, 'start': 0, 'end': 0, 'answer': '', 'score64': min_null_score})
    if zero_filled and len(answers) < top_k:
        raise Rejected('zero-score spans would reach the output')
    answers = sorted(answers, key=lambda a: a['score'], reverse=True)
    head = [a['score64'] for a in answers[:top_k + 1]]
    if any(a - b < REL_MARGIN * a for a, b in zip(head, head[1:])):
        raise Rejected('answer score near-tie')
    answers = [{k: a[k] for k in ('score', 'start', 'end', 'answer')} for a in answers[:top_k]]
    output = answers[0] if len(answers) == 1 else answers
    return {'n_windows': len(windows), 'output': output}


def qa_question(rng):
    r = rng.random()
    if r < 0.4:
        return pick(rng, ['What is ', 'Who ', 'Where is ', 'Why does ', 'How ', 'When ']) \
            + corpus_words(rng, 2 + int(rng.random() * 8)) + '?'
    if r < 0.7:
        return 'Who is ' + pick(rng, NAMES) + '?'
    if r < 0.9:
        return mixed_text(rng, 1 + int(rng.random() * 5), literals=False).strip() or 'What?'
    return corpus_words(rng, 20 + int(rng.random() * 25))  # a long question: fewer context tokens per window


def qa_context(rng):
    r = rng.random()
    if r < 0.05:
        return pick(rng, ['Paris', 'John Smith', 'naïve café', '東京 is big', 'Hello, world!', 'a😀b c', 'yes',
                          'The licence is free.'])
    if r < 0.35:
        text = corpus_lines(rng, 1 + int(rng.random() * 6), pick(rng, [' ', '\n', '  ']))
    elif r < 0.7:
        text = corpus_lines(rng, 6 + int(rng.random() * 15), pick(rng, [' ', '\n', ' ']))
    else:
        text = corpus_lines(rng, 20 + int(rng.random() * 15), pick(rng, [' ', '\n']))
    # sprinkle names, accents, CJK, emoji and odd spaces into the context
    words = text.split(' ')
    for _ in range(int(rng.random() * 6)):
        at = int(rng.random() * (len(words) + 1))
        words.insert(at, mixed_text(rng, 1, literals=False, exotic=1.0) if rng.random() < 0.7 else pick(rng, NAMES))
    return ' '.join(words)


def qa_case(rng, task, index):
    kwargs = {}
    if rng.random() < 0.6:
        kwargs['top_k'] = pick(rng, [1, 2, 3, 3])
    if rng.random() < 0.35:
        kwargs['max_answer_len'] = pick(rng, [1, 2, 3, 5, 30])
    if rng.random() < 0.35:
        kwargs['doc_stride'] = pick(rng, [0, 16, 32, 50, 100])
    if rng.random() < 0.35:
        kwargs['handle_impossible_answer'] = rng.random() < 0.8
    if rng.random() < 0.2:
        kwargs['align_to_words'] = rng.random() < 0.2
    return {'question': qa_question(rng), 'context': qa_context(rng), 'kwargs': kwargs}


# ---------------------------------------------------------------------------------------------------- self-checks

def self_checks(tok, models):
    check(tok.call({'op': 'check_offsets'}).get('ok'), 'the Node binding does not return code-point offsets')
    report = []
    for family in ('bert', 'roberta'):
        ner = models[(family, 'ner')]
        texts = ['John Smith lives in New York.', 'naïve café 東京 😀', corpus_words(random.Random(5), 90),
                 'a', "Don't stop, ŁÓDŹ!"]
        encs = [tok.encode(family, t, None, truncation())[0] for t in texts]
        length = max(len(e['ids']) for e in encs)
        pad = SPECIAL[family]['pad']
        case = {'name': 'selfcheck',
                'input_ids': [e['ids'] + [pad] * (length - len(e['ids'])) for e in encs],
                'attention_mask': [[1] * len(e['ids']) + [0] * (length - len(e['ids'])) for e in encs]}
        if family == 'bert':
            case['token_type_ids'] = [e['type_ids'] + [0] * (length - len(e['type_ids'])) for e in encs]
        with torch.no_grad():
            out = fam.run(family, 'tokcls', ner.config, ner.w, case)
            # the sibling's second implementation (torch.nn.TransformerEncoderLayer); it exits on a difference
            fam.check_against_torch_layers(family, ner.config, ner.w, case, out['last_hidden_state'])
        # the padded batch at real positions equals what Model.run computes for each sequence alone
        for r, e in enumerate(encs):
            alone = ner.run(e['ids'], e['type_ids'])
            diff = np.abs(out['logits'][r, :len(e['ids'])].numpy() - alone).max()
            check(diff < 1e-9, '%s padded and unpadded logits differ by %g' % (family, diff))
        # an independent float32 forward (make_fixtures.forward, BERT's; RoBERTa through it with the position table
        # shifted by pad_token_id + 1 and the names renamed): how far float32 lands from this float64 reference
        worst = 0.0
        for task in ('seqcls', 'ner', 'qa'):
            m = models[(family, task)]
            w32 = {k.replace('roberta.', 'bert.', 1): v.float() for k, v in m.w.items()}
            if family == 'roberta':
                w32['bert.embeddings.position_embeddings.weight'] = w32['bert.embeddings.position_embeddings.weight'][2:]
            for e in encs:
                ids = torch.tensor([e['ids']])
                types = torch.tensor([e['type_ids'] if family == 'bert' else [0] * len(e['ids'])])
                with torch.no_grad():
                    hidden, _ = make_fixtures.forward(w32, m.config, ids, types, torch.ones_like(ids), pooler=False)
                    lin = lambda x, p: x @ w32[p + '.weight'].T + w32[p + '.bias']
                    if task == 'seqcls':
                        if family == 'bert':
                            got = lin(torch.tanh(lin(hidden[:, 0], 'bert.pooler.dense')), 'classifier')[0]
                        else:
                            got = lin(torch.tanh(lin(hidden[:, 0], 'classifier.dense')), 'classifier.out_proj')[0]
                        want = m.run(e['ids'], e['type_ids'])
                    elif task == 'ner':
                        got, want = lin(hidden, 'classifier')[0], m.run(e['ids'], e['type_ids'])
                    else:
                        got = lin(hidden, 'qa_outputs')[0].T
                        want = np.stack(m.run(e['ids'], e['type_ids']))
                diff = np.abs(got.double().numpy() - want).max()
                check(diff < 1e-4, '%s %s: float32 forward differs by %g' % (family, task, diff))
                worst = max(worst, diff)
        report.append('%s: sibling encoder == TransformerEncoderLayer stack (1e-9), padded == unpadded (1e-9), '
                      'independent float32 forward within %.1e of the logits' % (family, worst))
    return report + zeroshot_self_checks(tok, models)


# ---------------------------------------------------------------------------------------------------- zero-shot

DEFAULT_TEMPLATE = 'This example is {}.'
TOPICS = ['sports', 'politics', 'science', 'technology', 'health', 'finance', 'travel', 'cooking', 'music', 'law',
          'software licensing', 'open source', 'copyright', 'warranty', 'patents', 'distribution', 'education',
          'weather', 'urgent', 'not urgent', 'phone', 'computer', 'legal text', 'poetry', 'a complaint', 'praise',
          'économie', 'Geschichte', 'Zürich', '東京', 'café', '😀 fun', 'COPYRIGHT NOTICE', 'source code',
          'free software', 'liability', 'trademarks', 'documentation', 'Ελληνικά', 'don\'t care']
TEMPLATES = ['The topic is {}.', 'This text is about {}.', 'Dieses Beispiel handelt von {}.', '{}',
             'Ce texte parle de {}.', 'この文章は{}についてです。', 'It is {} !']


def parse_candidate_labels(labels_arg):
    """ZeroShotClassificationArgumentHandler._parse_labels: a string is split on "," and stripped, empties dropped;
    a list is taken as it is."""
    if isinstance(labels_arg, str):
        return [label.strip() for label in labels_arg.split(',') if label.strip()]
    return labels_arg


def zeroshot_hypotheses(case):
    return [case['hypothesis_template'].format(label) for label in parse_candidate_labels(case['candidate_labels'])]


def nli_columns(config):
    """The pipeline's entailment_id (first label in label2id's order whose lower case starts with "entail", else -1)
    and the contradiction column of postprocess (-1 if entailment_id == 0 else 0), both as numpy indexes them."""
    entailment_id = -1
    for label, index in config['label2id'].items():
        if label.lower().startswith('entail'):
            entailment_id = index
            break
    contradiction_id = -1 if entailment_id == 0 else 0
    return entailment_id, contradiction_id


def zeroshot_scores(logits, multi_label, entailment_id, contradiction_id):
    """postprocess for one sequence: logits [n candidates, labels] -> float64 scores [n] (max-shifted softmax)."""
    if multi_label or logits.shape[0] == 1:
        return softmax64(logits[:, [contradiction_id, entailment_id]])[:, 1]
    return softmax64(logits[:, entailment_id])


def zeroshot(model, tok, case):
    """pipeline("zero-shot-classification")(sequence, candidate_labels=..., hypothesis_template=...,
    multi_label=...) as zero_shot_classification.py does it (ChunkPipeline: one forward per (sequence, hypothesis)
    pair, each tokenized alone with truncation ONLY_FIRST at model_max_length, no padding needed)."""
    family = model.family
    labels_ = parse_candidate_labels(case['candidate_labels'])
    template = case['hypothesis_template']
    if not labels_ or template.format(labels_[0]) == template:
        raise Rejected('the pipeline raises ValueError')
    sequences = case['sequence'] if isinstance(case['sequence'], list) else [case['sequence']]
    entailment_id, contradiction_id = nli_columns(model.config)
    input_ids, all_logits, outputs = [], [], []
    for sequence in sequences:
        if len(sequence) == 0:
            raise Rejected('the pipeline raises ValueError')  # len(sequences) == 0 for a string ''
        rows = []
        for label in labels_:
            hypothesis = template.format(label)
            enc = tok.encode(family, sequence, hypothesis, truncation('OnlyFirst'))[0]
            input_ids.append(enc['ids'])
            logits = model.run(enc['ids'], enc['type_ids'])
            rows.append(logits)
            all_logits.append([f32(x) for x in logits])
        scores = zeroshot_scores(np.stack(rows), case['multi_label'], entailment_id, contradiction_id)
        if not gaps_ok(list(scores), PROB_MARGIN):
            raise Rejected('score near-tie')
        top = sorted(range(len(scores)), key=lambda i: -scores[i])  # no ties within 2e-5 (checked)
        outputs.append({'sequence': sequence, 'labels': [labels_[i] for i in top],
                        'scores': [f32(scores[i]) for i in top]})
    output = outputs if isinstance(case['sequence'], list) else outputs[0]
    return {'input_ids': input_ids, 'logits': all_logits, 'output': output}


def zeroshot_sequence(rng, long=False):
    if long:  # over 128 tokens with any hypothesis: the premise is cut (ONLY_FIRST)
        return corpus_words(rng, 110 + int(rng.random() * 150)) + ' ' + mixed_text(rng, 1 + int(rng.random() * 4),
                                                                                  literals=False)
    r = rng.random()
    if r < 0.5:
        text = corpus_lines(rng, 1 + int(rng.random() * 2))
    elif r < 0.8:
        text = mixed_text(rng, 2 + int(rng.random() * 10), literals=False)
    else:
        text = mixed_text(rng, 1 + int(rng.random() * 4), literals=False, exotic=2.0)
    text = text[:400]
    return text if text.strip() else 'an empty line'


def zeroshot_case(rng, task, index, slot=None):
    """Fixed kinds for the first 12 accepted cases (slot: the number accepted so far, so a rejected candidate is
    replaced by one of the same kind and every feature occurs in every directory), then seeded random ones."""
    n = 2 + int(rng.random() * 6)
    start = int(rng.random() * len(TOPICS))
    candidates = [TOPICS[(start + 7 * k) % len(TOPICS)] for k in range(n)]  # distinct (7 is prime to 40)
    sequence = zeroshot_sequence(rng)
    template = DEFAULT_TEMPLATE if rng.random() < 0.7 else pick(rng, TEMPLATES)
    multi_label = rng.random() < 0.4
    labels_arg = candidates if rng.random() < 0.75 else ', '.join(candidates)
    kind = slot if slot is not None else index
    kind = kind if kind < 12 else -1
    if kind == 0:    # a single candidate: scored per candidate even though multi_label is false
        labels_arg, multi_label, template = [candidates[0]], False, DEFAULT_TEMPLATE
    elif kind == 1:  # a single candidate given as a string without a comma
        labels_arg, multi_label = candidates[1], False
    elif kind in (2, 3):  # long premise, cut ONLY_FIRST
        sequence = zeroshot_sequence(rng, long=True)
        multi_label = kind == 3
    elif kind == 4:  # the comma string with spaces and an empty item
        labels_arg = ' ' + candidates[0] + ' ,' + ' , '.join(candidates[1:3]) + ',, ' + candidates[-1] + ' ,'
    elif kind == 5:
        template, multi_label = 'The topic is {}.', False
    elif kind == 6:
        template, multi_label = 'Dieses Beispiel handelt von {}.', True
    elif kind == 7:  # several sequences at once: one result per sequence
        sequence = [zeroshot_sequence(rng) for _ in range(3)]
        multi_label = False
    elif kind == 8:
        sequence = [zeroshot_sequence(rng), zeroshot_sequence(rng, long=True)]
        multi_label = True
    elif kind == 9:  # a list of one sequence: a list of one result
        sequence = [sequence]
    elif kind == 10:  # many candidates
        labels_arg = [TOPICS[(start + 3 * k) % len(TOPICS)] for k in range(12)]
        multi_label = False
    elif kind == 11:
        template, multi_label = 'この文章は{}についてです。', False
    elif rng.random() < 0.08:
        sequence = zeroshot_sequence(rng, long=True)
    return {'sequence': sequence, 'candidate_labels': labels_arg, 'hypothesis_template': template,
            'multi_label': multi_label}


def zeroshot_self_checks(tok, models):
    """The zero-shot pieces checked a second way: the label parsing, the columns each label2id gives, the ONLY_FIRST
    pair encoding against its parts, the float32 NLI logits, and a literal numpy float32 transcription of
    postprocess (no max shift, argsort reversed) against the float64 reference above."""
    check(parse_candidate_labels(' a , b,, c ,') == ['a', 'b', 'c'], 'label parsing')
    check(parse_candidate_labels('solo') == ['solo'], 'label parsing of one label')
    worst_logit, worst_score, pairs = 0.0, 0.0, 0
    for (family, task), model in models.items():
        if not task.startswith('zeroshot'):
            continue
        entailment_id, contradiction_id = nli_columns(model.config)
        n_labels = len(model.config['id2label'])
        want = NLI_COLUMNS[(task, family)]
        check((entailment_id, contradiction_id % n_labels) == want,
              '%s-%s: columns %s, expected %s' % (task, family, (entailment_id, contradiction_id), want))
        w32 = {k.replace('roberta.', 'bert.', 1): v.float() for k, v in model.w.items()}
        if family == 'roberta':
            w32['bert.embeddings.position_embeddings.weight'] = w32['bert.embeddings.position_embeddings.weight'][2:]
        for index in range(12):
            case = zeroshot_case(random.Random('zeroshot-selfcheck-%s-%d' % (task, index)), task, index)
            sequences = case['sequence'] if isinstance(case['sequence'], list) else [case['sequence']]
            for sequence in sequences:
                rows32, rows64 = [], []
                for hypothesis in zeroshot_hypotheses(case):
                    enc = tok.encode(family, sequence, hypothesis, truncation('OnlyFirst'))[0]
                    whole = tok.encode(family, sequence, hypothesis, None)[0]
                    second = [i for i, s in zip(enc['ids'], enc['sequence_ids']) if s == 1]
                    first = [i for i, s in zip(enc['ids'], enc['sequence_ids']) if s == 0]
                    check(second == [i for i, s in zip(whole['ids'], whole['sequence_ids']) if s == 1],
                          'ONLY_FIRST changed the hypothesis')
                    check(first == [i for i, s in zip(whole['ids'], whole['sequence_ids']) if s == 0][:len(first)],
                          'ONLY_FIRST premise is not a prefix')
                    check(len(enc['ids']) == min(len(whole['ids']), MODEL_MAX_LENGTH), 'ONLY_FIRST length')
                    ids = torch.tensor([enc['ids']])
                    types = torch.tensor([enc['type_ids'] if family == 'bert' else [0] * len(enc['ids'])])
                    with torch.no_grad():
                        hidden, _ = make_fixtures.forward(w32, model.config, ids, types, torch.ones_like(ids),
                                                          pooler=False)
                        lin = lambda x, p: x @ w32[p + '.weight'].T + w32[p + '.bias']
                        if family == 'bert':
                            got = lin(torch.tanh(lin(hidden[:, 0], 'bert.pooler.dense')), 'classifier')[0]
                        else:
                            got = lin(torch.tanh(lin(hidden[:, 0], 'classifier.dense')), 'classifier.out_proj')[0]
                    logits = model.run(enc['ids'], enc['type_ids'])
                    diff = np.abs(got.double().numpy() - logits).max()
                    check(diff < 1e-4, '%s-%s: float32 forward differs by %g' % (task, family, diff))
                    worst_logit = max(worst_logit, diff)
                    rows32.append(got.numpy().astype(np.float32))
                    rows64.append(logits)
                    pairs += 1
                # transformers' postprocess, literally, on float32 logits
                reshaped = np.stack(rows32)[None]
                n = reshaped.shape[1]
                if case['multi_label'] or n == 1:
                    entail_contr = reshaped[..., [contradiction_id, entailment_id]]
                    s32 = (np.exp(entail_contr) / np.exp(entail_contr).sum(-1, keepdims=True))[..., 1]
                else:
                    entail = reshaped[..., entailment_id]
                    s32 = np.exp(entail) / np.exp(entail).sum(-1, keepdims=True)
                top = list(reversed(s32[0].argsort()))
                s64 = zeroshot_scores(np.stack(rows64), case['multi_label'], entailment_id, contradiction_id)
                if gaps_ok(list(s64), PROB_MARGIN):
                    check(top == sorted(range(n), key=lambda i: -s64[i]), '%s-%s: order differs' % (task, family))
                worst_score = max(worst_score, float(np.abs(s32[0].astype(np.float64) - s64).max()))
    check(worst_score < 1e-5, 'zero-shot float32 postprocess differs by %g' % worst_score)
    return ['zero-shot: label parsing, entailment/contradiction columns of the 4 label2id orders, ONLY_FIRST pairs '
            '(hypothesis whole, premise a prefix, 128 tokens at most) on %d pairs; independent float32 forward '
            'within %.1e of the logits, numpy float32 postprocess (transformers\' code) within %.1e of the scores, '
            'same order' % (pairs, worst_logit, worst_score)]


# ---------------------------------------------------------------------------------------------------- main

README = r'''# Pipeline fixtures

Reference inputs and outputs for vectorbert's task pipelines: transformers' `text-classification`,
`token-classification` ("ner"), `question-answering` and `zero-shot-classification` pipelines, and reranking as
sentence-transformers' CrossEncoder and TEI's `/rerank` do it, on tiny random BERT and RoBERTa models with real
tokenizers. Written by `tools/torch-reference/make_pipeline_fixtures.py` (with `tokenize-cases.mjs` beside it)
without transformers and without vectorbert: Hugging Face's tokenizers library (Node binding 0.23.2) tokenizes,
make_family_fixtures.py's plain-torch forward computes the logits (float64), and the pipelines' post-processing is
written in the script from the transformers sources (text_classification.py / token_classification.py of 4.5x,
question_answering.py of 4.53, zero_shot_classification.py of transformers main (v5)), following
`/work/shared/reference/tasks-and-apis.md` sections 1a, 1b, 1c, 2, 3 and 7. Regenerate (the same bytes on every run;
the whole directory, this file included, is rewritten):

    cd tools/tokenizer-reference && npm ci && cd ../..
    nice -n 19 /usr/bin/python3 tools/torch-reference/make_pipeline_fixtures.py

The tasks are generated in a fixed order with seeds from their position (the zero-shot directories were appended
last, so adding them left every earlier file byte for byte as it was); a new task must be appended the same way.

## Files

| file | content |
|---|---|
| `bert.encoder.safetensors` | BertModel without pooler: `bert.embeddings.*`, `bert.encoder.layer.{0,1}.*`; F16 |
| `roberta.encoder.safetensors` | the same for RoBERTa (`roberta.embeddings.*`, `roberta.encoder.layer.{0,1}.*`); F16 |
| `bert.tokenizer.json` | copy of `tokenizer/src/test/resources/pipeline/minilm.tokenizer.json` (all-MiniLM-L6-v2's WordPiece, 30522 ids) |
| `roberta.tokenizer.json` | copy of `tokenizer/src/test/resources/pipeline/bpe-roberta.tokenizer.json` (byte-level BPE trained on license texts, 5291 ids, RobertaProcessing) |
| `<task>-<family>/config.json` | the model's config (keys as transformers 4.x writes them; `transformers_version` nominal) |
| `<task>-<family>/tokenizer_config.json` | `model_max_length` 128, the special tokens, `tokenizer_class` |
| `<task>-<family>/model.safetensors.index.json` | `weight_map`: every encoder tensor to `model-00001-of-00002.safetensors`, every head tensor to `model-00002-of-00002.safetensors`; `metadata.total_size` = bytes of tensor data of both |
| `<task>-<family>/model-00002-of-00002.safetensors` | the head tensors only; F16 |
| `<task>-<family>/cases.jsonl` | one case a line, schema below |

A test makes a loadable model directory by copying a task directory and adding `../<family>.encoder.safetensors` as
`model-00001-of-00002.safetensors` and `../<family>.tokenizer.json` as `tokenizer.json` (every index names the
encoder shard `model-00001-of-00002.safetensors`).

| directory | architectures | labels | head tensors |
|---|---|---|---|
| `seqcls-bert` | BertForSequenceClassification | NEGATIVE, NEUTRAL, POSITIVE; `problem_type` single_label_classification | `bert.pooler.dense.*`, `classifier.*` |
| `seqcls-roberta` | RobertaForSequenceClassification | same | `classifier.dense.*`, `classifier.out_proj.*` (tanh between, on `<s>`) |
| `multilabel-bert` | BertForSequenceClassification | toxic, obscene, insult; `problem_type` multi_label_classification | `bert.pooler.dense.*`, `classifier.*` |
| `rerank-bert`, `rerank-roberta` | Bert/RobertaForSequenceClassification | one label LABEL_0, no `problem_type` (cross-encoder shape) | as seqcls |
| `ner-bert`, `ner-roberta` | Bert/RobertaForTokenClassification | O, B-PER, I-PER, B-LOC, I-LOC, B-MISC, I-MISC | `classifier.*` |
| `qa-bert`, `qa-roberta` | Bert/RobertaForQuestionAnswering | (start, end) | `qa_outputs.*` (row 0 start, row 1 end) |
| `zeroshot-bert` | BertForSequenceClassification (NLI) | entailment, neutral, contradiction (MoritzLaurer's DeBERTa NLI order); no `problem_type` | as seqcls |
| `zeroshot-roberta` | RobertaForSequenceClassification (NLI) | CONTRADICTION, NEUTRAL, ENTAILMENT (roberta-large-mnli's order) | as seqcls |
| `zeroshot-middle-bert` | BertForSequenceClassification (NLI) | neutral, entailment, contradiction (entailment in the middle) | as seqcls |
| `zeroshot-binary-bert` | BertForSequenceClassification (NLI) | entailment, not_entailment | as seqcls |

The zero-shot pipeline reads only `label2id` (written with sorted keys, like every JSON file here, which does not
matter: exactly one label of each starts with "entail"). The columns it derives, which a test should assert too:

| directory | entailment_id | contradiction column (multi_label / one candidate) |
|---|---|---|
| `zeroshot-bert` | 0 | -1, i.e. 2 (contradiction) |
| `zeroshot-roberta` | 2 | 0 (CONTRADICTION) |
| `zeroshot-middle-bert` | 1 | 0, which is **neutral**: the pipeline never looks the contradiction label up by name |
| `zeroshot-binary-bert` | 0 | -1, i.e. 1 (not_entailment) |

Encoders: hidden 16, 2 layers, 2 heads, intermediate 32, `hidden_act` gelu (erf). BERT: `max_position_embeddings`
128, `type_vocab_size` 2, `layer_norm_eps` 1e-12, pad 0. RoBERTa: `max_position_embeddings` 130 (positions start at
`pad_token_id + 1` = 2, so 128 tokens use ids 2..129), `type_vocab_size` 1, `layer_norm_eps` 1e-5, pad 1, bos 0,
eos 2. Both take at most 128 tokens, which is `model_max_length` in every `tokenizer_config.json`.

## Weights and numbers

- Drawn by make_family_fixtures.make_weights (numpy RandomState; embeddings std 0.02 with a zero pad row, Linear
  weights std 1/sqrt(fan_in), biases std 0.1, LayerNorm weight 1 + std 0.1), the encoder once a family, the head once
  a task and family, then every tensor rounded to float16 (nearest, ties to even) and stored as F16.
- Calibrated heads: a random head on a random encoder hardly depends on the input (one label would win ~90% of the
  time), so each output of the head's last linear layer (`classifier`, `classifier.out_proj`, `qa_outputs`) is
  standardised over 200 seeded calibration inputs drawn like the task's cases (for zero-shot: up to 4 (premise,
  hypothesis) pairs of each of 200 seeded cases): row j of the weight divided by the standard deviation of logit j,
  bias j shifted by its mean and divided likewise, before the float16 rounding. For NER, O's bias then gets the
  offset that makes O the argmax of half of the calibration tokens (about half of the fixture tokens are not O), so
  every label occurs and O still splits groups.
- The reference is computed in float64 from exactly the float16 values (make_family_fixtures.encoder and
  heads_forward), then every logit and score is rounded to float32 and written with Python's repr of that float (so
  `Float.parseFloat` gives back that float32 exactly; as a double it is the float32's exact value). The only
  exception: a QA answer whose text several spans produced has the Python-float sum of their float32 span scores, as
  the pipeline computes it. Zero-shot scores are the float32 of a float64 max-shifted softmax of the float64
  logits; the pipeline itself casts the logits to float32 (`.float().numpy()`) and takes `np.exp(x) / sum` in
  float32 without a max shift (a self-check runs exactly that code on float32 logits: within ~1e-6 of the fixture
  scores, same order). An independent float32 forward (make_fixtures.forward; RoBERTa through it with its
  position table shifted by 2) lands within a few 1e-6 of the logits (see the summary at the end).
- `config.json` says `"torch_dtype": "float32"`: the stored values are float16 but the model is meant to run in
  float32, as transformers 4.x does by default and 5.x does with `dtype="auto"` reading this config.
- No decision is left to float32 noise: a candidate case is dropped (and the next seeded one taken) when any argmax,
  sort order, top-k cut, word aggregation or overlap tie-break in it has a margin below 2e-5 (probabilities,
  sigmoid/softmax scores), 1e-5 (raw logits) or 1e-4 relative (QA span and answer scores). So every label, order,
  index, word, start, end, answer and zero-shot label order must match exactly; compare scores and logits with a
  tolerance (abs 1e-5 plus rel 1e-4 is ample). Exact ties are left only where two rerank documents tokenize identically.

## Tokenization

- The tokenizer is used as transformers' fast tokenizers use it: padding and truncation are set at every call from
  the call's arguments, so the `truncation` (128, LongestFirst) and `padding` (Fixed 128) sections of the
  all-MiniLM-L6-v2 tokenizer.json never apply; nothing is padded (batches of one; padding changes no unpadded
  position's value) and only what a pipeline asks for is truncated, always on the right.
- Zero-shot pairs are truncated ONLY_FIRST at 128 (the premise cut on the right, the hypothesis never); built the
  same way (the premise encoded alone, `Encoding.truncate` to `128 - specials - len(hypothesis)`, `postProcess`) and
  checked against the library's own ONLY_FIRST encode.
- Offsets, `start` and `end` are character offsets into the Python string: Unicode code points (not UTF-16 units, not
  bytes). The Node binding returns code-point offsets like the Python binding (checked on `a😀 bé 東京 x` at every run),
  so no conversion was needed; a Java test must convert with `codePointCount` / `offsetByCodePoints` for texts with
  emoji or other non-BMP characters (from a tenth of the QA and NER cases to most rerank queries have some).
- `word` strings use `convert_ids_to_tokens` (the vocabulary's token, e.g. `##soft`, `Ġworld`) and
  `convert_tokens_to_string`, which for fast tokenizers is `backend_tokenizer.decoder.decode(tokens)`: the WordPiece
  decoder (strip `##` from a non-first token, else prefix a space; `cleanup` applied to each token separately, so
  `" ,"` becomes `","` but `"don ' t"` stays) and the ByteLevel decoder (bytes back to UTF-8, invalid sequences as
  U+FFFD; a string holding a character outside the byte alphabet is taken as its own UTF-8 bytes). That is not the
  slow tokenizers' "join with spaces and drop ` ##`".
- Overflowing windows (QA, strided NER): tokenizers 0.23.1 and later stop tokenizing right-truncated input at
  max_length tokens (huggingface/tokenizers#1990; reported as #2091, fix #2098 open), so `Encoding.overflowing` is
  empty or stops short. These fixtures have the full windows of tokenizers <= 0.22.2, which transformers' pipelines
  were written for: windows of `max_length - special tokens (- question)` tokens, each starting
  `that - stride` tokens after the previous one, the last one ending at the sequence's end. tokenize-cases.mjs
  builds them from the library's own `Encoding.truncate` and `postProcess` and checks each first window against the
  library's truncating encode. (The tokenizer parity fixtures in tokenizer/src/test/resources/pipeline were recorded
  with 0.23.2, so their `overflow` windows carry that early exit.)

## cases.jsonl

Keys are listed in file order. A key absent from `kwargs` was not passed; `null` means Python `None` was passed.

### seqcls-bert, seqcls-roberta, multilabel-bert: text-classification (1a)

    {"id": 0, "input": "text" | {"text": "...", "text_pair": "..."}, "kwargs": {...}, "n_tokens": 109,
     "logits": [l0, l1, l2], "output": ...}

- `output` is exactly what `pipeline("text-classification")(input, **kwargs)` returns:
  - `top_k` not passed (legacy): the argmax as `{"label", "score"}`, wrapped in a list for a string input
    (`[{...}]`) but not for a pair dict (`{...}`);
  - `top_k` passed: a list of `{"label", "score"}` sorted by score descending (stable), cut to `top_k`; `null`
    keeps all labels; values used are 0 (empty list), 1, 2, 3 and 5 (more than the labels: all).
- `function_to_apply`: absent = the default (problem_type regression: none; multi_label_classification or one label:
  sigmoid; single_label_classification or more labels: softmax), else "softmax", "sigmoid", "none" in any case
  ("SOFTMAX", "Sigmoid", "NONE"; the pipeline upper-cases it). Softmax is max-shifted; "none" reports the logits.
- `truncation: true` (a tokenizer argument the pipeline passes through; LongestFirst at 128 tokens with specials)
  appears only on inputs longer than 128 tokens; every other input fits untruncated (transformers would fail on a
  longer one: the pipeline does not truncate by default).
- `n_tokens`: length of the input ids with special tokens; `logits`: the model's raw logits.

### rerank-bert, rerank-roberta: CrossEncoder (2) and TEI /rerank (3)

    {"id": 0, "query": "...", "documents": ["...", ...], "n_tokens": [28, 39, 70], "logits": [...],
     "scores": [...], "tei_rerank": [{"index": 0, "score": s}, ...], "ce_rank": [{"corpus_id": 0, "score": s}, ...]}

- Each document is scored as the pair (query, document), tokenized with truncation LongestFirst at 128 tokens with
  specials (CrossEncoder.predict's `truncation=True` with the model's max length; TEI truncating, whose maximum
  min(128, max_position_embeddings - position offset) is 128 as well); `n_tokens` per document after truncation.
  1 to 20 documents a query; some over 128 tokens, some empty (`""`).
- `logits`: the raw logit of each pair (CrossEncoder with an Identity activation, TEI `raw_scores: true`,
  langchain4j OnnxScoringModel without normalize). `scores`: their sigmoid (TEI `raw_scores: false`; CrossEncoder's
  default for one label when the config stores no activation, as here; also the text-classification default).
- `tei_rerank`: TEI's `/rerank` response (no `return_text`): all documents sorted by score descending by a stable
  ascending sort then a reverse, so equal scores come in descending index order.
- `ce_rank`: CrossEncoder.rank (no top_k, no documents): `sorted(..., reverse=True)`, stable, so equal scores come
  in ascending index order.
- Exact ties come only from documents that tokenize identically (a repeated document; an upper-cased copy under the
  lowercasing BERT tokenizer); a batched engine must give such rows bit-identical scores.
- Queries and documents have no leading or trailing whitespace (CrossEncoder 3.x strips its texts, later versions
  and TEI do not: these cases are the same under all of them).

### ner-bert, ner-roberta: token-classification (1b)

    {"id": 0, "text": "...", "stride": null | 16, "n_tokens": [128, 40],
     "outputs": {"none": [...], "simple": [...], "first": [...], "average": [...], "max": [...], "default": [...]}}

- `outputs[s]` is `pipeline("ner")(text, aggregation_strategy=s)` plus `stride=stride` when `stride` is not null;
  `ignore_labels` is the default `["O"]`. `n_tokens`: the length of each window with special tokens.
- Entities: `none` (and `default`) give `{"entity", "score", "index", "word", "start", "end"}`; the others give
  `{"entity_group", "score", "word", "start", "end"}`.
- Without stride: truncation LongestFirst at 128 (the pipeline truncates whenever model_max_length is set), one
  window. With stride (0, 8, 16, 32, 64 or 100): every window of 126 tokens, consecutive windows overlapping by
  `stride` tokens; each window goes through the steps below on its own; the entities of all windows are concatenated
  and, when there are several windows, merged by `aggregate_overlapping_entities` (stable sort by start; an entity
  starting inside the previous kept one replaces it if longer, or as long with a strictly higher score). With a
  stride, `"none"` is `{"error": "ValueError"}` (an explicit `aggregation_strategy="none"` with a stride raises) and
  `"default"` is the call with a stride and no aggregation_strategy (NONE, which that check lets through): per-token
  entities whose `index` counts within their own window.
- Scores: softmax over the labels of each token (max-shifted). Special tokens (special_tokens_mask) are skipped;
  literal `[CLS]`, `<s>`, `[UNK]`, `<mask>`... typed in the text are added tokens with special_tokens_mask 0 and are
  kept like any token.
- Per token: `word` = convert_ids_to_tokens(id) (`##ist`, `Ġthey`, a lone byte like `Ł`), except the unk id (100
  `[UNK]` for BERT, 3 `<unk>` for RoBERTa: literal `<unk>` text) whose word is the text slice and which is never a
  subword. Subword: BERT's WordPiece has a continuing_subword_prefix, so `len(word) != len(text[start:end])` (code
  points; e.g. `cafe` for `Café` is not a subword but `e` for `e\u0301` is); RoBERTa's BPE has none, so the fallback
  `start > 0 and " " not in text[start-1:start+1]` (every byte token of a multi-byte character after the first
  shares its offsets and is a subword unless at position 0).
- NONE: every token's argmax label (first on ties), its probability, its index (position in the window, [CLS]/<s> is
  0). SIMPLE: those, grouped.
- FIRST / AVERAGE / MAX: tokens first merged into words (a word starts at a token that is not a subword, or at the
  first token; subwords join the word before them); word label: FIRST the first token's argmax; MAX the argmax of the
  token whose maximum probability is largest (first such token); AVERAGE the argmax of the mean probability vector
  (score = that mean); `word` = convert_tokens_to_string of the words' token strings; start of the first token, end
  of the last. Then grouped.
- Grouping: a label `B-X` is (B, X), `I-X` is (I, X), anything else (I, label); an entity joins the current group iff
  its tag equals the last one's and it is not B (B-X B-X gives two groups; I-X after B-Y starts a new one). A group:
  `entity_group` = first label split at the first hyphen (`B-PER` -> `PER`, `O` -> `O`), `score` = mean of the member
  scores, `word` = convert_tokens_to_string of the member words (for FIRST/AVERAGE/MAX that decodes decoded words a
  second time: with RoBERTa's ByteLevel decoder this turns accented letters into U+FFFD, as transformers does),
  start of the first, end of the last. `O` tokens and groups are dropped only after grouping, so an O splits groups.

### qa-bert, qa-roberta: question-answering, transformers 4.53 / 5.2 (1c)

    {"id": 0, "question": "...", "context": "...", "kwargs": {...}, "n_windows": 2,
     "output": {"score", "start", "end", "answer"} | [{...}, ...]}

- `output` is `pipeline("question-answering")(question=question, context=context, **kwargs)`: a dict when exactly one
  answer is left, else a list (top_k 2 or 3 and enough answers). `answer == context[start:end]` (code points).
- kwargs: `top_k` (1, 2, 3; default 1), `max_answer_len` (1, 2, 3, 5, 30; default 15), `doc_stride` (0, 16, 32, 50,
  100; default min(max_seq_len // 2, 128) = 64), `handle_impossible_answer` (default false), `align_to_words`
  (default true). `max_seq_len` is never passed: min(model_max_length, 384) = 128. `max_question_len` is unused by
  the fast-tokenizer path.
- Windows: tokenizer(question, context, truncation only_second, max_length 128, stride doc_stride, overflowing
  tokens): [CLS] q [SEP] window [SEP] (BERT, token types 0 then 1) or <s> q </s></s> window </s> (RoBERTa, no token
  types); every window holds `128 - len(q) - specials` context tokens, consecutive ones overlapping by doc_stride.
  Cases whose stride is not below that share were dropped (the library panics on them).
- Per window: p_mask 1 on every token whose sequence id is not 1 (question, specials), then 0 on [CLS] / <s>
  positions; start and end logits where (1 - p_mask) & attention_mask is 0 set to -10000; softmax of each over the
  whole window (so [CLS] is in the denominator); with handle_impossible_answer, min_null_score = min(previous,
  p_start[0] * p_end[0]) (starts at 1e6); then p_start[0] = p_end[0] = 0. Span scores p_start[s] * p_end[e] (float32
  products) for 0 <= e - s <= max_answer_len - 1; the best `top_k * 2 + 10` spans (`top_k` when align_to_words is
  false) by score; spans whose start or end is not a context token (or index 0) dropped.
- Each span's characters: align_to_words: `word_to_chars(token_to_word(s), 1)[0]` to `word_to_chars(token_to_word(e),
  1)[1]` within that window (a word cut by the window boundary gives its part in the window); else the token
  offsets. An answer whose text equals (Python `str.lower()` on both) an earlier answer's, from any window, adds its
  score to it and keeps the earlier start and end.
- With handle_impossible_answer: `{"score": min_null_score, "start": 0, "end": 0, "answer": ""}` appended. Sorted by
  score descending (stable), cut to top_k.
- Dropped: cases where numpy's choice among zero-score spans could matter (a window with fewer positive spans than
  `top_k * 2 + 10` before the last window, or fewer positive answers than top_k): with short contexts numpy's
  argpartition takes zero-score spans in an order it does not define.
- The pipeline is gone from transformers 5.3 (PR #43325); these are 4.53 / 5.2 semantics.

### zeroshot-bert, zeroshot-roberta, zeroshot-middle-bert, zeroshot-binary-bert: zero-shot-classification

    {"id": 0, "sequence": "..." | ["...", ...], "candidate_labels": ["...", ...] | "a, b,, c",
     "hypothesis_template": "This example is {}.", "multi_label": false,
     "input_ids": [[...], ...], "logits": [[l0, l1, l2], ...],
     "output": {"sequence", "labels", "scores"} | [{...}, ...]}

- `output` is `pipeline("zero-shot-classification")(sequence, candidate_labels=candidate_labels,
  hypothesis_template=hypothesis_template, multi_label=multi_label)` (zero_shot_classification.py). Both keyword
  arguments are always stored; `hypothesis_template` is mostly the default `"This example is {}."` (passing it equals
  not passing it), sometimes a custom one (`"The topic is {}."`, `"{}"`, German, French, Japanese, ...);
  `multi_label: false` is the default.
- `candidate_labels`: a list (used as it is, not stripped), or a string split on `","` with each label stripped and
  empty ones dropped (`" law ,poetry , café,, music ,"` -> `["law", "poetry", "café", "music"]`; a string without a
  comma is one label). The parsed labels keep their order and are distinct in every case.
- `sequence`: a string gives one result dict; a list gives a list of result dicts, one per sequence, in order (the
  pipeline runs each sequence through preprocess/forward/postprocess on its own). A couple of cases a directory have a
  list of 2 or 3 sequences, one a list of one sequence. Sequences are never empty (`""` raises ValueError in the
  argument handler, as does an empty label list).
- Pairs: for each sequence (in order) and each parsed label (in order), the pair (sequence,
  `hypothesis_template.format(label)`) is tokenized alone (special tokens, BERT token types 0 then 1, no padding)
  with truncation ONLY_FIRST at `model_max_length` 128: when the pair is longer, tokens are cut from the end of the
  premise only. `input_ids` and `logits` list the pairs in that order (sequence-major: `len(sequences) *
  len(labels)` rows); `logits` are the raw logits of each pair (3 columns; 2 for `zeroshot-binary-bert`). A few
  cases a directory have a premise long enough to be cut (their pairs are 128 tokens).
- entailment_id = the id of the first label in `label2id` order whose lower case starts with `"entail"` (-1 if
  none); contradiction_id = -1 (numpy: the last column) if entailment_id == 0, else 0 -- by position, not by name
  (see the table above: column 0 is `neutral` in `zeroshot-middle-bert`).
- Scores, per sequence over its candidates: if `multi_label` is true **or there is exactly one candidate**, each
  candidate's softmax over its own `logits[[contradiction_id, entailment_id]]`, score = the entailment probability
  (so single-candidate cases with `multi_label: false` are scored this way, and the scores of a multi-label result
  need not sum to 1); otherwise the softmax of the candidates' entailment logits across the candidates (sums to 1).
- `labels` / `scores`: sorted by `list(reversed(scores.argsort()))`, i.e. descending score. Ties: numpy's default
  argsort (`kind="quicksort"`) is not stable in general. numpy 1.24's generic code insertion-sorts small arrays, so
  equal scores come out in ascending index order and the reversal puts the **later** candidate first
  (`[0.3, 0.5, 0.5, 0.2, 0.5]` -> indexes 4, 2, 1, 0, 3: the opposite of a stable descending sort); newer numpy
  dispatches argsort to SIMD sorts (x86-simd-sort, AVX-512 / AVX2) whose order among equal keys is not defined. So
  no case has two scores within 2e-5 (checked; a candidate case with a near-tie would be dropped and the next seeded
  one taken): the order is well defined and robust to float32.
- `output.sequence` is the input sequence unchanged.

## Summary of the last generation

```
@SUMMARY@
```
'''


RUNNERS = {'seqcls': (seqcls_case, text_classification), 'multilabel': (seqcls_case, text_classification),
           'rerank': (rerank_case, rerank), 'ner': (ner_case, ner_run), 'qa': (qa_case, question_answering),
           'zeroshot': (zeroshot_case, zeroshot), 'zeroshot-middle': (zeroshot_case, zeroshot),
           'zeroshot-binary': (zeroshot_case, zeroshot)}


def make_cases(model, tok, task, count):
    make, run = RUNNERS[task]
    lines, rejected, index = [], {}, 0
    while len(lines) < count:
        rng = random.Random('%s-%s-%d' % (task, model.family, index))
        case = make(rng, task, index, slot=len(lines)) if task.startswith('zeroshot') else make(rng, task, index)
        index += 1
        try:
            result = run(model, tok, case)
        except Rejected as e:
            reason = str(e).split(' ')[0] if str(e).startswith('stride') else str(e)
            rejected[reason] = rejected.get(reason, 0) + 1
            continue
        lines.append(dict({'id': len(lines)}, **case, **result))
    return lines, rejected


def write_json(path, value):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + '\n')


def main():
    for path in TOKENIZER_SOURCES.values():
        check(os.path.exists(path), 'missing ' + path)
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    tok = Tokenizers()
    encoders, models = {}, {}
    for family, source in TOKENIZER_SOURCES.items():
        target = os.path.join(OUT, family + '.tokenizer.json')
        shutil.copyfile(source, target)
        tok.load(family, target)
        encoders[family] = encoder_weights(family)
        write_f16_safetensors(os.path.join(OUT, family + '.encoder.safetensors'), encoders[family])
    for seed, (task, (families, *_)) in enumerate(TASKS.items(), start=7100):
        for family in families:
            head = head_weights(family, task, seed * 2 + (family == 'roberta'))
            head = calibrate_head(tok, family, task, encoders[family], head)
            models[(family, task)] = Model(family, task, encoders[family], head)
    summary = self_checks(tok, models)

    for (family, task), model in models.items():
        directory = os.path.join(OUT, '%s-%s' % (task, family))
        os.makedirs(directory)
        write_json(os.path.join(directory, 'config.json'), model.config)
        write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(family))
        head_bytes = write_f16_safetensors(os.path.join(directory, HEAD_SHARD), model.head)
        encoder_bytes = sum(2 * t.numel() for t in encoders[family].values())
        weight_map = {name: ENCODER_SHARD for name in encoders[family]}
        weight_map.update({name: HEAD_SHARD for name in model.head})
        write_json(os.path.join(directory, 'model.safetensors.index.json'),
                   {'metadata': {'total_size': encoder_bytes + head_bytes}, 'weight_map': weight_map})
        lines, rejected = make_cases(model, tok, task, TASKS[task][4])
        with open(os.path.join(directory, 'cases.jsonl'), 'w', encoding='utf-8') as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False, separators=(',', ':')) + '\n')
        stats = ''
        if task == 'rerank':
            ties = sum(1 for line in lines if len(set(line['scores'])) < len(line['scores']))
            order = sum(1 for line in lines
                        if [r['index'] for r in line['tei_rerank']] != [r['corpus_id'] for r in line['ce_rank']])
            stats = ', %d documents, %d queries with exact ties (%d where TEI and CrossEncoder order differ)' % (
                sum(len(line['documents']) for line in lines), ties, order)
        if task == 'qa':
            windows = [line['n_windows'] for line in lines]
            answers = [a for line in lines for a in (line['output'] if isinstance(line['output'], list)
                                                     else [line['output']])]
            stats = ', %d with several windows (up to %d), %d answers (%d null)' % (
                sum(1 for w in windows if w > 1), max(windows), len(answers),
                sum(1 for a in answers if a['answer'] == '' and a['start'] == 0 and a['end'] == 0))
        if task == 'ner':
            plain = [line for line in lines if line['stride'] is None]
            tokens = sum(len(line['outputs']['none']) for line in plain)
            total = sum(line['n_tokens'][0] - 2 for line in plain)
            stats = ', %d of %d tokens not O (without stride)' % (tokens, total)
        if task.startswith('zeroshot'):
            lengths = [len(ids) for line in lines for ids in line['input_ids']]
            stats = (', %d pairs (%d at the 128-token limit: premise cut), %d multi_label, %d with one candidate, '
                     '%d with several sequences, %d with the comma string, %d with a custom template') % (
                        len(lengths), sum(1 for n in lengths if n == MODEL_MAX_LENGTH),
                        sum(1 for line in lines if line['multi_label']),
                        sum(1 for line in lines if len(parse_candidate_labels(line['candidate_labels'])) == 1),
                        sum(1 for line in lines if isinstance(line['sequence'], list) and len(line['sequence']) > 1),
                        sum(1 for line in lines if isinstance(line['candidate_labels'], str)),
                        sum(1 for line in lines if line['hypothesis_template'] != DEFAULT_TEMPLATE))
        summary.append('%-20s %d cases (%d candidates rejected: %s)%s' % (
            task + '-' + family, len(lines), sum(rejected.values()),
            ', '.join('%s %d' % kv for kv in sorted(rejected.items())), stats))
    tok.close()
    with open(os.path.join(OUT, 'README.md'), 'w', encoding='utf-8') as f:
        f.write(README.replace('@SUMMARY@', '\n'.join(summary)))
    print('\n'.join(summary))
    total = 0
    for base, _, files in os.walk(OUT):
        for name in files:
            total += os.path.getsize(os.path.join(base, name))
    print('wrote %s (%.2f MB)' % (os.path.normpath(OUT), total / 1e6))


if __name__ == '__main__':
    main()
