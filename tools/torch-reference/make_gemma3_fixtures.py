#!/usr/bin/env python3
"""Random-weight EmbeddingGemma (model_type gemma3_text, Gemma3TextModel) checkpoints in Hugging Face's layout, with
independent reference outputs computed with PyTorch, and token ids from Hugging Face's tokenizers library.

The forward pass below is written with plain torch operations from the semantics of Hugging Face transformers'
models/gemma3/modeling_gemma3.py (Gemma3TextModel, Gemma3DecoderLayer, Gemma3Attention, Gemma3RMSNorm,
Gemma3TextScaledWordEmbedding, Gemma3RotaryEmbedding, _bidirectional_window_overlay), configuration_gemma3.py /
modular_gemma3.py (Gemma3TextConfig: use_bidirectional_attention halves sliding_window), masking_utils.py
(create_causal_mask / create_sliding_window_causal_mask with or_mask_function), and sentence-transformers' Pooling /
Dense / Normalize modules; it shares no code with vectorbert, and transformers itself is not needed. The token ids
of every input come from the npm package "tokenizers" (the Rust library behind transformers' fast tokenizers)
through gemma3-tokenize.mjs, which loads the tokenizer.json written here. Regenerate everything (a few seconds):

    sudo apt-get install python3-torch python3-numpy nodejs npm
    mkdir -p /tmp/gemma3-npm && (cd /tmp/gemma3-npm && npm install tokenizers@0.23.2)
    NODE_PATH=/tmp/gemma3-npm/node_modules /usr/bin/python3 tools/torch-reference/make_gemma3_fixtures.py

(any node_modules holding tokenizers 0.23.2 will do, e.g. /tmp/modernbert-npm/node_modules; without NODE_PATH the
helper falls back to tools/tokenizer-reference/node_modules). No arguments. Writes
engine/src/test/resources/architectures/gemma3/<case>/ (the same bytes on every run: numpy's legacy RandomState
draws the weights, the BPE merges are learned by a deterministic loop below, the reference is computed in float64
on one thread, then rounded to float32):

    config.json               google/embeddinggemma-300m's config.json keys (transformers 4.56.0 spelling: rope_theta,
                              rope_local_base_freq, rope_scaling null, _sliding_window_pattern, layer_types, dtype),
                              sorted, indent 2
    model.safetensors         float32, Gemma3TextModel's state-dict names with no prefix (embed_tokens.weight,
                              layers.N.*, norm.weight), sorted, __metadata__ {"format": "pt"}
                              (embeddinggemma-bf16: BF16 tensors in model-00001-of-00002.safetensors and
                              model-00002-of-00002.safetensors with model.safetensors.index.json)
    tokenizer.json            a small Gemma-style BPE (build_tokenizer; NOTES.md)
    tokenizer_config.json, special_tokens_map.json
    modules.json              Transformer, Pooling (1_Pooling), Dense (2_Dense), Dense (3_Dense), Normalize
                              (4_Normalize), as the hub's
    sentence_bert_config.json, config_sentence_transformers.json (the hub's prompts), 1_Pooling/config.json,
    2_Dense/{config.json,model.safetensors} (64 -> 256, no bias, Identity), 3_Dense/... (256 -> 64)
    inputs.json               a list of cases: name, texts, input_ids, attention_mask, the library's tokens, and for
                              the prompted cases prompt_name and prompt (the ids are those of prompt + text)
    expected.safetensors      caseN.<output> in float32:
                                last_hidden_state [n, len, 64]     after the final norm (= token_embeddings)
                                sentence_embedding [n, 64]         mean pooling, 2_Dense, 3_Dense, Normalize
                                sentence_embedding_32 [n, 32]      Matryoshka: the first 32 values, normalised again
                                sentence_embedding_16 [n, 16]      the first 16, normalised again
                              Padded positions hold what transformers' eager attention computes there (see
                              NOTES.md); compare real positions only.

The cases: embeddinggemma (float32), embeddinggemma-bf16 (the same weights rounded to bfloat16, saved as BF16 in two
shards; its expected outputs are the float64 forward of the rounded weights), embeddinggemma-no-dense (modules.json
names 2_Dense and 3_Dense but the directories are missing: a loader must refuse it; no inputs or expected outputs).
Inputs: case0 padded-batch (two texts of 17 and 84 tokens: longer than the window), case1 query (two queries
behind the "query" prompt), case2 document (two documents behind the "document" prompt), case3 single (one
unpadded text with characters outside the vocabulary, so byte fallback, a tab, a newline and two spaces).

Weight scale as in make_family_fixtures.py: embeddings std 0.02 with a zero pad row (id 0), Linear weights std
1/sqrt(fan_in) (no biases: attention_bias false, the MLP and the Dense modules have none). Gemma's RMSNorm multiplies
by (1 + weight), so the stored norm weights are std 0.1 around 0 (a multiplier of 1 + std 0.1, as the convention
asks for the multiplier).

Numbers follow transformers where it fixes them in float32: inv_freq = 1 / base ** (float32(2i) / d) and the angle
position * inv_freq are float32 (Gemma3RotaryEmbedding.forward under autocast disabled), then cos and sin here in
float64 of that float32 angle.

Self-checks run before a case is written (the script stops on the first failure):
  tokenizer  the library writes back (Tokenizer.save) the tokenizer.json it loaded unchanged (but for the defaults it
             adds); every id is below vocab_size, and the library's vocabulary size is config's vocab_size; every
             encoding starts with <bos> and its real tokens end with <eos>; case3 goes through byte fallback (<0x..>
             tokens) and keeps the tab, the newline and the run of two spaces; the prompted ids start with the ids of
             the prompt without its trailing space (that space becomes the ▁ of the text's first piece)
  mask       the sliding-window mask built as transformers builds it (sliding causal window OR the bidirectional
             overlay |q - kv| < sliding_window // 2 + 1, AND the padding) equals one built by an explicit loop over
             (i, j) with |i - j| <= sliding_window // 2
  rmsnorm    Gemma's RMSNorm as transformers computes it (float32, x * rsqrt(mean(x^2) + eps) * (1 + w)) against a
             float64 formula (1e-6 relative), for float32 and bfloat16 inputs (bf16: the float32 result rounded)
  forward    for every case and input: a second encoder written differently (one sequence at a time with its real
             tokens only, an explicit loop over the query heads each taking key/value head h // (heads / kv_heads),
             rotary as a complex rotation, the window by an explicit |i - j| loop, -inf masking, hand-written RMSNorm
             and tanh GELU) agrees to 1e-9 at real positions; each row run alone equals its rows of the padded batch
             (1e-9); the batch padded on the left instead gives the same real rows (1e-5: only the rotary angles'
             float32 rounding differs, the scores depend on i - j alone); pooling, the Dense modules, Normalize and
             the Matryoshka cuts recomputed in numpy agree (1e-9)
  mistakes   each of these changes case0's sentence_embedding or last_hidden_state by more than 1e-3, so the
             fixture catches it: the window from the config value unhalved (|i - j| < 8), a causal mask, scale
             head_dim^-0.5, RMSNorm without the 1 +, no embedding scale, the two rotary bases swapped, the layer
             types derived from _sliding_window_pattern (6: all sliding here) instead of layer_types, GELU erf
             instead of tanh (1e-5), no q_norm/k_norm
"""
import collections
import json
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
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'architectures', 'gemma3')
HELPER = os.path.join(HERE, 'gemma3-tokenize.mjs')
TRANSFORMERS_VERSION = '4.56.0'  # the hub config's; nominal: the configs are written in that layout, not by it
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

