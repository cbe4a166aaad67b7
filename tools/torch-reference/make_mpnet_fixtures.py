#!/usr/bin/env python3
"""Random-weight MPNet checkpoints (model_type "mpnet") for vectorbert's tests, with reference outputs computed by an
independent PyTorch forward pass and input ids taken from Hugging Face's tokenizers library.

The forward pass below is written with plain torch operations from the semantics of Hugging Face transformers'
models/mpnet/modeling_mpnet.py (MPNetEmbeddings, MPNetSelfAttention, MPNetAttention, MPNetLayer, MPNetEncoder with its
compute_position_bias and relative_position_bucket, MPNetLMHead, MPNetClassificationHead and the *ForXxx classes) and
configuration_mpnet.py; it shares no code with vectorbert, and transformers itself is not needed. The tokenizer.json
has the shape of the hub's all-mpnet-base-v2 tokenizer.json (see NOTES.md) with a small vocabulary, and every input id
comes from the tokenizers library's own encoding of the texts (tokenize_mpnet.mjs, beside this script), so the
fixtures also prove tokenizer parity.

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/mpnet-npm && (cd /tmp/mpnet-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/mpnet-npm/node_modules /usr/bin/python3 tools/torch-reference/make_mpnet_fixtures.py
                                                      # no arguments; a few seconds; NODE_PATH is passed on to node

Writes into engine/src/test/resources/architectures/mpnet/ (the same bytes on every run: the tokenizer is
deterministic, numpy's legacy RandomState draws the weights, the reference is computed in float64 on one thread, then
rounded to float32):
    buckets.json          relative position (key index - query index) -> bucket for -400..400, from this script's
                          bucket function, checked against a second, integer-only one
    NOTES.md              is not written here: it is kept by hand beside the cases
    <case>/config.json    the keys the hub's MPNet configs carry (microsoft/mpnet-base, all-mpnet-base-v2), as
                          save_pretrained writes them (sorted, indent 2; transformers_version nominal), with
                          layer_norm_eps 1e-05, max_position_embeddings 514, pad 1 / bos 0 / eos 2, 32 buckets
    <case>/model.safetensors    float32 weights, names sorted, __metadata__ {"format": "pt"}
    <case>/tokenizer.json, tokenizer_config.json, special_tokens_map.json    one tokenizer shared by every case
    <case>/inputs.json    a list of cases: name, texts (and pairs), input_ids, attention_mask, and the library's
                          tokens, vocab_tokens and offsets of each row (unpadded), no token_type_ids (MPNet has none and
                          its tokenizer's model_input_names leave them out):
                            case0 padded-batch  two single texts of different length, right-padded with <pad> (1)
                            case1 pair          two text pairs, padded: <s> A </s></s> B </s> (RobertaProcessing)
                            case2 single        one unpadded text
                            case3 long          (mpnet-mlm: one text of 344 tokens with a <mask>; mpnet-sentence-mean:
                                                that text, 350 tokens, and a short one, padded) so key-query distances
                                                pass max_distance 128 and the log-spaced buckets and the clamp are used
    <case>/expected.safetensors  caseN.last_hidden_state [n, len, hidden] and the head's outputs:
                            caseN.logits [n, len, vocab]           MPNetForMaskedLM
                            caseN.logits [n, num_labels]           MPNetForSequenceClassification
                            caseN.logits [n, len, num_labels]      MPNetForTokenClassification
                            caseN.start_logits, caseN.end_logits [n, len]   MPNetForQuestionAnswering
                            caseN.pooler_output [n, hidden]        the MPNetModel directories (tanh(dense(<s>)), which
                                                                   sentence-transformers does not use)
                            caseN.sentence_embedding [n, hidden]   the sentence-transformers directories
                          Padded positions hold what transformers computes there (a pad query still attends to the
                          row's unpadded keys); compare them or mask them, both are defined.
    <case>/modules.json, 1_Pooling/config.json, sentence_bert_config.json, config_sentence_transformers.json
                          the sentence-transformers directories only (no 2_Normalize folder: the Normalize module
                          saves nothing, and git keeps no empty folder, as on the hub)

Tied weights: MPNetForMaskedLM's lm_head.decoder.weight is mpnet.embeddings.word_embeddings.weight and
lm_head.decoder.bias is lm_head.bias; save_pretrained drops both duplicates, so the file has lm_head.bias and no
lm_head.decoder.*. The *ForXxx classes build MPNetModel with add_pooling_layer=False (no pooler weights); the
sentence-transformers directories hold a saved MPNetModel (with its pooler, no "mpnet." prefix), as the hub's
sentence-transformers MPNet models do.

Weight scale, as make_family_fixtures.py: embedding tables normal with std 0.02 with a zero row at padding_idx 1 (word
and position tables), Linear weights std 1/sqrt(fan_in), biases std 0.1, LayerNorm weights 1 + std 0.1 and biases std
0.1. One exception: the relative_attention_bias table [32 buckets, heads] has std 0.5 rather than transformers' 0.02,
so that a bucket mix-up moves the scores by about 0.5 and shows clearly.

Self-checks run before anything is written (the script stops on the first failure): the bucket function against a
second, integer-only one for -1000..1000 and against a float64 version (transformers computes it in float32); the
position ids of a padded row and of a row holding <pad> as text; for every case and input, the encoder again as a stack
of torch.nn.TransformerEncoderLayer fed the relative bias as a float attention mask (bias from the second bucket
function, positions computed a second way), and each row run alone against the padded batch at its real positions; the
long inputs use every bucket that can occur (all but 16); each head again with torch.nn modules; the sentence
embeddings again from the hidden states (mean with a loop, a second norm); the library's ids against a small second tokenizer written here (BERT normalizer, pre-tokenizer, greedy WordPiece,
added tokens with their flags, RobertaProcessing); every id below vocab_size.
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
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'mpnet')
NODE_HELPER = os.path.join(HERE, 'tokenize_mpnet.mjs')
TOKENIZERS_VERSION = '0.23.2'  # the npm package the ids come from
TRANSFORMERS_VERSION = '4.44.2'  # nominal: the configs are written here in that version's layout, not by it
ST_VERSION = {'sentence_transformers': '3.0.1', 'transformers': TRANSFORMERS_VERSION, 'pytorch': '2.4.0'}  # nominal
HIDDEN, LAYERS, HEADS, INTERMEDIATE = 32, 2, 4, 64
MAX_POSITIONS = 514  # as the hub's MPNet configs: 512 tokens after the padding_idx + 1 offset
NUM_BUCKETS, MAX_DISTANCE = 32, 128  # MPNetEncoder.compute_position_bias's and relative_position_bucket's defaults
PADDING_IDX = 1  # MPNetEmbeddings.padding_idx: fixed at 1, not read from config.pad_token_id
REACHABLE = set(range(NUM_BUCKETS)) - {NUM_BUCKETS // 2}  # every bucket but 16 (see check_buckets)
BIAS_STD = 0.5
NEG = float('-inf')

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def write_json(path, value):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + '\n')


def write_tokenizer_json(path):
    """tokenizer.json keeps its own key order (the vocabulary in id order), as the library writes it."""
    with open(path, 'w') as f:
        f.write(json.dumps(tokenizer_json(), indent=2, ensure_ascii=False) + '\n')


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


# ---------------------------------------------------------------------------------------------------- tokenizer

# The hub's all-mpnet-base-v2 vocabulary starts with fairseq's four specials, then BERT's uncased vocabulary shifted
# by 4 ([PAD] 4, [unused0..98] 5..103, [UNK] 104, [CLS] 105, [SEP] 106, [MASK] 107, ...), and ends with <mask> as its
# last entry (30526), which is also an added token. The small vocabulary here keeps that order.
SPECIALS = ['<s>', '<pad>', '</s>', '<unk>', '[PAD]', '[unused0]', '[unused1]', '[unused2]', '[UNK]', '[CLS]',
            '[SEP]', '[MASK]']
PUNCTUATION = list('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
WORDS = '''
the an of is and in to it its on for at with was are not but by as from there that this who what where when how
many much people city capital france paris london berlin germany rome europe largest large small great old new river
tower book wrote young man woman girl child eating eats food riding white horse ground music guitar park plays makes
outside quick brown fox jumps over lazy dog love movie plot slow ending made no sense all service bad room cold we will
come back would eat again john mary smith anna lives live moved york last year friend works work bank near station
iron built world fair answer question context one two text same word here just literal then million nine around has
have been big street shops gardens walk along evening lights water say busy loud too most them want else life bread
fresh morning long friends until late night also centre schools trains leave six every rest whole part north country
trade learning arts hundreds years quiet while west tall glass steel visit cost euro cafe far away does he she they
you so very good day time short stands'''.split()
PIECES = ['##es', '##ed', '##ing', '##ly', '##er', '##est', '##al', '##tion', '##ful']
VOCAB_TOKENS = (SPECIALS + PUNCTUATION + [str(d) for d in range(10)] + [chr(c) for c in range(ord('a'), ord('z') + 1)]
                + WORDS + PIECES + ['##' + str(d) for d in range(10)]
                + ['##' + chr(c) for c in range(ord('a'), ord('z') + 1)] + ['<mask>'])
VOCAB = {t: i for i, t in enumerate(VOCAB_TOKENS)}
check(len(VOCAB) == len(VOCAB_TOKENS), 'duplicate vocabulary entries')
VOCAB_SIZE = len(VOCAB)
MASK_ID = VOCAB['<mask>']

# added_tokens as the hub's all-mpnet-base-v2 tokenizer.json lists them (ids remapped to this vocabulary): the four
# fairseq specials, BERT's [UNK] (the WordPiece unk_token) and <mask>; <unk> alone is normalized, <mask> alone lstrip.
ADDED = [(VOCAB['<s>'], '<s>', False, False), (VOCAB['<pad>'], '<pad>', False, False),
         (VOCAB['</s>'], '</s>', False, False), (VOCAB['<unk>'], '<unk>', False, True),
         (VOCAB['[UNK]'], '[UNK]', False, False), (MASK_ID, '<mask>', True, False)]  # id, content, lstrip, normalized


def tokenizer_json():
    """tokenizer.json in the layout of the hub's all-mpnet-base-v2 file (see NOTES.md)."""
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [{'id': i, 'content': c, 'single_word': False, 'lstrip': lstrip, 'rstrip': False,
                          'normalized': normalized, 'special': True} for i, c, lstrip, normalized in ADDED],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                       'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {'type': 'RobertaProcessing', 'sep': ['</s>', VOCAB['</s>']], 'cls': ['<s>', VOCAB['<s>']],
                           'trim_offsets': True, 'add_prefix_space': False},
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
                  'max_input_chars_per_word': 100, 'vocab': VOCAB},
    }


