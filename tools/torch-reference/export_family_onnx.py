#!/usr/bin/env python3
"""ONNX exports of the family fixtures' random-weight encoders, shaped like optimum's / Xenova's feature-extraction and
text-classification exports, for vectorbert's ONNX importer tests.

    sudo apt-get install python3-torch python3-onnx python3-numpy
    /usr/bin/python3 tools/torch-reference/export_family_onnx.py      # no arguments; a few seconds, the same bytes every run

Each export rebuilds a model from engine/src/test/resources/families/<fixture>/model.safetensors as plain torch modules
(nn.Embedding, nn.Linear, nn.LayerNorm) written from transformers' modeling_distilbert.py, modeling_roberta.py,
modeling_electra.py and modeling_bert.py (eager attention); transformers itself is not used. Parameter names are
exactly the Hugging Face state-dict names of the class exported: no prefix for a *Model (DistilBertModel's
embeddings.word_embeddings.weight), the class's prefix plus its head for a *ForXxx class. Buffers are registered as transformers registers them
(position_ids, and token_type_ids where the model falls back on it), so the graphs carry the same int64 initializers
real exports carry. torch.onnx.export then writes it as optimum does: inputs input_ids, attention_mask and, for ELECTRA
only, token_type_ids (int64, dynamic batch and sequence axes), output last_hidden_state (or logits for a classifier),
opset 14, constant folding on, which is what turns each nn.Linear weight into an unnamed onnx::MatMul_N initializer
[in, out] (its transpose folded) while biases, embeddings and LayerNorm weights keep their names.

Writes into convert/src/test/resources/onnx/families/<name>/:
    model.onnx       the export (float32 weights inside the file)
    tokenizer.json   a WordPiece tokenizer over the words "t0", "t1", ... with the family's special tokens at their ids and
                     its post-processor (BertProcessing, RobertaProcessing); for xlm-roberta a Unigram model over the same
                     words, as XLM-R's sentencepiece tokenizer.json is Unigram

    name                          fixture (families/)            class exported                        output
    distilbert                    distilbert-mlm                 DistilBertModel                       last_hidden_state
    distilbert-sinusoidal-seqcls  distilbert-sinusoidal-seqcls   DistilBertForSequenceClassification   logits
    roberta                       roberta-mlm                    RobertaModel (add_pooling_layer=False) last_hidden_state
    xlm-roberta-seqcls            xlm-roberta-seqcls-regression  XLMRobertaForSequenceClassification   logits
    electra                       electra-discriminator          ElectraModel (embedding_size 16: embeddings_project)
                                                                                                       last_hidden_state
    bert-seqcls                   bert-seqcls-1label             BertForSequenceClassification (a cross-encoder's shape)
                                                                                                       logits
    bert-tokcls                   bert-tokcls                    BertForTokenClassification            logits
    roberta-qa                    roberta-qa                     RobertaForQuestionAnswering           start_logits, end_logits

bert-tokcls's directory also gets the fixture's config.json, as optimum writes one beside model.onnx: the importer
takes the labels from it. BERT's exports take token_type_ids as a third input, as optimum's do.

Self-checks before each file is written (the script stops on the first failure): the module's last hidden state on every
case of the fixture's inputs.json against the fixture's expected.safetensors at the unpadded positions (float32 module
against the float64 reference: within 1e-5), the classifiers' logits against the fixture's too; after the export, the
initializers' names (every named weight is a state-dict name; the unnamed ones are exactly the nn.Linear weights,
transposed) and the graph's inputs and outputs.
"""
import json
import math
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from make_fixtures import read_safetensors  # noqa: E402

FIXTURES = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'families')
OUT = os.path.join(HERE, '..', '..', 'convert', 'src', 'test', 'resources', 'onnx', 'families')
OPSET = 14

torch.set_num_threads(1)
torch.set_default_dtype(torch.float32)


def gelu(x):
    return nn.functional.gelu(x)  # transformers' "gelu": the erf form


# ---------------------------------------------------------------------------------------------------- DistilBERT

class DistilEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c['vocab_size'], c['dim'], padding_idx=c['pad_token_id'])
        self.position_embeddings = nn.Embedding(c['max_position_embeddings'], c['dim'])
        self.LayerNorm = nn.LayerNorm(c['dim'], eps=1e-12)
        self.register_buffer('position_ids', torch.arange(c['max_position_embeddings']).expand((1, -1)),
                             persistent=False)

    def forward(self, input_ids):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        return self.LayerNorm(self.word_embeddings(input_ids) + self.position_embeddings(position_ids))


class DistilAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_heads, self.dim = c['n_heads'], c['dim']
        self.q_lin, self.k_lin, self.v_lin, self.out_lin = (nn.Linear(c['dim'], c['dim']) for _ in range(4))

    def forward(self, x, mask):
        bs, _, _ = x.size()
        k_length = x.size(1)
        dim_per_head = self.dim // self.n_heads
        shape = lambda y: y.view(bs, -1, self.n_heads, dim_per_head).transpose(1, 2)
        unshape = lambda y: y.transpose(1, 2).contiguous().view(bs, -1, self.n_heads * dim_per_head)
        q, k, v = shape(self.q_lin(x)), shape(self.k_lin(x)), shape(self.v_lin(x))
        q = q / math.sqrt(dim_per_head)
        scores = torch.matmul(q, k.transpose(2, 3))
        mask = (mask == 0).view((bs, 1, 1, k_length)).expand_as(scores)
        scores = scores.masked_fill(mask, torch.tensor(torch.finfo(scores.dtype).min))
        weights = nn.functional.softmax(scores, dim=-1)
        return self.out_lin(unshape(torch.matmul(weights, v)))


class DistilFFN(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lin1 = nn.Linear(c['dim'], c['hidden_dim'])
        self.lin2 = nn.Linear(c['hidden_dim'], c['dim'])

    def forward(self, x):
        return self.lin2(gelu(self.lin1(x)))


class DistilBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = DistilAttention(c)
        self.sa_layer_norm = nn.LayerNorm(c['dim'], eps=1e-12)
        self.ffn = DistilFFN(c)
        self.output_layer_norm = nn.LayerNorm(c['dim'], eps=1e-12)

    def forward(self, x, mask):
        sa = self.sa_layer_norm(self.attention(x, mask) + x)
        return self.output_layer_norm(self.ffn(sa) + sa)


class DistilTransformer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(DistilBlock(c) for _ in range(c['n_layers']))

    def forward(self, x, mask):
        for block in self.layer:
            x = block(x, mask)
        return x


class DistilBertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = DistilEmbeddings(c)
        self.transformer = DistilTransformer(c)

    def forward(self, input_ids, attention_mask):
        return self.transformer(self.embeddings(input_ids), attention_mask)


class DistilBertForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.distilbert = DistilBertModel(c)
        self.pre_classifier = nn.Linear(c['dim'], c['dim'])
        self.classifier = nn.Linear(c['dim'], len(c['id2label']))

    def forward(self, input_ids, attention_mask):
        hidden = self.distilbert(input_ids, attention_mask)
        return self.classifier(nn.functional.relu(self.pre_classifier(hidden[:, 0])))


# ---------------------------------------------------------------------------------------------------- BERT's layers
# (RoBERTa and ELECTRA use them as they are)

class SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.num_attention_heads = c['num_attention_heads']
        self.attention_head_size = c['hidden_size'] // c['num_attention_heads']
        self.all_head_size = c['hidden_size']
        self.query, self.key, self.value = (nn.Linear(c['hidden_size'], c['hidden_size']) for _ in range(3))

    def transpose_for_scores(self, x):
        x = x.view(x.size()[:-1] + (self.num_attention_heads, self.attention_head_size))
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden, extended_mask):
        mixed_query_layer = self.query(hidden)
        key_layer = self.transpose_for_scores(self.key(hidden))
        value_layer = self.transpose_for_scores(self.value(hidden))
        query_layer = self.transpose_for_scores(mixed_query_layer)
        scores = torch.matmul(query_layer, key_layer.transpose(-1, -2)) / math.sqrt(self.attention_head_size)
        probs = nn.functional.softmax(scores + extended_mask, dim=-1)
        context = torch.matmul(probs, value_layer).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size()[:-2] + (self.all_head_size,))


class DenseNorm(nn.Module):
    """BertSelfOutput / BertOutput: dense, then LayerNorm of it plus the residual."""

    def __init__(self, inp, out, eps):
        super().__init__()
        self.dense = nn.Linear(inp, out)
        self.LayerNorm = nn.LayerNorm(out, eps=eps)

    def forward(self, x, residual):
        return self.LayerNorm(self.dense(x) + residual)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseNorm(c['hidden_size'], c['hidden_size'], c['layer_norm_eps'])

    def forward(self, x, extended_mask):
        return self.output(self.self(x, extended_mask), x)


class Intermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c['hidden_size'], c['intermediate_size'])

    def forward(self, x):
        return gelu(self.dense(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseNorm(c['intermediate_size'], c['hidden_size'], c['layer_norm_eps'])

    def forward(self, x, extended_mask):
        a = self.attention(x, extended_mask)
        return self.output(self.intermediate(a), a)


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(Layer(c) for _ in range(c['num_hidden_layers']))

    def forward(self, x, extended_mask):
        for layer in self.layer:
            x = layer(x, extended_mask)
        return x


def extended_attention_mask(attention_mask, dtype):
    """get_extended_attention_mask: [batch, 1, 1, keys], 0 where attended, the dtype's minimum where masked."""
    extended = attention_mask[:, None, None, :].to(dtype=dtype)
    return (1.0 - extended) * torch.finfo(dtype).min


class Embeddings(nn.Module):
    """BertEmbeddings / RobertaEmbeddings / ElectraEmbeddings (width embedding_size for ELECTRA)."""

    def __init__(self, c, width, roberta):
        super().__init__()
        pad = c['pad_token_id']
        self.roberta, self.padding_idx = roberta, pad
        self.word_embeddings = nn.Embedding(c['vocab_size'], width, padding_idx=pad)
        self.position_embeddings = nn.Embedding(c['max_position_embeddings'], width,
                                                padding_idx=pad if roberta else None)
        self.token_type_embeddings = nn.Embedding(c['type_vocab_size'], width)
        self.LayerNorm = nn.LayerNorm(width, eps=c['layer_norm_eps'])
        self.register_buffer('position_ids', torch.arange(c['max_position_embeddings']).expand((1, -1)),
                             persistent=False)
        self.register_buffer('token_type_ids', torch.zeros(self.position_ids.size(), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids, token_type_ids=None):
        batch, seq_length = input_ids.size()
        if self.roberta:  # create_position_ids_from_input_ids
            mask = input_ids.ne(self.padding_idx).int()
            position_ids = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + self.padding_idx
        else:
            position_ids = self.position_ids[:, :seq_length]
        if token_type_ids is None:  # the registered buffer, as transformers falls back on it
            token_type_ids = self.token_type_ids[:, :seq_length].expand(batch, seq_length)
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        x = x + self.position_embeddings(position_ids)
        return self.LayerNorm(x)


class RobertaModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = Embeddings(c, c['hidden_size'], roberta=True)
        self.encoder = Encoder(c)

    def forward(self, input_ids, attention_mask):
        return self.encoder(self.embeddings(input_ids), extended_attention_mask(attention_mask, torch.float32))


class RobertaClassificationHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c['hidden_size'], c['hidden_size'])
        self.out_proj = nn.Linear(c['hidden_size'], len(c['id2label']))

    def forward(self, features):
        return self.out_proj(torch.tanh(self.dense(features[:, 0, :])))


class XLMRobertaForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.roberta = RobertaModel(c)
        self.classifier = RobertaClassificationHead(c)

    def forward(self, input_ids, attention_mask):
        return self.classifier(self.roberta(input_ids, attention_mask))


class BertModel(nn.Module):
    def __init__(self, c, add_pooling_layer=True):
        super().__init__()
        self.embeddings = Embeddings(c, c['hidden_size'], roberta=False)
        self.encoder = Encoder(c)
        if add_pooling_layer:
            self.pooler = Pooler(c)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.encoder(self.embeddings(input_ids, token_type_ids), extended_attention_mask(attention_mask, torch.float32))


class Pooler(nn.Module):
    """BertPooler: tanh(dense) at the first token."""

    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c['hidden_size'], c['hidden_size'])

    def forward(self, hidden):
        return torch.tanh(self.dense(hidden[:, 0]))


class BertForSequenceClassification(nn.Module):
    """The pooler, then classifier (dropout is the identity in eval)."""

    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c)
        self.classifier = nn.Linear(c['hidden_size'], len(c['id2label']))

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.classifier(self.bert.pooler(self.bert(input_ids, attention_mask, token_type_ids)))


class BertForTokenClassification(nn.Module):
    """BertModel without the pooler (add_pooling_layer=False), then classifier at every token."""

    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c, add_pooling_layer=False)
        self.classifier = nn.Linear(c['hidden_size'], len(c['id2label']))

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.classifier(self.bert(input_ids, attention_mask, token_type_ids))


class RobertaForQuestionAnswering(nn.Module):
    """RobertaModel without the pooler, then qa_outputs, split into start and end logits as transformers splits them."""

    def __init__(self, c):
        super().__init__()
        self.roberta = RobertaModel(c)
        self.qa_outputs = nn.Linear(c['hidden_size'], 2)

    def forward(self, input_ids, attention_mask):
        start, end = self.qa_outputs(self.roberta(input_ids, attention_mask)).split(1, dim=-1)
        return start.squeeze(-1).contiguous(), end.squeeze(-1).contiguous()


class ElectraModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = Embeddings(c, c['embedding_size'], roberta=False)
        if c['embedding_size'] != c['hidden_size']:
            self.embeddings_project = nn.Linear(c['embedding_size'], c['hidden_size'])
        self.encoder = Encoder(c)

    def forward(self, input_ids, attention_mask, token_type_ids):
        x = self.embeddings(input_ids, token_type_ids)
        if hasattr(self, 'embeddings_project'):
            x = self.embeddings_project(x)
        return self.encoder(x, extended_attention_mask(attention_mask, torch.float32))


# ---------------------------------------------------------------------------------------------------- tokenizers

def tokenizer_json(vocab, specials, unk, post, unigram=False):
    """The engine tests' NumberedTokenizer layout: words "t<id>" split on whitespace, the specials at their ids."""
    added = [dict(id=i, content=s, single_word=False, lstrip='ask' in s, rstrip=False, normalized=False, special=True)
             for i, s in sorted(specials.items())]
    words = [specials.get(i, 't%d' % i) for i in range(vocab)]
    if unigram:  # scores falling with the id; specials 0, as sentencepiece gives control tokens
        model = dict(type='Unigram', unk_id=[i for i, s in specials.items() if s == unk][0],
                     vocab=[[w, 0.0 if i in specials else -float(i) / vocab] for i, w in enumerate(words)])
        pre = dict(type='WhitespaceSplit')
    else:
        model = dict(type='WordPiece', unk_token=unk, continuing_subword_prefix='##', max_input_chars_per_word=100,
                     vocab={w: i for i, w in enumerate(words)})
        pre = dict(type='WhitespaceSplit')
    return {'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': added, 'normalizer': None,
            'pre_tokenizer': pre, 'post_processor': post,
            'decoder': dict(type='WordPiece', prefix='##', cleanup=True), 'model': model}


def bert_tokenizer(vocab):
    post = dict(type='BertProcessing', sep=['[SEP]', 102], cls=['[CLS]', 101])
    return tokenizer_json(vocab, {0: '[PAD]', 100: '[UNK]', 101: '[CLS]', 102: '[SEP]', 103: '[MASK]'}, '[UNK]', post)


def roberta_tokenizer(vocab, unigram=False):
    post = dict(type='RobertaProcessing', sep=['</s>', 2], cls=['<s>', 0], trim_offsets=True, add_prefix_space=False)
    return tokenizer_json(vocab, {0: '<s>', 1: '<pad>', 2: '</s>', 3: '<unk>', vocab - 1: '<mask>'}, '<unk>', post,
                          unigram)


# ---------------------------------------------------------------------------------------------------- exports

# name: fixture, module class, output names, tokenizer
EXPORTS = {
    'distilbert': ('distilbert-mlm', DistilBertModel, ['last_hidden_state'], bert_tokenizer),
    'distilbert-sinusoidal-seqcls': ('distilbert-sinusoidal-seqcls', DistilBertForSequenceClassification, ['logits'],
                                     bert_tokenizer),
    'roberta': ('roberta-mlm', RobertaModel, ['last_hidden_state'], roberta_tokenizer),
    'xlm-roberta-seqcls': ('xlm-roberta-seqcls-regression', XLMRobertaForSequenceClassification, ['logits'],
                           lambda v: roberta_tokenizer(v, unigram=True)),
    'electra': ('electra-discriminator', ElectraModel, ['last_hidden_state'], bert_tokenizer),
    'bert-seqcls': ('bert-seqcls-1label', BertForSequenceClassification, ['logits'], bert_tokenizer),
    'bert-tokcls': ('bert-tokcls', BertForTokenClassification, ['logits'], bert_tokenizer),
    'roberta-qa': ('roberta-qa', RobertaForQuestionAnswering, ['start_logits', 'end_logits'], roberta_tokenizer),
}
# Exports whose directory also holds the fixture's config.json, as optimum writes one beside model.onnx (its labels).
WITH_CONFIG = ('bert-tokcls',)
SEQUENCE = (DistilBertForSequenceClassification, XLMRobertaForSequenceClassification, BertForSequenceClassification)
TOKEN_TYPES = (ElectraModel, BertForSequenceClassification, BertForTokenClassification)
PREFIXES = ('distilbert.', 'roberta.', 'electra.', 'bert.')


