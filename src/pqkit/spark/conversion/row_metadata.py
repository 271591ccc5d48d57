"""Spark's own schema of a file it wrote (the ``org.apache.spark.sql.parquet.row.metadata``
key/value entry), and the types :func:`pqkit.spark.read` gives Spark from it.

Spark stores some of its types in Parquet without an annotation that says so:
``interval year to month`` (and its YEAR / MONTH forms) as INT32 months,
``interval day to second`` (and DAY, HOUR, ... forms) as INT64 microseconds,
``variant`` as a group of binaries (shredded or not). Its row metadata names
the real type, and ``spark.read.parquet`` returns that. So does
:func:`pqkit.spark.read`, in three steps:

1. the executors cast the decoded column to its Spark-ready type as for any file,
   then to a *transport* form Spark's Arrow conversion takes
   (:func:`to_transport`): day-time intervals become durations, variants their
   (value, metadata) bytes (:mod:`pqkit.spark.conversion.variant_bytes`); year-month
   intervals stay int32 months, which Arrow cannot carry as an interval;
2. the DataFrame's schema uses the transport Spark types (:func:`transport_type`);
3. the driver casts the columns whose declared type differs to it
   (:func:`final_casts`): months via ``interval month``, day-time intervals from
   ``interval day to second`` to their declared fields.

``char(n)`` / ``varchar(n)`` come back as ``string`` (the values are stored
padded), as ``spark.read.parquet`` returns them. Other declared types equal
what the Parquet schema says and change nothing.
"""
import json

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.nested import ListColumn, MapColumn, StructColumn
from pqkit.errors import SchemaError
from pqkit.spark.conversion.schema import to_spark
from pqkit.spark.conversion.variant_bytes import unshred

__all__ = ["ROW_METADATA_KEY", "declared_types", "needs_transport", "transport_type",
           "to_transport", "final_casts", "is_variant", "final_spark_type", "quote"]

ROW_METADATA_KEY = "org.apache.spark.sql.parquet.row.metadata"


def declared_types(key_value_metadata):
    """Top-level column name -> Spark type JSON value (a str or dict), from a file's
    row metadata; ``{}`` when it has none or it does not parse."""
    text = (key_value_metadata or {}).get(ROW_METADATA_KEY)
    if not text:
        return {}
    try:
        schema = json.loads(text)
        return {f["name"]: f["type"] for f in schema.get("fields", ())}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


def is_variant(declared):
    return declared == "variant"


def _is_year_month(declared):
    return isinstance(declared, str) and declared.startswith("interval") and \
        declared.split()[1] in ("year", "month")


def _is_day_time(declared):
    return isinstance(declared, str) and declared.startswith("interval") and \
        not _is_year_month(declared)


def needs_transport(declared):
    """Whether the declared type holds an interval or a variant anywhere."""
    if isinstance(declared, str):
        return is_variant(declared) or declared.startswith("interval")
    if not isinstance(declared, dict):
        return False
    kind = declared.get("type")
    if kind == "struct":
        return any(needs_transport(f.get("type")) for f in declared.get("fields", ()))
    if kind == "array":
        return needs_transport(declared.get("elementType"))
    if kind == "map":
        return needs_transport(declared.get("keyType")) or \
            needs_transport(declared.get("valueType"))
    return False


def _struct_children(declared, ready):
    by_name = {f["name"]: f["type"] for f in declared.get("fields", ())}
    return [(f, by_name.get(f.name)) for f in ready.fields]


def transport_type(ready, declared):
    """The pyspark DataType the executors produce for a Spark-ready pqkit type ``ready``
    whose column Spark declared as ``declared`` (JSON value, or None)."""
    from pyspark.sql import types as S
    if declared is None or not needs_transport(declared):
        return to_spark(ready)
    if is_variant(declared):
        return S.VariantType()
    if _is_year_month(declared) and isinstance(ready, T.IntegerType):
        return S.IntegerType()
    if _is_day_time(declared) and isinstance(ready, T.IntegerType):
        return S.DayTimeIntervalType()
    kind = declared.get("type") if isinstance(declared, dict) else None
    if kind == "struct" and isinstance(ready, T.StructType):
        return S.StructType([S.StructField(f.name, transport_type(f.type, d), True)
                             for f, d in _struct_children(declared, ready)])
    if kind == "array" and isinstance(ready, T.ListType):
        return S.ArrayType(transport_type(ready.value_type, declared.get("elementType")), True)
    if kind == "map" and isinstance(ready, T.MapType):
        return S.MapType(transport_type(ready.key_type, declared.get("keyType")),
                         transport_type(ready.item_type, declared.get("valueType")), True)
    return to_spark(ready)


