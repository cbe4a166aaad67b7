#!/usr/bin/env python3
"""Random-weight DeBERTa-v2/v3 checkpoints (model_type "deberta-v2") in Hugging Face's layout, with independent
reference outputs computed with PyTorch, and token ids from Hugging Face's tokenizers library.

The forward pass below is written with plain torch operations from the semantics of Hugging Face transformers'
models/deberta_v2/modeling_deberta_v2.py (DebertaV2Embeddings, DebertaV2Encoder with get_rel_embedding,
get_attention_mask, get_rel_pos and ConvLayer, DisentangledSelfAttention.forward and disentangled_attention_bias,
make_log_bucket_position, build_relative_position / build_rpos, ContextPooler and the heads, both the older code
with XSoftmax and the newer one with masked_fill + softmax) and configuration_deberta_v2.py; the tokenizer side from
tokenization_deberta_v2(_fast).py and convert_slow_tokenizer.py's DebertaV2Converter; the zero-shot arithmetic from
pipelines/zero_shot_classification.py. It shares no code with vectorbert, and transformers itself is not needed. The
token ids of every input come from the npm package "tokenizers" (the Rust library behind transformers' fast
tokenizers) through deberta-tokenize.mjs, which loads the tokenizer.json written here, so the fixtures also pin
tokenizer parity. Regenerate everything (well under a minute):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/modernbert-npm && (cd /tmp/modernbert-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/modernbert-npm/node_modules /usr/bin/python3 tools/torch-reference/make_deberta_fixtures.py

(without NODE_PATH the helper falls back to tools/tokenizer-reference/node_modules, which `npm ci` there installs at
the same version). No arguments. The tokenizer is cut from the committed
tokenizer/src/test/resources/pipeline/unigram-xlmr-precompiled.tokenizer.json: its Precompiled charsmap (a small
nmt_nfkc-like map: NBSP, full-width ASCII, ligatures, e + U+0301, ...) and its first 120 Unigram pieces with their
scores plus every one-character piece and every piece occurring in the texts here, laid out as DebertaV2Converter
lays out deberta-v3's spm.model (build_tokenizer).
Writes engine/src/test/resources/architectures/deberta/ (the same bytes on every run: numpy's legacy RandomState
draws the weights and the long texts, the reference is computed in float64 on one thread, then rounded to float32):

    buckets.safetensors       int32 tables of make_log_bucket_position as transformers computes it in float32:
                              "distance" [16385] = -8192..8192 (query index - key index) and "bucket_B_max_M" [16385]
                              for (B, M) in (256, 512), (16, 64), (8, 8)
    spm-only/                 spm.model (a sentencepiece ModelProto written by hand: the same pieces, scores and
                              types, trainer_spec model_type UNIGRAM, normalizer_spec with the same charsmap and
                              add_dummy_prefix), config.json (deberta-v3-base's), tokenizer_config.json
                              (do_lower_case false, split_by_punct false, vocab_type spm) and ids.json (per input:
                              text, a string or an [a, b] pair, and the ids, type ids and tokens the npm library
                              gives for it with the equivalent tokenizer.json, unpadded); no tokenizer.json
    <case>/config.json        sorted, indent 2, small sizes: deberta-v3-base exactly the keys of
                              microsoft/deberta-v3-base's config.json; the fine-tunes as transformers writes them;
                              the v2 cases microsoft/deberta-v2-xlarge's keys (make_config)
    <case>/model.safetensors  float32, names sorted, __metadata__ {"format": "pt"}; DebertaV2Model: no prefix
                              (embeddings.*, encoder.*); every *ForXxx: deberta.* plus its head
    <case>/tokenizer.json, tokenizer_config.json, special_tokens_map.json
    <case>/inputs.json        a list of cases: name, texts (strings, or [a, b] pairs), input_ids, token_type_ids,
                              attention_mask and the library's tokens
    <case>/expected.safetensors   caseN.<output> in float32:
                                last_hidden_state [n, len, hidden]   every case
                                logits [n, len, vocab_size]          DebertaV2ForMaskedLM
                                logits [n, num_labels]               DebertaV2ForSequenceClassification
                                logits [n, len, num_labels]          DebertaV2ForTokenClassification
                                start_logits, end_logits [n, len]    DebertaV2ForQuestionAnswering
                              Padded positions hold what the current transformers code computes there (NOTES.md);
                              compare real positions only.
    deberta-v3-nli/zeroshot.json   the zero-shot pipeline's per-hypothesis input ids, logits and output

The cases: deberta-v3-base (DebertaV2Model, position_buckets 8, inputs up to 5x the buckets and a long padded batch
of about 600 and 350 tokens: distances of 512 and more reach the clamp), deberta-v3-base-pretraining-layout (the
same encoder as microsoft's checkpoints store it: deberta.-prefixed, with unused lm_predictions.* and
mask_predictions.* tensors; outputs bit-identical to deberta-v3-base's), deberta-v3-nli (DebertaV2ForSequenceClassification, entailment/neutral/contradiction,
premise/hypothesis pairs, zero-shot), deberta-v2-xlarge-mlm (DebertaV2ForMaskedLM: ConvLayer, no buckets,
max_relative_positions 8, pos_att_type "p2c|c2p", the current class's cls.predictions.* head),
deberta-v2-xlarge-mlm-lm-predictions (the same weights with "legacy": false and the lm_predictions.lm_head.* names),
deberta-v3-tokcls, deberta-v3-qa (the encoder of deberta-v3-base with a head), deberta-variant-separate-keys
(share_att_key false: pos_key_proj / pos_query_proj, position_biased_input true, type_vocab_size 2, embedding_size 24
!= hidden 32 with embed_proj, ForMaskedLM with the embedding-size transform) and deberta-variant-c2p (pos_att_type
["c2p"] only, share_att_key false). Short inputs: case0 padded-batch, case1 pair, case2 single.

Weight scale as in make_family_fixtures.py: embeddings std 0.02 with a zero pad row (word table; the position,
token-type and relative-position tables std 0.02 too: the latter goes through encoder.LayerNorm in every case here),
Linear and Conv1d weights std 1/sqrt(fan_in), biases std 0.1, LayerNorm weights 1 + std 0.1 and biases std 0.1.

Self-checks run before a case is written (the script stops on the first failure):
  buckets    the float32 torch table against a scalar loop with numpy float32 (another code path); the script prints
             where float64 differs
  tokenizer  the library writes back (Tokenizer.save) the tokenizer.json it loaded unchanged; its vocabulary size is
             the pieces + [MASK] and config's vocab_size covers it; [MASK] is one token; Strip, the charsmap and the
             " {2,}" Replace act (full-width, NBSP and space-padded texts give the plain text's ids); the short
             inputs are longer than 2x the buckets, the long ones within 60 of 600 and 350 tokens; pairs carry type
             ids 1
  spm        the hand-written spm.model parses back (a small protobuf reader) to the tokenizer.json's pieces and
             scores; with Debian's python3-sentencepiece installed (apt-get install python3-sentencepiece; skipped,
             and said so, without it), Google's library loads it and gives every ids.json input the npm ids
  forward    for every case and input: the c2p and p2c terms built a second way (an explicit loop over i, j taking
             each bias entry from the relative distance, the bucket from the scalar function) agree with the
             gather-based computation to 1e-9 (short inputs; the long ones by the gather only); the conv layer as an
             explicit per-position sum over the kernel agrees with conv1d (1e-12); each row run alone equals its rows of
             the padded batch at its real positions (1e-9); the older XSoftmax code gives the same real positions
  heads      pooler/classifier, MLM and QA recomputed with einsum; tokcls, qa and the pretraining layout hold
             deberta-v3-base's encoder tensors, and the pretraining layout reproduces its outputs bit for bit
  mistakes   each of these changes last_hidden_state at real positions by more than 1e-3 (so the fixture catches
             it): on deberta-v3-base p2c with the index not negated, scale_factor 1, no rel-embedding LayerNorm, a
             symmetric clamp [1, 2*span - 1] (the long case); on deberta-v2-xlarge-mlm the conv over layer 0's
             output instead of the embeddings, embeddings not multiplied by the mask (the padded row), p2c sign,
             scale_factor 1
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from make_fixtures import write_safetensors  # noqa: E402  (this directory's sibling script)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'deberta')
HELPER = os.path.join(HERE, 'deberta-tokenize.mjs')
SOURCE_TOKENIZER = os.path.join(HERE, '..', '..', 'tokenizer', 'src', 'test', 'resources', 'pipeline',
                                'unigram-xlmr-precompiled.tokenizer.json')
TRANSFORMERS_VERSION = '4.46.0'  # nominal: the configs are written in that version's layout, not by it
KEEP_PIECES = 120  # the source vocabulary's first pieces kept (then every one-character piece and every piece
#                   that occurs in the texts here, so words are a few pieces, not letters)
SPECIALS = ['[PAD]', '[CLS]', '[SEP]', '[UNK]']  # spm ids 0..3 as deberta-v3's spm.model has them
BUCKET_TABLES = ((256, 512), (16, 64), (8, 8))
DISTANCES = 8192

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def write_json(path, value, sort=True):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=sort, ensure_ascii=False) + '\n')


def compact_json(value, depth=0):
    """JSON with one space of indent a level, except that a list of scalars (ids, a mask, tokens, texts) stays on
    one line."""
    pad = ' ' * (depth + 1)
    if isinstance(value, dict):
        items = ['%s%s: %s' % (pad, json.dumps(k, ensure_ascii=False), compact_json(v, depth + 1))
                 for k, v in value.items()]
        return '{\n' + ',\n'.join(items) + '\n' + ' ' * depth + '}'
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return '[\n' + ',\n'.join(pad + compact_json(v, depth + 1) for v in value) + '\n' + ' ' * depth + ']'
    return json.dumps(value, ensure_ascii=False)


def write_int32_safetensors(path, tensors):
    """safetensors of int32 tensors, in the given order."""
    header, offset, blobs = {}, 0, []
    for name, t in tensors.items():
        b = np.ascontiguousarray(np.asarray(t, dtype='<i4')).tobytes()
        header[name] = {'dtype': 'I32', 'shape': list(np.shape(t)), 'data_offsets': [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


# ---------------------------------------------------------------------------------------------------- buckets

def log_buckets(relative, bucket_size, max_position, dtype=torch.float32):
    """make_log_bucket_position: relative (int64) -> bucketed relative position (int64). transformers divides the
    int64 tensor by an int (true division: the default dtype, float32), takes torch.log of that and of
    torch.tensor((max_position - 1) / mid) (a Python double made float32), all in float32, then ceil; dtype float64
    here only to measure how much float32 matters."""
    sign = torch.sign(relative)
    mid = bucket_size // 2
    inside = (relative < mid) & (relative > -mid)
    abs_pos = torch.where(inside, torch.full_like(relative, mid - 1), relative.abs())
    ratio = abs_pos.to(dtype) / torch.tensor(mid, dtype=dtype)
    denominator = torch.log(torch.tensor((max_position - 1) / mid, dtype=dtype))
    log_pos = torch.ceil(torch.log(ratio) / denominator * torch.tensor(mid - 1, dtype=dtype)) + mid
    return torch.where(abs_pos <= mid, relative.to(dtype), log_pos * sign).to(torch.int64)


def bucket_scalar(d, bucket_size, max_position):
    """One relative distance -> its bucket, written again with numpy float32 scalars (the self-check's other path)."""
    mid = bucket_size // 2
    if -mid < d < mid:
        return d
    a = abs(d)
    if a <= mid:
        return d
    f = np.float32
    value = np.ceil(f(np.log(f(f(a) / f(mid)))) / f(np.log(f((max_position - 1) / mid))) * f(mid - 1))
    return int(value + mid) * (1 if d > 0 else -1)


def relative_positions(n, config):
    """build_relative_position(q, k) for q = k = n: [n, n] of (i - j), log-bucketed when position_buckets > 0."""
    ids = torch.arange(n)
    rel = ids[:, None] - ids[None, :]
    buckets, max_rel = span_of(config)[1:]
    if buckets > 0 and max_rel > 0:
        rel = log_buckets(rel, buckets, max_rel)
    return rel


def span_of(config):
    """(att_span, position_buckets, max_relative_positions) as the encoder and attention set them up."""
    max_rel = config.get('max_relative_positions', -1)
    if max_rel < 1:
        max_rel = config['max_position_embeddings']
    buckets = config.get('position_buckets', -1)
    return (buckets if buckets > 0 else max_rel), buckets, max_rel


def bucket_tables():
    distances = torch.arange(-DISTANCES, DISTANCES + 1)
    tables, notes = {'distance': distances.numpy().astype(np.int32)}, []
    for b, m in BUCKET_TABLES:
        t32 = log_buckets(distances, b, m)
        t64 = log_buckets(distances, b, m, dtype=torch.float64)
        scalar = [bucket_scalar(int(d), b, m) for d in distances]
        check(t32.tolist() == scalar, 'bucket table (%d, %d): torch float32 and the scalar loop differ' % (b, m))
        differ = distances[t32 != t64].tolist()
        notes.append('(%d, %d): float64 differs at %d distances%s' % (
            b, m, len(differ), (' e.g. ' + str(differ[:6])) if differ else ''))
        tables['bucket_%d_max_%d' % (b, m)] = t32.numpy().astype(np.int32)
    return tables, notes


# ---------------------------------------------------------------------------------------------------- tokenizer

def build_tokenizer():
    """DebertaV2Converter's tokenizer.json for deberta-v3's layout: spm pieces [PAD] [CLS] [SEP] [UNK] (ids 0..3)
    then the source's first KEEP_PIECES pieces and every other one-character piece (scores kept: multiples of
    2^-10, exact in float32), Unigram with unk_id 3; [MASK] an added token after the last piece (as deberta-v3's
    128000); normalizer Strip + Precompiled + Replace(" {2,}", " ") (do_lower_case false: no Lowercase);
    pre-tokenizer Sequence[Metaspace] (split_by_punct false: no Punctuation); TemplateProcessing
    [CLS]:0 $A:0 [SEP]:0 / ... $B:1 [SEP]:1; Metaspace decoder."""
    with open(SOURCE_TOKENIZER) as f:
        source = json.load(f)
    pieces = source['model']['vocab']
    body = pieces[4:-1]  # past <s> <pad> </s> <unk>, before <mask>
    corpus = ' ' + ' '.join(all_texts())
    useful = lambda p: len(p) == 1 or p.replace('\u2581', ' ') in corpus  # noqa: E731
    kept = body[:KEEP_PIECES] + [p for p in body[KEEP_PIECES:] if useful(p[0])]
    vocab = [[s, 0.0] for s in SPECIALS] + kept
    charsmap = [n for n in source['normalizer']['normalizers'] if n['type'] == 'Precompiled'][0]
    metaspace = {'type': 'Metaspace', 'replacement': '\u2581', 'prepend_scheme': 'always', 'split': True}

    def added(i, content):
        return {'id': i, 'content': content, 'single_word': False, 'lstrip': False, 'rstrip': False,
                'normalized': False, 'special': True}
    special = lambda name, type_id: {'SpecialToken': {'id': name, 'type_id': type_id}}  # noqa: E731
    sequence = lambda name, type_id: {'Sequence': {'id': name, 'type_id': type_id}}  # noqa: E731
    return {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [added(i, s) for i, s in enumerate(SPECIALS)] + [added(len(vocab), '[MASK]')],
        'normalizer': {'type': 'Sequence', 'normalizers': [
            {'type': 'Strip', 'strip_left': True, 'strip_right': True}, charsmap,
            {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': ' '}]},
        'pre_tokenizer': {'type': 'Sequence', 'pretokenizers': [metaspace]},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0)],
            'pair': [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0), sequence('B', 1),
                     special('[SEP]', 1)],
            'special_tokens': {'[CLS]': {'id': '[CLS]', 'ids': [1], 'tokens': ['[CLS]']},
                               '[SEP]': {'id': '[SEP]', 'ids': [2], 'tokens': ['[SEP]']}}},
        'decoder': dict(metaspace),
        'model': {'type': 'Unigram', 'unk_id': 3, 'vocab': vocab, 'byte_fallback': False}}


