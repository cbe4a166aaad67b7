#!/usr/bin/env python3
"""Random-weight checkpoints of the BERT-family models and task heads vectorbert supports, with independent
reference outputs computed with PyTorch.

The forward passes below are written with plain torch operations from the semantics of Hugging Face transformers'
modeling_bert.py, modeling_distilbert.py, modeling_roberta.py, modeling_xlm_roberta.py, modeling_camembert.py and
modeling_electra.py; they share no code with vectorbert, and transformers itself is not needed. Each case directory
is laid out the way transformers' save_pretrained writes it (config.json, model.safetensors in float32, state-dict
names with the *ForXxx class's prefix), with the test inputs and the expected outputs beside it.

    sudo apt-get install python3-torch python3-numpy
    /usr/bin/python3 make_family_fixtures.py          # no arguments; a few seconds

Writes into engine/src/test/resources/families/<case>/ (the same bytes on every run: numpy's legacy RandomState
draws the weights and token ids, the reference is computed in float64 on one thread, then rounded to float32):
    config.json           the keys transformers 4.x writes for that model_type, sorted, indent 2 (as to_json_string)
    model.safetensors     float32 weights, names sorted, __metadata__ {"format": "pt"}
    inputs.json           a list of cases: name, input_ids, attention_mask and, for BERT and ELECTRA only,
                          token_type_ids (DistilBERT's and RoBERTa's tokenizers return none)
                            case0 padded-batch  two single texts of different length, right-padded with the pad id
                            case1 pair          two text pairs of different length, padded: [CLS] A [SEP] B [SEP] with
                                                token types 0/1 (BERT, ELECTRA), [CLS] A [SEP] B [SEP] without types
                                                (DistilBERT), <s> A </s></s> B </s> (RoBERTa, XLM-R, CamemBERT)
                            case2 single        one unpadded text of 20 tokens
                          MLM cases put the mask token into both rows of case0.
    expected.safetensors  caseN.last_hidden_state [n, len, hidden] and the head's outputs:
                            caseN.pooler_output [n, hidden]        BertForSequenceClassification only (the only class
                                                                   here built with a pooler)
                            caseN.logits [n, len, vocab]           *ForMaskedLM
                            caseN.logits [n, num_labels]           *ForSequenceClassification
                            caseN.logits [n, len, num_labels]      *ForTokenClassification
                            caseN.logits [n, len]                  ElectraForPreTraining (one logit a token)
                            caseN.start_logits, caseN.end_logits [n, len]   *ForQuestionAnswering
                          Padded positions hold what transformers computes there (a pad query still attends to the
                          row's unpadded keys); compare them or mask them, both are defined.

Weight names that are tied, and which of a tied pair the file keeps. save_pretrained's safetensors path drops the
duplicate of a shared tensor, keeping the one that is not in the class's _tied_weights_keys:
    distilbert-mlm        vocab_projector.weight is distilbert.embeddings.word_embeddings.weight: omitted
                          (vocab_projector.bias is its own and present)
    roberta-mlm           lm_head.decoder.weight is roberta.embeddings.word_embeddings.weight: omitted;
                          lm_head.decoder.bias is lm_head.bias: omitted, lm_head.bias present
    camembert-mlm         config tie_word_embeddings false: lm_head.decoder.weight is a separate matrix and present;
                          lm_head.decoder.bias is still lm_head.bias (RobertaLMHead sets self.decoder.bias =
                          self.bias whatever the config says): omitted, lm_head.bias present
    electra-generator-mlm generator_lm_head.weight is electra.embeddings.word_embeddings.weight [vocab, embedding_size]:
                          omitted (generator_lm_head.bias present)
No pooler weights are written for the classes that build their base model with add_pooling_layer=False: every
RoBERTa/XLM-R/CamemBERT head, BertForTokenClassification, BertForQuestionAnswering. ELECTRA and DistilBERT have none.

Weight scale: embedding tables are normal with std 0.02, as transformers initialises them, and a zero pad row
(nn.Embedding padding_idx; for RoBERTa also the position table's padding_idx row); Linear weights have std
1/sqrt(fan_in), so activations stay of order one: at std 0.02 every GELU input would sit near 0.1, where the erf and
tanh GELUs agree to 1e-6, and attention would be almost uniform, so a wrong activation or a missing 1/sqrt(head size)
would not show. Biases have std 0.1, LayerNorm weights are 1 plus std 0.1 and their biases std 0.1, so a dropped bias
or LayerNorm shows.

The DistilBERT sinusoidal table is stored, as transformers stores it: create_sinusoidal_embeddings fills the
position_embeddings.weight parameter (requires_grad False, still a parameter, so in the state dict and saved) with
sin(pos / 10000^(2*(j//2)/dim)) at even j and cos(...) at odd j (interleaved, not two halves), computed in float64
and rounded to float32. A loader may read it or recompute it; both give the same floats.

Self-checks run before a case is written (the script stops on the first failure): RoBERTa position ids for a padded
row; the sinusoidal table against a second formula; for every case and input, the encoder again as a stack of
torch.nn.TransformerEncoderLayer with the same weights (and RoBERTa positions computed a second way), and each row run
alone against the padded batch at its unpadded positions; for the BERT cases, make_fixtures.py's forward (float32)
against this one.
"""
import json
import os
import struct
import sys

