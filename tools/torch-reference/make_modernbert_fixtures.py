#!/usr/bin/env python3
"""Random-weight ModernBERT checkpoints in Hugging Face's layout, with independent reference outputs computed with
PyTorch, and token ids from Hugging Face's tokenizers library.

The forward pass below is written with plain torch operations from the semantics of Hugging Face transformers'
models/modernbert/modeling_modernbert.py and modular_modernbert.py (both the older eager/sdpa code with
_update_attention_mask and the newer code built on masking_utils' create_bidirectional_sliding_window_mask),
configuration_modernbert.py, and sentence-transformers' Transformer / Pooling / Normalize modules; it shares no code
with vectorbert, and transformers itself is not needed. The token ids of every input come from the npm package
"tokenizers" (the Rust library behind transformers' fast tokenizers) through modernbert-tokenize.mjs, which loads
the tokenizer.json written here, so the fixtures also pin tokenizer parity. Regenerate everything (a minute or so):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/modernbert-npm && (cd /tmp/modernbert-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/modernbert-npm/node_modules /usr/bin/python3 tools/torch-reference/make_modernbert_fixtures.py

(without NODE_PATH the helper falls back to tools/tokenizer-reference/node_modules, which `npm ci` there installs at
the same version). No arguments. Writes engine/src/test/resources/architectures/modernbert/<case>/ (the same bytes on
every run: numpy's legacy RandomState draws the weights and the long texts, the BPE merges are learned by a
deterministic loop below, the reference is computed in float64 on one thread, then rounded to float32):

    config.json               the keys of answerdotai/ModernBERT-base's config.json (sorted, indent 2), with the
                              legacy rope spelling (global_rope_theta, local_rope_theta, global_attn_every_n_layers),
                              except modernbert-mlm-rope-parameters (layer_types + rope_parameters, as transformers 5
                              writes it)
    model.safetensors         float32, the class's state-dict names sorted, __metadata__ {"format": "pt"};
                              ModernBertModel (the sentence cases, modernbert-long): embeddings.*, layers.N.*,
                              final_norm.* with no prefix; every *ForXxx class: model.embeddings.*, model.layers.N.*,
                              model.final_norm.* plus head.dense.weight, head.norm.weight and
                              decoder.bias (MaskedLM; decoder.weight is tied to model.embeddings.tok_embeddings.weight
                              and left out as save_pretrained leaves it out) or classifier.{weight,bias}.
                              layers.0 has no attn_norm (nn.Identity). No bias tensors unless the config asks for them
                              (only modernbert-qa does: attention_bias, mlp_bias, norm_bias, classifier_bias true).
    tokenizer.json            the same small byte-level BPE in every case (build_tokenizer; NOTES.md)
    tokenizer_config.json, special_tokens_map.json   as ModernBERT-base's, for this vocabulary
    inputs.json               a list of cases: name, texts (strings, or [a, b] pairs), input_ids, attention_mask and
                              the library's tokens; the sentence cases also prompt_name and prompt (the ids are those
                              of prompt + text). No token_type_ids: ModernBERT's tokenizer_config has
                              model_input_names ["input_ids", "attention_mask"].
    expected.safetensors      caseN.<output> in float32:
                                last_hidden_state [n, len, hidden]   after final_norm, every case but the sentence ones
                                logits [n, len, vocab]               ModernBertForMaskedLM
                                logits [n, num_labels]               ModernBertForSequenceClassification
                                logits [n, len, num_labels]          ModernBertForTokenClassification
                                start_logits, end_logits [n, len]    ModernBertForQuestionAnswering
                                token_embeddings [n, len, hidden], sentence_embedding [n, hidden]   sentence cases
                              Padded positions hold what transformers' eager attention computes there (the mask is
                              additive torch.finfo(float32).min; a pad query of a local layer whose window holds no
                              real key attends uniformly to every position). Flash-attention's unpadded path gives
                              zeros there instead; compare real positions only (see NOTES.md).
    modules.json, config_sentence_transformers.json, sentence_bert_config.json, 1_Pooling/config.json
                              the two sentence-transformers directories only

The cases: modernbert-mlm, modernbert-mlm-rope-parameters (same weights and inputs), modernbert-seqcls-cls,
modernbert-seqcls-mean, modernbert-rerank, modernbert-tokcls, modernbert-qa, modernbert-sentence-mean (nomic-ai/modernbert-embed-base
shape: mean pooling, Normalize, prompts), modernbert-sentence-cls (Alibaba-NLP/gte-modernbert-base shape: CLS
pooling, Normalize) and modernbert-long (ModernBertModel, one input of about 3,000 tokens and a padded batch of two
of about 1,500 and 2,200). The short cases' inputs: case0 padded-batch (two texts, one longer than the window),
case1 pair (two text pairs, [CLS] A [SEP] B [SEP], padded), case2 single (one unpadded text).

Numbers follow transformers where it fixes them in float32: the rotary angles are float32 products, as
ModernBertRotaryEmbedding (and flash-attn's rotary cache) computes them: inv_freq = 1 / theta ** (float32(2i) / d)
in float32 arithmetic, angle = float32(position) * inv_freq rounded to float32, then cos and sin (here in float64 of
that float32 angle). At position 3,000 a float32 angle is off the exact one by up to 1.2e-4 radians, so this is
visible in modernbert-long; the script prints how much the outputs move with float64 angles.

Weight scale as in make_family_fixtures.py: embeddings std 0.02 with a zero pad row, Linear weights std
1/sqrt(fan_in), biases std 0.1, LayerNorm weights 1 + std 0.1 (and biases std 0.1 where norm_bias is true).

Self-checks run before a case is written (the script stops on the first failure):
  tokenizer  the library's byte alphabet is the 256 characters used here; the library writes back (Tokenizer.save)
             the tokenizer.json it loaded unchanged (but for the merges' [a, b] spelling and ignore_merges false,
             which it adds); every id is below vocab_size and the library's vocabulary size
             is config's vocab_size; [MASK] (lstrip) swallows the space before it; NFD input gives NFC's ids;
             the added tokens "    ", "  " and |||IP_ADDRESS||| are matched; the long texts average more than 1.3
             tokens a word; the long inputs are at most, and within 40 of, 3,000 / 1,500 / 2,200 tokens
  config     the legacy and rope_parameters spellings give the same layer plan; both written configs parse to it
  forward    for every case and input: a second encoder written differently (unpadded like the flash-attention
             path: real tokens only, one sequence at a time, rotary as a complex rotation, the window as a band of
             triu/tril, -inf masking, hand-written LayerNorm, GELU and GeGLU split) agrees to 1e-9 at real
             positions; each row run alone equals its rows of the padded batch at its real positions (1e-9);
             pooling, normalisation and the heads recomputed another way agree
  mistakes   on modernbert-mlm, each of these changes the logits by more than 1e-3 (so the fixture catches it):
             no window, window one wider (|i-j| <= w/2 + 1), local and global theta swapped, interleaved (GPT-J)
             rotary, GeGLU halves swapped, a LayerNorm on layer 0's attention input; the tanh GELU by more than 1e-4
  rope       modernbert-mlm-rope-parameters' outputs are bit-identical to modernbert-mlm's
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from make_fixtures import write_safetensors  # noqa: E402  (this directory's sibling script)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'modernbert')
HELPER = os.path.join(HERE, 'modernbert-tokenize.mjs')
TRANSFORMERS_VERSION = '4.48.0'  # nominal: the legacy configs are written in that version's layout, not by it
TRANSFORMERS_5_VERSION = '5.0.0'  # nominal, for the rope_parameters spelling
MIN32 = float(torch.finfo(torch.float32).min)

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def write_json(path, value, sort=True):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=sort, ensure_ascii=False) + '\n')


def compact_json(value, depth=0):
    """JSON with one space of indent a level (as json.dump(indent=1)), except that a list of scalars (ids, a mask,
    tokens, texts) stays on one line."""
    pad = ' ' * (depth + 1)
    if isinstance(value, dict):
        items = ['%s%s: %s' % (pad, json.dumps(k, ensure_ascii=False), compact_json(v, depth + 1))
                 for k, v in value.items()]
        return '{\n' + ',\n'.join(items) + '\n' + ' ' * depth + '}'
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return '[\n' + ',\n'.join(pad + compact_json(v, depth + 1) for v in value) + '\n' + ' ' * depth + ']'
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------------- tokenizer

def node(request):
    """One call of modernbert-tokenize.mjs."""
    proc = subprocess.run(['node', HELPER], input=json.dumps(request).encode(), capture_output=True)
    if proc.returncode != 0:
        sys.exit('modernbert-tokenize.mjs failed:\n' + proc.stderr.decode())
    return json.loads(proc.stdout)


def byte_alphabet():
    """GPT-2's bytes_to_unicode characters, in its order (printable bytes first, then the others shifted to 256+)."""
    printable = list(range(ord('!'), ord('~') + 1)) + list(range(ord('\xa1'), ord('\xac') + 1)) \
        + list(range(ord('\xae'), ord('\xff') + 1))
    shifted = [b for b in range(256) if b not in printable]
    return [chr(b) for b in printable] + [chr(256 + n) for n in range(len(shifted))]


