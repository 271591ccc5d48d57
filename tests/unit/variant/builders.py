"""Variant bytes and shredded group types built by hand for the tests of pqkit.variant."""
from pqkit import datatypes as T

EMPTY = b"\x01\x00\x00"          # version 1, no names


def meta(*names, offset_size=1, sorted_strings=False):
    """Metadata bytes for ``names`` with ``offset_size``-byte sizes and offsets."""
    data = [n.encode() for n in names]
    offsets = [0]
    for d in data:
        offsets.append(offsets[-1] + len(d))
    header = 1 | (0x10 if sorted_strings else 0) | (offset_size - 1) << 6
    return bytes([header]) + b"".join(
        x.to_bytes(offset_size, "little") for x in [len(names)] + offsets) + b"".join(data)


def prim(type_id, payload=b""):
    return bytes([type_id << 2]) + payload


def int8(v):
    return prim(3, v.to_bytes(1, "little", signed=True))


def obj(fields, id_size=1, offset_size=1, large=False, order=None):
    """An object from (field id, encoded value) pairs listed as given; the values are laid
    out in ``order`` (indices into ``fields``), so offsets need not increase."""
    order = list(range(len(fields))) if order is None else order
    starts, body = {}, b""
    for i in order:
        starts[i] = len(body)
        body += fields[i][1]
    offsets = [starts[i] for i in range(len(fields))] + [len(body)]
    header = (large << 4 | (id_size - 1) << 2 | (offset_size - 1)) << 2 | 2
    count = len(fields).to_bytes(4 if large else 1, "little")
    return (bytes([header]) + count + b"".join(f[0].to_bytes(id_size, "little") for f in fields)
            + b"".join(o.to_bytes(offset_size, "little") for o in offsets) + body)


def arr(values, offset_size=1, large=False):
    offsets, at = [], 0
    for v in values:
        offsets.append(at)
        at += len(v)
    offsets.append(at)
    header = (large << 2 | (offset_size - 1)) << 2 | 3
    return (bytes([header]) + len(values).to_bytes(4 if large else 1, "little")
            + b"".join(o.to_bytes(offset_size, "little") for o in offsets) + b"".join(values))


def group(typed_type=None, value=True):
    fields = [T.Field("metadata", T.binary(), False)]
    if value:
        fields.append(T.Field("value", T.binary()))
    if typed_type is not None:
        fields.append(T.Field("typed_value", typed_type))
    return T.StructType(fields)


def field_group(typed_type=None, value=True):
    fields = [T.Field("value", T.binary())] if value else []
    if typed_type is not None:
        fields.append(T.Field("typed_value", typed_type))
    return T.StructType(fields)
