#!/usr/bin/env python3
"""Random-weight GTE v1.5 checkpoints (model_type "new", Alibaba-NLP/new-impl) for vectorbert's tests, with reference
outputs computed by an independent PyTorch forward pass and input ids taken from Hugging Face's tokenizers library.

The forward pass below is written with plain torch operations from the semantics of the hub repository
Alibaba-NLP/new-impl's modeling.py (NewEmbeddings with RotaryEmbedding / NTKScalingRotaryEmbedding, NewAttention,
NewGatedMLP, NewLayer, NewEncoder, NewPooler, NewModel.forward with its logn attention scale,
NewForSequenceClassification, NewForTokenClassification) and configuration.py (NewConfig), read as a stored copy (see
NOTES.md); it shares no code with vectorbert, and neither transformers nor that code is needed. Two small
tokenizer.json files have the shape of the hub's (gte-base-en-v1.5: BERT uncased WordPiece; gte-multilingual-base:
XLM-R SentencePiece Unigram, see NOTES.md), and every input id comes from the tokenizers library's own encoding of the
texts (tokenize_gte.mjs, beside this script), so the fixtures also prove tokenizer parity.

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/gte-npm && (cd /tmp/gte-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/gte-npm/node_modules /usr/bin/python3 tools/torch-reference/make_gte_fixtures.py
                                                      # no arguments; under a minute; NODE_PATH is passed on to node

Writes into engine/src/test/resources/architectures/gte/ (the same bytes on every run: the tokenizers are
deterministic, numpy's legacy RandomState draws the weights, the reference is computed in float64 on one thread, then
rounded to float32):
    NOTES.md              is not written here: it is kept by hand beside the cases
    <case>/config.json    the keys the hub's GTE v1.5 configs carry (auto_map to Alibaba-NLP/new-impl), as
                          save_pretrained writes them (sorted, indent 2; transformers_version nominal)
    <case>/model.safetensors    float32 weights, names sorted, __metadata__ {"format": "pt"}
    <case>/tokenizer.json, tokenizer_config.json, special_tokens_map.json    one of the two tokenizers
    <case>/inputs.json    a list of cases: name, texts (and pairs), input_ids, attention_mask, token_type_ids (the
                          WordPiece directories only: BertTokenizer returns them, XLMRobertaTokenizer does not), and
                          the library's tokens, vocab_tokens and offsets of each row (unpadded)
    <case>/expected.safetensors  caseN.last_hidden_state [n, len, hidden] and the head's outputs:
                            caseN.sentence_embedding [n, hidden]    sentence-transformers directories (CLS, Normalize)
                            caseN.logits [n, len, 1]                NewForTokenClassification (gte-multilingual-base)
                            caseN.pooler_output [n, hidden], caseN.logits [n, 1]    NewForSequenceClassification
                          Padded positions hold what the eager code computes there (a pad query attends to the row's
                          real keys); compare them or mask them, both are defined.
    <case>/modules.json, 1_Pooling/config.json, sentence_bert_config.json, config_sentence_transformers.json
                          the sentence-transformers directories only (no 2_Normalize folder: Normalize saves nothing)

Weight scale, as make_family_fixtures.py: embedding tables normal with std 0.02 with a zero row at the pad id, Linear
weights std 1/sqrt(fan_in), biases std 0.1, LayerNorm / RMSNorm weights 1 + std 0.1 and LayerNorm biases std 0.1; the
token type table has std 0.5, so that a type id mix-up shows clearly.

Self-checks run before anything is written (the script stops on the first failure): the rotary inverse frequencies
(float32, as the code computes them) against the closed NTK formula in float64, and the angles against torch.einsum;
for every case and input, the encoder again written differently (separate q/k/v Linear modules cut from the fused
weight, rotary as a complex multiplication, attention as einsum with a hand-written softmax over the visible keys,
hand-written LayerNorm / RMSNorm / erf GELU, up and gate as two Linear modules), and each row run alone against the
padded batch at its real positions; each exercised feature done the wrong way (up/gate swapped, NTK off, logn off,
clip1 flipped, type ids zeroed) must move the output by more than 1e-3; each head again with torch.nn modules; the
sentence embeddings again with a loop norm; the library's ids against a second tokenizer written here (BERT
normalizer, pre-tokenizer, greedy WordPiece, TemplateProcessing; NFKC, Metaspace and a Viterbi Unigram); every id
below vocab_size; the long input longer than max_position_embeddings.
"""
import json
import math
import os
import subprocess
import sys
import unicodedata

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from make_fixtures import write_safetensors  # noqa: E402  (this directory's sibling script)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'gte')
NODE_HELPER = os.path.join(HERE, 'tokenize_gte.mjs')
TOKENIZERS_VERSION = '0.23.2'  # the npm package the ids come from
TRANSFORMERS_VERSION = '4.39.1'  # nominal: the configs are written here in that version's layout, not by it
ST_VERSION = {'sentence_transformers': '2.7.0', 'transformers': TRANSFORMERS_VERSION, 'pytorch': '2.1.2'}  # nominal
HIDDEN, LAYERS, HEADS, INTERMEDIATE = 32, 2, 2, 48
HEAD_DIM = HIDDEN // HEADS
TYPE_STD = 0.5

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def write_json(path, value):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + '\n')


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


# ---------------------------------------------------------------------------------------------------- WordPiece