# The BPE is learned on this text (a few paragraphs and some code), so common words become one or a few tokens and
# rarer ones many.
CORPUS = [
    "The model reads a text as a list of tokens. Each token is a piece of a word, a whole word, a space or a sign. "
    "A small vocabulary has to split most words into several pieces, and the pieces of a rare word are often single "
    "letters. The capital of France is Paris, and the capital of Italy is Rome.",
    "Rotary positions turn each query and key by an angle that grows with the position, so the score between two "
    "tokens depends on how far apart they are. Local layers only look at the tokens inside a window; global layers "
    "look at the whole text. The window of this model is small, so a long text shows the difference.",
    "A team of five people wrote the code in two weeks. They tested it on a long text, on a short text and on a pair "
    "of texts, and they wrote down what they found. The server answered from a room in the north wing of the old "
    "building, where the team had their desks.",
    "def area(radius):\n    return 3.14 * radius * radius\n\n\nclass Point:\n    def __init__(self, x, y):\n"
    "        self.x = x\n        self.y = y\n",
    "We call the first token the class token and the last one the separator. Padding fills a short text up to the "
    "length of the longest one in the batch, and the attention mask tells the model which tokens are real.",
    "Where is the nearest station? Who wrote this letter, and when did it arrive? How many people live in the "
    "city, and what do they do for work? These are questions, and a model that answers them has to find the "
    "answer in a longer text that comes with the question.",
    "In the morning the weather was cold and grey, but by the afternoon the sun came out and the streets were full "
    "of people walking, talking and buying things in the small shops along the river. The shops close early in "
    "the winter and late in the summer.",
    "Search queries are short and documents are long. An embedding model turns both into vectors, and the vectors "
    "of a query and of the documents that answer it should point the same way. The model is trained on pairs of "
    "queries and documents, and on pairs that do not match.",
    "for (int i = 0; i < length; i++) {\n    total += values[i] * weights[i];\n}\nreturn total / length;\n",
]
N_MERGES = 110
UNUSED_TO = 384  # the vocabulary is filled up to this size with [unusedN] tokens, as ModernBERT's is up to 50368


def learn_merges(words, count):
    """Byte-level BPE merges learned by the textbook loop: the most frequent adjacent pair (weighted by word
    frequency) is merged, ties broken by the smallest pair in string order; deterministic, unlike tokenizers'
    BpeTrainer. Words are the library's pre-tokenized (ByteLevel) words."""
    freq = collections.Counter(words)
    split = {w: list(w) for w in freq}
    merges = []
    for _ in range(count):
        pairs = collections.Counter()
        for w, n in freq.items():
            s = split[w]
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] += n
        best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
        check(best[1] >= 2, 'the corpus ran out of pairs after %d merges' % len(merges))
        a, b = best[0]
        merges.append((a, b))
        for w, s in split.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            split[w] = out
    return merges


def added(token_id, content, special, normalized=None, lstrip=False):
    """An added_tokens entry as tokenizers writes it (ModernBERT's flags: the special tokens are not normalized,
    the others are)."""
    return {'id': token_id, 'content': content, 'single_word': False, 'lstrip': lstrip, 'rstrip': False,
            'normalized': (not special) if normalized is None else normalized, 'special': special}