import numpy as np
import torch

from make_fixtures import write_safetensors  # noqa: E402  (this directory's sibling script)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', '..', 'engine', 'src', 'test', 'resources', 'families')
TRANSFORMERS_VERSION = '4.44.2'  # nominal: the configs are written here in that version's layout, not by it
HIDDEN, LAYERS, HEADS, INTERMEDIATE, MAX_LEN = 32, 2, 4, 64, 32
NEG = float('-inf')

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

# Special token ids of each family's tokenizer (BERT's uncased vocab; RoBERTa's and XLM-R's fairseq dictionaries;
# CamemBERT's, whose <s> and </s> are 5 and 6, after <s>NOTUSED <pad> </s>NOTUSED <unk> <unk>NOTUSED).
BERT_TOKENS = {'pad': 0, 'cls': 101, 'sep': 102, 'mask': 103, 'specials': (0, 100, 101, 102, 103)}


def roberta_tokens(vocab, bos=0, eos=2):
    """<pad> is 1 and <mask> the last id in all three; <unk> is 3."""
    return {'pad': 1, 'cls': bos, 'sep': eos, 'mask': vocab - 1, 'specials': (0, 1, 2, 3, 4, bos, eos, vocab - 1)}


# ---------------------------------------------------------------------------------------------------- safetensors

def write_json(path, value):
    with open(path, 'w') as f:
        f.write(json.dumps(value, indent=2, sort_keys=True) + '\n')


# ---------------------------------------------------------------------------------------------------- the cases

def labels(*names):
    return {'id2label': {str(i): n for i, n in enumerate(names)}, 'label2id': {n: i for i, n in enumerate(names)}}


NER = labels('O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC')

# name: family, architecture, head, extra config, vocab size
CASES = {
    'distilbert-mlm': ('distilbert', 'DistilBertForMaskedLM', 'distilbert-mlm', {}, 128),
    'distilbert-sinusoidal-seqcls': ('distilbert', 'DistilBertForSequenceClassification', 'distilbert-seqcls',
                                     dict(sinusoidal_pos_embds=True, **labels('NEGATIVE', 'POSITIVE')), 128),
    'distilbert-tokcls': ('distilbert', 'DistilBertForTokenClassification', 'tokcls', dict(NER), 128),
    'distilbert-qa': ('distilbert', 'DistilBertForQuestionAnswering', 'qa', {}, 128),
    'roberta-mlm': ('roberta', 'RobertaForMaskedLM', 'roberta-mlm', {}, 160),
    'roberta-seqcls': ('roberta', 'RobertaForSequenceClassification', 'roberta-seqcls',
                       labels('negative', 'neutral', 'positive'), 160),
    'roberta-tokcls': ('roberta', 'RobertaForTokenClassification', 'tokcls', dict(NER), 160),
    'roberta-qa': ('roberta', 'RobertaForQuestionAnswering', 'qa', {}, 160),
    'xlm-roberta-seqcls-regression': ('xlm-roberta', 'XLMRobertaForSequenceClassification', 'roberta-seqcls',
                                      dict(problem_type='regression', **labels('LABEL_0')), 150),
    'camembert-mlm': ('camembert', 'CamembertForMaskedLM', 'roberta-mlm', dict(tie_word_embeddings=False), 140),
    'electra-discriminator': ('electra', 'ElectraForPreTraining', 'electra-discriminator', {}, 128),
    'electra-generator-mlm': ('electra', 'ElectraForMaskedLM', 'electra-generator', {}, 128),
    'electra-seqcls': ('electra', 'ElectraForSequenceClassification', 'electra-seqcls',
                       dict(embedding_size=HIDDEN, **labels('NEGATIVE', 'POSITIVE')), 128),
    'electra-tokcls': ('electra', 'ElectraForTokenClassification', 'tokcls', dict(NER), 128),
    'bert-seqcls-multilabel': ('bert', 'BertForSequenceClassification', 'bert-seqcls',
                               dict(problem_type='multi_label_classification', **labels('toxic', 'obscene', 'insult')),
                               128),
    'bert-tokcls': ('bert', 'BertForTokenClassification', 'tokcls', dict(NER), 128),
    'bert-qa': ('bert', 'BertForQuestionAnswering', 'qa', {}, 128),
    'bert-seqcls-1label': ('bert', 'BertForSequenceClassification', 'bert-seqcls', labels('LABEL_0'), 128),
}
PREFIX = {'bert': 'bert', 'distilbert': 'distilbert', 'roberta': 'roberta', 'xlm-roberta': 'roberta',
          'camembert': 'roberta', 'electra': 'electra'}