# gte-base-en-v1.5 ships bert-base-uncased's tokenizer: [PAD] 0, [unused..], [UNK] 100, [CLS] 101, [SEP] 102,
# [MASK] 103, then punctuation, digits, letters, words, ## pieces. The small vocabulary keeps that order.
WP_SPECIALS = ['[PAD]', '[unused0]', '[unused1]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
PUNCTUATION = list('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
WORDS = '''
the an of is and in to it its on for at with was are not but by as from there that this who what where when how
many much people city capital france paris london berlin germany rome europe largest large small great old new river
tower book wrote young man woman girl child eating eats food riding white horse ground music guitar park plays makes
outside quick brown fox jumps over lazy dog love movie plot slow ending made no sense all service bad room cold we will
come back would eat again john mary lives live moved york last year friend works work bank near station
iron built world fair answer question context one two text same word here just then million nine around has
have been big street shops gardens walk along evening lights water say busy loud too most them want else life bread
fresh morning long friends until late night also centre schools trains leave six every rest whole part north country
trade learning arts hundreds years quiet while west tall glass steel visit cost euro cafe far away does he she they
you so very good day time short stands chapter page read more about train seine cafe creme'''.split()
PIECES = ['##es', '##ed', '##ing', '##ly', '##er', '##est', '##al', '##tion', '##ful']
WP_TOKENS = (WP_SPECIALS + PUNCTUATION + [str(d) for d in range(10)] + [chr(c) for c in range(ord('a'), ord('z') + 1)]
             + list(dict.fromkeys(WORDS)) + PIECES + ['##' + str(d) for d in range(10)]
             + ['##' + chr(c) for c in range(ord('a'), ord('z') + 1)])
WP_VOCAB = {t: i for i, t in enumerate(WP_TOKENS)}
check(len(WP_VOCAB) == len(WP_TOKENS), 'duplicate WordPiece vocabulary entries')
# bert-base-uncased's five special added tokens: special, not normalized, no strip
WP_ADDED = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']


def wordpiece_tokenizer_json():
    """tokenizer.json in the layout of bert-base-uncased's (which gte-base-en-v1.5 and gte-large-en-v1.5 ship)."""
    cls, sep = WP_VOCAB['[CLS]'], WP_VOCAB['[SEP]']
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [{'id': WP_VOCAB[c], 'content': c, 'single_word': False, 'lstrip': False, 'rstrip': False,
                          'normalized': False, 'special': True} for c in WP_ADDED],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                       'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
                       {'SpecialToken': {'id': '[SEP]', 'type_id': 0}}],
            'pair': [{'SpecialToken': {'id': '[CLS]', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
                     {'SpecialToken': {'id': '[SEP]', 'type_id': 0}}, {'Sequence': {'id': 'B', 'type_id': 1}},
                     {'SpecialToken': {'id': '[SEP]', 'type_id': 1}}],
            'special_tokens': {'[CLS]': {'id': '[CLS]', 'ids': [cls], 'tokens': ['[CLS]']},
                               '[SEP]': {'id': '[SEP]', 'ids': [sep], 'tokens': ['[SEP]']}}},
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
                  'max_input_chars_per_word': 100, 'vocab': WP_VOCAB},
    }


def added_token_entry(content, lstrip=False, normalized=False):
    return {'content': content, 'lstrip': lstrip, 'normalized': normalized, 'rstrip': False, 'single_word': False}


def wordpiece_tokenizer_config(model_max_length):
    """tokenizer_config.json as save_pretrained writes it for the BertTokenizerFast of gte-base-en-v1.5."""
    decoder = {str(WP_VOCAB[c]): dict(added_token_entry(c), special=True) for c in WP_ADDED}
    return {'added_tokens_decoder': decoder, 'clean_up_tokenization_spaces': True, 'cls_token': '[CLS]',
            'do_basic_tokenize': True, 'do_lower_case': True, 'mask_token': '[MASK]',
            'model_max_length': model_max_length, 'never_split': None, 'pad_token': '[PAD]', 'sep_token': '[SEP]',
            'strip_accents': None, 'tokenize_chinese_chars': True, 'tokenizer_class': 'BertTokenizer',
            'unk_token': '[UNK]'}


def wordpiece_special_tokens_map():
    return {'cls_token': '[CLS]', 'mask_token': '[MASK]', 'pad_token': '[PAD]', 'sep_token': '[SEP]',
            'unk_token': '[UNK]'}


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
        return [WP_VOCAB['[UNK]']]
    ids, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = ('##' if start else '') + word[start:end]
            if piece in WP_VOCAB:
                ids.append(WP_VOCAB[piece])
                break
            end -= 1
        if end == start:
            return [WP_VOCAB['[UNK]']]
        start = end
    return ids


def second_wordpiece_sequence(text):
    """Ids of one sequence without special tokens (the texts here hold no added token): BERT normalizer, split at
    spaces and punctuation, greedy longest-first WordPiece."""
    words, current = [], ''
    for ch in bert_normalize(text):
        if ch == ' ':
            words.append(current)
            current = ''
        elif is_punctuation(ch):
            words += [current, ch]
            current = ''
        else:
            current += ch
    words.append(current)
    return [i for w in words if w for i in wordpiece(w)]


def second_wordpiece(text, pair):
    """(ids, type_ids) as TemplateProcessing [CLS] A [SEP] (B [SEP] with type 1)."""
    ids = [WP_VOCAB['[CLS]']] + second_wordpiece_sequence(text) + [WP_VOCAB['[SEP]']]
    types = [0] * len(ids)
    if pair is not None:
        b = second_wordpiece_sequence(pair) + [WP_VOCAB['[SEP]']]
        ids, types = ids + b, types + [1] * len(b)
    return ids, types


# ---------------------------------------------------------------------------------------------------- Unigram

# gte-multilingual-base ships XLM-RoBERTa's tokenizer: <s> 0, <pad> 1, </s> 2, <unk> 3 (score 0.0), the sentencepiece
# pieces with their log-probability scores, and <mask> last (score 0.0). The small vocabulary keeps that order. Scores
# here: pieces of more characters score higher per piece, with a fixed small irregular part so no two paths tie.
META = '\u2581'
UG_SPECIALS = ['<s>', '<pad>', '</s>', '<unk>']
UG_WORDS = '''
the of and is in to a city capital France Paris Berlin Germany river large old new people live book read
la le les de du est et une un ville capitale Allemagne fleuve grande vieille
der die das und ist eine Stadt Hauptstadt Fluss groß alte Menschen leben
el los es una ciudad capital río grande vieja personas viven
What Where Who How many which is the answer question short long text
Café crème café naïve fi 東京 北京 是 中国 的 首都 日本 大
'''.split()
UG_SUFFIXES = ['s', 'es', 'en', 'er', 'ing', 'ed', 'ly', 'tion', 'ung', 'ch', 'st']
UG_CHARS = sorted(set(
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?\'"()-/&%'
    'éèêëàâäôöüûùçñßíóúÉÜÄÖ東京北是中国的首都日本大'))


def unigram_vocab():
    pieces = []
    seen = set()

    def add(piece, score):
        if piece not in seen:
            seen.add(piece)
            pieces.append([piece, score])

    rng = np.random.RandomState(77)
    add(META, -3.5)
    for w in UG_WORDS:
        add(META + w, round(-6.0 + 0.4 * len(w) - rng.uniform(0, 0.3), 4))
        add(w, round(-8.0 + 0.4 * len(w) - rng.uniform(0, 0.3), 4))
    for s in UG_SUFFIXES:
        add(s, round(-7.0 + 0.3 * len(s) - rng.uniform(0, 0.3), 4))
    for c in UG_CHARS:
        add(c, round(-10.0 - rng.uniform(0, 0.5), 4))
        add(META + c, round(-10.5 - rng.uniform(0, 0.5), 4))
    return [[t, 0.0] for t in UG_SPECIALS] + pieces + [['<mask>', 0.0]]


