#!/usr/bin/env python3
"""Random-weight NomicBERT checkpoints (model_type "nomic_bert", the hub's remote code) for vectorbert's tests, with
reference outputs computed by an independent PyTorch forward pass and input ids taken from Hugging Face's tokenizers
library.

The forward pass below is written with plain torch operations from the semantics of the hub's remote code, nomic-ai's
contrastors src/contrastors/models/huggingface/modeling_hf_nomic_bert.py (NomicBertEmbeddings, NomicBertAttention,
NomicBertRotaryEmbedding, NomicBertDynamicNTKRotaryEmbedding, apply_rotary_emb, rotate_half, NomciBertGatedMLP,
NomicBertBlock, NomicBertModel, NomicBertPredictionHeadTransform, NomicBertForPreTraining, remap_bert_state_dict) and
configuration_hf_nomic_bert.py (NomicBertConfig on GPT2Config), which nomic-ai/nomic-bert-2048 serves to
nomic-embed-text-v1 / v1.5 through auto_map; plus sentence-transformers' Transformer and Pooling modules and the
nomic-embed-text-v1.5 model card's Matryoshka recipe. It shares no code with vectorbert, and neither transformers nor
the remote code is needed. The tokenizer.json has the shape of bert-base-uncased's (which nomic-embed-text-v1.5
ships) with a small vocabulary, and every input id comes from the tokenizers library's own encoding of the texts
(tokenize_nomicbert.mjs, beside this script), so the fixtures also prove tokenizer parity. Regenerate everything (a
minute or so):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/nomicbert-npm && (cd /tmp/nomicbert-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/nomicbert-npm/node_modules /usr/bin/python3 tools/torch-reference/make_nomicbert_fixtures.py

(no arguments; NODE_PATH is passed on to node; without it the helper falls back to
tools/tokenizer-reference/node_modules, which `npm ci` there installs at the same version). Writes
engine/src/test/resources/architectures/nomicbert/<case>/ (the same bytes on every run: the tokenizer is
deterministic, numpy's legacy RandomState draws the weights and the long texts, the reference is computed in float64
on one thread, then rounded to float32):

    config.json               the keys of the hub's nomic-embed-text-v1.5 config.json (GPT-2 spellings: n_embd,
                              n_head, n_layer, n_inner, n_positions, layer_norm_epsilon, ...; sorted, indent 2;
                              transformers_version nominal), auto_map to nomic-ai/nomic-bert-2048's remote code
                              (nomicbert-mlm: to the repository's own files, as nomic-bert-2048 has them)
    model.safetensors         float32, names sorted, __metadata__ {"format": "pt"}. NomicBertModel (every case but
                              nomicbert-mlm): embeddings.word_embeddings.weight, embeddings.token_type_embeddings.weight,
                              emb_ln.*, encoder.layers.N.{attn.Wqkv, attn.out_proj, mlp.fc11, mlp.fc12, mlp.fc2,
                              norm1, norm2}.* with no prefix; NomicBertForPreTraining (nomicbert-mlm): the same under
                              "bert." plus cls.predictions.transform.{dense.weight, layer_norm.weight, layer_norm.bias}
                              (cls.predictions.decoder.weight is tied to bert.embeddings.word_embeddings.weight and
                              left out, as save_pretrained leaves a tied copy out). Bias tensors only where the config
                              asks (only nomicbert-variants: qkv_proj_bias, mlp_fc1_bias, mlp_fc2_bias true).
                              No position embeddings (rotary), no pooler (NomicBertModel.from_pretrained builds it with
                              add_pooling_layer=False).
    tokenizer.json, tokenizer_config.json, special_tokens_map.json   one small BERT-uncased WordPiece tokenizer
    inputs.json               a list of cases: name, texts (strings, or [a, b] pairs), input_ids, token_type_ids,
                              attention_mask and (but for the long inputs) the library's tokens; the sentence cases
                              also prompt_name and prompt (the ids are those of prompt + text)
    expected.safetensors      caseN.<output> in float32:
                                last_hidden_state [n, len, hidden]   every case but the sentence one
                                logits [n, len, vocab_size]          nomicbert-mlm (vocab_size of config.json, padded)
                                token_embeddings [n, len, hidden], sentence_embedding [n, hidden]   nomicbert-sentence
                                                                     (mean pooling, no Normalize: sentence-transformers'
                                                                     output for this directory)
                                matryoshka_32, matryoshka_16 [n, d]  nomicbert-sentence: the model card's recipe:
                                                                     layer_norm(sentence_embedding) (no weights, eps
                                                                     1e-5), first d values, then L2-normalised
                              Padded positions hold what the remote code computes there (additive mask: a pad query
                              attends to the row's real keys); compare real positions only or both, both are defined.
    NOTES.md                  is not written here: it is kept by hand beside the cases
    modules.json, config_sentence_transformers.json, sentence_bert_config.json, 1_Pooling/config.json
                              nomicbert-sentence only (as nomic-embed-text-v1.5: Transformer, Pooling (mean), no
                              Normalize module; prompts search_query / search_document / clustering / classification)

The cases (hidden 32, 2 heads of 16, 2 layers, n_inner 256):
    nomicbert-base       NomicBertModel as nomic-embed-text-v1 (rotary base 1000, fraction 1, not interleaved, no
                         biases, post-LN, SwiGLU): case0 padded-batch, case1 pair (token types 1 in B), case2 single
    nomicbert-long       the same configuration, other weights: case0 one input of about 3,000 tokens (longer than
                         n_positions 2048: without rotary_scaling_factor nothing changes), case1 a padded batch of
                         about 1,500 and 2,200
    nomicbert-sentence   the sentence-transformers directory of nomic-embed-text-v1.5: case0 query and case1 document
                         (prompted, padded batches), case2 clustering (prompted, one text), case3 single (no prompt)
    nomicbert-mlm        NomicBertForPreTraining as nomic-bert-2048 (rotary base 10000): case0 padded-batch with
                         [MASK], case1 pair, case2 single; logits through the SiLU prediction head and the tied decoder
    nomicbert-variants   NomicBertModel with every bias on, rotary_emb_fraction 0.5, rotary_emb_interleaved true,
                         n_inner 100 (the gated MLP rounds it up to 256): the three short inputs
    nomicbert-scaled     NomicBertModel with rotary_scaling_factor 2, max_trained_positions 64, n_positions 48 (dynamic
                         NTK): case0 short (at most 48 tokens), case1 between (49..64 tokens: not scaled, the threshold
                         is max_trained_positions), case2 over (more than 64: scaled), case3 padded-batch of the short
                         and the over text (padded length > 64: both rows scaled, so the short row differs from
                         case0), case4 padded-batch of short and between (not scaled)

Numbers follow the remote code where it fixes them in float32: inv_freq = 1 / base ** (float32(2i) / dim) in float32
(the NTK base is a Python double, rounded to float32 by the pow), angle = float32(position) * inv_freq rounded to
float32, then cos and sin (here in float64 of that float32 angle; the code takes them in float32). The attention mask
is additive (1 - mask) * torch.finfo(float32).min (get_extended_attention_mask).

Weight scale as in make_family_fixtures.py: embeddings std 0.02 with a zero row at the [PAD] id, Linear weights std
1/sqrt(fan_in), biases std 0.1, LayerNorm weights 1 + std 0.1 and biases std 0.1 (every LayerNorm has a bias).

Self-checks run before a case is written (the script stops on the first failure):
  tokenizer  the library's ids equal a second tokenizer written here (BertNormalizer with lowercase and accent
             stripping, BertPreTokenizer, greedy WordPiece, raw added tokens, [CLS] A [SEP] B [SEP] with type ids);
             the library writes back (Tokenizer.save) the tokenizer.json it loaded unchanged; every id is below the
             tokenizer's size, which is below config vocab_size (padded to a multiple of pad_vocab_size_multiple);
             [UNK], ## pieces, accent stripping and type id 1 all occur; the long and scaled inputs have the
             lengths the cases need
  forward    for every case and input: a second encoder written differently (real tokens only, one sequence at a
             time, rotary as a complex rotation of the (i, i + r/2) or (2i, 2i + 1) pairs, -inf masking, hand-written
             LayerNorm and SiLU, Q/K/V as separate row blocks of Wqkv) agrees to 1e-9 at real positions; each row run
             alone (with the padded batch's length for the NTK scaling) equals its rows of the padded batch at its
             real positions (1e-9); the MLM head and the pooling / Matryoshka outputs recomputed with numpy agree
  mistakes   each of these moves the outputs at real positions by more than 1e-3 (so the fixtures catch it):
             fc11 and fc12 swapped (SiLU on the wrong one), token types ignored (nomicbert-base), rotary whole head
             and not interleaved (nomicbert-variants), no NTK scaling, scaling from n_positions, scaling from each
             row's own length (nomicbert-scaled), a GELU prediction head (nomicbert-mlm), the layer_norm left out or
             done after the truncation (nomicbert-sentence)
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
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'nomicbert')
NODE_HELPER = os.path.join(HERE, 'tokenize_nomicbert.mjs')
TOKENIZERS_VERSION = '0.23.2'  # the npm package the ids come from
TRANSFORMERS_VERSION = '4.37.2'  # nominal: the configs are written here in that version's layout, not by it
ST_VERSION = {'sentence_transformers': '2.4.0.dev0', 'transformers': TRANSFORMERS_VERSION, 'pytorch': '2.1.0'}
HIDDEN, HEADS, LAYERS = 32, 2, 2
MIN32 = float(torch.finfo(torch.float32).min)
MATRYOSHKA = (32, 16)  # the full width (768 in the real model) and a smaller one
PROMPTS = {'search_query': 'search_query: ', 'search_document': 'search_document: ', 'clustering': 'clustering: ',
           'classification': 'classification: '}

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def write_json(path, value, sort=True):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=sort, ensure_ascii=False) + '\n')


def compact_json(value, depth=0):
    """JSON with one space of indent a level, except that a list of scalars (ids, a mask, tokens, texts) stays on one
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

