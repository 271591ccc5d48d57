"""Test helpers: move buffers between pqkit columns and pyarrow arrays, and compare values.

``from_arrow(arr)`` builds a pqkit column over the *same* buffers a pyarrow
array uses (honouring slices), ``to_arrow(col)`` builds a pyarrow array with
``Array.from_buffers`` over a pqkit column's buffers. Conformance tests build
one from the other and compare ``to_pylist()`` with :func:`same_values`.
"""
import datetime
import decimal

import numpy as np
import pandas as pd
import pyarrow as pa

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
)

_SIMPLE = [
    (T.null(), pa.null()), (T.bool_(), pa.bool_()),
    (T.int8(), pa.int8()), (T.int16(), pa.int16()), (T.int32(), pa.int32()),
    (T.int64(), pa.int64()), (T.uint8(), pa.uint8()), (T.uint16(), pa.uint16()),
    (T.uint32(), pa.uint32()), (T.uint64(), pa.uint64()), (T.float16(), pa.float16()),
    (T.float32(), pa.float32()), (T.float64(), pa.float64()), (T.string(), pa.string()),
    (T.large_string(), pa.large_string()), (T.binary(), pa.binary()),
    (T.large_binary(), pa.large_binary()), (T.date32(), pa.date32()), (T.date64(), pa.date64()),
    (T.month_day_nano_interval(), pa.month_day_nano_interval()), (T.uuid(), pa.uuid()),
]


def field_to_arrow(f):
    return pa.field(f.name, type_to_arrow(f.type), f.nullable, f.metadata)


def type_to_arrow(t):
    for ours, theirs in _SIMPLE:
        if t == ours:
            return theirs
    if isinstance(t, T.IntervalType):
        return pa.binary(12)
    if isinstance(t, T.FixedSizeBinaryType):
        return pa.binary(t.byte_width)
    if isinstance(t, T.DecimalType):
        return (pa.decimal128 if t.bit_width == 128 else pa.decimal256)(t.precision, t.scale)
    if isinstance(t, T.Time32Type):
        return pa.time32(t.unit)
    if isinstance(t, T.Time64Type):
        return pa.time64(t.unit)
    if isinstance(t, T.TimestampType):
        return pa.timestamp(t.unit, t.tz)
    if isinstance(t, T.DurationType):
        return pa.duration(t.unit)
    if isinstance(t, T.ListType):
        return (pa.large_list if t.large else pa.list_)(field_to_arrow(t.value_field))
    if isinstance(t, T.FixedSizeListType):
        return pa.list_(field_to_arrow(t.value_field), t.list_size)
    if isinstance(t, T.StructType):
        return pa.struct([field_to_arrow(f) for f in t.fields])
    if isinstance(t, T.MapType):
        return pa.map_(field_to_arrow(t.key_field), field_to_arrow(t.item_field), t.keys_sorted)
    if isinstance(t, T.DictionaryType):
        return pa.dictionary(type_to_arrow(t.index_type), type_to_arrow(t.value_type), t.ordered)
    raise TypeError(t)


def field_from_arrow(f):
    return T.Field(f.name, type_from_arrow(f.type), f.nullable, f.metadata)


def type_from_arrow(pt):
    for ours, theirs in _SIMPLE:
        if pt == theirs:
            return ours
    if pa.types.is_fixed_size_binary(pt):
        return T.fixed_size_binary(pt.byte_width)
    if pa.types.is_decimal(pt):
        return T.decimal(pt.precision, pt.scale)
    if pa.types.is_time32(pt):
        return T.time32(pt.unit)
    if pa.types.is_time64(pt):
        return T.time64(pt.unit)
    if pa.types.is_timestamp(pt):
        return T.timestamp(pt.unit, pt.tz)
    if pa.types.is_duration(pt):
        return T.duration(pt.unit)
    if pa.types.is_large_list(pt):
        return T.large_list(field_from_arrow(pt.value_field))
    if pa.types.is_list(pt):
        return T.list_(field_from_arrow(pt.value_field))
    if pa.types.is_fixed_size_list(pt):
        return T.fixed_size_list(field_from_arrow(pt.value_field), pt.list_size)
    if pa.types.is_map(pt):
        return T.map_(field_from_arrow(pt.key_field), field_from_arrow(pt.item_field),
                      pt.keys_sorted)
    if pa.types.is_struct(pt):
        return T.struct([field_from_arrow(pt.field(i)) for i in range(pt.num_fields)])
    if pa.types.is_dictionary(pt):
        return T.dictionary(type_from_arrow(pt.index_type), type_from_arrow(pt.value_type),
                            pt.ordered)
    raise TypeError(pt)