def added_token_entry(content, lstrip, normalized):
    return {'content': content, 'lstrip': lstrip, 'normalized': normalized, 'rstrip': False, 'single_word': False}


def tokenizer_config(model_max_length):
    """tokenizer_config.json as transformers 4.44's save_pretrained writes it for MPNetTokenizerFast."""
    decoder = {str(i): dict(added_token_entry(c, lstrip, normalized), special=True) for i, c, lstrip, normalized in ADDED}
    return {'added_tokens_decoder': decoder, 'bos_token': '<s>', 'clean_up_tokenization_spaces': True,
            'cls_token': '<s>', 'do_lower_case': True, 'eos_token': '</s>', 'mask_token': '<mask>',
            'model_max_length': model_max_length, 'pad_token': '<pad>', 'sep_token': '</s>', 'strip_accents': None,
            'tokenize_chinese_chars': True, 'tokenizer_class': 'MPNetTokenizer', 'unk_token': '[UNK]'}


def special_tokens_map():
    """special_tokens_map.json: MPNetTokenizerFast's tokens; the mask token swallows the space before it (lstrip)."""
    plain = lambda c: added_token_entry(c, False, False)
    return {'bos_token': plain('<s>'), 'cls_token': plain('<s>'), 'eos_token': plain('</s>'),
            'mask_token': added_token_entry('<mask>', True, False), 'pad_token': plain('<pad>'),
            'sep_token': plain('</s>'), 'unk_token': plain('[UNK]')}