ROBERTA_LIKE = ('roberta', 'xlm-roberta', 'camembert')
SEQUENCE_HEADS = ('distilbert-seqcls', 'roberta-seqcls', 'electra-seqcls', 'bert-seqcls')


def make_config(family, architecture, extra, vocab):
    """config.json as save_pretrained writes it for the model_type (its diff against PretrainedConfig's defaults)."""
    common = {'architectures': [architecture], 'initializer_range': 0.02, 'torch_dtype': 'float32',
              'transformers_version': TRANSFORMERS_VERSION, 'vocab_size': vocab}
    if family == 'distilbert':
        config = dict(common, activation='gelu', attention_dropout=0.1, dim=HIDDEN, dropout=0.1,
                      hidden_dim=INTERMEDIATE,
                      max_position_embeddings=MAX_LEN, model_type='distilbert', n_heads=HEADS, n_layers=LAYERS,
                      pad_token_id=0, qa_dropout=0.1, seq_classif_dropout=0.2, sinusoidal_pos_embds=False,
                      tie_weights_=True)
    else:
        config = dict(common, attention_probs_dropout_prob=0.1, classifier_dropout=None, hidden_act='gelu',
                      hidden_dropout_prob=0.1, hidden_size=HIDDEN, intermediate_size=INTERMEDIATE,
                      num_attention_heads=HEADS, num_hidden_layers=LAYERS, position_embedding_type='absolute',
                      use_cache=True, model_type=family)
        if family in ROBERTA_LIKE:
            bos, eos = (5, 6) if family == 'camembert' else (0, 2)
            config.update(bos_token_id=bos, eos_token_id=eos, layer_norm_eps=1e-05, max_position_embeddings=MAX_LEN + 2,
                          pad_token_id=1, type_vocab_size=1)
        else:
            config.update(layer_norm_eps=1e-12, max_position_embeddings=MAX_LEN, pad_token_id=0, type_vocab_size=2)
        if family == 'electra':
            config.update(embedding_size=HIDDEN // 2, summary_activation='gelu', summary_last_dropout=0.1,
                          summary_type='first', summary_use_proj=True)
    config.update(extra)
    return config


def tokens_of(family, vocab):
    if family in ROBERTA_LIKE:
        return roberta_tokens(vocab, *((5, 6) if family == 'camembert' else (0, 2)))
    return BERT_TOKENS


# ---------------------------------------------------------------------------------------------------- weights

class Weights:
    """Draws tensors in a fixed order from one RandomState; names and values are kept in float32 as saved."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.w = {}

    def put(self, name, array):
        self.w[name] = torch.from_numpy(np.asarray(array, dtype=np.float32))

    def embedding(self, name, rows, cols, padding_idx=None):
        a = self.rng.normal(0.0, 0.02, (rows, cols))
        if padding_idx is not None:
            a[padding_idx] = 0.0
        self.put(name + '.weight', a)

    def linear(self, name, out, inp, bias=True):
        self.put(name + '.weight', self.rng.normal(0.0, 1.0 / np.sqrt(inp), (out, inp)))
        if bias:
            self.put(name + '.bias', self.rng.normal(0.0, 0.1, (out,)))

    def norm(self, name, size):
        self.put(name + '.weight', 1.0 + self.rng.normal(0.0, 0.1, (size,)))
        self.put(name + '.bias', self.rng.normal(0.0, 0.1, (size,)))


def sinusoidal_table(n_pos, dim):
    """transformers' _create_sinusoidal_embeddings: float64 angles, sin at even columns, cos at odd, as float32."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = np.zeros((n_pos, dim), dtype=np.float32)
    out[:, 0::2] = np.sin(position_enc[:, 0::2])
    out[:, 1::2] = np.cos(position_enc[:, 1::2])
    return out