# bert-base-uncased's vocabulary starts [PAD] 0, [unused0..98] 1..99, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103,
# then single characters, words and ## pieces; the small vocabulary here keeps that order.
SPECIALS = ['[PAD]', '[unused0]', '[unused1]', '[unused2]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
PUNCTUATION = list('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
WORDS = '''
the an of is and in to it its on for at with was are not but by as from there that this who what where when how
many much people city capital france paris london berlin germany rome europe largest large small great old new river
tower book wrote young man woman girl child eat food riding white horse ground music guitar park plays makes
outside quick brown fox jumps over lazy dog love movie plot slow ending made no sense all service bad room cold we will
come back would again john mary smith anna lives live moved york last year friend works work bank near station
iron built world fair answer question one two text same word here just then million nine around has
have been big street shops gardens walk along evening lights water say busy loud too most them want else life bread
fresh morning long friends until late night also centre schools trains leave six every rest whole part north country
trade arts hundreds years quiet while west tall glass steel visit cost euro cafe far away does he she they
you so very good day time short stands search query document model vector'''.split()
PIECES = ['##es', '##ed', '##ing', '##ly', '##er', '##est', '##al', '##tion', '##ful']
VOCAB_TOKENS = (SPECIALS + PUNCTUATION + [str(d) for d in range(10)] + [chr(c) for c in range(ord('a'), ord('z') + 1)]
                + WORDS + PIECES + ['##' + str(d) for d in range(10)]
                + ['##' + chr(c) for c in range(ord('a'), ord('z') + 1)])
VOCAB = {t: i for i, t in enumerate(VOCAB_TOKENS)}
check(len(VOCAB) == len(VOCAB_TOKENS), 'duplicate vocabulary entries')
PAD_MULTIPLE = 64  # nomic-embed-text's pad_vocab_size_multiple: 30522 tokens, config vocab_size 30528
CONFIG_VOCAB = (len(VOCAB) + PAD_MULTIPLE - 1) // PAD_MULTIPLE * PAD_MULTIPLE
PAD_ID, UNK_ID, CLS_ID, SEP_ID, MASK_ID = (VOCAB[t] for t in ('[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'))
ADDED = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']  # bert-base-uncased's added tokens: special, not normalized


def tokenizer_json():
    """tokenizer.json in the layout of bert-base-uncased's (nomic-embed-text-v1.5 ships that tokenizer)."""
    special = lambda t: {'SpecialToken': {'id': t, 'type_id': 0}}  # noqa: E731
    sequence = lambda s, type_id: {'Sequence': {'id': s, 'type_id': type_id}}  # noqa: E731
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [{'id': VOCAB[c], 'content': c, 'single_word': False, 'lstrip': False, 'rstrip': False,
                          'normalized': False, 'special': True} for c in ADDED],
        'normalizer': {'type': 'BertNormalizer', 'clean_text': True, 'handle_chinese_chars': True,
                       'strip_accents': None, 'lowercase': True},
        'pre_tokenizer': {'type': 'BertPreTokenizer'},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [special('[CLS]'), sequence('A', 0), special('[SEP]')],
            'pair': [special('[CLS]'), sequence('A', 0), special('[SEP]'), sequence('B', 1),
                     {'SpecialToken': {'id': '[SEP]', 'type_id': 1}}],
            'special_tokens': {t: {'id': t, 'ids': [VOCAB[t]], 'tokens': [t]} for t in ('[CLS]', '[SEP]')}},
        'decoder': {'type': 'WordPiece', 'prefix': '##', 'cleanup': True},
        'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'continuing_subword_prefix': '##',
                  'max_input_chars_per_word': 100, 'vocab': VOCAB},
    }