def library_encode(tokenizer_path, inputs):
    """Each (text, pair) encoded by the tokenizers library through tokenize_mpnet.mjs."""
    if not os.environ.get('NODE_PATH'):
        sys.exit('NODE_PATH is not set: install the tokenizers library with\n'
                 '    mkdir -p /tmp/mpnet-npm && (cd /tmp/mpnet-npm && npm install tokenizers@%s)\n'
                 'and run NODE_PATH=/tmp/mpnet-npm/node_modules %s' % (TOKENIZERS_VERSION, sys.argv[0]))
    request = {'tokenizer': tokenizer_path, 'inputs': [{'text': t, 'pair': p} for t, p in inputs]}
    answer = subprocess.run(['node', NODE_HELPER], input=json.dumps(request), capture_output=True, text=True,
                            check=False)
    if answer.returncode != 0:
        sys.exit('tokenize_mpnet.mjs failed:\n' + answer.stderr)
    result = json.loads(answer.stdout)
    check(result['version'] == TOKENIZERS_VERSION,
          'the tokenizers library at NODE_PATH is %s, not %s' % (result['version'], TOKENIZERS_VERSION))
    return result['encodings']


# A second tokenizer, written here from the tokenizers library's documented pieces (BertNormalizer, BertPreTokenizer,
# WordPiece, added tokens, RobertaProcessing), only to check the library's ids for the texts used here.

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
        return [VOCAB['[UNK]']]
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
            return [VOCAB['[UNK]']]
        start = end
    return ids


def second_tokenize_sequence(text):
    """Ids of one sequence without special tokens: raw-text added tokens first (<mask> takes the spaces before it),
    then the normalized ones (<unk>), then words split at spaces and punctuation, then WordPiece."""
    raw = [(c, i) for i, c, _, normalized in ADDED if not normalized]
    normalized_tokens = [(c, i) for i, c, _, normalized in ADDED if normalized]
    segments, rest = [], text
    while rest:
        hits = [(rest.find(c), c, i) for c, i in raw if rest.find(c) >= 0]
        if not hits:
            segments.append(rest)
            break
        at, content, token_id = min(hits)
        before = rest[:at]
        if content == '<mask>':
            before = before.rstrip()
        segments += [before, token_id]
        rest = rest[at + len(content):]
    ids = []
    for segment in segments:
        if isinstance(segment, int):
            ids.append(segment)
            continue
        pieces, rest = [], bert_normalize(segment)
        for content, token_id in normalized_tokens:
            parts = rest.split(content)
            rest = None
            for j, part in enumerate(parts):
                if j:
                    pieces.append(token_id)
                pieces.append(part)
        for piece in pieces:
            if isinstance(piece, int):
                ids.append(piece)
                continue
            words, current = [], ''
            for ch in piece:
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
    return ids


def second_tokenize(text, pair):
    s, e = VOCAB['<s>'], VOCAB['</s>']
    ids = [s] + second_tokenize_sequence(text) + [e]
    if pair is not None:
        ids += [e] + second_tokenize_sequence(pair) + [e]
    return ids


# ---------------------------------------------------------------------------------------------------- texts

LONG_TEXT = (
    'Paris is the capital and the largest city of France. The city stands on the river Seine, in the north of the '
    'country, and it has been one of the great centres of trade, learning and the arts for many hundreds of years. '
    'In the old part of the city there are narrow streets, small shops and quiet gardens, while the new districts in '
    'the west have tall towers of glass and steel. Every year millions of people come to visit the museums, the '
    'churches and the famous iron tower that was built for the world fair of 1889. Many of them walk along the river '
    'in the evening, when the lights of the bridges shine on the water. The people who live in Paris often say that '
    'the city is too busy, too loud and too expensive, but most of them would not want to live anywhere else. Food is '
    'a large part of life there: bread is bought fresh every morning, and long dinners with friends can last until '
    'late at night. The city is also a centre of <mask>, with many schools, theatres and libraries. Trains leave from '
    'its six great stations for every part of France and for the rest of Europe, and two large airports connect it '
    'with the whole world.')

