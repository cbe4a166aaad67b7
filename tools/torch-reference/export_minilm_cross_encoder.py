#!/usr/bin/env python3
"""all-MiniLM-L6-v2's encoder with the rerank head trained by train_minilm_heads.py, exported to ONNX with
torch.onnx.export for bench/compare-rerank (langchain4j's OnnxScoringModel runs it).

    /usr/bin/python3 tools/torch-reference/export_minilm_cross_encoder.py MINILM_DIR HEAD_DIR OUT_DIR

MINILM_DIR is `vectorbert convert --from-onnx` of langchain4j's MiniLM jar, HEAD_DIR
engine/src/test/resources/minilm-heads/rerank. Writes OUT_DIR/model.onnx: inputs input_ids, attention_mask,
token_type_ids [batch, sequence] (int64), output logits [batch, 1], float32 weights. The module is
make_family_fixtures.encoder's BERT forward and bert-seqcls head written with float32 tensors (the reference itself
converts to float64, which an export would keep); masked keys get -1e9 added to their scores instead of -inf, as
transformers' exports do. The export's logits are checked against the float64 reference on a few pairs.
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import make_family_fixtures as fam  # noqa: E402
from make_fixtures import read_safetensors  # noqa: E402


def encoder32(config, w, input_ids, attention_mask, token_type_ids):
    """make_family_fixtures.encoder's BERT forward on float32 weights, in float32 (that one computes in float64)."""
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    # A constant normalized_shape: the exporter cannot take one read off the input's shape.
    ln = lambda x, name: torch.nn.functional.layer_norm(x, (config['hidden_size'],), w[name + '.weight'],
                                                        w[name + '.bias'], config['layer_norm_eps'])
    n, length = input_ids.shape[0], input_ids.shape[1]
    positions = torch.arange(length).unsqueeze(0)
    x = (w['bert.embeddings.word_embeddings.weight'][input_ids]
         + w['bert.embeddings.position_embeddings.weight'][positions]
         + w['bert.embeddings.token_type_embeddings.weight'][token_type_ids])
    x = ln(x, 'bert.embeddings.LayerNorm')
    heads = config['num_attention_heads']
    hidden = config['hidden_size']
    d = hidden // heads
    bias = (1.0 - attention_mask[:, None, None, :].float()) * -1e9
    split = lambda y: y.view(n, length, heads, d).transpose(1, 2)
    for layer in range(config['num_hidden_layers']):
        q = 'bert.encoder.layer.%d.' % layer
        query = split(lin(x, q + 'attention.self.query'))
        key = split(lin(x, q + 'attention.self.key'))
        value = split(lin(x, q + 'attention.self.value'))
        p = torch.softmax(query @ key.transpose(-1, -2) / float(np.sqrt(d)) + bias, dim=-1)
        context = (p @ value).transpose(1, 2).reshape(n, length, hidden)
        x = ln(lin(context, q + 'attention.output.dense') + x, q + 'attention.output.LayerNorm')
        x = ln(lin(torch.nn.functional.gelu(lin(x, q + 'intermediate.dense')), q + 'output.dense') + x,
               q + 'output.LayerNorm')
    return x


class CrossEncoder(torch.nn.Module):
    def __init__(self, config, weights):
        super().__init__()
        self.config = config
        self.w = {k: v.float() for k, v in weights.items()}

    def forward(self, input_ids, attention_mask, token_type_ids):
        x = encoder32(self.config, self.w, input_ids, attention_mask, token_type_ids)
        lin = lambda x, name: x @ self.w[name + '.weight'].T + self.w[name + '.bias']
        return lin(torch.tanh(lin(x[:, 0], 'bert.pooler.dense')), 'classifier')


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    minilm, head_dir, out = sys.argv[1:]
    weights = {('bert.' + k): v for k, v in read_safetensors(os.path.join(minilm, 'model.safetensors')).items()}
    weights.update(read_safetensors(os.path.join(head_dir, 'model-00002-of-00002.safetensors')))
    with open(os.path.join(head_dir, 'config.json')) as f:
        config = json.load(f)
    torch.set_default_dtype(torch.float32)
    module = CrossEncoder(config, weights).eval()
    ids = torch.tensor([[101, 2064, 1045, 3745, 102, 2017, 2089, 3745, 1996, 3120, 1012, 102, 0, 0]])
    mask = (ids != 0).long()
    types = torch.tensor([[0] * 5 + [1] * 7 + [0, 0]])
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, 'model.onnx')
    torch.onnx.export(module, (ids, mask, types), path,
                      input_names=['input_ids', 'attention_mask', 'token_type_ids'], output_names=['logits'],
                      dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}, 'attention_mask': {0: 'batch', 1: 'sequence'},
                                    'token_type_ids': {0: 'batch', 1: 'sequence'}, 'logits': {0: 'batch'}},
                      opset_version=14)
    # The float32 module against the float64 reference on the same input (its unpadded part).
    torch.set_default_dtype(torch.float64)
    with torch.no_grad():
        got = module(ids, mask, types)[0, 0].item()
        encoder = {k: v for k, v in weights.items() if not k.startswith(('bert.pooler.', 'classifier.'))}
        h = fam.encoder('bert', config, encoder, ids[:, :12], mask[:, :12], types[:, :12])
        want = fam.heads_forward('bert', 'bert-seqcls', config, weights, h)['logits'][0, 0].item()
    if abs(got - want) > 1e-4:
        sys.exit('the exported module gives %r, the reference %r' % (got, want))
    print('wrote %s (%d bytes); logit %.6f, reference %.6f' % (path, os.path.getsize(path), got, want))


if __name__ == '__main__':
    main()
