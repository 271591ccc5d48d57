"""Executor-side conversions of :mod:`pqkit.spark`: decoded columns -> what Spark takes.

A decoded column is first cast to its Spark-ready type (:func:`to_ready`, the
rules of :mod:`pqkit.spark.conversion.schema`), with numpy on the buffers: ``uint32``
values are widened to int64, ``timestamp[ns]`` values floored to
microseconds, a fixed-size list gets offsets ``0, k, 2k, ...``, a dictionary
column is decoded. Then it becomes

* a pandas Series for ``mapInPandas`` (:func:`to_pandas`): numpy or pandas'
  masked arrays for numbers (so a null stays distinct from NaN), datetime64
  for timestamps; strings, binary, decimals and dates as a
  ``pd.arrays.ArrowExtensionArray`` over the :func:`to_arrow` array when the
  caller passes the Arrow type (which pyspark hands to pyarrow through
  ``__arrow_array__``, without a Python object per value; the caller asks
  :func:`arrow_series_supported` first, since older pyspark rejects such a
  Series), otherwise as Python objects; nested values always as Python objects
  (maps as dicts, which is what pyspark's converter expects; pyspark converts
  lists and structs value by value anyway); or
* a pyarrow Array for ``mapInArrow`` (:func:`to_arrow`), built over the same
  buffers with ``Array.from_buffers``. pyarrow is imported by the caller, on
  the executor, only on this path and for Arrow-backed Series.

For example a ``uint32`` column ``[1, None, 4294967295]`` becomes an int64
column with the same validity, then ``pd.array([1, <NA>, 4294967295],
dtype="Int64")``.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import pyvalues as pv
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
    nulls,
)
from pqkit.errors import SchemaError

__all__ = ["to_ready", "constant_column", "to_pandas", "to_arrow",
           "arrow_series_supported"]

_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_MS_PER_DAY = 86_400_000
_NAT = np.iinfo(np.int64).min
_INT64_MAX = np.iinfo(np.int64).max


# --- decoded column -> Spark-ready column ---------------------------------------------------
def to_ready(col, target, where):
    """``col`` cast to the Spark-ready type ``target`` (which the planner derived from it)."""
    if isinstance(col, DictionaryColumn):
        col = col.decode()
    if col.type == target:
        return col
    if isinstance(col, NullColumn):
        return nulls(target, len(col))
    if isinstance(target, T.ListType):
        return _ready_list(col, target, where)
    if isinstance(target, T.StructType) and isinstance(col, StructColumn):
        children = [to_ready(col.field(f.name), f.type, f"{where}.{f.name}")
                    if f.name in col.type.names else nulls(f.type, len(col))
                    for f in target.fields]
        return StructColumn(target, children, col.validity, len(col))
    if isinstance(target, T.MapType) and isinstance(col, MapColumn):
        keys, items = col.flatten()
        return MapColumn(target, col.offsets - col.offsets[0],
                         to_ready(keys, target.key_type, f"{where}.key"),
                         to_ready(items, target.item_type, f"{where}.value"), col.validity)
    out = _ready_flat(col, target, where)
    if out is None:
        raise SchemaError(f"column {where}: cannot convert {col.type} to {target} for Spark")
    return out


def _ready_list(col, target, where):
    if isinstance(col, FixedSizeListColumn):
        size = col.type.list_size
        offsets = np.arange(len(col) + 1, dtype=np.int64) * size
        child = col.child
    elif isinstance(col, ListColumn):
        offsets = col.offsets - col.offsets[0]
        child = col.flatten()
    else:
        raise SchemaError(f"column {where}: cannot convert {col.type} to {target} for Spark")
    return ListColumn(target, offsets, to_ready(child, target.value_type, f"{where}[]"),
                      col.validity)


def _ready_flat(col, target, where):
    if isinstance(col, PrimitiveColumn):
        return _ready_primitive(col, target, where)
    if isinstance(col, BinaryColumn) and isinstance(target, T.StringType):
        return BinaryColumn(target, col.offsets, col.data, col.validity)
    if isinstance(col, FixedSizeBinaryColumn):
        if isinstance(col.type, T.UuidType) and target == T.string():
            return _uuid_text(col)
        if target == T.binary():
            width = col.data.shape[1]
            offsets = np.arange(len(col) + 1, dtype=np.int64) * width
            return BinaryColumn(target, offsets, col.data.reshape(-1), col.validity)
    if isinstance(col, DecimalColumn) and isinstance(target, T.DecimalType):
        return DecimalColumn(target, col.values, col.validity)
    return None


def _ready_primitive(col, target, where):
    s, v = col.type, col.values
    numbers = (T.IntegerType, T.FloatingType)
    if isinstance(s, numbers) and isinstance(target, numbers):
        return PrimitiveColumn(target, v.astype(target.numpy_dtype), col.validity)
    if isinstance(s, T.IntegerType) and not s.signed and isinstance(target, T.DecimalType):
        big_endian = v.astype(">u8").view(np.uint8).reshape(len(v), 8)
        sign_byte = np.zeros((len(v), 1), np.uint8)
        return DecimalColumn(target, np.concatenate([sign_byte, big_endian], axis=1),
                             col.validity)
    if isinstance(s, T.Date64Type) and isinstance(target, T.Date32Type):
        days = np.floor_divide(pv.null_filled(v, col.validity), _MS_PER_DAY)
        return PrimitiveColumn(target, days.astype(np.int32), col.validity)
    if isinstance(s, (T.TimestampType, T.DurationType)) and type(s) is type(target):
        return PrimitiveColumn(target, _to_micros(col, where), col.validity)
    return None


def _to_micros(col, where):
    per_second = _PER_SECOND[col.type.unit]
    v = pv.null_filled(col.values, col.validity)
    if per_second > 10**6:
        return np.floor_divide(v, per_second // 10**6)
    factor = 10**6 // per_second
    if factor == 1:
        return v
    limit = _INT64_MAX // factor
    bad = (v > limit) | (v < -limit)
    if bad.any():
        row = int(np.argmax(bad))
        raise SchemaError(f"column {where}: value {int(v[row])} {col.type.unit} at row {row} "
                          f"does not fit microseconds in 64 bits")
    return v * factor


_HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
_UUID_DASHES = (8, 13, 18, 23)


def _uuid_text(col):
    """RFC 4122 text (8-4-4-4-12 lower-case hex) of each 16-byte value."""
    n = len(col)
    digits = np.empty((n, 32), np.uint8)
    digits[:, 0::2] = _HEX[col.data >> 4]
    digits[:, 1::2] = _HEX[col.data & 0x0F]
    text = np.full((n, 36), ord("-"), np.uint8)
    keep = np.ones(36, np.bool_)
    keep[list(_UUID_DASHES)] = False
    text[:, keep] = digits
    offsets = np.arange(n + 1, dtype=np.int64) * 36
    return BinaryColumn(T.string(), offsets, text.reshape(-1), col.validity)


def constant_column(value, type_, length):
    """A column of ``length`` copies of the Python value ``value`` (a partition value)."""
    if value is None:
        return nulls(type_, length)
    from pqkit.convert import column_from_values
    one = column_from_values([value], type_)
    return one.take(np.zeros(length, np.int64))


# --- Spark-ready column -> pandas ------------------------------------------------------------
def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


# Spark-ready types whose values would otherwise be Python objects, and which pyspark's
# pandas converter passes through untouched (no per-value converter), so an Arrow-backed
# Series reaches pyarrow as is. Lists and structs get a per-value converter, maps a
# dict -> items one: those stay Python objects.
_ARROW_BACKED = (T.StringType, T.BinaryType, T.DecimalType, T.Date32Type)


def to_pandas(col, pd, arrow_type=None, pa=None):
    """A pandas Series that pyspark converts to the column's Spark type without loss.

    With ``arrow_type`` (pyspark's ``to_arrow_type`` of the column's Spark type) and
    ``pa``, strings, binary, decimals and dates come as an Arrow-backed Series over
    :func:`to_arrow`'s array; pass them only if :func:`arrow_series_supported`.
    """
    t, valid = col.type, col.validity
    if isinstance(col, NullColumn):
        return pd.Series(np.full(len(col), None, dtype=object))
    if arrow_type is not None and isinstance(t, _ARROW_BACKED):
        return pd.Series(pd.arrays.ArrowExtensionArray(to_arrow(col, arrow_type, pa)),
                         copy=False)
    if isinstance(t, T.FloatingType):
        # Always masked: pyspark marks NaN of a plain float Series as null.
        mask = np.zeros(len(col), np.bool_) if valid is None else ~valid
        return pd.Series(pd.arrays.FloatingArray(col.values, mask))
    if isinstance(t, (T.IntegerType, T.BooleanType)):
        if col.null_count == 0:
            return pd.Series(col.values, copy=False)
        cls = pd.arrays.IntegerArray if isinstance(t, T.IntegerType) else \
            pd.arrays.BooleanArray
        return pd.Series(cls(col.values, ~valid))
    if isinstance(t, (T.TimestampType, T.DurationType)):
        raw = pv.null_filled(col.values, valid, _NAT)
        if isinstance(t, T.DurationType):
            return pd.Series(raw.view("m8[us]"))
        stamps = raw.view("M8[us]")
        if t.tz is None:
            return pd.Series(stamps)
        return pd.Series(pd.DatetimeIndex(stamps).tz_localize("UTC"))
    if isinstance(t, T.Date32Type):
        days = pv.null_filled(col.values, valid).astype("M8[D]").astype(object)
        if valid is not None:
            days[~valid] = None
        return pd.Series(days)
    if T.is_text_type(t):
        strings = col.to_pandas()
        return strings if strings.dtype == object else strings.astype(object)
    return pd.Series(_object_array(spark_pylist(col)))


_ARROW_SERIES = None


def arrow_series_supported():
    """Whether this process's pyspark turns an Arrow-backed pandas Series into Arrow
    through ``__arrow_array__`` (no mask), as ``mapInPandas`` output; probed once."""
    global _ARROW_SERIES
    if _ARROW_SERIES is None:
        _ARROW_SERIES = _probe_arrow_series()
    return _ARROW_SERIES


def _probe_arrow_series():
    """Send a two-value Arrow-backed string Series through the pyspark function that
    converts ``mapInPandas`` output (or, where that does not exist, look for the
    ``__arrow_array__`` handling in the older serializer's source)."""
    try:
        import pandas as pd
        import pyarrow as pa
        from pyspark.sql import types as S
        try:
            from pyspark.sql.conversion import PandasToArrowConversion
        except ImportError:
            import inspect

            from pyspark.sql.pandas.serializers import ArrowStreamPandasSerializer
            source = inspect.getsource(ArrowStreamPandasSerializer._create_array)
            return "__arrow_array__" in source
        series = pd.Series(pd.arrays.ArrowExtensionArray(pa.array(["x", None], pa.string())))
        schema = S.StructType([S.StructField("_0", S.StructType(
            [S.StructField("s", S.StringType())]))])
        batch = PandasToArrowConversion.convert([pd.DataFrame({"s": series})], schema,
                                                timezone="UTC", safecheck=True,
                                                arrow_cast=True, assign_cols_by_name=True)
        got = batch.column(0).field(0)
        return got.type == pa.string() and got.to_pylist() == ["x", None]
    except Exception:
        return False


def _has_map(t):
    if isinstance(t, T.MapType):
        return True
    return any(_has_map(f.type) for f in t.fields)


def spark_pylist(col):
    """Python values as pyspark's pandas converter expects them (maps as dicts)."""
    if not _has_map(col.type):
        return col.to_pylist()
    if isinstance(col, MapColumn):
        keys, items = col.flatten()
        pairs = list(zip(spark_pylist(keys), spark_pylist(items)))
        rel = (col.offsets - col.offsets[0]).tolist()
        out = [dict(pairs[rel[i]:rel[i + 1]]) for i in range(len(col))]
    elif isinstance(col, ListColumn):
        values = spark_pylist(col.flatten())
        rel = (col.offsets - col.offsets[0]).tolist()
        out = [values[rel[i]:rel[i + 1]] for i in range(len(col))]
    elif isinstance(col, StructColumn):
        names = col.type.names
        lists = [spark_pylist(c) for c in col.children]
        out = [dict(zip(names, row)) for row in zip(*lists)]
    else:
        return col.to_pylist()
    return pv.apply_nulls(out, col.validity)


# --- Spark-ready column -> pyarrow -----------------------------------------------------------
def to_arrow(col, arrow_type, pa):
    """A pyarrow Array of ``arrow_type`` (what pyspark's ``to_arrow_type`` gives) over
    the column's buffers."""
    n = len(col)
    if isinstance(col, NullColumn):
        return pa.nulls(n, arrow_type)
    bitmap = None
    if col.validity is not None:
        bitmap = pa.py_buffer(np.packbits(col.validity, bitorder="little"))
    nulls_n = col.null_count
    if isinstance(col, PrimitiveColumn):
        values = col.values
        if values.dtype == np.bool_:
            data = np.packbits(values, bitorder="little")
        else:
            data = np.ascontiguousarray(values)
        return pa.Array.from_buffers(arrow_type, n, [bitmap, pa.py_buffer(data)], nulls_n)
    if isinstance(col, BinaryColumn):
        offsets, start = _arrow_offsets(col.offsets, arrow_type, pa)
        data = col.data[start:int(col.offsets[-1])]
        return pa.Array.from_buffers(arrow_type, n, [bitmap, offsets,
                                                     pa.py_buffer(np.ascontiguousarray(data))],
                                     nulls_n)
    if isinstance(col, DecimalColumn):
        return pa.Array.from_buffers(arrow_type, n, [bitmap, pa.py_buffer(_decimal128_le(col))],
                                     nulls_n)
    if isinstance(col, ListColumn):
        offsets, _ = _arrow_offsets(col.offsets, arrow_type, pa)
        child = to_arrow(col.flatten(), arrow_type.value_type, pa)
        return pa.Array.from_buffers(arrow_type, n, [bitmap, offsets], nulls_n,
                                     children=[child])
    if isinstance(col, StructColumn):
        children = [to_arrow(c, arrow_type.field(i).type, pa)
                    for i, c in enumerate(col.children)]
        return pa.Array.from_buffers(arrow_type, n, [bitmap], nulls_n, children=children)
    if isinstance(col, MapColumn):
        offsets, _ = _arrow_offsets(col.offsets, arrow_type, pa)
        keys, items = col.flatten()
        entries = pa.StructArray.from_arrays(
            [to_arrow(keys, arrow_type.key_type, pa), to_arrow(items, arrow_type.item_type, pa)],
            fields=[arrow_type.key_field, arrow_type.item_field])
        return pa.Array.from_buffers(arrow_type, n, [bitmap, offsets], nulls_n,
                                     children=[entries])
    raise SchemaError(f"no Arrow conversion for a {col.type} column")


def _arrow_offsets(offsets, arrow_type, pa):
    """(Arrow offsets buffer starting at 0, first offset); int32 unless the type is large."""
    start = int(offsets[0])
    rebased = offsets - start
    large = pa.types.is_large_string(arrow_type) or pa.types.is_large_binary(arrow_type) or \
        pa.types.is_large_list(arrow_type)
    if not large:
        if len(rebased) and rebased[-1] > np.iinfo(np.int32).max:
            raise SchemaError(f"a batch of {arrow_type} values holds {int(rebased[-1])} "
                              "entries, more than 32-bit Arrow offsets address; lower "
                              "batch_size")
        rebased = rebased.astype(np.int32)
    return pa.py_buffer(np.ascontiguousarray(rebased)), start


def _decimal128_le(col):
    """Each unscaled value as 16 little-endian two's complement bytes (Arrow decimal128)."""
    if col.values.ndim == 1:
        low = pv.null_filled(col.values, col.validity).astype("<i8")
        out = np.empty((len(low), 2), "<i8")
        out[:, 0] = low
        out[:, 1] = low >> 63
        return out
    return np.ascontiguousarray(col.to_be_bytes(16)[:, ::-1])
