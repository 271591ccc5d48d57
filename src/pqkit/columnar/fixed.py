"""Fixed-width byte columns: fixed-size binary (``uuid``, ``interval``) and decimals.

:class:`FixedSizeBinaryColumn` follows Arrow: one uint8 array of shape
``(length, width)``, row ``i`` being ``data[i]``. Three ``fixed_size_binary[2]``
rows ``[b"ab", None, b"cd"]`` are::

    data     = [[0x61, 0x62], [0, 0], [0x63, 0x64]]    uint8, shape (3, 2)
    validity = [True, False, True]

Decimals are the exception to Arrow's layout: :class:`DecimalColumn` keeps
what a Parquet decoder produces, unscaled int32/int64 values or big-endian
two's complement bytes of one width, and builds ``decimal.Decimal`` values only
in ``to_pylist()``. ``decimal(5, 2)`` values ``[1.23, -0.01]`` are the unscaled
integers ``[123, -1]``, as int32 or as the 2-byte rows ``[[0x00, 0x7B],
[0xFF, 0xFF]]``.

The base class, the checks and the other flat columns are in
:mod:`pqkit.columnar.column`, which still exports these names.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import pyvalues as pv
from pqkit.columnar.column import BinaryColumn, Column, concat_validity, gather_ranges
from pqkit.errors import SchemaError


def _storage_width(type_):
    if isinstance(type_, T.ExtensionType):
        type_ = type_.storage_type
    if not isinstance(type_, T.FixedSizeBinaryType):
        raise SchemaError(f"type {type_} is not a fixed-size binary type")
    return type_.byte_width


class FixedSizeBinaryColumn(Column):
    """Byte strings of one width: ``fixed_size_binary[w]``, ``uuid``, ``interval``.

    Parameters
    ----------
    type : FixedSizeBinaryType, UuidType or IntervalType
    data : numpy.ndarray of uint8
        Shape ``(length, width)``; a 1-D array is reshaped when width > 0.
    validity : numpy.ndarray of bool, optional
    """

    __slots__ = ("data",)

    def __init__(self, type, data, validity=None):
        width = _storage_width(type)
        data = np.asarray(data)
        if data.ndim == 1 and width and data.dtype == np.uint8 and len(data) % width == 0:
            data = data.reshape(-1, width)
        if data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != width:
            raise SchemaError(f"{type} data must be a uint8 array of shape (n, {width}), got "
                              f"{data.dtype} with shape {data.shape}")
        self.data = data
        self._init_common(type, data.shape[0], validity)

    def _buffers(self):
        return (self.data,)

    def _slice(self, start, stop):
        return FixedSizeBinaryColumn(self.type, self.data[start:stop],
                                     self._slice_validity(start, stop))

    def _take(self, idx):
        return FixedSizeBinaryColumn(self.type, self.data[idx], self._take_validity(idx))

    def to_pylist(self):
        return pv.fixed_binary_to_pylist(self.type, self.data, self.validity)

    def _values_equal(self, other, mask):
        return bool(np.array_equal(self.data[mask], other.data[mask]))

    @classmethod
    def _concat(cls, columns):
        return cls(columns[0].type, np.concatenate([c.data for c in columns]),
                   concat_validity(columns))


def _resize_be(data, width, type_):
    """Sign-extend or narrow (n, w) big-endian two's complement rows to ``width`` bytes."""
    n, w = data.shape
    if width == w:
        return data
    if width > w:
        fill = np.where(data[:, :1] >= 0x80, np.uint8(0xFF), np.uint8(0)) if w \
            else np.zeros((n, 1), np.uint8)
        return np.concatenate([np.repeat(fill, width - w, axis=1), data], axis=1)
    kept = data[:, w - width:]
    fill = np.where(kept[:, :1] >= 0x80, np.uint8(0xFF), np.uint8(0)) if width \
        else np.zeros((n, 1), np.uint8)
    bad = np.any(data[:, :w - width] != fill, axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise pv.ValueRangeError(f"{type_} value at row {i} does not fit in {width} bytes")
    return np.ascontiguousarray(kept)


def _beyond_precision(values, limit):
    """Boolean mask of the unscaled ``values`` (int32/int64, or big-endian rows) whose
    magnitude reaches ``limit`` (10 ** precision)."""
    if values.ndim == 1:
        if limit > np.iinfo(values.dtype).max:
            return np.zeros(len(values), np.bool_)
        return (values >= limit) | (values <= -limit)
    n, width = values.shape
    if limit >= 1 << (8 * width - 1):           # every value of this width fits
        return np.zeros(n, np.bool_)
    if width <= 8:
        return _beyond_precision(pv.be_bytes_to_int64(values), limit)
    if width > 16:                              # decimal256 storage: rare, row by row
        return np.array([abs(v) >= limit for v in pv.unscaled_ints(values)], np.bool_)
    # 128 bits as a signed high and an unsigned low word, compared with limit and -limit
    rows = _resize_be(values, 16, None)
    hi = rows[:, :8].copy().view(">i8").reshape(n)
    lo = rows[:, 8:].copy().view(">u8").reshape(n)
    top, low = limit >> 64, limit & ((1 << 64) - 1)
    neg = (1 << 128) - limit
    neg_top, neg_low = (neg >> 64) - (1 << 64), neg & ((1 << 64) - 1)
    above = (hi > top) | ((hi == top) & (lo >= np.uint64(low)))
    below = (hi < neg_top) | ((hi == neg_top) & (lo <= np.uint64(neg_low)))
    return above | below


class DecimalColumn(Column):
    """Decimals as a Parquet decoder produces them; ``Decimal`` objects only on request.

    Parameters
    ----------
    type : DecimalType
    values : numpy.ndarray
        Either 1-D int32/int64 unscaled values, or a uint8 array of shape
        ``(length, width)`` holding big-endian two's complement unscaled values.
    validity : numpy.ndarray of bool, optional
    """

    __slots__ = ("values",)

    def __init__(self, type, values, validity=None):
        if not isinstance(type, T.DecimalType):
            raise SchemaError(f"type {type} is not a decimal type")
        v = np.asarray(values)
        ok = (v.ndim == 1 and v.dtype in (np.int32, np.int64)) or \
             (v.ndim == 2 and v.dtype == np.uint8 and v.shape[1] >= 1)
        if not ok:
            raise SchemaError(f"{type} values must be 1-D int32/int64 or (n, width) uint8, got "
                              f"{v.dtype} with shape {v.shape}")
        self.values = v
        self._init_common(type, v.shape[0], validity)

    @classmethod
    def from_variable_bytes(cls, type, offsets, data, validity=None):
        """Build from big-endian values of varying lengths (Parquet BYTE_ARRAY decimals).

        Each value is sign-extended to the longest one; empty values read as 0.
        """
        raw = BinaryColumn(T.binary(), offsets, data, validity)
        lengths = raw.value_lengths()
        n = len(lengths)
        width = max(1, int(lengths.max()) if n else 1)
        starts = raw.offsets[:-1]
        first = raw.data[np.minimum(starts, max(len(raw.data) - 1, 0))] if len(raw.data) \
            else np.zeros(n, np.uint8)
        negative = (lengths > 0) & (first >= 0x80)
        out = np.where(negative[:, None], np.uint8(0xFF), np.uint8(0)).repeat(width, axis=1)
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        src = gather_ranges(starts, lengths)
        cols = np.arange(len(src), dtype=np.int64) - np.repeat(
            np.cumsum(lengths) - lengths, lengths) + np.repeat(width - lengths, lengths)
        out[rows, cols] = raw.data[src]
        return cls(type, out, validity)

    def _buffers(self):
        return (self.values,)

    def _slice(self, start, stop):
        return DecimalColumn(self.type, self.values[start:stop],
                             self._slice_validity(start, stop))

    def _take(self, idx):
        return DecimalColumn(self.type, self.values[idx], self._take_validity(idx))

    def unscaled(self):
        """The unscaled integers as a list of Python ints (nulls included as stored)."""
        return pv.unscaled_ints(self.values)

    def to_be_bytes(self, width):
        """Big-endian two's complement rows of ``width`` bytes: a (length, width) uint8 array.

        Raises ValueRangeError when a (non-null or null) slot does not fit.
        """
        v = pv.null_filled(self.values, self.validity) if self.values.ndim == 1 else self.values
        if v.ndim == 1:
            v = v.astype(">i8").view(np.uint8).reshape(len(v), 8)
        elif self.validity is not None:
            v = np.where(self.validity[:, None], v, np.uint8(0))
        return _resize_be(v, width, self.type)

    def check_precision(self):
        """Raise ValueRangeError naming the first non-null value with more digits than the
        type's precision (a file may store any integer its physical type holds; Arrow
        refuses a decimal array holding such a value)."""
        beyond = _beyond_precision(self.values, 10 ** self.type.precision)
        if self.validity is not None:
            beyond &= self.validity
        if beyond.any():
            i = int(np.argmax(beyond))
            value = pv.unscaled_ints(self.values[i:i + 1])[0]
            raise pv.ValueRangeError(f"{self.type} value at row {i}: the unscaled value "
                                     f"{value} has more than {self.type.precision} digits")

    def to_int64(self):
        """The unscaled values as int64 (null slots 0); ValueRangeError if one does not fit."""
        if self.values.ndim == 1:
            return pv.null_filled(self.values, self.validity).astype(np.int64)
        return pv.be_bytes_to_int64(self.to_be_bytes(8))

    def to_pylist(self):
        return pv.decimal_to_pylist(self.type, self.values, self.validity)

    def _pandas_array(self, pd, strings, take):
        return pv.decimal_objects_of(self.type, self.values, self.validity)

    def _values_equal(self, other, mask):
        a, b = self.values[mask], other.values[mask]
        if a.ndim == b.ndim == 1:
            return bool(np.array_equal(a.astype(np.int64), b.astype(np.int64)))
        if a.shape == b.shape and a.dtype == b.dtype:
            return bool(np.array_equal(a, b))
        return pv.unscaled_ints(a) == pv.unscaled_ints(b)

    @classmethod
    def _concat(cls, columns):
        vals = [c.values for c in columns]
        if all(v.ndim == 1 for v in vals):
            dtype = np.int64 if any(v.dtype == np.int64 for v in vals) else np.int32
            data = np.concatenate([v.astype(dtype, copy=False) for v in vals])
        else:
            width = max(v.shape[1] if v.ndim == 2 else v.dtype.itemsize for v in vals)
            data = np.concatenate([c.to_be_bytes(width) for c in columns])
        return cls(columns[0].type, data, concat_validity(columns))
