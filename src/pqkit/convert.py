"""Python, numpy and pandas data -> pqkit columns and tables (the writer's input side).

Types are taken from numpy dtypes where there is one (zero-copy when the dtype
already is the column's), else inferred from the Python values, the way
pyarrow infers them::

    bool -> bool_           int -> int64 (uint64 when a value needs it)
    float, int+float -> float64                    str -> string   bytes -> binary
    Decimal -> decimal(p, s) (smallest holding every value)
    datetime -> timestamp[us] (tz-aware: tz kept, values UTC)     date -> date32
    time -> time64[us]      timedelta -> duration[us]             UUID -> uuid
    list/tuple -> list<inferred>    dict -> struct<union of keys>  all None -> null

Maps need an explicit ``map_`` type; their values are lists of (key, value)
pairs or dicts. A value that does not fit the column's type raises
:class:`~pqkit.errors.SchemaError` naming the row.
"""
import datetime as _dt
import decimal
import uuid as _uuid

import numpy as np

from . import datatypes as T
from .columns import (BinaryColumn, Column, DecimalColumn, FixedSizeBinaryColumn, NullColumn,
                      PrimitiveColumn)
from .errors import SchemaError
from .nested_columns import (DictionaryColumn, FixedSizeListColumn, ListColumn, MapColumn,
                             StructColumn)
from .table import Table

_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}


# --- inference ---------------------------------------------------------------------------
def infer_type(values):
    """The pqkit type pyarrow would infer for a list of Python values."""
    present = [v for v in values if v is not None]
    if not present:
        return T.null()
    kinds = {type(v) for v in present}
    if kinds <= {bool, np.bool_}:
        return T.bool_()
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           for v in present):
        return T.uint64() if max(int(v) for v in present) > 2**63 - 1 and \
            min(int(v) for v in present) >= 0 else T.int64()
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
           for v in present):
        return T.float64()
    first = present[0]
    if isinstance(first, (bool, int, float, np.number)):
        _all(present, type(first))        # numbers mixed with something else
    checks = [(str, T.string), ((bytes, bytearray, memoryview), T.binary),
              (_uuid.UUID, T.uuid), (_dt.timedelta, lambda: T.duration("us")),
              (_dt.time, lambda: T.time64("us"))]
    for cls, make in checks:
        if isinstance(first, cls):
            _all(present, cls)
            return make()
    if isinstance(first, decimal.Decimal):
        _all(present, decimal.Decimal)
        return _decimal_type(present)
    if isinstance(first, _dt.datetime):
        _all(present, _dt.datetime)
        tz = _tz_name(first.tzinfo) if first.tzinfo is not None else None
        return T.timestamp("us", tz)
    if isinstance(first, _dt.date):
        _all(present, _dt.date)
        return T.date32()
    if isinstance(first, (list, tuple, np.ndarray)):
        _all(present, (list, tuple, np.ndarray))
        return T.list_(infer_type([x for v in present for x in v]))
    if isinstance(first, dict):
        _all(present, dict)
        keys = list(dict.fromkeys(k for v in present for k in v))
        return T.struct([(k, infer_type([v.get(k) for v in present])) for k in keys])
    raise SchemaError(f"cannot infer a column type for {type(first).__name__} values")


def _all(values, cls):
    for i, v in enumerate(values):
        if not isinstance(v, cls):
            raise SchemaError(f"mixed value types: {type(values[0]).__name__} and "
                              f"{type(v).__name__} ({v!r}) in one column")


def _decimal_type(values):
    digits, scale = 1, 0
    for v in values:
        sign, ds, exp = v.as_tuple()
        if not isinstance(exp, int):
            raise SchemaError(f"decimal value {v} is not finite")
        scale = max(scale, -exp)
    for v in values:
        sign, ds, exp = v.as_tuple()
        integer_digits = len(ds) + exp
        digits = max(digits, integer_digits)
    precision = max(digits + scale, 1)
    if precision > 76:
        raise SchemaError(f"decimal values need {precision} digits, more than 76")
    return T.decimal(precision, scale)