TEXTS = {
    'mlm': [
        ('padded-batch', [('The capital of France is <mask>.', None),
                          ('Paris is the<mask> of France and its largest city.', None)]),
        ('pair', [('Where is the <mask> tower?', 'It stands in Paris.'),
                  ('Who wrote the book?', 'A young <mask>wrote it in the old city, near the river.')]),
        ('single', [('<mask> and <MASK> are not the same text, but [MASK] is just a word here.', None)]),
        ('long', [(LONG_TEXT, None)]),
    ],
    'seqcls': [
        ('padded-batch', [('I love this movie!', None),
                          ('The plot was slow, and the ending made no sense at all.', None)]),
        ('pair', [('The food was great.', 'I would eat there again.'),
                  ('The service was bad and the room was cold.', 'We will not come back.')]),
        ('single', [('Caf\u00e9 Cr\u00e8me costs 3 euros; \u6771\u4eac is far away.', None)]),
    ],
    'tokcls': [
        ('padded-batch', [('John lives in Paris.', None),
                          ('Mary Smith moved from London to New York last year.', None)]),
        ('pair', [('Who is John?', 'John is a friend of Mary.'),
                  ('Where does Anna work?', 'Anna works for a bank in Berlin near the old station.')]),
        ('single', [('A literal <pad> and <unk> and <UNK> in the text, then John in Rome.', None)]),
    ],
    'qa': [
        ('padded-batch', [('What is the capital of France?', None),
                          ('Paris is the capital of France and its largest city.', None)]),
        ('pair', [('Where does John live?', 'John lives in a small house in Paris.'),
                  ('When was the tower built?', 'The iron tower in Paris was built in 1889 for the world fair.')]),
        ('single', [('Question and context in one text: the answer is forty two.', None)]),
    ],
    'sentence-mean': [
        ('padded-batch', [('A man is eating food.', None),
                          ('A man is riding a white horse on an enclosed ground.', None)]),
        ('pair', [('A man is eating.', 'A man eats food.'),
                  ('The girl plays the guitar in the park.', 'A child makes music outside.')]),
        ('single', [('The quick brown fox jumps over the lazy dog.', None)]),
        ('long', [(LONG_TEXT.replace('<mask>', 'science'), None), ('A short one.', None)]),
    ],
    'sentence-cls-dot': [
        ('padded-batch', [('How many people live in London?', None),
                          ('Around nine million people live in London.', None)]),
        ('pair', [('how big is london', 'London has nine million people.'),
                  ('What is the capital of France?', 'Paris is the capital of France.')]),
        ('single', [('Berlin is the capital of Germany.', None)]),
    ],
}


def make_inputs(tokenizer_path, spec):
    """inputs.json's cases: the library's encodings, right-padded with <pad> to the longest row."""
    flat = [row for _, rows in spec for row in rows]
    encodings = iter(library_encode(tokenizer_path, flat))
    cases = []
    for name, rows in spec:
        encoded = [next(encodings) for _ in rows]
        for (text, pair), e in zip(rows, encoded):
            theirs = second_tokenize(text, pair)
            check(e['ids'] == theirs, 'tokenizer: the library gives %s for %r / %r, the second tokenizer %s'
                  % (e['ids'], text, pair, theirs))
            check(all(0 <= i < VOCAB_SIZE for i in e['ids']), 'an id outside the vocabulary for %r' % text)
            check(all(m == 1 for m in e['attention_mask']), 'the library masked a token of %r' % text)
        length = max(len(e['ids']) for e in encoded)
        case = {'name': name, 'texts': [t for t, _ in rows]}
        if any(p is not None for _, p in rows):
            case['pairs'] = [p for _, p in rows]
        case.update({
            'input_ids': [e['ids'] + [PADDING_IDX] * (length - len(e['ids'])) for e in encoded],
            'attention_mask': [[1] * len(e['ids']) + [0] * (length - len(e['ids'])) for e in encoded],
            'tokens': [e['tokens'] for e in encoded],
            'vocab_tokens': [e['vocab_tokens'] for e in encoded],
            'offsets': [e['offsets'] for e in encoded],
        })
        cases.append(case)
    return cases


# ---------------------------------------------------------------------------------------------------- the cases

def labels(*names):
    return {'id2label': {str(i): n for i, n in enumerate(names)}, 'label2id': {n: i for i, n in enumerate(names)}}


# name: architectures entry, head, extra config, texts, sentence-transformers settings (or None)
CASES = {
    'mpnet-mlm': ('MPNetForMaskedLM', 'mlm', {}, 'mlm', None),
    'mpnet-seqcls': ('MPNetForSequenceClassification', 'seqcls', labels('negative', 'neutral', 'positive'), 'seqcls',
                     None),
    'mpnet-tokcls': ('MPNetForTokenClassification', 'tokcls', labels('O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'), 'tokcls',
                     None),
    'mpnet-qa': ('MPNetForQuestionAnswering', 'qa', {}, 'qa', None),
    # all-mpnet-base-v2: its config.json says MPNetForMaskedLM (copied from microsoft/mpnet-base) over the weights of
    # an MPNetModel; kept so here. Mean pooling, then Normalize; max_seq_length 384.
    'mpnet-sentence-mean': ('MPNetForMaskedLM', 'model', {}, 'sentence-mean',
                            dict(pooling='mean', normalize=True, max_seq_length=384, model_max_length=512,
                                 similarity='cosine')),
    # multi-qa-mpnet-base-dot-v1: CLS pooling, no Normalize (dot-product scores); architectures as an MPNetModel
    # saved today writes it, the other spelling a loader meets.
    'mpnet-sentence-cls-dot': ('MPNetModel', 'model', {}, 'sentence-cls-dot',
                               dict(pooling='cls', normalize=False, max_seq_length=512, model_max_length=512,
                                    similarity='dot')),
}
SEQUENCE_OUTPUTS = ('pooler_output', 'sentence_embedding')