def tokenizer_config(mask_id, spm_only=False):
    """As transformers writes it for DebertaV2Tokenizer(Fast) of deberta-v3 (the hub's own file has only
    do_lower_case false and vocab_type spm; save_pretrained adds the rest)."""
    decoder = {str(i): {'content': s, 'lstrip': False, 'normalized': False, 'rstrip': False, 'single_word': False,
                        'special': True} for i, s in list(enumerate(SPECIALS)) + [(mask_id, '[MASK]')]}
    config = {'added_tokens_decoder': decoder, 'bos_token': '[CLS]', 'clean_up_tokenization_spaces': True,
              'cls_token': '[CLS]', 'do_lower_case': False, 'eos_token': '[SEP]', 'mask_token': '[MASK]',
              'model_max_length': 1000000000000000019884624838656, 'pad_token': '[PAD]', 'sep_token': '[SEP]',
              'sp_model_kwargs': {}, 'split_by_punct': False, 'tokenizer_class': 'DebertaV2Tokenizer',
              'unk_token': '[UNK]', 'vocab_type': 'spm'}
    if spm_only:  # the hub's deberta-v3-base tokenizer_config.json as it is
        config = {'do_lower_case': False, 'split_by_punct': False, 'vocab_type': 'spm'}
    return config


def special_tokens_map():
    return {'bos_token': '[CLS]', 'cls_token': '[CLS]', 'eos_token': '[SEP]', 'mask_token': '[MASK]',
            'pad_token': '[PAD]', 'sep_token': '[SEP]', 'unk_token': '[UNK]'}