def node(request):
    """One call of gemma3-tokenize.mjs."""
    proc = subprocess.run(['node', HELPER], input=json.dumps(request).encode(), capture_output=True)
    if proc.returncode != 0:
        sys.exit('gemma3-tokenize.mjs failed:\n' + proc.stderr.decode())
    return json.loads(proc.stdout)


SPACE = '\u2581'  # SentencePiece's "▁", which Gemma's normalizer puts in place of every space
# The BPE is learned on this text, so common words become one or a few pieces and rarer ones many.
CORPUS = [
    "The model reads a text as a list of tokens. Each token is a piece of a word, a whole word or a sign. "
    "A small vocabulary has to split most words into several pieces, and the pieces of a rare word are often single "
    "letters. The capital of France is Paris, and the capital of Italy is Rome.",
    "Rotary positions turn each query and key by an angle that grows with the position, so the score between two "
    "tokens depends on how far apart they are. Local layers only look at the tokens inside a window; global layers "
    "look at the whole text. The window of this model is small, so a long text shows the difference.",
    "Search queries are short and documents are long. An embedding model turns both into vectors, and the vectors "
    "of a query and of the documents that answer it should point the same way. The model is trained on pairs of "
    "queries and documents, and on pairs that do not match.",
    "task: search result | query: title: none | text: task: sentence similarity | query: task: classification",
    "In the morning the weather was cold and grey, but by the afternoon the sun came out and the streets were full "
    "of people walking, talking and buying things in the small shops along the river.",
]
N_MERGES = 120
# Single characters in the vocabulary (SentencePiece keeps every character of its training text as a piece); any
# other character goes through byte fallback.
CHARS = [chr(c) for c in range(ord('!'), ord('~') + 1)] + [SPACE, '\n', '\t']
SPECIALS = ['<pad>', '<eos>', '<bos>', '<unk>', '<mask>', '<start_of_turn>', '<end_of_turn>']


def learn_merges(words, count):
    """BPE merges learned by the textbook loop: the most frequent adjacent pair (weighted by word frequency) is
    merged, ties broken by the smallest pair in string order; deterministic. Words are SentencePiece-style: split
    before every ▁, so no merge ever joins a piece to the ▁ of the next word."""
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


def corpus_words():
    words = []
    for text in CORPUS:
        normalized = text.replace(' ', SPACE)
        start = 0
        for i in range(1, len(normalized) + 1):
            if i == len(normalized) or normalized[i] == SPACE:
                words.append(normalized[start:i])
                start = i
    return words


def build_tokenizer():
    """Gemma 3's tokenizer.json layout (GemmaConverter in transformers' convert_slow_tokenizer.py): normalizer
    Replace(" ", "▁"), no pre-tokenizer, BPE with byte_fallback and unk <unk> (fuse_unk), decoder Replace("▁", " ") +
    ByteFallback + Fuse; ids 0 <pad>, 1 <eos>, 2 <bos>, 3 <unk>, 4 <mask> as Gemma 3's, then two turn markers, the
    256 byte tokens <0x00>..<0xFF>, single characters, the merges' pieces. Post-processor: <bos> $A <eos>
    (EmbeddingGemma's tokenizer adds both; the pair template as LlamaTokenizerFast.update_post_processor writes it:
    <bos> $A <eos> <bos>:1 $B:1 <eos>:1)."""
    vocab = {}
    for t in SPECIALS:
        vocab[t] = len(vocab)
    for b in range(256):
        vocab['<0x%02X>' % b] = len(vocab)
    for c in CHARS:
        vocab[c] = len(vocab)
    merges = learn_merges(corpus_words(), N_MERGES)
    for a, b in merges:
        check(a in vocab and b in vocab, 'a merge of pieces outside the vocabulary: %r %r' % (a, b))
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    added = [{'id': vocab[t], 'content': t, 'single_word': False, 'lstrip': False, 'rstrip': False,
              'normalized': False, 'special': True} for t in SPECIALS]
    special = lambda name, t=0: {'SpecialToken': {'id': name, 'type_id': t}}  # noqa: E731
    sequence = lambda name, t: {'Sequence': {'id': name, 'type_id': t}}  # noqa: E731
    tokenizer = {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': added,
        'normalizer': {'type': 'Replace', 'pattern': {'String': ' '}, 'content': SPACE},
        'pre_tokenizer': None,
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [special('<bos>'), sequence('A', 0), special('<eos>')],
            'pair': [special('<bos>'), sequence('A', 0), special('<eos>'), special('<bos>', 1), sequence('B', 1),
                     special('<eos>', 1)],
            'special_tokens': {'<bos>': {'id': '<bos>', 'ids': [vocab['<bos>']], 'tokens': ['<bos>']},
                               '<eos>': {'id': '<eos>', 'ids': [vocab['<eos>']], 'tokens': ['<eos>']}}},
        'decoder': {'type': 'Sequence', 'decoders': [
            {'type': 'Replace', 'pattern': {'String': SPACE}, 'content': ' '},
            {'type': 'ByteFallback'}, {'type': 'Fuse'}]},
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': '<unk>', 'continuing_subword_prefix': None,
                  'end_of_word_suffix': None, 'fuse_unk': True, 'byte_fallback': True, 'ignore_merges': False,
                  'vocab': vocab, 'merges': [[a, b] for a, b in merges]},
    }
    return tokenizer