def make_config(architecture, extra):
    """config.json with the hub's MPNet keys, as save_pretrained writes them (its diff against the defaults)."""
    config = {'architectures': [architecture], 'attention_probs_dropout_prob': 0.1, 'bos_token_id': 0,
              'eos_token_id': 2, 'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1, 'hidden_size': HIDDEN,
              'initializer_range': 0.02, 'intermediate_size': INTERMEDIATE, 'layer_norm_eps': 1e-05,
              'max_position_embeddings': MAX_POSITIONS, 'model_type': 'mpnet', 'num_attention_heads': HEADS,
              'num_hidden_layers': LAYERS, 'pad_token_id': 1, 'relative_attention_num_buckets': NUM_BUCKETS,
              'torch_dtype': 'float32', 'transformers_version': TRANSFORMERS_VERSION, 'vocab_size': VOCAB_SIZE}
    config.update(extra)
    return config


def sentence_transformers_files(directory, st, config):
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'}]
    if st['normalize']:
        modules.append({'idx': 2, 'name': '2', 'path': '2_Normalize', 'type': 'sentence_transformers.models.Normalize'})
    write_json(os.path.join(directory, 'modules.json'), modules)
    os.makedirs(os.path.join(directory, '1_Pooling'), exist_ok=True)
    modes = ('cls_token', 'mean_tokens', 'max_tokens', 'mean_sqrt_len_tokens', 'weightedmean_tokens', 'lasttoken')
    chosen = {'mean': 'mean_tokens', 'cls': 'cls_token'}[st['pooling']]
    pooling = {'pooling_mode_' + m: m == chosen for m in modes}
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

    def norm(self, name, size):
        self.put(name + '.weight', 1.0 + self.rng.normal(0.0, 0.1, (size,)))
        self.put(name + '.bias', self.rng.normal(0.0, 0.1, (size,)))


def prefix_of(head):
    """The *ForXxx classes keep the base model under "mpnet."; a saved MPNetModel has no prefix."""
    return '' if head == 'model' else 'mpnet.'


def make_weights(head, config, seed):
    g = Weights(seed)
    p, h, i, v = prefix_of(head), config['hidden_size'], config['intermediate_size'], config['vocab_size']
    g.embedding(p + 'embeddings.word_embeddings', v, h, padding_idx=PADDING_IDX)
    g.embedding(p + 'embeddings.position_embeddings', config['max_position_embeddings'], h, padding_idx=PADDING_IDX)
    g.norm(p + 'embeddings.LayerNorm', h)
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        for m in 'qkvo':
            g.linear(q + 'attention.attn.' + m, h, h)
        g.norm(q + 'attention.LayerNorm', h)
        g.linear(q + 'intermediate.dense', i, h)
        g.linear(q + 'output.dense', h, i)
        g.norm(q + 'output.LayerNorm', h)
    g.embedding(p + 'encoder.relative_attention_bias', config['relative_attention_num_buckets'],
                config['num_attention_heads'], std=BIAS_STD)
    n = len(config.get('id2label', {0: 0, 1: 1}))
    if head == 'mlm':
        g.linear('lm_head.dense', h, h)
        g.norm('lm_head.layer_norm', h)
        g.put('lm_head.bias', g.rng.normal(0.0, 0.1, (v,)))
    elif head == 'seqcls':
        g.linear('classifier.dense', h, h)
        g.linear('classifier.out_proj', n, h)
    elif head == 'tokcls':
        g.linear('classifier', n, h)
    elif head == 'qa':
        g.linear('qa_outputs', 2, h)
    elif head == 'model':
        g.linear('pooler.dense', h, h)
    else:
        raise ValueError(head)
    return g.w


# ---------------------------------------------------------------------------------------------------- forward

def gelu(x):
    """transformers' "gelu" (GELUActivation) and activations.gelu used by MPNetLMHead: the exact erf form."""
    return torch.nn.functional.gelu(x)


def position_ids(ids):
    """create_position_ids_from_input_ids(input_ids, padding_idx=1): 1 + running count of tokens whose id is not 1;
    a token whose id is 1 gets 1. Decided by the ids, not by the attention mask."""
    real = (ids != PADDING_IDX).long()
    return torch.cumsum(real, dim=1) * real + PADDING_IDX


def relative_position_bucket(relative_position, num_buckets=NUM_BUCKETS, max_distance=MAX_DISTANCE):
    """MPNetEncoder.relative_position_bucket, as transformers computes it (float32 log, truncation to long).
    relative_position = key index - query index. Keys after the query (relative_position > 0) take the upper half of
    the buckets; distance d = |relative_position| maps to d itself below half/2 = 8, else to
    8 + trunc(log(d / 8) / log(128 / 8) * 8), at most 15."""
    half = num_buckets // 2
    exact = half // 2
    ahead = relative_position > 0  # transformers' n = -relative_position < 0
    distance = relative_position.abs()
    # the log is taken of every distance (transformers takes it of 0 too, giving -inf, then discards it in the
    # where); clamping to 1 first changes no selected value
    scaled = torch.log(distance.clamp(min=1).to(torch.float32) / exact) / math.log(max_distance / exact)
    far = exact + (scaled * (half - exact)).to(torch.long)
    far = torch.minimum(far, torch.full_like(far, half - 1))
    return ahead.long() * half + torch.where(distance < exact, distance, far)