def tokenize(tokenizer, scratch, batches):
    path = os.path.join(scratch, 'tokenizer.json')
    with open(path, 'w') as f:
        f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
    saved = os.path.join(scratch, 'saved.json')
    request = {'file': path, 'save': saved, 'batches': [{'name': n, 'inputs': t} for n, t in batches]}
    proc = subprocess.run(['node', HELPER], input=json.dumps(request).encode(), capture_output=True)
    if proc.returncode != 0:
        sys.exit('deberta-tokenize.mjs failed:\n' + proc.stderr.decode())
    answer = json.loads(proc.stdout)
    with open(saved) as f:
        theirs = json.load(f)
    for key in sorted(set(tokenizer) | set(theirs)):
        check(tokenizer.get(key) == theirs.get(key), 'the library wrote tokenizer.json "%s" back differently:\n%s\n%s'
              % (key, json.dumps(tokenizer.get(key))[:400], json.dumps(theirs.get(key))[:400]))
    return answer


# ---------------------------------------------------------------------------------------------------- spm.model

def varint(n):
    n &= (1 << 64) - 1  # a negative int32 is written as ten bytes, as protobuf does
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def pb_key(field, wire):
    return varint((field << 3) | wire)


def pb_bytes(field, data):
    return pb_key(field, 2) + varint(len(data)) + data


def pb_int(field, n):
    return pb_key(field, 0) + varint(n)


def pb_float(field, x):
    return pb_key(field, 5) + struct.pack('<f', x)


def spm_model(tokenizer):
    """sentencepiece's ModelProto (proto2 wire format): pieces (1: piece, 2: score, 3: type NORMAL 1 / UNKNOWN 2 /
    CONTROL 3), trainer_spec (3: model_type UNIGRAM 1, 4: vocab_size, 40..43: unk/bos/eos/pad ids 3/1/2/0, 45..48:
    their pieces [UNK] [CLS] [SEP] [PAD]), normalizer_spec (1: name nmt_nfkc, 2: precompiled_charsmap,
    3: add_dummy_prefix, 4: remove_extra_whitespaces, 5: escape_whitespaces, all true), as deberta-v3's spm.model."""
    vocab = tokenizer['model']['vocab']
    types = {'[PAD]': 3, '[CLS]': 3, '[SEP]': 3, '[UNK]': 2}
    out = b''
    for piece, score in vocab:
        out += pb_bytes(1, pb_bytes(1, piece.encode('utf-8')) + pb_float(2, score) + pb_int(3, types.get(piece, 1)))
    trainer = (pb_int(3, 1) + pb_int(4, len(vocab)) + pb_int(40, 3) + pb_int(41, 1) + pb_int(42, 2) + pb_int(43, 0)
               + pb_bytes(45, b'[UNK]') + pb_bytes(46, b'[CLS]') + pb_bytes(47, b'[SEP]') + pb_bytes(48, b'[PAD]'))
    import base64
    charsmap = [n for n in tokenizer['normalizer']['normalizers'] if n['type'] == 'Precompiled'][0]
    normalizer = (pb_bytes(1, b'nmt_nfkc') + pb_bytes(2, base64.b64decode(charsmap['precompiled_charsmap']))
                  + pb_int(3, 1) + pb_int(4, 1) + pb_int(5, 1))
    return out + pb_bytes(2, trainer) + pb_bytes(3, normalizer)


def parse_pb(data):
    """A small proto2 reader: {field: [values]} (varints as int, 32-bit as bytes, length-delimited as bytes)."""
    fields, i = {}, 0
    while i < len(data):
        key, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            key |= (b & 0x7f) << shift
            shift += 7
            if b < 0x80:
                break
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, shift = 0, 0
            while True:
                b = data[i]
                i += 1
                value |= (b & 0x7f) << shift
                shift += 7
                if b < 0x80:
                    break
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        elif wire == 2:
            n, shift = 0, 0
            while True:
                b = data[i]
                i += 1
                n |= (b & 0x7f) << shift
                shift += 7
                if b < 0x80:
                    break
            value, i = data[i:i + n], i + n
        else:
            raise ValueError('wire type %d' % wire)
        fields.setdefault(field, []).append(value)
    return fields


def check_spm(model, tokenizer):
    top = parse_pb(model)
    pieces = [parse_pb(p) for p in top[1]]
    read = [[p[1][0].decode('utf-8'), struct.unpack('<f', p[2][0])[0]] for p in pieces]
    check(read == tokenizer['model']['vocab'], 'spm.model pieces and scores differ from tokenizer.json\'s')
    check([p[3][0] for p in pieces[:5]] == [3, 3, 3, 2, 1], 'spm.model piece types')
    trainer, normalizer = parse_pb(top[2][0]), parse_pb(top[3][0])
    check(trainer[3] == [1] and trainer[40] == [3], 'spm.model trainer_spec')
    check(normalizer[3] == [1], 'spm.model add_dummy_prefix')


# ---------------------------------------------------------------------------------------------------- texts

PLAIN = ['The quick brown fox jumps over the lazy dog near the river bank in the morning.',
         'A very short one.',
         'Relative positions are put into buckets, and a long enough text reaches the far buckets of the table.']
PLAIN_VARIANTS = ['  The quick brown fox jumps   over the lazy dog near the river bank in the morning.  ',
                  'The quick\u00a0brown fox jumps over the lazy dog near the river bank in the morning.',
                  '\uff34he quick brown fox jumps over the lazy dog near the river bank in the morning.']
MLM = ['The capital of France is [MASK], and the capital of Italy is Rome.',
       'Paris is the [MASK] of France.']
PAIRS = [['Who wrote the letter that arrived in the morning?', 'The letter was written by the mayor of the city.'],
         ['Where is the station?', 'It is in the north of the town, near the old bridge over the river.']]
SINGLE = 'One text alone: numbers like 42 and 2024, a \ufb01ne ligature, and an ellipsis\u2026'
PREMISES = ['The government announced new taxes on imported cars today.',
            'The team won the final match after a long and difficult season.']
NLI_LABELS = ['politics', 'sports', 'science', 'cooking']
TEMPLATE = 'This example is {}.'
LONG_TARGETS = (600, 350)
NER_TEXTS = ['John Smith lives in Paris and works for the city.', 'Maria went to Rome.']
QA_PAIRS = [['Where does John live?', 'John Smith lives in Paris and works for the city of Paris.'],
            ['Who went to Rome?', 'Maria went to Rome in the summer.']]

