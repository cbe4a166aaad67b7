#!/usr/bin/env python3
"""Random-weight BAAI/bge-m3 checkpoints in the hub's layout (an XLM-RoBERTa encoder plus FlagEmbedding's
sparse_linear.pt and colbert_linear.pt heads), with independent reference outputs computed with PyTorch for the
three bge-m3 outputs (dense, sparse / lexical weights, ColBERT) and the four scores, and token ids from Hugging
Face's tokenizers library.

The encoder is make_family_fixtures.py's XLM-R forward (imported, written from transformers' modeling_roberta.py /
modeling_xlm_roberta.py); the bge-m3 heads and scores are written here with plain torch operations from
FlagEmbedding's code (FlagEmbedding/BGE_M3/modeling.py BGEM3Model, FlagEmbedding/bge_m3.py BGEM3FlagModel, and the
newer FlagEmbedding/inference/embedder/encoder_only/m3.py M3Embedder with
FlagEmbedding/finetune/embedder/encoder_only/m3/modeling.py EncoderOnlyEmbedderM3Model); they share no code with
vectorbert, and neither transformers nor FlagEmbedding is needed. The token ids of every input come from the npm
package "tokenizers" (the Rust library behind transformers' fast tokenizers) through bgem3-tokenize.mjs, which loads
the tokenizer.json written here, so the fixtures also pin tokenizer parity. Regenerate everything (seconds):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/modernbert-npm && (cd /tmp/modernbert-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/modernbert-npm/node_modules /usr/bin/python3 tools/torch-reference/make_bgem3_fixtures.py

(without NODE_PATH the helper falls back to tools/tokenizer-reference/node_modules, which `npm ci` there installs at
the same version). No arguments. The tokenizer is cut from the committed
tokenizer/src/test/resources/pipeline/unigram-xlmr-precompiled.tokenizer.json (XLM-R's layout: Precompiled charsmap
+ Replace " {2,}", Metaspace, Unigram, <s> A </s> template): its normalizer, pre-tokenizer, post-processor and
decoder unchanged, its Unigram vocabulary cut to the first pieces plus every one-character piece (build_tokenizer).
Writes engine/src/test/resources/architectures/bgem3/<case>/ (the same bytes on every run: numpy's legacy
RandomState draws the weights, the reference is computed in float64 on one thread, then rounded to float32):

    config.json               the keys of BAAI/bge-m3's config.json (XLMRobertaModel, model_type xlm-roberta), sorted,
                              indent 2, small sizes
    model.safetensors         float32 XLMRobertaModel state dict, names sorted, no prefix (embeddings.*,
                              encoder.layer.N.*, pooler.dense.*), __metadata__ {"format": "pt"}; the pooler is in the
                              file (FlagEmbedding saves the AutoModel, an XLMRobertaModel with its pooler; NOTES.md)
                              and no output uses it
    pytorch_model.bin         bgem3-bin only: the same tensors by torch.save (torch 1.13's zip format) of a plain dict
                              in state-dict order, as transformers 4.33's save_pretrained writes a one-shard checkpoint
    sparse_linear.pt          nn.Linear(hidden, 1)'s state dict by torch.save: keys "weight" [1, hidden], "bias" [1];
                              bgem3: module.state_dict() itself (an OrderedDict carrying _metadata); bgem3-bin: as
                              FlagEmbedding's save() writes it, an OrderedDict of clones without _metadata
    colbert_linear.pt         the same for nn.Linear(hidden, hidden): "weight" [hidden, hidden], "bias" [hidden]
    sparse_linear.safetensors, colbert_linear.safetensors   the same two state dicts as safetensors (keys weight, bias)
    tokenizer.json, tokenizer_config.json, special_tokens_map.json
    modules.json, config_sentence_transformers.json, sentence_bert_config.json, 1_Pooling/config.json (CLS pooling),
                              as the hub repo's sentence-transformers files (Transformer, Pooling cls, Normalize)
    inputs.json               case0 queries (a padded batch of 3; "?" is outside the vocabulary -> <unk>), case1
                              documents (a padded batch of 4: document 1 holds "▁program" and "▁the" twice,
                              document 2 three characters outside the vocabulary -> <unk>, document 3 one word):
                              name, texts, input_ids, attention_mask and the library's tokens
    expected.safetensors      float32:
                                caseN.last_hidden_state [n, len, hidden]
                                caseN.dense_vecs [n, hidden]         normalize(last_hidden_state[:, 0])
                                caseN.sparse_weights [n, len]        relu(sparse_linear(last_hidden_state))
                                                                     .squeeze(-1), every position (pads too; compare
                                                                     the real ones)
                                caseN.sparse_embedding [n, vocab]    compute_score's vocabulary vector: per id the
                                                                     max weight, unused special ids zeroed
                                caseN.colbert_vecs [n, len - 1, hidden]   normalize(colbert_linear(h[:, 1:])
                                                                     * mask[:, 1:]): the batch output, zero vectors
                                                                     at pads
                                caseN.colbert_vecs.R [real_len_R - 1, hidden]   text R as encode() returns it (the
                                                                     first real_len - 1 rows: no <s>, </s> kept)
                                scores.dense, scores.sparse, scores.colbert [queries, documents]: every query
                                                                     against every document (compute_score scores
                                                                     pairs, one query with one passage: these are
                                                                     its values)
                                scores.sparse+dense, scores.colbert+sparse+dense   compute_score's weighted means
                                                                     with the README's weights [0.4, 0.2, 0.4]
                                scores.colbert+sparse+dense.default  with compute_score's default [1, 1, 1] (sum / 3)
    expected_lexical_weights.json   {"case0": [{"<id>": weight, ...} per text], "case1": [...]}: encode()'s
                              lexical_weights, keys in first-occurrence order, float32 values written shortest

Cases: bgem3 (hidden 32, 4 heads, 2 layers, intermediate 64, seed 300) and bgem3-bin (seed 305, hidden 48, 3
heads, 3 layers, intermediate 96, plus pytorch_model.bin); both share the tokenizer and the inputs. The seeds are
ones where the repeated token's two weights are both positive (with others relu zeroes one or both). Weight scale
as in make_family_fixtures.py: embeddings std 0.02 with a zero pad row (word and position tables), Linear weights
std 1/sqrt(fan_in), biases std 0.1, LayerNorm weights 1 + std 0.1 and biases std 0.1; the two heads the same way.

Self-checks run before a case is written (the script stops on the first failure):
  tokenizer  the library writes back (Tokenizer.save) the tokenizer.json it loaded unchanged; its vocabulary size is
             config's vocab_size and every id is below it; the repeated token occurs twice in document 1; <unk> (3)
             occurs in document 2; queries and documents share at least 3 non-special ids (and at least 3 lexical
             scores are above 0)
  encoder    make_family_fixtures.check_against_torch_layers (the layers as torch.nn.TransformerEncoderLayer, RoBERTa
             positions computed the other way) to 1e-9; each row run alone equals its rows of the padded batch at
             the real positions (hidden state, sparse weights, ColBERT vectors; dense vectors and lexical dicts)
  heads      dense normalised by hand; lexical dicts (FlagEmbedding's loop: skip unused ids and weights <= 0, keep the
             max) equal the nonzero entries of the scatter_reduce("amax") vocabulary vector; the sparse score as a
             dict loop equals the vocabulary vectors' dot product; the batched ColBERT score (einsum over the padded
             outputs, divided by q_mask[:, 1:].sum()) equals the per-text score with each max floored at 0 for a
             padded document, and here equals the plain per-text score (no max is below 0); every ColBERT vector
             of encode() has norm 1 and there are real_len - 1 of them; some document token weight is exactly
             zero (relu), and the repeated token's two weights are positive and differ by more than 1e-3
  mistakes   each of these changes a score matrix by more than 1e-3: keeping <s> / </s> in the lexical weights, mean
             instead of CLS pooling, ColBERT including <s>, dividing the ColBERT sum by the document's vector count
  files      the .pt and .bin files load back (torch.load) to the same tensors; torch.save writes the same bytes twice
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
import make_family_fixtures as family  # noqa: E402  (the XLM-R encoder and its second implementation)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'bgem3')
HELPER = os.path.join(HERE, 'bgem3-tokenize.mjs')
SOURCE_TOKENIZER = os.path.join(HERE, '..', '..', 'tokenizer', 'src', 'test', 'resources', 'pipeline',
                                'unigram-xlmr-precompiled.tokenizer.json')
TRANSFORMERS_VERSION = '4.33.0'  # nominal: bge-m3's config.json names this version
KEEP_PIECES = 256  # the source vocabulary's first pieces kept (then every one-character piece)
SPECIALS = {'<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3}
UNUSED = (0, 2, 1, 3)  # cls_token_id, eos_token_id, pad_token_id, unk_token_id: removed from the lexical weights
README_WEIGHTS = (0.4, 0.2, 0.4)  # dense, sparse, colbert

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

# name: seed, hidden, heads, layers, intermediate, with pytorch_model.bin
CASES = {
    'bgem3': (300, 32, 4, 2, 64, False),
    'bgem3-bin': (305, 48, 3, 3, 96, True),
}

QUERIES = ['what is the license of this work?',
           'who may copy and distribute the program',
           'no warranty']
DOCUMENTS = ['This License applies to any program or other work under the terms of this License.',
             'You may copy the program and distribute the program.',
             'The work is provided without warranty \u20ac \u00bf \u6f22.',
             'warranty']
REPEATED = (1, '\u2581program')  # document 1 holds this token twice
UNKNOWN_DOC = 2


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def write_json(path, value, sort=True):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=sort, ensure_ascii=False) + '\n')


def compact_json(value, depth=0):
    """JSON with one space of indent a level, except that a list of scalars stays on one line."""
    pad = ' ' * (depth + 1)
    if isinstance(value, dict):
        items = ['%s%s: %s' % (pad, json.dumps(k, ensure_ascii=False), compact_json(v, depth + 1))
                 for k, v in value.items()]
        return '{\n' + ',\n'.join(items) + '\n' + ' ' * depth + '}'
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return '[\n' + ',\n'.join(pad + compact_json(v, depth + 1) for v in value) + '\n' + ' ' * depth + ']'
    return json.dumps(value, ensure_ascii=False)


def float32_text(x):
    """The shortest decimal that reads back as this float32."""
    return np.format_float_positional(np.float32(x), unique=True, trim='-') if abs(x) >= 1e-4 else \
        np.format_float_scientific(np.float32(x), unique=True, trim='-')


# ---------------------------------------------------------------------------------------------------- tokenizer

def build_tokenizer():
    """XLM-R's tokenizer.json layout with a small Unigram vocabulary: <s> <pad> </s> <unk> at 0..3 as fairseq's
    dictionary has them, the source's first KEEP_PIECES pieces with their scores, every other one-character piece of
    the source (so any text of those characters has a segmentation), <mask> last (lstrip, as XLM-R's)."""
    with open(SOURCE_TOKENIZER) as f:
        source = json.load(f)
    pieces = source['model']['vocab']
    check([p for p, _ in pieces[:4]] == list(SPECIALS) and pieces[-1][0] == '<mask>', 'source layout')
    body = pieces[4:-1]
    kept = body[:KEEP_PIECES] + [p for p in body[KEEP_PIECES:] if len(p[0]) == 1]
    vocab = pieces[:4] + kept + [['<mask>', 0.0]]
    tokenizer = dict(source)
    tokenizer['model'] = dict(source['model'], vocab=vocab)
    added = [dict(t) for t in source['added_tokens']]
    added[-1]['id'] = len(vocab) - 1
    tokenizer['added_tokens'] = added
    return tokenizer


def tokenizer_config(tokenizer):
    """As transformers writes it for an XLMRobertaTokenizer with model_max_length 8192 (bge-m3's limit; the hub's own
    tokenizer_config.json was not seen)."""
    decoder = {str(t['id']): {k: t[k] for k in ('content', 'lstrip', 'normalized', 'rstrip', 'single_word', 'special')}
               for t in tokenizer['added_tokens']}
    return {'added_tokens_decoder': decoder, 'bos_token': '<s>', 'clean_up_tokenization_spaces': True,
            'cls_token': '<s>', 'eos_token': '</s>', 'mask_token': '<mask>', 'model_max_length': 8192,
            'pad_token': '<pad>', 'sep_token': '</s>', 'sp_model_kwargs': {}, 'tokenizer_class': 'XLMRobertaTokenizer',
            'unk_token': '<unk>'}


def special_tokens_map():
    entry = lambda c, lstrip=False: {'content': c, 'lstrip': lstrip, 'normalized': False, 'rstrip': False,  # noqa
                                     'single_word': False}
    return {'bos_token': entry('<s>'), 'cls_token': entry('<s>'), 'eos_token': entry('</s>'),
            'mask_token': entry('<mask>', True), 'pad_token': entry('<pad>'), 'sep_token': entry('</s>'),
            'unk_token': entry('<unk>')}


def tokenize(tokenizer, scratch):
    path = os.path.join(scratch, 'tokenizer.json')
    with open(path, 'w') as f:
        f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
    saved = os.path.join(scratch, 'saved.json')
    request = {'file': path, 'save': saved,
               'batches': [{'name': 'queries', 'inputs': QUERIES}, {'name': 'documents', 'inputs': DOCUMENTS}]}
    proc = subprocess.run(['node', HELPER], input=json.dumps(request).encode(), capture_output=True)
    if proc.returncode != 0:
        sys.exit('bgem3-tokenize.mjs failed:\n' + proc.stderr.decode())
    answer = json.loads(proc.stdout)
    with open(saved) as f:
        theirs = json.load(f)
    for key in sorted(set(tokenizer) | set(theirs)):
        check(tokenizer.get(key) == theirs.get(key), 'the library wrote tokenizer.json "%s" back differently:\n%s\n%s'
              % (key, json.dumps(tokenizer.get(key))[:400], json.dumps(theirs.get(key))[:400]))
    vocab_size = len(tokenizer['model']['vocab'])
    check(answer['vocab_size'] == vocab_size, 'the library counts %d tokens, the vocabulary has %d'
          % (answer['vocab_size'], vocab_size))
    cases = []
    for b, texts in zip(answer['batches'], (QUERIES, DOCUMENTS)):
        for e in b['encodings']:
            check(all(0 <= i < vocab_size for i in e['ids']), 'an id is outside the vocabulary')
        cases.append({'name': b['name'], 'texts': texts, 'input_ids': [e['ids'] for e in b['encodings']],
                      'attention_mask': [e['attention_mask'] for e in b['encodings']],
                      'tokens': [e['tokens'] for e in b['encodings']]})
    doc, piece = REPEATED
    check(cases[1]['tokens'][doc].count(piece) == 2, 'document %d does not hold %s twice' % REPEATED)
    check(SPECIALS['<unk>'] in cases[1]['input_ids'][UNKNOWN_DOC], 'no <unk> in document %d' % UNKNOWN_DOC)
    real = lambda c: {i for row in c['input_ids'] for i in row if i not in UNUSED}  # noqa: E731
    check(len(real(cases[0]) & real(cases[1])) >= 3, 'queries and documents share too few ids')
    return cases


# ---------------------------------------------------------------------------------------------------- model

def make_config(hidden, heads, layers, intermediate, vocab_size):
    """BAAI/bge-m3's config.json keys, small sizes (bge-m3: 1024, 16, 24, 4096, max_position_embeddings 8194)."""
    return {'architectures': ['XLMRobertaModel'], 'attention_probs_dropout_prob': 0.1, 'bos_token_id': 0,
            'classifier_dropout': None, 'eos_token_id': 2, 'hidden_act': 'gelu', 'hidden_dropout_prob': 0.1,
            'hidden_size': hidden, 'initializer_range': 0.02, 'intermediate_size': intermediate,
            'layer_norm_eps': 1e-05, 'max_position_embeddings': 514, 'model_type': 'xlm-roberta',
            'num_attention_heads': heads, 'num_hidden_layers': layers, 'output_past': True, 'pad_token_id': 1,
            'position_embedding_type': 'absolute', 'torch_dtype': 'float32',
            'transformers_version': TRANSFORMERS_VERSION, 'type_vocab_size': 1, 'use_cache': True,
            'vocab_size': vocab_size}


def make_weights(config, seed):
    """XLMRobertaModel's state dict in its module order (no prefix, pooler included), then the two heads."""
    g = family.Weights(seed)
    h, i, pad = config['hidden_size'], config['intermediate_size'], config['pad_token_id']
    g.embedding('embeddings.word_embeddings', config['vocab_size'], h, padding_idx=pad)
    g.embedding('embeddings.position_embeddings', config['max_position_embeddings'], h, padding_idx=pad)
    g.embedding('embeddings.token_type_embeddings', config['type_vocab_size'], h)
    g.norm('embeddings.LayerNorm', h)
    for layer in range(config['num_hidden_layers']):
        q = 'encoder.layer.%d.' % layer
        for m in ('query', 'key', 'value'):
            g.linear(q + 'attention.self.' + m, h, h)
        g.linear(q + 'attention.output.dense', h, h)
        g.norm(q + 'attention.output.LayerNorm', h)
        g.linear(q + 'intermediate.dense', i, h)
        g.linear(q + 'output.dense', h, i)
        g.norm(q + 'output.LayerNorm', h)
    g.linear('pooler.dense', h, h)
    encoder = dict(g.w)
    g.w = {}
    g.linear('colbert_linear', h, h)
    g.linear('sparse_linear', 1, h)
    heads = {k: v for k, v in g.w.items()}
    return encoder, heads


def m3(config, encoder_w, heads_w, case):
    """bge-m3's outputs for one padded batch, float64."""
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    prefixed = {'roberta.' + k: v for k, v in encoder_w.items()}
    hidden = family.encoder('xlm-roberta', config, prefixed, ids, mask, torch.zeros_like(ids))
    w = {k: t.double() for k, t in heads_w.items()}
    # dense: BGEM3Model.dense_embedding 'cls', then torch.nn.functional.normalize(dim=-1)
    dense = torch.nn.functional.normalize(hidden[:, 0], dim=-1)
    # sparse: relu(sparse_linear(h)) per token
    weights = torch.relu(hidden @ w['sparse_linear.weight'].T + w['sparse_linear.bias']).squeeze(-1)
    # compute_score's vocabulary vector: scatter_reduce amax from zeros over every position, unused ids zeroed
    vector = torch.zeros(ids.shape[0], config['vocab_size']).scatter_reduce(-1, ids, weights, reduce='amax')
    vector[:, list(UNUSED)] *= 0.0
    # colbert: colbert_linear(h[:, 1:]) * mask[:, 1:], then normalize (a zero vector stays zero)
    colbert = hidden[:, 1:] @ w['colbert_linear.weight'].T + w['colbert_linear.bias']
    colbert = torch.nn.functional.normalize(colbert * mask[:, 1:, None].double(), dim=-1)
    out = {'last_hidden_state': hidden, 'dense_vecs': dense, 'sparse_weights': weights, 'sparse_embedding': vector,
           'colbert_vecs': colbert}
    lexical = []
    for r, row in enumerate(case['input_ids']):
        n = sum(case['attention_mask'][r])
        out['colbert_vecs.%d' % r] = colbert[r, :n - 1]
        lexical.append(lexical_weights(weights[r].tolist(), row))
    return out, lexical


def lexical_weights(token_weights, input_ids):
    """encode()'s _process_token_weights: over every position (pads included, their id is unused), skip the unused
    ids and weights <= 0, keep the max per id; keys are str(id) in first-occurrence order."""
    result = collections.OrderedDict()
    for weight, token in zip(token_weights, input_ids):
        if token not in UNUSED and weight > 0:
            key = str(token)
            if weight > result.get(key, 0):
                result[key] = weight
    return result


def lexical_score(a, b):
    return sum(weight * b[token] for token, weight in a.items() if token in b)


def colbert_score(q, p):
    """M3Embedder.colbert_score on encode()'s trimmed vectors: for each query vector the max dot over the document's
    vectors, summed, divided by the number of query vectors."""
    return (q @ p.T).max(dim=-1).values.sum() / q.shape[0]


def scores(queries, documents, q_lexical, d_lexical):
    nq, nd = queries['dense_vecs'].shape[0], documents['dense_vecs'].shape[0]
    dense = queries['dense_vecs'] @ documents['dense_vecs'].T
    sparse = torch.tensor([[lexical_score(q_lexical[i], d_lexical[j]) for j in range(nd)] for i in range(nq)])
    colbert = torch.stack([torch.stack([colbert_score(queries['colbert_vecs.%d' % i], documents['colbert_vecs.%d' % j])
                                        for j in range(nd)]) for i in range(nq)])
    wd, ws, wc = README_WEIGHTS
    return {'scores.dense': dense, 'scores.sparse': sparse, 'scores.colbert': colbert,
            'scores.sparse+dense': (sparse * ws + dense * wd) / (ws + wd),
            'scores.colbert+sparse+dense': (colbert * wc + sparse * ws + dense * wd) / (wc + ws + wd),
            'scores.colbert+sparse+dense.default': (colbert + sparse + dense) / 3}


# ---------------------------------------------------------------------------------------------------- self-checks

def check_rows_alone(config, encoder_w, heads_w, case, out, lexical):
    for r, row_mask in enumerate(case['attention_mask']):
        n = sum(row_mask)
        alone = {'input_ids': [case['input_ids'][r][:n]], 'attention_mask': [[1] * n]}
        mine, lex = m3(config, encoder_w, heads_w, alone)
        diffs = [(mine['last_hidden_state'][0] - out['last_hidden_state'][r, :n]).abs().max(),
                 (mine['sparse_weights'][0] - out['sparse_weights'][r, :n]).abs().max(),
                 (mine['colbert_vecs'][0] - out['colbert_vecs'][r, :n - 1]).abs().max(),
                 (mine['colbert_vecs.0'] - out['colbert_vecs.%d' % r]).abs().max(),
                 (mine['dense_vecs'][0] - out['dense_vecs'][r]).abs().max(),
                 (mine['sparse_embedding'][0] - out['sparse_embedding'][r]).abs().max()]
        diff = max(d.item() for d in diffs)
        check(diff < 1e-9, '%s row %d: alone and in the padded batch differ by %g' % (case['name'], r, diff))
        check(list(lex[0]) == list(lexical[r]) and all(abs(lex[0][k] - lexical[r][k]) < 1e-9 for k in lex[0]),
              '%s row %d: lexical weights alone and batched differ' % (case['name'], r))
        check((out['colbert_vecs'][r, n - 1:] == 0).all(), 'ColBERT vectors at pads are not zero')


def check_heads(case, out, lexical):
    hidden = out['last_hidden_state']
    cls = hidden[:, 0]
    dense = cls / torch.sqrt((cls * cls).sum(-1, keepdim=True))
    check((dense - out['dense_vecs']).abs().max() < 1e-12, 'dense normalisation')
    for r, lex in enumerate(lexical):
        vector = out['sparse_embedding'][r]
        nonzero = {str(i): vector[i].item() for i in torch.nonzero(vector).flatten().tolist()}
        check(sorted(nonzero) == sorted(lex) and all(abs(nonzero[k] - lex[k]) < 1e-15 for k in lex),
              '%s row %d: lexical dict and vocabulary vector differ' % (case['name'], r))
        n = sum(case['attention_mask'][r])
        rows = out['colbert_vecs.%d' % r]
        norms = torch.sqrt((rows * rows).sum(-1))
        check((norms - 1).abs().max() < 1e-12 and rows.shape[0] == n - 1, 'ColBERT vectors not unit or miscounted')


def check_scores(queries, documents, q_case, d_case, result):
    """The batched ColBERT score (compute_colbert_score: einsum over the padded batch outputs, max over every document
    position, pads' zero vectors included, sum over every query position, divided by q_mask[:, 1:].sum()) against
    the per-text score with each query vector's max floored at 0 for a document shorter than its batch (its zero
    pad vectors take part in the max); and the sparse score as the vocabulary vectors' dot product."""
    q_mask = torch.tensor(q_case['attention_mask'])
    token_scores = torch.einsum('qin,pjn->qipj', queries['colbert_vecs'], documents['colbert_vecs'])
    batched = token_scores.max(-1).values.sum(1) / q_mask[:, 1:].sum(-1, keepdim=True)
    width = len(d_case['input_ids'][0])
    floored = torch.zeros_like(batched)
    for i in range(batched.shape[0]):
        for j, row_mask in enumerate(d_case['attention_mask']):
            q, p = queries['colbert_vecs.%d' % i], documents['colbert_vecs.%d' % j]
            best = (q @ p.T).max(-1).values
            if sum(row_mask) < width:
                best = best.clamp(min=0.0)
            floored[i, j] = best.sum() / q.shape[0]
    check((batched - floored).abs().max() < 1e-12, 'batched ColBERT score is not the floored per-text score')
    sparse = queries['sparse_embedding'] @ documents['sparse_embedding'].T
    check((sparse - result['scores.sparse']).abs().max() < 1e-12, 'sparse score: dict and vector differ')
    return batched, (batched - result['scores.colbert']).abs().max().item()


def check_mistakes(heads_w, q_case, d_case, queries, documents, result):
    """Plausible misreadings each move a score matrix by more than 1e-3."""
    moved = []

    def with_specials(out, case):  # the lexical weights without removing <s> </s> <pad> <unk>
        rows = []
        for r, row in enumerate(case['input_ids']):
            result = {}
            for weight, token in zip(out['sparse_weights'][r].tolist(), row[:sum(case['attention_mask'][r])]):
                if weight > result.get(str(token), 0):
                    result[str(token)] = weight
            rows.append(result)
        return rows
    sparse = torch.tensor([[lexical_score(a, b) for b in with_specials(documents, d_case)]
                           for a in with_specials(queries, q_case)])
    moved.append(('specials kept in the lexical weights', (sparse - result['scores.sparse']).abs().max().item()))

    def mean_dense(case):
        mask = torch.tensor(case['attention_mask']).double()[:, :, None]
        h = (queries if case is q_case else documents)['last_hidden_state']
        return torch.nn.functional.normalize((h * mask).sum(1) / mask.sum(1), dim=-1)
    dense = mean_dense(q_case) @ mean_dense(d_case).T
    moved.append(('mean pooling', (dense - result['scores.dense']).abs().max().item()))
    w = {k: t.double() for k, t in heads_w.items()}

    def with_cls(out, case, r):
        n = sum(case['attention_mask'][r])
        v = out['last_hidden_state'][r, :n] @ w['colbert_linear.weight'].T + w['colbert_linear.bias']
        return torch.nn.functional.normalize(v, dim=-1)
    nq, nd = len(q_case['input_ids']), len(d_case['input_ids'])
    colbert = torch.tensor([[colbert_score(with_cls(queries, q_case, i), with_cls(documents, d_case, j)).item()
                             for j in range(nd)] for i in range(nq)])
    moved.append(('ColBERT with <s>', (colbert - result['scores.colbert']).abs().max().item()))
    colbert = torch.tensor([[((queries['colbert_vecs.%d' % i] @ documents['colbert_vecs.%d' % j].T).max(-1).values.sum()
                              / documents['colbert_vecs.%d' % j].shape[0]).item() for j in range(nd)]
                            for i in range(nq)])
    moved.append(('ColBERT / document count', (colbert - result['scores.colbert']).abs().max().item()))
    for what, d in moved:
        check(d > 1e-3, 'the fixture does not catch "%s" (moves %g)' % (what, d))
    return ['%s %.2g' % m for m in moved]


# ---------------------------------------------------------------------------------------------------- files

def save_torch(state, path):
    """torch.save, checked to write the same bytes twice (the zip's folder is the file's base name, so the second
    copy goes to another directory under the same name)."""
    torch.save(state, path)
    scratch = tempfile.mkdtemp(prefix='bgem3-save-')
    try:
        again = os.path.join(scratch, os.path.basename(path))
        torch.save(state, again)
        with open(path, 'rb') as f, open(again, 'rb') as g:
            check(f.read() == g.read(), 'torch.save wrote %s differently twice' % os.path.basename(path))
    finally:
        shutil.rmtree(scratch)
    loaded = torch.load(path)
    check(list(loaded) == list(state) and all(torch.equal(loaded[k], state[k]) for k in state),
          '%s does not load back' % os.path.basename(path))


def write_head(directory, name, w, as_flag_embedding):
    """name.pt by torch.save of nn.Linear's state dict (an OrderedDict with the _metadata attribute, which the pickle
    sets with BUILD), or, as_flag_embedding, the way FlagEmbedding's BGEM3Model.save writes it:
    type(state_dict)({k: v.clone().cpu()}), an OrderedDict without _metadata. Then the safetensors twin."""
    module = torch.nn.Linear(w[name + '.weight'].shape[1], w[name + '.weight'].shape[0]).float()
    module.load_state_dict({'weight': w[name + '.weight'], 'bias': w[name + '.bias']})
    state = module.state_dict()
    check(list(state) == ['weight', 'bias'] and hasattr(state, '_metadata'), 'nn.Linear state dict')
    if as_flag_embedding:
        state = type(state)({k: v.clone().cpu() for k, v in state.items()})
    save_torch(state, os.path.join(directory, name + '.pt'))
    write_safetensors(os.path.join(directory, name + '.safetensors'), dict(state), {'format': 'pt'})


def write_sentence_transformers(directory, config):
    """The hub repo's sentence-transformers files: Transformer, Pooling (CLS), Normalize."""
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'},
               {'idx': 2, 'name': '2', 'path': '2_Normalize', 'type': 'sentence_transformers.models.Normalize'}]
    write_json(os.path.join(directory, 'modules.json'), modules, sort=False)
    pooling = {'word_embedding_dimension': config['hidden_size'], 'pooling_mode_cls_token': True,
               'pooling_mode_mean_tokens': False, 'pooling_mode_max_tokens': False,
               'pooling_mode_mean_sqrt_len_tokens': False}
    os.makedirs(os.path.join(directory, '1_Pooling'))
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling, sort=False)
    write_json(os.path.join(directory, 'sentence_bert_config.json'), {'max_seq_length': 8192, 'do_lower_case': False},
               sort=False)
    st = {'__version__': {'sentence_transformers': '2.2.2', 'transformers': TRANSFORMERS_VERSION,  # nominal
                          'pytorch': '2.1.2+cu121'}}
    write_json(os.path.join(directory, 'config_sentence_transformers.json'), st, sort=False)


