#!/usr/bin/env python3
"""Small ONNX graphs that are not BERT encoders, for the importer's refusal tests.

    sudo apt-get install python3-onnx python3-numpy
    /usr/bin/python3 tools/onnx-export/make_test_graphs.py

Writes convert/src/test/resources/onnx/gpt-like.onnx: a decoder-style block (token and position
embeddings named as GPT-2 names them, one MatMul), with a tokenizer.json beside it.
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'convert', 'src', 'test', 'resources', 'onnx')

rng = np.random.default_rng(1)
wte = numpy_helper.from_array(rng.standard_normal((10, 4)).astype(np.float32), 'transformer.wte.weight')
wpe = numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), 'transformer.wpe.weight')
proj = numpy_helper.from_array(rng.standard_normal((4, 4)).astype(np.float32), 'onnx::MatMul_7')
nodes = [
    helper.make_node('Gather', ['transformer.wte.weight', 'input_ids'], ['tok']),
    helper.make_node('MatMul', ['tok', 'onnx::MatMul_7'], ['hidden']),
]
graph = helper.make_graph(nodes, 'gpt-like', [helper.make_tensor_value_info('input_ids', TensorProto.INT64, [1, 'seq'])],
                          [helper.make_tensor_value_info('hidden', TensorProto.FLOAT, [1, 'seq', 4])], [wte, wpe, proj])
model = helper.make_model(graph, producer_name='vectorbert-tests', opset_imports=[helper.make_opsetid('', 14)])
os.makedirs(OUT, exist_ok=True)
onnx.save(model, os.path.join(OUT, 'gpt-like.onnx'))
with open(os.path.join(OUT, 'tokenizer.json'), 'w') as f:
    json.dump({'version': '1.0', 'model': {'type': 'WordPiece', 'unk_token': '[UNK]', 'vocab': {'[UNK]': 0}}}, f)
print('wrote', os.path.normpath(OUT))
