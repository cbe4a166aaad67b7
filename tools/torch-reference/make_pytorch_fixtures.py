#!/usr/bin/env python3
"""Files written by torch.save, beside the same tensors as safetensors, for vectorbert's PyTorch reader (PytorchFile).

The safetensors twins are written by hand here (header JSON plus raw little-endian bytes), so a test can compare every
tensor bit for bit. The hostile files (a pickle naming os.system, a Counter, a compressed record, a big-endian file)
are written as bytes or by torch.save of harmless objects; nothing here loads them.

    sudo apt-get install python3-torch python3-numpy
    /usr/bin/python3 tools/torch-reference/make_pytorch_fixtures.py

Writes into loader/src/test/resources/pytorch/ (see its README.md), and
engine/src/test/resources/pytorch/bert-seqcls-1label/pytorch_model.bin: the weights of the family fixture
bert-seqcls-1label re-saved by torch.
"""
import collections
import io
import json
import os
import struct
import zipfile

import numpy as np
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(ROOT, 'loader', 'src', 'test', 'resources', 'pytorch')
ENGINE_OUT = os.path.join(ROOT, 'engine', 'src', 'test', 'resources', 'pytorch', 'bert-seqcls-1label')
FAMILY = os.path.join(ROOT, 'engine', 'src', 'test', 'resources', 'families', 'bert-seqcls-1label')

ST_NAMES = {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16', torch.float64: 'F64',
            torch.int64: 'I64', torch.int32: 'I32', torch.int16: 'I16', torch.int8: 'I8', torch.uint8: 'U8',
            torch.bool: 'BOOL'}
ST_TYPES = {v: k for k, v in ST_NAMES.items()}


def raw_bytes(t):
    """A tensor's elements, row-major, as little-endian bytes (this machine is little-endian)."""
    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, t in tensors.items():
        b = raw_bytes(t)
        header[name] = {'dtype': ST_NAMES[t.dtype], 'shape': list(t.shape), 'data_offsets': [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + b''.join(blobs))


def read_safetensors(path):
    with open(path, 'rb') as f:
        data = f.read()
    n = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = collections.OrderedDict()
    for name, info in header.items():
        if name == '__metadata__':
            continue
        begin, end = info['data_offsets']
        raw = torch.frombuffer(bytearray(data[8 + n + begin:8 + n + end]), dtype=torch.uint8)
        out[name] = raw.view(ST_TYPES[info['dtype']]).reshape(info['shape']).clone()
    return out


def entries(path):
    """A torch zip's records, in order, as (name, bytes)."""
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def write_zip(path, records, deflate=()):
    """A zip like PyTorchStreamWriter's: stored records, each record's data 64-byte aligned through an 'FB' extra field."""
    with open(path, 'wb') as f, zipfile.ZipFile(f, 'w') as z:
        for name, data in records:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if name in deflate else zipfile.ZIP_STORED
            start = f.tell() + 30 + len(name.encode()) + 4
            pad = -start % 64
            info.extra = b'FB' + struct.pack('<H', pad) + b'Z' * pad
            z.writestr(info, data)


def write_zip64(path, records):
    """Stored records whose central directory gives every size and offset in a ZIP64 extra field (the all-ones
    values torch's miniz writes past 4 GB), and a ZIP64 end record with its locator: ZIP64 without a 4 GB file."""
    out, central = bytearray(), bytearray()
    for name, data in records:
        n = name.encode()
        offset = len(out)
        pad = -(offset + 30 + len(n) + 4) % 64
        extra = b'FB' + struct.pack('<H', pad) + b'Z' * pad
        crc = zipfile.crc32(data)
        out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 45, 0, 0, 0, 0x21, crc, len(data), len(data), len(n), len(extra))
        out += n + extra + data
        wide = struct.pack('<HHQQQ', 1, 24, len(data), len(data), offset)
        central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 45, 45, 0, 0, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                               len(n), len(wide), 0, 0, 0, 0, 0xFFFFFFFF) + n + wide
    cd_offset = len(out)
    out += central
    end64 = len(out)
    out += struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, len(records), len(records), len(central), cd_offset)
    out += struct.pack('<IIQI', 0x07064b50, 0, end64, 1)
    out += struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(path, 'wb') as f:
        f.write(out)
    with zipfile.ZipFile(path) as z:  # Python's own reader agrees on every record
        assert [(i.filename, z.read(i.filename)) for i in z.infolist()] == list(records)


def save(obj, name, **kwargs):
    torch.save(obj, os.path.join(OUT, name), **kwargs)


