"""The Variant value encoding: decoding to Python values and measuring encoded values.

A value starts with one byte: the basic type in bits 0-1, a 6-bit header above::

    basic 0  primitive     header = type id (see PRIMITIVES); its payload follows
    basic 1  short string  header = length 0..63; that many UTF-8 bytes follow
    basic 2  object        header = is_large << 4 | (id_size - 1) << 2 | (offset_size - 1)
                           num_elements (4 bytes if is_large, else 1), num_elements field
                           ids, num_elements + 1 offsets, then the field values
    basic 3  array         header = is_large << 2 | (offset_size - 1)
                           num_elements, num_elements + 1 offsets, then the elements

Offsets count from the first byte after the offset list; the last one is the
size of the values area. Object field ids index the metadata dictionary and are
listed in name order, while the values they point at may lie in any order.
With the metadata ``01 01 00 01 61`` (the one name ``"a"``), the value
``02 01 00 00 02 0c 07`` is ``{"a": 7}``: object with 1-byte ids and offsets,
one field, id 0, offsets 0 and 2, then ``0c 07`` = primitive type 3 (int8), 7.

Safety against hostile bytes: every offset and size is checked against the
bytes of its enclosing value before it is used, nesting deeper than
``MAX_DEPTH`` is refused, and since the values of a valid encoding never
overlap, decoding more values than the buffer has bytes means offsets alias one
another (a "billion laughs" of shared subtrees) and is refused too.
"""
import struct
import uuid
from decimal import Decimal

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import pyvalues
from pqkit.errors import ArgumentError, VariantError
from pqkit.variant.metadata import VariantMetadata, read_uint

__all__ = [
    "MAX_DEPTH",
    "PRIMITIVES",
    "container",
    "decode",
    "decode_value",
    "object_fields",
    "value_size",
]

MAX_DEPTH = 256

PRIMITIVE, SHORT_STRING, OBJECT, ARRAY = 0, 1, 2, 3

# type id -> (name, payload bytes; None = a 4-byte length then that many bytes)
PRIMITIVES = {
    0: ("null", 0), 1: ("boolean", 0), 2: ("boolean", 0),
    3: ("int8", 1), 4: ("int16", 2), 5: ("int32", 4), 6: ("int64", 8),
    7: ("double", 8), 8: ("decimal4", 5), 9: ("decimal8", 9), 10: ("decimal16", 17),
    11: ("date", 4), 12: ("timestamp", 8), 13: ("timestamp_ntz", 8), 14: ("float", 4),
    15: ("binary", None), 16: ("string", None), 17: ("time", 8),
    18: ("timestamp_nanos", 8), 19: ("timestamp_ntz_nanos", 8), 20: ("uuid", 16),
}
MAX_DECIMAL_SCALE = 38

# The temporal types go through pqkit's one conversion of buffers to Python values.
_TEMPORAL = {
    11: T.Date32Type(), 12: T.TimestampType("us", "UTC"), 13: T.TimestampType("us"),
    17: T.Time64Type("us"), 18: T.TimestampType("ns", "UTC"), 19: T.TimestampType("ns"),
}


def _need(pos, n, end, what):
    if pos + n > end:
        raise VariantError(f"{what} at byte {pos} needs {n} bytes, only {max(0, end - pos)} "
                           f"remain")


def value_size(buf, pos, end):
    """Bytes taken by the encoded value at ``pos`` (which must end by ``end``)."""
    _need(pos, 1, end, "variant value")
    first = buf[pos]
    basic, header = first & 3, first >> 2
    if basic == SHORT_STRING:
        size = 1 + header
    elif basic == PRIMITIVE:
        if header not in PRIMITIVES:
            raise VariantError(f"unknown variant primitive type id {header} at byte {pos}")
        width = PRIMITIVES[header][1]
        size = 1 + (width if width is not None
                    else 4 + read_uint(buf, pos + 1, 4, end, f"{PRIMITIVES[header][0]} length"))
    else:
        size = container(buf, pos, end)[-1] - pos
    _need(pos, size, end, "variant value")
    return size