def make_weights(family, head, config, seed):
    g = Weights(seed)
    p, v = PREFIX[family], config['vocab_size']
    if family == 'distilbert':
        h, i = config['dim'], config['hidden_dim']
        g.embedding(p + '.embeddings.word_embeddings', v, h, padding_idx=config['pad_token_id'])
        g.embedding(p + '.embeddings.position_embeddings', config['max_position_embeddings'], h)
        if config['sinusoidal_pos_embds']:
            g.put(p + '.embeddings.position_embeddings.weight', sinusoidal_table(config['max_position_embeddings'], h))
        g.norm(p + '.embeddings.LayerNorm', h)
        for layer in range(config['n_layers']):
            q = '%s.transformer.layer.%d.' % (p, layer)
            for m in ('q_lin', 'k_lin', 'v_lin', 'out_lin'):
                g.linear(q + 'attention.' + m, h, h)
            g.norm(q + 'sa_layer_norm', h)
            g.linear(q + 'ffn.lin1', i, h)
            g.linear(q + 'ffn.lin2', h, i)
            g.norm(q + 'output_layer_norm', h)
    else:
        h, i = config['hidden_size'], config['intermediate_size']
        e = config.get('embedding_size', h)
        pad = config['pad_token_id']
        g.embedding(p + '.embeddings.word_embeddings', v, e, padding_idx=pad)
        g.embedding(p + '.embeddings.position_embeddings', config['max_position_embeddings'], e,
                    padding_idx=pad if family in ROBERTA_LIKE else None)
        g.embedding(p + '.embeddings.token_type_embeddings', config['type_vocab_size'], e)
        g.norm(p + '.embeddings.LayerNorm', e)
        if e != h:
            g.linear(p + '.embeddings_project', h, e)
        for layer in range(config['num_hidden_layers']):
            q = '%s.encoder.layer.%d.' % (p, layer)
            for m in ('query', 'key', 'value'):
                g.linear(q + 'attention.self.' + m, h, h)
            g.linear(q + 'attention.output.dense', h, h)
            g.norm(q + 'attention.output.LayerNorm', h)
            g.linear(q + 'intermediate.dense', i, h)
            g.linear(q + 'output.dense', h, i)
            g.norm(q + 'output.LayerNorm', h)
    n = len(config.get('id2label', {0: 0, 1: 1}))
    if head == 'distilbert-mlm':
        g.linear('vocab_transform', h, h)
        g.norm('vocab_layer_norm', h)
        g.put('vocab_projector.bias', g.rng.normal(0.0, 0.1, (v,)))
    elif head == 'distilbert-seqcls':
        g.linear('pre_classifier', h, h)
        g.linear('classifier', n, h)
    elif head == 'roberta-mlm':
        g.linear('lm_head.dense', h, h)
        g.norm('lm_head.layer_norm', h)
        g.put('lm_head.bias', g.rng.normal(0.0, 0.1, (v,)))
        if not config.get('tie_word_embeddings', True):
            g.linear('lm_head.decoder', v, h, bias=False)
    elif head == 'roberta-seqcls':
        g.linear('classifier.dense', h, h)
        g.linear('classifier.out_proj', n, h)
    elif head == 'electra-discriminator':
        g.linear('discriminator_predictions.dense', h, h)
        g.linear('discriminator_predictions.dense_prediction', 1, h)
    elif head == 'electra-generator':
        g.linear('generator_predictions.dense', e, h)
        g.norm('generator_predictions.LayerNorm', e)
        g.put('generator_lm_head.bias', g.rng.normal(0.0, 0.1, (v,)))
    elif head == 'electra-seqcls':
        g.linear('classifier.dense', h, h)
        g.linear('classifier.out_proj', n, h)
    elif head == 'bert-seqcls':
        g.linear('bert.pooler.dense', h, h)
        g.linear('classifier', n, h)
    elif head == 'tokcls':
        g.linear('classifier', n, h)
    elif head == 'qa':
        g.linear('qa_outputs', 2, h)
    else:
        raise ValueError(head)
    return g.w