def tokenizer_config():
    """tokenizer_config.json as nomic-embed-text-v1.5's (BertTokenizer, lower case, model_max_length 8192)."""
    decoder = {str(VOCAB[c]): {'content': c, 'lstrip': False, 'normalized': False, 'rstrip': False,
                               'single_word': False, 'special': True} for c in ADDED}
    return {'added_tokens_decoder': decoder, 'clean_up_tokenization_spaces': True, 'cls_token': '[CLS]',
            'do_lower_case': True, 'mask_token': '[MASK]', 'model_max_length': 8192, 'pad_token': '[PAD]',
            'sep_token': '[SEP]', 'strip_accents': None, 'tokenize_chinese_chars': True,
            'tokenizer_class': 'BertTokenizer', 'unk_token': '[UNK]'}


def special_tokens_map():
    return {'cls_token': '[CLS]', 'mask_token': '[MASK]', 'pad_token': '[PAD]', 'sep_token': '[SEP]',
            'unk_token': '[UNK]'}


def library_encode(tokenizer_path, inputs, save=None):
    """Each (text, pair) encoded by the tokenizers library through tokenize_nomicbert.mjs."""
    request = {'tokenizer': tokenizer_path, 'save': save, 'inputs': [{'text': t, 'pair': p} for t, p in inputs]}
    answer = subprocess.run(['node', NODE_HELPER], input=json.dumps(request), capture_output=True, text=True,
                            check=False)
    if answer.returncode != 0:
        sys.exit('tokenize_nomicbert.mjs failed (install the library with\n'
                 '    mkdir -p /tmp/nomicbert-npm && (cd /tmp/nomicbert-npm && npm install tokenizers@%s)\n'
                 'and run with NODE_PATH=/tmp/nomicbert-npm/node_modules):\n%s' % (TOKENIZERS_VERSION, answer.stderr))
    result = json.loads(answer.stdout)
    check(result['version'] == TOKENIZERS_VERSION,
          'the tokenizers library found is %s, not %s' % (result['version'], TOKENIZERS_VERSION))
    check(result['vocab_size'] == len(VOCAB), 'the library counts %d tokens, the vocabulary has %d'
          % (result['vocab_size'], len(VOCAB)))
    return result['encodings']


# A second tokenizer, written here from the tokenizers library's documented pieces (BertNormalizer, BertPreTokenizer,
# WordPiece, added tokens, TemplateProcessing), to check the library's ids and to size the long texts.

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
        return [UNK_ID]
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
            return [UNK_ID]
        start = end
    return ids


def second_tokenize_sequence(text):
    """Ids of one sequence without special tokens: the added tokens (not normalized) are cut out of the raw text
    first, then each other segment is normalized, split at whitespace and punctuation and WordPiece'd."""
    segments, rest = [], text
    while rest:
        hits = [(rest.find(c), c) for c in ADDED if rest.find(c) >= 0]
        if not hits:
            segments.append(rest)
            break
        at, content = min(hits)
        segments += [rest[:at], VOCAB[content]]
        rest = rest[at + len(content):]
    ids = []
    for segment in segments:
        if isinstance(segment, int):
            ids.append(segment)
            continue
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
    return ids


def second_tokenize(text, pair):
    ids = [CLS_ID] + second_tokenize_sequence(text) + [SEP_ID]
    types = [0] * len(ids)
    if pair is not None:
        b = second_tokenize_sequence(pair) + [SEP_ID]
        ids, types = ids + b, types + [1] * len(b)
    return ids, types


# ---------------------------------------------------------------------------------------------------- texts

PLAIN_TEXTS = ['The capital of France is Paris.',
               'A young man riding a white horse in the park plays the guitar, and the lights of the tall tower shine '
               'on the water.']
MLM_TEXTS = ['The capital of France is [MASK].',
             'Many people [MASK] the bread fresh every morning in the small shops of the old city.']
PAIRS = [['Who wrote the book?', 'Mary Smith wrote the book in London last year.'],
         ['Where is the station?', 'The station is near the river, north of the old bank and the quiet gardens.']]
SINGLE = 'Caf\u00e9 NA\u00cfVE:\tJOHN lives in Berlin; he works at a bank near the station \u65e5\u672c (1889)!'
QUERIES = ['What is the capital of France?', 'Who wrote the book about the river?']
DOCUMENTS = ['Paris is the capital and the largest city of France.',
             'The old book about the river was written by Anna in the north of the country, near the great towers.']
CLUSTER_TEXT = 'Trains leave from its six great stations for every part of France.'
LONG_TARGETS = (3000, 1500, 2200)
SCALED_TARGETS = {'short': (30, 48), 'between': (49, 64), 'over': (90, 110)}  # token ranges the cases need
INFLECTED = ['walking', 'lights', 'towers', 'quickly', 'moved', 'builder', 'tallest', 'trading', 'visited', 'shops']


def random_sentences(rng, count):
    out = []
    for _ in range(count):
        n = rng.randint(6, 15)
        words = [WORDS[rng.randint(len(WORDS))] if rng.rand() < 0.85 else INFLECTED[rng.randint(len(INFLECTED))]
                 for _ in range(n)]
        if rng.rand() < 0.3:
            words[rng.randint(n)] += ','
        if rng.rand() < 0.1:
            words.append(str(rng.randint(1000, 2100)))
        out.append(' '.join(words).capitalize() + ('.' if rng.rand() < 0.8 else '?'))
    return out


def text_of_length(rng, low, high):
    """Sentences appended until the text (with [CLS] and [SEP]) has low..high tokens by the second tokenizer."""
    while True:
        text = ''
        for sentence in random_sentences(rng, 1000):
            candidate = (text + ' ' + sentence).strip()
            n = len(second_tokenize(candidate, None)[0])
            if n > high:
                break
            text = candidate
            if n >= low:
                return text


def long_texts():
    rng = np.random.RandomState(53)
    return [text_of_length(rng, t - 40, t) for t in LONG_TARGETS]