def container(buf, pos, end):
    """Parse an object's or array's head at ``pos``.

    Returns ``(count, ids_at, id_size, offsets_at, offset_size, values_at, values_end)``
    (``ids_at``/``id_size`` are 0 for arrays), all checked to lie within ``end``.
    """
    first = buf[pos]
    basic, header = first & 3, first >> 2
    offset_size = (header & 3) + 1
    if basic == OBJECT:
        id_size, large = ((header >> 2) & 3) + 1, (header >> 4) & 1
        kind = "object"
    else:
        id_size, large = 0, (header >> 2) & 1
        kind = "array"
    count_size = 4 if large else 1
    count = read_uint(buf, pos + 1, count_size, end, f"{kind} num_elements")
    ids_at = pos + 1 + count_size
    offsets_at = ids_at + count * id_size
    values_at = offsets_at + (count + 1) * offset_size
    if values_at > end:       # before any per-element work: the count is bounded by the bytes
        raise VariantError(f"{kind} at byte {pos} with {count} elements needs {values_at - pos} "
                           f"bytes of ids and offsets, only {end - pos} remain")
    total = read_uint(buf, offsets_at + count * offset_size, offset_size, end, "offset")
    values_end = values_at + total
    if values_end > end:
        raise VariantError(f"{kind} at byte {pos} claims {total} bytes of values, only "
                           f"{end - values_at} remain")
    return (count, ids_at if id_size else 0, id_size, offsets_at, offset_size, values_at,
            values_end)


def _element_start(buf, head, i, pos):
    _, _, _, offsets_at, offset_size, values_at, values_end = head
    offset = int.from_bytes(buf[offsets_at + i * offset_size:offsets_at + (i + 1) * offset_size],
                            "little")
    if values_at + offset >= values_end:
        raise VariantError(f"element {i} of the container at byte {pos} has offset {offset}, "
                           f"past its {values_end - values_at} bytes of values")
    return values_at + offset


def _field_id(buf, head, i):
    ids_at, id_size = head[1], head[2]
    return int.from_bytes(buf[ids_at + i * id_size:ids_at + (i + 1) * id_size], "little")


def object_fields(buf, pos, end, metadata):
    """The fields of the object at ``pos`` as ``(name, field_id, encoded value bytes)``, in
    the order they are listed; raises VariantError if the value is not an object."""
    _need(pos, 1, end, "variant value")
    if buf[pos] & 3 != OBJECT:
        raise VariantError(f"value at byte {pos} is not an object")
    head = container(buf, pos, end)
    out = []
    for i in range(head[0]):
        fid = _field_id(buf, head, i)
        name = metadata.name(fid, f"of field {i} of the object at byte {pos}")
        start = _element_start(buf, head, i, pos)
        out.append((name, fid, bytes(buf[start:start + value_size(buf, start, head[6])])))
    return out


