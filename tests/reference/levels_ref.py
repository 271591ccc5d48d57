"""Slow pure-Python oracles for pqkit.levels, and a level reader for pyarrow files.

The oracles go through nested Python values, the way the Dremel paper
describes records, rather than through the kernel's slot counters:

* ``ref_assemble`` parses the entries into one nested value per record with a
  recursive-descent reader, then flattens the values node by node into
  validity/offsets;
* ``ref_shred`` rebuilds nested values from validity/offsets, then writes
  them out with the paper's recursive writer.

Nested value of node i: OPTIONAL -> None or a 1-tuple holding the value of node
i+1 (so a null struct and a struct with a null field differ); REQUIRED ->
the value of node i+1; REPEATED -> a list of values of node i+1; past the leaf
-> a token (the leaf slot index when shredding, True when assembling).

``read_pyarrow_levels`` pulls the levels out of an uncompressed v1 file
written by pyarrow without dictionary encoding, so tests can compare our
shredding with parquet-cpp's.
"""
from thrift.protocol.TCompactProtocol import TCompactProtocol
from thrift.transport.TTransport import TMemoryBuffer

REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
_NULLED = object()  # a slot under a null ancestor


def node_levels(kinds):
    """Definition and repetition level of each node."""
    defs, reps, d, r = [], [], 0, 0
    for k in kinds:
        d += k != REQUIRED
        r += k == REPEATED
        defs.append(d)
        reps.append(r)
    return defs, reps


class _Reader:
    def __init__(self, defs, reps, kinds):
        self.defs, self.reps, self.kinds = defs, reps, kinds
        self.node_def, self.node_rep = node_levels(kinds)
        self.pos = 0

    def value(self, i):
        """Value of node i for the entry at self.pos (consumes the entries it spans)."""
        if i == len(self.kinds):
            self.pos += 1
            return True
        d = self.defs[self.pos]
        kind = self.kinds[i]
        if kind == REQUIRED:
            return self.value(i + 1)
        if d < self.node_def[i]:
            self.pos += 1
            return None if kind == OPTIONAL else []
        if kind == OPTIONAL:
            return (self.value(i + 1),)
        items = [self.value(i + 1)]
        while self.pos < len(self.defs) and self.reps[self.pos] == self.node_rep[i]:
            if self.defs[self.pos] < self.node_def[i]:
                raise ValueError(f"entry {self.pos} continues list {i} without an element")
            items.append(self.value(i + 1))
        return items


def parse_records(defs, reps, kinds):
    """Entries -> one nested value per record; ValueError on invalid levels."""
    node_def, node_rep = node_levels(kinds)
    max_def, max_rep = (node_def[-1], node_rep[-1])
    for k, (d, r) in enumerate(zip(defs, reps)):
        if not 0 <= d <= max_def or not 0 <= r <= max_rep:
            raise ValueError(f"level out of range at {k}")
    reader = _Reader(defs, reps, kinds)
    records = []
    while reader.pos < len(defs):
        if reps[reader.pos] != 0:
            raise ValueError(f"entry {reader.pos} does not start a record")
        records.append(reader.value(0))
    return records


def layouts_from_records(records, kinds):
    """Nested values -> [(length, validity, offsets)] per node, and the value mask."""
    cur = list(records)
    out = []
    for kind in kinds:
        if kind == REPEATED:
            offsets, nxt = [0], []
            for v in cur:
                if v is not _NULLED:
                    nxt.extend(v)
                offsets.append(len(nxt))
            cur = nxt
            out.append((len(cur), None, offsets))
        elif kind == OPTIONAL:
            cur = [_NULLED if v is None or v is _NULLED else v[0] for v in cur]
            out.append((len(cur), [v is not _NULLED for v in cur], None))
        else:
            out.append((len(cur), None, None))
    return out, [v is not _NULLED for v in cur]


def ref_assemble(defs, reps, kinds, n=None):
    """Oracle for pqkit.levels.assemble: (num_records, num_values, layouts, value_mask)."""
    n = len(defs) if defs is not None else n
    defs = list(defs) if defs is not None else [0] * n
    reps = list(reps) if reps is not None else [0] * n
    records = parse_records(defs, reps, kinds)
    layouts, mask = layouts_from_records(records, kinds)
    return len(records), sum(mask), layouts, mask


