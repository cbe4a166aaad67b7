#!/usr/bin/env python3
"""Random-weight Qwen3 checkpoints (Qwen3-Embedding-0.6B and Qwen3-Reranker-0.6B shapes) in Hugging Face's layout,
with independent reference outputs computed with PyTorch, and token ids from Hugging Face's tokenizers library.

The forward pass below is written with plain torch operations from the semantics of Hugging Face transformers'
models/qwen3/modeling_qwen3.py (Qwen3RMSNorm, Qwen3MLP, Qwen3RotaryEmbedding, rotate_half, apply_rotary_pos_emb,
repeat_kv, eager_attention_forward, Qwen3Attention, Qwen3DecoderLayer, Qwen3Model.forward, Qwen3ForCausalLM) and
configuration_qwen3.py, sentence-transformers' Transformer / Pooling (lasttoken) / Normalize modules and
Qwen3-Reranker-0.6B's model card; it shares no code with vectorbert, and transformers itself is not needed. The
token ids of every input come from the npm package "tokenizers" (the Rust library behind transformers' fast
tokenizers) through qwen3-tokenize.mjs, which loads the tokenizer.json written here, so the fixtures also pin
tokenizer parity. Regenerate everything (half a minute):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/qwen3-npm && (cd /tmp/qwen3-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/qwen3-npm/node_modules /usr/bin/python3 tools/torch-reference/make_qwen3_fixtures.py

(without NODE_PATH the helper falls back to tools/tokenizer-reference/node_modules, which `npm ci` there installs at
the same version). No arguments. Writes engine/src/test/resources/architectures/qwen3/<case>/ (the same bytes on
every run: numpy's legacy RandomState draws the weights and the long text, the BPE merges are learned by a
deterministic loop below, the reference is computed in float64 on one thread, then rounded to float32):

    config.json               the keys of Qwen/Qwen3-Embedding-0.6B's config.json (sorted, indent 2): head_dim given
                              explicitly (32, while hidden_size / num_attention_heads = 16), 4 query heads, 2
                              key/value heads, rope_theta 1000000, tie_word_embeddings true
    model.safetensors         float32, names sorted, __metadata__ {"format": "pt"}. qwen3-embedding: Qwen3Model's
                              state dict with no prefix (embed_tokens.weight, layers.N.*, norm.weight), as the hub's
                              Qwen3-Embedding-0.6B file; qwen3-reranker: Qwen3ForCausalLM's with "model." and no
                              lm_head.weight (tied to model.embed_tokens.weight, left out as save_pretrained does)
    model-0000N-of-00002.safetensors, model.safetensors.index.json
                              qwen3-embedding-bf16 only: the same weights rounded to bfloat16 (round to nearest
                              even), two shards, the index's metadata.total_size the bytes of tensor data
    tokenizer.json            a small byte-level BPE of Qwen2's kind (build_tokenizer; NOTES.md); the embedding
                              cases' post-processor appends <|endoftext|> (TemplateProcessing), the reranker's does not
    tokenizer_config.json     Qwen2Tokenizer's keys for this vocabulary, padding_side "left" in every case
    inputs.json               a list of cases: name, padding_side, texts, input_ids, attention_mask and the library's
                              tokens; prompt_name and prompt where a prompt is prepended (the ids are those of
                              prompt + text); the reranker's cases also instruction, pairs, prefix, suffix, yes_id, no_id
    expected.safetensors      caseN.<output> in float32:
                                last_hidden_state [n, len, hidden]     after the final norm; 0 at padded positions
                                sentence_embedding [n, hidden]         last-token pooling, L2-normalised (embedding)
                                sentence_embedding_32, _16 [n, 32|16]  Matryoshka: the pooled vector cut, then
                                                                       normalised (embedding)
                                last_logits [n, vocab]                 lm_head at the last position (reranker)
                                yes_logit, no_logit, score [n]         score = softmax([no, yes])[1] (reranker)
    modules.json, config_sentence_transformers.json, sentence_bert_config.json, 1_Pooling/config.json
                              the two embedding directories

Numbers follow transformers where it fixes them in float32: Qwen3RotaryEmbedding computes inv_freq = 1 / theta **
(float32(2i) / d) in float32 and the angle as one float32 product inv_freq * float32(position); the fixtures use those
float32 angles (cos and sin in float64 of them). position_ids are 0..len-1 for every row of a batch whatever its
padding (Qwen3Model.forward takes cache_position when no position_ids are given, and sentence-transformers passes
only input_ids and attention_mask), so a left-padded row's real tokens sit at positions pad..len-1; rotary scores
depend only on i - j, so this changes the outputs only by the float32 angle rounding (printed; NOTES.md).

Weight scale as in make_family_fixtures.py: embeddings std 0.02 (no zero row: Qwen3 has no padding_idx, and the pad
token <|endoftext|> is the token that is pooled), Linear weights std 1/sqrt(fan_in), RMSNorm weights 1 + std 0.1
(input_layernorm, post_attention_layernorm, q_norm, k_norm, norm). No biases (attention_bias false; the MLP has none).

Self-checks run before a case is written (the script stops on the first failure):
  tokenizer  the library's byte alphabet is the 256 characters used here; the library writes back (Tokenizer.save)
             the tokenizer.json it loaded unchanged; every id is below vocab_size and the library's vocabulary size
             is the number of ids; every embedding input ends with <|endoftext|> (a pair holds it once, at the end,
             type ids all 0) and no reranker input does; the two files share one BPE; "yes" and
             "no" are single tokens; <think> / </think> and <|im_start|> / <|im_end|> are matched as added tokens;
             NFD input gives NFC's ids; the long text is 280-300 tokens
  forward    for every case: a second decoder written differently (unpadded, one sequence at a time, an explicit
             loop over query heads picking key/value head h // groups, rotary as a complex rotation, -inf masking,
             hand-written RMSNorm and SiLU) agrees to 1e-9 at real positions (with the positions the batch gives
             that row); each row run alone equals its rows of the padded batch at its real positions (1e-9); the
             left- and right-padded batches agree at real positions (float32 angles: < 1e-5; float64 angles: 1e-9);
             pooling, Matryoshka cuts, normalisation, lm_head and the score recomputed with numpy agree (1e-9)
  causal     changing the last real token of a row leaves every earlier position's state bit-identical
  mistakes   on qwen3-embedding, each of these moves the outputs by more than 1e-3: no q_norm/k_norm, interleaved
             (GPT-J) rotary, bidirectional attention, k/v heads tiled (repeat) instead of repeat_interleave, rope_theta
             10000, head-shared norm applied over all heads together
  bf16       the shards read back give the bf16-rounded weights bit for bit, and their union is the float32 file's
             names; the bf16 outputs differ from the float32 ones (so the case is not a copy)
"""
import collections
import json
import os
import re
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
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'qwen3')
HELPER = os.path.join(HERE, 'qwen3-tokenize.mjs')
TRANSFORMERS_VERSION = '4.51.3'  # nominal: the hub's Qwen3-Embedding-0.6B files name this version

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
    """One call of qwen3-tokenize.mjs."""
    proc = subprocess.run(['node', HELPER], input=json.dumps(request).encode(), capture_output=True)
    if proc.returncode != 0:
        sys.exit('qwen3-tokenize.mjs failed:\n' + proc.stderr.decode())
    return json.loads(proc.stdout)