def bucket_float64(relative_position):
    """The same formula in float64, to see whether the float32 rounding ever matters."""
    d = relative_position.abs()
    far = 8 + (torch.log(d.clamp(min=1).double() / 8) / math.log(16) * 8).long()
    return (relative_position > 0).long() * 16 + torch.where(d < 8, d, far.clamp(max=15))


def bucket_integer(rp):
    """A second bucket function, integer only: 8 + trunc(2 * log2(d / 8)) >= 8 + k exactly when d*d >= 64 * 2**k."""
    d = abs(rp)
    b = d if d < 8 else 8 + sum(1 for k in range(1, 8) if d * d >= 64 * 2 ** k)
    return (16 if rp > 0 else 0) + b


def position_bias(w, prefix, length):
    """compute_position_bias: [heads, query, key] = relative_attention_bias[bucket(key - query)], from the indices
    0..length-1 of the (padded) sequence, the same for every row of the batch and every layer."""
    index = torch.arange(length)
    buckets = relative_position_bucket(index[None, :] - index[:, None])
    return w[prefix + 'encoder.relative_attention_bias.weight'][buckets].permute(2, 0, 1)


def encoder(config, w, ids, mask, prefix):
    """The base model's last_hidden_state, in float64."""
    w = {k: t.double() for k, t in w.items()}
    n, length = ids.shape
    h, heads = config['hidden_size'], config['num_attention_heads']
    eps = config['layer_norm_eps']
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    ln = lambda x, name: torch.nn.functional.layer_norm(x, (h,), w[name + '.weight'], w[name + '.bias'], eps)
    p = prefix
    x = w[p + 'embeddings.word_embeddings.weight'][ids] + w[p + 'embeddings.position_embeddings.weight'][position_ids(ids)]
    x = ln(x, p + 'embeddings.LayerNorm')
    bias = position_bias(w, p, length)[None]  # [1, heads, query, key]
    key_mask = (mask == 0)[:, None, None, :]
    d = h // heads
    split = lambda y: y.view(n, length, heads, d).transpose(1, 2)
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        query, key, value = (split(lin(x, q + 'attention.attn.' + m)) for m in 'qkv')
        scores = (query @ key.transpose(-1, -2)) / math.sqrt(d) + bias  # bias after the scaling, before the mask
        probabilities = torch.softmax(scores.masked_fill(key_mask, NEG), dim=-1)
        context = (probabilities @ value).transpose(1, 2).reshape(n, length, h)
        x = ln(lin(context, q + 'attention.attn.o') + x, q + 'attention.LayerNorm')
        x = ln(lin(gelu(lin(x, q + 'intermediate.dense')), q + 'output.dense') + x, q + 'output.LayerNorm')
    return x


def heads_forward(head, config, w, hidden, mask, st):
    """The task head's outputs (dropout is identity at inference)."""
    w = {k: t.double() for k, t in w.items()}
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    ln = lambda x, name: torch.nn.functional.layer_norm(x, x.shape[-1:], w[name + '.weight'], w[name + '.bias'],
                                                        config['layer_norm_eps'])
    out = {}
    if head == 'mlm':
        # MPNetLMHead: dense -> gelu (always erf, not config.hidden_act) -> layer_norm -> decoder (tied) + bias
        x = ln(gelu(lin(hidden, 'lm_head.dense')), 'lm_head.layer_norm')
        out['logits'] = x @ w['mpnet.embeddings.word_embeddings.weight'].T + w['lm_head.bias']
    elif head == 'seqcls':
        # MPNetClassificationHead: <s> -> dense -> tanh -> out_proj
        out['logits'] = lin(torch.tanh(lin(hidden[:, 0], 'classifier.dense')), 'classifier.out_proj')
    elif head == 'tokcls':
        out['logits'] = lin(hidden, 'classifier')
    elif head == 'qa':
        logits = lin(hidden, 'qa_outputs')
        out['start_logits'], out['end_logits'] = logits[..., 0], logits[..., 1]
    elif head == 'model':
        out['pooler_output'] = torch.tanh(lin(hidden[:, 0], 'pooler.dense'))
        if st['pooling'] == 'mean':
            m = mask[:, :, None].double()
            pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
        else:
            pooled = hidden[:, 0]
        if st['normalize']:
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
        out['sentence_embedding'] = pooled
    else:
        raise ValueError(head)
    return out


def run(head, config, w, case, st):
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    hidden = encoder(config, w, ids, mask, prefix_of(head))
    return dict(last_hidden_state=hidden, **heads_forward(head, config, w, hidden, mask, st))


# ---------------------------------------------------------------------------------------------------- self-checks

