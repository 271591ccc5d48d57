"""Building Variant value bytes: primitives, strings, objects and arrays.

The layouts are those of :mod:`pqkit.variant.binary`; objects and arrays are
written with the smallest offset and id widths that fit (1 to 4 bytes) and a
4-byte element count only past 255 elements. Object fields are listed in the
unsigned byte order of their UTF-8 names, as the spec requires; the values are
written in that order too. ``encode_object([("b", 1, b"\\x0c\\x02"),
("a", 0, b"\\x0c\\x01")])`` gives ``02 02 00 01 00 02 04 0c 01 0c 02``.
"""
from pqkit.errors import VariantError

__all__ = ["NULL", "binary", "encode_array", "encode_object", "primitive", "string"]

NULL = b"\x00"
MAX_SHORT_STRING = 63
_MAX_UINT32 = 0xFFFFFFFF


def primitive(type_id, payload=b""):
    """A primitive value: the type byte, then its payload."""
    return bytes((type_id << 2,)) + payload


def string(data):
    """UTF-8 bytes ``data`` as a short string when it fits, else a long (type 16) string."""
    if len(data) <= MAX_SHORT_STRING:
        return bytes((len(data) << 2 | 1,)) + data
    return primitive(16, _length(data) + data)


def binary(data):
    return primitive(15, _length(data) + data)


def _length(data):
    if len(data) > _MAX_UINT32:
        raise VariantError(f"a variant string or binary holds at most {_MAX_UINT32} bytes, "
                           f"got {len(data)}")
    return len(data).to_bytes(4, "little")


def _width(largest):
    for w in (1, 2, 3, 4):
        if largest < 1 << (8 * w):
            return w
    raise VariantError(f"a variant offset or field id of {largest} does not fit in 4 bytes")


def _offsets(values):
    offsets, at = [0], 0
    for v in values:
        at += len(v)
        offsets.append(at)
    return offsets


def _count(n):
    return (4, n.to_bytes(4, "little")) if n > 255 else (1, bytes((n,)))


def encode_object(fields):
    """An object from ``(name, field_id, encoded value)`` triples (any order, unique names)."""
    fields = sorted(fields, key=lambda f: f[0].encode("utf-8"))
    values = [f[2] for f in fields]
    offsets = _offsets(values)
    id_size = _width(max((f[1] for f in fields), default=0))
    offset_size = _width(offsets[-1])
    count_size, count = _count(len(fields))
    header = (count_size == 4) << 4 | (id_size - 1) << 2 | (offset_size - 1)
    return b"".join([bytes((header << 2 | 2,)), count,
                     *(f[1].to_bytes(id_size, "little") for f in fields),
                     *(o.to_bytes(offset_size, "little") for o in offsets), *values])


def encode_array(values):
    """An array of encoded element values."""
    offsets = _offsets(values)
    offset_size = _width(offsets[-1])
    count_size, count = _count(len(values))
    header = (count_size == 4) << 2 | (offset_size - 1)
    return b"".join([bytes((header << 2 | 3,)), count,
                     *(o.to_bytes(offset_size, "little") for o in offsets), *values])