def byte_alphabet():
    """GPT-2's bytes_to_unicode characters, indexed by byte value."""
    printable = list(range(ord('!'), ord('~') + 1)) + list(range(ord('\xa1'), ord('\xac') + 1)) \
        + list(range(ord('\xae'), ord('\xff') + 1))
    table, n = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return [table[b] for b in range(256)]


# Qwen2's pre-tokenizer regex (Qwen2TokenizerFast / the hub's tokenizer.json Split pattern).
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"
                 r"\s+(?!\S)|\s+")
# An ASCII approximation of it, only to cut the training corpus into words for learning merges (the ids themselves
# come from the library with the real pattern).
TRAIN_PATTERN = re.compile(r"'s|'t|'re|'ve|'m|'ll|'d|[^\r\n A-Za-z0-9]?[A-Za-z]+| ?[A-Za-z]+|[0-9]| ?[^\sA-Za-z0-9]+"
                           r"[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

CORPUS = [
    "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:",
    "Judge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the "
    "answer can only be \"yes\" or \"no\".",
    "<Instruct>: Given a web search query, retrieve relevant passages that answer the query\n<Query>: \n<Document>: ",
    "system\nuser\nassistant\n\n\n\n yes no yes no yes no",
    "The capital of China is Beijing. The capital of France is Paris, and the capital of Italy is Rome.",
    "Gravity is a force that attracts two bodies towards each other. It gives weight to physical objects and is "
    "responsible for the movement of planets around the sun.",
    "A decoder reads the tokens from left to right, and each token only sees the tokens before it. The last token "
    "has seen the whole text, so its state is used as the embedding of the text.",
    "Rotary positions turn each query and key by an angle that grows with the position, so the score between two "
    "tokens depends on how far apart they are. Grouped query attention shares each key and value head between "
    "several query heads.",
    "What is the capital of China? Explain gravity. How do rotary positions work in a model?",
]
N_MERGES = 150


def learn_merges(words, count):
    """Byte-level BPE merges learned by the textbook loop: the most frequent adjacent pair (weighted by word
    frequency) is merged, ties broken by the smallest pair in string order; deterministic."""
    freq = collections.Counter(words)
    split = {w: list(w) for w in freq}
    merges = []
    for _ in range(count):
        pairs = collections.Counter()
        for w, n in freq.items():
            s = split[w]
            for i in range(len(s) - 1):
                pairs[(s[i], s[i + 1])] += n
        if not pairs:
            break
        top = max(pairs.values())
        best = min(p for p, n in pairs.items() if n == top)
        merges.append(best)
        a, b = best
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


def added(token_id, content, special):
    """An added_tokens entry as Qwen2's tokenizer.json has them: never normalized, no strip, not single_word."""
    return {'id': token_id, 'content': content, 'single_word': False, 'lstrip': False, 'rstrip': False,
            'normalized': False, 'special': special}


ADDED = [('<|endoftext|>', True), ('<|im_start|>', True), ('<|im_end|>', True), ('<think>', False),
         ('</think>', False)]


def build_tokenizer(append_eos):
    """Qwen2's tokenizer.json layout with a small vocabulary: the 256 byte characters (in byte order, as Qwen2's
    vocab.json starts with them: "!" is 0), the merges' tokens (and "yes" / "no" forced to single tokens), then the
    added tokens <|endoftext|> <|im_start|> <|im_end|> (special) and <think> </think> (not special), in the hub's
    order. append_eos: Qwen3-Embedding's post-processor, a Sequence of ByteLevel and a TemplateProcessing that
    appends <|endoftext|> (single "$A:0 <|endoftext|>:0", pair "$A:0 $B:0 <|endoftext|>:0"), and merges written as
    [a, b] lists, as the hub's current file has them; otherwise Qwen2's ByteLevel post-processor and "a b" merges
    (Qwen3-Reranker's file was not given the template)."""
    alphabet = byte_alphabet()
    check(sorted(alphabet) == sorted(node({'op': 'alphabet'})['alphabet']),
          "the library's ByteLevel alphabet is not GPT-2's bytes_to_unicode")
    words = []
    for text in CORPUS:
        for w in TRAIN_PATTERN.findall(text):
            words.append(''.join(alphabet[b] for b in w.encode('utf-8')))
    merges = learn_merges(words, N_MERGES)
    vocab = {}
    for c in alphabet:
        vocab[c] = len(vocab)
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    for word in ('yes', 'no'):  # left-to-right merges up to the whole word, where the learned ones stop short
        for end in range(2, len(word) + 1):
            if word[:end] not in vocab:
                merges.append((word[:end - 1], word[end - 1]))
                vocab[word[:end]] = len(vocab)
    tokens = []
    for content, special in ADDED:
        vocab_id = len(vocab) + len(tokens)
        tokens.append(added(vocab_id, content, special))
    eos = tokens[0]['id']
    byte_level = {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': False, 'use_regex': False}
    if append_eos:
        post = {'type': 'Sequence', 'processors': [dict(byte_level), {
            'type': 'TemplateProcessing',
            'single': [{'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '<|endoftext|>', 'type_id': 0}}],
            'pair': [{'Sequence': {'id': 'A', 'type_id': 0}}, {'Sequence': {'id': 'B', 'type_id': 0}},
                     {'SpecialToken': {'id': '<|endoftext|>', 'type_id': 0}}],
            'special_tokens': {'<|endoftext|>': {'id': '<|endoftext|>', 'ids': [eos], 'tokens': ['<|endoftext|>']}}}]}
    else:
        post = dict(byte_level)
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': tokens,
        'normalizer': {'type': 'NFC'},
        'pre_tokenizer': {'type': 'Sequence', 'pretokenizers': [
            {'type': 'Split', 'pattern': {'Regex': QWEN2_PATTERN}, 'behavior': 'Isolated', 'invert': False},
            dict(byte_level)]},
        'post_processor': post,
        'decoder': dict(byte_level),
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': '',
                  'end_of_word_suffix': '', 'fuse_unk': False, 'byte_fallback': False, 'ignore_merges': False,
                  'vocab': vocab,
                  'merges': [list(m) for m in merges] if append_eos else ['%s %s' % m for m in merges]},
    }


def vocab_size_of(tokenizer):
    return len(tokenizer['model']['vocab']) + len(tokenizer['added_tokens'])


def tokenizer_config(tokenizer):
    """tokenizer_config.json with Qwen3-Embedding-0.6B's keys (Qwen2Tokenizer, eos <|im_end|>, pad <|endoftext|>,
    bos null, padding_side left, model_max_length 131072; the chat template is left out)."""
    decoder = {str(t['id']): {k: t[k] for k in ('content', 'lstrip', 'normalized', 'rstrip', 'single_word',
                                                  'special')} for t in tokenizer['added_tokens']}
    return {'add_bos_token': False, 'add_prefix_space': False, 'added_tokens_decoder': decoder,
            'additional_special_tokens': ['<|im_start|>', '<|im_end|>'], 'bos_token': None,
            'clean_up_tokenization_spaces': False, 'eos_token': '<|im_end|>', 'errors': 'replace',
            'extra_special_tokens': {}, 'model_max_length': 131072, 'pad_token': '<|endoftext|>',
            'padding_side': 'left', 'split_special_tokens': False, 'tokenizer_class': 'Qwen2Tokenizer',
            'unk_token': None}


def check_roundtrip(mine, saved_path):
    """The library writes back what it read (up to the merges' spelling: it writes [a, b] pairs)."""
    with open(saved_path) as f:
        theirs = json.load(f)
    if mine['model']['merges'] and isinstance(mine['model']['merges'][0], str):
        theirs['model']['merges'] = [' '.join(m) if isinstance(m, list) else m for m in theirs['model']['merges']]
    for key in sorted(set(mine) | set(theirs)):
        check(mine.get(key) == theirs.get(key), 'the library wrote tokenizer.json "%s" back differently:\n%s\n%s'
              % (key, json.dumps(mine.get(key))[:400], json.dumps(theirs.get(key))[:400]))


# ---------------------------------------------------------------------------------------------------- texts

QUERY_PROMPT = 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:'
PROMPTS = {'query': QUERY_PROMPT, 'document': ''}
PLAIN_TEXTS = ['The capital of China is Beijing.',
               'Gravity is a force that attracts two bodies towards each other, caf\u0065\u0301 <think>',
               'Explain gravity.']
QUERIES = ['What is the capital of China?', 'Explain gravity to me, please']
DOCUMENTS = ['The capital of China is Beijing.',
             'Gravity is a force that attracts two bodies towards each other. It gives weight to physical objects '
             'and is responsible for the movement of planets around the sun.']
PAIRS = [['What is the capital of China?', 'The capital of China is Beijing.'], ['Explain gravity', 'Gravity.']]
RERANK_INSTRUCTION = 'Given a web search query, retrieve relevant passages that answer the query'
RERANK_PREFIX = ('<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the '
                 'Instruct provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n')
RERANK_SUFFIX = '<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n'
RERANK_PAIRS = [['What is the capital of China?', 'The capital of China is Beijing.'],
                ['What is the capital of China?', 'Gravity is a force that attracts two bodies towards each other.'],
                ['Explain gravity', 'Gravity is a force that attracts two bodies towards each other. It gives weight '
                                    'to physical objects and is responsible for the movement of planets around the '
                                    'sun.']]
LONG_WORDS = ('the a of and to in is that it for on with as at by from this be are was model token text query key '
              'value score attention head rotary angle long short capital China Beijing France Paris gravity force '
              'bodies planets sun weight decoder last state position').split()


def rerank_body(query, doc, instruction=RERANK_INSTRUCTION):
    """format_instruction of Qwen3-Reranker-0.6B's model card."""
    return '<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {doc}'.format(instruction=instruction,
                                                                                 query=query, doc=doc)


def long_text(target):
    """Seeded English-like text cut after the last sentence that keeps it at most target tokens (by a first
    encoding's offsets)."""
    rng = np.random.RandomState(11)
    words = []
    while len(words) < target:
        n = int(rng.randint(5, 14))
        sentence = [str(LONG_WORDS[int(rng.randint(0, len(LONG_WORDS)))]) for _ in range(n)]
        if rng.rand() < 0.3:
            sentence[int(rng.randint(1, n))] += ','
        if rng.rand() < 0.2:
            sentence.insert(int(rng.randint(1, n)), str(int(rng.randint(1, 5000))))
        sentence[0] = sentence[0].capitalize()
        sentence[-1] += '.'
        words.extend(sentence)
    return ' '.join(words)


# ---------------------------------------------------------------------------------------------------- model

def make_config(architecture, tokenizer, dtype):
    """config.json with the keys of Qwen/Qwen3-Embedding-0.6B's (which names Qwen3ForCausalLM although its tensors
    are Qwen3Model's, unprefixed); small sizes."""
    vocab_size = vocab_size_of(tokenizer)
    ids = {t['content']: t['id'] for t in tokenizer['added_tokens']}
    return {
        'architectures': [architecture], 'attention_bias': False, 'attention_dropout': 0.0,
        'bos_token_id': ids['<|endoftext|>'],
        'eos_token_id': ids['<|endoftext|>'] if architecture == 'embedding' else ids['<|im_end|>'],
        'head_dim': 32, 'hidden_act': 'silu', 'hidden_size': 64, 'initializer_range': 0.02,
        'intermediate_size': 96, 'max_position_embeddings': 32768, 'max_window_layers': 3, 'model_type': 'qwen3',
        'num_attention_heads': 4, 'num_hidden_layers': 3, 'num_key_value_heads': 2, 'rms_norm_eps': 1e-06,
        'rope_scaling': None, 'rope_theta': 1000000, 'sliding_window': None, 'tie_word_embeddings': True,
        'torch_dtype': dtype, 'transformers_version': TRANSFORMERS_VERSION, 'use_cache': True,
        'use_sliding_window': False, 'vocab_size': vocab_size}


def make_weights(config, seed, prefix):
    """Weights in Qwen3Model's parameter order, drawn from one RandomState, kept as float32 values."""
    rng = np.random.RandomState(seed)
    h, inter, d = config['hidden_size'], config['intermediate_size'], config['head_dim']
    nq, nkv = config['num_attention_heads'], config['num_key_value_heads']
    w = {}

    def linear(name, out_features, in_features):
        w[name] = rng.normal(0.0, 1.0 / np.sqrt(in_features), (out_features, in_features))

    def norm(name, size):
        w[name] = 1.0 + rng.normal(0.0, 0.1, size)

    w[prefix + 'embed_tokens.weight'] = rng.normal(0.0, 0.02, (config['vocab_size'], h))
    for i in range(config['num_hidden_layers']):
        p = '%slayers.%d.' % (prefix, i)
        linear(p + 'self_attn.q_proj.weight', nq * d, h)
        linear(p + 'self_attn.k_proj.weight', nkv * d, h)
        linear(p + 'self_attn.v_proj.weight', nkv * d, h)
        linear(p + 'self_attn.o_proj.weight', h, nq * d)
        norm(p + 'self_attn.q_norm.weight', d)
        norm(p + 'self_attn.k_norm.weight', d)
        linear(p + 'mlp.gate_proj.weight', inter, h)
        linear(p + 'mlp.up_proj.weight', inter, h)
        linear(p + 'mlp.down_proj.weight', h, inter)
        norm(p + 'input_layernorm.weight', h)
        norm(p + 'post_attention_layernorm.weight', h)
    norm(prefix + 'norm.weight', h)
    return {k: torch.from_numpy(v.astype(np.float32)) for k, v in w.items()}


def to_bf16(w):
    """Round to bfloat16 (nearest even, as torch's .to(torch.bfloat16)) and widen back to float32."""
    return {k: v.to(torch.bfloat16).to(torch.float32) for k, v in w.items()}


def float32_angles(theta, dim, positions):
    """Qwen3RotaryEmbedding in float32: inv_freq = 1 / theta ** (arange(0, d, 2).float() / d), angle = inv_freq *
    float(position) as one float32 product; returned [n, len, d] (cat(f, f)) as float64."""
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float32) / dim))
    angle = positions.to(torch.float32)[..., None] * inv.to(torch.float32)
    return torch.cat([angle, angle], dim=-1).to(torch.float64)