def check_buckets():
    """Returns buckets.json's table once the three bucket functions agree."""
    span = torch.arange(-1000, 1001)
    first = relative_position_bucket(span).tolist()
    second = [bucket_integer(r) for r in span.tolist()]
    check(first == second, 'bucket functions differ at %s'
          % [r for r, a, b in zip(span.tolist(), first, second) if a != b][:10])
    check(first == bucket_float64(span).tolist(), 'the float32 and float64 bucket formulas differ')
    # bucket 16 would be "ahead, distance 0": never produced, so its row of the table is never read
    check(set(first) == REACHABLE, 'reachable buckets %s' % sorted(set(first)))
    table = {r: b for r, b in zip(span.tolist(), first)}
    check(table[0] == 0 and table[1] == 17 and table[-1] == 1 and table[7] == 23 and table[8] == 24
          and table[-8] == 8 and table[90] == 30 and table[91] == 31 and table[-91] == 15 and table[-90] == 14
          and table[400] == 31,
          'bucket landmarks')
    return [[r, table[r]] for r in range(-400, 401)]


def check_position_ids():
    ids = torch.tensor([[0, 31, 47, 2, 1, 1], [0, 5, 1, 7, 8, 2]])
    got = position_ids(ids).tolist()
    check(got == [[2, 3, 4, 5, 1, 1], [2, 3, 1, 4, 5, 6]], 'position ids %s' % got)


def check_padding(head, config, w, case, outputs, st):
    """Each row alone, unpadded, gives the padded batch's values at its real positions."""
    for r, row_mask in enumerate(case['attention_mask']):
        n = sum(row_mask)
        alone = {'input_ids': [case['input_ids'][r][:n]], 'attention_mask': [row_mask[:n]]}
        for name, value in run(head, config, w, alone, st).items():
            batched = outputs[name][r:r + 1]
            if name not in SEQUENCE_OUTPUTS and not (name == 'logits' and head == 'seqcls'):
                batched = batched[:, :n]
            diff = (value - batched).abs().max().item()
            check(diff < 1e-9, '%s row %d %s: padded and unpadded differ by %g' % (case['name'], r, name, diff))


def check_against_torch_layers(head, config, w, case, hidden):
    """The encoder again as torch.nn.TransformerEncoderLayer (post-LN, GELU) with the same weights, the relative bias
    (second bucket function) and the key padding given together as one float attention mask, and fairseq-style
    positions computed with a loop."""
    w = {k: t.double() for k, t in w.items()}
    p = prefix_of(head)
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    n, length = ids.shape
    h, heads = config['hidden_size'], config['num_attention_heads']
    positions = []
    for row in ids.tolist():
        count, out = 0, []
        for token in row:
            if token == PADDING_IDX:
                out.append(PADDING_IDX)
            else:
                count += 1
                out.append(PADDING_IDX + count)
        positions.append(out)
    emb = torch.nn.Embedding.from_pretrained(w[p + 'embeddings.word_embeddings.weight'])(ids) \
        + torch.nn.Embedding.from_pretrained(w[p + 'embeddings.position_embeddings.weight'])(torch.tensor(positions))
    norm = torch.nn.LayerNorm(h, eps=config['layer_norm_eps']).double()
    norm.load_state_dict({'weight': w[p + 'embeddings.LayerNorm.weight'], 'bias': w[p + 'embeddings.LayerNorm.bias']})
    x = norm(emb)
    table = w[p + 'encoder.relative_attention_bias.weight']
    bias = torch.empty(heads, length, length)
    for i in range(length):
        for j in range(length):
            bias[:, i, j] = table[bucket_integer(j - i)]
    attn = bias[None].repeat(n, 1, 1, 1)
    attn = attn.masked_fill((mask == 0)[:, None, None, :], NEG).reshape(n * heads, length, length)
    for layer in range(config['num_hidden_layers']):
        q = '%sencoder.layer.%d.' % (p, layer)
        block = torch.nn.TransformerEncoderLayer(h, heads, config['intermediate_size'], dropout=0.0,
                                                 activation='gelu', layer_norm_eps=config['layer_norm_eps'],
                                                 batch_first=True, norm_first=False).double().eval()
        qkv = [q + 'attention.attn.' + m for m in 'qkv']
        block.load_state_dict({
            'self_attn.in_proj_weight': torch.cat([w[m + '.weight'] for m in qkv]),
            'self_attn.in_proj_bias': torch.cat([w[m + '.bias'] for m in qkv]),
            'self_attn.out_proj.weight': w[q + 'attention.attn.o.weight'],
            'self_attn.out_proj.bias': w[q + 'attention.attn.o.bias'],
            'linear1.weight': w[q + 'intermediate.dense.weight'], 'linear1.bias': w[q + 'intermediate.dense.bias'],
            'linear2.weight': w[q + 'output.dense.weight'], 'linear2.bias': w[q + 'output.dense.bias'],
            'norm1.weight': w[q + 'attention.LayerNorm.weight'], 'norm1.bias': w[q + 'attention.LayerNorm.bias'],
            'norm2.weight': w[q + 'output.LayerNorm.weight'], 'norm2.bias': w[q + 'output.LayerNorm.bias']})
        x = block(x, src_mask=attn)
    diff = (x - hidden).abs().max().item()  # every position: the pad queries too
    check(diff < 1e-9, '%s: encoder differs from torch.nn.TransformerEncoderLayer by %g' % (case['name'], diff))
    return diff