UG_VOCAB_LIST = unigram_vocab()
UG_VOCAB = {p: i for i, (p, _) in enumerate(UG_VOCAB_LIST)}
check(len(UG_VOCAB) == len(UG_VOCAB_LIST), 'duplicate Unigram vocabulary entries')
UG_SCORE = {p: s for p, s in UG_VOCAB_LIST}
UG_UNK = 3
# XLM-R's added tokens: the four fairseq specials and <mask> (lstrip true), all special, none normalized
UG_ADDED = [('<s>', False), ('<pad>', False), ('</s>', False), ('<unk>', False), ('<mask>', True)]


def unigram_tokenizer_json():
    """tokenizer.json in the layout of XLM-RoBERTa's (which gte-multilingual-base ships), see NOTES.md for the
    normalizer."""
    s, e = UG_VOCAB['<s>'], UG_VOCAB['</s>']
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [{'id': UG_VOCAB[c], 'content': c, 'single_word': False, 'lstrip': lstrip, 'rstrip': False,
                          'normalized': False, 'special': True} for c, lstrip in UG_ADDED],
        'normalizer': {'type': 'Sequence', 'normalizers': [
            {'type': 'NFKC'}, {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': ' '}]},
        'pre_tokenizer': {'type': 'Metaspace', 'replacement': META, 'prepend_scheme': 'always', 'split': True},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
                       {'SpecialToken': {'id': '</s>', 'type_id': 0}}],
            'pair': [{'SpecialToken': {'id': '<s>', 'type_id': 0}}, {'Sequence': {'id': 'A', 'type_id': 0}},
                     {'SpecialToken': {'id': '</s>', 'type_id': 0}}, {'SpecialToken': {'id': '</s>', 'type_id': 0}},
                     {'Sequence': {'id': 'B', 'type_id': 0}}, {'SpecialToken': {'id': '</s>', 'type_id': 0}}],
            'special_tokens': {'<s>': {'id': '<s>', 'ids': [s], 'tokens': ['<s>']},
                               '</s>': {'id': '</s>', 'ids': [e], 'tokens': ['</s>']}}},
        'decoder': {'type': 'Metaspace', 'replacement': META, 'prepend_scheme': 'always', 'split': True},
        'model': {'type': 'Unigram', 'unk_id': UG_UNK, 'vocab': UG_VOCAB_LIST, 'byte_fallback': False},
    }


def unigram_tokenizer_config(model_max_length):
    """tokenizer_config.json as save_pretrained writes it for gte-multilingual-base's XLMRobertaTokenizerFast."""
    decoder = {str(UG_VOCAB[c]): dict(added_token_entry(c, lstrip), special=True) for c, lstrip in UG_ADDED}
    return {'added_tokens_decoder': decoder, 'bos_token': '<s>', 'clean_up_tokenization_spaces': True,
            'cls_token': '<s>', 'eos_token': '</s>', 'mask_token': '<mask>', 'model_max_length': model_max_length,
            'pad_token': '<pad>', 'sep_token': '</s>', 'tokenizer_class': 'XLMRobertaTokenizer', 'unk_token': '<unk>'}


def unigram_special_tokens_map():
    plain = lambda c: added_token_entry(c)
    return {'bos_token': plain('<s>'), 'cls_token': plain('<s>'), 'eos_token': plain('</s>'),
            'mask_token': added_token_entry('<mask>', True), 'pad_token': plain('<pad>'), 'sep_token': plain('</s>'),
            'unk_token': plain('<unk>')}


def viterbi(word):
    """Best segmentation of one pre-tokenized word: the highest sum of piece scores; a character no piece covers is
    <unk> with score min - 10 (the library's kUnkPenalty), and runs of <unk> fuse into one."""
    unk_score = min(s for p, s in UG_VOCAB_LIST if p not in ('<s>', '<pad>', '</s>', '<unk>', '<mask>')) - 10.0
    n = len(word)
    best = [(-math.inf, None)] * (n + 1)
    best[0] = (0.0, None)
    for end in range(1, n + 1):
        for start in range(end):
            if best[start][0] == -math.inf:
                continue
            piece = word[start:end]
            if piece in UG_SCORE and piece not in ('<s>', '<pad>', '</s>', '<unk>', '<mask>'):
                score = best[start][0] + UG_SCORE[piece]
            elif end - start == 1 and not any(p in UG_SCORE for p in (piece,)):
                score = best[start][0] + unk_score
                piece = None
            else:
                continue
            if score > best[end][0]:
                best[end] = (score, (start, piece))
    out, end = [], n
    while end > 0:
        start, piece = best[end][1]
        out.append(UG_UNK if piece is None else UG_VOCAB[piece])
        end = start
    out.reverse()
    fused = []
    for i in out:
        if not (i == UG_UNK and fused and fused[-1] == UG_UNK):
            fused.append(i)
    return fused


def second_unigram_sequence(text):
    """NFKC, runs of spaces to one, every space to U+2581 with one prepended, split before each U+2581, Viterbi."""
    text = unicodedata.normalize('NFKC', text)
    while '  ' in text:
        text = text.replace('  ', ' ')
    text = text.replace(' ', META)
    if not text.startswith(META):
        text = META + text
    words, current = [], ''
    for ch in text:
        if ch == META and current:
            words.append(current)
            current = ''
        current += ch
    words.append(current)
    return [i for w in words for i in viterbi(w)]


def second_unigram(text, pair):
    s, e = UG_VOCAB['<s>'], UG_VOCAB['</s>']
    ids = [s] + second_unigram_sequence(text) + [e]
    if pair is not None:
        ids += [e] + second_unigram_sequence(pair) + [e]
    return ids, [0] * len(ids)


TOKENIZERS = {
    'wordpiece': dict(json=wordpiece_tokenizer_json, config=wordpiece_tokenizer_config,
                      special=wordpiece_special_tokens_map, second=second_wordpiece, size=len(WP_VOCAB),
                      pad=WP_VOCAB['[PAD]'], type_ids=True),
    'unigram': dict(json=unigram_tokenizer_json, config=unigram_tokenizer_config, special=unigram_special_tokens_map,
                    second=second_unigram, size=len(UG_VOCAB), pad=UG_VOCAB['<pad>'], type_ids=False),
}


