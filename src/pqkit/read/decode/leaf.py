"""Physical values -> typed leaf columns (the types come from :mod:`pqkit.schema.logical`).

INT96 holds nanoseconds of the day (little-endian int64) followed by the
Julian day (little-endian, read as unsigned 32 bits as Arrow C++ does, which
matters only for the absurd values some test files hold); Julian day 2440588
is 1970-01-01. Results wrap modulo 2**64 like the other readers'.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import DictionaryColumn
from pqkit.format import Type
from pqkit.levels import expand_offsets, expand_values
from pqkit.read.decode import values as V

_JULIAN_EPOCH = 2440588
_NS_PER_UNIT = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
_NS_PER_DAY = 86_400_000_000_000
INT96_UNITS = tuple(_NS_PER_UNIT)


def int96_to_timestamps(raw, unit="ns"):
    """(n, 12) uint8 INT96 values -> int64 counts of ``unit`` since the epoch.

    In nanoseconds only the years 1677-2262 fit in int64; outside them the result
    wraps, as pyarrow's default read does. A coarser unit (pyarrow's
    ``coerce_int96_timestamp_unit``; Spark reads microseconds) keeps any year exact,
    flooring the time of day to the unit.
    """
    raw = np.ascontiguousarray(raw)
    nanos = raw[:, :8].copy().view("<i8").reshape(-1)
    days = raw[:, 8:].copy().view("<u4").reshape(-1).astype(np.int64)
    per = _NS_PER_UNIT[unit]
    with np.errstate(over="ignore"):
        return (days - _JULIAN_EPOCH) * (_NS_PER_DAY // per) + np.floor_divide(nanos, per)


def _fixed_as_binary(arr):
    """(n, width) FIXED_LEN_BYTE_ARRAY values as variable-length binary values, for
    text annotated on FIXED_LEN_BYTE_ARRAY (see :mod:`pqkit.schema.logical`)."""
    n, width = arr.shape
    offsets = np.arange(n + 1, dtype=np.int64) * width
    return V.BinaryValues(offsets, np.ascontiguousarray(arr).reshape(-1))


def leaf_column(type_, physical, values, value_mask, validity, num_slots):
    """Build the typed leaf column over ``num_slots`` slots.

    ``values`` are the chunk's dense non-null values (FixedValues, BinaryValues
    or DictionaryValues); ``value_mask`` places them in the slots (None: one
    per slot); ``validity`` is the leaf's own validity (None: no nulls).
    """
    if isinstance(type_, T.NullType):
        return NullColumn(num_slots)
    if isinstance(values, V.DictionaryValues):
        if physical == Type.BYTE_ARRAY and isinstance(type_, T.StringType):
            dictionary = leaf_column(type_, physical, values.dictionary, None, None,
                                     len(values.dictionary))
            # The decoder checked every index against the dictionary; expanding puts 0
            # in the slots without a value.
            indices = expand_values(values.indices, value_mask)
            return DictionaryColumn._checked(T.dictionary(T.int32(), type_), indices,
                                             dictionary, validity)
        values = V.take(values.dictionary, values.indices, "dictionary")
    if physical == Type.FIXED_LEN_BYTE_ARRAY and isinstance(type_, T.StringType):
        values = _fixed_as_binary(values.array)
    if isinstance(values, V.BinaryValues):
        offsets = expand_offsets(values.offsets, value_mask)
        if isinstance(type_, T.DecimalType):
            return DecimalColumn.from_variable_bytes(type_, offsets, values.data, validity)
        # Decoder offsets are int64, non-decreasing and within the data by construction.
        return BinaryColumn._checked(type_, offsets, values.data, validity)
    arr = expand_values(values.array, value_mask)
    if physical == Type.INT96:
        return PrimitiveColumn(type_, int96_to_timestamps(arr, type_.unit), validity)
    if physical == Type.FIXED_LEN_BYTE_ARRAY:
        if isinstance(type_, T.DecimalType):
            return DecimalColumn(type_, arr, validity)
        if isinstance(type_, T.FloatingType):
            return PrimitiveColumn(type_, np.ascontiguousarray(arr).view("<f2").reshape(-1),
                                   validity)
        return FixedSizeBinaryColumn(type_, arr, validity)
    if isinstance(type_, T.DecimalType):
        return DecimalColumn(type_, arr, validity)
    dtype = type_.numpy_dtype
    if arr.dtype != dtype:
        # Narrow ints wrap as other readers do; unsigned types reinterpret the bits.
        arr = arr.view(dtype) if arr.dtype.itemsize == dtype.itemsize else arr.astype(dtype)
    return PrimitiveColumn(type_, arr, validity)