# ---------------------------------------------------------------------------------------------------- inputs

def make_inputs(family, tokens, seed, mlm):
    """The three cases of inputs.json: padded batch, padded pair batch, one unpadded text."""
    rng = np.random.RandomState(seed)

    def text(n):
        out = []
        while len(out) < n:
            t = int(rng.randint(0, tokens['vocab']))
            if t not in tokens['specials'] and t != tokens['pad']:
                out.append(t)
        return out

    cls, sep, pad = tokens['cls'], tokens['sep'], tokens['pad']
    roberta = family in ROBERTA_LIKE
    with_types = family in ('bert', 'electra')

    def single(a):
        return [cls] + a + [sep], [0] * (len(a) + 2)

    def pair(a, b):
        if roberta:
            return [cls] + a + [sep, sep] + b + [sep], [0] * (len(a) + len(b) + 4)
        return [cls] + a + [sep] + b + [sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)

    rows0 = [single(text(4)), single(text(10))]
    if mlm:
        for ids, _ in rows0:
            ids[2] = tokens['mask']
    rows1 = [pair(text(3), text(5)), pair(text(5), text(8))]
    rows2 = [single(text(18))]
    cases = []
    for name, rows in (('padded-batch', rows0), ('pair', rows1), ('single', rows2)):
        length = max(len(ids) for ids, _ in rows)
        case = {'name': name,
                'input_ids': [ids + [pad] * (length - len(ids)) for ids, _ in rows],
                'attention_mask': [[1] * len(ids) + [0] * (length - len(ids)) for ids, _ in rows]}
        if with_types:
            case['token_type_ids'] = [types + [0] * (length - len(types)) for _, types in rows]
        cases.append(case)
    return cases


# ---------------------------------------------------------------------------------------------------- forward

def gelu(x):
    """transformers' "gelu" (GELUActivation): the exact erf form."""
    return torch.nn.functional.gelu(x)


def position_ids_from_input_ids(ids, padding_idx):
    """RoBERTa's create_position_ids_from_input_ids: padding_idx + running count of non-pad tokens; a pad gets
    padding_idx."""
    mask = (ids != padding_idx).long()
    return torch.cumsum(mask, dim=1) * mask + padding_idx


def encoder(family, config, w, ids, mask, types):
    """The base model's last_hidden_state, in float64."""
    w = {k: t.double() for k, t in w.items()}
    p = PREFIX[family]
    n, length = ids.shape
    distil = family == 'distilbert'
    h = config['dim'] if distil else config['hidden_size']
    heads = config['n_heads'] if distil else config['num_attention_heads']
    layers = config['n_layers'] if distil else config['num_hidden_layers']
    eps = 1e-12 if distil else config['layer_norm_eps']
    act = gelu  # every case here has hidden_act / activation "gelu"
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    ln = lambda x, name: torch.nn.functional.layer_norm(x, x.shape[-1:], w[name + '.weight'], w[name + '.bias'], eps)

    if family in ROBERTA_LIKE:
        positions = position_ids_from_input_ids(ids, config['pad_token_id'])
    else:
        positions = torch.arange(length).expand(n, length)
    x = w[p + '.embeddings.word_embeddings.weight'][ids] + w[p + '.embeddings.position_embeddings.weight'][positions]
    if not distil:
        x = x + w[p + '.embeddings.token_type_embeddings.weight'][types]
    x = ln(x, p + '.embeddings.LayerNorm')
    if p + '.embeddings_project.weight' in w:
        x = lin(x, p + '.embeddings_project')

    d = h // heads
    key_mask = (mask == 0)[:, None, None, :]
    if distil:
        names = dict(q='attention.q_lin', k='attention.k_lin', v='attention.v_lin', o='attention.out_lin',
                     ln1='sa_layer_norm', up='ffn.lin1', down='ffn.lin2', ln2='output_layer_norm')
        layer_name = p + '.transformer.layer.%d.'
    else:
        names = dict(q='attention.self.query', k='attention.self.key', v='attention.self.value',
                     o='attention.output.dense', ln1='attention.output.LayerNorm', up='intermediate.dense',
                     down='output.dense', ln2='output.LayerNorm')
        layer_name = p + '.encoder.layer.%d.'
    split = lambda y: y.view(n, length, heads, d).transpose(1, 2)
    for layer in range(layers):
        q = layer_name % layer
        query, key, value = (split(lin(x, q + names[m])) for m in 'qkv')
        scores = (query @ key.transpose(-1, -2)) / np.sqrt(d)
        probabilities = torch.softmax(scores.masked_fill(key_mask, NEG), dim=-1)
        context = (probabilities @ value).transpose(1, 2).reshape(n, length, h)
        x = ln(lin(context, q + names['o']) + x, q + names['ln1'])
        x = ln(lin(act(lin(x, q + names['up'])), q + names['down']) + x, q + names['ln2'])
    return x


