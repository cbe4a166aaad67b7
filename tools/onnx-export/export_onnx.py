#!/usr/bin/env python3
"""Exports bert-base-uncased (the same model.safetensors vectorbert loads) to ONNX for the side-by-side
benchmark against ONNX Runtime (bench/compare-onnx). The graph is the PyTorch BERT of
tools/torch-reference/make_fixtures.py, so both engines run the same float32 weights.

    /usr/bin/python3 export_onnx.py MODEL_DIR OUT_DIR

Writes OUT_DIR/encoder.onnx (input_ids, attention_mask, token_type_ids -> last_hidden_state) and
OUT_DIR/mlm.onnx (the same inputs -> logits [batch, length, vocab] at every position, as a BertForMaskedLM
export computes them). Batch and length are dynamic.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'torch-reference'))
from make_fixtures import activation, forward, read_safetensors  # noqa: E402


class Bert(torch.nn.Module):
    def __init__(self, weights, config, mlm):
        super().__init__()
        self.config = config
        self.mlm = mlm
        self.names = sorted(weights)
        # Buffers become the ONNX graph's initializers; '.' is not allowed in buffer names.
        for name in self.names:
            self.register_buffer(name.replace('.', '__'), weights[name])

    def weights(self):
        return {name: getattr(self, name.replace('.', '__')) for name in self.names}

    def forward(self, input_ids, attention_mask, token_type_ids):
        w = self.weights()
        x, _ = forward(w, self.config, input_ids, token_type_ids, attention_mask, pooler=False)
        if not self.mlm:
            return x
        h = self.config['hidden_size']
        t = x @ w['cls.predictions.transform.dense.weight'].T + w['cls.predictions.transform.dense.bias']
        t = activation(self.config.get('hidden_act', 'gelu'))(t)
        t = torch.nn.functional.layer_norm(t, (h,), w['cls.predictions.transform.LayerNorm.weight'],
                                           w['cls.predictions.transform.LayerNorm.bias'],
                                           self.config.get('layer_norm_eps', 1e-12))
        return t @ w['bert.embeddings.word_embeddings.weight'].T + w['cls.predictions.bias']


def main(model_dir, out_dir):
    with open(os.path.join(model_dir, 'config.json')) as f:
        config = json.load(f)
    weights = read_safetensors(os.path.join(model_dir, 'model.safetensors'))
    os.makedirs(out_dir, exist_ok=True)
    ids = torch.tensor([[101, 3000, 2003, 1996, 103, 1997, 2605, 1012, 102]])
    sample = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    axes = {'input_ids': {0: 'batch', 1: 'length'}, 'attention_mask': {0: 'batch', 1: 'length'},
            'token_type_ids': {0: 'batch', 1: 'length'}}
    for name, mlm, output in (('encoder', False, 'last_hidden_state'), ('mlm', True, 'logits')):
        model = Bert(weights, config, mlm).eval()
        path = os.path.join(out_dir, name + '.onnx')
        with torch.no_grad():
            torch.onnx.export(model, sample, path + '.partial', input_names=list(axes), output_names=[output],
                              dynamic_axes=dict(axes, **{output: {0: 'batch', 1: 'length'}}), opset_version=17,
                              do_constant_folding=True)
        os.replace(path + '.partial', path)
        print('wrote', path, os.path.getsize(path), 'bytes')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: export_onnx.py MODEL_DIR OUT_DIR')
    main(sys.argv[1], sys.argv[2])