def build_tokenizer():
    """ModernBERT's tokenizer.json layout (OLMo's GPT-NeoX-style byte-level BPE plus ModernBERT's special tokens and
    template) with a small vocabulary: ids 0 and 1 are |||IP_ADDRESS||| and <|padding|>, then the 256 byte
    characters, the merges' tokens, whitespace-run added tokens (longest first, as 50254..50276 are),
    |||EMAIL_ADDRESS|||, |||PHONE_NUMBER|||, <|endoftext|>, [UNK] [CLS] [SEP] [PAD] [MASK] and [unusedN] up to
    UNUSED_TO. Which of these facts are the hub file's and which are inferred: see NOTES.md."""
    alphabet = byte_alphabet()
    check(sorted(alphabet) == sorted(node({'op': 'alphabet'})['alphabet']),
          "the library's ByteLevel alphabet is not GPT-2's bytes_to_unicode")
    words = [w for text in node({'op': 'pretokenize', 'texts': CORPUS})['words'] for w in text]
    merges = learn_merges(words, N_MERGES)
    vocab = {'|||IP_ADDRESS|||': 0, '<|padding|>': 1}
    for c in alphabet:
        vocab[c] = len(vocab)
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    tokens = [added(0, '|||IP_ADDRESS|||', False), added(1, '<|padding|>', True)]

    def add(content, special, **flags):
        vocab[content] = len(vocab)
        tokens.append(added(vocab[content], content, special, **flags))

    for n in (4, 3, 2):
        add(' ' * n, False)
    add('|||EMAIL_ADDRESS|||', False)
    add('|||PHONE_NUMBER|||', False)
    add('<|endoftext|>', True)
    for t in ('[UNK]', '[CLS]', '[SEP]', '[PAD]'):
        add(t, True)
    add('[MASK]', True, lstrip=True)
    while len(vocab) < UNUSED_TO:
        add('[unused%d]' % (len(vocab) - vocab['[MASK]'] - 1), False)
    cls, sep = vocab['[CLS]'], vocab['[SEP]']
    special = lambda name: {'SpecialToken': {'id': name, 'type_id': 0}}  # noqa: E731
    sequence = lambda name, t: {'Sequence': {'id': name, 'type_id': t}}  # noqa: E731
    byte_level = {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': True}
    tokenizer = {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': tokens,
        'normalizer': {'type': 'NFC'},
        'pre_tokenizer': byte_level,
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [special('[CLS]'), sequence('A', 0), special('[SEP]')],
            'pair': [special('[CLS]'), sequence('A', 0), special('[SEP]'), sequence('B', 1),
                     {'SpecialToken': {'id': '[SEP]', 'type_id': 1}}],
            'special_tokens': {'[CLS]': {'id': '[CLS]', 'ids': [cls], 'tokens': ['[CLS]']},
                               '[SEP]': {'id': '[SEP]', 'ids': [sep], 'tokens': ['[SEP]']}}},
        'decoder': dict(byte_level),
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': None,
                  'end_of_word_suffix': None, 'fuse_unk': False, 'byte_fallback': False, 'vocab': vocab,
                  'merges': ['%s %s' % m for m in merges]},
    }
    return tokenizer


def tokenizer_config(tokenizer):
    """tokenizer_config.json as ModernBERT-base's (added_tokens_decoder with each added token's flags,
    model_max_length 8192, PreTrainedTokenizerFast, no token_type_ids)."""
    decoder = {str(t['id']): {k: t[k] for k in ('content', 'lstrip', 'normalized', 'rstrip', 'single_word',
                                                  'special')} for t in tokenizer['added_tokens']}
    return {'added_tokens_decoder': decoder, 'clean_up_tokenization_spaces': True, 'cls_token': '[CLS]',
            'mask_token': '[MASK]', 'model_input_names': ['input_ids', 'attention_mask'], 'model_max_length': 8192,
            'pad_token': '[PAD]', 'sep_token': '[SEP]', 'tokenizer_class': 'PreTrainedTokenizerFast',
            'unk_token': '[UNK]'}


def special_tokens_map():
    entry = lambda c, lstrip=False: {'content': c, 'lstrip': lstrip, 'normalized': False, 'rstrip': False,  # noqa
                                     'single_word': False}
    return {'cls_token': entry('[CLS]'), 'mask_token': entry('[MASK]', True), 'pad_token': entry('[PAD]'),
            'sep_token': entry('[SEP]'), 'unk_token': entry('[UNK]')}


def check_roundtrip(mine, saved_path):
    """The library writes back what it read: same JSON up to the merges' spelling (it writes [a, b] pairs) and the
    defaults it adds (model.ignore_merges false)."""
    with open(saved_path) as f:
        theirs = json.load(f)
    theirs['model']['merges'] = [' '.join(m) if isinstance(m, list) else m for m in theirs['model']['merges']]
    check(theirs['model'].pop('ignore_merges', False) is False, 'ignore_merges')
    for key in sorted(set(mine) | set(theirs)):
        check(mine.get(key) == theirs.get(key), 'the library wrote tokenizer.json "%s" back differently:\n%s\n%s'
              % (key, json.dumps(mine.get(key))[:400], json.dumps(theirs.get(key))[:400]))


# ---------------------------------------------------------------------------------------------------- texts

MLM_TEXTS = ['The capital of France is [MASK].',
             'Rotary positions let a small window still [MASK] tokens far apart.']
PLAIN_TEXTS = ['The capital of France is Paris.', 'Rotary positions let a small window still relate tokens far apart.']
PAIRS = [['Who wrote the code?', 'A team of five people.'],
         ['Where is the server?', 'The server at |||IP_ADDRESS||| answered from the north wing.']]
SINGLE = 'def area(r):\n    return 3.14  *  r * r  # cafe\u0301'  # NFD "e\u0301", a 4- and 2-space runs
QUERIES = ['what is the capital of France?', 'how do rotary positions work in a model with a small window?']
DOCUMENTS = ['The capital of France is Paris.',
             'Rotary positions turn each query and key by an angle that grows with the position, so the score '
             'between two tokens depends on how far apart they are.']
PROMPTS = {'query': 'search_query: ', 'document': 'search_document: '}
LONG_WORDS = ('the a of and to in is that it for on with as at by from this be are was model token text window '
              'layer local global position query key value score attention head rotary angle long short word piece '
              'padding mask team server code room building north old five two weeks people wrote tested found '
              'capital France Paris Italy Rome small large first last class separator batch real').split()


def long_text(rng, n_words):
    """Seeded English-like text: sentences of 5 to 15 words from LONG_WORDS, some commas and numbers."""
    words, sentence = [], []
    while len(words) < n_words:
        target = int(rng.randint(5, 16))
        sentence = [str(LONG_WORDS[int(rng.randint(0, len(LONG_WORDS)))]) for _ in range(target)]
        if rng.rand() < 0.3:
            sentence[int(rng.randint(1, target))] += ','
        if rng.rand() < 0.2:
            sentence.insert(int(rng.randint(1, target)), str(int(rng.randint(1, 5000))))
        sentence[0] = sentence[0].capitalize()
        sentence[-1] += '.'
        words.extend(sentence)
    return ' '.join(words)


LONG_TARGETS = (3000, 1500, 2200)  # tokens with [CLS] and [SEP]: the single input, the padded batch's two rows


def long_texts():
    """Texts of at most LONG_TARGETS tokens, as close as a whole sentence allows: a draft far too long is encoded
    once by the library, and cut after the last sentence whose tokens (by the library's offsets) still fit."""
    rng = np.random.RandomState(7)
    drafts = [long_text(rng, target) for target in LONG_TARGETS]
    answer = node({'op': 'encode', 'file': TOKENIZER_FILE, 'save': None,
                   'batches': [{'name': 'draft%d' % i, 'inputs': [d]} for i, d in enumerate(drafts)]})
    texts = []
    for draft, target, batch in zip(drafts, LONG_TARGETS, answer['batches']):
        e = batch['encodings'][0]
        ends = [end for (_, end), special in zip(e['offsets'], e['special_tokens_mask']) if not special]
        cuts = [i + 1 for i, c in enumerate(draft) if c == '.' and sum(x <= i + 1 for x in ends) + 2 <= target]
        texts.append(draft[:cuts[-1]])
    return texts