def write_tokenizer_json(path, kind):
    """tokenizer.json keeps its own key order (the vocabulary in id order), as the library writes it."""
    with open(path, 'w') as f:
        f.write(json.dumps(TOKENIZERS[kind]['json'](), indent=2, ensure_ascii=False) + '\n')


def library_encode(tokenizer_path, inputs):
    """Each (text, pair) encoded by the tokenizers library through tokenize_gte.mjs."""
    if not os.environ.get('NODE_PATH'):
        sys.exit('NODE_PATH is not set: install the tokenizers library with\n'
                 '    mkdir -p /tmp/gte-npm && (cd /tmp/gte-npm && npm install tokenizers@%s)\n'
                 'and run NODE_PATH=/tmp/gte-npm/node_modules %s' % (TOKENIZERS_VERSION, sys.argv[0]))
    request = {'tokenizer': tokenizer_path, 'inputs': [{'text': t, 'pair': p} for t, p in inputs]}
    answer = subprocess.run(['node', NODE_HELPER], input=json.dumps(request), capture_output=True, text=True,
                            check=False)
    if answer.returncode != 0:
        sys.exit('tokenize_gte.mjs failed:\n' + answer.stderr)
    result = json.loads(answer.stdout)
    check(result['version'] == TOKENIZERS_VERSION,
          'the tokenizers library at NODE_PATH is %s, not %s' % (result['version'], TOKENIZERS_VERSION))
    return result['encodings']


# ---------------------------------------------------------------------------------------------------- texts

LONG_PARAGRAPH = (
    'Chapter {n}. Paris is the capital and the largest city of France. The city stands on the river Seine, in the '
    'north of the country, and it has been one of the great centres of trade, learning and the arts for many hundreds '
    'of years. In the old part of the city there are small shops and quiet gardens, while the new part in the west '
    'has tall towers of glass and steel. Every year {n} million people come to visit the old iron tower that was '
    'built for the world fair. Many of them walk along the river in the evening, when the lights shine on the water. '
    'The people who live in Paris often say that the city is too busy and too loud, but most of them would not want '
    'to live anywhere else. ')


def long_text(paragraphs, start=1):
    return ''.join(LONG_PARAGRAPH.format(n=n) for n in range(start, start + paragraphs)).strip()


TEXTS = {
    'en': [
        ('padded-batch', [('How many people live in London?', None),
                          ('Around nine million people live in London, the largest city of the country.', None)]),
        ('pair', [('What is the capital of France?', 'Paris is the capital of France.'),
                  ('Who wrote the book?', 'A young woman wrote it in the old city, near the river Seine.')]),
        ('single', [('Caf\u00e9 Cre\u0300me costs 3 euros;  \u6771\u4eac is far away, and\tthe TRAIN leaves at 6!',
                     None)]),
    ],
    'multilingual': [
        ('padded-batch', [('What is the capital of France?', None),
                          ('Paris est la capitale de la France. Berlin ist die Hauptstadt der Stadt.', None)]),
        ('pair', [('Where is the river?', 'El río grande en la ciudad vieja.'),
                  ('北京是中国的首都', 'Berlin ist die Hauptstadt von Deutschland, groß und alt.')]),
        ('single', [('Cafe\u0301 cr\u00e8me, na\u00efve \ufb01le:  \uff21\uff22 12 \u2603 \u6771\u4eac!', None)]),
    ],
    'rerank': [
        ('pair', [('what is the capital of France?', 'Paris est la capitale de la France.'),
                  ('what is the capital of France?', 'Berlin ist die Hauptstadt der Deutschland.'),
                  ('北京是中国的首都', 'The river is long.')]),
        ('pair-single', [('Who reads the book?', 'Les personnes lisent le livre dans la ville.')]),
    ],
    'logn': [
        ('padded-batch', [('The quick brown fox.', None),
                          ('The quick brown fox jumps over the lazy dog, and the dog makes no sense of it at all.',
                           None)]),
        ('pair', [('Where does John live?', 'John lives in Paris.'),
                  ('When was the tower built?', 'The iron tower in Paris was built in 1889 for the world fair.')]),
        ('single', [('A short one.', None)]),
    ],
    'long': [
        ('long', [(long_text(18), None)]),
        ('long-padded-batch', [(long_text(9, 30), None), (long_text(13, 50), None)]),
    ],
}


def make_inputs(kind, tokenizer_path, spec):
    """inputs.json's cases: the library's encodings, right-padded with the pad id (type id 0) to the longest row."""
    tok = TOKENIZERS[kind]
    flat = [row for _, rows in spec for row in rows]
    encodings = iter(library_encode(tokenizer_path, flat))
    cases = []
    for name, rows in spec:
        encoded = [next(encodings) for _ in rows]
        for (text, pair), e in zip(rows, encoded):
            ids, types = tok['second'](text, pair)
            check(e['ids'] == ids, 'tokenizer %s: the library gives %s for %r / %r, the second tokenizer %s'
                  % (kind, e['ids'], text, pair, ids))
            check(e['type_ids'] == types, 'tokenizer %s: type ids %s for %r / %r' % (kind, e['type_ids'], text, pair))
            check(all(0 <= i < tok['size'] for i in e['ids']), 'an id outside the vocabulary for %r' % text)
            check(all(m == 1 for m in e['attention_mask']), 'the library masked a token of %r' % text)
        length = max(len(e['ids']) for e in encoded)
        pad = lambda row, value: row + [value] * (length - len(row))
        case = {'name': name, 'texts': [t for t, _ in rows]}
        if any(p is not None for _, p in rows):
            case['pairs'] = [p for _, p in rows]
        case['input_ids'] = [pad(e['ids'], tok['pad']) for e in encoded]
        case['attention_mask'] = [pad([1] * len(e['ids']), 0) for e in encoded]
        if tok['type_ids']:
            case['token_type_ids'] = [pad(e['type_ids'], 0) for e in encoded]
        case.update({
            'tokens': [e['tokens'] for e in encoded],
            'vocab_tokens': [e['vocab_tokens'] for e in encoded],
            'offsets': [e['offsets'] for e in encoded],
        })
        cases.append(case)
    return cases


# ---------------------------------------------------------------------------------------------------- the cases

AUTO_MAP = {
    'AutoConfig': 'Alibaba-NLP/new-impl--configuration.NewConfig',
    'AutoModel': 'Alibaba-NLP/new-impl--modeling.NewModel',
    'AutoModelForMaskedLM': 'Alibaba-NLP/new-impl--modeling.NewForMaskedLM',
    'AutoModelForMultipleChoice': 'Alibaba-NLP/new-impl--modeling.NewForMultipleChoice',
    'AutoModelForQuestionAnswering': 'Alibaba-NLP/new-impl--modeling.NewForQuestionAnswering',
    'AutoModelForSequenceClassification': 'Alibaba-NLP/new-impl--modeling.NewForSequenceClassification',
    'AutoModelForTokenClassification': 'Alibaba-NLP/new-impl--modeling.NewForTokenClassification',
}
ST_CLS = dict(max_seq_length=8192, similarity='cosine')

