#!/usr/bin/env python3
"""Random-weight JinaBERT v2 checkpoints (jina-embeddings-v2-*: model_type "bert" with auto_map to
jinaai/jina-bert-implementation, position_embedding_type "alibi", a gated feed-forward) for vectorbert's tests, with
reference outputs computed by an independent PyTorch forward pass and input ids taken from Hugging Face's tokenizers
library.

The forward pass below is written with plain torch operations from the semantics of the hub repository
jinaai/jina-bert-implementation's modeling_bert.py (JinaBertEmbeddings, JinaBertSelfAttention, JinaBertSelfOutput,
JinaBertGLUMLP, JinaBertLayer, JinaBertEncoder.rebuild_alibi_tensor with its _get_alibi_head_slopes, JinaBertPooler,
JinaBertModel.forward / mean_pooling, JinaBertLMPredictionHead, JinaBertForMaskedLM, JinaBertForSequenceClassification)
and configuration_bert.py (JinaBertConfig), read in the stored copy under models/jinabert/ of veya2ztn/sci-bert-finetune
(which adds a flash-attention path and an alibi_scaling option, both off by default and not used here), cross-checked
against text-embeddings-inference's backends/candle/src/models/jina.rs and alibi.rs. The qk-post-norm layer of
jina-embeddings-v2-base-code (jinaai/jina-bert-v2-qk-post-norm, whose own file is not stored anywhere searchable) is
written from transformers' models/jina_bert/modular_jina_bert.py (JinaBertSelfAttention with layer_norm_q /
layer_norm_k, JinaBertGLUMLP with up_gated_layer / down_layer, JinaBertLayer.forward with layer_norm_1 / layer_norm_2,
a port documented with that checkpoint), cross-checked against text-embeddings-inference's
backends/candle/src/models/jina_code.rs, which reads it the same way; it shares no code with vectorbert,
and transformers itself is not needed. The tokenizer.json has the shape of the hub's BERT-uncased WordPiece file (as
jina-embeddings-v2-base-en ships it, see NOTES.md) with a small vocabulary, and every input id comes from the
tokenizers library's own encoding of the texts (jinabert-tokenize.mjs, beside this script), so the fixtures also prove
tokenizer parity. Regenerate everything (half a minute or so):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/jinabert-npm && (cd /tmp/jinabert-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/jinabert-npm/node_modules /usr/bin/python3 tools/torch-reference/make_jinabert_fixtures.py

(no arguments; NODE_PATH is passed on to node, any node_modules holding tokenizers 0.23.2 will do, e.g.
/tmp/modernbert-npm/node_modules). Writes engine/src/test/resources/architectures/jinabert/<case>/ (the same bytes on
every run: the tokenizer and texts are fixed or drawn by numpy's legacy RandomState, which also draws the weights; the
reference is computed in float64 on one thread, then rounded to float32); NOTES.md beside the cases is kept by hand:

    config.json           the keys of jina-embeddings-v2-base-en's config.json (sorted, indent 2, transformers_version
                          4.26.0 as there): model_type "bert", auto_map to jinaai/jina-bert-implementation--*,
                          position_embedding_type "alibi", feed_forward_type, emb_pooler, max_position_embeddings 8192,
                          vocab_size above the tokenizer's (the hub's is 30528 for a 30522-token tokenizer)
    model.safetensors     float32, names sorted, __metadata__ {"format": "pt"}. A saved JinaBertModel (base, sentence,
                          long): embeddings.*, encoder.layer.N.*, pooler.dense.* with no prefix; JinaBertForMaskedLM:
                          bert.* (no pooler) plus cls.predictions.{bias, transform.dense.*, transform.LayerNorm.*}
                          (decoder.weight is tied to bert.embeddings.word_embeddings.weight and decoder.bias is
                          cls.predictions.bias: both left out, as save_pretrained leaves them out);
                          JinaBertForSequenceClassification: bert.* with bert.pooler.dense.* plus classifier.*.
                          No position_embeddings (alibi), no position_ids buffer (not persistent). Per layer:
                          attention.self.{query,key,value}.*, attention.output.dense.*, attention.output.LayerNorm.*,
                          mlp.gated_layers.weight (no bias), mlp.wo.*, mlp.layernorm.*; jinabert-qk-post-norm
                          (a saved JinaBertModel, no prefix, no pooler) instead: attention.self.layer_norm_q.*,
                          attention.self.layer_norm_k.*, layer_norm_1.*, mlp.up_gated_layer.weight (no bias),
                          mlp.down_layer.*, layer_norm_2.*
    tokenizer.json, tokenizer_config.json, special_tokens_map.json    one small BERT-uncased WordPiece tokenizer
    inputs.json           a list of cases: name, texts (and pairs), input_ids, token_type_ids, attention_mask, and the
                          library's tokens (not for the long inputs); rows right-padded with [PAD] (0), type 0, mask 0
    expected.safetensors  caseN.<output> in float32:
                            last_hidden_state [n, len, hidden]     every case but the sentence one (the only output
                                                                   of jinabert-qk-post-norm)
                            pooler_output [n, hidden]              JinaBertModel directories (tanh(dense(h[:, 0])))
                            logits [n, len, vocab_size]            JinaBertForMaskedLM
                            logits [n, 1]                          JinaBertForSequenceClassification (a reranker)
                            token_embeddings [n, len, hidden], sentence_embedding [n, hidden]   sentence case
                          Padded positions hold what the code computes there (a pad query attends to the row's real
                          keys with its own alibi distances); compare real positions, or both.
    modules.json, config_sentence_transformers.json, sentence_bert_config.json, 1_Pooling/config.json
                          the sentence-transformers directory only (mean pooling, Normalize, max_seq_length 8192)

The cases (see NOTES.md for the table): jinabert-base (JinaBertModel, 4 heads: slopes of a power of two, geglu),
jinabert-mlm (JinaBertForMaskedLM, 6 heads: the non-power-of-two slopes, 3 layers), jinabert-rerank
(JinaBertForSequenceClassification with one label, as jina-reranker-v1; 8 heads, reglu with hidden_act "gelu"),
jinabert-sentence-mean (JinaBertModel as jina-embeddings-v2-base-en: 12 heads, geglu, sentence-transformers mean +
Normalize; config architectures JinaBertForMaskedLM as on the hub, weights without prefix) and jinabert-long
(JinaBertModel, 12 heads, one input of about 3,000 tokens and a padded batch of about 1,500 and 2,200) and
jinabert-qk-post-norm (jina-embeddings-v2-base-code's layer: 12 heads, geglu, config auto_map to
jinaai/jina-bert-v2-qk-post-norm; the small WordPiece tokenizer stands in for base-code's BPE one).

Numbers follow the code where it fixes them in float32: the alibi tensor is built in float32 (slopes are Python
floats made a float32 tensor, times the integer distance, one float32 product), then added to the float64 scores
here. The script prints how much float64 alibi would move the outputs.

Weight scale as in make_family_fixtures.py: embeddings std 0.02 with a zero [PAD] row (word_embeddings padding_idx =
pad_token_id 0), Linear weights std 1/sqrt(fan_in), biases std 0.1, LayerNorm weights 1 + std 0.1 and biases std 0.1.

Self-checks run before anything is written (the script stops on the first failure):
  slopes     the code's slope recursion against the closed form 2^(-8(k+1)/m), then 2^(-4(2j+1)/m) (m the power of two
             below the head count) for 1..16 heads, and the exact lists for 4, 6, 8 and 12 heads
  tokenizer  the library's ids against a second tokenizer written here (BERT normalizer, pre-tokenizer, greedy
             WordPiece, added tokens, the [CLS] A [SEP] B [SEP] template with types 0/1); every id below the library's
             vocabulary size, which is below config vocab_size; the library writes back the file it read unchanged;
             the long inputs are within 40 below their targets
  forward    for every case and input: a second encoder written differently (one unpadded row at a time, slopes from
             the closed form, distances as a float outer difference, hand-written LayerNorm, erf GELU and softmax, GLU
             halves by chunk) agrees to 1e-9 at real positions; each row run alone equals its rows of the padded
             batch at its real positions (1e-9); pooler, heads, pooling and normalisation recomputed another way
  mistakes   on jinabert-mlm, each of these moves the logits by more than 1e-3: no alibi, alibi with + sign, alibi
             one-sided (j - i, not |i - j|), slopes sorted, slopes of 8 heads cut to 6, alibi added before the
             1/sqrt(head_dim) scaling, GLU halves swapped, token types ignored; the tanh GELU by more than 1e-4; on
             jinabert-rerank, the GLU activation from hidden_act (GELU) instead of feed_forward_type (ReLU); on
             jinabert-qk-post-norm, each of: the layer input not added again before layer_norm_1, the up/gate halves
             swapped, layer_norm_q / layer_norm_k per head instead of over the whole projection (1e-3), and the tanh
             GELU (1e-4)
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from make_fixtures import write_safetensors  # noqa: E402  (this directory's sibling script)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'jinabert')
HELPER = os.path.join(HERE, 'jinabert-tokenize.mjs')
TOKENIZERS_VERSION = '0.23.2'  # the npm package the ids come from
TRANSFORMERS_VERSION = '4.26.0'  # nominal: as jina-embeddings-v2-base-en's config.json says, not written by it
ST_VERSION = {'sentence_transformers': '2.2.2', 'transformers': '4.35.2', 'pytorch': '2.1.0'}  # nominal
MIN32 = float(torch.finfo(torch.float32).min)
IMPLEMENTATION = 'jinaai/jina-bert-implementation'
QK_IMPLEMENTATION = 'jinaai/jina-bert-v2-qk-post-norm'  # jina-embeddings-v2-base-code's code

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def write_json(path, value, sort=True):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=sort, ensure_ascii=False) + '\n')


def compact_json(value, depth=0):
    """JSON with one space of indent a level, except that a list of scalars (ids, a mask, tokens) stays on one
    line."""
    pad = ' ' * (depth + 1)
    if isinstance(value, dict):
        items = ['%s%s: %s' % (pad, json.dumps(k, ensure_ascii=False), compact_json(v, depth + 1))
                 for k, v in value.items()]
        return '{\n' + ',\n'.join(items) + '\n' + ' ' * depth + '}'
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return '[\n' + ',\n'.join(pad + compact_json(v, depth + 1) for v in value) + '\n' + ' ' * depth + ']'
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------------- tokenizer

# BERT-uncased's vocabulary order, small: [PAD] 0, a few [unusedN], [UNK] [CLS] [SEP] [MASK], punctuation, digits,
# letters, words, then ## pieces (bert-base-uncased: [PAD] 0, [unused0..98], [UNK] 100, [CLS] 101, [SEP] 102,
# [MASK] 103).
SPECIALS = ['[PAD]', '[unused0]', '[unused1]', '[unused2]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
PUNCTUATION = list('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
WORDS = '''
the a an of is and in to it its on for at with was are not but by as from there that this who what where when how
many much people city capital france paris london berlin germany rome europe largest large small great old new river
tower book wrote young man woman girl child eat food ride white horse ground music guitar park play make outside
quick brown fox jump over lazy dog love movie plot slow end no sense all service bad room cold we will come back
would again john mary smith anna live move york last year friend work bank near station iron build world fair answer
question one two text same word here just then million nine around has have been big street shop garden walk along
evening light water say busy loud too most them want else life bread fresh morning long until late night also centre
school train leave six every rest whole part north country trade learn art hundred quiet while west tall glass steel
visit far away does he she they you so very good day time short stand model token query document search code
function return value list long attention head layer weight sequence input output vector embed'''.split()
PIECES = ['##es', '##ed', '##ing', '##ly', '##er', '##est', '##al', '##tion', '##ful', '##ment']
VOCAB_TOKENS = (SPECIALS + PUNCTUATION + [str(d) for d in range(10)] + [chr(c) for c in range(ord('a'), ord('z') + 1)]
                + [w for w in dict.fromkeys(WORDS) if len(w) > 1] + PIECES + ['##' + str(d) for d in range(10)]
                + ['##' + chr(c) for c in range(ord('a'), ord('z') + 1)] + ['\u6771', '\u4eac'])
VOCAB = {t: i for i, t in enumerate(VOCAB_TOKENS)}
check(len(VOCAB) == len(VOCAB_TOKENS), 'duplicate vocabulary entries')
VOCAB_SIZE = 64 * ((len(VOCAB) + 63) // 64)  # config vocab_size: rounded up to 64, as 30522 -> 30528 on the hub
PAD, UNK, CLS, SEP, MASK = (VOCAB[t] for t in ('[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'))
ADDED = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']  # bert-base-uncased's added_tokens: all special, not normalized


def tokenizer_json():
    """tokenizer.json in the layout of the hub's BERT-uncased files (bert-base-uncased, jina-embeddings-v2-base-en)."""
    special = lambda t: {'id': t, 'ids': [VOCAB[t]], 'tokens': [t]}  # noqa: E731
    piece = lambda kind, name, type_id: {kind: {'id': name, 'type_id': type_id}}  # noqa: E731
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [{'id': VOCAB[t], 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False,
                          'normalized': False, 'special': True} for t in ADDED],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                       'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [piece('SpecialToken', '[CLS]', 0), piece('Sequence', 'A', 0), piece('SpecialToken', '[SEP]', 0)],
            'pair': [piece('SpecialToken', '[CLS]', 0), piece('Sequence', 'A', 0), piece('SpecialToken', '[SEP]', 0),
                     piece('Sequence', 'B', 1), piece('SpecialToken', '[SEP]', 1)],
            'special_tokens': {'[CLS]': special('[CLS]'), '[SEP]': special('[SEP]')}},
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
                  'max_input_chars_per_word': 100, 'vocab': VOCAB},
    }