# ---------------------------------------------------------------------------------------------------- configs

def labels(*names):
    return {'id2label': {str(i): n for i, n in enumerate(names)}, 'label2id': {n: i for i, n in enumerate(names)}}


NER = labels('O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC')

# name: class, head, sizes (hidden, layers, heads, intermediate, local_attention, global_attn_every_n_layers,
# max_position_embeddings), config overrides
SHORT = (32, 3, 2, 48, 8, 2, 512)  # layers 0 and 2 global, 1 local (half window 4)
SMALL = (32, 2, 2, 48, 8, 2, 512)  # layer 0 global, 1 local
CASES = {
    'modernbert-mlm': ('ModernBertForMaskedLM', 'mlm', SHORT, {}),
    'modernbert-mlm-rope-parameters': ('ModernBertForMaskedLM', 'mlm', SHORT, {}),
    'modernbert-seqcls-cls': ('ModernBertForSequenceClassification', 'seqcls', SMALL,
                              dict(classifier_pooling='cls', **labels('NEGATIVE', 'POSITIVE'))),
    'modernbert-seqcls-mean': ('ModernBertForSequenceClassification', 'seqcls', SMALL,
                               dict(classifier_pooling='mean', **labels('negative', 'neutral', 'positive'))),
    'modernbert-tokcls': ('ModernBertForTokenClassification', 'tokcls', SMALL, dict(NER)),
    'modernbert-qa': ('ModernBertForQuestionAnswering', 'qa', SMALL,
                      dict(attention_bias=True, mlp_bias=True, norm_bias=True, classifier_bias=True)),
    'modernbert-sentence-mean': ('ModernBertModel', 'sentence-mean', (32, 2, 2, 48, 8, 2, 8192), {}),
    'modernbert-sentence-cls': ('ModernBertModel', 'sentence-cls', (32, 2, 2, 48, 16, 3, 8192), {}),
    'modernbert-long': ('ModernBertModel', 'base', (32, 4, 2, 48, 64, 3, 8192), {}),
    # A cross-encoder as Alibaba-NLP/gte-reranker-modernbert-base is one: a single logit, mean pooling.
    'modernbert-rerank': ('ModernBertForSequenceClassification', 'seqcls', SMALL,
                          dict(classifier_pooling='mean', **labels('LABEL_0'))),
}
HEADS_WITH_LABELS = ('seqcls', 'tokcls', 'qa')


def make_config(architecture, sizes, extra, tokenizer):
    """config.json with the keys of answerdotai/ModernBERT-base's (written by its conversion script, not
    save_pretrained, so every key is there; classifier_pooling is "mean" there although the class default is
    "cls")."""
    hidden, layers, heads, inter, local, every, max_pos = sizes
    vocab = tokenizer['model']['vocab']
    config = {
        'architectures': [architecture], 'attention_bias': False, 'attention_dropout': 0.0,
        'bos_token_id': vocab['[CLS]'], 'classifier_activation': 'gelu', 'classifier_bias': False,
        'classifier_dropout': 0.0, 'classifier_pooling': 'mean', 'cls_token_id': vocab['[CLS]'], 'decoder_bias': True,
        'deterministic_flash_attn': False, 'embedding_dropout': 0.0, 'eos_token_id': vocab['[SEP]'],
        'global_attn_every_n_layers': every, 'global_rope_theta': 160000.0, 'gradient_checkpointing': False,
        'hidden_activation': 'gelu', 'hidden_size': hidden, 'initializer_cutoff_factor': 2.0,
        'initializer_range': 0.02, 'intermediate_size': inter, 'layer_norm_eps': 1e-05, 'local_attention': local,
        'local_rope_theta': 10000.0, 'max_position_embeddings': max_pos, 'mlp_bias': False, 'mlp_dropout': 0.0,
        'model_type': 'modernbert', 'norm_bias': False, 'norm_eps': 1e-05, 'num_attention_heads': heads,
        'num_hidden_layers': layers, 'pad_token_id': vocab['[PAD]'], 'position_embedding_type': 'absolute',
        'sep_token_id': vocab['[SEP]'], 'tie_word_embeddings': True, 'torch_dtype': 'float32',
        'transformers_version': TRANSFORMERS_VERSION, 'vocab_size': len(vocab)}
    config.update(extra)
    return config


def rope_parameters_spelling(config):
    """The same config as transformers 5 writes it after loading the legacy one: global_rope_theta and
    local_rope_theta become rope_parameters per layer type, layer_types lists each layer's type, and
    global_attn_every_n_layers stays (the config keeps it as an attribute); torch_dtype is now dtype, and the two
    sparse-prediction attributes are written."""
    new = {k: v for k, v in config.items() if k not in ('global_rope_theta', 'local_rope_theta', 'torch_dtype')}
    every = config['global_attn_every_n_layers']
    new.update(
        dtype='float32', transformers_version=TRANSFORMERS_5_VERSION, sparse_prediction=False,
        sparse_pred_ignore_index=-100,
        layer_types=['sliding_attention' if i % every else 'full_attention'
                     for i in range(config['num_hidden_layers'])],
        rope_parameters={'full_attention': {'rope_theta': config['global_rope_theta'], 'rope_type': 'default'},
                         'sliding_attention': {'rope_theta': config['local_rope_theta'], 'rope_type': 'default'}})
    return new


def layer_plan(config):
    """[(half_window or None for a global layer, rope theta)] per layer, from either spelling.

    Legacy (configuration_modernbert 4.48-4.5x): layer i is global iff i % global_attn_every_n_layers == 0
    (default 3), theta global_rope_theta (160000) / local_rope_theta (10000). Newer: layer_types[i] is
    "full_attention" or "sliding_attention" and rope_parameters[type]["rope_theta"] its theta (a missing theta falls
    back to global_rope_theta / local_rope_theta, then to 160000 / 10000). The window is |i - j| <= local_attention // 2
    (128 -> 64 either side, inclusive) in both."""
    n = config['num_hidden_layers']
    every = config.get('global_attn_every_n_layers', 3)
    half = config.get('local_attention', 128) // 2
    legacy = ['sliding_attention' if i % every else 'full_attention' for i in range(n)]
    types = config.get('layer_types') or legacy
    check(len(types) == n, 'layer_types has %d entries for %d layers' % (len(types), n))
    if 'layer_types' in config and 'global_attn_every_n_layers' in config:
        # transformers 5 decides the mask by layer_types (eager, sdpa) but the flash window by the modulo rule
        check(types == legacy, 'layer_types %s disagree with global_attn_every_n_layers %d' % (types, every))
    rope = config.get('rope_parameters') or {}
    theta = {'full_attention': rope.get('full_attention', {}).get('rope_theta',
                                                                  config.get('global_rope_theta', 160000.0)),
             'sliding_attention': rope.get('sliding_attention', {}).get('rope_theta',
                                                                        config.get('local_rope_theta', 10000.0))}
    return [(half if t == 'sliding_attention' else None, float(theta[t])) for t in types]