def scaled_texts():
    rng = np.random.RandomState(54)
    return {name: text_of_length(rng, low, high) for name, (low, high) in SCALED_TARGETS.items()}


def pad_batch(encodings):
    """Right padding to the batch's longest, as transformers' tokenizer(texts, padding=True): [PAD] 0, token type 0,
    attention mask 0."""
    longest = max(len(e['ids']) for e in encodings)
    fill = lambda seq, value: seq + [value] * (longest - len(seq))  # noqa: E731
    return ([fill(e['ids'], PAD_ID) for e in encodings], [fill(e['type_ids'], 0) for e in encodings],
            [fill(e['attention_mask'], 0) for e in encodings])


def make_case(name, texts, encodings, extra=None, tokens=True):
    ids, types, mask = pad_batch(encodings)
    case = {'name': name}
    case.update(extra or {})
    case.update(texts=texts, input_ids=ids, token_type_ids=types, attention_mask=mask)
    if tokens:
        case['tokens'] = [e['tokens'] for e in encodings]
    return case


# ---------------------------------------------------------------------------------------------------- configs

def hub_auto_map(local=False):
    """nomic-embed-text-v1.5's auto_map: every class from nomic-ai/nomic-bert-2048's remote code ("repo--module.Class");
    nomic-bert-2048 itself names its own files."""
    where = '' if local else 'nomic-ai/nomic-bert-2048--'
    classes = {'AutoConfig': 'configuration_hf_nomic_bert.NomicBertConfig',
               'AutoModel': 'modeling_hf_nomic_bert.NomicBertModel',
               'AutoModelForMaskedLM': 'modeling_hf_nomic_bert.NomicBertForPreTraining',
               'AutoModelForMultipleChoice': 'modeling_hf_nomic_bert.NomicBertForMultipleChoice',
               'AutoModelForQuestionAnswering': 'modeling_hf_nomic_bert.NomicBertForQuestionAnswering',
               'AutoModelForSequenceClassification': 'modeling_hf_nomic_bert.NomicBertForSequenceClassification',
               'AutoModelForTokenClassification': 'modeling_hf_nomic_bert.NomicBertForTokenClassification'}
    return {k: where + v for k, v in classes.items()}


def make_config(name, **changes):
    """The key set of nomic-embed-text-v1.5's config.json (GPT2Config's keys plus NomicBertConfig's), sized down."""
    config = {
        '_name_or_path': 'nomic-ai/nomic-embed-text-v1.5', 'activation_function': 'swiglu',
        'architectures': ['NomicBertModel'], 'attn_pdrop': 0.0, 'auto_map': hub_auto_map(), 'bos_token_id': None,
        'causal': False, 'dense_seq_output': True, 'embd_pdrop': 0.0, 'eos_token_id': None, 'fused_bias_fc': True,
        'fused_dropout_add_ln': True, 'initializer_range': 0.02, 'layer_norm_epsilon': 1e-12,
        'max_trained_positions': 2048, 'mlp_fc1_bias': False, 'mlp_fc2_bias': False, 'model_type': 'nomic_bert',
        'n_embd': HIDDEN, 'n_head': HEADS, 'n_inner': 256, 'n_layer': LAYERS, 'n_positions': 2048,
        'pad_vocab_size_multiple': PAD_MULTIPLE, 'parallel_block': False, 'parallel_block_tied_norm': False,
        'prenorm': False, 'qkv_proj_bias': False, 'reorder_and_upcast_attn': False, 'resid_pdrop': 0.0,
        'rotary_emb_base': 1000, 'rotary_emb_fraction': 1.0, 'rotary_emb_interleaved': False,
        'rotary_emb_scale_base': None, 'rotary_scaling_factor': None, 'scale_attn_by_inverse_layer_idx': False,
        'scale_attn_weights': True, 'summary_activation': None, 'summary_first_dropout': 0.0,
        'summary_proj_to_labels': True, 'summary_type': 'cls_index', 'summary_use_proj': True,
        'torch_dtype': 'float32', 'transformers_version': TRANSFORMERS_VERSION, 'type_vocab_size': 2,
        'use_cache': True, 'use_flash_attn': True, 'use_rms_norm': False, 'use_xentropy': True,
        'vocab_size': CONFIG_VOCAB}
    for key in changes:
        check(key in config, 'unknown config key ' + key)
    config.update(changes)
    return config


CASES = {
    'nomicbert-base': ('model', make_config('base', _name_or_path='nomic-ai/nomic-embed-text-v1')),
    'nomicbert-long': ('model', make_config('long', _name_or_path='nomic-ai/nomic-embed-text-v1')),
    'nomicbert-sentence': ('sentence', make_config('sentence')),
    'nomicbert-mlm': ('mlm', make_config('mlm', _name_or_path='nomic-ai/nomic-bert-2048',
                                         architectures=['NomicBertForPreTraining'], auto_map=hub_auto_map(local=True),
                                         rotary_emb_base=10000)),
    'nomicbert-variants': ('model', make_config('variants', qkv_proj_bias=True, mlp_fc1_bias=True, mlp_fc2_bias=True,
                                                rotary_emb_fraction=0.5, rotary_emb_interleaved=True,
                                                rotary_emb_base=10000, n_inner=100)),
    'nomicbert-scaled': ('model', make_config('scaled', rotary_scaling_factor=2.0, max_trained_positions=64,
                                              n_positions=48)),
}