WORDS = ('the of and to in is a that for it as was with be by on not he this are or his from at which but have '
         'an had they you were their one all we can her has there been if more when will would who so no time '
         'people city river letter station morning north bridge model text token position bucket table long short '
         'France Paris Italy Rome government team season match final number year day week world').split()


def all_texts():
    flat = lambda xs: [t for x in xs for t in (x if isinstance(x, list) else [x])]  # noqa: E731
    return (flat(PLAIN) + flat(MLM) + flat(PAIRS) + [SINGLE] + PREMISES + NLI_LABELS + [TEMPLATE] + flat(NER_TEXTS)
            + flat(QA_PAIRS) + WORDS + ['The topic is', 'urgent', 'music'])


def long_texts():
    rng = np.random.RandomState(7)
    texts = []
    for target in LONG_TARGETS:
        words = []
        while len(words) < int(target * 0.54):
            words.append(WORDS[rng.randint(len(WORDS))])
            if rng.rand() < 0.08:
                words[-1] += '.'
        texts.append(' '.join(words).capitalize())
    return texts


# ---------------------------------------------------------------------------------------------------- config

def make_config(kind, extra, vocab_size):
    """'v3': the keys transformers writes for a fine-tune of deberta-v3-base (pos_att_type a list, architectures,
    pad_token_id, pooler_*); 'v3-hub': exactly the keys of microsoft/deberta-v3-base's own config.json; 'v2': those
    of microsoft/deberta-v2-xlarge (conv_*, attention_head_size, pos_att_type as a "|" string); small sizes."""
    config = {'architectures': [extra.get('architecture')], 'attention_probs_dropout_prob': 0.1,
              'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1, 'hidden_size': 32, 'initializer_range': 0.02,
              'intermediate_size': 64, 'layer_norm_eps': 1e-07, 'max_position_embeddings': 512,
              'max_relative_positions': -1, 'model_type': 'deberta-v2', 'norm_rel_ebd': 'layer_norm',
              'num_attention_heads': 4, 'num_hidden_layers': 2, 'pad_token_id': 0, 'pooler_dropout': 0,
              'pooler_hidden_act': 'gelu', 'pooler_hidden_size': 32, 'pos_att_type': ['p2c', 'c2p'],
              'position_biased_input': False, 'position_buckets': 8, 'relative_attention': True,
              'share_att_key': True, 'torch_dtype': 'float32', 'transformers_version': TRANSFORMERS_VERSION,
              'type_vocab_size': 0, 'vocab_size': vocab_size}
    if kind == 'v3':
        extra.pop('architecture')
    if kind == 'v2':
        config.update({'attention_head_size': 8, 'conv_act': 'gelu', 'conv_kernel_size': 3, 'pos_att_type': 'p2c|c2p',
                       'max_relative_positions': 8})
        del config['position_buckets']
        extra.pop('architecture')
        for key in ('pooler_dropout', 'pooler_hidden_act', 'pooler_hidden_size'):
            del config[key]
    if kind == 'v3-hub':  # microsoft/deberta-v3-base's config.json has exactly these keys (no architectures,
        # pad_token_id, pooler_*, torch_dtype or transformers_version; pos_att_type as a "|" string)
        hub = ('attention_probs_dropout_prob', 'hidden_act', 'hidden_dropout_prob', 'hidden_size', 'initializer_range',
               'intermediate_size', 'layer_norm_eps', 'max_position_embeddings', 'max_relative_positions',
               'model_type', 'norm_rel_ebd', 'num_attention_heads', 'num_hidden_layers', 'pos_att_type',
               'position_biased_input', 'position_buckets', 'relative_attention', 'share_att_key',
               'type_vocab_size', 'vocab_size')
        config = {k: config[k] for k in hub}
        config['pos_att_type'] = 'p2c|c2p'
        extra.pop('architecture', None)
    config.update(extra)
    return config


def pos_att_types(config):
    """DebertaV2Config.__init__: a "|" string is lower-cased, split and stripped; a list is kept."""
    t = config.get('pos_att_type')
    if isinstance(t, str):
        return [x.strip() for x in t.lower().split('|')]
    return t or []


# ---------------------------------------------------------------------------------------------------- weights

class Weights:
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.w = {}

    def normal(self, shape, std):
        return torch.tensor(self.rng.normal(0.0, std, size=shape).astype(np.float32).astype(np.float64))

    def linear(self, name, out_f, in_f, bias=True):
        self.w[name + '.weight'] = self.normal((out_f, in_f), 1.0 / math.sqrt(in_f))
        if bias:
            self.w[name + '.bias'] = self.normal((out_f,), 0.1)

    def norm(self, name, size):
        self.w[name + '.weight'] = 1.0 + self.normal((size,), 0.1)
        self.w[name + '.bias'] = self.normal((size,), 0.1)

    def embedding(self, name, rows, cols, pad=None, std=0.02):
        t = self.normal((rows, cols), std)
        if pad is not None:
            t[pad] = 0.0
        self.w[name + '.weight'] = t