def tokenizer_config(tokenizer):
    """tokenizer_config.json in Gemma's form (GemmaTokenizer; add_bos_token and add_eos_token true as
    EmbeddingGemma's; padding right)."""
    decoder = {str(t['id']): {k: t[k] for k in ('content', 'lstrip', 'normalized', 'rstrip', 'single_word',
                                                  'special')} for t in tokenizer['added_tokens']}
    return {'add_bos_token': True, 'add_eos_token': True, 'added_tokens_decoder': decoder, 'bos_token': '<bos>',
            'clean_up_tokenization_spaces': False, 'eos_token': '<eos>', 'mask_token': '<mask>',
            'model_max_length': 2048, 'pad_token': '<pad>', 'padding_side': 'right', 'sp_model_kwargs': {},
            'spaces_between_special_tokens': False, 'tokenizer_class': 'GemmaTokenizer', 'unk_token': '<unk>',
            'use_default_system_prompt': False}


def special_tokens_map():
    entry = lambda c: {'content': c, 'lstrip': False, 'normalized': False, 'rstrip': False,  # noqa: E731
                       'single_word': False}
    return {'bos_token': entry('<bos>'), 'eos_token': entry('<eos>'), 'mask_token': entry('<mask>'),
            'pad_token': entry('<pad>'), 'unk_token': entry('<unk>')}


def check_roundtrip(mine, saved_path):
    """The library writes back what it read (merges as [a, b] pairs, as written here)."""
    with open(saved_path) as f:
        theirs = json.load(f)
    for key in sorted(set(mine) | set(theirs)):
        check(mine.get(key) == theirs.get(key), 'the library wrote tokenizer.json "%s" back differently:\n%s\n%s'
              % (key, json.dumps(mine.get(key))[:400], json.dumps(theirs.get(key))[:400]))


# ---------------------------------------------------------------------------------------------------- texts

# The hub's config_sentence_transformers.json prompts, in its order (NOTES.md says where they were read).
PROMPTS = collections.OrderedDict([
    ('query', 'task: search result | query: '),
    ('document', 'title: none | text: '),
    ('BitextMining', 'task: search result | query: '),
    ('Clustering', 'task: clustering | query: '),
    ('Classification', 'task: classification | query: '),
    ('InstructionRetrieval', 'task: code retrieval | query: '),
    ('MultilabelClassification', 'task: classification | query: '),
    ('PairClassification', 'task: sentence similarity | query: '),
    ('Reranking', 'task: search result | query: '),
    ('Retrieval', 'task: search result | query: '),
    ('Retrieval-query', 'task: search result | query: '),
    ('Retrieval-document', 'title: none | text: '),
    ('STS', 'task: sentence similarity | query: '),
    ('Summarization', 'task: summarization | query: '),
])
PLAIN_TEXTS = ['The capital of France is Paris.',
               'Rotary positions let a small window still relate tokens far apart, because local layers see only '
               'their neighbours while global layers see the whole text.']
QUERIES = ['What is the capital of France?', 'How do rotary positions work in a model with a small window?']
DOCUMENTS = ['The capital of France is Paris.',
             'Rotary positions turn each query and key by an angle that grows with the position, so the score '
             'between two tokens depends on how far apart they are.']
SINGLE = 'Caf\u00e9 cr\u00e8me \U0001F600 at 14:00\tsharp,\nthen  home.'  # é, è, an emoji: byte fallback


# ---------------------------------------------------------------------------------------------------- config

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE, LAYERS = 64, 4, 1, 32, 96, 4
LAYER_TYPES = ['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention']
DENSE = 256


def make_config(vocab_size, dtype):
    """google/embeddinggemma-300m's config.json keys and fixed values, with this model's sizes. The window is 8 in
    the file; transformers makes it 8 // 2 + 1 = 5 (exclusive) because use_bidirectional_attention is true."""
    return {
        '_sliding_window_pattern': 6, 'architectures': ['Gemma3TextModel'], 'attention_bias': False,
        'attention_dropout': 0.0, 'attn_logit_softcapping': None, 'bos_token_id': 2, 'dtype': dtype,
        'eos_token_id': 1, 'final_logit_softcapping': None, 'head_dim': HEAD_DIM,
        'hidden_activation': 'gelu_pytorch_tanh', 'hidden_size': HIDDEN, 'initializer_range': 0.02,
        'intermediate_size': INTERMEDIATE, 'layer_types': list(LAYER_TYPES), 'max_position_embeddings': 2048,
        'model_type': 'gemma3_text', 'num_attention_heads': HEADS, 'num_hidden_layers': LAYERS,
        'num_key_value_heads': KV_HEADS, 'pad_token_id': 0, 'query_pre_attn_scalar': 24, 'rms_norm_eps': 1e-06,
        'rope_local_base_freq': 10000.0, 'rope_scaling': None, 'rope_theta': 1000000.0, 'sliding_window': 8,
        'transformers_version': TRANSFORMERS_VERSION, 'use_bidirectional_attention': True, 'use_cache': True,
        'vocab_size': vocab_size}