def gated_width(config):
    """NomciBertGatedMLP: hidden_features = n_inner (or int(8 * n_embd / 3) if null), rounded up to a multiple of
    multiple_of = 256."""
    inner = config['n_inner'] if config['n_inner'] is not None else int(8 * config['n_embd'] / 3)
    return int((inner + 256 - 1) // 256 * 256)


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

    def linear(self, name, out, inp, bias):
        self.put(name + '.weight', self.rng.normal(0.0, 1.0 / np.sqrt(inp), (out, inp)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (out,)))

    def norm(self, name, size):
        self.put(name + '.weight', 1.0 + self.rng.normal(0.0, 0.1, (size,)))
        self.put(name + '.bias', self.rng.normal(0.0, 0.1, (size,)))


def prefix_of(head):
    return 'bert.' if head == 'mlm' else ''


def make_weights(head, config, seed):
    g = Weights(seed)
    p = prefix_of(head)
    h, v, inner = config['n_embd'], config['vocab_size'], gated_width(config)
    g.embedding(p + 'embeddings.word_embeddings', v, h, PAD_ID)
    g.embedding(p + 'embeddings.token_type_embeddings', config['type_vocab_size'], h)
    g.norm(p + 'emb_ln', h)
    for layer in range(config['n_layer']):
        q = '%sencoder.layers.%d.' % (p, layer)
        g.linear(q + 'attn.Wqkv', 3 * h, h, config['qkv_proj_bias'])
        g.linear(q + 'attn.out_proj', h, h, config['qkv_proj_bias'])
        g.linear(q + 'mlp.fc11', inner, h, config['mlp_fc1_bias'])
        g.linear(q + 'mlp.fc12', inner, h, config['mlp_fc1_bias'])
        g.linear(q + 'mlp.fc2', h, inner, config['mlp_fc2_bias'])
        g.norm(q + 'norm1', h)
        g.norm(q + 'norm2', h)
    if head == 'mlm':
        g.linear('cls.predictions.transform.dense', h, h, config['mlp_fc1_bias'])
        g.norm('cls.predictions.transform.layer_norm', h)
        # cls.predictions.decoder.weight is bert.embeddings.word_embeddings.weight (tie_weights): not in the file
        if config['mlp_fc1_bias']:
            g.put('cls.predictions.decoder.bias', g.rng.normal(0.0, 0.1, (v,)))
    return g.w


# ---------------------------------------------------------------------------------------------------- forward

def ntk_base(config, length, variant=()):
    """NomicBertDynamicNTKRotaryEmbedding._update_cos_sin_cache: when rotary_scaling_factor is set and the (padded)
    sequence length passes max_trained_positions, base * (factor * L / max - (factor - 1)) ** (dim / (dim - 2))."""
    base = float(config['rotary_emb_base'])
    factor = config['rotary_scaling_factor']
    if 'no-ntk' in variant:
        factor = None
    limit = config['n_positions'] if 'ntk-n-positions' in variant else config['max_trained_positions']
    dim = rotary_dim(config, variant)
    if factor and length > limit:
        base = base * ((factor * length / limit) - (factor - 1)) ** (dim / (dim - 2))
    return base


def rotary_dim(config, variant=()):
    """head_dim * rotary_emb_fraction, a float as the code keeps it."""
    fraction = 1.0 if 'full-rotary' in variant else config['rotary_emb_fraction']
    return (config['n_embd'] // config['n_head']) * fraction


def rope_angles(config, length, scaling_length, variant=()):
    """float32 angles [length, r/2] as NomicBertRotaryEmbedding computes them (pos_idx_in_fp32)."""
    dim = rotary_dim(config, variant)
    base = ntk_base(config, scaling_length, variant)
    if 'float64-angles' in variant:  # informative only: the exact angles
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
        return torch.outer(torch.arange(length, dtype=torch.float64), inv_freq)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    return torch.outer(torch.arange(length, dtype=torch.float32), inv_freq).double()


def rotate(x, angles, interleaved):
    """apply_rotary_emb: x [b, len, heads, head_dim]; the first r = 2 * angles' width features rotate."""
    r = 2 * angles.shape[-1]
    cos, sin = angles.cos(), angles.sin()
    if interleaved:
        cos, sin = cos.repeat_interleave(2, dim=-1), sin.repeat_interleave(2, dim=-1)
    else:
        cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)
    xr = x[..., :r]
    if interleaved:
        half = torch.stack((-xr[..., 1::2], xr[..., ::2]), dim=-1).flatten(-2)
    else:
        a, b = xr.chunk(2, dim=-1)
        half = torch.cat((-b, a), dim=-1)
    return torch.cat([xr * cos[None, :, None, :] + half * sin[None, :, None, :], x[..., r:]], dim=-1)


def linear(x, w, name):
    y = x @ w[name + '.weight'].double().T
    return y + w[name + '.bias'].double() if name + '.bias' in w else y


def layer_norm(x, w, name, eps):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], w[name + '.weight'].double(), w[name + '.bias'].double(),
                                          eps)


def encoder(config, w, prefix, ids, types, mask, scaling_length=None, variant=()):
    """NomicBertModel.forward on a padded batch: last_hidden_state [b, len, hidden]."""
    ids, types, mask = torch.tensor(ids), torch.tensor(types), torch.tensor(mask, dtype=torch.float64)
    if 'no-token-types' in variant:
        types = torch.zeros_like(types)
    b, length = ids.shape
    heads, eps = config['n_head'], config['layer_norm_epsilon']
    hd = config['n_embd'] // heads
    p = prefix
    x = w[p + 'embeddings.word_embeddings.weight'].double()[ids] \
        + w[p + 'embeddings.token_type_embeddings.weight'].double()[types]
    x = layer_norm(x, w, p + 'emb_ln', eps)
    additive = (1.0 - mask[:, None, None, :]) * MIN32  # get_extended_attention_mask
    if 'ntk-own-length' in variant:
        scaling_length = None  # each row's own real length: done by the caller row by row
    angles = rope_angles(config, length, scaling_length or length, variant)
    interleaved = config['rotary_emb_interleaved'] != ('flip-interleaved' in variant)
    norm_factor = float(torch.sqrt(torch.tensor(hd, dtype=torch.float32)))
    for layer in range(config['n_layer']):
        q = '%sencoder.layers.%d.' % (p, layer)
        qkv = linear(x, w, q + 'attn.Wqkv').view(b, length, 3, heads, hd)
        query, key, value = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        query, key = rotate(query, angles, interleaved), rotate(key, angles, interleaved)
        scores = torch.einsum('bqhd,bkhd->bhqk', query, key) / norm_factor + additive
        context = torch.einsum('bhqk,bkhd->bqhd', torch.softmax(scores, dim=-1), value).reshape(b, length, -1)
        x = layer_norm(linear(context, w, q + 'attn.out_proj') + x, w, q + 'norm1', eps)
        up, gate = linear(x, w, q + 'mlp.fc11'), linear(x, w, q + 'mlp.fc12')
        if 'swap-gate' in variant:
            up, gate = gate, up
        x = layer_norm(linear(up * torch.nn.functional.silu(gate), w, q + 'mlp.fc2') + x, w, q + 'norm2', eps)
    return x


def mlm_logits(config, w, hidden, variant=()):
    """NomicBertPreTrainingHeads: transform (dense, SiLU for swiglu, layer_norm), then the decoder tied to the word
    embeddings (bias only if mlp_fc1_bias)."""
    y = linear(hidden, w, 'cls.predictions.transform.dense')
    y = torch.nn.functional.gelu(y) if 'gelu-head' in variant else torch.nn.functional.silu(y)
    y = layer_norm(y, w, 'cls.predictions.transform.layer_norm', config['layer_norm_epsilon'])
    logits = y @ w['bert.embeddings.word_embeddings.weight'].double().T
    return logits + w['cls.predictions.decoder.bias'].double() if 'cls.predictions.decoder.bias' in w else logits