def make_weights(config, head, seed, prefix):
    g = Weights(seed)
    h, e = config['hidden_size'], config.get('embedding_size', config['hidden_size'])
    p = prefix
    g.embedding(p + 'embeddings.word_embeddings', config['vocab_size'], e, pad=config.get('pad_token_id', 0))
    if config['position_biased_input']:
        g.embedding(p + 'embeddings.position_embeddings', config['max_position_embeddings'], e)
    if config['type_vocab_size'] > 0:
        g.embedding(p + 'embeddings.token_type_embeddings', config['type_vocab_size'], e)
    if e != h:
        g.linear(p + 'embeddings.embed_proj', h, e, bias=False)
    g.norm(p + 'embeddings.LayerNorm', h)
    types = pos_att_types(config)
    heads = config['num_attention_heads']
    all_head = heads * config.get('attention_head_size', h // heads)
    for i in range(config['num_hidden_layers']):
        n = '%sencoder.layer.%d.' % (p, i)
        for proj in ('query_proj', 'key_proj', 'value_proj'):
            g.linear(n + 'attention.self.' + proj, all_head, h)
        if not config['share_att_key']:
            if 'c2p' in types:
                g.linear(n + 'attention.self.pos_key_proj', all_head, h)
            if 'p2c' in types:
                g.linear(n + 'attention.self.pos_query_proj', all_head, h)
        g.linear(n + 'attention.output.dense', h, all_head)
        g.norm(n + 'attention.output.LayerNorm', h)
        g.linear(n + 'intermediate.dense', config['intermediate_size'], h)
        g.linear(n + 'output.dense', h, config['intermediate_size'])
        g.norm(n + 'output.LayerNorm', h)
    span = span_of(config)[0]
    g.embedding(p + 'encoder.rel_embeddings', 2 * span, h)
    g.norm(p + 'encoder.LayerNorm', h)
    if config.get('conv_kernel_size', 0) > 0:
        k, groups = config['conv_kernel_size'], config.get('conv_groups', 1)
        g.w[p + 'encoder.conv.conv.weight'] = g.normal((h, h // groups, k), 1.0 / math.sqrt(h // groups * k))
        g.w[p + 'encoder.conv.conv.bias'] = g.normal((h,), 0.1)
        g.norm(p + 'encoder.conv.LayerNorm', h)
    if head == 'seqcls':
        g.linear('pooler.dense', config['pooler_hidden_size'], config['pooler_hidden_size'])
        g.linear('classifier', len(config['id2label']), h)
    elif head == 'tokcls':
        g.linear('classifier', len(config['id2label']), h)
    elif head == 'qa':
        g.linear('qa_outputs', 2, h)
    elif head == 'pretraining':  # what the microsoft checkpoints carry beside the encoder (NOTES.md); unused
        g.linear('lm_predictions.lm_head.dense', h, h)
        g.norm('lm_predictions.lm_head.LayerNorm', h)
        g.w['lm_predictions.lm_head.bias'] = g.normal((config['vocab_size'],), 0.1)
        g.linear('mask_predictions.dense', h, h)
        g.norm('mask_predictions.LayerNorm', h)
        g.linear('mask_predictions.classifier', 1, h)
    elif head == 'mlm':
        g.linear('cls.predictions.transform.dense', e, h)
        g.norm('cls.predictions.transform.LayerNorm', e)
        g.w['cls.predictions.bias'] = g.normal((config['vocab_size'],), 0.1)
    return g.w


# ---------------------------------------------------------------------------------------------------- forward

def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def linear(x, w, name):
    y = x @ w[name + '.weight'].T
    return y + w[name + '.bias'] if name + '.bias' in w else y


def f32_scale(head_size, scale_factor):
    """scaled_size_sqrt / the older torch.sqrt(torch.tensor(d, dtype=torch.float) * scale_factor): a float32 sqrt of
    a float32 product, then cast to the activations' dtype."""
    return float(torch.sqrt(torch.tensor(head_size, dtype=torch.float32) * scale_factor))


def conv_explicit(x, weight, bias, groups):
    """The conv as a per-position sum over the kernel (zero outside the sequence): out[t] = b + sum_k W[:, :, k] x[t +
    k - pad], per group."""
    n, length, h = x.shape
    k = weight.shape[2]
    pad = (k - 1) // 2
    per = h // groups
    out = bias.expand(n, length, h).clone()
    for t in range(length):
        for kk in range(k):
            s = t + kk - pad
            if 0 <= s < length:
                for g in range(groups):
                    sl = slice(g * per, (g + 1) * per)
                    out[:, t, sl] += x[:, s, sl] @ weight[sl, :, kk].T
    return out


class Model:
    def __init__(self, config, w, prefix, mistake=None):
        self.c, self.w, self.p, self.mistake = config, w, prefix, mistake
        self.types = pos_att_types(config)
        self.heads = config['num_attention_heads']
        self.head_size = config.get('attention_head_size', config['hidden_size'] // self.heads)
        self.span, self.buckets, self.max_rel = span_of(config)
        self.eps = config['layer_norm_eps']

    def embeddings(self, ids, type_ids, mask):
        c, w, p = self.c, self.w, self.p
        x = w[p + 'embeddings.word_embeddings.weight'][ids]
        if c['position_biased_input']:
            x = x + w[p + 'embeddings.position_embeddings.weight'][torch.arange(ids.shape[1])][None]
        if c['type_vocab_size'] > 0:
            x = x + w[p + 'embeddings.token_type_embeddings.weight'][type_ids]
        if p + 'embeddings.embed_proj.weight' in w:
            x = x @ w[p + 'embeddings.embed_proj.weight'].T
        x = layer_norm(x, w[p + 'embeddings.LayerNorm.weight'], w[p + 'embeddings.LayerNorm.bias'], self.eps)
        return x if self.mistake == 'embedding-mask' else x * mask[:, :, None]

    def rel_embeddings(self):
        w, p = self.w, self.p
        r = w[p + 'encoder.rel_embeddings.weight']
        norms = [x.strip() for x in self.c.get('norm_rel_ebd', 'none').lower().split('|')]
        if 'layer_norm' in norms and self.mistake != 'no-rel-ln':
            r = layer_norm(r, w[p + 'encoder.LayerNorm.weight'], w[p + 'encoder.LayerNorm.bias'], self.eps)
        return r[:2 * self.span]

    def split(self, x):
        """[n, len, heads * d] -> [n, heads, len, d]"""
        return x.view(x.shape[0], x.shape[1], self.heads, self.head_size).transpose(1, 2)

    def position_projections(self, n, rel):
        w, pre = self.w, self.p + 'encoder.layer.%d.attention.self.' % n
        share = self.c['share_att_key']
        pos_k = linear(rel, w, pre + ('key_proj' if share else 'pos_key_proj')) if 'c2p' in self.types else None
        pos_q = linear(rel, w, pre + ('query_proj' if share else 'pos_query_proj')) if 'p2c' in self.types else None
        split = lambda t: None if t is None else t.view(t.shape[0], self.heads, self.head_size).transpose(0, 1)  # noqa
        return split(pos_k), split(pos_q)  # [heads, 2 span, d]

    def bias_gather(self, q, k, pos_k, pos_q, rel_pos, scale):
        """disentangled_attention_bias as transformers computes it: bmm against every relative embedding row, then
        gather with the clamped index; p2c gathers along the keys' rows and is transposed."""
        span = self.span
        lo = 1 if self.mistake == 'clamp' else 0  # the mistake: a symmetric clamp, [-(span - 1), span - 1]
        score = 0
        if 'c2p' in self.types:
            c2p = q @ pos_k.transpose(-1, -2)[None]  # [n, heads, len, 2 span]
            index = torch.clamp(rel_pos + span, lo, 2 * span - 1)
            score = score + torch.gather(c2p, -1, index.expand(c2p.shape[0], c2p.shape[1], -1, -1)) / scale
        if 'p2c' in self.types:
            p2c = k @ pos_q.transpose(-1, -2)[None]  # [n, heads, len(keys), 2 span]
            sign = 1 if self.mistake == 'p2c-sign' else -1
            index = torch.clamp(sign * rel_pos + span, lo, 2 * span - 1)
            score = score + torch.gather(p2c, -1, index.expand(p2c.shape[0], p2c.shape[1], -1, -1)
                                         ).transpose(-1, -2) / scale
        return score

    def bias_loop(self, q, k, pos_k, pos_q, length, scale):
        """The same terms entry by entry: c2p[i, j] = q_i . pos_k[clamp(bucket(i - j) + span)] and p2c[i, j] =
        k_j . pos_q[clamp(-bucket(j - i) + span)], the bucket from the scalar function."""
        span = self.span
        clamp = lambda v: min(max(v, 0), 2 * span - 1)  # noqa: E731
        bucket = (lambda d: bucket_scalar(d, self.buckets, self.max_rel)) if self.buckets > 0 else (lambda d: d)
        out = torch.zeros(q.shape[0], q.shape[1], length, length)
        for i in range(length):
            for j in range(length):
                if 'c2p' in self.types:
                    out[:, :, i, j] += (q[:, :, i, :] * pos_k[None, :, clamp(bucket(i - j) + span), :]).sum(-1) / scale
                if 'p2c' in self.types:
                    out[:, :, i, j] += (k[:, :, j, :] * pos_q[None, :, clamp(-bucket(j - i) + span), :]).sum(-1) / scale
        return out

    def forward(self, ids, type_ids, mask, bias='gather', softmax='new', conv='torch'):
        c, w, p = self.c, self.w, self.p
        n, length = ids.shape
        maskf = mask.to(torch.get_default_dtype())
        x = self.embeddings(ids, type_ids, maskf)
        embedding_output = x
        pair_mask = (maskf[:, None, :, None] * maskf[:, None, None, :]).bool()  # get_attention_mask: m_i * m_j
        rel = self.rel_embeddings()
        rel_pos = relative_positions(length, c)
        scale_factor = 1 + ('c2p' in self.types) + ('p2c' in self.types)
        if self.mistake == 'scale1':
            scale_factor = 1
        scale = f32_scale(self.head_size, scale_factor)
        hidden = x
        for i in range(c['num_hidden_layers']):
            pre = '%sencoder.layer.%d.' % (p, i)
            q = self.split(linear(hidden, w, pre + 'attention.self.query_proj'))
            k = self.split(linear(hidden, w, pre + 'attention.self.key_proj'))
            v = self.split(linear(hidden, w, pre + 'attention.self.value_proj'))
            scores = q @ k.transpose(-1, -2) / scale
            pos_k, pos_q = self.position_projections(i, rel)
            if bias == 'gather':
                scores = scores + self.bias_gather(q, k, pos_k, pos_q, rel_pos, scale)
            else:
                scores = scores + self.bias_loop(q, k, pos_k, pos_q, length, scale)
            scores = scores.masked_fill(~pair_mask, torch.finfo(scores.dtype).min)
            probs = torch.softmax(scores, -1)
            if softmax == 'xsoftmax':  # the older XSoftmax: zeroed again where the mask is 0
                probs = probs.masked_fill(~pair_mask, 0.0)
            context = (probs @ v).transpose(1, 2).reshape(n, length, self.heads * self.head_size)
            attention = layer_norm(linear(context, w, pre + 'attention.output.dense') + hidden,
                                   w[pre + 'attention.output.LayerNorm.weight'],
                                   w[pre + 'attention.output.LayerNorm.bias'], self.eps)
            inner = gelu(linear(attention, w, pre + 'intermediate.dense'))
            hidden = layer_norm(linear(inner, w, pre + 'output.dense') + attention,
                                w[pre + 'output.LayerNorm.weight'], w[pre + 'output.LayerNorm.bias'], self.eps)
            if i == 0 and c.get('conv_kernel_size', 0) > 0:
                conv_input = hidden if self.mistake == 'conv-input' else embedding_output
                hidden = self.conv(conv_input, hidden, maskf, conv)
        return hidden

    def conv(self, x, residual, maskf, how):
        w, p = self.w, self.p + 'encoder.conv.'
        groups = self.c.get('conv_groups', 1)
        k = self.c['conv_kernel_size']
        if how == 'torch':
            out = torch.nn.functional.conv1d(x.transpose(1, 2), w[p + 'conv.weight'], w[p + 'conv.bias'],
                                             padding=(k - 1) // 2, groups=groups).transpose(1, 2)
        else:
            out = conv_explicit(x, w[p + 'conv.weight'], w[p + 'conv.bias'], groups)
        out = out * maskf[:, :, None]  # masked_fill_ at padded positions (no effect on what is kept: see NOTES.md)
        act = self.c.get('conv_act', 'tanh')
        out = gelu(out) if act == 'gelu' else torch.tanh(out)
        out = layer_norm(residual + out, w[p + 'LayerNorm.weight'], w[p + 'LayerNorm.bias'], self.eps)
        return out * maskf[:, :, None]


def heads_of(head, config, w, hidden):
    out = {'last_hidden_state': hidden}
    if head == 'seqcls':
        pooled = gelu(linear(hidden[:, 0], w, 'pooler.dense'))
        out['logits'] = linear(pooled, w, 'classifier')
    elif head == 'tokcls':
        out['logits'] = linear(hidden, w, 'classifier')
    elif head == 'qa':
        logits = linear(hidden, w, 'qa_outputs')
        out['start_logits'], out['end_logits'] = logits[..., 0], logits[..., 1]
    elif head == 'mlm':
        t = gelu(linear(hidden, w, 'cls.predictions.transform.dense'))
        t = layer_norm(t, w['cls.predictions.transform.LayerNorm.weight'], w['cls.predictions.transform.LayerNorm.bias'],
                       config['layer_norm_eps'])
        out['logits'] = t @ w['deberta.embeddings.word_embeddings.weight'].T + w['cls.predictions.bias']
    return out


def check_heads(head, config, w, out):
    h = out['last_hidden_state']
    if head == 'seqcls':
        x = torch.einsum('nh,oh->no', h[:, 0], w['pooler.dense.weight']) + w['pooler.dense.bias']
        x = x * 0.5 * (1 + torch.erf(x * 2 ** -0.5))
        other = torch.einsum('nh,oh->no', x, w['classifier.weight']) + w['classifier.bias']
        check(torch.allclose(other, out['logits'], rtol=0, atol=1e-12), 'seqcls head recomputed')
    elif head == 'qa':
        other = torch.einsum('nlh,oh->nlo', h, w['qa_outputs.weight']) + w['qa_outputs.bias']
        check(torch.allclose(other[..., 0], out['start_logits'], rtol=0, atol=1e-12)
              and torch.allclose(other[..., 1], out['end_logits'], rtol=0, atol=1e-12), 'qa head recomputed')
    elif head == 'mlm':
        t = torch.einsum('nlh,eh->nle', h, w['cls.predictions.transform.dense.weight']) \
            + w['cls.predictions.transform.dense.bias']
        t = torch.nn.functional.gelu(t)
        t = torch.nn.functional.layer_norm(t, t.shape[-1:], w['cls.predictions.transform.LayerNorm.weight'],
                                           w['cls.predictions.transform.LayerNorm.bias'], config['layer_norm_eps'])
        other = torch.einsum('nle,ve->nlv', t, w['deberta.embeddings.word_embeddings.weight']) + w['cls.predictions.bias']
        check(torch.allclose(other, out['logits'], rtol=0, atol=1e-10), 'mlm head recomputed')


def run_case(model, head, case, loop_check):
    ids = torch.tensor(case['input_ids'])
    types = torch.tensor(case['token_type_ids'])
    mask = torch.tensor(case['attention_mask'])
    hidden = model.forward(ids, types, mask)
    out = heads_of(head, model.c, model.w, hidden)
    check_heads(head, model.c, model.w, out)
    real = mask.bool()
    worst = {}
    if loop_check:
        other = model.forward(ids, types, mask, bias='loop')
        worst['loop'] = float((other - hidden)[real].abs().max())
        check(worst['loop'] < 1e-9, 'c2p/p2c by the loop differ by %.2e' % worst['loop'])
    if model.c.get('conv_kernel_size', 0) > 0:
        other = model.forward(ids, types, mask, conv='explicit')
        worst['conv'] = float((other - hidden).abs().max())
        check(worst['conv'] < 1e-12, 'conv by the explicit sum differs by %.2e' % worst['conv'])
    old = model.forward(ids, types, mask, softmax='xsoftmax')
    worst['xsoftmax'] = float((old - hidden)[real].abs().max())
    check(worst['xsoftmax'] < 1e-12, 'XSoftmax differs at real positions by %.2e' % worst['xsoftmax'])
    alone = 0.0
    for r in range(ids.shape[0]):
        n = int(mask[r].sum())
        single = model.forward(ids[r:r + 1, :n], types[r:r + 1, :n], mask[r:r + 1, :n])
        single_out = heads_of(head, model.c, model.w, single)
        for key, value in out.items():
            if key == 'logits' and head == 'seqcls':
                d = (single_out[key][0] - value[r]).abs().max()
            else:
                d = (single_out[key][0] - value[r, :n]).abs().max()
            alone = max(alone, float(d))
    worst['alone'] = alone
    check(alone < 1e-9, 'a row run alone differs from the padded batch by %.2e' % alone)
    return out, worst


def check_mistakes(config, w, prefix, head, cases, kinds):
    moved = []
    for kind in kinds:
        base, bad = Model(config, w, prefix), Model(config, w, prefix, mistake=kind)
        d = 0.0
        for case in cases:
            if kind == 'embedding-mask' and min(map(min, case['attention_mask'])) == 1:
                continue
            ids, types, mask = (torch.tensor(case[k]) for k in ('input_ids', 'token_type_ids', 'attention_mask'))
            real = mask.bool()
            d = max(d, float((base.forward(ids, types, mask) - bad.forward(ids, types, mask))[real].abs().max()))
        check(d > 1e-3, 'the mistake %s moves last_hidden_state by only %.2e' % (kind, d))
        moved.append('%s %.2f' % (kind, d))
    return moved


# ---------------------------------------------------------------------------------------------------- zero-shot

def softmax64(z):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def nli_columns(config):
    """zero_shot_classification.py: entailment_id is the first label2id entry whose lower case starts with
    "entail" (else -1); postprocess takes the contradiction column as -1 if entailment_id == 0 else 0."""
    entailment_id = -1
    for label, index in config['label2id'].items():
        if label.lower().startswith('entail'):
            entailment_id = index
            break
    return entailment_id, (-1 if entailment_id == 0 else 0)


def zeroshot(model, config, w, tokenized, cases):
    entailment_id, contradiction_id = nli_columns(config)
    results = []
    for case, encodings in zip(cases, tokenized):
        rows, ids = [], []
        for e in encodings:
            x = torch.tensor([e['ids']])
            hidden = model.forward(x, torch.tensor([e['type_ids']]), torch.tensor([e['attention_mask']]))
            logits = heads_of('seqcls', config, w, hidden)['logits'][0]
            rows.append(logits.float().double().numpy())  # the pipeline sees the model's float32 logits
            ids.append(e['ids'])
        logits = np.stack(rows)
        if case['multi_label'] or len(rows) == 1:
            scores = softmax64(logits[:, [contradiction_id, entailment_id]])[:, 1]
        else:
            scores = softmax64(logits[:, entailment_id])
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        gaps = [abs(scores[a] - scores[b]) for a in range(len(scores)) for b in range(a)]
        check(not gaps or min(gaps) > 1e-4, 'zero-shot scores too close to order: %s' % scores)
        results.append({'sequence': case['sequence'], 'candidate_labels': case['candidate_labels'],
                        'hypothesis_template': case['hypothesis_template'], 'multi_label': case['multi_label'],
                        'input_ids': ids, 'logits': [[float(np.float32(v)) for v in r] for r in rows],
                        'output': {'sequence': case['sequence'], 'labels': [case['candidate_labels'][i] for i in order],
                                   'scores': [float(np.float32(scores[i])) for i in order]}})
    return {'entailment_id': entailment_id, 'contradiction_column': contradiction_id, 'cases': results}


ZEROSHOT = [
    {'sequence': PREMISES[0], 'candidate_labels': NLI_LABELS, 'hypothesis_template': TEMPLATE, 'multi_label': False},
    {'sequence': PREMISES[1], 'candidate_labels': NLI_LABELS, 'hypothesis_template': TEMPLATE, 'multi_label': True},
    {'sequence': PREMISES[1], 'candidate_labels': ['sports', 'music'], 'hypothesis_template': 'The topic is {}.',
     'multi_label': False},
    {'sequence': PREMISES[0], 'candidate_labels': ['urgent'], 'hypothesis_template': TEMPLATE, 'multi_label': False},
]


# ---------------------------------------------------------------------------------------------------- main

NLI = {'0': 'entailment', '1': 'neutral', '2': 'contradiction'}
NER = {'0': 'O', '1': 'B-PER', '2': 'I-PER', '3': 'B-LOC', '4': 'I-LOC'}

# name: (kind, head, seed, prefix, inputs, config extra)
CASES = {
    'deberta-v3-base': ('v3-hub', 'base', 400, '', 'base', {'architecture': 'DebertaV2Model'}),
    'deberta-v3-base-pretraining-layout': ('v3-hub', 'pretraining', 400, 'deberta.', 'base-short', {}),
    'deberta-v3-nli': ('v3', 'seqcls', 401, 'deberta.', 'nli', {
        'architecture': 'DebertaV2ForSequenceClassification', 'id2label': NLI,
        'label2id': {v: int(k) for k, v in NLI.items()}}),
    'deberta-v2-xlarge-mlm': ('v2', 'mlm', 402, 'deberta.', 'mlm', {'architecture': 'DebertaV2ForMaskedLM'}),
    'deberta-v2-xlarge-mlm-lm-predictions': ('v2', 'mlm', 402, 'deberta.', 'mlm', {
        'architecture': 'DebertaV2ForMaskedLM', 'legacy': False}),
    'deberta-v3-tokcls': ('v3', 'tokcls', 400, 'deberta.', 'ner', {
        'architecture': 'DebertaV2ForTokenClassification', 'id2label': NER,
        'label2id': {v: int(k) for k, v in NER.items()}}),
    'deberta-v3-qa': ('v3', 'qa', 400, 'deberta.', 'qa', {'architecture': 'DebertaV2ForQuestionAnswering'}),
    'deberta-variant-separate-keys': ('v3', 'mlm', 403, 'deberta.', 'mlm', {
        'architecture': 'DebertaV2ForMaskedLM', 'share_att_key': False, 'position_biased_input': True,
        'type_vocab_size': 2, 'embedding_size': 24, 'position_buckets': 16, 'max_relative_positions': 64}),
    'deberta-variant-c2p': ('v3', 'base', 404, '', 'base-short', {
        'architecture': 'DebertaV2Model', 'share_att_key': False, 'pos_att_type': ['c2p']}),
}


def rename_lm_predictions(w):
    """legacy false: DebertaV2OnlyMLMHead's names (lm_predictions.lm_head.dense / LayerNorm / bias); the decoder is
    the word embedding matrix itself, with no tensor of its own."""
    names = {'cls.predictions.transform.dense': 'lm_predictions.lm_head.dense',
             'cls.predictions.transform.LayerNorm': 'lm_predictions.lm_head.LayerNorm',
             'cls.predictions.bias': 'lm_predictions.lm_head.bias'}
    out = {}
    for k, v in w.items():
        for old, new in names.items():
            if k.startswith(old):
                k = new + k[len(old):]
                break
        out[k] = v
    return out


def batch_case(name, texts, encodings, tokens=True):
    case = {'name': name, 'texts': texts, 'input_ids': [e['ids'] for e in encodings],
            'token_type_ids': [e['type_ids'] for e in encodings],
            'attention_mask': [e['attention_mask'] for e in encodings]}
    if tokens:
        case['tokens'] = [e['tokens'] for e in encodings]
    return case


def main():
    tables, bucket_notes = bucket_tables()
    tokenizer = build_tokenizer()
    vocab = tokenizer['model']['vocab']
    mask_id = len(vocab)
    vocab_size = (mask_id + 1 + 15) // 16 * 16 + 16  # padded past the tokenizer, as deberta-v3's 128100 > 128001
    longs = long_texts()
    nli_pairs = [[PREMISES[0], TEMPLATE.format(label)] for label in NLI_LABELS]
    zs_inputs = [[[z['sequence'], z['hypothesis_template'].format(label)]] for z in ZEROSHOT
                 for label in z['candidate_labels']]
    batches = [('plain', PLAIN), ('plain-variants', PLAIN_VARIANTS + [PLAIN[0]]), ('mlm', MLM), ('pair', PAIRS),
               ('single', [SINGLE]), ('long', longs), ('nli-pairs', nli_pairs), ('ner', NER_TEXTS), ('qa', QA_PAIRS)]
    batches += [('zs%d' % i, x) for i, x in enumerate(zs_inputs)]
    scratch = tempfile.mkdtemp(prefix='deberta-fixtures-')
    try:
        answer = tokenize(tokenizer, scratch, batches)
    finally:
        shutil.rmtree(scratch)
    check(answer['vocab_size'] == mask_id + 1, 'the library counts %d tokens, expected %d'
          % (answer['vocab_size'], mask_id + 1))
    enc = {b['name']: b['encodings'] for b in answer['batches']}
    for b in answer['batches']:
        for e in b['encodings']:
            check(all(0 <= i < vocab_size for i in e['ids']), 'an id is outside the vocabulary')
    variants = enc['plain-variants']
    check(all(e['ids'] == variants[-1]['ids'] for e in variants), 'Strip / NBSP / Replace / charsmap variants '
          'tokenize differently: %s' % [e['tokens'] for e in variants])
    for e in enc['mlm']:
        check(e['ids'].count(mask_id) == 1, '[MASK] is not one token')
    short_len = [sum(e['attention_mask']) for b in ('plain', 'pair', 'single') for e in enc[b]]
    check(max(short_len) > 2 * 8, 'the short inputs are not longer than twice the buckets: %s' % short_len)
    long_len = [sum(e['attention_mask']) for e in enc['long']]
    check(all(abs(n - t) <= 60 for n, t in zip(long_len, LONG_TARGETS)), 'long inputs of %s tokens' % long_len)
    check(enc['pair'][0]['type_ids'].count(1) > 0, 'pairs carry no type 1')

    short = lambda first, texts: [batch_case('padded-batch', texts, enc[first]),  # noqa: E731
                                  batch_case('pair', PAIRS, enc['pair']), batch_case('single', [SINGLE], enc['single'])]
    inputs = {
        'base': short('plain', PLAIN) + [batch_case('long-padded-batch', longs, enc['long'], tokens=False)],
        'base-short': short('plain', PLAIN),
        'nli': [batch_case('padded-batch', PLAIN, enc['plain']), batch_case('pair', nli_pairs, enc['nli-pairs']),
                batch_case('single', [SINGLE], enc['single'])],
        'mlm': short('mlm', MLM),
        'ner': [batch_case('padded-batch', NER_TEXTS, enc['ner']), batch_case('pair', PAIRS, enc['pair']),
                batch_case('single', [SINGLE], enc['single'])],
        'qa': [batch_case('padded-batch', PLAIN, enc['plain']), batch_case('pair', QA_PAIRS, enc['qa']),
               batch_case('single', [SINGLE], enc['single'])],
    }

    os.makedirs(OUT, exist_ok=True)
    for entry in os.listdir(OUT):
        path = os.path.join(OUT, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
    write_int32_safetensors(os.path.join(OUT, 'buckets.safetensors'), tables)
    summary = []
    with torch.no_grad():
        for name, (kind, head, seed, prefix, input_name, extra) in CASES.items():
            config = make_config(kind, dict(extra), vocab_size)
            w = make_weights(config, head, seed, prefix)
            if head in ('tokcls', 'qa', 'pretraining'):  # deberta-v3-base's encoder under the deberta. prefix
                base = make_weights(config, 'base', seed, '')
                check(all(torch.equal(base[k], w['deberta.' + k]) for k in base), 'shared encoder weights')
            model = Model(config, w, prefix)
            cases = inputs[input_name]
            expected, notes = {}, []
            worst = {}
            for i, case in enumerate(cases):
                out, wc = run_case(model, head, case, loop_check=not case['name'].startswith('long'))
                for key, value in wc.items():
                    worst[key] = max(worst.get(key, 0.0), value)
                for key, value in out.items():
                    expected['case%d.%s' % (i, key)] = value.float()
            notes.append(', '.join('%s %.1e' % kv for kv in sorted(worst.items())))
            if name == 'deberta-v3-base':
                base_expected = expected
            if head == 'pretraining':
                check(all(torch.equal(v, base_expected[k]) for k, v in expected.items()),
                      'the pretraining layout does not give deberta-v3-base\'s outputs')
                notes.append('= deberta-v3-base bit for bit')
            if name == 'deberta-v3-base':
                notes.append('mistakes: ' + ', '.join(check_mistakes(
                    config, w, prefix, head, cases, ('p2c-sign', 'scale1', 'no-rel-ln', 'clamp'))))
            if name == 'deberta-v2-xlarge-mlm':
                notes.append('mistakes: ' + ', '.join(check_mistakes(
                    config, w, prefix, head, cases[:3], ('conv-input', 'embedding-mask', 'p2c-sign', 'scale1'))))
            files_w = w
            if config.get('legacy') is False:
                files_w = rename_lm_predictions(w)
            directory = os.path.join(OUT, name)
            os.makedirs(directory)
            write_json(os.path.join(directory, 'config.json'), config)
            write_safetensors(os.path.join(directory, 'model.safetensors'),
                              {k: v for k, v in sorted(files_w.items())}, {'format': 'pt'})
            with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
                f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
            write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(mask_id))
            write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
            with open(os.path.join(directory, 'inputs.json'), 'w') as f:
                f.write(compact_json(cases) + '\n')
            write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
            if head == 'seqcls':
                zs = zeroshot(model, config, w, [enc['zs%d' % i] for i in range(len(zs_inputs))],
                              [dict(z, candidate_labels=[label]) for z in ZEROSHOT for label in z['candidate_labels']])
                zs = regroup_zeroshot(zs)
                with open(os.path.join(directory, 'zeroshot.json'), 'w') as f:
                    f.write(compact_json(zs) + '\n')
                notes.append('zero-shot: ' + '; '.join('%s %s' % (c['output']['labels'][0],
                                                                    c['output']['scores'][0]) for c in zs['cases']))
            summary.append('%-38s %s' % (name, '; '.join(notes)))

    spm = spm_model(tokenizer)
    check_spm(spm, tokenizer)
    directory = os.path.join(OUT, 'spm-only')
    os.makedirs(directory)
    with open(os.path.join(directory, 'spm.model'), 'wb') as f:
        f.write(spm)
    write_json(os.path.join(directory, 'config.json'), make_config('v3-hub', {}, vocab_size))
    write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(mask_id, spm_only=True))
    ids = []
    for b in ('plain', 'plain-variants', 'mlm', 'pair', 'single', 'long', 'ner', 'qa'):
        texts = dict(batches)[b]
        for text, e in zip(texts, enc[b]):
            n = sum(e['attention_mask'])
            ids.append({'text': text, 'input_ids': e['ids'][:n], 'token_type_ids': e['type_ids'][:n],
                        'tokens': e['tokens'][:n]})
    with open(os.path.join(directory, 'ids.json'), 'w') as f:
        f.write(compact_json(ids) + '\n')
    spm_note = check_with_sentencepiece(os.path.join(directory, 'spm.model'), ids, mask_id)
    print('\n'.join(summary))
    print('buckets: ' + '; '.join(bucket_notes))
    print('tokenizer: %d pieces + [MASK] (%d), config vocab_size %d; short inputs up to %d tokens, long %s'
          % (len(vocab), mask_id, vocab_size, max(short_len), long_len))
    print('spm.model: ' + spm_note)
    print('wrote', len(CASES), 'cases, spm-only and buckets.safetensors to', os.path.normpath(OUT))


def check_with_sentencepiece(path, ids, mask_id):
    """Google's sentencepiece library (Debian's python3-sentencepiece; skipped when it is not installed) loads the
    hand-written spm.model and segments every input as the npm library did: [CLS] + pieces + [SEP] (+ pieces +
    [SEP] for a pair), a text with [MASK] cut there and each side encoded alone (the slow DebertaV2Tokenizer splits
    on added tokens first)."""
    try:
        import sentencepiece
    except ImportError:
        return 'python3-sentencepiece not installed: the sentencepiece cross-check was skipped'
    sp = sentencepiece.SentencePieceProcessor(model_file=path)
    check(sp.get_piece_size() == mask_id and (sp.unk_id(), sp.bos_id(), sp.eos_id(), sp.pad_id()) == (3, 1, 2, 0),
          'sentencepiece reads spm.model\'s sizes and ids differently')

    def encode(text):
        out = []
        for k, part in enumerate(text.split('[MASK]')):
            out += ([mask_id] if k else []) + sp.encode(part)
        return out
    for x in ids:
        texts = x['text'] if isinstance(x['text'], list) else [x['text']]
        want = [1] + [i for t in texts for i in encode(t) + [2]]
        check(want == x['input_ids'], 'sentencepiece segments %r differently: %s' % (
            x['text'], [sp.id_to_piece(i) if i < mask_id else '[MASK]' for i in want]))
    return 'sentencepiece %s gives the npm ids for all %d inputs' % (sentencepiece.__version__, len(ids))


def regroup_zeroshot(flat):
    """One entry a pipeline call (ZEROSHOT), the per-label forwards gathered back under it."""
    cases, k = [], 0
    entailment_id, contradiction_id = flat['entailment_id'], flat['contradiction_column']
    for z in ZEROSHOT:
        parts = flat['cases'][k:k + len(z['candidate_labels'])]
        k += len(z['candidate_labels'])
        logits = np.array([p['logits'][0] for p in parts], dtype=np.float64)
        if z['multi_label'] or len(parts) == 1:
            scores = softmax64(logits[:, [contradiction_id, entailment_id]])[:, 1]
        else:
            scores = softmax64(logits[:, entailment_id])
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        gaps = [abs(scores[a] - scores[b]) for a in range(len(scores)) for b in range(a)]
        check(not gaps or min(gaps) > 1e-4, 'zero-shot scores too close to order: %s' % scores)
        cases.append({'sequence': z['sequence'], 'candidate_labels': z['candidate_labels'],
                      'hypothesis_template': z['hypothesis_template'], 'multi_label': z['multi_label'],
                      'input_ids': [p['input_ids'][0] for p in parts], 'logits': [p['logits'][0] for p in parts],
                      'output': {'sequence': z['sequence'], 'labels': [z['candidate_labels'][i] for i in order],
                                 'scores': [float(np.float32(scores[i])) for i in order]}})
    return {'entailment_id': entailment_id, 'contradiction_column': contradiction_id, 'cases': cases}


if __name__ == '__main__':
    main()
