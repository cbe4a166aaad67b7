#!/usr/bin/env python3
"""Independent float32 reference outputs for vectorbert's engine tests, computed with PyTorch.

The BERT forward pass below is written from Hugging Face transformers' modeling_bert.py semantics
with plain torch operations; it shares no code with vectorbert. Weights are read from
model.safetensors with numpy.

    sudo apt-get install python3-torch python3-numpy
    /usr/bin/python3 make_fixtures.py MODEL_DIR     # MODEL_DIR: bert-base-uncased converted by vectorbert

Writes into engine/src/test/resources/reference/:
    bert-base-uncased.json               the inputs (token ids, type ids) of each case
    bert-base-uncased.safetensors        caseN.last_hidden_state [n, len, 768], caseN.pooler_output [n, 768]
    bert-base-uncased-neuron.safetensors bertviz's seed pair "time flies like an arrow" / "fruit flies like a banana":
                                          layerL.query, layerL.key [heads, len, 64], layerL.attention [heads, len, len]
    tiny-pre-ln/, tiny-post-ln-gelu-new/ random-weight models (config.json, model.safetensors) and
                                          expected.safetensors for a padded batch
"""
import json
import os
import struct
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'reference')
DTYPES = {'F32': np.float32, 'F16': np.float16}

CASES = [
    {'name': 'mask', 'ids': [[101, 3000, 2003, 1996, 103, 1997, 2605, 1012, 102]]},
    {'name': 'sentence', 'ids': [[101, 1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1012, 102]]},
    {'name': 'accents-cjk-numbers', 'ids': [[101, 7668, 2139, 3900, 24728, 1024, 1879, 1755, 1010, 16798, 2549, 999, 102]]},
    {'name': 'pair', 'ids': [[101, 2040, 2626, 8429, 1029, 102, 2520, 8101, 2626, 2009, 2105, 14883, 1012, 102]],
     'types': [[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]]},
    {'name': 'padded-batch', 'ids': [[101, 2460, 3793, 1012, 102],
                                     [101, 1037, 9839, 2936, 6251, 2008, 3791, 11687, 4667, 2005, 1996, 2034, 2028, 1012, 102]]},
    {'name': 'long', 'ids': [[101, 1996, 2489, 4007, 3192, 2003, 1037, 14495, 2007, 1037, 4969, 3260, 2000, 5326, 3274, 5310,
                              4071, 1012, 2057, 6985, 1996, 2916, 1997, 2035, 4007, 5198, 1012, 1996, 15943, 2005, 2087, 4007,
                              1998, 2060, 6742, 2573, 2024, 2881, 2000, 2202, 2185, 2115, 4071, 2000, 3745, 1998, 2689, 1996,
                              2573, 1012, 2011, 5688, 1010, 1996, 27004, 2236, 2270, 6105, 2003, 3832, 2000, 11302, 2115, 4071,
                              2000, 3745, 1998, 2689, 2035, 4617, 1997, 1037, 2565, 1010, 2000, 2191, 2469, 2009, 3464, 2489,
                              4007, 2005, 2035, 2049, 5198, 1012, 102]]},
]


def read_safetensors(path):
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        begin, end = info['data_offsets']
        array = np.frombuffer(data[begin:end], dtype=DTYPES[info['dtype']]).reshape(info['shape'])
        tensors[name] = torch.from_numpy(array.astype(np.float32))
    return tensors