# ---------------------------------------------------------------------------------------------------- weights

class Weights:
    """Draws tensors in a fixed order from one RandomState; names and values are kept in float32 as saved."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.w = {}

    def put(self, name, array):
        self.w[name] = torch.from_numpy(np.asarray(array, dtype=np.float32))

    def embedding(self, name, rows, cols, padding_idx):
        a = self.rng.normal(0.0, 0.02, (rows, cols))
        a[padding_idx] = 0.0
        self.put(name + '.weight', a)

    def linear(self, name, out, inp, bias):
        self.put(name + '.weight', self.rng.normal(0.0, 1.0 / np.sqrt(inp), (out, inp)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (out,)))

    def norm(self, name, size, bias):
        self.put(name + '.weight', 1.0 + self.rng.normal(0.0, 0.1, (size,)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (size,)))


def make_weights(architecture, head, config, seed):
    g = Weights(seed)
    p = '' if architecture == 'ModernBertModel' else 'model.'
    h, i, v = config['hidden_size'], config['intermediate_size'], config['vocab_size']
    nb, ab, mb = config['norm_bias'], config['attention_bias'], config['mlp_bias']
    g.embedding(p + 'embeddings.tok_embeddings', v, h, config['pad_token_id'])
    g.norm(p + 'embeddings.norm', h, nb)
    for layer in range(config['num_hidden_layers']):
        q = '%slayers.%d.' % (p, layer)
        if layer:
            g.norm(q + 'attn_norm', h, nb)
        g.linear(q + 'attn.Wqkv', 3 * h, h, ab)
        g.linear(q + 'attn.Wo', h, h, ab)
        g.norm(q + 'mlp_norm', h, nb)
        g.linear(q + 'mlp.Wi', 2 * i, h, mb)
        g.linear(q + 'mlp.Wo', h, i, mb)
    g.norm(p + 'final_norm', h, nb)
    if head in ('mlm',) + HEADS_WITH_LABELS:
        g.linear('head.dense', h, h, config['classifier_bias'])
        g.norm('head.norm', h, nb)
    if head == 'mlm':
        # decoder.weight is model.embeddings.tok_embeddings.weight (tie_word_embeddings): not in the file
        if config['decoder_bias']:
            g.put('decoder.bias', g.rng.normal(0.0, 0.1, (v,)))
    elif head in HEADS_WITH_LABELS:
        g.linear('classifier', len(config.get('id2label', {0: 0, 1: 1})), h, True)  # nn.Linear default: a bias
    return g.w


# ---------------------------------------------------------------------------------------------------- forward

def gelu(x):
    """transformers' "gelu" (GELUActivation): the exact erf form."""
    return torch.nn.functional.gelu(x)


ACTIVATIONS = {'gelu': gelu,
               'gelu_pytorch_tanh': lambda x: torch.nn.functional.gelu(x, approximate='tanh')}


def rope_angles(theta, dim, length):
    """[length, dim] rotary angles as transformers has them: inv_freq and position * inv_freq in float32 (see the
    module docstring), each frequency twice (the halves of rotate_half), returned in float64."""
    exponent = torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float32) / dim
    inv_freq = 1.0 / (torch.tensor(theta, dtype=torch.float32) ** exponent)
    angle = torch.arange(length, dtype=torch.float32)[:, None] * inv_freq[None, :]
    return torch.cat([angle, angle], dim=-1).double()


def rotate_half(x):
    d = x.shape[-1] // 2
    return torch.cat([-x[..., d:], x[..., :d]], dim=-1)