def float64_angles(theta, dim, positions):
    inv = 1.0 / (float(theta) ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    angle = positions.to(torch.float64)[..., None] * inv
    return torch.cat([angle, angle], dim=-1)


rope_angles = float32_angles


def rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def forward(config, w, prefix, ids, mask, positions=None, variant=()):
    """Qwen3Model.forward (eager attention) for a padded batch: returns last_hidden_state [n, len, h] in float64 with
    zeros at padded positions. positions default to 0..len-1 on every row, as transformers' cache_position."""
    ids = torch.as_tensor(ids)
    mask = torch.as_tensor(mask).bool()
    n, length = ids.shape
    h, d = config['hidden_size'], config['head_dim']
    nq, nkv = config['num_attention_heads'], config['num_key_value_heads']
    groups = nq // nkv
    eps = config['rms_norm_eps']
    W = {k: v.double() for k, v in w.items()}
    if positions is None:
        positions = torch.arange(length).expand(n, length)
    theta = 10000 if 'theta-10000' in variant else config['rope_theta']
    angle = rope_angles(theta, d, positions)[:, None]  # [n, 1, len, d]
    cos, sin = angle.cos(), angle.sin()
    causal = torch.tril(torch.ones(length, length, dtype=torch.bool))
    if 'bidirectional' in variant:
        causal = torch.ones(length, length, dtype=torch.bool)
    allowed = causal[None, None] & mask[:, None, None, :]
    x = W[prefix + 'embed_tokens.weight'][ids]
    for i in range(config['num_hidden_layers']):
        p = '%slayers.%d.' % (prefix, i)
        a = rms_norm(x, W[p + 'input_layernorm.weight'], eps)
        q = (a @ W[p + 'self_attn.q_proj.weight'].T).view(n, length, nq, d)
        k = (a @ W[p + 'self_attn.k_proj.weight'].T).view(n, length, nkv, d)
        v = (a @ W[p + 'self_attn.v_proj.weight'].T).view(n, length, nkv, d).transpose(1, 2)
        if 'norm-all-heads' in variant:
            q = rms_norm(q.reshape(n, length, nq * d), W[p + 'self_attn.q_norm.weight'].repeat(nq), eps) \
                .view(n, length, nq, d)
            k = rms_norm(k.reshape(n, length, nkv * d), W[p + 'self_attn.k_norm.weight'].repeat(nkv), eps) \
                .view(n, length, nkv, d)
        elif 'no-qk-norm' not in variant:
            q = rms_norm(q, W[p + 'self_attn.q_norm.weight'], eps)
            k = rms_norm(k, W[p + 'self_attn.k_norm.weight'], eps)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        if 'interleaved-rope' in variant:
            def rot(t):
                pair = t.view(*t.shape[:-1], d // 2, 2)
                c, s = cos[..., :d // 2], sin[..., :d // 2]
                return torch.stack([pair[..., 0] * c - pair[..., 1] * s, pair[..., 0] * s + pair[..., 1] * c],
                                   -1).flatten(-2)
            q, k = rot(q), rot(k)
        else:
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
        if 'tile-kv' in variant:
            k, v = k.repeat(1, groups, 1, 1), v.repeat(1, groups, 1, 1)
        else:
            k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
        scores = (q @ k.transpose(-1, -2)) * d ** -0.5
        scores = scores.masked_fill(~allowed, float('-inf'))
        dead = ~allowed.any(-1, keepdim=True)  # left-padded queries see no key: no row to normalise
        probs = torch.softmax(scores.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
        out = (probs @ v).transpose(1, 2).reshape(n, length, nq * d)
        x = x + out @ W[p + 'self_attn.o_proj.weight'].T
        m = rms_norm(x, W[p + 'post_attention_layernorm.weight'], eps)
        gate = m @ W[p + 'mlp.gate_proj.weight'].T
        x = x + (torch.nn.functional.silu(gate) * (m @ W[p + 'mlp.up_proj.weight'].T)) \
            @ W[p + 'mlp.down_proj.weight'].T
    x = rms_norm(x, W[prefix + 'norm.weight'], eps)
    return x * mask[..., None]


def forward_unpadded(config, w, prefix, ids, positions):
    """The same decoder written again for one unpadded sequence: numpy-free loops over query heads, each picking its
    key/value head h // groups, rotary as a complex rotation, RMSNorm as x / sqrt(mean + eps), SiLU as x / (1 +
    e^-x)."""
    ids = torch.as_tensor(ids)
    length = len(ids)
    h, d = config['hidden_size'], config['head_dim']
    nq, nkv = config['num_attention_heads'], config['num_key_value_heads']
    groups = nq // nkv
    eps = config['rms_norm_eps']
    W = {k: v.double() for k, v in w.items()}

    def norm(t, weight):
        return weight * (t / torch.sqrt((t * t).sum(-1, keepdim=True) / t.shape[-1] + eps))

    angle = rope_angles(config['rope_theta'], d, torch.as_tensor(positions)[None])[0, :, :d // 2]  # [len, d/2]
    turn = torch.polar(torch.ones_like(angle), angle)

    def rotary(t):  # t [len, d]: pairs (i, i + d/2) as complex numbers
        z = torch.complex(t[:, :d // 2], t[:, d // 2:]) * turn
        return torch.cat([z.real, z.imag], dim=-1)

    future = torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)
    x = W[prefix + 'embed_tokens.weight'][ids]
    for i in range(config['num_hidden_layers']):
        p = '%slayers.%d.' % (prefix, i)
        a = norm(x, W[p + 'input_layernorm.weight'])
        wq, wk, wv = (W[p + 'self_attn.%s_proj.weight' % s] for s in 'qkv')
        heads = []
        for head in range(nq):
            kv = head // groups
            q = rotary(norm(a @ wq[head * d:(head + 1) * d].T, W[p + 'self_attn.q_norm.weight']))
            k = rotary(norm(a @ wk[kv * d:(kv + 1) * d].T, W[p + 'self_attn.k_norm.weight']))
            v = a @ wv[kv * d:(kv + 1) * d].T
            s = (q @ k.T) / np.sqrt(d)
            s = s.masked_fill(future, float('-inf'))
            e = torch.exp(s - s.max(-1, keepdim=True).values)
            heads.append((e / e.sum(-1, keepdim=True)) @ v)
        x = x + torch.cat(heads, dim=-1) @ W[p + 'self_attn.o_proj.weight'].T
        m = norm(x, W[p + 'post_attention_layernorm.weight'])
        g = m @ W[p + 'mlp.gate_proj.weight'].T
        x = x + ((g / (1.0 + torch.exp(-g))) * (m @ W[p + 'mlp.up_proj.weight'].T)) @ W[p + 'mlp.down_proj.weight'].T
    return norm(x, W[prefix + 'norm.weight'])


# ---------------------------------------------------------------------------------------------------- heads

def last_token_pool(hidden, mask):
    """sentence-transformers' Pooling lasttoken: the last real token of each row (position len-1 when the batch is
    left-padded, sum(mask) - 1 when right-padded)."""
    mask = torch.as_tensor(mask)
    last = torch.tensor([int(np.nonzero(np.array(m))[0][-1]) for m in mask.tolist()])
    return hidden[torch.arange(hidden.shape[0]), last]


def normalize(x):
    return x / x.norm(dim=-1, keepdim=True).clamp_min(1e-12)


def embedding_outputs(hidden, mask):
    pooled = last_token_pool(hidden, mask)
    return {'last_hidden_state': hidden, 'sentence_embedding': normalize(pooled),
            'sentence_embedding_32': normalize(pooled[:, :32]), 'sentence_embedding_16': normalize(pooled[:, :16])}


def reranker_outputs(hidden, embed, yes_id, no_id):
    """Qwen3ForCausalLM logits at the last position (tied lm_head), the model card's score."""
    logits = hidden[:, -1] @ embed.double().T
    pair = torch.stack([logits[:, no_id], logits[:, yes_id]], dim=1)
    score = torch.log_softmax(pair, dim=1).exp()[:, 1]
    return {'last_hidden_state': hidden, 'last_logits': logits, 'yes_logit': logits[:, yes_id],
            'no_logit': logits[:, no_id], 'score': score}


def check_heads(kind, outputs, case, embed=None):
    """The heads once more with numpy, from last_hidden_state."""
    hidden = outputs['last_hidden_state'].numpy()
    worst = 0.0
    for r, m in enumerate(case['attention_mask']):
        real = hidden[r][np.array(m) > 0]
        if kind == 'embedding':
            if case['padding_side'] == 'left':
                check(m[-1] == 1, 'a left-padded row does not end with a real token')
            last = real[-1]
            for key, cut in (('sentence_embedding', 64), ('sentence_embedding_32', 32),
                             ('sentence_embedding_16', 16)):
                v = last[:cut] / np.sqrt((last[:cut] ** 2).sum())
                worst = max(worst, float(np.abs(v - outputs[key][r].numpy()).max()))
        else:
            logits = hidden[r][-1] @ embed.double().numpy().T
            yes, no = logits[case['yes_id']], logits[case['no_id']]
            score = np.exp(yes) / (np.exp(yes) + np.exp(no))
            worst = max(worst, abs(score - float(outputs['score'][r])),
                        float(np.abs(logits - outputs['last_logits'][r].numpy()).max()))
    check(worst < 1e-9, '%s %s: the heads recomputed differ by %g' % (kind, case['name'], worst))


# ---------------------------------------------------------------------------------------------------- checks

def positions_of(case):
    length = len(case['input_ids'][0])
    return torch.arange(length).expand(len(case['input_ids']), length)


def check_case(config, w, prefix, case, hidden):
    """Unpadded second implementation, each row alone, causality."""
    worst = 0.0
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    for r in range(len(ids)):
        real = mask[r].bool()
        row_ids = ids[r][real]
        pos = torch.arange(len(ids[r]))[real]
        other = forward_unpadded(config, w, prefix, row_ids, pos)
        worst = max(worst, (other - hidden[r][real]).abs().max().item())
        alone = forward(config, w, prefix, row_ids[None], torch.ones(1, len(row_ids), dtype=torch.long),
                        positions=pos[None])
        diff = (alone[0] - hidden[r][real]).abs().max().item()
        check(diff < 1e-9, '%s row %d: alone and in the padded batch differ by %g' % (case['name'], r, diff))
        changed = row_ids.clone()
        changed[-1] = (changed[-1] + 7) % config['vocab_size']
        after = forward(config, w, prefix, changed[None], torch.ones(1, len(row_ids), dtype=torch.long),
                        positions=pos[None])
        check(torch.equal(after[0, :-1], alone[0, :-1]) and not torch.equal(after[0, -1], alone[0, -1]),
              '%s row %d: changing the last token changed an earlier state' % (case['name'], r))
    check(worst < 1e-9, '%s: the unpadded implementation differs by %g' % (case['name'], worst))
    return worst


def check_sides(config, w, prefix, left, right):
    """The left- and right-padded batches of the same texts agree at real positions."""
    global rope_angles
    worst = {}
    for name, angles in (('float32', float32_angles), ('float64', float64_angles)):
        rope_angles = angles
        try:
            a = forward(config, w, prefix, left['input_ids'], left['attention_mask'])
            b = forward(config, w, prefix, right['input_ids'], right['attention_mask'])
        finally:
            rope_angles = float32_angles
        diff = 0.0
        for r in range(a.shape[0]):
            x = a[r][torch.tensor(left['attention_mask'][r]).bool()]
            y = b[r][torch.tensor(right['attention_mask'][r]).bool()]
            diff = max(diff, (x - y).abs().max().item())
        worst[name] = diff
    check(worst['float64'] < 1e-9, 'left and right padding differ by %g with float64 angles' % worst['float64'])
    check(worst['float32'] < 1e-5, 'left and right padding differ by %g with float32 angles' % worst['float32'])
    return worst


def check_mistakes(config, w, prefix, cases):
    report = []
    for variant in ('no-qk-norm', 'interleaved-rope', 'bidirectional', 'tile-kv', 'theta-10000', 'norm-all-heads'):
        worst = 0.0
        for case in cases:
            real = torch.tensor(case['attention_mask']).bool()
            good = forward(config, w, prefix, case['input_ids'], case['attention_mask'])
            bad = forward(config, w, prefix, case['input_ids'], case['attention_mask'], variant=(variant,))
            worst = max(worst, (good[real] - bad[real]).abs().max().item())
        check(worst > 1e-3, 'the fixture does not see the mistake %s (outputs move by %g)' % (variant, worst))
        report.append('%s %.2g' % (variant, worst))
    return report


def check_tokens(enc, tokenizer_embed, tokenizer_rerank, long_len):
    ids = {t['content']: t['id'] for t in tokenizer_embed['added_tokens']}
    vocab = tokenizer_embed['model']['vocab']
    size = vocab_size_of(tokenizer_embed)
    for name, encodings in enc.items():
        for e in encodings:
            check(all(0 <= i < size for i in e['ids']), 'an id is outside the vocabulary')
            real = [i for i, m in zip(e['ids'], e['attention_mask']) if m]
            if name.startswith('rerank'):
                check(real[-1] != ids['<|endoftext|>'], 'a reranker input ends with <|endoftext|>')
                for t in ('<|im_start|>', '<|im_end|>', '<think>', '</think>'):
                    check(ids[t] in real, '%s is not matched' % t)
            else:
                check(real[-1] == ids['<|endoftext|>'], 'an embedding input does not end with <|endoftext|>')
    check('yes' in vocab and 'no' in vocab, '"yes" / "no" are not single tokens')
    check(ids['<think>'] in enc['plain-left'][1]['ids'], '<think> is not matched in a plain text')
    nfd = enc['plain-left'][1]
    check([i for i, m in zip(nfd['ids'], nfd['attention_mask']) if m] == enc['plain-nfc'][0]['ids'],
          'NFD and NFC input give different ids')
    check(280 <= long_len <= 300, 'the long input has %d tokens' % long_len)
    check(tokenizer_rerank['model']['vocab'] == vocab and tokenizer_rerank['model']['merges']
          == [' '.join(m) for m in tokenizer_embed['model']['merges']], 'the two tokenizers have different BPEs')
    for e in enc['pair']:
        real = [i for i, m in zip(e['ids'], e['attention_mask']) if m]
        check(real.count(ids['<|endoftext|>']) == 1 and set(e['type_ids']) == {0},
              'a pair is not "$A $B <|endoftext|>" with type ids 0')


# ---------------------------------------------------------------------------------------------------- output

def write_bf16_shards(directory, w):
    """The bf16 weights in two shards (layers 0..1 and the embedding in the first, the rest in the second, names
    sorted in each) and model.safetensors.index.json as save_pretrained writes it."""
    names = sorted(w)
    first = [n for n in names if n.startswith('embed_tokens.') or n.startswith('layers.0.')
             or n.startswith('layers.1.')]
    second = [n for n in names if n not in first]
    weight_map, total = {}, 0
    for k, part in enumerate((first, second), start=1):
        file = 'model-%05d-of-00002.safetensors' % k
        header, offset, blobs = {'__metadata__': {'format': 'pt'}}, 0, []
        for name in part:
            b = w[name].to(torch.bfloat16).view(torch.int16).numpy().astype('<i2').tobytes()
            header[name] = {'dtype': 'BF16', 'shape': list(w[name].shape), 'data_offsets': [offset, offset + len(b)]}
            offset += len(b)
            blobs.append(b)
            weight_map[name] = file
        text = json.dumps(header, separators=(',', ':')).encode()
        text += b' ' * (-len(text) % 8)
        with open(os.path.join(directory, file), 'wb') as f:
            f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))
        total += offset
    write_json(os.path.join(directory, 'model.safetensors.index.json'),
               {'metadata': {'total_size': total}, 'weight_map': dict(sorted(weight_map.items()))}, sort=False)
    # read back
    back = {}
    for file in sorted(set(weight_map.values())):
        with open(os.path.join(directory, file), 'rb') as f:
            n = struct.unpack('<Q', f.read(8))[0]
            header = json.loads(f.read(n))
            data = f.read()
        for name, info in header.items():
            if name == '__metadata__':
                continue
            s, e = info['data_offsets']
            bits = np.frombuffer(data[s:e], dtype='<u2').astype(np.uint32) << 16
            back[name] = torch.from_numpy(bits.view(np.float32).reshape(info['shape']).copy())
    check(sorted(back) == names and all(torch.equal(back[n], w[n]) for n in names),
          'the bf16 shards do not read back as the bf16-rounded weights')


def write_sentence_transformers(directory, config):
    """sentence-transformers' files as Qwen/Qwen3-Embedding-0.6B has them: modules.json (Transformer, Pooling,
    Normalize), 1_Pooling/config.json (lasttoken, include_prompt true), config_sentence_transformers.json (prompts
    query / document, default_prompt_name null, cosine) and sentence_bert_config.json."""
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'},
               {'idx': 2, 'name': '2', 'path': '2_Normalize', 'type': 'sentence_transformers.models.Normalize'}]
    write_json(os.path.join(directory, 'modules.json'), modules, sort=False)
    pooling = {'word_embedding_dimension': config['hidden_size'], 'pooling_mode_cls_token': False,
               'pooling_mode_mean_tokens': False, 'pooling_mode_max_tokens': False,
               'pooling_mode_mean_sqrt_len_tokens': False, 'pooling_mode_weightedmean_tokens': False,
               'pooling_mode_lasttoken': True, 'include_prompt': True}
    os.makedirs(os.path.join(directory, '1_Pooling'))
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling, sort=False)
    write_json(os.path.join(directory, 'sentence_bert_config.json'), {'max_seq_length': 32768,
                                                                      'do_lower_case': False}, sort=False)
    st = {'prompts': dict(PROMPTS), 'default_prompt_name': None, 'similarity_fn_name': 'cosine'}
    write_json(os.path.join(directory, 'config_sentence_transformers.json'), st, sort=False)


def batch_case(name, side, texts, encodings, extra=None, tokens=True):
    case = {'name': name, 'padding_side': side}
    case.update(extra or {})
    case.update(texts=texts, input_ids=[e['ids'] for e in encodings],
                attention_mask=[e['attention_mask'] for e in encodings])
    if tokens:
        case['tokens'] = [e['tokens'] for e in encodings]
    return case


def write_common(directory, config, tokenizer, cases, expected):
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    os.makedirs(directory)
    write_json(os.path.join(directory, 'config.json'), config)
    with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
        f.write(json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n')
    write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(tokenizer))
    with open(os.path.join(directory, 'inputs.json'), 'w') as f:
        f.write(compact_json(cases) + '\n')
    write_safetensors(os.path.join(directory, 'expected.safetensors'), {k: v.float() for k, v in expected.items()})


def main():
    scratch = tempfile.mkdtemp(prefix='qwen3-fixtures-')
    try:
        tok_embed = build_tokenizer(True)
        tok_rerank = build_tokenizer(False)
        files = {}
        for key, tok in (('embed', tok_embed), ('rerank', tok_rerank)):
            files[key] = os.path.join(scratch, key + '.json')
            with open(files[key], 'w') as f:
                f.write(json.dumps(tok, indent=2, ensure_ascii=False) + '\n')
        draft = long_text(400)
        first = node({'op': 'encode', 'file': files['embed'], 'save': None, 'pad': '<|endoftext|>',
                      'batches': [{'name': 'draft', 'side': None, 'inputs': [draft]}]})['batches'][0]['encodings'][0]
        ends = [end for (_, end), special in zip(first['offsets'], first['special_tokens_mask']) if not special]
        cuts = [i + 1 for i, c in enumerate(draft) if c == '.' and sum(x <= i + 1 for x in ends) + 1 <= 300]
        long = draft[:cuts[-1]]
        nfc = PLAIN_TEXTS[1].replace('e\u0301', '\u00e9')
        embed_batches = [
            {'name': 'plain-left', 'side': 'left', 'inputs': PLAIN_TEXTS},
            {'name': 'plain-right', 'side': 'right', 'inputs': PLAIN_TEXTS},
            {'name': 'plain-nfc', 'side': None, 'inputs': [nfc]},
            {'name': 'query', 'side': 'left', 'inputs': [QUERY_PROMPT + q for q in QUERIES]},
            {'name': 'document', 'side': 'left', 'inputs': [PROMPTS['document'] + t for t in DOCUMENTS]},
            {'name': 'long-left', 'side': 'left', 'inputs': [long, QUERIES[1]]},
            {'name': 'long-right', 'side': 'right', 'inputs': [long, QUERIES[1]]},
            {'name': 'pair', 'side': 'left', 'inputs': PAIRS}]
        answer = node({'op': 'encode', 'file': files['embed'], 'save': os.path.join(scratch, 'saved-embed.json'),
                       'pad': '<|endoftext|>', 'batches': embed_batches})
        check_roundtrip(tok_embed, os.path.join(scratch, 'saved-embed.json'))
        check(answer['vocab_size'] == vocab_size_of(tok_embed), 'the library counts %d tokens, not %d'
              % (answer['vocab_size'], vocab_size_of(tok_embed)))
        rerank = node({'op': 'encode', 'file': files['rerank'], 'save': os.path.join(scratch, 'saved-rerank.json'),
                       'pad': '<|endoftext|>', 'batches': [
                           {'name': 'rerank', 'side': 'left',
                            'inputs': [{'parts': [RERANK_PREFIX, rerank_body(q, d), RERANK_SUFFIX]}
                                       for q, d in RERANK_PAIRS]},
                           {'name': 'rerank-joined', 'side': 'left',
                            'inputs': [RERANK_PREFIX + rerank_body(q, d) + RERANK_SUFFIX for q, d in RERANK_PAIRS]}]})
        check_roundtrip(tok_rerank, os.path.join(scratch, 'saved-rerank.json'))
    finally:
        shutil.rmtree(scratch)
    enc = {b['name']: b['encodings'] for b in answer['batches'] + rerank['batches']}
    long_len = sum(enc['long-left'][0]['attention_mask'])
    check_tokens(enc, tok_embed, tok_rerank, long_len)
    joined_same = [a['ids'] == b['ids'] for a, b in zip(enc['rerank'], enc['rerank-joined'])]

    os.makedirs(OUT, exist_ok=True)
    summary = []
    vocab = tok_embed['model']['vocab']
    yes_id, no_id = vocab['yes'], vocab['no']

    # ---- qwen3-embedding, qwen3-embedding-bf16
    embed_cases = [
        batch_case('padded-left', 'left', PLAIN_TEXTS, enc['plain-left']),
        batch_case('padded-right', 'right', PLAIN_TEXTS, enc['plain-right']),
        batch_case('query', 'left', QUERIES, enc['query'], dict(prompt_name='query', prompt=QUERY_PROMPT)),
        batch_case('document', 'left', DOCUMENTS, enc['document'], dict(prompt_name='document', prompt='')),
        batch_case('long-padded-left', 'left', [long, QUERIES[1]], enc['long-left'], tokens=False),
        batch_case('long-padded-right', 'right', [long, QUERIES[1]], enc['long-right'], tokens=False),
        batch_case('pair', 'left', PAIRS, enc['pair'])]
    config = make_config('Qwen3ForCausalLM', tok_embed, 'float32')
    w32 = make_weights(config, 300, '')
    expected32 = None
    for name, dtype in (('qwen3-embedding', 'float32'), ('qwen3-embedding-bf16', 'bfloat16')):
        config = make_config('Qwen3ForCausalLM', tok_embed, dtype)
        w = w32 if dtype == 'float32' else to_bf16(w32)
        expected, notes = {}, []
        with torch.no_grad():
            worst = 0.0
            for i, case in enumerate(embed_cases):
                hidden = forward(config, w, '', case['input_ids'], case['attention_mask'])
                worst = max(worst, check_case(config, w, '', case, hidden))
                outputs = embedding_outputs(hidden, case['attention_mask'])
                check_heads('embedding', outputs, case)
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value
            notes.append('unpadded %.1e' % worst)
            sides = [check_sides(config, w, '', embed_cases[a], embed_cases[b]) for a, b in ((0, 1), (4, 5))]
            notes.append('left/right %.1e (float64 angles %.1e)' % (max(s['float32'] for s in sides),
                                                                    max(s['float64'] for s in sides)))
            if dtype == 'float32':
                notes.append('mistakes: ' + ', '.join(check_mistakes(config, w, '', embed_cases[:3])))
                expected32 = expected
            else:
                moved = max((expected[k] - expected32[k]).abs().max().item() for k in expected)
                check(moved > 1e-4, 'the bf16 outputs equal the float32 ones')
                notes.append('bf16 moves outputs by %.1e' % moved)
        directory = os.path.join(OUT, name)
        write_common(directory, config, tok_embed, embed_cases, expected)
        if dtype == 'float32':
            write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        else:
            write_bf16_shards(directory, w)
        write_sentence_transformers(directory, config)
        summary.append('%-22s %s' % (name, '; '.join(notes)))

    # ---- qwen3-reranker
    config = make_config('Qwen3ForCausalLM', tok_rerank, 'float32')
    w = make_weights(config, 301, 'model.')
    bodies = [rerank_body(q, d) for q, d in RERANK_PAIRS]
    rerank_cases = [batch_case('rerank', 'left', [RERANK_PREFIX + b + RERANK_SUFFIX for b in bodies], enc['rerank'],
                               dict(instruction=RERANK_INSTRUCTION, pairs=RERANK_PAIRS, prefix=RERANK_PREFIX,
                                    suffix=RERANK_SUFFIX, yes_id=yes_id, no_id=no_id))]
    expected, notes = {}, []
    with torch.no_grad():
        for i, case in enumerate(rerank_cases):
            hidden = forward(config, w, 'model.', case['input_ids'], case['attention_mask'])
            worst = check_case(config, w, 'model.', case, hidden)
            outputs = reranker_outputs(hidden, w['model.embed_tokens.weight'], yes_id, no_id)
            check_heads('reranker', outputs, case, w['model.embed_tokens.weight'])
            for key, value in outputs.items():
                expected['case%d.%s' % (i, key)] = value
            notes.append('unpadded %.1e' % worst)
            notes.append('scores ' + ' '.join('%.4f' % s for s in outputs['score'].tolist()))
    notes.append('parts tokenized separately == joined: %s' % joined_same)
    directory = os.path.join(OUT, 'qwen3-reranker')
    write_common(directory, config, tok_rerank, rerank_cases, expected)
    write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
    summary.append('%-22s %s' % ('qwen3-reranker', '; '.join(notes)))

    print('\n'.join(summary))
    print('tokenizer: %d tokens (%d merges), yes %d, no %d, long input %d tokens'
          % (vocab_size_of(tok_embed), len(tok_embed['model']['merges']), yes_id, no_id, long_len))
    print('wrote 3 cases to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