def check_heads(head, config, w, outputs):
    """The task head again from last_hidden_state with torch.nn modules (Linear, LayerNorm, GELU, Tanh) loaded with the
    same weights."""
    w = {k: t.double() for k, t in w.items()}
    h = config['hidden_size']

    def linear(name):
        weight = w[name + '.weight']
        module = torch.nn.Linear(weight.shape[1], weight.shape[0]).double()
        module.load_state_dict({'weight': weight, 'bias': w[name + '.bias']})
        return module

    hidden = outputs['last_hidden_state']
    if head == 'mlm':
        norm = torch.nn.LayerNorm(h, eps=config['layer_norm_eps']).double()
        norm.load_state_dict({'weight': w['lm_head.layer_norm.weight'], 'bias': w['lm_head.layer_norm.bias']})
        decoder = torch.nn.Linear(h, config['vocab_size']).double()
        decoder.load_state_dict({'weight': w['mpnet.embeddings.word_embeddings.weight'], 'bias': w['lm_head.bias']})
        theirs = {'logits': torch.nn.Sequential(linear('lm_head.dense'), torch.nn.GELU(), norm, decoder)(hidden)}
    elif head == 'seqcls':
        block = torch.nn.Sequential(linear('classifier.dense'), torch.nn.Tanh(), linear('classifier.out_proj'))
        theirs = {'logits': block(hidden[:, 0, :])}
    elif head == 'tokcls':
        theirs = {'logits': linear('classifier')(hidden)}
    elif head == 'qa':
        start, end = linear('qa_outputs')(hidden).split(1, dim=-1)
        theirs = {'start_logits': start.squeeze(-1), 'end_logits': end.squeeze(-1)}
    else:
        theirs = {'pooler_output': torch.nn.Sequential(linear('pooler.dense'), torch.nn.Tanh())(hidden[:, 0, :])}
    for name, value in theirs.items():
        diff = (value - outputs[name]).abs().max().item()
        check(diff < 1e-12, '%s head %s differs by %g' % (head, name, diff))


def check_sentence_embedding(case, outputs, st):
    """The sentence embedding again from last_hidden_state: a loop over the real tokens, and a hand-written norm."""
    hidden = outputs['last_hidden_state']
    for r, row_mask in enumerate(case['attention_mask']):
        if st['pooling'] == 'mean':
            total, count = torch.zeros(hidden.shape[-1]), 0
            for j, m in enumerate(row_mask):
                if m:
                    total, count = total + hidden[r, j], count + 1
            v = total / count
        else:
            v = hidden[r, 0]
        if st['normalize']:
            v = v / math.sqrt(sum(float(c) ** 2 for c in v))
        diff = (v - outputs['sentence_embedding'][r]).abs().max().item()
        check(diff < 1e-12, '%s row %d: sentence embedding differs by %g' % (case['name'], r, diff))


def check_long(case):
    length = len(case['input_ids'][0])
    check(260 <= length <= 380, 'the long text has %d tokens, not 260..380' % length)
    index = torch.arange(length)
    used = set(relative_position_bucket(index[None, :] - index[:, None]).flatten().tolist())
    check(used == REACHABLE, 'the long input leaves buckets %s unused' % sorted(REACHABLE - used))


# ---------------------------------------------------------------------------------------------------- main

def main():
    buckets = check_buckets()
    check_position_ids()
    os.makedirs(OUT, exist_ok=True)
    tokenizer_path = os.path.join(OUT, 'tokenizer.json.tmp')
    write_tokenizer_json(tokenizer_path)
    try:
        inputs = {key: make_inputs(tokenizer_path, spec) for key, spec in TEXTS.items()}
    finally:
        os.remove(tokenizer_path)
    summary = []
    written = {}
    for seed, (name, (architecture, head, extra, texts, st)) in enumerate(CASES.items(), start=200):
        config = make_config(architecture, extra)
        w = make_weights(head, config, seed)
        cases = inputs[texts]
        expected, worst = {}, 0.0
        with torch.no_grad():
            for i, case in enumerate(cases):
                outputs = run(head, config, w, case, st)
                check_padding(head, config, w, case, outputs, st)
                worst = max(worst, check_against_torch_layers(head, config, w, case, outputs['last_hidden_state']))
                check_heads(head, config, w, outputs)
                if st is not None:
                    check_sentence_embedding(case, outputs, st)
                if case['name'] == 'long':
                    check_long(case)
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value.float()
        written[name] = (config, w, cases, expected, st)
        summary.append('%-24s %-34s %s  (TransformerEncoderLayer agrees to %.1e)'
                       % (name, architecture, ' '.join(sorted(k[6:] for k in expected if k.startswith('case0.'))),
                          worst))
    # all checks passed: write
    with open(os.path.join(OUT, 'buckets.json'), 'w') as f:  # one "relative position": bucket a line, in order
        f.write(json.dumps({'num_buckets': NUM_BUCKETS, 'max_distance': MAX_DISTANCE,
                            'relative_position': 'key index - query index',
                            'buckets': {str(r): b for r, b in buckets}}, indent=2) + '\n')
    for name, (config, w, cases, expected, st) in written.items():
        directory = os.path.join(OUT, name)
        os.makedirs(directory, exist_ok=True)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        write_tokenizer_json(os.path.join(directory, 'tokenizer.json'))
        write_json(os.path.join(directory, 'tokenizer_config.json'),
                   tokenizer_config(st['model_max_length'] if st else 512))
        write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            json.dump(cases, f, indent=1, ensure_ascii=False)
            f.write('\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        if st is not None:
            sentence_transformers_files(directory, st, config)
    print('\n'.join(summary))
    print('vocabulary %d (<mask> %d), tokenizers %s' % (VOCAB_SIZE, MASK_ID, TOKENIZERS_VERSION))
    print('wrote', len(CASES), 'cases and buckets.json to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