def matryoshka(sentence, dims, variant=()):
    """The v1.5 model card: F.layer_norm(embeddings, (dim,)) (no weights, eps 1e-5), [:, :d], F.normalize."""
    out = {}
    for d in dims:
        if 'truncate-first' in variant:
            x = torch.nn.functional.layer_norm(sentence[:, :d], (d,))
        elif 'no-layer-norm' in variant:
            x = sentence[:, :d]
        else:
            x = torch.nn.functional.layer_norm(sentence, sentence.shape[-1:])[:, :d]
        out['matryoshka_%d' % d] = torch.nn.functional.normalize(x, p=2.0, dim=1)
    return out


def run(head, config, w, case, scaling_length=None, variant=()):
    """Every output of one case (a padded batch)."""
    mask = torch.tensor(case['attention_mask'], dtype=torch.float64)
    if 'ntk-own-length' in variant:
        rows = []
        for r in range(len(case['input_ids'])):
            n = int(mask[r].sum())
            h = encoder(config, w, prefix_of(head), [case['input_ids'][r][:n]], [case['token_type_ids'][r][:n]],
                        [case['attention_mask'][r][:n]], None, variant)[0]
            rows.append(torch.cat([h, torch.zeros(mask.shape[1] - n, h.shape[1])]))
        hidden = torch.stack(rows)
    else:
        hidden = encoder(config, w, prefix_of(head), case['input_ids'], case['token_type_ids'],
                         case['attention_mask'], scaling_length, variant)
    if head == 'sentence':
        pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
        out = {'token_embeddings': hidden, 'sentence_embedding': pooled}
        out.update(matryoshka(pooled, MATRYOSHKA, variant))
        return out
    out = {'last_hidden_state': hidden}
    if head == 'mlm':
        out['logits'] = mlm_logits(config, w, hidden, variant)
    return out


# ---------------------------------------------------------------------------------------------------- self-checks

