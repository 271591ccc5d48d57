"""Vectorized conversions of one flat column to another type, and dictionary encoding.

Each cast checks every valid slot with numpy masks and raises :class:`BadValue` at the
first that does not fit; null slots are never checked. A cast with no numpy path
returns None, and :func:`.build.cast` goes through Python values instead.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit._native.dictenc import dictionary_encode
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import DictionaryColumn
from pqkit.convert.common import INT64_MAX, PER_DAY, BadValue
from pqkit.errors import SchemaError


def _check(bad, col, t, reason):
    """BadValue at the first True of ``bad`` (a mask over ``col``'s rows)."""
    if bad.any():
        row = int(np.argmax(bad))
        try:
            value = col[row]
        except (ValueError, OverflowError):            # not representable in Python
            value = col.values[row].item()
        raise BadValue(row, value, t, reason)


def _outside(v, info):
    """Mask of the ints in ``v`` outside ``info``'s range, compared in v's own kind: numpy 1
    compares uint64 with a Python int as float64, which cannot tell 2**63 - 1 from 2**63."""
    if v.dtype.kind == "u":
        return v > np.uint64(info.max)
    return (v < np.int64(info.min)) | (v > np.int64(min(info.max, INT64_MAX)))


def _unit(t):
    if isinstance(t, T.TimestampType):
        return "instant", t.unit
    if isinstance(t, (T.Date32Type, T.Date64Type)):
        return "instant", "D" if isinstance(t, T.Date32Type) else "ms"
    if isinstance(t, T.DurationType):
        return "duration", t.unit
    if isinstance(t, (T.Time32Type, T.Time64Type)):
        return "time", t.unit
    return None, None


def cast_primitive(col, t):
    """A PrimitiveColumn as ``t`` (numbers, integers to decimals, time units), or None
    when numpy has no cast between the two types."""
    s, v, valid = col.type, col.values, col.valid_mask()
    numbers = (T.IntegerType, T.FloatingType)
    if isinstance(s, numbers) and isinstance(t, numbers):
        return PrimitiveColumn(t, _cast_numbers(col, t), col.validity)
    if isinstance(t, T.DecimalType) and isinstance(s, T.IntegerType) and \
            t.precision <= 18 and t.scale >= 0:
        limit = 10 ** (t.precision - t.scale)
        _check(valid & ((v >= limit) | (v <= -limit)), col, t,
               f"more than {t.precision} digits with scale {t.scale}")
        return DecimalColumn(t, np.where(valid, v, 0).astype(np.int64) * 10**t.scale,
                             col.validity)
    family, unit = _unit(t)
    if family is None:
        return None
    if isinstance(s, T.IntegerType):       # counts of the target's unit, as in pyarrow
        _check(valid & _outside(v, np.iinfo(t.numpy_dtype)), col, t, f"outside {t}'s range")
        return PrimitiveColumn(t, v.astype(t.numpy_dtype), col.validity)
    from_family, from_unit = _unit(s)
    if from_family != family:
        return None
    out = _rescale(col, valid, PER_DAY[from_unit], PER_DAY[unit], t)
    if isinstance(t, T.Date64Type):
        _check(valid & (out % 86_400_000 != 0), col, t, "not a whole day")
    info = np.iinfo(t.numpy_dtype)
    _check(valid & ((out < info.min) | (out > info.max)), col, t, f"outside {t}'s range")
    return PrimitiveColumn(t, out.astype(t.numpy_dtype), col.validity)


def _rescale(col, valid, per_day_from, per_day_to, t):
    v = col.values.astype(np.int64)
    if per_day_to >= per_day_from:
        k = per_day_to // per_day_from
        limit = INT64_MAX // k
        _check(valid & ((v > limit) | (v < -limit)), col, t, f"outside {t}'s range")
        return v * k
    k = per_day_from // per_day_to
    _check(valid & (v % k != 0), col, t, f"would lose precision as {t}")
    return v // k


def _cast_numbers(col, t):
    v, valid, dst = col.values, col.valid_mask(), t.numpy_dtype
    if dst.kind == "f":
        if v.dtype.kind in "iu":           # as pyarrow: ints must convert exactly
            limit = 2 ** (np.finfo(dst).nmant + 1)
            _check(valid & ((v > limit) | (v < -limit)), col, t,
                   f"not exactly representable as {t}")
        return v.astype(dst)
    info = np.iinfo(dst)
    if v.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(v) & (v == np.floor(v)) & (v >= info.min) & (v < info.max + 1.0)
        _check(valid & ~ok, col, t, f"not a whole number in {info.min}..{info.max}")
        return np.where(valid, v, 0).astype(dst)
    _check(valid & _outside(v, info), col, t, f"outside {info.min}..{info.max}")
    return v.astype(dst)


def cast_binary(col, t):
    """A string or binary column as the string or binary type ``t``, sharing its buffers;
    binary becoming string must be UTF-8."""
    out = BinaryColumn(t, col.offsets, col.data, col.validity)
    if isinstance(t, T.BinaryType) or not isinstance(col.type, T.BinaryType):
        return out
    if len(col.data) and col.data.max() >= 0x80:        # binary -> string: UTF-8 only
        for i, v in enumerate(col.to_pylist()):
            if v is not None and not _decodes(v):
                raise BadValue(i, v, t, "not valid UTF-8")
    return out


def _decodes(b):
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def dictionary_encoded(col, t):
    """A dictionary column of ``t`` holding the values of ``col`` (of ``t.value_type``)."""
    valid = col.valid_mask()
    rows = np.flatnonzero(valid)
    sub = col if col.validity is None else col._take(rows)
    if isinstance(sub, BinaryColumn):
        idx, first, _ = dictionary_encode(sub.data, sub.offsets, 0, len(sub), 1 << 62, 0)
    elif isinstance(sub, (PrimitiveColumn, FixedSizeBinaryColumn)):
        raw = np.ascontiguousarray(sub.values if isinstance(sub, PrimitiveColumn) else sub.data)
        width = raw.dtype.itemsize * (raw.shape[1] if raw.ndim == 2 else 1)
        idx, first, _ = dictionary_encode(raw.view(np.uint8).reshape(-1), None, width,
                                          len(sub), 1 << 62, 0)
    else:                                  # nested values: no deduplication
        idx, first = np.arange(len(sub), dtype=np.int32), np.arange(len(sub))
    dtype = t.index_type.numpy_dtype
    if len(first) and len(first) - 1 > np.iinfo(dtype).max:
        raise SchemaError(f"{len(first)} distinct values do not fit the {t.index_type} "
                          f"indices of {t}")
    indices = np.zeros(len(col), dtype)
    indices[rows] = idx
    return DictionaryColumn(t, indices, sub._take(first), col.validity)