def records_from_layout(kinds, layouts, num_records):
    """Per-node (length, validity or None, offsets or None) -> nested values."""
    def value(i, k):
        if i == len(kinds):
            return k
        _length, validity, offsets = layouts[i]
        if kinds[i] == OPTIONAL:
            if validity is not None and not validity[k]:
                return None
            return (value(i + 1, k),)
        if kinds[i] == REQUIRED:
            return value(i + 1, k)
        return [value(i + 1, j) for j in range(offsets[k], offsets[k + 1])]
    return [value(0, k) for k in range(num_records)]


def ref_shred(kinds, layouts, num_records):
    """Oracle for pqkit.levels.shred: (defs, reps, value_mask, num_values)."""
    node_def, node_rep = node_levels(kinds)
    entries, mask = [], [False] * layouts[-1][0]

    def emit(i, v, r, d):
        if i == len(kinds):
            entries.append((r, d))
            mask[v] = True
            return
        if kinds[i] == REQUIRED:
            return emit(i + 1, v, r, d)
        if kinds[i] == OPTIONAL:
            if v is None:
                entries.append((r, d))
                return
            return emit(i + 1, v[0], r, d + 1)
        if not v:
            entries.append((r, d))
            return
        for n, item in enumerate(v):
            emit(i + 1, item, r if n == 0 else node_rep[i], d + 1)

    for record in records_from_layout(kinds, layouts, num_records):
        emit(0, record, 0, 0)
    return [d for _, d in entries], [r for r, _ in entries], mask, sum(mask)


# ------------------------------------------------- levels of a pyarrow file

def _read_struct(proto, wanted):
    """Read one compact struct; return {field id: value} for ids in wanted (nested dicts)."""
    out = {}
    proto.readStructBegin()
    while True:
        _name, ftype, fid = proto.readFieldBegin()
        if ftype == 0:
            break
        spec = wanted.get(fid)
        if spec is None:
            proto.skip(ftype)
        elif isinstance(spec, dict):
            out[fid] = _read_struct(proto, spec)
        else:
            out[fid] = proto.readI32()
        proto.readFieldEnd()
    proto.readStructEnd()
    return out


class _Protocol(TCompactProtocol):
    def readString(self):   # statistics hold raw bytes, not UTF-8 (skip() reads strings)
        return self.readBinary()


_PAGE_HEADER = {1: "type", 3: "compressed_page_size", 5: {1: "num_values"}}


def _uleb(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def decode_rle_hybrid(data, width, count):
    """The RLE/bit-packing hybrid without its length prefix."""
    out, pos = [], 0
    while len(out) < count:
        header, pos = _uleb(data, pos)
        if header & 1:
            nbytes = (header >> 1) * width
            bits = int.from_bytes(data[pos:pos + nbytes], "little")
            out.extend((bits >> (j * width)) & ((1 << width) - 1)
                       for j in range((header >> 1) * 8))
            pos += nbytes
        else:
            size = (width + 7) // 8
            out.extend([int.from_bytes(data[pos:pos + size], "little")] * (header >> 1))
            pos += size
    return out[:count]


def _page_levels(body, pos, width, count):
    length = int.from_bytes(body[pos:pos + 4], "little")
    return decode_rle_hybrid(body[pos + 4:pos + 4 + length], width, count), pos + 4 + length


def read_pyarrow_levels(data, column, row_group=0):
    """(defs, reps) lists of one column chunk of file bytes; [] for a level not stored."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    pf = pq.ParquetFile(pa.BufferReader(data))
    meta = pf.metadata.row_group(row_group).column(column)
    desc = pf.schema.column(column)
    max_def, max_rep = desc.max_definition_level, desc.max_repetition_level
    pos, remaining, defs, reps = meta.data_page_offset, meta.num_values, [], []
    while remaining > 0:
        trans = TMemoryBuffer(data[pos:])
        header = _read_struct(_Protocol(trans), _PAGE_HEADER)
        start = pos + trans._buffer.tell()
        body = data[start:start + header[3]]
        pos = start + header[3]
        if header[1] != 0:   # only v1 data pages carry levels here
            continue
        count, at = header[5][1], 0
        if max_rep:
            page_reps, at = _page_levels(body, at, max_rep.bit_length(), count)
            reps.extend(page_reps)
        if max_def:
            page_defs, at = _page_levels(body, at, max_def.bit_length(), count)
            defs.extend(page_defs)
        remaining -= count
    return defs, reps