def second_angles(config, positions, scaling_length):
    """The float32 angles once more: exponents 2i/dim rounded from double, the NTK base with math.pow."""
    dim = (config['n_embd'] // config['n_head']) * config['rotary_emb_fraction']
    base = float(config['rotary_emb_base'])
    factor, limit = config['rotary_scaling_factor'], config['max_trained_positions']
    if factor and scaling_length > limit:
        base *= math.pow(factor * scaling_length / limit - factor + 1, dim / (dim - 2))
    count = len(range(0, int(dim), 2))
    exponents = torch.tensor([2 * i / dim for i in range(count)], dtype=torch.float32)
    inv = torch.tensor(1.0, dtype=torch.float32) / torch.pow(torch.tensor(base, dtype=torch.float32), exponents)
    return torch.tensor([float(p) for p in range(positions)], dtype=torch.float32)[:, None] * inv[None, :]


def second_encoder(config, w, prefix, ids, types, scaling_length):
    """One unpadded sequence: Q/K/V as row blocks of Wqkv, rotary as a complex rotation, hand-written LayerNorm and
    SiLU, softmax by exp and sum."""
    h, heads, eps = config['n_embd'], config['n_head'], config['layer_norm_epsilon']
    hd = h // heads
    wd = {k: v.double() for k, v in w.items()}

    def ln(x, name):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + eps) * wd[name + '.weight'] + wd[name + '.bias']

    def lin(x, weight, bias):
        return torch.einsum('ti,oi->to', x, weight) + (bias if bias is not None else 0.0)

    n = len(ids)
    x = torch.stack([wd[prefix + 'embeddings.word_embeddings.weight'][i]
                     + wd[prefix + 'embeddings.token_type_embeddings.weight'][t] for i, t in zip(ids, types)])
    x = ln(x, prefix + 'emb_ln')
    angles = second_angles(config, n, scaling_length).double()
    r = 2 * angles.shape[1]
    turn = torch.polar(torch.ones_like(angles), angles)

    def rot(v):  # v [n, hd]
        v = v.clone()
        if config['rotary_emb_interleaved']:
            z = torch.complex(v[:, 0:r:2], v[:, 1:r:2]) * turn
            v[:, 0:r:2], v[:, 1:r:2] = z.real, z.imag
        else:
            z = torch.complex(v[:, :r // 2], v[:, r // 2:r]) * turn
            v[:, :r // 2], v[:, r // 2:r] = z.real, z.imag
        return v

    for layer in range(config['n_layer']):
        q = '%sencoder.layers.%d.' % (prefix, layer)
        weight, bias = wd[q + 'attn.Wqkv.weight'], wd.get(q + 'attn.Wqkv.bias')
        blocks = [lin(x, weight[j * h:(j + 1) * h], None if bias is None else bias[j * h:(j + 1) * h])
                  for j in range(3)]
        outs = []
        for head in range(heads):
            cols = slice(head * hd, (head + 1) * hd)
            qh, kh, vh = rot(blocks[0][:, cols]), rot(blocks[1][:, cols]), blocks[2][:, cols]
            s = qh @ kh.T / math.sqrt(hd)
            e = torch.exp(s - s.max(dim=1, keepdim=True).values)
            outs.append((e / e.sum(dim=1, keepdim=True)) @ vh)
        attn = lin(torch.cat(outs, dim=1), wd[q + 'attn.out_proj.weight'], wd.get(q + 'attn.out_proj.bias'))
        x = ln(x + attn, q + 'norm1')
        gate = lin(x, wd[q + 'mlp.fc12.weight'], wd.get(q + 'mlp.fc12.bias'))
        up = lin(x, wd[q + 'mlp.fc11.weight'], wd.get(q + 'mlp.fc11.bias'))
        m = lin(up * gate / (1.0 + torch.exp(-gate)), wd[q + 'mlp.fc2.weight'], wd.get(q + 'mlp.fc2.bias'))
        x = ln(x + m, q + 'norm2')
    return x


def check_unpadded(name, head, config, w, case, outputs):
    hidden = outputs.get('last_hidden_state', outputs.get('token_embeddings'))
    length = len(case['input_ids'][0])
    worst = 0.0
    for r, row in enumerate(case['attention_mask']):
        n = sum(row)
        got = second_encoder(config, w, prefix_of(head), case['input_ids'][r][:n], case['token_type_ids'][r][:n],
                             length)
        worst = max(worst, (got - hidden[r, :n]).abs().max().item())
    check(worst < 1e-9, '%s %s: the second encoder differs by %g' % (name, case['name'], worst))
    return worst


def check_padding(name, head, config, w, case, outputs):
    """Each row alone (scaled, if at all, by the padded batch's length) equals its rows of the padded batch."""
    length = len(case['input_ids'][0])
    worst = 0.0
    for r, row in enumerate(case['attention_mask']):
        n = sum(row)
        alone = {k: case[k][r:r + 1] for k in ('input_ids', 'token_type_ids', 'attention_mask')}
        alone = {k: [v[0][:n]] for k, v in alone.items()}
        single = run(head, config, w, alone, scaling_length=length)
        for key, value in single.items():
            batched = outputs[key][r:r + 1]
            if value.dim() == 3:
                batched = batched[:, :n]
            worst = max(worst, (value - batched).abs().max().item())
    check(worst < 1e-9, '%s %s: padded and unpadded rows differ by %g' % (name, case['name'], worst))


def check_heads(head, config, w, case, outputs):
    """The MLM head, the pooling and the Matryoshka vectors once more with numpy."""
    mask = np.array(case['attention_mask'], dtype=np.float64)
    wn = {k: t.double().numpy() for k, t in w.items()}
    worst = 0.0
    if head == 'mlm':
        hidden = outputs['last_hidden_state'].numpy()
        y = hidden @ wn['cls.predictions.transform.dense.weight'].T
        y = y / (1.0 + np.exp(-y))
        y = (y - y.mean(-1, keepdims=True)) / np.sqrt(y.var(-1, keepdims=True) + config['layer_norm_epsilon'])
        y = y * wn['cls.predictions.transform.layer_norm.weight'] + wn['cls.predictions.transform.layer_norm.bias']
        logits = y @ wn['bert.embeddings.word_embeddings.weight'].T
        worst = float(np.abs(logits - outputs['logits'].numpy()).max())
    if head == 'sentence':
        hidden = outputs['token_embeddings'].numpy()
        for r in range(hidden.shape[0]):
            pooled = sum(hidden[r][t] for t in range(hidden.shape[1]) if mask[r][t] > 0) / mask[r].sum()
            worst = max(worst, float(np.abs(pooled - outputs['sentence_embedding'][r].numpy()).max()))
            normed = (pooled - pooled.mean()) / math.sqrt(((pooled - pooled.mean()) ** 2).mean() + 1e-5)
            for d in MATRYOSHKA:
                cut = normed[:d]
                vector = cut / max(math.sqrt(float((cut ** 2).sum())), 1e-12)
                worst = max(worst, float(np.abs(vector - outputs['matryoshka_%d' % d][r].numpy()).max()))
    check(worst < 1e-9, '%s %s: the heads recomputed differ by %g' % (head, case['name'], worst))


MISTAKES = {
    'nomicbert-base': ('swap-gate', 'no-token-types'),
    'nomicbert-mlm': ('swap-gate', 'gelu-head'),
    'nomicbert-variants': ('swap-gate', 'flip-interleaved', 'full-rotary'),
    'nomicbert-scaled': ('no-ntk', 'ntk-n-positions', 'ntk-own-length'),
    'nomicbert-sentence': ('swap-gate', 'no-layer-norm', 'truncate-first'),
}


def check_mistakes(name, head, config, w, cases):
    report = []
    for variant in MISTAKES.get(name, ()):
        worst = 0.0
        for case in cases:
            real = torch.tensor(case['attention_mask']).bool()
            good = run(head, config, w, case)
            bad = run(head, config, w, case, variant=(variant,))
            for key in good:
                a, b = good[key], bad[key]
                diff = (a[real] - b[real]) if a.dim() == 3 else (a - b)
                worst = max(worst, diff.abs().max().item())
        check(worst > 1e-3, '%s does not see the mistake %s (outputs move by %g)' % (name, variant, worst))
        report.append('%s %.2g' % (variant, worst))
    return report


def check_tokens(batches, encodings_of):
    """Tokenizer facts the fixtures rely on."""
    seen = set()
    for inputs, encodings in batches:
        for (text, pair), e in zip(inputs, encodings):
            ids, types = second_tokenize(text, pair)
            check(e['ids'] == ids, 'library and second tokenizer differ on %r:\n%s\n%s' % (text[:60], e['ids'][:40],
                                                                                          ids[:40]))
            check(e['type_ids'] == types, 'token types differ on %r' % text[:60])
            check(all(0 <= i < len(VOCAB) for i in e['ids']), 'an id is outside the vocabulary')
            seen.update(e['ids'])
            seen.update('type1' for t in e['type_ids'] if t == 1)
    check(UNK_ID in seen and MASK_ID in seen and 'type1' in seen, '[UNK], [MASK] or a type id 1 never occurs')
    check(any(VOCAB_TOKENS[i].startswith('##') for i in seen if isinstance(i, int)), 'no ## piece occurs')
    single = encodings_of['single'][0]['tokens']
    check('cafe' in single and '[UNK]' in single, 'accents are not stripped or CJK not split: %s' % single)


# ---------------------------------------------------------------------------------------------------- main

def main():
    longs = long_texts()
    scaled = scaled_texts()
    groups = {
        'padded-batch': PLAIN_TEXTS, 'mlm-padded-batch': MLM_TEXTS, 'pair': PAIRS, 'single': [SINGLE],
        'query': [PROMPTS['search_query'] + t for t in QUERIES],
        'document': [PROMPTS['search_document'] + t for t in DOCUMENTS],
        'clustering': [PROMPTS['clustering'] + CLUSTER_TEXT],
        'long-single': longs[:1], 'long-batch': longs[1:],
        'scaled-short': [scaled['short']], 'scaled-between': [scaled['between']], 'scaled-over': [scaled['over']]}
    flat = [(g, x if isinstance(x, list) else [x, None]) for g, xs in groups.items() for x in xs]
    scratch = tempfile.mkdtemp(prefix='nomicbert-fixtures-')
    try:
        path = os.path.join(scratch, 'tokenizer.json')
        with open(path, 'w') as f:
            f.write(json.dumps(tokenizer_json(), indent=2, ensure_ascii=False) + '\n')
        encodings = library_encode(path, [tuple(x) for _, x in flat], save=os.path.join(scratch, 'saved.json'))
        with open(os.path.join(scratch, 'saved.json')) as f:
            saved = json.load(f)
        mine = tokenizer_json()
        for key in sorted(set(mine) | set(saved)):
            check(json.loads(json.dumps(mine.get(key))) == saved.get(key),
                  'the library wrote tokenizer.json "%s" back differently:\n%s\n%s'
                  % (key, json.dumps(mine.get(key))[:400], json.dumps(saved.get(key))[:400]))
    finally:
        shutil.rmtree(scratch)
    enc = {g: [] for g in groups}
    for (g, _), e in zip(flat, encodings):
        enc[g].append(e)
    check_tokens([([tuple(x) for gg, x in flat if gg == g], enc[g]) for g in groups], enc)
    long_len = [sum(e['attention_mask']) for g in ('long-single', 'long-batch') for e in enc[g]]
    check(all(t - 40 <= n <= t for n, t in zip(long_len, LONG_TARGETS)), 'long inputs of %s tokens' % long_len)
    scaled_len = {k: len(enc['scaled-' + k][0]['ids']) for k in SCALED_TARGETS}
    check(all(SCALED_TARGETS[k][0] <= n <= SCALED_TARGETS[k][1] for k, n in scaled_len.items()),
          'scaled inputs of %s tokens' % scaled_len)

    short = lambda mlm: [  # noqa: E731
        make_case('padded-batch', MLM_TEXTS if mlm else PLAIN_TEXTS, enc['mlm-padded-batch' if mlm else 'padded-batch']),
        make_case('pair', PAIRS, enc['pair']), make_case('single', [SINGLE], enc['single'])]
    prompted = lambda name, prompt, texts, e: make_case(  # noqa: E731
        name, texts, e, dict(prompt_name=prompt, prompt=PROMPTS[prompt]))
    inputs = {
        'nomicbert-base': short(False), 'nomicbert-variants': short(False), 'nomicbert-mlm': short(True),
        'nomicbert-long': [make_case('long-single', longs[:1], enc['long-single'], tokens=False),
                           make_case('long-padded-batch', longs[1:], enc['long-batch'], tokens=False)],
        'nomicbert-sentence': [prompted('query', 'search_query', QUERIES, enc['query']),
                               prompted('document', 'search_document', DOCUMENTS, enc['document']),
                               prompted('clustering', 'clustering', [CLUSTER_TEXT], enc['clustering']),
                               make_case('single', [SINGLE], enc['single'])],
        'nomicbert-scaled': [
            make_case('short', [scaled['short']], enc['scaled-short']),
            make_case('between', [scaled['between']], enc['scaled-between']),
            make_case('over', [scaled['over']], enc['scaled-over']),
            make_case('padded-batch-scaled', [scaled['short'], scaled['over']],
                      enc['scaled-short'] + enc['scaled-over']),
            make_case('padded-batch-unscaled', [scaled['short'], scaled['between']],
                      enc['scaled-short'] + enc['scaled-between'])],
    }

    os.makedirs(OUT, exist_ok=True)
    summary = []
    for seed, (name, (head, config)) in enumerate(CASES.items(), start=300):
        check(config['vocab_size'] % config['pad_vocab_size_multiple'] == 0 and config['vocab_size'] >= len(VOCAB),
              'vocab_size')
        w = make_weights(head, config, seed)
        cases = inputs[name]
        expected, notes = {}, []
        with torch.no_grad():
            worst = 0.0
            for i, case in enumerate(cases):
                outputs = run(head, config, w, case)
                worst = max(worst, check_unpadded(name, head, config, w, case, outputs))
                check_padding(name, head, config, w, case, outputs)
                check_heads(head, config, w, case, outputs)
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value.float()
            notes.append('unpadded %.1e' % worst)
            mistakes = check_mistakes(name, head, config, w, cases)
            if mistakes:
                notes.append('mistakes: ' + ', '.join(mistakes))
            if name in ('nomicbert-long', 'nomicbert-scaled'):
                exact = run(head, config, w, cases[0], variant=('float64-angles',))['last_hidden_state']
                notes.append('float64 angles move case0 by %.1e'
                             % (exact - outputs_of(expected, 0)).abs().max().item())
            if name == 'nomicbert-scaled':
                short_alone = expected['case0.last_hidden_state'][0]
                n = short_alone.shape[0]
                moved = (expected['case3.last_hidden_state'][0, :n] - short_alone).abs().max().item()
                check(moved > 1e-3, 'the scaled padded batch does not move the short row')
                same = (expected['case4.last_hidden_state'][0, :n] - short_alone).abs().max().item()
                check(same < 1e-6, 'the unscaled padded batch moves the short row by %g' % same)
                notes.append('short row in a batch padded past 64 moves by %.2g' % moved)
        directory = os.path.join(OUT, name)
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
            f.write(json.dumps(tokenizer_json(), indent=2, ensure_ascii=False) + '\n')
        write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config())
        write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            f.write(compact_json(cases) + '\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        if head == 'sentence':
            write_sentence_transformers(directory, config)
        summary.append('%-20s %-70s %s' % (name, ' '.join(sorted(k[6:] for k in expected if k.startswith('case0.'))),
                                           '; '.join(notes)))
    print('\n'.join(summary))
    print('tokenizer: %d tokens (config vocab_size %d), long inputs %s tokens, scaled inputs %s tokens'
          % (len(VOCAB), CONFIG_VOCAB, long_len, scaled_len))
    print('wrote', len(CASES), 'cases to', os.path.normpath(OUT))


def outputs_of(expected, i):
    return expected['case%d.last_hidden_state' % i].double()


def write_sentence_transformers(directory, config):
    """nomic-embed-text-v1.5's sentence-transformers files: modules.json (Transformer, Pooling; no Normalize), the
    mean Pooling config, sentence_bert_config.json (max_seq_length 8192, do_lower_case false) and
    config_sentence_transformers.json with the four task prompts. Written in sentence-transformers' own layout (indent
    2, keys in its order)."""
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'}]
    write_json(os.path.join(directory, 'modules.json'), modules, sort=False)
    pooling = {'word_embedding_dimension': config['n_embd'], 'pooling_mode_cls_token': False,
               'pooling_mode_mean_tokens': True, 'pooling_mode_max_tokens': False,
               'pooling_mode_mean_sqrt_len_tokens': False, 'pooling_mode_weightedmean_tokens': False,
               'pooling_mode_lasttoken': False, 'include_prompt': True}
    os.makedirs(os.path.join(directory, '1_Pooling'))
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling, sort=False)
    write_json(os.path.join(directory, 'sentence_bert_config.json'), {'max_seq_length': 8192, 'do_lower_case': False},
               sort=False)
    st = {'__version__': ST_VERSION, 'prompts': dict(PROMPTS), 'default_prompt_name': None}
    write_json(os.path.join(directory, 'config_sentence_transformers.json'), st, sort=False)


if __name__ == '__main__':
    main()