def _tz_name(tz):
    key = getattr(tz, "key", None) or getattr(tz, "zone", None)
    if key:
        return key
    off = tz.utcoffset(None)
    if off is None:
        raise SchemaError(f"time zone {tz!r} has no fixed offset or name")
    if off == _dt.timedelta(0):
        return "UTC"
    sign = "-" if off < _dt.timedelta(0) else "+"
    minutes = abs(int(off.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


# --- building ----------------------------------------------------------------------------
def column_from_values(values, type=None):
    """A pqkit column from a list, numpy array, pandas Series or Column (see module doc)."""
    if isinstance(values, Column):
        return values if type is None or values.type == type else \
            column_from_values(values.to_pylist(), type)
    pandas_col = _from_pandas(values, type)
    if pandas_col is not None:
        return pandas_col
    if isinstance(values, np.ndarray):
        col = _from_numpy(values, type)
        if col is not None:
            return col
        values = values.tolist()
    values = list(values)
    return _build(values, infer_type(values) if type is None else type)


def _from_numpy(arr, type):
    mask = None
    if isinstance(arr, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(arr)
        arr = np.ma.getdata(arr)
    validity = None if mask is None or not mask.any() else ~mask
    kind = arr.dtype.kind
    if arr.ndim != 1 or kind not in "biufMm":
        return None
    if kind == "M" or kind == "m":
        unit = np.datetime_data(arr.dtype)[0]
        if unit not in _PER_SECOND:           # days, minutes...: store microseconds
            arr = arr.astype("M8[us]" if kind == "M" else "m8[us]")
            unit = "us"
        natural = T.timestamp(unit) if kind == "M" else T.duration(unit)
        ints = arr.view(np.int64)
        nat = ints == np.iinfo(np.int64).min
        if nat.any():
            validity = ~nat if validity is None else validity & ~nat
        col = PrimitiveColumn(natural, np.where(nat, 0, ints), validity)
    else:
        natural = {"b": T.bool_()}.get(kind) or _numpy_type(arr.dtype)
        col = PrimitiveColumn(natural, arr, validity)
    if type is None or type == natural:
        return col
    if type.numpy_dtype is not None and not isinstance(type, T.DecimalType) and \
            kind in "biuf" and np.can_cast(arr.dtype, type.numpy_dtype, "same_kind"):
        cast = arr.astype(type.numpy_dtype)
        if kind in "iu" and not np.array_equal(cast.astype(arr.dtype), arr):
            bad = int(np.argmax(cast.astype(arr.dtype) != arr))
            raise SchemaError(f"value {arr[bad]} at row {bad} does not fit {type}")
        return PrimitiveColumn(type, cast, validity)
    return _build(col.to_pylist(), type)


def _numpy_type(dtype):
    if dtype.kind == "f":
        return {2: T.float16, 4: T.float32, 8: T.float64}[dtype.itemsize]()
    return T.IntegerType(dtype.itemsize * 8, dtype.kind == "i")


def _from_pandas(values, type):
    try:
        import pandas as pd
    except ImportError:      # pandas is optional
        return None
    if isinstance(values, pd.Series):
        values = values.array
    if not isinstance(values, pd.api.extensions.ExtensionArray):
        return None
    if isinstance(values, pd.Categorical):
        cats = column_from_values(list(values.categories),
                                  None if not isinstance(type, T.DictionaryType)
                                  else type.value_type)
        codes = values.codes.astype(np.int32)
        valid = codes >= 0
        typ = T.dictionary(T.int32(), cats.type, bool(values.ordered))
        return DictionaryColumn(typ, np.where(valid, codes, 0).astype(np.int32), cats,
                                None if valid.all() else valid)
    if hasattr(values, "_data") and hasattr(values, "_mask"):       # masked numeric/boolean
        return _from_numpy(np.ma.MaskedArray(np.asarray(values._data), values._mask), type)
    dtype = values.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        ints = np.asarray(values.asi8) if hasattr(values, "asi8") else \
            values.to_numpy("M8[ns]").view(np.int64)
        nat = ints == np.iinfo(np.int64).min
        unit = getattr(dtype, "unit", "ns")
        col = PrimitiveColumn(T.timestamp(unit, _tz_name(dtype.tz)), np.where(nat, 0, ints),
                              None if not nat.any() else ~nat)
        return col if type is None or col.type == type else _build(col.to_pylist(), type)
    objs = [None if v is pd.NA or v is None or (isinstance(v, float) and v != v and
                                                 not isinstance(type, T.FloatingType))
            else v for v in values.to_numpy(dtype=object)]
    return _build(objs, infer_type(objs) if type is None else type)


def _build(values, t):
    """A column of type ``t`` from Python values (None is null)."""
    try:
        return _build_raw(values, t)
    except (TypeError, ValueError, OverflowError, AttributeError) as exc:
        raise SchemaError(f"{_first_bad(values, t)} does not fit {t}: {exc}") from None


def _build_raw(values, t):
    n = len(values)
    valid = np.fromiter((v is not None for v in values), np.bool_, n)
    validity = None if valid.all() else valid
    if isinstance(t, T.NullType):
        if validity is None and n:
            raise SchemaError(f"null column given a non-null value {values[0]!r}")
        return NullColumn(n)
    if isinstance(t, T.DictionaryType):
        inner = _build(values, t.value_type)
        return _dictionary_encode(inner, t)
    present = [v for v in values if v is not None]
    if isinstance(t, T.StringType):
        if isinstance(t, T.BinaryType):
            enc = [bytes(v) for v in present]
        else:
            enc = [v.encode("utf-8") for v in present]
        return _binary(t, enc, valid, validity)
    if isinstance(t, (T.FixedSizeBinaryType, T.ExtensionType)):
        return _fixed_binary(t, present, valid, validity)
    if isinstance(t, T.DecimalType):
        return _decimal(t, present, valid, validity)
    if t.numpy_dtype is not None:
        return _primitive(t, values, valid, validity)
    if isinstance(t, (T.ListType, T.FixedSizeListType)):
        return _list(t, values, valid, validity)
    if isinstance(t, T.StructType):
        return _struct(t, values, validity)
    if isinstance(t, T.MapType):
        return _map(t, values, valid, validity)
    raise SchemaError(f"cannot build a column of type {t}")


def _first_bad(values, t):
    for i, v in enumerate(values):
        if v is None:
            continue
        try:
            _build_raw([v], t)
        except (SchemaError, TypeError, ValueError, OverflowError, AttributeError):
            return f"value {v!r} at row {i}"
    return "a value"


def _binary(t, encoded, valid, validity):
    lengths = np.zeros(len(valid), np.int64)
    lengths[valid] = [len(b) for b in encoded]
    offsets = np.zeros(len(valid) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return BinaryColumn(t, offsets, np.frombuffer(b"".join(encoded), np.uint8), validity)


def _fixed_binary(t, present, valid, validity):
    width = T.uuid().storage_type.byte_width if isinstance(t, T.UuidType) else \
        (t.storage_type.byte_width if isinstance(t, T.ExtensionType) else t.byte_width)
    raw = [v.bytes if isinstance(v, _uuid.UUID) else bytes(v) for v in present]
    for r in raw:
        if len(r) != width:
            raise ValueError(f"{len(r)} bytes, expected {width}")
    data = np.zeros((len(valid), width), np.uint8)
    if raw:
        data[valid] = np.frombuffer(b"".join(raw), np.uint8).reshape(-1, width)
    return FixedSizeBinaryColumn(t, data, validity)


def _decimal(t, present, valid, validity):
    width = 16 if t.bit_width == 128 else 32
    data = np.zeros((len(valid), width), np.uint8)
    rows = []
    quantum = decimal.Decimal(1).scaleb(-t.scale)
    for v in present:
        d = decimal.Decimal(v)
        q = d.quantize(quantum)
        if q != d or len(q.as_tuple().digits) > t.precision and q != 0:
            raise ValueError(f"{v} has more digits than decimal({t.precision}, {t.scale})")
        rows.append(int(q.scaleb(t.scale)).to_bytes(width, "big", signed=True))
    if rows:
        data[valid] = np.frombuffer(b"".join(rows), np.uint8).reshape(-1, width)
    return DecimalColumn(t, data, validity)


def _primitive(t, values, valid, validity):
    conv = _TEMPORAL.get(type(t))
    filled = [0 if v is None else (conv(v, t) if conv else v) for v in values]
    if isinstance(t, T.IntegerType):
        arr = np.array(filled, dtype=object)
        info = np.iinfo(t.numpy_dtype)
        for i, v in enumerate(filled):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or \
                    not info.min <= v <= info.max:
                raise ValueError(f"row {i}: {values[i]!r}")
        return PrimitiveColumn(t, arr.astype(t.numpy_dtype), validity)
    return PrimitiveColumn(t, np.array(filled, dtype=t.numpy_dtype), validity)


def _date(v, t):
    if isinstance(v, _dt.datetime) or not isinstance(v, _dt.date):
        raise TypeError(f"expected a date, got {type(v).__name__}")
    days = (v - _dt.date(1970, 1, 1)).days
    return days * 86_400_000 if isinstance(t, T.Date64Type) else days


def _timestamp(v, t):
    if isinstance(v, (int, np.integer)):
        return int(v)
    if not isinstance(v, _dt.datetime):
        raise TypeError(f"expected a datetime, got {type(v).__name__}")
    delta = v - (_EPOCH_UTC if v.tzinfo is not None else _EPOCH)
    return _count(delta, t.unit) + (getattr(v, "nanosecond", 0) if t.unit == "ns" else 0)


def _count(delta, unit):
    micros = (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds
    return micros * _PER_SECOND[unit] // 10**6 if unit != "ns" else micros * 1000


def _time(v, t):
    if isinstance(v, (int, np.integer)):
        return int(v)
    micros = ((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
    return micros * _PER_SECOND[t.unit] // 10**6 if t.unit != "ns" else micros * 1000


def _duration(v, t):
    if isinstance(v, (int, np.integer)):
        return int(v)
    return _count(v, t.unit)


_TEMPORAL = {T.Date32Type: _date, T.Date64Type: _date, T.TimestampType: _timestamp,
             T.Time32Type: _time, T.Time64Type: _time, T.DurationType: _duration}


def _list(t, values, valid, validity):
    if isinstance(t, T.FixedSizeListType):
        size = t.list_size
        for i, v in enumerate(values):
            if v is not None and len(v) != size:
                raise SchemaError(f"row {i} has {len(v)} values, {t} needs {size}")
        # null rows keep list_size null slots in the child
        flat = [x for v in values for x in (v if v is not None else [None] * size)]
        return FixedSizeListColumn(t, _build(flat, t.value_type), validity,
                                   length=len(values))
    lengths = np.fromiter((len(v) if v is not None else 0 for v in values), np.int64,
                          len(values))
    child = _build([x for v in values if v is not None for x in v], t.value_type)
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return ListColumn(t, offsets, child, validity)


def _struct(t, values, validity):
    for i, v in enumerate(values):
        if v is not None and not isinstance(v, dict):
            raise SchemaError(f"value {v!r} at row {i} is not a dict for {t}")
    children = [_build([None if v is None else v.get(f.name) for v in values], f.type)
                for f in t.fields]
    return StructColumn(t, children, validity, length=len(values))


def _map(t, values, valid, validity):
    pairs = [list(v.items()) if isinstance(v, dict) else list(v) if v is not None else []
             for v in values]
    lengths = np.fromiter((len(p) for p in pairs), np.int64, len(pairs))
    offsets = np.zeros(len(pairs) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    keys = _build([k for p in pairs for k, _ in p], t.key_type)
    items = _build([x for p in pairs for _, x in p], t.item_type)
    return MapColumn(t, offsets, keys, items, validity)


def _dictionary_encode(col, t):
    values = col.to_pylist()
    table, idx = {}, np.zeros(len(values), np.int32)
    for i, v in enumerate(values):
        if v is not None:
            idx[i] = table.setdefault(v, len(table))
    dictionary = _build(list(table), t.value_type)
    return DictionaryColumn(T.dictionary(t.index_type, dictionary.type, t.ordered), idx,
                            dictionary, col.validity)


# --- tables -----------------------------------------------------------------------------
def _schema_fields(schema):
    if schema is None:
        return None
    if isinstance(schema, T.StructType):
        return list(schema.fields)
    if isinstance(schema, dict):
        return [T.field(k, v) for k, v in schema.items()]
    return [f if isinstance(f, T.Field) else T.field(*f) for f in schema]


def table_from_data(data, schema=None):
    """A pqkit Table from a Table, a dict of name -> values, or a pandas DataFrame.

    ``schema`` (list of Fields, a struct type, or dict name -> type) fixes types and
    nullability; a pandas index is not written.
    """
    fields = _schema_fields(schema)
    if isinstance(data, Table):
        if fields is None:
            return data
        data = {name: data.column(name) for name in data.column_names}
    try:
        import pandas as pd
        if isinstance(data, pd.DataFrame):
            data = {str(c): data[c] for c in data.columns}
    except ImportError:
        pass
    if not isinstance(data, dict):
        raise SchemaError(f"cannot write {type(data).__name__}: give a pqkit.Table, a dict "
                          "of columns or a pandas DataFrame")
    if fields is None:
        cols = {name: column_from_values(v) for name, v in data.items()}
        return Table(list(cols.values()), list(cols))
    missing = [f.name for f in fields if f.name not in data]
    if missing:
        raise SchemaError(f"the data has no column {missing[0]!r} of the schema")
    cols = [column_from_values(data[f.name], f.type) for f in fields]
    return Table(cols, fields)