def encoder(config, w, ids, mask, prefix, variant=None):
    """ModernBertModel's last_hidden_state in float64, eager attention with transformers' additive masks.
    variant names a deliberate mistake for the sensitivity checks (None: the real thing)."""
    variant = variant or ()
    w = {k: t.double() for k, t in w.items()}
    n, length = ids.shape
    h, heads = config['hidden_size'], config['num_attention_heads']
    d = h // heads
    eps = config['norm_eps']
    act = ACTIVATIONS[config['hidden_activation']] if 'tanh-gelu' not in variant else ACTIVATIONS['gelu_pytorch_tanh']
    lin = lambda x, name: torch.nn.functional.linear(x, w[name + '.weight'], w.get(name + '.bias'))  # noqa: E731
    ln = lambda x, name: torch.nn.functional.layer_norm(x, (h,), w[name + '.weight'], w.get(name + '.bias'),  # noqa
                                                         eps)
    plan = layer_plan(config)
    if 'swap-theta' in variant:
        thetas = sorted({t for _, t in plan})
        plan = [(win, thetas[1 - thetas.index(t)]) for win, t in plan]
    x = ln(w[prefix + 'embeddings.tok_embeddings.weight'][ids], prefix + 'embeddings.norm')
    # _prepare_4d_attention_mask: 0 at real keys, finfo(float32).min at padded keys; the sliding mask is that with
    # finfo.min also outside |i - j| <= half (masked_fill, not added)
    key_mask = (1.0 - mask.double())[:, None, None, :] * MIN32
    distance = (torch.arange(length)[:, None] - torch.arange(length)[None, :]).abs()
    for layer, (half, theta) in enumerate(plan):
        q = '%slayers.%d.' % (prefix, layer)
        if layer == 0 and 'norm-layer0' not in variant:
            y = x  # attn_norm is nn.Identity on layer 0
        else:
            y = ln(x, q + 'attn_norm') if layer else torch.nn.functional.layer_norm(x, (h,), eps=eps)
        qkv = lin(y, q + 'attn.Wqkv').view(n, length, 3, heads, d)
        query, key, value = (qkv[:, :, j].transpose(1, 2) for j in range(3))  # [n, heads, len, d]
        angle = rope_angles(theta, d, length)
        if 'interleaved-rope' in variant:
            cos, sin = torch.cos(angle[:, :d // 2]).repeat_interleave(2, -1), \
                torch.sin(angle[:, :d // 2]).repeat_interleave(2, -1)
            pairs = lambda t: torch.stack([-t[..., 1::2], t[..., 0::2]], -1).flatten(-2)  # noqa: E731
            query, key = query * cos + pairs(query) * sin, key * cos + pairs(key) * sin
        else:
            cos, sin = torch.cos(angle), torch.sin(angle)
            query, key = query * cos + rotate_half(query) * sin, key * cos + rotate_half(key) * sin
        scores = (query @ key.transpose(-1, -2)) * d ** -0.5
        if 'no-window' in variant:
            half = None
        if half is not None and 'wide-window' in variant:
            half += 1
        additive = key_mask if half is None else key_mask.masked_fill(distance > half, MIN32)
        probabilities = torch.softmax(scores + additive, dim=-1)
        context = (probabilities @ value).transpose(1, 2).reshape(n, length, h)
        x = x + lin(context, q + 'attn.Wo')
        a = lin(ln(x, q + 'mlp_norm'), q + 'mlp.Wi')
        inp, gate = a.chunk(2, dim=-1)  # first half the input, second half the gate
        if 'swap-geglu' in variant:
            inp, gate = gate, inp
        x = x + lin(act(inp) * gate, q + 'mlp.Wo')
    return ln(x, prefix + 'final_norm')


def heads_forward(head, config, w, hidden, mask, prefix):
    """The head's outputs (dropout is identity at inference)."""
    w = {k: t.double() for k, t in w.items()}
    h = config['hidden_size']
    lin = lambda x, name: torch.nn.functional.linear(x, w[name + '.weight'], w.get(name + '.bias'))  # noqa: E731
    prediction = lambda x: torch.nn.functional.layer_norm(  # noqa: E731  ModernBertPredictionHead
        ACTIVATIONS[config['classifier_activation']](lin(x, 'head.dense')), (h,), w['head.norm.weight'],
        w.get('head.norm.bias'), config['norm_eps'])
    m = mask.double()
    if head == 'mlm':
        logits = prediction(hidden) @ w[prefix + 'embeddings.tok_embeddings.weight'].T
        return {'logits': logits + w['decoder.bias'] if config['decoder_bias'] else logits}
    if head == 'seqcls':
        if config['classifier_pooling'] == 'cls':
            pooled = hidden[:, 0]
        else:
            pooled = (hidden * m[..., None]).sum(dim=1) / m.sum(dim=1, keepdim=True)
        return {'logits': lin(prediction(pooled), 'classifier')}
    if head == 'tokcls':
        return {'logits': lin(prediction(hidden), 'classifier')}
    if head == 'qa':
        logits = lin(prediction(hidden), 'classifier')
        return {'start_logits': logits[..., 0], 'end_logits': logits[..., 1]}
    if head in ('sentence-mean', 'sentence-cls'):
        # sentence-transformers: Pooling (mean over attention_mask, clamp 1e-9; or the first token), Normalize
        if head == 'sentence-mean':
            pooled = (hidden * m[..., None]).sum(dim=1) / torch.clamp(m.sum(dim=1, keepdim=True), min=1e-9)
        else:
            pooled = hidden[:, 0]
        return {'token_embeddings': hidden, 'sentence_embedding': torch.nn.functional.normalize(pooled, p=2, dim=1)}
    if head == 'base':
        return {}
    raise ValueError(head)


def prefix_of(architecture):
    return '' if architecture == 'ModernBertModel' else 'model.'


def run(architecture, head, config, w, case, variant=None):
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    p = prefix_of(architecture)
    hidden = encoder(config, w, ids, mask, p, variant)
    out = heads_forward(head, config, w, hidden, mask, p)
    if 'token_embeddings' not in out:
        out = dict(last_hidden_state=hidden, **out)
    return out


# ---------------------------------------------------------------------------------------------------- self-checks

def encoder_unpadded(config, w, ids, mask, prefix):
    """The encoder written the other way: like the flash-attention path, only the real tokens, one sequence at a
    time; LayerNorm, GELU and the GeGLU split by hand; the rotary as multiplication by exp(i * angle) of the complex
    numbers (x[j], x[j + d/2]); the window as a band of triu/tril; -inf instead of finfo.min. Returns the list of
    [real_len, hidden] per row."""
    w = {k: t.double() for k, t in w.items()}
    h, heads, inter = config['hidden_size'], config['num_attention_heads'], config['intermediate_size']
    d, eps = h // heads, config['norm_eps']

    def norm(x, name):
        if name is None:
            return x
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        y = (x - mu) / torch.sqrt(var + eps) * w[name + '.weight']
        return y + w[name + '.bias'] if name + '.bias' in w else y

    def dense(x, name):
        y = x @ w[name + '.weight'].T
        return y + w[name + '.bias'] if name + '.bias' in w else y

    def erf_gelu(x):
        return 0.5 * x * (1.0 + torch.erf(x / np.sqrt(2.0)))

    rows = []
    for r in range(ids.shape[0]):
        real = ids[r][mask[r].bool()]
        length = len(real)
        x = norm(w[prefix + 'embeddings.tok_embeddings.weight'].index_select(0, real), prefix + 'embeddings.norm')
        for layer, (half, theta) in enumerate(layer_plan(config)):
            q = '%slayers.%d.' % (prefix, layer)
            y = norm(x, q + 'attn_norm' if layer else None)
            packed = dense(y, q + 'attn.Wqkv')
            outs = []
            turn = torch.polar(torch.ones(length, d // 2), rope_angles(theta, d, length)[:, :d // 2])
            allowed = torch.ones(length, length, dtype=torch.bool)
            if half is not None:
                allowed = allowed.triu(-half).tril(half)
            for head in range(heads):
                qh, kh, vh = (packed[:, part * h + head * d: part * h + (head + 1) * d] for part in range(3))
                rot = lambda t: torch.view_as_real(torch.complex(t[:, :d // 2], t[:, d // 2:]) * turn)  # noqa
                qr, kr = (torch.cat([rot(t)[..., 0], rot(t)[..., 1]], dim=-1) for t in (qh, kh))
                s = (qr @ kr.T) / np.sqrt(d)
                s = torch.where(allowed, s, torch.tensor(float('-inf')))
                p = torch.exp(s - s.max(dim=-1, keepdim=True).values)
                outs.append((p / p.sum(dim=-1, keepdim=True)) @ vh)
            x = x + dense(torch.cat(outs, dim=-1), q + 'attn.Wo')
            a = dense(norm(x, q + 'mlp_norm'), q + 'mlp.Wi')
            x = x + dense(erf_gelu(a[:, :inter]) * a[:, inter:], q + 'mlp.Wo')
        rows.append(norm(x, prefix + 'final_norm'))
    return rows


def check_unpadded(name, config, w, case, prefix, hidden):
    ids, mask = torch.tensor(case['input_ids']), torch.tensor(case['attention_mask'])
    worst = 0.0
    for r, row in enumerate(encoder_unpadded(config, w, ids, mask, prefix)):
        diff = (row - hidden[r][mask[r].bool()]).abs().max().item()
        worst = max(worst, diff)
    check(worst < 1e-9, '%s %s: the unpadded encoder differs by %g' % (name, case['name'], worst))
    return worst


def check_padding(name, architecture, head, config, w, case, outputs):
    """Each row alone, unpadded, gives the padded batch's values at its real positions."""
    for r, row_mask in enumerate(case['attention_mask']):
        n = sum(row_mask)
        alone = {'name': case['name'], 'input_ids': [case['input_ids'][r][:n]], 'attention_mask': [[1] * n]}
        for key, value in run(architecture, head, config, w, alone).items():
            batched = outputs[key][r:r + 1]
            if key in ('last_hidden_state', 'token_embeddings', 'start_logits', 'end_logits') \
                    or (key == 'logits' and head in ('mlm', 'tokcls')):
                batched = batched[:, :n]
            diff = (value - batched).abs().max().item()
            check(diff < 1e-9, '%s %s row %d %s: padded and unpadded differ by %g' % (name, case['name'], r, key,
                                                                                       diff))


def check_heads(head, config, w, case, outputs, prefix):
    """The heads once more, with loops and numpy, from last_hidden_state / token_embeddings."""
    hidden = outputs.get('last_hidden_state', outputs.get('token_embeddings')).numpy()
    mask = np.array(case['attention_mask'], dtype=np.float64)
    wn = {k: t.double().numpy() for k, t in w.items()}

    def layer_norm(x, name):
        y = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + config['norm_eps'])
        y = y * wn[name + '.weight']
        return y + wn[name + '.bias'] if name + '.bias' in wn else y

    def predict(x):
        y = x @ wn['head.dense.weight'].T + wn.get('head.dense.bias', 0.0)
        from math import erf, sqrt
        y = np.vectorize(lambda t: 0.5 * t * (1.0 + erf(t / sqrt(2.0))))(y)
        return layer_norm(y, 'head.norm')

    worst = 0.0
    for r in range(hidden.shape[0]):
        real = hidden[r][mask[r] > 0]
        if head == 'mlm':
            got = {'logits': predict(hidden[r]) @ wn[prefix + 'embeddings.tok_embeddings.weight'].T
                   + wn['decoder.bias']}
        elif head == 'seqcls':
            pooled = hidden[r][0] if config['classifier_pooling'] == 'cls' else real.sum(0) / len(real)
            got = {'logits': predict(pooled) @ wn['classifier.weight'].T + wn['classifier.bias']}
        elif head in ('tokcls', 'qa'):
            logits = predict(hidden[r]) @ wn['classifier.weight'].T + wn['classifier.bias']
            got = {'logits': logits} if head == 'tokcls' else {'start_logits': logits[:, 0],
                                                               'end_logits': logits[:, 1]}
        elif head.startswith('sentence'):
            pooled = real.mean(0) if head == 'sentence-mean' else hidden[r][0]
            got = {'sentence_embedding': pooled / np.sqrt((pooled ** 2).sum())}
        else:
            got = {}
        for key, value in got.items():
            worst = max(worst, float(np.abs(value - outputs[key][r].numpy()).max()))
    check(worst < 1e-9, '%s %s: the heads recomputed differ by %g' % (head, case['name'], worst))


def check_mistakes(architecture, head, config, w, cases):
    """Each deliberate mistake moves the logits of this case by more than 1e-3 at real positions (the tanh GELU by
    more than 1e-4)."""
    report = []
    for variant in ('no-window', 'wide-window', 'swap-theta', 'interleaved-rope', 'swap-geglu', 'norm-layer0',
                    'tanh-gelu'):
        worst = 0.0
        for case in cases:
            real = torch.tensor(case['attention_mask']).bool()
            good = run(architecture, head, config, w, case)
            bad = run(architecture, head, config, w, case, variant=(variant,))
            worst = max(worst, (good['logits'][real] - bad['logits'][real]).abs().max().item())
        floor = 1e-4 if variant == 'tanh-gelu' else 1e-3  # the two GELUs differ by 5e-4 at most
        check(worst > floor, 'the fixture does not see the mistake %s (outputs move by %g)' % (variant, worst))
        report.append('%s %.2g' % (variant, worst))
    return report


def check_float64_angles(architecture, head, config, w, case):
    """How far the outputs move when the rotary angles are computed in float64 instead of float32 (informative)."""
    global rope_angles
    float32_angles = rope_angles

    def exact(theta, dim, length):
        inv = 1.0 / theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
        angle = torch.arange(length, dtype=torch.float64)[:, None] * inv[None, :]
        return torch.cat([angle, angle], dim=-1)

    base = run(architecture, head, config, w, case)
    rope_angles = exact
    try:
        moved = run(architecture, head, config, w, case)
    finally:
        rope_angles = float32_angles
    real = torch.tensor(case['attention_mask']).bool()
    key = 'last_hidden_state' if 'last_hidden_state' in base else 'token_embeddings'
    return (base[key][real] - moved[key][real]).abs().max().item()


def check_tokens(batches, vocab, vocab_size):
    """Tokenizer facts the fixtures rely on."""
    by_name = {b['name']: b['encodings'] for b in batches}
    for b in batches:
        for e in b['encodings']:
            check(all(0 <= i < vocab_size for i in e['ids']), 'an id is outside the vocabulary')
            check(len(e['ids']) == len(e['attention_mask']), 'ids and mask differ in length')
    mask_id = vocab['[MASK]']
    for e in by_name['mlm-padded-batch']:
        at = e['ids'].index(mask_id)
        check(e['tokens'][at - 1] != '\u0120' and not e['tokens'][at - 1].endswith('\u0120'),
              '[MASK] (lstrip) did not take the space before it: %s' % e['tokens'][at - 2:at + 1])
    single = by_name['single'][0]['ids']
    nfc = by_name['single-nfc'][0]['ids']
    check(single == nfc, 'NFD and NFC input give different ids')
    for content in ('    ', '  '):
        check(vocab[content] in single, 'the added token %r is not matched' % content)
    check(vocab['|||IP_ADDRESS|||'] in by_name['pair'][1]['ids'], '|||IP_ADDRESS||| is not matched')
    lengths = [sum(e['attention_mask']) for b in ('long-single', 'long-batch') for e in by_name[b]]
    check(all(t - 40 <= n <= t for n, t in zip(lengths, LONG_TARGETS)), 'long inputs of %s tokens' % lengths)
    return lengths


# ---------------------------------------------------------------------------------------------------- main

TOKENIZER_FILE = None


def batch_case(name, texts, encodings, extra=None, tokens=True):
    case = {'name': name}
    case.update(extra or {})
    case.update(texts=texts, input_ids=[e['ids'] for e in encodings],
                attention_mask=[e['attention_mask'] for e in encodings])
    if tokens:
        case['tokens'] = [e['tokens'] for e in encodings]
    return case


def main():
    global TOKENIZER_FILE
    scratch = tempfile.mkdtemp(prefix='modernbert-fixtures-')
    try:
        tokenizer = build_tokenizer()
        vocab = tokenizer['model']['vocab']
        TOKENIZER_FILE = os.path.join(scratch, 'tokenizer.json')
        with open(TOKENIZER_FILE, 'w') as f:
            f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
        longs = long_texts()
        batches = [
            ('mlm-padded-batch', MLM_TEXTS), ('padded-batch', PLAIN_TEXTS), ('pair', PAIRS), ('single', [SINGLE]),
            ('single-nfc', [SINGLE.replace('e\u0301', '\u00e9')]),
            ('query', [PROMPTS['query'] + t for t in QUERIES]),
            ('document', [PROMPTS['document'] + t for t in DOCUMENTS]), ('documents-plain', DOCUMENTS),
            ('long-single', longs[:1]), ('long-batch', longs[1:])]
        answer = node({'op': 'encode', 'file': TOKENIZER_FILE, 'save': os.path.join(scratch, 'saved.json'),
                       'batches': [{'name': n, 'inputs': t} for n, t in batches]})
        check_roundtrip(tokenizer, os.path.join(scratch, 'saved.json'))
        check(answer['vocab_size'] == len(vocab), 'the library counts %d tokens, the vocabulary has %d'
              % (answer['vocab_size'], len(vocab)))
        long_len = check_tokens(answer['batches'], vocab, len(vocab))
        enc = {b['name']: b['encodings'] for b in answer['batches']}
        words = sum(len(t.split()) for t in longs)
        pieces = sum(len(e['ids']) - 2 for b in ('long-single', 'long-batch') for e in enc[b])
        check(pieces / words > 1.3, 'the BPE is too large: %.2f tokens a word' % (pieces / words))
    finally:
        shutil.rmtree(scratch)

    short_cases = lambda mlm: [  # noqa: E731
        batch_case('padded-batch', MLM_TEXTS if mlm else PLAIN_TEXTS,
                   enc['mlm-padded-batch' if mlm else 'padded-batch']),
        batch_case('pair', PAIRS, enc['pair']), batch_case('single', [SINGLE], enc['single'])]
    sentence_cases = {
        'sentence-mean': [batch_case('query', QUERIES, enc['query'],
                                     dict(prompt_name='query', prompt=PROMPTS['query'])),
                          batch_case('document', DOCUMENTS, enc['document'],
                                     dict(prompt_name='document', prompt=PROMPTS['document'])),
                          batch_case('single', [SINGLE], enc['single'])],
        'sentence-cls': [batch_case('padded-batch', DOCUMENTS, enc['documents-plain']),
                         batch_case('single', [SINGLE], enc['single'])],
        'base': [batch_case('long-single', longs[:1], enc['long-single'], tokens=False),
                 batch_case('long-padded-batch', longs[1:], enc['long-batch'], tokens=False)]}

    os.makedirs(OUT, exist_ok=True)
    summary, mlm_expected = [], None
    files = {'tokenizer.json': json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n'}
    for seed, (name, (architecture, head, sizes, extra)) in enumerate(CASES.items(), start=200):
        config = make_config(architecture, sizes, extra, tokenizer)
        if name == 'modernbert-mlm-rope-parameters':
            seed = 200  # modernbert-mlm's weights
            written = rope_parameters_spelling(config)
            check(layer_plan(written) == layer_plan(config), 'the two spellings give different layer plans')
            config = written
        w = make_weights(architecture, head, config, seed)
        cases = short_cases(head == 'mlm') if head in ('mlm',) + HEADS_WITH_LABELS else sentence_cases[head]
        expected, notes = {}, []
        with torch.no_grad():
            worst = 0.0
            for i, case in enumerate(cases):
                outputs = run(architecture, head, config, w, case)
                hidden = outputs.get('last_hidden_state', outputs.get('token_embeddings'))
                worst = max(worst, check_unpadded(name, config, w, case, prefix_of(architecture), hidden))
                check_padding(name, architecture, head, config, w, case, outputs)
                check_heads(head, config, w, case, outputs, prefix_of(architecture))
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value.float()
            notes.append('unpadded %.1e' % worst)
            if name == 'modernbert-mlm':
                notes.append('mistakes: ' + ', '.join(check_mistakes(architecture, head, config, w, cases)))
                mlm_expected = expected
            if name == 'modernbert-mlm-rope-parameters':
                check(sorted(expected) == sorted(mlm_expected)
                      and all(torch.equal(expected[k], mlm_expected[k]) for k in expected),
                      'the rope_parameters spelling does not give modernbert-mlm\'s outputs')
                notes.append('= modernbert-mlm bit for bit')
            if head == 'base':
                notes.append('float64 angles move it by %.1e' % check_float64_angles(architecture, head, config, w,
                                                                                     cases[0]))
            elif name == 'modernbert-mlm':
                notes.append('float64 angles move it by %.1e' % check_float64_angles(architecture, head, config, w,
                                                                                     cases[2]))
        directory = os.path.join(OUT, name)
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
            f.write(files['tokenizer.json'])
        write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(tokenizer))
        write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            f.write(compact_json(cases) + '\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        if head.startswith('sentence'):
            write_sentence_transformers(directory, head, config)
        summary.append('%-31s %-60s %s' % (name, ' '.join(sorted(k[6:] for k in expected if k.startswith('case0.'))),
                                           '; '.join(notes)))
    print('\n'.join(summary))
    print('tokenizer: %d tokens (%d merges), long inputs %s tokens, %.2f tokens a word in the long texts'
          % (len(vocab), N_MERGES, long_len, pieces / words))
    print('wrote', len(CASES), 'cases to', os.path.normpath(OUT))


def write_sentence_transformers(directory, head, config):
    """sentence-transformers' files: modules.json (Transformer, Pooling, Normalize), the Pooling config, the
    Transformer's sentence_bert_config.json and config_sentence_transformers.json (nomic-ai/modernbert-embed-base has
    the search_query / search_document prompts, gte-modernbert-base none). Written in sentence-transformers' own
    layout (indent 2, keys in its order)."""
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'},
               {'idx': 2, 'name': '2', 'path': '2_Normalize', 'type': 'sentence_transformers.models.Normalize'}]
    write_json(os.path.join(directory, 'modules.json'), modules, sort=False)
    mean = head == 'sentence-mean'
    pooling = {'word_embedding_dimension': config['hidden_size'], 'pooling_mode_cls_token': not mean,
               'pooling_mode_mean_tokens': mean, 'pooling_mode_max_tokens': False,
               'pooling_mode_mean_sqrt_len_tokens': False, 'pooling_mode_weightedmean_tokens': False,
               'pooling_mode_lasttoken': False, 'include_prompt': True}
    os.makedirs(os.path.join(directory, '1_Pooling'))
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling, sort=False)
    write_json(os.path.join(directory, 'sentence_bert_config.json'), {'max_seq_length': 8192, 'do_lower_case': False},
               sort=False)
    st = {'__version__': {'sentence_transformers': '3.3.1', 'transformers': TRANSFORMERS_VERSION,
                          'pytorch': '2.5.1'},
          'prompts': dict(PROMPTS) if mean else {}, 'default_prompt_name': None, 'similarity_fn_name': 'cosine'}
    write_json(os.path.join(directory, 'config_sentence_transformers.json'), st, sort=False)


if __name__ == '__main__':
    main()