def lexical_json(all_lexical):
    lines = ['{']
    for c, (name, rows) in enumerate(all_lexical):
        lines.append(' %s: [' % json.dumps(name))
        for r, row in enumerate(rows):
            body = ', '.join('%s: %s' % (json.dumps(k), float32_text(v)) for k, v in row.items())
            lines.append('  {%s}%s' % (body, ',' if r + 1 < len(rows) else ''))
        lines.append(' ]%s' % (',' if c + 1 < len(all_lexical) else ''))
    lines.append('}')
    return '\n'.join(lines) + '\n'


# ---------------------------------------------------------------------------------------------------- main

def main():
    scratch = tempfile.mkdtemp(prefix='bgem3-fixtures-')
    try:
        tokenizer = build_tokenizer()
        q_case, d_case = tokenize(tokenizer, scratch)
    finally:
        shutil.rmtree(scratch)
    vocab_size = len(tokenizer['model']['vocab'])
    os.makedirs(OUT, exist_ok=True)
    summary = []
    for name, (seed, hidden, heads, layers, intermediate, with_bin) in CASES.items():
        config = make_config(hidden, heads, layers, intermediate, vocab_size)
        encoder_w, heads_w = make_weights(config, seed)
        expected, all_lexical, outs = {}, [], []
        with torch.no_grad():
            for i, case in enumerate((q_case, d_case)):
                out, lexical = m3(config, encoder_w, heads_w, case)
                prefixed = {'roberta.' + k: v for k, v in encoder_w.items()}
                family.check_against_torch_layers('xlm-roberta', config, prefixed, case, out['last_hidden_state'])
                check_rows_alone(config, encoder_w, heads_w, case, out, lexical)
                check_heads(case, out, lexical)
                for key, value in out.items():
                    expected['case%d.%s' % (i, key)] = value.float()
                all_lexical.append(('case%d' % i, lexical))
                outs.append(out)
            queries, documents = outs
            doc, piece = REPEATED
            at = [j for j, t in enumerate(d_case['tokens'][doc]) if t == piece]
            pair = documents['sparse_weights'][doc, at].tolist()
            check(min(pair) > 0 and abs(pair[0] - pair[1]) > 1e-3, 'the repeated token\'s weights %s' % pair)
            real = torch.tensor(d_case['attention_mask']).bool()
            check((documents['sparse_weights'][real] == 0).any(), 'no document token weight is exactly zero')
            result = scores(queries, documents, all_lexical[0][1], all_lexical[1][1])
            check((result['scores.sparse'] > 0).sum() >= 3, 'too few nonzero lexical scores')
            _, colbert_diff = check_scores(queries, documents, q_case, d_case, result)
            check(colbert_diff < 1e-12, 'a padded document\'s zero vectors won a ColBERT max (%g): the batched and '
                  'per-text scores differ, and only the per-text ones are written' % colbert_diff)
            notes = ['batched ColBERT = per-text (%.0e)' % colbert_diff]
            notes += check_mistakes(heads_w, q_case, d_case, queries, documents, result)
            for key, value in result.items():
                expected[key] = value.float()
        directory = os.path.join(OUT, name)
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(encoder_w.items())),
                          {'format': 'pt'})
        if with_bin:  # transformers 4.33 save_pretrained: shard_checkpoint copies the state dict into a plain dict
            save_torch(dict(encoder_w), os.path.join(directory, 'pytorch_model.bin'))
        write_head(directory, 'sparse_linear', heads_w, as_flag_embedding=with_bin)
        write_head(directory, 'colbert_linear', heads_w, as_flag_embedding=with_bin)
        with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
            f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
        write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(tokenizer))
        write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
        write_sentence_transformers(directory, config)
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            f.write(compact_json([q_case, d_case]) + '\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        with open(os.path.join(directory, 'expected_lexical_weights.json'), 'w') as f:
            f.write(lexical_json(all_lexical))
        summary.append('%-10s %s' % (name, '; '.join(notes)))
    print('\n'.join(summary))
    print('tokenizer: %d tokens; queries %s tokens, documents %s tokens'
          % (vocab_size, [sum(m) for m in q_case['attention_mask']], [sum(m) for m in d_case['attention_mask']]))
    print('wrote', len(CASES), 'cases to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