def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def load(module, fixture_weights):
    """The module's parameters from the fixture: its own names, or the fixture's with the prefix a *Model lacks."""
    state = {}
    for name, p in module.named_parameters():
        candidates = [name] + [prefix + name for prefix in PREFIXES]
        found = [n for n in candidates if n in fixture_weights]
        check(len(found) == 1, '%s: %d fixture tensors for it' % (name, len(found)))
        check(tuple(fixture_weights[found[0]].shape) == tuple(p.shape), name + ': shape')
        state[name] = fixture_weights[found[0]]
    missing, unexpected = module.load_state_dict(state, strict=False)
    check(not unexpected and all(m.endswith(('position_ids', 'token_type_ids')) for m in missing), 'state dict')
    return module.eval()


def self_check(name, module, fixture, has_types, outputs):
    with open(os.path.join(FIXTURES, fixture, 'inputs.json')) as f:
        cases = json.load(f)
    expected = read_safetensors(os.path.join(FIXTURES, fixture, 'expected.safetensors'))
    worst = 0.0
    for i, case in enumerate(cases):
        ids, mask = torch.tensor(case['input_ids']), torch.tensor(case['attention_mask'])
        args = (ids, mask, torch.tensor(case['token_type_ids'])) if has_types else (ids, mask)
        with torch.no_grad():
            got = module(*args)
        for output, value in zip(outputs, got if isinstance(got, tuple) else (got,)):
            want = expected['case%d.%s' % (i, output)]
            diff = (value - want)[mask.bool()] if output == 'last_hidden_state' else value - want
            diff = diff.abs().max().item()
            check(diff <= 1e-5, '%s case %d: %s differs from the fixture by %g' % (name, i, output, diff))
            worst = max(worst, diff)
    return worst, args


def check_export(path, module, inputs, outputs):
    model = onnx.load(path)
    onnx.checker.check_model(model)
    graph = model.graph
    check([i.name for i in graph.input] == inputs, 'inputs %s' % [i.name for i in graph.input])
    check([o.name for o in graph.output] == outputs, 'outputs %s' % [o.name for o in graph.output])
    params = dict(module.named_parameters())
    linears = {n + '.weight': m.weight for n, m in module.named_modules() if isinstance(m, nn.Linear)}
    unnamed = 0
    for t in graph.initializer:
        value = torch.from_numpy(onnx.numpy_helper.to_array(t).copy())
        if t.name in params:
            check(torch.equal(value, params[t.name].detach()), t.name + ': values')
        elif t.name.startswith('onnx::MatMul_'):
            matches = [n for n, w in linears.items() if tuple(w.shape) == tuple(value.shape[::-1])
                       and torch.equal(w.detach().T, value)]
            check(len(matches) == 1, t.name + ': not exactly one Linear weight, transposed')
            unnamed += 1
        else:
            check(t.name.endswith(('position_ids', 'token_type_ids')) and t.data_type == onnx.TensorProto.INT64,
                  'an initializer that is neither a weight nor a buffer: ' + t.name)
    return len(graph.initializer), unnamed


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, (fixture, cls, outputs, tokenizer) in EXPORTS.items():
        with open(os.path.join(FIXTURES, fixture, 'config.json')) as f:
            config = json.load(f)
        module = load(cls(config), read_safetensors(os.path.join(FIXTURES, fixture, 'model.safetensors')))
        has_types = cls in TOKEN_TYPES
        worst, example = self_check(name, module, fixture, has_types, outputs)
        inputs = ['input_ids', 'attention_mask'] + (['token_type_ids'] if has_types else [])
        axes = {n: {0: 'batch_size', 1: 'sequence_length'} for n in inputs}
        for output in outputs:  # a sequence classifier's logits are per text; the rest per token
            axes[output] = {0: 'batch_size'} if cls in SEQUENCE else {0: 'batch_size', 1: 'sequence_length'}
        directory = os.path.join(OUT, name)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, 'model.onnx')
        torch.onnx.export(module, example, path, input_names=inputs, output_names=outputs, dynamic_axes=axes,
                          opset_version=OPSET, do_constant_folding=True)
        count, unnamed = check_export(path, module, inputs, outputs)
        if name in WITH_CONFIG:
            with open(os.path.join(directory, 'config.json'), 'w') as f:
                json.dump(config, f, indent=2)
                f.write('\n')
        with open(os.path.join(directory, 'tokenizer.json'), 'w') as f:
            json.dump(tokenizer(config['vocab_size']), f, indent=1)
            f.write('\n')
        print('%-30s %7d bytes, %2d initializers (%2d onnx::MatMul_N), %s within %.1e of the fixture'
              % (name, os.path.getsize(path), count, unnamed, ', '.join(outputs), worst))


if __name__ == '__main__':
    main()