def main():
    os.makedirs(OUT, exist_ok=True)
    g = torch.Generator().manual_seed(53)

    # float32, three tensors viewing one storage (offsets 0, 12, 16) and one of their own; a module's _metadata (BUILD)
    base = torch.randn(6, 4, generator=g)
    shared = collections.OrderedDict()
    shared['a.weight'] = base[:3]
    shared['a.bias'] = base[3]
    shared['b.weight'] = base[4:]
    shared['c.weight'] = torch.randn(3, 2, generator=g)
    shared._metadata = collections.OrderedDict([('', {'version': 1}), ('a', {'version': 1})])
    save(shared, 'shared-f32.bin')
    write_safetensors(os.path.join(OUT, 'shared-f32.safetensors'), shared)

    # every dtype a state dict may hold, a 0-d tensor and a tensor with no elements
    dtypes = collections.OrderedDict()
    dtypes['bf16'] = torch.randn(2, 3, generator=g).to(torch.bfloat16)
    dtypes['f16'] = torch.randn(5, generator=g).to(torch.float16)
    dtypes['f64'] = torch.randn(2, generator=g).to(torch.float64)
    dtypes['scalar'] = torch.tensor(2.5)
    dtypes['position_ids'] = torch.arange(7).reshape(1, 7)
    dtypes['i32'] = torch.tensor([-1, 2, 3], dtype=torch.int32)
    dtypes['i16'] = torch.tensor([-4, 5], dtype=torch.int16)
    dtypes['i8'] = torch.tensor([-6, 7], dtype=torch.int8)
    dtypes['u8'] = torch.tensor([250, 7], dtype=torch.uint8)
    dtypes['mask'] = torch.tensor([True, False, True])
    dtypes['empty'] = torch.zeros(0, 4)
    save(dtypes, 'dtypes.bin')
    write_safetensors(os.path.join(OUT, 'dtypes.safetensors'), dtypes)

    # the rest of what torch 1.13 writes: over 256 memo entries (LONG_BINPUT, LONG_BINGET), sizes past one byte
    # (BININT2), two bytes (BININT) and four (LONG1), three dimensions (TUPLE3), and nn.Parameter (_rebuild_parameter)
    opcodes = collections.OrderedDict(('layer.%d' % i, torch.randn(2, generator=g)) for i in range(40))
    opcodes['wide'] = torch.zeros(0, 300)
    opcodes['wider'] = torch.zeros(70000, 0)
    opcodes['widest'] = torch.zeros(0, 2 ** 40)
    opcodes['cube'] = torch.randn(2, 1, 3, generator=g)
    opcodes['parameter'] = torch.nn.Parameter(torch.randn(3, generator=g))
    save(opcodes, 'opcodes.bin')
    write_safetensors(os.path.join(OUT, 'opcodes.safetensors'), opcodes)

    # a model directory with only pytorch_model.bin, and one with two shards and their index
    config = json.dumps({'model_type': 'bert'}) + '\n'
    single = os.path.join(OUT, 'single')
    os.makedirs(single, exist_ok=True)
    torch.save(shared, os.path.join(single, 'pytorch_model.bin'))
    with open(os.path.join(single, 'config.json'), 'w') as f:
        f.write(config)
    sharded = os.path.join(OUT, 'sharded')
    os.makedirs(sharded, exist_ok=True)
    names = list(shared)
    parts = [names[:2], names[2:]]
    weight_map = {}
    for i, part in enumerate(parts):
        file = 'pytorch_model-%05d-of-%05d.bin' % (i + 1, len(parts))
        torch.save(collections.OrderedDict((n, shared[n].clone()) for n in part), os.path.join(sharded, file))
        weight_map.update({n: file for n in part})
    with open(os.path.join(sharded, 'pytorch_model.bin.index.json'), 'w') as f:
        json.dump({'metadata': {'total_size': 0}, 'weight_map': weight_map}, f, indent=2)
        f.write('\n')
    with open(os.path.join(sharded, 'config.json'), 'w') as f:
        f.write(config)

    # the layout torch 2.x writes: .format_version, .storage_alignment and byteorder before the data,
    # .data/serialization_id last; same pickle, same records
    records = entries(os.path.join(OUT, 'shared-f32.bin'))
    archive = 'archive'  # torch 2.x names the zip's folder 'archive' whatever the file's name
    pkl = [(archive + '/data.pkl', d) for n, d in records if n.endswith('/data.pkl')]
    data = [(archive + n[n.index('/data/'):], d) for n, d in records if '/data/' in n]
    torch2 = pkl + [(archive + '/.format_version', b'1'), (archive + '/.storage_alignment', b'64'),
                    (archive + '/byteorder', b'little')] + data + [
        (archive + '/version', b'3\n'), (archive + '/.data/serialization_id', b'1234567890123456789012345678901234567890')]
    write_zip(os.path.join(OUT, 'torch2-layout.bin'), torch2)
    write_zip64(os.path.join(OUT, 'zip64.bin'), torch2)
    # the same with byteorder big, and with a deflated record
    write_zip(os.path.join(OUT, 'big-endian.bin'),
              [(n, b'big' if n.endswith('/byteorder') else d) for n, d in torch2])
    write_zip(os.path.join(OUT, 'compressed-record.bin'), torch2, deflate={data[0][0]})

    # refused: the format before torch 1.6, a nested dict, a non-contiguous tensor, a Counter, os.system
    save(shared, 'legacy.bin', _use_new_zipfile_serialization=False)
    save({'state_dict': shared, 'epoch': 3}, 'nested.bin')
    save({'t': torch.randn(3, 2, generator=g).t()}, 'transposed.bin')
    save({'w': torch.ones(2), 'counts': collections.Counter(a=1)}, 'counter.bin')
    evil = (b'\x80\x02' + b'cos\nsystem\n' + b'X\x04\x00\x00\x00true' + b'\x85R.')
    write_zip(os.path.join(OUT, 'os-system.bin'), [('archive/data.pkl', evil), ('archive/version', b'3\n')])

    # the family fixture's weights as torch.save writes them
    os.makedirs(ENGINE_OUT, exist_ok=True)
    torch.save(read_safetensors(os.path.join(FAMILY, 'model.safetensors')), os.path.join(ENGINE_OUT, 'pytorch_model.bin'))


if __name__ == '__main__':
    main()