def write_safetensors(path, tensors, metadata=None, dtype='F32', sort=False):
    """safetensors of float tensors ('F32' or 'F16'), in the given order or sorted by name; returns the data size."""
    numpy_type = {'F32': '<f4', 'F16': '<f2'}[dtype]
    header, offset, blobs = {}, 0, []
    if metadata is not None:
        header['__metadata__'] = metadata
    for name in (sorted(tensors) if sort else tensors):
        t = tensors[name]
        b = np.ascontiguousarray(t.detach().numpy().astype(numpy_type)).tobytes()
        header[name] = {'dtype': dtype, 'shape': list(t.shape), 'data_offsets': [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    return offset


def activation(name):
    if name == 'gelu':
        return lambda x: torch.nn.functional.gelu(x)
    if name in ('gelu_new', 'gelu_pytorch_tanh'):
        return lambda x: 0.5 * x * (1.0 + torch.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    if name == 'relu':
        return torch.relu
    raise ValueError(name)


def forward(w, config, ids, types, mask, pooler=True, kept=None):
    """BertModel forward: returns last_hidden_state [n, len, hidden] and pooler_output [n, hidden] (or None).
    With kept (a dict), each layer's queries, keys [n, heads, len, d] and attention probabilities go into it."""
    h, heads = config['hidden_size'], config['num_attention_heads']
    d = h // heads
    eps = config.get('layer_norm_eps', 1e-12)
    act = activation(config.get('hidden_act', 'gelu'))
    pre_ln = config.get('pre_layer_norm', False)
    ln = lambda x, p: torch.nn.functional.layer_norm(x, (h,), w[p + '.weight'], w[p + '.bias'], eps)
    lin = lambda x, p: x @ w[p + '.weight'].T + w[p + '.bias']
    n, length = ids.shape
    positions = torch.arange(length)
    x = w['bert.embeddings.word_embeddings.weight'][ids] + w['bert.embeddings.position_embeddings.weight'][positions] \
        + w['bert.embeddings.token_type_embeddings.weight'][types]
    x = ln(x, 'bert.embeddings.LayerNorm')
    additive = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min

    def attention(t, p):
        split = lambda y: y.view(n, length, heads, d).permute(0, 2, 1, 3)
        q, k, v = (split(lin(t, p + '.attention.self.' + m)) for m in ('query', 'key', 'value'))
        scores = q @ k.transpose(-1, -2) / np.sqrt(d) + additive
        probabilities = torch.softmax(scores, dim=-1)
        if kept is not None:
            kept.setdefault('query', []).append(q)
            kept.setdefault('key', []).append(k)
            kept.setdefault('attention', []).append(probabilities)
        ctx = probabilities @ v
        return lin(ctx.permute(0, 2, 1, 3).reshape(n, length, h), p + '.attention.output.dense')

    for layer in range(config['num_hidden_layers']):
        p = 'bert.encoder.layer.%d' % layer
        if pre_ln:
            x = x + attention(ln(x, p + '.attention.output.LayerNorm'), p)
            x = x + lin(act(lin(ln(x, p + '.output.LayerNorm'), p + '.intermediate.dense')), p + '.output.dense')
        else:
            x = ln(x + attention(x, p), p + '.attention.output.LayerNorm')
            x = ln(x + lin(act(lin(x, p + '.intermediate.dense')), p + '.output.dense'), p + '.output.LayerNorm')
    if config.get('final_layer_norm', False):
        x = ln(x, 'bert.encoder.final_layer_norm')
    pooled = torch.tanh(lin(x[:, 0], 'bert.pooler.dense')) if pooler and 'bert.pooler.dense.weight' in w else None
    return x, pooled


def batch(case):
    seqs = case['ids']
    types = case.get('types', [[0] * len(s) for s in seqs])
    length = max(len(s) for s in seqs)
    pad = lambda rows: torch.tensor([r + [0] * (length - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(s) + [0] * (length - len(s)) for s in seqs])
    return pad(seqs), pad(types), mask


def load(model_dir):
    """A model directory's config.json and weights."""
    with open(os.path.join(model_dir, 'config.json')) as f:
        config = json.load(f)
    return config, read_safetensors(os.path.join(model_dir, 'model.safetensors'))


def real(model_dir):
    config, w = load(model_dir)
    outputs = {}
    with torch.no_grad():
        for i, case in enumerate(CASES):
            ids, types, mask = batch(case)
            hidden, pooled = forward(w, config, ids, types, mask)
            outputs['case%d.last_hidden_state' % i] = hidden
            outputs['case%d.pooler_output' % i] = pooled
    write_safetensors(os.path.join(OUT, 'bert-base-uncased.safetensors'), outputs)
    with open(os.path.join(OUT, 'bert-base-uncased.json'), 'w') as f:
        json.dump(CASES, f, indent=1)


# bertviz's neuron_view example, as bert-base-uncased's tokenizer encodes it.
NEURON_PAIR = {'ids': [[101, 2051, 10029, 2066, 2019, 8612, 102, 5909, 10029, 2066, 1037, 15212, 102]],
               'types': [[0] * 7 + [1] * 6]}


def neuron(model_dir):
    config, w = load(model_dir)
    kept = {}
    with torch.no_grad():
        ids, types, mask = batch(NEURON_PAIR)
        forward(w, config, ids, types, mask, pooler=False, kept=kept)
    outputs = {}
    for layer in range(config['num_hidden_layers']):
        for name in ('query', 'key', 'attention'):
            outputs['layer%d.%s' % (layer, name)] = kept[name][layer][0]
    write_safetensors(os.path.join(OUT, 'bert-base-uncased-neuron.safetensors'), outputs)


def tiny(name, extra_config, seed):
    torch.manual_seed(seed)
    config = {'vocab_size': 50, 'hidden_size': 32, 'num_hidden_layers': 2, 'num_attention_heads': 4,
              'intermediate_size': 64, 'max_position_embeddings': 16, 'type_vocab_size': 2, 'layer_norm_eps': 1e-12}
    config.update(extra_config)
    h, i, layers = config['hidden_size'], config['intermediate_size'], config['num_hidden_layers']
    shapes = {'bert.embeddings.word_embeddings.weight': (50, h), 'bert.embeddings.position_embeddings.weight': (16, h),
              'bert.embeddings.token_type_embeddings.weight': (2, h)}
    norms = ['bert.embeddings.LayerNorm']
    for l in range(layers):
        p = 'bert.encoder.layer.%d.' % l
        for m in ('attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense'):
            shapes[p + m + '.weight'], shapes[p + m + '.bias'] = (h, h), (h,)
        shapes[p + 'intermediate.dense.weight'], shapes[p + 'intermediate.dense.bias'] = (i, h), (i,)
        shapes[p + 'output.dense.weight'], shapes[p + 'output.dense.bias'] = (h, i), (h,)
        norms += [p + 'attention.output.LayerNorm', p + 'output.LayerNorm']
    if config.get('final_layer_norm'):
        norms.append('bert.encoder.final_layer_norm')
    shapes['bert.pooler.dense.weight'], shapes['bert.pooler.dense.bias'] = (h, h), (h,)
    w = {name: torch.randn(shape) * 0.2 for name, shape in shapes.items()}
    for n in norms:
        w[n + '.weight'] = 1.0 + torch.randn(h) * 0.1
        w[n + '.bias'] = torch.randn(h) * 0.1
    directory = os.path.join(OUT, name)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, 'config.json'), 'w') as f:
        json.dump(config, f, indent=1)
    write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())))
    ids, types, mask = batch({'ids': [[1, 7, 12, 49, 3, 2], [1, 30, 2]], 'types': [[0, 0, 0, 1, 1, 1], [0, 0, 0]]})
    with torch.no_grad():
        hidden, pooled = forward(w, config, ids, types, mask)
    write_safetensors(os.path.join(directory, 'expected.safetensors'),
                      {'last_hidden_state': hidden, 'pooler_output': pooled})


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: make_fixtures.py MODEL_DIR')
    os.makedirs(OUT, exist_ok=True)
    real(sys.argv[1])
    neuron(sys.argv[1])
    tiny('tiny-pre-ln', {'pre_layer_norm': True, 'final_layer_norm': True, 'hidden_act': 'gelu'}, 1)
    tiny('tiny-post-ln-gelu-new', {'hidden_act': 'gelu_new'}, 2)
    print('wrote fixtures to', os.path.normpath(OUT))