def to_transport(col, declared, where):
    """Executor side: a Spark-ready column -> its :func:`transport_type` form."""
    if declared is None or not needs_transport(declared):
        return col
    if is_variant(declared) and isinstance(col, StructColumn):
        return unshred(col, where)
    if _is_day_time(declared) and isinstance(col, PrimitiveColumn) and \
            isinstance(col.type, T.IntegerType):
        return PrimitiveColumn(T.duration("us"), col.values.astype(np.int64), col.validity)
    kind = declared.get("type") if isinstance(declared, dict) else None
    if kind == "struct" and isinstance(col, StructColumn):
        pairs = _struct_children(declared, col.type)
        children = [to_transport(c, d, f"{where}.{f.name}")
                    for c, (f, d) in zip(col.children, pairs)]
        fields = [T.field(f.name, c.type) for c, (f, _) in zip(children, pairs)]
        return StructColumn(T.struct(fields), children, col.validity, len(col))
    if kind == "array" and isinstance(col, ListColumn):
        child = to_transport(col.flatten(), declared.get("elementType"), f"{where}[]")
        return ListColumn(T.list_(T.field("element", child.type)),
                          col.offsets - col.offsets[0], child, col.validity)
    if kind == "map" and isinstance(col, MapColumn):
        keys, items = col.flatten()
        keys = to_transport(keys, declared.get("keyType"), f"{where}.key")
        items = to_transport(items, declared.get("valueType"), f"{where}.value")
        t = T.map_(T.field("key", keys.type, nullable=False), T.field("value", items.type))
        return MapColumn(t, col.offsets - col.offsets[0], keys, items, col.validity)
    return col


def _as_spark(declared):
    from pyspark.sql import types as S
    wrapper = {"type": "struct", "fields": [{"name": "c", "type": declared,
                                            "nullable": True, "metadata": {}}]}
    return S.StructType.fromJson(wrapper).fields[0].dataType


def _months_first(dt):
    """``dt`` with every year-month interval as ``interval month`` (what int casts to)."""
    from pyspark.sql import types as S
    if isinstance(dt, S.YearMonthIntervalType):
        return S.YearMonthIntervalType(S.YearMonthIntervalType.MONTH)
    if isinstance(dt, S.StructType):
        return S.StructType([S.StructField(f.name, _months_first(f.dataType), True)
                             for f in dt.fields])
    if isinstance(dt, S.ArrayType):
        return S.ArrayType(_months_first(dt.elementType), True)
    if isinstance(dt, S.MapType):
        return S.MapType(_months_first(dt.keyType), _months_first(dt.valueType), True)
    return dt


def _nullable(dt, transport):
    """``dt`` with Spark-read nullability, and transport types where no cast applies."""
    from pyspark.sql import types as S
    if isinstance(dt, S.StructType) and isinstance(transport, S.StructType):
        by_name = {f.name: f.dataType for f in dt.fields}
        return S.StructType([S.StructField(f.name, _nullable(by_name.get(f.name, f.dataType),
                                                             f.dataType), True)
                             for f in transport.fields])
    if isinstance(dt, S.ArrayType) and isinstance(transport, S.ArrayType):
        return S.ArrayType(_nullable(dt.elementType, transport.elementType), True)
    if isinstance(dt, S.MapType) and isinstance(transport, S.MapType):
        return S.MapType(_nullable(dt.keyType, transport.keyType),
                         _nullable(dt.valueType, transport.valueType), True)
    if isinstance(dt, (S.YearMonthIntervalType, S.DayTimeIntervalType, S.VariantType)):
        return dt
    return transport


def final_casts(names, declared, transports):
    """SQL expressions turning the transport columns into their declared types (one per
    name; the plain column where nothing changes). SQL text works on classic and Spark
    Connect DataFrames alike."""
    out = []
    for name, d, transport in zip(names, declared, transports):
        col = quote(name)
        if d is None or not needs_transport(d) or is_variant(d):
            out.append(col)
            continue
        target = _nullable(_as_spark(d), transport)
        if target == transport:
            out.append(col)
            continue
        step = _months_first(target)
        if step != target:
            col = f"cast({col} as {step.simpleString()})"
        out.append(f"cast({col} as {target.simpleString()}) as {quote(name)}")
    return out


def quote(name):
    """``name`` as a SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def _has_year_month(dt):
    from pyspark.sql import types as S
    if isinstance(dt, S.YearMonthIntervalType):
        return True
    if isinstance(dt, S.StructType):
        return any(_has_year_month(f.dataType) for f in dt.fields)
    if isinstance(dt, S.ArrayType):
        return _has_year_month(dt.elementType)
    if isinstance(dt, S.MapType):
        return _has_year_month(dt.keyType) or _has_year_month(dt.valueType)
    return False


def final_spark_type(ready, declared, where):
    """The Spark type a column arrives as when it crosses as Arrow with no cast after it
    (the ``pqkit`` data source): its declared type, the transport form where Spark's Arrow
    conversion takes that type as it is (day-time intervals as durations, variants).

    A year-month interval has no Arrow form Spark accepts from Python: SchemaError."""
    transport = transport_type(ready, declared)
    if declared is None or not needs_transport(declared) or is_variant(declared):
        return transport
    target = _nullable(_as_spark(declared), transport)
    if _has_year_month(target):
        raise SchemaError(f"column {where!r} holds a year-month interval "
                          f"({target.simpleString()}), which a Python data source cannot hand "
                          "to Spark; read it with pqkit.spark.read, or leave it out with the "
                          "columns option")
    return target