# name: architecture, head, tokenizer, texts, config differences, sentence-transformers settings (or None)
CASES = {
    # gte-base-en-v1.5: NewModel saved without prefix, no token type table, theta 500000 (an integer in the
    # JSON, as the hub writes it), NTK factor 2
    'gte-base-en': ('NewModel', 'model', 'wordpiece', 'en',
                    dict(type_vocab_size=0, rope_theta=500000, rope_scaling={'factor': 2.0, 'type': 'ntk'}),
                    ST_CLS),
    # the same architecture with a token type table of 2 (BERT's pair type ids reach the model), theta 160000
    'gte-en-token-types': ('NewModel', 'model', 'wordpiece', 'en',
                           dict(type_vocab_size=2, rope_theta=160000.0, rope_scaling={'factor': 2.0, 'type': 'ntk'}),
                           ST_CLS),
    # gte-multilingual-base: config says NewForTokenClassification (no id2label), weights under "new." plus a
    # classifier [1, h]; type table of 1 (type ids always 0), theta 20000 (an integer in the JSON), NTK factor 8
    'gte-multilingual': ('NewForTokenClassification', 'tokcls', 'unigram', 'multilingual',
                         dict(type_vocab_size=1, rope_theta=20000, rope_scaling={'factor': 8.0, 'type': 'ntk'},
                              pad_token_id=1),
                         ST_CLS),
    # gte-multilingual-reranker-base: NewForSequenceClassification, pooler (tanh) then classifier [1, h]
    'gte-multilingual-reranker': ('NewForSequenceClassification', 'seqcls', 'unigram', 'rerank',
                                  dict(type_vocab_size=1, rope_theta=20000,
                                       rope_scaling={'factor': 8.0, 'type': 'ntk'}, pad_token_id=1,
                                       id2label={'0': 'LABEL_0'}, label2id={'LABEL_0': 0}),
                                  None),
    # logn attention scale without the clip: every row's queries scaled by log(len) / log(max_position_embeddings)
    'gte-logn': ('NewModel', 'model', 'wordpiece', 'logn',
                 dict(type_vocab_size=0, rope_theta=10000.0, rope_scaling=None, max_position_embeddings=16,
                      logn_attention_scale=True, logn_attention_clip1=False),
                 None),
    # logn with clip1 (scale at least 1: only rows longer than max_position_embeddings 16 change), RMSNorm layers,
    # plain rotary (no rope_scaling) used past max_position_embeddings
    'gte-logn-clip1-rmsnorm': ('NewModel', 'model', 'wordpiece', 'logn',
                               dict(type_vocab_size=2, rope_theta=10000.0, rope_scaling=None,
                                    max_position_embeddings=16, logn_attention_scale=True, logn_attention_clip1=True,
                                    layer_norm_type='rms_norm'),
                               None),
    # ~3,000 tokens, past max_position_embeddings 2048 (and inside the NTK cache of 2048 * 2)
    'gte-long': ('NewModel', 'model', 'wordpiece', 'long',
                 dict(type_vocab_size=0, rope_theta=500000.0, rope_scaling={'factor': 2.0, 'type': 'ntk'},
                      max_position_embeddings=2048),
                 None),
}


def make_config(architecture, kind, extra):
    """config.json with the keys of the hub's GTE v1.5 configs, as save_pretrained writes them."""
    config = {'architectures': [architecture], 'attention_probs_dropout_prob': 0.0, 'auto_map': AUTO_MAP,
              'classifier_dropout': None, 'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1, 'hidden_size': HIDDEN,
              'initializer_range': 0.02, 'intermediate_size': INTERMEDIATE, 'layer_norm_eps': 1e-12,
              'layer_norm_type': 'layer_norm', 'logn_attention_clip1': False, 'logn_attention_scale': False,
              'max_position_embeddings': 8192, 'model_type': 'new', 'num_attention_heads': HEADS,
              'num_hidden_layers': LAYERS, 'pack_qkv': True, 'pad_token_id': 0, 'position_embedding_type': 'rope',
              'rope_scaling': None, 'rope_theta': 10000.0, 'torch_dtype': 'float32',
              'transformers_version': TRANSFORMERS_VERSION, 'type_vocab_size': 0, 'unpad_inputs': False,
              'use_memory_efficient_attention': False, 'vocab_size': TOKENIZERS[kind]['size']}
    config.update(extra)
    return config


def sentence_transformers_files(directory, st, config):
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'},
               {'idx': 2, 'name': '2', 'path': '2_Normalize', 'type': 'sentence_transformers.models.Normalize'}]
    write_json(os.path.join(directory, 'modules.json'), modules)
    os.makedirs(os.path.join(directory, '1_Pooling'), exist_ok=True)
    modes = ('cls_token', 'mean_tokens', 'max_tokens', 'mean_sqrt_len_tokens', 'weightedmean_tokens', 'lasttoken')
    pooling = {'pooling_mode_' + m: m == 'cls_token' for m in modes}
    pooling.update(word_embedding_dimension=config['hidden_size'], include_prompt=True)
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling)
    write_json(os.path.join(directory, 'sentence_bert_config.json'),
               {'max_seq_length': st['max_seq_length'], 'do_lower_case': False})
    write_json(os.path.join(directory, 'config_sentence_transformers.json'),
               {'__version__': ST_VERSION, 'prompts': {}, 'default_prompt_name': None,
                'similarity_fn_name': st['similarity']})


# ---------------------------------------------------------------------------------------------------- weights