def heads_forward(family, head, config, w, hidden):
    """The task head's outputs (dropout is identity at inference)."""
    w = {k: t.double() for k, t in w.items()}
    p = PREFIX[family]
    lin = lambda x, name: x @ w[name + '.weight'].T + w[name + '.bias']
    eps = 1e-12 if family == 'distilbert' else config['layer_norm_eps']
    ln = lambda x, name: torch.nn.functional.layer_norm(x, x.shape[-1:], w[name + '.weight'], w[name + '.bias'], eps)
    word = w[p + '.embeddings.word_embeddings.weight']
    out = {}
    if head == 'distilbert-mlm':
        # vocab_transform -> get_activation(config.activation) -> vocab_layer_norm (eps 1e-12) -> vocab_projector
        x = ln(gelu(lin(hidden, 'vocab_transform')), 'vocab_layer_norm')
        out['logits'] = x @ word.T + w['vocab_projector.bias']
    elif head == 'distilbert-seqcls':
        # hidden[:, 0] -> pre_classifier -> nn.ReLU() -> classifier
        out['logits'] = lin(torch.relu(lin(hidden[:, 0], 'pre_classifier')), 'classifier')
    elif head == 'roberta-mlm':
        # RobertaLMHead: dense -> gelu (always, not config.hidden_act) -> layer_norm -> decoder (+ lm_head.bias)
        x = ln(gelu(lin(hidden, 'lm_head.dense')), 'lm_head.layer_norm')
        decoder = w.get('lm_head.decoder.weight', word)
        out['logits'] = x @ decoder.T + w['lm_head.bias']
    elif head in ('roberta-seqcls', 'electra-seqcls'):
        # RobertaClassificationHead: <s> -> dense -> tanh -> out_proj;
        # ElectraClassificationHead: [CLS] -> dense -> get_activation("gelu") -> out_proj
        f = torch.tanh if head == 'roberta-seqcls' else gelu
        out['logits'] = lin(f(lin(hidden[:, 0], 'classifier.dense')), 'classifier.out_proj')
    elif head == 'electra-discriminator':
        # ElectraDiscriminatorPredictions: dense -> get_activation(config.hidden_act) -> dense_prediction -> squeeze(-1)
        x = gelu(lin(hidden, 'discriminator_predictions.dense'))
        out['logits'] = lin(x, 'discriminator_predictions.dense_prediction').squeeze(-1)
    elif head == 'electra-generator':
        # ElectraGeneratorPredictions: dense (hidden -> embedding_size) -> get_activation("gelu") -> LayerNorm;
        # generator_lm_head: Linear(embedding_size, vocab) tied to the word embeddings
        x = ln(gelu(lin(hidden, 'generator_predictions.dense')), 'generator_predictions.LayerNorm')
        out['logits'] = x @ word.T + w['generator_lm_head.bias']
    elif head == 'bert-seqcls':
        # BertPooler: tanh(dense(hidden[:, 0])) -> classifier
        pooled = torch.tanh(lin(hidden[:, 0], 'bert.pooler.dense'))
        out['pooler_output'] = pooled
        out['logits'] = lin(pooled, 'classifier')
    elif head == 'tokcls':
        out['logits'] = lin(hidden, 'classifier')
    elif head == 'qa':
        logits = lin(hidden, 'qa_outputs')
        out['start_logits'], out['end_logits'] = logits[..., 0], logits[..., 1]
    else:
        raise ValueError(head)
    return out


def run(family, head, config, w, case):
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    types = torch.tensor(case['token_type_ids']) if 'token_type_ids' in case else torch.zeros_like(ids)
    hidden = encoder(family, config, w, ids, mask, types)
    return dict(last_hidden_state=hidden, **heads_forward(family, head, config, w, hidden))


# ---------------------------------------------------------------------------------------------------- self-checks

def check(condition, message):
    if not condition:
        sys.exit('self-check failed: ' + message)