def effective_window(config):
    """Gemma3TextConfig.__init__: with use_bidirectional_attention the window becomes sliding_window // 2 + 1,
    an exclusive bound on |q - kv| ("due to fa we set exclusive bounds")."""
    w = config['sliding_window']
    return w // 2 + 1 if config.get('use_bidirectional_attention') else w


# ---------------------------------------------------------------------------------------------------- weights

class Weights:
    """Draws tensors in a fixed order from one RandomState; values are kept in float32 as saved."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.w = {}

    def put(self, name, array):
        self.w[name] = torch.from_numpy(np.asarray(array, dtype=np.float32))

    def embedding(self, name, rows, cols, padding_idx):
        a = self.rng.normal(0.0, 0.02, (rows, cols))
        a[padding_idx] = 0.0
        self.put(name + '.weight', a)

    def linear(self, name, out, inp):
        self.put(name + '.weight', self.rng.normal(0.0, 1.0 / np.sqrt(inp), (out, inp)))

    def norm(self, name, size):
        self.put(name + '.weight', self.rng.normal(0.0, 0.1, (size,)))  # Gemma multiplies by (1 + weight)


def make_weights(config, seed):
    g = Weights(seed)
    g.embedding('embed_tokens', config['vocab_size'], HIDDEN, config['pad_token_id'])
    for i in range(LAYERS):
        p = 'layers.%d.' % i
        g.norm(p + 'input_layernorm', HIDDEN)
        g.linear(p + 'self_attn.q_proj', HEADS * HEAD_DIM, HIDDEN)
        g.linear(p + 'self_attn.k_proj', KV_HEADS * HEAD_DIM, HIDDEN)
        g.linear(p + 'self_attn.v_proj', KV_HEADS * HEAD_DIM, HIDDEN)
        g.norm(p + 'self_attn.q_norm', HEAD_DIM)
        g.norm(p + 'self_attn.k_norm', HEAD_DIM)
        g.linear(p + 'self_attn.o_proj', HIDDEN, HEADS * HEAD_DIM)
        g.norm(p + 'post_attention_layernorm', HIDDEN)
        g.norm(p + 'pre_feedforward_layernorm', HIDDEN)
        g.linear(p + 'mlp.gate_proj', INTERMEDIATE, HIDDEN)
        g.linear(p + 'mlp.up_proj', INTERMEDIATE, HIDDEN)
        g.linear(p + 'mlp.down_proj', HIDDEN, INTERMEDIATE)
        g.norm(p + 'post_feedforward_layernorm', HIDDEN)
    g.norm('norm', HIDDEN)
    dense = Weights(seed + 1)
    dense.linear('2_Dense/linear', DENSE, HIDDEN)
    dense.linear('3_Dense/linear', HIDDEN, DENSE)
    return g.w, dense.w


def to_bf16(w):
    return {k: v.to(torch.bfloat16).to(torch.float32) for k, v in w.items()}


# ---------------------------------------------------------------------------------------------------- forward

def rope_angles(theta, dim, positions):
    """[len, dim] rotary angles as Gemma3RotaryEmbedding has them: inv_freq and position * inv_freq in float32, each
    frequency twice (the halves of rotate_half), returned in float64."""
    exponent = torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float32) / dim
    inv_freq = 1.0 / (torch.tensor(theta, dtype=torch.float32) ** exponent)
    angle = positions.to(torch.float32)[:, None] * inv_freq[None, :]
    return torch.cat([angle, angle], dim=-1).double()


def rotate_half(x):
    d = x.shape[-1] // 2
    return torch.cat([-x[..., d:], x[..., :d]], dim=-1)


def rms_norm(x, weight, eps, plus_one=True):
    scale = (1.0 + weight.double()) if plus_one else weight.double()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * scale


def transformers_masks(config, mask, variant):
    """[n, 1, L, L] boolean masks per layer type, built the way masking_utils builds them for Gemma3TextModel: the
    causal (or sliding causal) mask function OR'ed with the bidirectional one, then AND the padding of the keys."""
    n, length = mask.shape
    q = torch.arange(length)[:, None]
    kv = torch.arange(length)[None, :]
    window = effective_window(config)
    if variant == 'window-unhalved':
        window = config['sliding_window']
    causal = kv <= q
    sliding_causal = causal & (kv > q - window)  # sliding_window_overlay: kv_idx > q_idx - sliding_window
    bidirectional = config['use_bidirectional_attention'] and variant != 'causal'
    full = causal | torch.tensor(True) if bidirectional else causal
    sliding = sliding_causal | ((q - kv).abs() < window) if bidirectional else sliding_causal
    keys = mask.bool()[:, None, None, :]
    return {'full_attention': full[None, None] & keys, 'sliding_attention': sliding[None, None] & keys}