class Weights:
    """Draws tensors in a fixed order from one RandomState; names and values are kept in float32 as saved."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.w = {}

    def put(self, name, array):
        self.w[name] = torch.from_numpy(np.asarray(array, dtype=np.float32))

    def embedding(self, name, rows, cols, padding_idx=None, std=0.02):
        a = self.rng.normal(0.0, std, (rows, cols))
        if padding_idx is not None:
            a[padding_idx] = 0.0
        self.put(name + '.weight', a)

    def linear(self, name, out, inp, bias=True):
        self.put(name + '.weight', self.rng.normal(0.0, 1.0 / np.sqrt(inp), (out, inp)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (out,)))

    def norm(self, name, size, bias=True):
        self.put(name + '.weight', 1.0 + self.rng.normal(0.0, 0.1, (size,)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (size,)))


def prefix_of(head):
    """The *ForXxx classes keep the base model under "new." (base_model_prefix); a saved NewModel has no prefix."""
    return '' if head == 'model' else 'new.'


def make_weights(head, config, seed):
    g = Weights(seed)
    p = prefix_of(head)
    h, inter = config['hidden_size'], config['intermediate_size']
    g.embedding(p + 'embeddings.word_embeddings', config['vocab_size'], h, config['pad_token_id'])
    if config['type_vocab_size'] > 0:
        g.embedding(p + 'embeddings.token_type_embeddings', config['type_vocab_size'], h, std=TYPE_STD)
    g.norm(p + 'embeddings.LayerNorm', h)  # always nn.LayerNorm, whatever layer_norm_type
    rms = config['layer_norm_type'] == 'rms_norm'
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        g.linear(q + 'attention.qkv_proj', 3 * h, h)
        g.linear(q + 'attention.o_proj', h, h)
        g.norm(q + 'attn_ln', h, bias=not rms)
        g.linear(q + 'mlp.up_gate_proj', 2 * inter, h, bias=False)
        g.linear(q + 'mlp.down_proj', h, inter)
        g.norm(q + 'mlp_ln', h, bias=not rms)
    if head == 'seqcls':
        g.linear('new.pooler.dense', h, h)
        g.linear('classifier', len(config['id2label']), h)
    elif head == 'tokcls':
        g.linear('classifier', 1, h)
    return g.w


# ---------------------------------------------------------------------------------------------------- forward

def inv_freq_of(config, length):
    """float32 inverse frequencies as RotaryEmbedding / NTKScalingRotaryEmbedding hold them when a batch of `length`
    positions is run (the cos/sin cache is rebuilt only when length passes the cached length)."""
    d, theta, mpe = HEAD_DIM, float(config['rope_theta']), config['max_position_embeddings']
    exponents = torch.arange(0, d, 2, dtype=torch.float32) / d
    plain = 1.0 / (theta ** exponents)
    scaling = config['rope_scaling']
    if scaling is None:
        return plain, mpe
    factor = scaling['factor']
    check(scaling['type'] == 'ntk' and scaling.get('mixed_b') is None, 'only fixed NTK is written here')
    cached = mpe * factor  # NTKScalingRotaryEmbedding.__init__ rebuilds the cache for mpe * factor positions
    if length > cached:
        cached = length    # forward rebuilds it for the batch length
    if cached > mpe:       # _set_cos_sin_cache scales only for a cache longer than max_position_embeddings
        scaled = 1.0 / ((theta * factor) ** exponents)
        return scaled / factor ** (2 / d), cached
    return plain, cached


def rotary(config, length):
    """cos, sin [length, head_dim]: angles p * inv_freq as one float32 product (the code's float32 einsum), then
    cos / sin in float64 of those float32 angles."""
    inv, _ = inv_freq_of(config, length)
    t = torch.arange(length, dtype=torch.float32)
    angles = (t[:, None] * inv[None, :]).double()
    emb = torch.cat([angles, angles], dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def gelu(x):
    return torch.nn.functional.gelu(x)  # ACT2FN["gelu"]: the erf GELU


def logn_scale(config, mask):
    """NewModel.forward: log(real length) / log(max_position_embeddings) per row, in float32, clipped below at 1 with
    logn_attention_clip1; None without logn_attention_scale."""
    if not config['logn_attention_scale']:
        return None
    lengths = mask.sum(1).to(torch.float32)
    scale = lengths.log() / torch.tensor(float(config['max_position_embeddings']), dtype=torch.float32).log()
    if config['logn_attention_clip1']:
        scale = scale.clamp(min=1.0)
    return scale.double()


def encoder(config, w, ids, mask, type_ids, prefix):
    """last_hidden_state of NewModel (eager attention, dropout off)."""
    w = {k: t.double() for k, t in w.items()}
    n, length = ids.shape
    h, heads, d = config['hidden_size'], config['num_attention_heads'], HEAD_DIM
    eps = config['layer_norm_eps']
    lin = lambda x, name: x @ w[name + '.weight'].T + (w[name + '.bias'] if name + '.bias' in w else 0.0)
    layer_norm = lambda x, name: torch.nn.functional.layer_norm(x, (h,), w[name + '.weight'], w[name + '.bias'], eps)
    if config['layer_norm_type'] == 'rms_norm':
        norm = lambda x, name: w[name + '.weight'] * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))
    else:
        norm = layer_norm
    p = prefix
    x = w[p + 'embeddings.word_embeddings.weight'][ids]
    if config['type_vocab_size'] > 0:
        x = x + w[p + 'embeddings.token_type_embeddings.weight'][type_ids]
    x = layer_norm(x, p + 'embeddings.LayerNorm')
    cos, sin = rotary(config, length)
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]  # [1, len, 1, d]: positions 0..len-1 in every row
    scale = logn_scale(config, mask)
    key_mask = (mask == 0)[:, None, None, :]
    inter = config['intermediate_size']
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        query, key, value = (t.view(n, length, heads, d) for t in lin(x, q + 'attention.qkv_proj').split(h, dim=-1))
        query = query * cos + rotate_half(query) * sin
        key = key * cos + rotate_half(key) * sin
        if scale is not None:
            query = query * scale[:, None, None, None]
        query, key, value = (t.transpose(1, 2) for t in (query, key, value))
        scores = (query @ key.transpose(-1, -2)) / math.sqrt(d)
        probabilities = torch.softmax(scores.masked_fill(key_mask, float('-inf')), dim=-1)
        context = (probabilities @ value).transpose(1, 2).reshape(n, length, h)
        x = norm(x + lin(context, q + 'attention.o_proj'), q + 'attn_ln')
        up, gate = lin(x, q + 'mlp.up_gate_proj').split(inter, dim=-1)  # up first, gate second
        x = norm(x + lin(gelu(gate) * up, q + 'mlp.down_proj'), q + 'mlp_ln')
    return x


def heads_forward(head, w, hidden, st):
    w = {k: t.double() for k, t in w.items()}
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    out = {}
    if head == 'seqcls':
        out['pooler_output'] = torch.tanh(lin(hidden[:, 0], 'new.pooler.dense'))
        out['logits'] = lin(out['pooler_output'], 'classifier')
    elif head == 'tokcls':
        out['logits'] = lin(hidden, 'classifier')
    if st is not None:
        out['sentence_embedding'] = torch.nn.functional.normalize(hidden[:, 0], p=2, dim=1)
    return out


def tensors_of(case, config):
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    types = torch.tensor(case['token_type_ids']) if 'token_type_ids' in case else torch.zeros_like(ids)
    return ids, mask, types


def run(head, config, w, case, st):
    ids, mask, types = tensors_of(case, config)
    hidden = encoder(config, w, ids, mask, types, prefix_of(head))
    return dict(last_hidden_state=hidden, **heads_forward(head, w, hidden, st))


# ---------------------------------------------------------------------------------------------------- self-checks

def check_rotary(config, length):
    """inv_freq against the closed formula in float64: 1 / ((theta * factor)^(2i/d)) / factor^(2/d) with NTK (TEI's
    gte.rs writes it so), 1 / theta^(2i/d) without; the angles against torch.einsum as the code computes them."""
    inv, _ = inv_freq_of(config, length)
    d, theta = HEAD_DIM, float(config['rope_theta'])
    i = torch.arange(d // 2, dtype=torch.float64)
    scaling = config['rope_scaling']
    if scaling is None:
        closed = theta ** (-2 * i / d)
    else:
        closed = (theta * scaling['factor']) ** (-2 * i / d) / scaling['factor'] ** (2 / d)
    rel = ((inv.double() - closed) / closed).abs().max().item()
    check(rel < 1e-6, 'inv_freq differs from the closed formula by %g (relative)' % rel)
    t = torch.arange(length, dtype=torch.float32)
    einsum = torch.einsum('i,j->ij', t, inv)
    check(torch.equal(einsum, t[:, None] * inv[None, :]), 'float32 angles differ from torch.einsum')


def second_encoder(config, w, case, prefix):
    """The encoder written a second way: nn.Embedding / nn.Linear modules, q, k and v cut from the fused weight's
    rows, rotary as complex multiplication of (x[i], x[i + d/2]) pairs, einsum attention with a hand-written softmax
    over the visible keys, hand-written norms and erf GELU, up and gate as two Linear modules; the logn scale from
    numpy float32 logs."""
    w = {k: t.double() for k, t in w.items()}
    ids, mask, types = tensors_of(case, config)
    n, length = ids.shape
    h, heads, d, inter = config['hidden_size'], config['num_attention_heads'], HEAD_DIM, config['intermediate_size']
    eps = config['layer_norm_eps']
    p = prefix

    def linear(weight, bias):
        module = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None).double()
        state = {'weight': weight}
        if bias is not None:
            state['bias'] = bias
        module.load_state_dict(state)
        return module

    def layer_norm(x, name):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * w[name + '.weight'] + w[name + '.bias']

    def rms_norm(x, name):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w[name + '.weight']

    norm = rms_norm if config['layer_norm_type'] == 'rms_norm' else layer_norm
    x = torch.nn.Embedding.from_pretrained(w[p + 'embeddings.word_embeddings.weight'])(ids)
    if config['type_vocab_size'] > 0:
        x = x + torch.nn.Embedding.from_pretrained(w[p + 'embeddings.token_type_embeddings.weight'])(types)
    x = layer_norm(x, p + 'embeddings.LayerNorm')
    inv, _ = inv_freq_of(config, length)
    angles = torch.outer(torch.arange(length, dtype=torch.float64), inv.double()).to(torch.float32).double()
    turn = torch.polar(torch.ones_like(angles), angles)  # [len, d/2]

    def rotate(t):  # t [n, len, heads, d]
        z = torch.complex(t[..., :d // 2], t[..., d // 2:]) * turn[None, :, None, :]
        return torch.cat([z.real, z.imag], dim=-1)

    if config['logn_attention_scale']:
        s = []
        for row in case['attention_mask']:
            top = np.float32(np.log(np.float32(config['max_position_embeddings'])))
            v = np.float32(np.log(np.float32(sum(row)))) / top
            if config['logn_attention_clip1']:
                v = max(v, np.float32(1.0))
            s.append(float(v))
        s = torch.tensor(s)
    else:
        s = torch.ones(n)
    visible = (mask == 1)[:, None, None, :].expand(n, heads, length, length)
    gelu2 = lambda v: 0.5 * v * (1.0 + torch.erf(v / math.sqrt(2.0)))
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        wq = w[q + 'attention.qkv_proj.weight']
        bq = w[q + 'attention.qkv_proj.bias']
        proj = [linear(wq[j * h:(j + 1) * h], bq[j * h:(j + 1) * h]) for j in range(3)]
        query, key, value = (m(x).reshape(n, length, heads, d) for m in proj)
        query = rotate(query) * s[:, None, None, None]
        key = rotate(key)
        scores = torch.einsum('bqhd,bkhd->bhqk', query, key) / math.sqrt(d)
        top = torch.where(visible, scores, torch.full_like(scores, -1e300)).amax(-1, keepdim=True)
        weights = torch.exp(scores - top) * visible  # exp-normalise by hand over the visible keys only
        weights = weights / weights.sum(-1, keepdim=True)
        context = torch.einsum('bhqk,bkhd->bqhd', weights, value).reshape(n, length, h)
        x = norm(linear(w[q + 'attention.o_proj.weight'], w[q + 'attention.o_proj.bias'])(context) + x, q + 'attn_ln')
        wug = w[q + 'mlp.up_gate_proj.weight']
        up = linear(wug[:inter], None)(x)
        gate = linear(wug[inter:], None)(x)
        down = linear(w[q + 'mlp.down_proj.weight'], w[q + 'mlp.down_proj.bias'])
        x = norm(down(up * gelu2(gate)) + x, q + 'mlp_ln')
    return x


def check_encoder(name, config, w, case, prefix, hidden):
    theirs = second_encoder(config, w, case, prefix)
    diff = (theirs - hidden).abs().max().item()  # every position: the pad queries too
    check(diff < 1e-9, '%s %s: the second encoder differs by %g' % (name, case['name'], diff))
    return diff


def check_padding(name, head, config, w, case, outputs, st):
    """Each row alone, unpadded, gives the padded batch's values at its real positions."""
    for r, row_mask in enumerate(case['attention_mask']):
        n = sum(row_mask)
        alone = {k: [case[k][r][:n]] for k in ('input_ids', 'attention_mask', 'token_type_ids') if k in case}
        for key, value in run(head, config, w, alone, st).items():
            batched = outputs[key][r:r + 1]
            if key == 'last_hidden_state' or (key == 'logits' and head == 'tokcls'):
                batched = batched[:, :n]
            diff = (value - batched).abs().max().item()
            check(diff < 1e-9, '%s %s row %d %s: padded and unpadded differ by %g'
                  % (name, case['name'], r, key, diff))


def check_heads(head, config, w, outputs):
    w = {k: t.double() for k, t in w.items()}

    def linear(name):
        weight = w[name + '.weight']
        module = torch.nn.Linear(weight.shape[1], weight.shape[0]).double()
        module.load_state_dict({'weight': weight, 'bias': w[name + '.bias']})
        return module

    hidden = outputs['last_hidden_state']
    theirs = {}
    if head == 'seqcls':
        theirs['logits'] = torch.nn.Sequential(linear('new.pooler.dense'), torch.nn.Tanh(),
                                               linear('classifier'))(hidden[:, 0, :])
    elif head == 'tokcls':
        theirs['logits'] = linear('classifier')(hidden)
    for key, value in theirs.items():
        diff = (value - outputs[key]).abs().max().item()
        check(diff < 1e-12, '%s head %s differs by %g' % (head, key, diff))


def check_sentence_embedding(case, outputs):
    hidden = outputs['last_hidden_state']
    for r in range(len(case['attention_mask'])):
        v = hidden[r, 0]
        v = v / math.sqrt(sum(float(c) ** 2 for c in v))
        diff = (v - outputs['sentence_embedding'][r]).abs().max().item()
        check(diff < 1e-12, '%s row %d: sentence embedding differs by %g' % (case['name'], r, diff))


def check_sensitivity(name, head, config, w, case, hidden):
    """Each feature the case exercises moves last_hidden_state at real positions by more than 1e-3 when it is done
    the wrong way: up and gate halves swapped; rotary without the NTK scaling (NTK cases); no logn scale, and
    logn_attention_clip1 the other way (logn cases); token type ids all 0 (type tables of 2, rows with type 1).
    Returns the smallest move."""
    real = torch.tensor(case['attention_mask'])[:, :, None].bool()

    def moved(cfg, weights, inputs):
        ids, m, types = tensors_of(inputs, cfg)
        other = encoder(cfg, weights, ids, m, types, prefix_of(head))
        return ((other - hidden).abs() * real).max().item()

    inter = config['intermediate_size']
    swapped = dict(w)
    for layer in range(config['num_hidden_layers']):
        key = '%sencoder.layer.%d.mlp.up_gate_proj.weight' % (prefix_of(head), layer)
        swapped[key] = torch.cat([w[key][inter:], w[key][:inter]])
    mutations = [('up and gate swapped', config, swapped, case)]
    if config['rope_scaling'] is not None:
        mutations.append(('NTK scaling off', dict(config, rope_scaling=None), w, case))
    longest = max(sum(row) for row in case['attention_mask'])
    if config['logn_attention_scale'] and (longest > config['max_position_embeddings']
                                           or not config['logn_attention_clip1']):  # clip1: 1 up to max positions
        mutations.append(('logn scale off', dict(config, logn_attention_scale=False), w, case))
        mutations.append(('clip1 flipped', dict(config, logn_attention_clip1=not config['logn_attention_clip1']), w,
                          case))
    if config['type_vocab_size'] > 1 and any(1 in row for row in case.get('token_type_ids', [])):
        zeros = [[0] * len(row) for row in case['token_type_ids']]
        mutations.append(('token types 0', config, w, dict(case, token_type_ids=zeros)))
    smallest = math.inf
    for label, cfg, weights, inputs in mutations:
        diff = moved(cfg, weights, inputs)
        check(diff > 1e-3, '%s %s: %s moves the output by only %g' % (name, case['name'], label, diff))
        smallest = min(smallest, diff)
    return smallest


# ---------------------------------------------------------------------------------------------------- main

def main():
    os.makedirs(OUT, exist_ok=True)
    inputs = {}
    for kind in TOKENIZERS:
        tokenizer_path = os.path.join(OUT, 'tokenizer-%s.json.tmp' % kind)
        write_tokenizer_json(tokenizer_path, kind)
        try:
            for key in {c[3] for c in CASES.values() if c[2] == kind}:
                inputs[(kind, key)] = make_inputs(kind, tokenizer_path, TEXTS[key])
        finally:
            os.remove(tokenizer_path)
    summary, written = [], {}
    for seed, (name, (architecture, head, kind, texts, extra, st)) in enumerate(CASES.items(), start=300):
        config = make_config(architecture, kind, extra)
        w = make_weights(head, config, seed)
        cases = inputs[(kind, texts)]
        expected, worst, least = {}, 0.0, math.inf
        with torch.no_grad():
            for i, case in enumerate(cases):
                length = len(case['input_ids'][0])
                check_rotary(config, length)
                outputs = run(head, config, w, case, st)
                check_padding(name, head, config, w, case, outputs, st)
                worst = max(worst, check_encoder(name, config, w, case, prefix_of(head), outputs['last_hidden_state']))
                least = min(least, check_sensitivity(name, head, config, w, case, outputs['last_hidden_state']))
                check_heads(head, config, w, outputs)
                if st is not None:
                    check_sentence_embedding(case, outputs)
                if case['name'].startswith('long'):
                    check(length > config['max_position_embeddings'] or case['name'] != 'long',
                          'the long input (%d) does not pass max_position_embeddings' % length)
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value.float()
        written[name] = (config, w, cases, expected, st, kind)
        summary.append('%-26s %-29s %s; lengths %s; second encoder agrees to %.1e, smallest mutation move %.2g'
                       % (name, architecture, ' '.join(sorted(k[6:] for k in expected if k.startswith('case0.'))),
                          [[sum(m) for m in c['attention_mask']] for c in cases], worst, least))
    for name, (config, w, cases, expected, st, kind) in written.items():
        directory = os.path.join(OUT, name)
        os.makedirs(directory, exist_ok=True)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        write_tokenizer_json(os.path.join(directory, 'tokenizer.json'), kind)
        write_json(os.path.join(directory, 'tokenizer_config.json'), TOKENIZERS[kind]['config'](8192))
        write_json(os.path.join(directory, 'special_tokens_map.json'), TOKENIZERS[kind]['special']())
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            json.dump(cases, f, indent=1, ensure_ascii=False)
            f.write('\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        if st is not None:
            sentence_transformers_files(directory, st, config)
    print('\n'.join(summary))
    print('vocabularies: WordPiece %d, Unigram %d; tokenizers %s' % (len(WP_VOCAB), len(UG_VOCAB), TOKENIZERS_VERSION))
    print('wrote', len(CASES), 'cases to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