def check_padding(family, head, config, w, case, outputs):
    """Each row alone, unpadded, gives the padded batch's values at its real positions."""
    for r, row_mask in enumerate(case['attention_mask']):
        n = sum(row_mask)
        alone = {k: [v[r][:n]] for k, v in case.items() if k != 'name'}
        for name, value in run(family, head, config, w, alone).items():
            batched = outputs[name][r:r + 1]
            if per_token(head, name):
                batched = batched[:, :n]
            diff = (value - batched).abs().max().item()
            check(diff < 1e-9, '%s row %d %s: padded and unpadded differ by %g' % (case['name'], r, name, diff))


def per_token(head, name):
    return name != 'pooler_output' and not (name == 'logits' and head in SEQUENCE_HEADS)


def check_against_make_fixtures(config, w, case):
    """BERT's encoder and pooler here against make_fixtures.py's forward, which is written separately."""
    sys.path.insert(0, HERE)
    sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
    import make_fixtures
    ids = torch.tensor(case['input_ids'])
    types = torch.tensor(case['token_type_ids'])
    mask = torch.tensor(case['attention_mask'])
    with torch.no_grad():
        theirs_hidden, theirs_pooled = make_fixtures.forward({k: t.float() for k, t in w.items()}, config, ids, types,
                                                             mask)
    ours = run('bert', 'bert-seqcls', config, w, case)
    valid = mask.bool()
    d1 = (ours['last_hidden_state'][valid] - theirs_hidden.double()[valid]).abs().max().item()
    d2 = (ours['pooler_output'] - theirs_pooled.double()).abs().max().item()
    check(d1 < 1e-4 and d2 < 1e-4, 'BERT forward differs from make_fixtures.forward by %g / %g' % (d1, d2))
    return max(d1, d2)


def check_against_torch_layers(family, config, w, case, hidden):
    """The encoder layers again, as torch.nn.TransformerEncoderLayer (post-LN, GELU, key padding mask) loaded with
    the same weights: a second implementation of the attention and feed-forward blocks for every family."""
    w = {k: t.double() for k, t in w.items()}
    p = PREFIX[family]
    ids = torch.tensor(case['input_ids'])
    mask = torch.tensor(case['attention_mask'])
    types = torch.tensor(case['token_type_ids']) if 'token_type_ids' in case else torch.zeros_like(ids)
    distil = family == 'distilbert'
    h = config['dim'] if distil else config['hidden_size']
    e = config.get('embedding_size', h)
    eps = 1e-12 if distil else config['layer_norm_eps']
    if family in ROBERTA_LIKE:  # fairseq's make_positions, written the other way round
        pad = config['pad_token_id']
        positions = torch.tensor([[pad + sum(row[:j + 1]) if row[j] else pad for j in range(len(row))]
                                  for row in (ids != pad).long().tolist()])
    else:
        positions = torch.arange(ids.shape[1])[None, :]
    emb = torch.nn.Embedding.from_pretrained(w[p + '.embeddings.word_embeddings.weight'])(ids) \
        + torch.nn.Embedding.from_pretrained(w[p + '.embeddings.position_embeddings.weight'])(positions)
    if not distil:
        emb = emb + torch.nn.Embedding.from_pretrained(w[p + '.embeddings.token_type_embeddings.weight'])(types)
    norm = torch.nn.LayerNorm(e, eps=eps).double()
    norm.load_state_dict({'weight': w[p + '.embeddings.LayerNorm.weight'], 'bias': w[p + '.embeddings.LayerNorm.bias']})
    x = norm(emb)
    if p + '.embeddings_project.weight' in w:
        x = torch.nn.functional.linear(x, w[p + '.embeddings_project.weight'], w[p + '.embeddings_project.bias'])
    layers = config['n_layers'] if distil else config['num_hidden_layers']
    for layer in range(layers):
        block = torch.nn.TransformerEncoderLayer(h, config['n_heads'] if distil else config['num_attention_heads'],
                                                 config['hidden_dim'] if distil else config['intermediate_size'],
                                                 dropout=0.0, activation='gelu', layer_norm_eps=eps, batch_first=True,
                                                 norm_first=False).double().eval()
        if distil:
            q = '%s.transformer.layer.%d.' % (p, layer)
            qkv = [q + 'attention.' + m for m in ('q_lin', 'k_lin', 'v_lin')]
            o, ln1, up, down, ln2 = (q + m for m in ('attention.out_lin', 'sa_layer_norm', 'ffn.lin1', 'ffn.lin2',
                                                      'output_layer_norm'))
        else:
            q = '%s.encoder.layer.%d.' % (p, layer)
            qkv = [q + 'attention.self.' + m for m in ('query', 'key', 'value')]
            o, ln1, up, down, ln2 = (q + m for m in ('attention.output.dense', 'attention.output.LayerNorm',
                                                      'intermediate.dense', 'output.dense', 'output.LayerNorm'))
        block.load_state_dict({
            'self_attn.in_proj_weight': torch.cat([w[n + '.weight'] for n in qkv]),
            'self_attn.in_proj_bias': torch.cat([w[n + '.bias'] for n in qkv]),
            'self_attn.out_proj.weight': w[o + '.weight'], 'self_attn.out_proj.bias': w[o + '.bias'],
            'linear1.weight': w[up + '.weight'], 'linear1.bias': w[up + '.bias'],
            'linear2.weight': w[down + '.weight'], 'linear2.bias': w[down + '.bias'],
            'norm1.weight': w[ln1 + '.weight'], 'norm1.bias': w[ln1 + '.bias'],
            'norm2.weight': w[ln2 + '.weight'], 'norm2.bias': w[ln2 + '.bias']})
        x = block(x, src_key_padding_mask=mask == 0)
    valid = mask.bool()
    diff = (x[valid] - hidden[valid]).abs().max().item()
    check(diff < 1e-9, '%s %s: encoder differs from torch.nn.TransformerEncoderLayer by %g'
          % (family, case['name'], diff))