class _Decoder:
    """One decode: the metadata, the node budget and whether primitives carry their type."""

    __slots__ = ("budget", "buf", "metadata", "typed")

    def __init__(self, buf, metadata, typed):
        self.buf, self.metadata, self.typed = buf, metadata, typed
        self.budget = len(buf)

    def value(self, pos, end, depth):
        buf = self.buf
        _need(pos, 1, end, "variant value")
        self.budget -= 1
        if self.budget < 0:
            raise VariantError(f"value at byte {pos}: more values than bytes, so offsets "
                               f"make values overlap")
        first = buf[pos]
        basic, header = first & 3, first >> 2
        if basic == SHORT_STRING:
            _need(pos + 1, header, end, "short string")
            v = _utf8(buf, pos + 1, header)
            return ("string", v) if self.typed else v
        if basic == PRIMITIVE:
            return self.primitive(pos, header, end)
        if depth >= MAX_DEPTH:
            raise VariantError(f"value at byte {pos} is nested deeper than {MAX_DEPTH} levels")
        head = container(buf, pos, end)
        count, values_end = head[0], head[6]
        if basic == ARRAY:
            return [self.value(_element_start(buf, head, i, pos), values_end, depth + 1)
                    for i in range(count)]
        out = {}
        for i in range(count):
            name = self.metadata.name(_field_id(buf, head, i),
                                      f"of field {i} of the object at byte {pos}")
            if name in out:
                raise VariantError(f"object at byte {pos} has the field {name!r} twice")
            out[name] = self.value(_element_start(buf, head, i, pos), values_end, depth + 1)
        return out

    def primitive(self, pos, type_id, end):
        if type_id not in PRIMITIVES:
            raise VariantError(f"unknown variant primitive type id {type_id} at byte {pos}")
        name, width = PRIMITIVES[type_id]
        buf, at = self.buf, pos + 1
        if width is None:
            width = read_uint(buf, at, 4, end, f"{name} length")
            at += 4
        _need(at, width, end, name)
        if type_id == 0:
            v = None
        elif type_id in (1, 2):
            v = type_id == 1
        elif 3 <= type_id <= 6:
            v = int.from_bytes(buf[at:at + width], "little", signed=True)
        elif type_id in (7, 14):
            v = struct.unpack_from("<d" if type_id == 7 else "<f", buf, at)[0]
        elif 8 <= type_id <= 10:
            scale = buf[at]
            if scale > MAX_DECIMAL_SCALE:
                raise VariantError(f"{name} at byte {pos} has scale {scale}, at most "
                                   f"{MAX_DECIMAL_SCALE}")
            v = Decimal(f"{int.from_bytes(buf[at + 1:at + width], 'little', signed=True)}"
                        f"E-{scale}")
        elif type_id == 15:
            v = bytes(buf[at:at + width])
        elif type_id == 16:
            v = _utf8(buf, at, width)
        elif type_id == 20:
            v = uuid.UUID(bytes=bytes(buf[at:at + width]))
        else:
            type_ = _TEMPORAL[type_id]
            raw = np.frombuffer(buf[at:at + width], dtype=f"<i{width}").astype(type_.numpy_dtype)
            v = pyvalues.primitive_to_pylist(type_, raw, None)[0]
        return (name, v) if self.typed else v


def _utf8(buf, at, n):
    try:
        return str(buf[at:at + n], "utf-8")
    except UnicodeDecodeError as e:
        raise VariantError(f"string at byte {at} is not UTF-8: {e.reason}") from None


def decode_value(metadata, value, *, types=False):
    """Decode ``value`` with an already parsed :class:`VariantMetadata`."""
    buf = memoryview(value).cast("B")
    return _Decoder(buf, metadata, types).value(0, len(buf), 0)


def decode(metadata, value, *, types=False):
    """Decode one variant (its metadata and value bytes) into Python values.

    Parameters
    ----------
    metadata, value : bytes-like
        The ``metadata`` and ``value`` binaries of an unshredded variant (for a
        shredded column, see :func:`pqkit.variant.unshred`).
    types : bool, default False
        If True, every primitive becomes a ``(type_name, value)`` pair such as
        ``("int8", 5)`` or ``("timestamp_ntz_nanos", ...)``, keeping what the Python
        value alone cannot tell (short and long strings are both ``"string"``).

    Returns
    -------
    object
        None (variant null), bool, int, float, :class:`decimal.Decimal` (with the
        stored scale), str, bytes, :class:`datetime.date`, :class:`datetime.time`,
        :class:`datetime.datetime` (UTC-aware for ``timestamp``, naive for
        ``timestamp_ntz``; nanosecond ones as pqkit reads nanosecond columns:
        ``pandas.Timestamp`` when pandas is installed), :class:`uuid.UUID`, dict
        (object, fields in name order) or list (array).

    Raises
    ------
    pqkit.VariantError
        The bytes break the Variant encoding; the message names the byte offset.

    Examples
    --------
    >>> decode(b"\\x01\\x01\\x00\\x01a", b"\\x02\\x01\\x00\\x00\\x02\\x0c\\x07")
    {'a': 7}
    """
    for name, data in (("metadata", metadata), ("value", value)):
        try:
            memoryview(data)
        except TypeError:
            raise ArgumentError(f"{name} must be bytes-like, not {type(data).__name__}") \
                from None
    return decode_value(VariantMetadata(metadata), value, types=types)