def encoder(config, w, ids, mask, variant=None, positions=None):
    """Gemma3TextModel's last_hidden_state in float64, eager attention with transformers' additive masks
    (0 where allowed, finfo(float32).min elsewhere)."""
    n, length = ids.shape
    eps = config['rms_norm_eps']
    plus_one = variant != 'no-plus-one'
    scale = 1.0 if variant == 'no-embed-scale' else float(torch.tensor(HIDDEN ** 0.5, dtype=torch.float32))
    x = w['embed_tokens.weight'].double()[ids] * scale
    if positions is None:
        positions = torch.arange(length)
    thetas = {'full_attention': config['rope_theta'], 'sliding_attention': config['rope_local_base_freq']}
    if variant == 'thetas-swapped':
        thetas = {'full_attention': thetas['sliding_attention'], 'sliding_attention': thetas['full_attention']}
    masks = transformers_masks(config, mask, variant)
    layer_types = config['layer_types']
    if variant == 'pattern':
        p = config['_sliding_window_pattern']
        layer_types = ['sliding_attention' if (i + 1) % p else 'full_attention' for i in range(LAYERS)]
    scaling = (HEAD_DIM ** -0.5) if variant == 'head-dim-scale' else config['query_pre_attn_scalar'] ** -0.5
    if variant == 'erf-gelu':
        act = torch.nn.functional.gelu
    else:
        act = lambda t: torch.nn.functional.gelu(t, approximate='tanh')  # noqa: E731
    groups = HEADS // KV_HEADS
    for i in range(LAYERS):
        p = 'layers.%d.' % i
        lw = lambda name: w[p + name + '.weight'].double()  # noqa: E731
        kind = layer_types[i]
        angle = rope_angles(thetas[kind], HEAD_DIM, positions)
        cos, sin = angle.cos(), angle.sin()
        h = rms_norm(x, lw('input_layernorm'), eps, plus_one)
        qs = (h @ lw('self_attn.q_proj').T).view(n, length, HEADS, HEAD_DIM).transpose(1, 2)
        ks = (h @ lw('self_attn.k_proj').T).view(n, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
        vs = (h @ lw('self_attn.v_proj').T).view(n, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
        if variant != 'no-qk-norm':
            qs = rms_norm(qs, lw('self_attn.q_norm'), eps, plus_one)
            ks = rms_norm(ks, lw('self_attn.k_norm'), eps, plus_one)
        qs = qs * cos + rotate_half(qs) * sin
        ks = ks * cos + rotate_half(ks) * sin
        ks = ks[:, :, None].expand(n, KV_HEADS, groups, length, HEAD_DIM).reshape(n, HEADS, length, HEAD_DIM)
        vs = vs[:, :, None].expand(n, KV_HEADS, groups, length, HEAD_DIM).reshape(n, HEADS, length, HEAD_DIM)
        scores = qs @ ks.transpose(2, 3) * scaling
        scores = scores + torch.where(masks[kind], 0.0, MIN32)
        probs = torch.softmax(scores, dim=-1)
        attn = (probs @ vs).transpose(1, 2).reshape(n, length, HEADS * HEAD_DIM) @ lw('self_attn.o_proj').T
        x = x + rms_norm(attn, lw('post_attention_layernorm'), eps, plus_one)
        h = rms_norm(x, lw('pre_feedforward_layernorm'), eps, plus_one)
        mlp = (act(h @ lw('mlp.gate_proj').T) * (h @ lw('mlp.up_proj').T)) @ lw('mlp.down_proj').T
        x = x + rms_norm(mlp, lw('post_feedforward_layernorm'), eps, plus_one)
    return rms_norm(x, w['norm.weight'], eps, plus_one)


def sentence(hidden, mask, dense):
    """sentence-transformers: Pooling (mean over real tokens, prompt included), Dense 2_Dense and 3_Dense (no bias,
    Identity), Normalize; Matryoshka cuts (first k values, normalised again)."""
    m = mask.double()[:, :, None]
    pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
    y = pooled @ dense['2_Dense/linear.weight'].double().T
    y = y @ dense['3_Dense/linear.weight'].double().T
    emb = y / y.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    out = {'sentence_embedding': emb}
    for k in (32, 16):
        cut = emb[:, :k]
        out['sentence_embedding_%d' % k] = cut / cut.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    return out


def run(config, w, dense, case, variant=None):
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    hidden = encoder(config, w, ids, mask, variant)
    out = {'last_hidden_state': hidden}
    out.update(sentence(hidden, mask, dense))
    return out


# ---------------------------------------------------------------------------------------------------- self-checks

def encoder_unpadded(config, w, ids):
    """A second Gemma3TextModel, written differently: one sequence of real tokens, a loop over query heads with
    their shared key/value head, rotary as a complex rotation, the window by an explicit |i - j| loop, -inf
    masking, hand-written RMSNorm and tanh GELU."""
    length = len(ids)
    eps = config['rms_norm_eps']
    radius = config['sliding_window'] // 2  # |i - j| < sliding_window // 2 + 1

    def norm(x, weight):
        x = np.asarray(x)
        r = np.sqrt((x * x).mean(-1, keepdims=True) + eps)
        return x / r * (1.0 + weight.double().numpy())

    def gelu_tanh(t):
        return 0.5 * t * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (t + 0.044715 * t ** 3)))

    def rotate(x, theta):
        """x [len, d]: pairs (x[k], x[k + d/2]) as complex numbers times e^(i * angle)."""
        d = x.shape[-1]
        angle = rope_angles(theta, d, torch.arange(length)).numpy()[:, :d // 2]
        z = (x[:, :d // 2] + 1j * x[:, d // 2:]) * np.exp(1j * angle)
        return np.concatenate([z.real, z.imag], axis=-1)

    W = {k: v.double().numpy() for k, v in w.items()}
    x = W['embed_tokens.weight'][ids] * float(np.float32(np.sqrt(np.float32(HIDDEN))))
    allowed_band = np.zeros((length, length), dtype=bool)
    for i in range(length):
        for j in range(length):
            allowed_band[i, j] = abs(i - j) <= radius
    for layer in range(LAYERS):
        p = 'layers.%d.' % layer
        kind = config['layer_types'][layer]
        theta = config['rope_theta'] if kind == 'full_attention' else config['rope_local_base_freq']
        allowed = allowed_band if kind == 'sliding_attention' else np.ones((length, length), dtype=bool)
        h = norm(x, w[p + 'input_layernorm.weight'])
        q_all = h @ W[p + 'self_attn.q_proj.weight'].T
        k_all = h @ W[p + 'self_attn.k_proj.weight'].T
        v_all = h @ W[p + 'self_attn.v_proj.weight'].T
        outputs = []
        for head in range(HEADS):
            kv = head // (HEADS // KV_HEADS)
            q = rotate(norm(q_all[:, head * HEAD_DIM:(head + 1) * HEAD_DIM], w[p + 'self_attn.q_norm.weight']), theta)
            k = rotate(norm(k_all[:, kv * HEAD_DIM:(kv + 1) * HEAD_DIM], w[p + 'self_attn.k_norm.weight']), theta)
            v = v_all[:, kv * HEAD_DIM:(kv + 1) * HEAD_DIM]
            s = q @ k.T / np.sqrt(config['query_pre_attn_scalar'])
            s = np.where(allowed, s, -np.inf)
            s = np.exp(s - s.max(-1, keepdims=True))
            outputs.append((s / s.sum(-1, keepdims=True)) @ v)
        attn = np.concatenate(outputs, axis=-1) @ W[p + 'self_attn.o_proj.weight'].T
        x = x + norm(attn, w[p + 'post_attention_layernorm.weight'])
        h = norm(x, w[p + 'pre_feedforward_layernorm.weight'])
        mlp = (gelu_tanh(h @ W[p + 'mlp.gate_proj.weight'].T) * (h @ W[p + 'mlp.up_proj.weight'].T)) \
            @ W[p + 'mlp.down_proj.weight'].T
        x = x + norm(mlp, w[p + 'post_feedforward_layernorm.weight'])
    return norm(x, w['norm.weight'])


def check_mask(config):
    """The sliding mask as transformers builds it equals an explicit |i - j| <= sliding_window // 2 loop, with
    padding; the full mask is the padding alone."""
    mask = torch.tensor([[1] * 13 + [0] * 7, [1] * 20])
    built = transformers_masks(config, mask, None)
    radius = config['sliding_window'] // 2
    for b in range(2):
        for i in range(20):
            for j in range(20):
                want = abs(i - j) <= radius and bool(mask[b, j])
                check(bool(built['sliding_attention'][b, 0, i, j]) == want, 'sliding mask at %d,%d,%d' % (b, i, j))
                check(bool(built['full_attention'][b, 0, i, j]) == bool(mask[b, j]), 'full mask at %d,%d' % (i, j))
    return 2 * radius + 1


def check_rms_norm():
    """Gemma3RMSNorm as transformers computes it (the input cast to float32, x * rsqrt(mean(x^2) + eps), times
    (1 + weight.float()), cast back) against the float64 formula."""
    rng = np.random.RandomState(5)
    x64 = torch.from_numpy(rng.normal(0.0, 3.0, (6, HIDDEN)))
    w64 = torch.from_numpy(rng.normal(0.0, 0.1, (HIDDEN,)))
    worst = 0.0
    for dtype, tolerance in ((torch.float32, 1e-6), (torch.bfloat16, 8e-3)):
        x, w = x64.to(dtype), w64.to(dtype)
        xf = x.float()
        got = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * (1.0 + w.float())).to(dtype)
        want = rms_norm(x.double(), w.double(), 1e-6)
        err = float(((got.double() - want).abs() / want.abs().clamp(min=1e-3)).max())
        check(err < tolerance, 'RMSNorm in %s is off the float64 formula by %.2e' % (dtype, err))
        worst = max(worst, err) if dtype == torch.float32 else worst
    return worst


def check_case(config, w, dense, case, outputs):
    """The second encoder, row-alone runs, left padding and the sentence pipeline in numpy."""
    hidden = outputs['last_hidden_state']
    worst = 0.0
    for r, (ids, mask) in enumerate(zip(case['input_ids'], case['attention_mask'])):
        n = sum(mask)
        other = encoder_unpadded(config, w, ids[:n])
        err = float(np.abs(other - hidden[r, :n].numpy()).max())
        check(err < 1e-9, '%s row %d: the second encoder differs by %.2e' % (case['name'], r, err))
        worst = max(worst, err)
        alone = encoder(config, w, torch.tensor([ids[:n]]), torch.tensor([mask[:n]]))
        err = float((alone[0] - hidden[r, :n]).abs().max())
        check(err < 1e-9, '%s row %d alone differs from the padded batch by %.2e' % (case['name'], r, err))
    # left padding: the same real rows (positions shift, but scores depend on i - j only)
    length = len(case['input_ids'][0])
    left_ids, left_mask = [], []
    for ids, mask in zip(case['input_ids'], case['attention_mask']):
        n = sum(mask)
        left_ids.append([0] * (length - n) + ids[:n])
        left_mask.append([0] * (length - n) + mask[:n])
    left = encoder(config, w, torch.tensor(left_ids), torch.tensor(left_mask))
    for r, mask in enumerate(case['attention_mask']):
        n = sum(mask)
        err = float((left[r, length - n:] - hidden[r, :n]).abs().max())
        check(err < 1e-5, '%s row %d: left padding moves the real rows by %.2e' % (case['name'], r, err))
    # the sentence pipeline in numpy
    H = hidden.numpy()
    for r, mask in enumerate(case['attention_mask']):
        n = sum(mask)
        pooled = H[r, :n].mean(0)
        y = dense['3_Dense/linear.weight'].double().numpy() @ (dense['2_Dense/linear.weight'].double().numpy()
                                                              @ pooled)
        emb = y / np.linalg.norm(y)
        check(np.abs(emb - outputs['sentence_embedding'][r].numpy()).max() < 1e-9, 'sentence_embedding')
        for k in (32, 16):
            cut = y[:k] / np.linalg.norm(y[:k])
            check(np.abs(cut - outputs['sentence_embedding_%d' % k][r].numpy()).max() < 1e-9, 'Matryoshka %d' % k)
    return worst


MISTAKES = [('window-unhalved', 1e-3), ('causal', 1e-3), ('head-dim-scale', 1e-3), ('no-plus-one', 1e-3),
            ('no-embed-scale', 1e-3), ('thetas-swapped', 1e-3), ('pattern', 1e-3), ('erf-gelu', 1e-5),
            ('no-qk-norm', 1e-3)]


def check_mistakes(config, w, dense, case, outputs):
    found = []
    for variant, threshold in MISTAKES:
        other = run(config, w, dense, case, variant)
        mask = torch.tensor(case['attention_mask']).bool()
        moved = max(float((other['sentence_embedding'] - outputs['sentence_embedding']).abs().max()),
                    float((other['last_hidden_state'] - outputs['last_hidden_state'])[mask].abs().max()))
        check(moved > threshold, 'the mistake %s moves the outputs by only %.2e' % (variant, moved))
        found.append('%s %.0e' % (variant, moved))
    return found


def check_tokens(enc, vocab, vocab_size, prompt_ids):
    """Tokenizer facts the fixtures rely on."""
    for name, encodings in enc.items():
        for e in encodings:
            check(all(0 <= i < vocab_size for i in e['ids']), 'an id is outside the vocabulary')
            n = sum(e['attention_mask'])
            check(e['ids'][0] == vocab['<bos>'] and e['ids'][n - 1] == vocab['<eos>'],
                  '%s: not <bos> ... <eos>: %s' % (name, e['tokens'][:n]))
            check(all(i == vocab['<pad>'] for i in e['ids'][n:]), 'padding is not <pad>')
    single = enc['single'][0]['tokens']
    check(sum(t.startswith('<0x') for t in single) == 8, 'no byte fallback in %s' % single)
    check('\t' in single and '\n' in single, 'the tab or the newline is not its own piece: %s' % single)
    check(any(t.startswith(SPACE + SPACE) or t == SPACE for t in single), 'the two spaces: %s' % single)
    for kind in ('query', 'document'):
        for e in enc[kind]:
            check(e['ids'][:len(prompt_ids[kind])] == prompt_ids[kind],
                  'the %s ids do not start with the prompt\'s own ids' % kind)
    lengths = [sum(e['attention_mask']) for e in enc['padded-batch']]
    check(lengths[0] > 9 and lengths[1] > 30, 'the padded batch is %s tokens' % lengths)


# ---------------------------------------------------------------------------------------------------- writing

def write_bf16_shards(directory, w):
    """BF16 safetensors in two shards plus model.safetensors.index.json, as save_pretrained writes a sharded
    checkpoint (here split after the embedding and the first two layers)."""
    names = sorted(w)
    first = [n for n in names if n == 'embed_tokens.weight' or n.startswith(('layers.0.', 'layers.1.'))]
    shards = [('model-00001-of-00002.safetensors', first),
              ('model-00002-of-00002.safetensors', [n for n in names if n not in first])]
    weight_map, total = {}, 0
    for file_name, shard in shards:
        header, offset, blobs = {'__metadata__': {'format': 'pt'}}, 0, []
        for name in shard:
            t = w[name].to(torch.bfloat16).contiguous()
            b = t.view(torch.int16).numpy().astype('<i2').tobytes()
            header[name] = {'dtype': 'BF16', 'shape': list(t.shape), 'data_offsets': [offset, offset + len(b)]}
            offset += len(b)
            blobs.append(b)
            weight_map[name] = file_name
        text = json.dumps(header, separators=(',', ':')).encode()
        text += b' ' * (-len(text) % 8)
        with open(os.path.join(directory, file_name), 'wb') as f:
            f.write(struct.pack('<Q', len(text)))
            f.write(text)
            for b in blobs:
                f.write(b)
        total += offset
    write_json(os.path.join(directory, 'model.safetensors.index.json'),
               {'metadata': {'total_size': total}, 'weight_map': weight_map})


def write_sentence_transformers(directory, dense, with_dense=True):
    """sentence-transformers' files in the hub's layout: modules.json (Transformer, Pooling, Dense, Dense,
    Normalize), 1_Pooling (mean, include_prompt), 2_Dense / 3_Dense (config.json + model.safetensors with
    linear.weight), sentence_bert_config.json, config_sentence_transformers.json (prompts, no default prompt)."""
    modules = [{'idx': 0, 'name': '0', 'path': '', 'type': 'sentence_transformers.models.Transformer'},
               {'idx': 1, 'name': '1', 'path': '1_Pooling', 'type': 'sentence_transformers.models.Pooling'},
               {'idx': 2, 'name': '2', 'path': '2_Dense', 'type': 'sentence_transformers.models.Dense'},
               {'idx': 3, 'name': '3', 'path': '3_Dense', 'type': 'sentence_transformers.models.Dense'},
               {'idx': 4, 'name': '4', 'path': '4_Normalize', 'type': 'sentence_transformers.models.Normalize'}]
    write_json(os.path.join(directory, 'modules.json'), modules, sort=False)
    pooling = {'word_embedding_dimension': HIDDEN, 'pooling_mode_cls_token': False, 'pooling_mode_mean_tokens': True,
               'pooling_mode_max_tokens': False, 'pooling_mode_mean_sqrt_len_tokens': False,
               'pooling_mode_weightedmean_tokens': False, 'pooling_mode_lasttoken': False, 'include_prompt': True}
    os.makedirs(os.path.join(directory, '1_Pooling'))
    write_json(os.path.join(directory, '1_Pooling', 'config.json'), pooling, sort=False)
    if with_dense:
        for path, (inp, out) in (('2_Dense', (HIDDEN, DENSE)), ('3_Dense', (DENSE, HIDDEN))):
            os.makedirs(os.path.join(directory, path))
            write_json(os.path.join(directory, path, 'config.json'),
                       {'in_features': inp, 'out_features': out, 'bias': False,
                        'activation_function': 'torch.nn.modules.linear.Identity'}, sort=False)
            write_safetensors(os.path.join(directory, path, 'model.safetensors'),
                              {'linear.weight': dense[path + '/linear.weight']}, {'format': 'pt'})
    write_json(os.path.join(directory, 'sentence_bert_config.json'), {'max_seq_length': 2048, 'do_lower_case': False},
               sort=False)
    st = {'model_type': 'SentenceTransformer',
          '__version__': {'sentence_transformers': '5.1.0', 'transformers': TRANSFORMERS_VERSION,
                          'pytorch': '2.8.0'},
          'prompts': dict(PROMPTS), 'default_prompt_name': None, 'similarity_fn_name': 'cosine'}
    write_json(os.path.join(directory, 'config_sentence_transformers.json'), st, sort=False)


def batch_case(name, texts, encodings, extra=None):
    case = {'name': name}
    case.update(extra or {})
    case.update(texts=texts, input_ids=[e['ids'] for e in encodings],
                attention_mask=[e['attention_mask'] for e in encodings],
                tokens=[[t for t, m in zip(e['tokens'], e['attention_mask']) if m] for e in encodings])
    return case


# ---------------------------------------------------------------------------------------------------- main

def main():
    scratch = tempfile.mkdtemp(prefix='gemma3-fixtures-')
    try:
        tokenizer = build_tokenizer()
        vocab = tokenizer['model']['vocab']
        tokenizer_text = json.dumps(tokenizer, indent=2, ensure_ascii=False) + '\n'
        tokenizer_file = os.path.join(scratch, 'tokenizer.json')
        with open(tokenizer_file, 'w') as f:
            f.write(tokenizer_text)
        batches = [('padded-batch', PLAIN_TEXTS), ('query', [PROMPTS['query'] + t for t in QUERIES]),
                   ('document', [PROMPTS['document'] + t for t in DOCUMENTS]), ('single', [SINGLE]),
                   ('prompt-query', [PROMPTS['query'].rstrip(' ')]),
                   ('prompt-document', [PROMPTS['document'].rstrip(' ')])]
        answer = node({'op': 'encode', 'file': tokenizer_file, 'save': os.path.join(scratch, 'saved.json'),
                       'batches': [{'name': n, 'inputs': t} for n, t in batches]})
        check_roundtrip(tokenizer, os.path.join(scratch, 'saved.json'))
        check(answer['vocab_size'] == len(vocab), 'the library counts %d tokens, the vocabulary has %d'
              % (answer['vocab_size'], len(vocab)))
        enc = {b['name']: b['encodings'] for b in answer['batches']}
        # the prompt without its trailing space, as its own text: <bos> pieces <eos>; the prompted texts start with
        # those pieces (the space goes to the next word's ▁)
        prompt_ids = {k: enc['prompt-' + k][0]['ids'][:-1] for k in ('query', 'document')}
        check_tokens(enc, vocab, len(vocab), prompt_ids)
    finally:
        shutil.rmtree(scratch)

    cases = [batch_case('padded-batch', PLAIN_TEXTS, enc['padded-batch']),
             batch_case('query', QUERIES, enc['query'], dict(prompt_name='query', prompt=PROMPTS['query'])),
             batch_case('document', DOCUMENTS, enc['document'],
                        dict(prompt_name='document', prompt=PROMPTS['document'])),
             batch_case('single', [SINGLE], enc['single'])]

    config = make_config(len(vocab), 'float32')
    keys = check_mask(config)
    norm_err = check_rms_norm()
    w32, dense = make_weights(config, 300)
    summary = ['sliding window: config 8, each query sees %d keys (|i - j| <= 4); RMSNorm float32 vs float64 %.1e'
               % (keys, norm_err)]
    os.makedirs(OUT, exist_ok=True)
    for name, weights, dtype in (('embeddinggemma', w32, 'float32'), ('embeddinggemma-bf16', to_bf16(w32),
                                                                        'bfloat16')):
        config = make_config(len(vocab), dtype)
        expected, notes, worst = {}, [], 0.0
        with torch.no_grad():
            for i, case in enumerate(cases):
                outputs = run(config, weights, dense, case)
                worst = max(worst, check_case(config, weights, dense, case, outputs))
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value.float()
            notes.append('second encoder %.1e' % worst)
            if name == 'embeddinggemma':
                notes.append('mistakes: ' + ', '.join(check_mistakes(config, weights, dense, cases[0],
                                                                     run(config, weights, dense, cases[0]))))
            else:
                moved = float((expected['case0.last_hidden_state'] - summary_expected).abs().max())
                check(moved > 1e-4, 'bf16 rounding does not show in the outputs (%.1e)' % moved)
                notes.append('bf16 rounding moves case0 by %.1e' % moved)
        summary_expected = expected['case0.last_hidden_state']
        directory = os.path.join(OUT, name)
        if os.path.isdir(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)
        write_json(os.path.join(directory, 'config.json'), config)
        if dtype == 'float32':
            write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(weights.items())),
                              {'format': 'pt'})
        else:
            write_bf16_shards(directory, weights)
        with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
            f.write(tokenizer_text)
        write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(tokenizer))
        write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            f.write(compact_json(cases) + '\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        write_sentence_transformers(directory, dense)
        summary.append('%-22s %s' % (name, '; '.join(notes)))
    # the refusal case: modules.json names the Dense modules, their directories are missing
    directory = os.path.join(OUT, 'embeddinggemma-no-dense')
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    os.makedirs(directory)
    write_json(os.path.join(directory, 'config.json'), make_config(len(vocab), 'float32'))
    write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w32.items())), {'format': 'pt'})
    with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
        f.write(tokenizer_text)
    write_json(os.path.join(directory, 'tokenizer_config.json'), tokenizer_config(tokenizer))
    write_json(os.path.join(directory, 'special_tokens_map.json'), special_tokens_map())
    write_sentence_transformers(directory, dense, with_dense=False)
    summary.append('embeddinggemma-no-dense (no 2_Dense, 3_Dense; no inputs or expected outputs)')
    print('\n'.join(summary))
    print('tokenizer: %d tokens (%d merges); token counts %s' % (
        len(vocab), N_MERGES, {c['name']: [sum(m) for m in c['attention_mask']] for c in cases}))
    print('wrote 3 cases to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