def check_invariants():
    ids = torch.tensor([[0, 31, 47, 2, 1, 1], [0, 5, 6, 7, 8, 2]])
    got = position_ids_from_input_ids(ids, 1).tolist()
    check(got == [[2, 3, 4, 5, 1, 1], [2, 3, 4, 5, 6, 7]], 'RoBERTa position ids %s' % got)
    table = torch.from_numpy(sinusoidal_table(MAX_LEN, HIDDEN)).double()
    pos = torch.arange(MAX_LEN, dtype=torch.float64)[:, None]
    i = torch.arange(HIDDEN // 2, dtype=torch.float64)[None, :]
    angle = pos * torch.exp(-np.log(10000.0) * 2 * i / HIDDEN)
    other = torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).reshape(MAX_LEN, HIDDEN)
    diff = (table - other).abs().max().item()
    check(diff < 1e-6, 'sinusoidal table differs from the closed form by %g' % diff)
    check(table[0, 0] == 0 and table[0, 1] == 1, 'sinusoidal row 0 is not sin 0, cos 0 interleaved')


# ---------------------------------------------------------------------------------------------------- main

def main():
    check_invariants()
    os.makedirs(OUT, exist_ok=True)
    summary = []
    for seed, (name, (family, architecture, head, extra, vocab)) in enumerate(CASES.items(), start=100):
        config = make_config(family, architecture, extra, vocab)
        w = make_weights(family, head, config, seed)
        tokens = dict(tokens_of(family, vocab), vocab=vocab)
        cases = make_inputs(family, tokens, seed, mlm=head in ('distilbert-mlm', 'roberta-mlm', 'electra-generator'))
        expected, note = {}, ''
        with torch.no_grad():
            for i, case in enumerate(cases):
                outputs = run(family, head, config, w, case)
                check_padding(family, head, config, w, case, outputs)
                check_against_torch_layers(family, config, w, case, outputs['last_hidden_state'])
                if family == 'bert' and head == 'bert-seqcls':
                    diff = check_against_make_fixtures(config, w, case)
                    note = '  (make_fixtures.forward agrees to %.1e)' % diff if i == 0 else note
                for key, value in outputs.items():
                    expected['case%d.%s' % (i, key)] = value.float()
        directory = os.path.join(OUT, name)
        os.makedirs(directory, exist_ok=True)
        write_json(os.path.join(directory, 'config.json'), config)
        write_safetensors(os.path.join(directory, 'model.safetensors'), dict(sorted(w.items())), {'format': 'pt'})
        with open(os.path.join(directory, 'inputs.json'), 'w') as f:
            json.dump(cases, f, indent=1)
            f.write('\n')
        write_safetensors(os.path.join(directory, 'expected.safetensors'), expected)
        summary.append('%-30s %s%s' % (name, ' '.join(sorted(k[6:] for k in expected if k.startswith('case0.'))), note))
    print('\n'.join(summary))
    print('wrote', len(CASES), 'cases to', os.path.normpath(OUT))


if __name__ == '__main__':
    main()