def tokenizer_config():
    """tokenizer_config.json as transformers 4.3x's save_pretrained writes it for BertTokenizer(Fast)."""
    decoder = {str(VOCAB[t]): {'content': t, 'lstrip': False, 'normalized': False, 'rstrip': False,
                               'single_word': False, 'special': True} for t in ADDED}
    return {'added_tokens_decoder': decoder, 'clean_up_tokenization_spaces': True, 'cls_token': '[CLS]',
            'do_basic_tokenize': True, 'do_lower_case': True, 'mask_token': '[MASK]', 'model_max_length': 8192,
            'never_split': None, 'pad_token': '[PAD]', 'sep_token': '[SEP]', 'strip_accents': None,
            'tokenize_chinese_chars': True, 'tokenizer_class': 'BertTokenizer', 'unk_token': '[UNK]'}


def special_tokens_map():
    return {'cls_token': '[CLS]', 'mask_token': '[MASK]', 'pad_token': '[PAD]', 'sep_token': '[SEP]',
            'unk_token': '[UNK]'}


def library_encode(tokenizer_path, rows, save=None):
    """Each (text, pair) encoded by the tokenizers library through jinabert-tokenize.mjs."""
    request = {'tokenizer': tokenizer_path, 'save': save, 'inputs': [{'text': t, 'pair': p} for t, p in rows]}
    proc = subprocess.run(['node', HELPER], input=json.dumps(request), capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit('jinabert-tokenize.mjs failed (is NODE_PATH the node_modules holding tokenizers@%s?):\n%s'
                 % (TOKENIZERS_VERSION, proc.stderr))
    answer = json.loads(proc.stdout)
    check(answer['version'] == TOKENIZERS_VERSION, 'the tokenizers library is %s, not %s'
          % (answer['version'], TOKENIZERS_VERSION))
    return answer


# A second tokenizer, from the documented behaviour of BertNormalizer, BertPreTokenizer, WordPiece, the added
# tokens and TemplateProcessing, only to check the library's ids for the texts used here.

def is_punctuation(ch):
    cp = ord(ch)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 \
        or unicodedata.category(ch).startswith('P')


def is_cjk(ch):
    cp = ord(ch)
    return any(a <= cp <= b for a, b in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
                                         (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


def bert_normalize(text):
    out = []
    for ch in text:
        if ch in '\t\n\r' or unicodedata.category(ch) == 'Zs':
            out.append(' ')
        elif ord(ch) == 0 or ord(ch) == 0xFFFD or unicodedata.category(ch) in ('Cc', 'Cf'):
            continue
        elif is_cjk(ch):
            out.append(' ' + ch + ' ')
        else:
            out.append(ch)
    text = ''.join(out).lower()  # strip_accents null follows lowercase: accents are stripped
    return ''.join(c for c in unicodedata.normalize('NFD', text) if unicodedata.category(c) != 'Mn')


def wordpiece(word):
    if len(word) > 100:
        return [UNK]
    ids, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ('##' if start else '') + word[start:end]
            if piece in VOCAB:
                ids.append(VOCAB[piece])
                break
            end -= 1
        if end == start:
            return [UNK]
        start = end
    return ids


def second_sequence(text):
    """Ids of one sequence without special tokens: the added tokens (not normalized) are cut out of the raw text
    first, the rest is normalized, split at whitespace and punctuation, and WordPiece'd."""
    ids, rest = [], text
    while True:
        hits = [(rest.find(t), t) for t in ADDED if rest.find(t) >= 0]
        segment = rest if not hits else rest[:min(hits)[0]]
        words, current = [], ''
        for ch in bert_normalize(segment):
            if ch == ' ':
                words.append(current)
                current = ''
            elif is_punctuation(ch):
                words += [current, ch]
                current = ''
            else:
                current += ch
        words.append(current)
        for w in words:
            if w:
                ids += wordpiece(w)
        if not hits:
            return ids
        at, token = min(hits)
        ids.append(VOCAB[token])
        rest = rest[at + len(token):]


def second_tokenize(text, pair):
    ids = [CLS] + second_sequence(text) + [SEP]
    types = [0] * len(ids)
    if pair is not None:
        b = second_sequence(pair) + [SEP]
        ids += b
        types += [1] * len(b)
    return ids, types


# ---------------------------------------------------------------------------------------------------- texts

LONG_TARGETS = (3000, 1500, 2200)


def long_texts():
    """Texts of random vocabulary words (some with a piece that splits them: walk + ##ing), commas and full stops,
    cut by the second tokenizer to at most LONG_TARGETS tokens each (with [CLS] and [SEP])."""
    rng = np.random.RandomState(7)
    words = [w for w in dict.fromkeys(WORDS) if len(w) > 1]
    texts = []
    for target in LONG_TARGETS:
        out, count = [], 2
        while True:
            w = words[rng.randint(len(words))]
            if rng.rand() < 0.15:
                w += ['s', 'ed', 'ing', 'ly', 'er', 'ment'][rng.randint(6)]
            if rng.rand() < 0.05:
                w = w.capitalize()
            sign = ['', '', '', '', '', '', ',', '.'][rng.randint(8)]
            n = len(second_sequence(w + sign))
            if count + n > target:
                break
            out.append(w + sign)
            count += n
        texts.append(' '.join(out))
    return texts


TEXTS = {
    'plain': [
        ('padded-batch', [('The capital of France is Paris.', None),
                          ('Paris is the capital of France and its largest city, on the river.', None)]),
        ('pair', [('Where is the iron tower?', 'It stands in Paris.'),
                  ('Who wrote the book?', 'A young woman wrote it in the old city, near the river station.')]),
        ('single', [('Caf\u00e9 CR\u00c8ME costs 3 euros; \u6771\u4eac is far away, and \u00fcber-walking zzq\u20ac!',
                     None)]),
    ],
    'mlm': [
        ('padded-batch', [('The capital of France is [MASK].', None),
                          ('Paris is the [MASK] of France and its largest city.', None)]),
        ('pair', [('Where is the [MASK] tower?', 'It stands in Paris.'),
                  ('Who wrote the book?', 'A young [MASK] wrote it in the old city, near the river.')]),
        ('single', [('[MASK] and [mask] are not the same text, but [MASK]s is a word here.', None)]),
    ],
    'rerank': [
        ('pair', [('how big is london', 'London has nine million people.'),
                  ('what is the capital of france', 'Paris is the capital of France and its largest city.')]),
        ('single-pair', [('who wrote the book', 'A young woman wrote the book in Paris.')]),
    ],
    'sentence': [
        ('padded-batch', [('A man is eating food.', None),
                          ('A man is riding a white horse on an enclosed ground.', None)]),
        ('single', [('The quick brown fox jumps over the lazy dog.', None)]),
    ],
}


def make_inputs(tokenizer_path, spec, tokens=True):
    """inputs.json's cases: the library's encodings, checked against the second tokenizer, right-padded."""
    flat = [row for _, rows in spec for row in rows]
    answer = library_encode(tokenizer_path, flat)
    encodings = iter(answer['encodings'])
    cases = []
    for name, rows in spec:
        encoded = [next(encodings) for _ in rows]
        for (text, pair), e in zip(rows, encoded):
            ids, types = second_tokenize(text, pair)
            check(e['ids'] == ids and e['type_ids'] == types,
                  'tokenizer: the library gives %s / %s for %r / %r, the second tokenizer %s / %s'
                  % (e['ids'], e['type_ids'], text, pair, ids, types))
            check(all(0 <= i < answer['vocab_size'] for i in e['ids']), 'an id outside the vocabulary for %r' % text)
            check(all(m == 1 for m in e['attention_mask']), 'the library masked a token of %r' % text)
        length = max(len(e['ids']) for e in encoded)
        fill = lambda e, key, value: e[key] + [value] * (length - len(e[key]))  # noqa: E731
        case = {'name': name, 'texts': [t for t, _ in rows]}
        if any(p is not None for _, p in rows):
            case['pairs'] = [p for _, p in rows]
        case.update({'input_ids': [fill(e, 'ids', PAD) for e in encoded],
                     'token_type_ids': [fill(e, 'type_ids', 0) for e in encoded],
                     'attention_mask': [fill(e, 'attention_mask', 0) for e in encoded]})
        if tokens:
            case['tokens'] = [e['tokens'] for e in encoded]
        cases.append(case)
    return cases


# ---------------------------------------------------------------------------------------------------- the cases

# name: (architectures entry, class, head, sizes (hidden, heads, layers, intermediate), feed_forward_type, texts, extra)
CASES = {
    'jinabert-base': ('JinaBertModel', 'model', (32, 4, 2, 48), 'geglu', 'plain', {}),
    'jinabert-mlm': ('JinaBertForMaskedLM', 'mlm', (48, 6, 3, 64), 'geglu', 'mlm', {}),
    'jinabert-rerank': ('JinaBertForSequenceClassification', 'seqcls', (32, 8, 2, 48), 'reglu', 'rerank',
                        {'id2label': {'0': 'LABEL_0'}, 'label2id': {'LABEL_0': 0}}),
    'jinabert-sentence-mean': ('JinaBertForMaskedLM', 'sentence', (48, 12, 2, 64), 'geglu', 'sentence',
                               {'emb_pooler': 'mean'}),
    'jinabert-long': ('JinaBertModel', 'model', (48, 12, 2, 64), 'geglu', 'long', {'emb_pooler': 'mean'}),
    'jinabert-qk-post-norm': ('JinaBertForMaskedLM', 'qk', (48, 12, 2, 64), 'geglu', 'plain',
                              {'emb_pooler': 'mean', '_name_or_path': QK_IMPLEMENTATION}),
}


def make_config(architecture, sizes, feed_forward_type, extra):
    """The keys of jina-embeddings-v2-base-en's config.json, with this case's sizes."""
    hidden, heads, layers, intermediate = sizes
    auto = {'AutoConfig': IMPLEMENTATION + '--configuration_bert.JinaBertConfig',
            'AutoModel': IMPLEMENTATION + '--modeling_bert.JinaBertModel',
            'AutoModelForMaskedLM': IMPLEMENTATION + '--modeling_bert.JinaBertForMaskedLM',
            'AutoModelForSequenceClassification': IMPLEMENTATION + '--modeling_bert.JinaBertForSequenceClassification'}
    config = {'_name_or_path': IMPLEMENTATION, 'architectures': [architecture], 'attention_probs_dropout_prob': 0.0,
              'auto_map': auto, 'classifier_dropout': None, 'feed_forward_type': feed_forward_type,
              'gradient_checkpointing': False, 'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1,
              'hidden_size': hidden, 'initializer_range': 0.02, 'intermediate_size': intermediate,
              'layer_norm_eps': 1e-12, 'max_position_embeddings': 8192, 'model_max_length': 8192,
              'model_type': 'bert', 'num_attention_heads': heads, 'num_hidden_layers': layers, 'pad_token_id': 0,
              'position_embedding_type': 'alibi', 'torch_dtype': 'float32',
              'transformers_version': TRANSFORMERS_VERSION, 'type_vocab_size': 2, 'use_cache': True,
              'vocab_size': VOCAB_SIZE}
    config.update(extra)
    if config['_name_or_path'] == QK_IMPLEMENTATION:
        config['auto_map'] = {k: v.replace(IMPLEMENTATION, QK_IMPLEMENTATION) for k, v in auto.items()}
    return config


def sentence_transformers_files(directory, config):
    """jina-embeddings-v2-base-en's sentence-transformers files: Transformer, Pooling (mean), Normalize."""
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'},
               {'idx': 2, 'name': '2', 'path': '2_Normalize', 'type': 'sentence_transformers.models.Normalize'}]
    write_json(os.path.join(directory, 'modules.json'), modules, sort=False)
    os.makedirs(os.path.join(directory, '1_Pooling'))
    pooling = {'word_embedding_dimension': config['hidden_size'], 'pooling_mode_cls_token': False,
               'pooling_mode_mean_tokens': True, 'pooling_mode_max_tokens': False,
               'pooling_mode_mean_sqrt_len_tokens': False}
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling, sort=False)
    write_json(os.path.join(directory, 'sentence_bert_config.json'), {'max_seq_length': 8192, 'do_lower_case': False},
               sort=False)
    write_json(os.path.join(directory, 'config_sentence_transformers.json'), {'__version__': ST_VERSION}, sort=False)


# ---------------------------------------------------------------------------------------------------- weights

class Weights:
    """Draws tensors in a fixed order from one RandomState; names and values are kept in float32 as saved."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.w = {}

    def put(self, name, array):
        self.w[name] = torch.from_numpy(np.asarray(array, dtype=np.float32))

    def embedding(self, name, rows, cols, padding_idx=None):
        a = self.rng.normal(0.0, 0.02, (rows, cols))
        if padding_idx is not None:
            a[padding_idx] = 0.0
        self.put(name + '.weight', a)

    def linear(self, name, out, inp, bias=True):
        self.put(name + '.weight', self.rng.normal(0.0, 1.0 / np.sqrt(inp), (out, inp)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (out,)))

    def norm(self, name, size):
        self.put(name + '.weight', 1.0 + self.rng.normal(0.0, 0.1, (size,)))
        self.put(name + '.bias', self.rng.normal(0.0, 0.1, (size,)))


def prefix_of(head):
    """The *ForXxx classes keep the base model under "bert." (base_model_prefix); a saved JinaBertModel has none."""
    return '' if head in ('model', 'sentence', 'qk') else 'bert.'


def make_weights(head, config, seed):
    g = Weights(seed)
    p, h, i, v = prefix_of(head), config['hidden_size'], config['intermediate_size'], config['vocab_size']
    g.embedding(p + 'embeddings.word_embeddings', v, h, padding_idx=config['pad_token_id'])
    g.embedding(p + 'embeddings.token_type_embeddings', config['type_vocab_size'], h)
    g.norm(p + 'embeddings.LayerNorm', h)
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        for m in ('query', 'key', 'value'):
            g.linear(q + 'attention.self.' + m, h, h)
        if head == 'qk':  # jina-bert-v2-qk-post-norm's layer (see NOTES.md)
            g.norm(q + 'attention.self.layer_norm_q', h)
            g.norm(q + 'attention.self.layer_norm_k', h)
        g.linear(q + 'attention.output.dense', h, h)
        g.norm(q + 'attention.output.LayerNorm', h)
        if head == 'qk':
            g.norm(q + 'layer_norm_1', h)
            g.linear(q + 'mlp.up_gated_layer', 2 * i, h, bias=False)
            g.linear(q + 'mlp.down_layer', h, i)
            g.norm(q + 'layer_norm_2', h)
        else:
            g.linear(q + 'mlp.gated_layers', 2 * i, h, bias=False)
            g.linear(q + 'mlp.wo', h, i)
            g.norm(q + 'mlp.layernorm', h)
    if head in ('model', 'sentence', 'seqcls'):
        g.linear(p + 'pooler.dense', h, h)
    if head == 'mlm':
        g.linear('cls.predictions.transform.dense', h, h)
        g.norm('cls.predictions.transform.LayerNorm', h)
        g.put('cls.predictions.bias', g.rng.normal(0.0, 0.1, (v,)))
    elif head == 'seqcls':
        g.linear('classifier', len(config['id2label']), h)
    return g.w


# ---------------------------------------------------------------------------------------------------- forward

def code_slopes(n_heads):
    """JinaBertEncoder.rebuild_alibi_tensor's _get_alibi_head_slopes, in Python floats: for a power of two n,
    start = 2^(-2^-(log2(n) - 3)) and slope k = start * start^k; otherwise the slopes of the power of two m below n,
    followed by every other slope (indices 0, 2, 4, ...) of 2m heads, n - m of them."""
    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** k for k in range(n)]
    if math.log2(n_heads).is_integer():
        return power_of_two(n_heads)
    m = 2 ** math.floor(math.log2(n_heads))
    return power_of_two(m) + code_slopes(2 * m)[0::2][:n_heads - m]


def alibi(n_heads, length, slopes=None, sign=-1.0, one_sided=False, float64=False):
    """The alibi bias [heads, length, length] as the code builds it: -slope * |j - i| (symmetric), the slopes a
    float32 tensor and the distance an integer tensor, so one float32 product (float64=True keeps it exact)."""
    s = torch.tensor(code_slopes(n_heads) if slopes is None else slopes,
                     dtype=torch.float64 if float64 else torch.float32)
    pos = torch.arange(length)
    dist = (pos[None, :] - pos[:, None]) if one_sided else (pos[None, :] - pos[:, None]).abs()
    return (sign * s[:, None, None] * dist[None]).to(torch.float64)


def layer_norm(x, w, name, eps):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], w[name + '.weight'].double(), w[name + '.bias'].double(),
                                          eps)


def linear(x, w, name):
    b = w.get(name + '.bias')
    return torch.nn.functional.linear(x, w[name + '.weight'].double(), None if b is None else b.double())


def encoder(config, w, p, ids, mask, types, mistake=None):
    """JinaBertModel.forward's last_hidden_state, batched and padded, with the eager attention (SDPA's 'torch'
    implementation computes the same: softmax(q k^T / sqrt(d) + mask + alibi) v)."""
    n, length = ids.shape
    h, heads, eps = config['hidden_size'], config['num_attention_heads'], config['layer_norm_eps']
    d, inter = h // heads, config['intermediate_size']
    qk = p + 'encoder.layer.0.attention.self.layer_norm_q.weight' in w
    check(not qk or config['feed_forward_type'] == 'geglu', 'only geglu is written for the qk-post-norm layer')
    if mistake == 'no types':
        types = torch.zeros_like(types)
    x = w[p + 'embeddings.word_embeddings.weight'].double()[ids] \
        + w[p + 'embeddings.token_type_embeddings.weight'].double()[types]
    x = layer_norm(x, w, p + 'embeddings.LayerNorm', eps)
    slopes = {'sorted slopes': sorted(code_slopes(heads), reverse=True),
              'slopes of 8 heads': code_slopes(8)[:heads]}.get(mistake)
    bias = alibi(heads, length, slopes, sign=1.0 if mistake == 'alibi +' else -1.0,
                 one_sided=mistake == 'alibi one-sided', float64=mistake == 'float64 alibi')
    if mistake == 'no alibi':
        bias = torch.zeros_like(bias)
    extended = (1.0 - mask.double())[:, None, :] * MIN32  # get_extended_attention_mask: [n, 1, keys]
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        split = lambda t: t.view(n, length, heads, d).permute(0, 2, 1, 3)  # noqa: E731
        query, key, value = (linear(x, w, q + 'attention.self.' + m) for m in ('query', 'key', 'value'))
        if qk and mistake == 'q/k norm per head':
            per_head = lambda t, m: torch.cat([layer_norm(t[..., j * d:(j + 1) * d], {  # noqa: E731
                'x.weight': w[q + m + '.weight'][j * d:(j + 1) * d], 'x.bias': w[q + m + '.bias'][j * d:(j + 1) * d]},
                'x', eps) for j in range(heads)], -1)
            query, key = per_head(query, 'attention.self.layer_norm_q'), per_head(key, 'attention.self.layer_norm_k')
        elif qk:  # layer_norm_q / layer_norm_k over the whole projection (all heads), before the head split
            query = layer_norm(query, w, q + 'attention.self.layer_norm_q', eps)
            key = layer_norm(key, w, q + 'attention.self.layer_norm_k', eps)
        query, key, value = split(query), split(key), split(value)
        context = torch.empty(n, heads, length, d)
        for b in range(n):
            for k in range(heads):  # one head at a time: 3,000^2 scores a head
                scores = query[b, k] @ key[b, k].T
                if mistake == 'alibi before scaling':
                    scores = (scores + bias[k]) / math.sqrt(d) + extended[b]
                else:
                    scores = scores / math.sqrt(d) + extended[b] + bias[k]
                context[b, k] = torch.softmax(scores, dim=-1) @ value[b, k]
        context = context.permute(0, 2, 1, 3).reshape(n, length, h)
        attention_output = layer_norm(linear(context, w, q + 'attention.output.dense') + x, w,
                                      q + 'attention.output.LayerNorm', eps)
        if qk:
            # JinaBertLayer.forward: layer_norm_1(residual + attention_output), the residual (the layer's input)
            # added a second time, then layer_norm_2(h + mlp(h)) with up = first half, act(second half)
            h1 = layer_norm((0 if mistake == 'single residual' else x) + attention_output, w, q + 'layer_norm_1', eps)
            up_all = linear(h1, w, q + 'mlp.up_gated_layer')
            up, gate = up_all[..., :inter], up_all[..., inter:]
            if mistake == 'GLU halves swapped':
                up, gate = gate, up
            y = up * torch.nn.functional.gelu(gate, approximate='tanh' if mistake == 'tanh GELU' else 'none')
            x = layer_norm(h1 + linear(y, w, q + 'mlp.down_layer'), w, q + 'layer_norm_2', eps)
            continue
        x = attention_output
        gated_all = linear(x, w, q + 'mlp.gated_layers')
        gated, non_gated = gated_all[..., :inter], gated_all[..., inter:]
        if mistake == 'GLU halves swapped':
            gated, non_gated = non_gated, gated
        if config['feed_forward_type'] == 'reglu' and mistake != 'GLU act from hidden_act':
            act = torch.relu(gated)
        elif config['feed_forward_type'] in ('geglu', 'reglu'):
            act = torch.nn.functional.gelu(gated, approximate='tanh' if mistake == 'tanh GELU' else 'none')
        else:
            raise ValueError(config['feed_forward_type'])
        x = layer_norm(linear(act * non_gated, w, q + 'mlp.wo') + x, w, q + 'mlp.layernorm', eps)
    return x


def heads_forward(head, config, w, hidden, mask):
    p = prefix_of(head)
    out = {}
    if head in ('model', 'seqcls'):
        pooled = torch.tanh(linear(hidden[:, 0], w, p + 'pooler.dense'))
        if head == 'model':
            out['last_hidden_state'], out['pooler_output'] = hidden, pooled
        else:
            out['last_hidden_state'], out['logits'] = hidden, linear(pooled, w, 'classifier')
    elif head == 'mlm':
        t = torch.nn.functional.gelu(linear(hidden, w, 'cls.predictions.transform.dense'))  # ACT2FN['gelu']
        t = layer_norm(t, w, 'cls.predictions.transform.LayerNorm', config['layer_norm_eps'])
        logits = t @ w[p + 'embeddings.word_embeddings.weight'].double().T + w['cls.predictions.bias'].double()
        out['last_hidden_state'], out['logits'] = hidden, logits
    elif head == 'qk':
        out['last_hidden_state'] = hidden
    elif head == 'sentence':
        m = mask.double().unsqueeze(-1)
        mean = (hidden * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)
        out['token_embeddings'] = hidden
        out['sentence_embedding'] = mean / torch.clamp(mean.norm(dim=-1, keepdim=True), min=1e-12)
    else:
        raise ValueError(head)
    return out


def tensors(case):
    return (torch.tensor(case['input_ids']), torch.tensor(case['attention_mask']),
            torch.tensor(case['token_type_ids']))


def run(head, config, w, case, mistake=None):
    ids, mask, types = tensors(case)
    return heads_forward(head, config, w, encoder(config, w, prefix_of(head), ids, mask, types, mistake), mask)


# ---------------------------------------------------------------------------------------------------- self-checks

def closed_form_slopes(n_heads):
    m = 1 << (n_heads.bit_length() - 1)
    first = [2.0 ** (-8.0 * (k + 1) / m) for k in range(m)]
    return first + [2.0 ** (-4.0 * (2 * j + 1) / m) for j in range(n_heads - m)]


def check_slopes():
    for n in range(1, 17):
        a = torch.tensor(code_slopes(n), dtype=torch.float32)
        b = torch.tensor(closed_form_slopes(n), dtype=torch.float32)
        check(torch.equal(a, b), 'slopes of %d heads: %s against %s' % (n, a.tolist(), b.tolist()))
    check(code_slopes(4) == [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8], 'slopes of 4 heads')
    check(code_slopes(6) == [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3], 'slopes of 6 heads')
    check(code_slopes(8) == [2.0 ** -k for k in range(1, 9)], 'slopes of 8 heads')
    twelve = torch.tensor(code_slopes(12), dtype=torch.float32).double()
    want = torch.tensor([2.0 ** -k for k in range(1, 9)] + [2.0 ** -0.5, 2.0 ** -1.5, 2.0 ** -2.5, 2.0 ** -3.5])
    check((twelve - want).abs().max() < 1e-7, 'slopes of 12 heads')


def second_encoder(config, w, p, ids, types):
    """One unpadded row (real tokens only), written differently: einsum attention, slopes from the closed form,
    distances as a float outer difference, hand-written LayerNorm, erf GELU and softmax, GLU halves by chunk."""
    h, heads, eps = config['hidden_size'], config['num_attention_heads'], config['layer_norm_eps']
    d = h // heads

    def ln(x, name):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + eps) * w[name + '.weight'].double() + w[name + '.bias'].double()

    def lin(x, name):
        y = torch.einsum('ti,oi->to', x, w[name + '.weight'].double())
        return y + w[name + '.bias'].double() if name + '.bias' in w else y

    length = len(ids)
    pos = torch.arange(length, dtype=torch.float32)
    dist = (pos.view(-1, 1) - pos.view(1, -1)).abs()
    slopes = torch.tensor(closed_form_slopes(heads), dtype=torch.float32)
    bias = torch.stack([-(s * dist) for s in slopes]).double()  # float32 products, as the code
    x = ln(w[p + 'embeddings.word_embeddings.weight'].double()[ids]
           + w[p + 'embeddings.token_type_embeddings.weight'].double()[types], p + 'embeddings.LayerNorm')
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        qkv = [lin(x, q + 'attention.self.' + m) for m in ('query', 'key', 'value')]
        if q + 'attention.self.layer_norm_q.weight' in w:
            qkv[0] = ln(qkv[0], q + 'attention.self.layer_norm_q')
            qkv[1] = ln(qkv[1], q + 'attention.self.layer_norm_k')
        qkv = [t.view(length, heads, d) for t in qkv]
        heads_out = []
        for k in range(heads):
            s = torch.einsum('id,jd->ij', qkv[0][:, k], qkv[1][:, k]) * d ** -0.5 + bias[k]
            e = torch.exp(s - s.max(-1, keepdim=True).values)
            heads_out.append(torch.einsum('ij,jd->id', e / e.sum(-1, keepdim=True), qkv[2][:, k]))
        attended = ln(lin(torch.cat(heads_out, -1), q + 'attention.output.dense') + x, q + 'attention.output.LayerNorm')
        if q + 'layer_norm_1.weight' in w:
            h1 = ln(attended + x, q + 'layer_norm_1')
            a, b = lin(h1, q + 'mlp.up_gated_layer').chunk(2, dim=-1)
            gelu_b = 0.5 * b * (1 + torch.erf(b / math.sqrt(2)))
            x = ln(lin(a * gelu_b, q + 'mlp.down_layer') + h1, q + 'layer_norm_2')
            continue
        x = attended
        a, b = lin(x, q + 'mlp.gated_layers').chunk(2, dim=-1)
        act = a.clamp(min=0) if config['feed_forward_type'] == 'reglu' else 0.5 * a * (1 + torch.erf(a / math.sqrt(2)))
        x = ln(lin(act * b, q + 'mlp.wo') + x, q + 'mlp.layernorm')
    return x


def check_unpadded(name, config, w, head, case, hidden):
    ids, mask, types = tensors(case)
    worst = 0.0
    for r in range(len(ids)):
        n = int(mask[r].sum())
        other = second_encoder(config, w, prefix_of(head), ids[r, :n], types[r, :n])
        diff = (other - hidden[r, :n]).abs().max().item()
        check(diff < 1e-9, '%s %s row %d: the second encoder differs by %.2e' % (name, case['name'], r, diff))
        worst = max(worst, diff)
    return worst


def check_padding(name, head, config, w, case, outputs):
    """Each row alone (no padding) gives its padded-batch rows at its real positions."""
    for r in range(len(case['input_ids'])):
        n = sum(case['attention_mask'][r])
        alone = {k: [v[r][:n]] for k, v in case.items() if k in ('input_ids', 'attention_mask', 'token_type_ids')}
        single = run(head, config, w, alone)
        for key, value in single.items():
            mine = outputs[key][r]
            if value.dim() == 3:
                diff = (value[0] - mine[:n]).abs().max().item()
            else:
                diff = (value[0] - mine).abs().max().item()
            check(diff < 1e-9, '%s %s row %d: %s alone differs from the padded batch by %.2e'
                  % (name, case['name'], r, key, diff))


def check_heads(head, config, w, case, outputs):
    """The heads recomputed another way from the hidden states."""
    mask = case['attention_mask']
    p = prefix_of(head)
    hidden = outputs.get('last_hidden_state', outputs.get('token_embeddings'))
    for r in range(len(mask)):
        if head in ('model', 'seqcls'):
            dense = torch.nn.Linear(config['hidden_size'], config['hidden_size'])
            dense.weight.data = w[p + 'pooler.dense.weight'].double()
            dense.bias.data = w[p + 'pooler.dense.bias'].double()
            pooled = torch.tanh(dense(hidden[r, 0]))
            if head == 'model':
                check((pooled - outputs['pooler_output'][r]).abs().max() < 1e-12, 'pooler_output')
            else:
                logit = (w['classifier.weight'].double() @ pooled) + w['classifier.bias'].double()
                check((logit - outputs['logits'][r]).abs().max() < 1e-12, 'classifier logits')
        elif head == 'mlm':
            t = linear(hidden[r], w, 'cls.predictions.transform.dense')
            t = 0.5 * t * (1 + torch.erf(t / math.sqrt(2)))
            mu, var = t.mean(-1, keepdim=True), t.var(-1, unbiased=False, keepdim=True)
            t = (t - mu) / torch.sqrt(var + config['layer_norm_eps']) \
                * w['cls.predictions.transform.LayerNorm.weight'].double() \
                + w['cls.predictions.transform.LayerNorm.bias'].double()
            logits = torch.einsum('th,vh->tv', t, w['bert.embeddings.word_embeddings.weight'].double()) \
                + w['cls.predictions.bias'].double()
            check((logits - outputs['logits'][r]).abs().max() < 1e-9, 'MLM logits')
        elif head == 'sentence':
            rows = [hidden[r, t] for t in range(len(mask[r])) if mask[r][t]]
            mean = sum(rows) / len(rows)
            emb = mean / math.sqrt(float((mean * mean).sum()))
            check((emb - outputs['sentence_embedding'][r]).abs().max() < 1e-12, 'sentence_embedding')


MISTAKES = ('no alibi', 'alibi +', 'alibi one-sided', 'sorted slopes', 'slopes of 8 heads', 'alibi before scaling',
            'GLU halves swapped', 'no types', 'tanh GELU')


def check_mistakes(name, head, config, w, cases, outputs, mistakes):
    """Each mistake moves the main output (logits, or the hidden states) by more than its threshold, somewhere."""
    key = 'logits' if head in ('mlm', 'seqcls') else 'last_hidden_state'
    found = []
    for mistake in mistakes:
        move = 0.0
        for case, out in zip(cases, outputs):
            wrong = run(head, config, w, case, mistake)
            mask = torch.tensor(case['attention_mask']).bool()
            per_row = key == 'logits' and head == 'seqcls'
            a, b = (wrong[key], out[key]) if per_row else (wrong[key][mask], out[key][mask])
            move = max(move, (a - b).abs().max().item())
        limit = 1e-4 if mistake == 'tanh GELU' else 1e-3
        check(move > limit, '%s: the mistake "%s" moves %s by only %.1e' % (name, mistake, key, move))
        found.append('%s %.0e' % (mistake, move))
    return found


def check_roundtrip(tokenizer, saved_path):
    with open(saved_path) as f:
        saved = json.load(f)
    check(saved == tokenizer, 'the library writes back a different tokenizer.json: %s'
          % [k for k in tokenizer if saved.get(k) != tokenizer[k]])


# ---------------------------------------------------------------------------------------------------- main

def main():
    check_slopes()
    tokenizer = tokenizer_json()
    scratch = tempfile.mkdtemp(prefix='jinabert-fixtures-')
    try:
        path = os.path.join(scratch, 'tokenizer.json')
        with open(path, 'w') as f:
            f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
        answer = library_encode(path, [('a', None)], save=os.path.join(scratch, 'saved.json'))
        check_roundtrip(tokenizer, os.path.join(scratch, 'saved.json'))
        check(answer['vocab_size'] == len(VOCAB) <= VOCAB_SIZE, 'the library counts %d tokens, the vocabulary has %d'
              % (answer['vocab_size'], len(VOCAB)))
        inputs = {kind: make_inputs(path, spec) for kind, spec in TEXTS.items()}
        longs = long_texts()
        inputs['long'] = make_inputs(path, [('long-single', [(longs[0], None)]),
                                            ('long-padded-batch', [(longs[1], None), (longs[2], None)])], tokens=False)
    finally:
        shutil.rmtree(scratch)
    long_lengths = [sum(m) for c in inputs['long'] for m in c['attention_mask']]
    check(all(t - 40 <= n <= t for n, t in zip(long_lengths, LONG_TARGETS)), 'long inputs of %s tokens' % long_lengths)

    os.makedirs(OUT, exist_ok=True)
    summary = []
    for seed, (name, (architecture, head, sizes, ff, texts, extra)) in enumerate(CASES.items(), start=300):
        config = make_config(architecture, sizes, ff, extra)
        w = make_weights(head, config, seed)
        cases = inputs[texts]
        expected, outputs, notes = {}, [], []
        with torch.no_grad():
            worst = 0.0
            for i, case in enumerate(cases):
                out = run(head, config, w, case)
                hidden = out.get('last_hidden_state', out.get('token_embeddings'))
                worst = max(worst, check_unpadded(name, config, w, head, case, hidden))
                check_padding(name, head, config, w, case, out)
                check_heads(head, config, w, case, out)
                outputs.append(out)
                for key, value in out.items():
                    expected['case%d.%s' % (i, key)] = value.float()
            notes.append('unpadded %.1e' % worst)
            if name == 'jinabert-mlm':
                notes.append('mistakes: ' + ', '.join(check_mistakes(name, head, config, w, cases, outputs,
                                                                     MISTAKES)))
            if name == 'jinabert-qk-post-norm':
                notes.append('mistakes: ' + ', '.join(check_mistakes(name, head, config, w, cases, outputs, (
                    'single residual', 'GLU halves swapped', 'q/k norm per head', 'tanh GELU'))))
            if name == 'jinabert-rerank':
                notes.append('mistakes: ' + ', '.join(check_mistakes(name, head, config, w, cases, outputs,
                                                                     ('GLU act from hidden_act',))))
            move = 0.0
            for case, out in zip(cases, outputs):
                key = 'last_hidden_state' if 'last_hidden_state' in out else 'token_embeddings'
                other = run(head, config, w, case, 'float64 alibi')[key]
                move = max(move, (other - out[key]).abs().max().item())
            notes.append('float64 alibi moves it by %.1e' % move)
        directory = os.path.join(OUT, name)
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
            f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
        write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config())
        write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            f.write(compact_json(cases) + '\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        if head == 'sentence':
            sentence_transformers_files(directory, config)
        summary.append('%-24s %-45s %s' % (name, ' '.join(sorted(k[6:] for k in expected if k.startswith('case0.'))),
                                           '; '.join(notes)))
    print('\n'.join(summary))
    print('tokenizer: %d tokens (config vocab_size %d), long inputs %s tokens' % (len(VOCAB), VOCAB_SIZE, long_lengths))
    print('wrote', len(CASES), 'cases to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