def _bits(buf, offset, n):
    if n == 0:
        return np.zeros(0, np.bool_)
    raw = np.frombuffer(buf, np.uint8)
    return np.unpackbits(raw, bitorder="little")[offset:offset + n].astype(np.bool_)


def _validity(arr, rng):
    """The physical validity bitmap (for a dictionary array: of the indices)."""
    buf = None if pa.types.is_null(arr.type) else arr.buffers()[0]
    if buf is None or arr.null_count == 0:
        # Sometimes an explicit all-True mask instead of None.
        return np.ones(len(arr), np.bool_) if rng is not None and rng.random() < 0.3 else None
    return _bits(buf, arr.offset, len(arr))


def _fixed(buf, dtype, offset, n):
    if buf is None:
        return np.zeros(0, dtype)
    return np.frombuffer(buf, dtype, count=offset + n)[offset:]


def from_arrow(arr, rng=None):
    """A pqkit column over ``arr``'s buffers. ``rng`` varies equivalent layouts."""
    t = type_from_arrow(arr.type)
    n, off = len(arr), arr.offset
    valid = _validity(arr, rng)
    if isinstance(t, T.NullType):
        return NullColumn(n)
    if isinstance(t, T.UuidType):
        storage = arr.storage
        w = storage.buffers()[1]
        data = np.frombuffer(w, np.uint8, count=(storage.offset + n) * 16)[storage.offset * 16:]
        return FixedSizeBinaryColumn(t, data.reshape(n, 16), valid)
    bufs = arr.buffers()
    if isinstance(t, T.BooleanType):
        return PrimitiveColumn(t, _bits(bufs[1], off, n), valid)
    if t.numpy_dtype is not None:
        return PrimitiveColumn(t, _fixed(bufs[1], t.numpy_dtype, off, n), valid)
    if isinstance(t, T.StringType):
        odt = np.int64 if t.large else np.int32
        offsets = _fixed(bufs[1], odt, off, n + 1) if n else np.zeros(1, odt)
        data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
        return BinaryColumn(t, offsets, data, valid)
    if isinstance(t, T.FixedSizeBinaryType):
        w = t.byte_width
        data = np.frombuffer(bufs[1], np.uint8, count=(off + n) * w)[off * w:] if w \
            else np.zeros(0, np.uint8)
        return FixedSizeBinaryColumn(t, data.reshape(n, w), valid)
    if isinstance(t, T.DecimalType):
        w = t.bit_width // 8
        le = np.frombuffer(bufs[1], np.uint8, count=(off + n) * w)[off * w:].reshape(n, w)
        be = np.ascontiguousarray(le[:, ::-1])
        col = DecimalColumn(t, be, valid)
        if rng is not None and t.precision <= 18 and rng.random() < 0.5:
            col = DecimalColumn(t, col.to_int64(), valid)
        elif rng is not None and rng.random() < 0.5:
            col = DecimalColumn(t, _minimal_be(be), valid)
        return col
    if isinstance(t, T.DictionaryType):
        idx = arr.indices
        return DictionaryColumn(t, _fixed(idx.buffers()[1], t.index_type.numpy_dtype,
                                          idx.offset, n), from_arrow(arr.dictionary, rng), valid)
    return _nested_from_arrow(t, arr, valid, rng)


def _minimal_be(be):
    """Drop leading sign bytes common to all rows (a narrower equivalent layout)."""
    width = be.shape[1]
    while width > 1:
        top, nxt = be[:, be.shape[1] - width], be[:, be.shape[1] - width + 1]
        fill = np.where(nxt >= 0x80, 0xFF, 0)
        if not np.all(top == fill):
            break
        width -= 1
    return np.ascontiguousarray(be[:, be.shape[1] - width:])


def _nested_from_arrow(t, arr, valid, rng):
    n, off = len(arr), arr.offset
    if isinstance(t, T.ListType):
        offsets = np.asarray(arr.offsets.to_numpy(zero_copy_only=False))
        return ListColumn(t, offsets, from_arrow(arr.values, rng), valid)
    if isinstance(t, T.FixedSizeListType):
        s = t.list_size
        child = from_arrow(arr.values.slice(off * s, n * s), rng)
        return FixedSizeListColumn(t, child, valid, n)
    if isinstance(t, T.MapType):
        offsets = np.asarray(arr.offsets.to_numpy(zero_copy_only=False))
        entries = arr.values
        return MapColumn(t, offsets, from_arrow(entries.field(0), rng),
                         from_arrow(entries.field(1), rng), valid)
    if isinstance(t, T.StructType):
        children = [from_arrow(arr.field(i), rng) for i in range(arr.type.num_fields)]
        return StructColumn(t, children, valid, n)
    raise TypeError(t)


def _bitmap(col):
    if col.validity is None:
        return None
    return pa.py_buffer(np.packbits(col.validity, bitorder="little").tobytes())


def to_arrow(col):
    """A pyarrow array over ``col``'s buffers (copied into Arrow's exact layout)."""
    t = col.type
    pt = type_to_arrow(t)
    n = len(col)
    vb = _bitmap(col)
    if isinstance(t, T.NullType):
        return pa.nulls(n)
    if isinstance(t, T.UuidType):
        storage = pa.Array.from_buffers(pa.binary(16), n, [vb, pa.py_buffer(col.data.tobytes())])
        return pa.ExtensionArray.from_storage(pa.uuid(), storage)
    if isinstance(t, T.BooleanType):
        data = pa.py_buffer(np.packbits(col.values, bitorder="little").tobytes())
        return pa.Array.from_buffers(pt, n, [vb, data])
    if t.numpy_dtype is not None:
        return pa.Array.from_buffers(pt, n, [vb, pa.py_buffer(col.values.tobytes())])
    if isinstance(t, T.StringType):
        odt = np.int64 if t.large else np.int32
        return pa.Array.from_buffers(pt, n, [vb, pa.py_buffer(col.offsets.astype(odt).tobytes()),
                                             pa.py_buffer(col.data.tobytes())])
    if isinstance(t, (T.FixedSizeBinaryType, T.IntervalType)):
        return pa.Array.from_buffers(pt, n, [vb, pa.py_buffer(col.data.tobytes())])
    if isinstance(t, T.DecimalType):
        le = col.to_be_bytes(t.bit_width // 8)[:, ::-1]
        return pa.Array.from_buffers(pt, n, [vb, pa.py_buffer(np.ascontiguousarray(le).tobytes())])
    if isinstance(t, T.DictionaryType):
        return pa.DictionaryArray.from_buffers(pt, n, [vb, pa.py_buffer(col.indices.tobytes())],
                                               to_arrow(col.dictionary))
    if isinstance(t, T.ListType):
        odt = np.int64 if t.large else np.int32
        return pa.Array.from_buffers(pt, n, [vb, pa.py_buffer(col.offsets.astype(odt).tobytes())],
                                     children=[to_arrow(col.child)])
    if isinstance(t, T.FixedSizeListType):
        return pa.Array.from_buffers(pt, n, [vb], children=[to_arrow(col.child)])
    if isinstance(t, T.StructType):
        return pa.Array.from_buffers(pt, n, [vb], children=[to_arrow(c) for c in col.children])
    if isinstance(t, T.MapType):
        entries = pa.StructArray.from_arrays([to_arrow(col.keys), to_arrow(col.items)],
                                             fields=[pt.key_field, pt.item_field])
        offsets = pa.py_buffer(col.offsets.astype(np.int32).tobytes())
        return pa.Array.from_buffers(pt, n, [vb, offsets], children=[entries])
    raise TypeError(t)


def same_values(a, b, path="value"):
    """Assert two to_pylist() results are equal: NaN == NaN, and same classes of values."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return
    if a is pd.NaT or b is pd.NaT:
        assert a is b, f"{path}: {a!r} != {b!r}"
        return
    if isinstance(a, tuple) and isinstance(b, tuple):     # MonthDayNano, map entries
        assert len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            same_values(x, y, f"{path}[{i}]")
        return
    assert type(a) is type(b), f"{path}: {type(a).__name__} {a!r} vs {type(b).__name__} {b!r}"
    if isinstance(a, list):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            same_values(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            same_values(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, decimal.Decimal):
        assert str(a) == str(b), f"{path}: {a!r} != {b!r}"
    elif isinstance(a, datetime.datetime):
        assert a == b and type(a.tzinfo) is type(b.tzinfo) and str(a) == str(b), \
            f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"
