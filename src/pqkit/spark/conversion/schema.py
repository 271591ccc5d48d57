"""Parquet (pqkit) types <-> Spark SQL types, for :mod:`pqkit.spark`.

Reading maps every pqkit type first to a *Spark-ready* pqkit type (one that
Spark holds without loss), then one-to-one to a Spark type. The executors cast
each decoded column to its Spark-ready type (:mod:`pqkit.spark.conversion.columns`), so
the driver's schema and the executors' data always agree.

=======================================  ==================================  ======================
pqkit type (Parquet annotation)          Spark-ready pqkit type              Spark type
=======================================  ==================================  ======================
bool                                     bool                                BooleanType
int8 / int16 / int32 / int64             same                                Byte/Short/Integer/Long
uint8 / uint16 / uint32                  int16 / int32 / int64               Short/Integer/LongType
uint64                                   decimal(20, 0)                      DecimalType(20, 0)
float16 / float32 / float64              float32 / float32 / float64         Float/Float/DoubleType
string, large_string, uuid               string (uuid as 8-4-4-4-12 hex)     StringType
binary, large_binary, fixed_size_binary  binary                              BinaryType
decimal(p, s), p <= 38                   same                                DecimalType(p, s)
date32, date64                           date32                              DateType
timestamp, isAdjustedToUTC=true; INT96   timestamp[us, UTC]                  TimestampType
timestamp, isAdjustedToUTC=false         timestamp[us]                       TimestampNTZType
duration (Arrow schema)                  duration[us]                        DayTimeIntervalType
dictionary<values=v>                     Spark-ready v                       that of v
list, large_list, fixed_size_list        list<Spark-ready item>              ArrayType
map<k, v>                                map<Spark-ready k, v>               MapType
struct<...>                              struct<Spark-ready fields>          StructType
null                                     null                                NullType
=======================================  ==================================  ======================

Time units: seconds and milliseconds are exact in microseconds; **nanoseconds
(and INT96) are floored to the microsecond** (for instants after 1970 that is
truncation, which is what Spark's own INT96 reader does). Every field is
nullable, as in ``spark.read.parquet``.

Spark has no type for a time of day (TIME), Parquet's INTERVAL, Arrow's
month_day_nano interval, decimals of more than 38 digits or a negative scale;
a column holding one raises :class:`pqkit.SchemaError` naming the column, and
``columns=[...]`` can leave it out.

Writing maps the other way (:func:`from_spark`): Byte/Short/Integer/Long,
Float/Double, Boolean, String (also Char/Varchar), Binary, Decimal, Date,
Timestamp (UTC-adjusted INT64 micros), TimestampNTZ (local INT64 micros),
DayTimeInterval (INT64 micros, restored by Spark from its row metadata),
Time (Spark >= 4.1: TIME(MICROS) of local time, as Spark writes it), Array,
Map, Struct and Null; a user-defined type as its SQL type, as Spark stores it; a
top-level Variant as a Parquet VARIANT (:func:`pqkit.spark.jobs.write_plan.column_type`).
The other Spark types are refused naming the column and what to do instead:
year-month and calendar intervals (no Arrow type takes them to Python),
Geometry and Geography (pqkit writes no GEOMETRY/GEOGRAPHY logical type yet), a
Variant inside an array, map or struct (pqkit writes VARIANT columns at the top level).
"""
import datetime
import decimal
import re

from pqkit import datatypes as T
from pqkit.errors import SchemaError, require
from pqkit.format import Type

__all__ = ["ready_type", "file_fields", "merge_types", "to_spark", "spark_schema",
           "from_spark", "parse_partition_type", "PARTITION_TYPE_NAMES"]

_UNSIGNED_WIDER = {8: T.int16(), 16: T.int32(), 32: T.int64()}
_UINT64_DECIMAL = T.decimal(20, 0)
_UTC_US = T.timestamp("us", "UTC")
_LOCAL_US = T.timestamp("us")
_MAX_SPARK_PRECISION = 38


# --- pqkit type -> Spark-ready pqkit type ----------------------------------------------------
def _leaf_count(t):
    if isinstance(t, T.StructType):
        return sum(_leaf_count(f.type) for f in t.fields)
    if isinstance(t, (T.ListType, T.FixedSizeListType)):
        return _leaf_count(t.value_type)
    if isinstance(t, T.MapType):
        return _leaf_count(t.key_type) + _leaf_count(t.item_type)
    return 1


def ready_type(t, where, int96_leaves=None):
    """The Spark-ready pqkit type for ``t`` (see the module table).

    Parameters
    ----------
    t : pqkit DataType
    where : str
        Column path for error messages.
    int96_leaves : list of bool, optional
        For each leaf of ``t`` in depth-first order, whether its Parquet column is
        INT96 (an instant although it carries no time zone).
    """
    flags = iter(int96_leaves) if int96_leaves is not None else None
    return _ready(t, where, flags)


def _ready(t, where, flags):
    if isinstance(t, T.StructType):
        return T.struct([T.field(f.name, _ready(f.type, f"{where}.{f.name}", flags))
                         for f in t.fields])
    if isinstance(t, (T.ListType, T.FixedSizeListType)):
        return T.list_(T.field("element", _ready(t.value_type, f"{where}[]", flags)))
    if isinstance(t, T.MapType):
        key = _ready(t.key_type, f"{where}.key", flags)
        return T.map_(T.field("key", key, nullable=False),
                      T.field("value", _ready(t.item_type, f"{where}.value", flags)))
    is_int96 = next(flags, False) if flags is not None else False
    return _ready_leaf(t, where, is_int96)


def _ready_leaf(t, where, is_int96):
    if isinstance(t, T.DictionaryType):
        return _ready_leaf(t.value_type, where, is_int96)
    if isinstance(t, T.IntegerType):
        if t.signed:
            return t
        return _UINT64_DECIMAL if t.bit_width == 64 else _UNSIGNED_WIDER[t.bit_width]
    if isinstance(t, T.FloatingType):
        return T.float64() if t.bit_width == 64 else T.float32()
    if isinstance(t, T.UuidType):
        return T.string()
    if isinstance(t, T.BinaryType):
        return T.binary()
    if isinstance(t, T.StringType):
        return T.string()
    if isinstance(t, T.FixedSizeBinaryType):
        return T.binary()
    if isinstance(t, T.DecimalType):
        if t.precision > _MAX_SPARK_PRECISION or not 0 <= t.scale <= t.precision:
            raise SchemaError(f"column {where}: {t} does not fit Spark's DecimalType (at most "
                              f"38 digits, 0 <= scale <= precision)")
        return t
    if isinstance(t, (T.Date32Type, T.Date64Type)):
        return T.date32()
    if isinstance(t, T.TimestampType):
        return _UTC_US if (t.tz is not None or is_int96) else _LOCAL_US
    if isinstance(t, T.DurationType):
        return T.duration("us")
    if isinstance(t, (T.NullType, T.BooleanType)):
        return t
    raise SchemaError(f"column {where}: Spark has no type for {t}; leave the column out with "
                      f"columns=[...]")


def _selected_leaves(schema, top, columns):
    """Parquet leaf nodes under top-level ``top`` that the column selection keeps."""
    leaves = [n for n in schema.columns if n.path[0] == top]
    if columns is None:
        return leaves
    prefixes = [tuple(c.split(".")) for c in columns if c.split(".")[0] == top]
    return [n for n in leaves if any(n.path[:len(p)] == p for p in prefixes)]


def file_fields(parquet_file, columns=None):
    """The Spark-ready fields of an open ParquetFile (only ``columns`` when given).

    Types are those pqkit's reader produces for the file (its Arrow schema
    honoured), mapped by :func:`ready_type` with the file's INT96 leaves.
    """
    empty = parquet_file.read(columns=columns, row_groups=[])
    out = []
    for f in empty.schema:
        leaves = _selected_leaves(parquet_file.schema, f.name, columns)
        flags = [n.physical_type == Type.INT96 for n in leaves]
        if len(flags) != _leaf_count(f.type):
            # Leaf order unknown: call every zone-less timestamp an instant if any leaf is INT96.
            flags = [any(flags)] * _leaf_count(f.type)
        out.append(T.field(f.name, ready_type(f.type, f.name, flags)))
    return out


# --- merging the schemas of several files ----------------------------------------------------
def merge_types(a, b, where):
    """The Spark-ready type holding values of both ``a`` and ``b`` (widening only).

    Integers widen to the larger width, float to double, decimals of one scale to
    the larger precision, null to anything; structs merge field by field (new
    fields appended). Anything else raises SchemaError.
    """
    if a == b:
        return a
    if isinstance(a, T.NullType):
        return b
    if isinstance(b, T.NullType):
        return a
    if isinstance(a, T.IntegerType) and isinstance(b, T.IntegerType):
        return a if a.bit_width >= b.bit_width else b
    if isinstance(a, T.FloatingType) and isinstance(b, T.FloatingType):
        return T.float64()
    if isinstance(a, T.DecimalType) and isinstance(b, T.DecimalType) and a.scale == b.scale:
        return T.decimal(max(a.precision, b.precision), a.scale)
    if isinstance(a, T.ListType) and isinstance(b, T.ListType):
        return T.list_(T.field("element", merge_types(a.value_type, b.value_type,
                                                      f"{where}[]")))
    if isinstance(a, T.MapType) and isinstance(b, T.MapType):
        key = merge_types(a.key_type, b.key_type, f"{where}.key")
        return T.map_(T.field("key", key, nullable=False),
                      T.field("value", merge_types(a.item_type, b.item_type, f"{where}.value")))
    if isinstance(a, T.StructType) and isinstance(b, T.StructType):
        return T.struct(merge_fields(a.fields, b.fields, where + "."))
    raise SchemaError(f"column {where}: files disagree on its type ({a} vs {b})")


def merge_fields(a, b, prefix=""):
    """Fields of ``a`` then the new ones of ``b``; shared names get :func:`merge_types`."""
    out = {f.name: f.type for f in a}
    for f in b:
        out[f.name] = merge_types(out[f.name], f.type, prefix + f.name) if f.name in out \
            else f.type
    return [T.field(name, t) for name, t in out.items()]


# --- Spark-ready pqkit type <-> Spark type ---------------------------------------------------
def _spark_types():
    pyspark = require("pyspark", "spark", "pqkit.spark")
    types = require("pyspark.sql.types", "spark", "pqkit.spark")
    if int(pyspark.__version__.split(".")[0]) < 4:
        raise ImportError(f"pqkit.spark needs pyspark >= 4.0, found {pyspark.__version__}")
    return types


def to_spark(t):
    """The pyspark DataType for a Spark-ready pqkit type (every field nullable)."""
    S = _spark_types()
    simple = {
        T.NullType: S.NullType, T.BooleanType: S.BooleanType, T.Date32Type: S.DateType,
        T.StringType: S.StringType, T.BinaryType: S.BinaryType,
    }
    if type(t) in simple:
        return simple[type(t)]()
    if isinstance(t, T.IntegerType) and t.signed:
        return {8: S.ByteType, 16: S.ShortType, 32: S.IntegerType, 64: S.LongType}[t.bit_width]()
    if isinstance(t, T.FloatingType) and t.bit_width in (32, 64):
        return S.FloatType() if t.bit_width == 32 else S.DoubleType()
    if isinstance(t, T.DecimalType):
        return S.DecimalType(t.precision, t.scale)
    if t == _UTC_US:
        return S.TimestampType()
    if t == _LOCAL_US:
        return S.TimestampNTZType()
    if t == T.duration("us"):
        return S.DayTimeIntervalType()
    if isinstance(t, T.ListType):
        return S.ArrayType(to_spark(t.value_type), True)
    if isinstance(t, T.MapType):
        return S.MapType(to_spark(t.key_type), to_spark(t.item_type), True)
    if isinstance(t, T.StructType):
        return S.StructType([S.StructField(f.name, to_spark(f.type), True) for f in t.fields])
    raise SchemaError(f"{t} is not a Spark-ready type")


def spark_schema(fields):
    """A pyspark StructType for Spark-ready pqkit fields (all nullable)."""
    S = _spark_types()
    return S.StructType([S.StructField(f.name, to_spark(f.type), True) for f in fields])


def from_spark(dt, where):
    """The pqkit type that :func:`pqkit.spark.write` stores for a pyspark DataType."""
    S = _spark_types()
    simple = [
        (S.NullType, T.null), (S.BooleanType, T.bool_), (S.ByteType, T.int8),
        (S.ShortType, T.int16), (S.IntegerType, T.int32), (S.LongType, T.int64),
        (S.FloatType, T.float32), (S.DoubleType, T.float64), (S.StringType, T.string),
        (S.BinaryType, T.binary), (S.DateType, T.date32),
        (S.TimestampNTZType, lambda: _LOCAL_US), (S.TimestampType, lambda: _UTC_US),
        (S.DayTimeIntervalType, lambda: T.duration("us")),
    ]
    for cls, make in simple:
        if type(dt) is cls or (cls is S.StringType and isinstance(dt, (S.CharType,
                                                                        S.VarcharType))):
            return make()
    if isinstance(dt, S.DecimalType):
        return T.decimal(dt.precision, dt.scale)
    if isinstance(dt, S.ArrayType):
        return T.list_(T.field("element", from_spark(dt.elementType, f"{where}[]"),
                               dt.containsNull))
    if isinstance(dt, S.MapType):
        return T.map_(T.field("key", from_spark(dt.keyType, f"{where}.key"), False),
                      T.field("value", from_spark(dt.valueType, f"{where}.value"),
                              dt.valueContainsNull))
    if isinstance(dt, S.StructType):
        return T.struct([T.field(f.name, from_spark(f.dataType, f"{where}.{f.name}"),
                                 f.nullable) for f in dt.fields])
    if type(dt).__name__ == "TimeType":           # pyspark >= 4.1
        return T.time64("us")
    if isinstance(dt, S.UserDefinedType):
        return from_spark(dt.sqlType(), where)
    raise SchemaError(f"column {where}: pqkit cannot store Spark type {dt.simpleString()}"
                      f"{_REFUSED.get(type(dt).__name__, '')}")


_REFUSED = {
    "YearMonthIntervalType": ": Spark hands Python no Arrow type for year-month intervals; "
                             "store months as int (a cast) or write with df.write.parquet",
    "CalendarIntervalType": ": Spark stores calendar intervals in no file format; "
                            "store its fields as columns",
    "GeometryType": ": pqkit writes no GEOMETRY logical type yet; store st_asbinary(col) "
                    "(WKB) as binary",
    "GeographyType": ": pqkit writes no GEOGRAPHY logical type yet; store st_asbinary(col) "
                     "(WKB) as binary",
    "VariantType": ": pqkit writes VARIANT only as a top-level column; select the variant "
                   "as a column of its own or store to_json(col) as string",
}


# --- partition values ---------------------------------------------------------------------
PARTITION_TYPE_NAMES = {
    "string": T.string(), "boolean": T.bool_(), "tinyint": T.int8(), "byte": T.int8(),
    "smallint": T.int16(), "short": T.int16(), "int": T.int32(), "integer": T.int32(),
    "bigint": T.int64(), "long": T.int64(), "float": T.float32(), "double": T.float64(),
    "date": T.date32(), "timestamp": _UTC_US, "timestamp_ntz": _LOCAL_US,
}
_DECIMAL_NAME = re.compile(r"decimal\((\d+),\s*(\d+)\)$")


def parse_partition_type(name, where):
    """A Spark-ready pqkit type from a Spark type name ("int", "date", "decimal(10,2)", ...)."""
    key = str(name).strip().lower()
    if key in PARTITION_TYPE_NAMES:
        return PARTITION_TYPE_NAMES[key]
    m = _DECIMAL_NAME.match(key)
    if m:
        return ready_type(T.decimal(int(m.group(1)), int(m.group(2))), where)
    raise SchemaError(f"partition column {where}: unknown type {name!r}; use one of "
                      f"{sorted(PARTITION_TYPE_NAMES)} or decimal(p,s)")


_INT = re.compile(r"[+-]?\d+$")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}$")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?$")


def infer_partition_type(texts):
    """The type Spark infers for a partition column from its raw (unescaped) texts.

    The first of int, bigint, decimal(38,0), double, date, timestamp that parses
    every non-null value; else string.
    """
    values = [v for v in texts if v is not None]
    if not values:
        return T.string()
    if all(_INT.match(v) for v in values):
        ints = [int(v) for v in values]
        if all(-2**31 <= i < 2**31 for i in ints):
            return T.int32()
        if all(-2**63 <= i < 2**63 for i in ints):
            return T.int64()
        if all(len(v.lstrip("+-")) <= _MAX_SPARK_PRECISION for v in values):
            return T.decimal(_MAX_SPARK_PRECISION, 0)
        return T.string()
    for t in (T.float64(), T.date32(), _UTC_US):
        if all(_parses(v, t) for v in values):
            return t
    return T.string()


def _parses(text, t):
    try:
        partition_value(text, t, "UTC", "")
    except SchemaError:
        return False
    return True


def partition_value(text, t, timezone, where):
    """The Python value of partition text ``text`` as type ``t`` (None for null).

    Timestamps without an offset are wall-clock times in ``timezone`` (Spark parses
    partition timestamps in the session time zone).
    """
    if text is None:
        return None
    try:
        if isinstance(t, T.StringType):
            return text
        if isinstance(t, T.BooleanType):
            if text.lower() not in ("true", "false"):
                raise ValueError(text)
            return text.lower() == "true"
        if isinstance(t, T.IntegerType):
            if not _INT.match(text):
                raise ValueError(text)
            value = int(text)
            if not -2**(t.bit_width - 1) <= value < 2**(t.bit_width - 1):
                raise ValueError(f"outside the range of {t}")
            return value
        if isinstance(t, T.FloatingType):
            if text.strip().lower().endswith(("d", "f")):
                raise ValueError(text)
            return float(text)
        if isinstance(t, T.DecimalType):
            value = decimal.Decimal(text)
            if not value.is_finite():
                raise ValueError(text)
            q = value.quantize(decimal.Decimal(1).scaleb(-t.scale))
            if q != value or len(q.as_tuple().digits) > t.precision:
                raise ValueError(f"does not fit {t}")
            return q
        if isinstance(t, T.Date32Type):
            if not _DATE.match(text):
                raise ValueError(text)
            return datetime.date.fromisoformat(text)
        if isinstance(t, T.TimestampType):
            return _timestamp_value(text, t, timezone)
    except (ValueError, ArithmeticError, OverflowError) as exc:
        raise SchemaError(f"partition value {text!r} of {where or 'a partition column'} is "
                          f"not a {t}: {exc}") from None
    raise SchemaError(f"partition column {where}: type {t} is not supported for partitions")


def _timestamp_value(text, t, timezone):
    if not _TIMESTAMP.match(text):
        raise ValueError(text)
    value = datetime.datetime.fromisoformat(text.replace(" ", "T"))
    if t.tz is None:
        return value
    from zoneinfo import ZoneInfo
    return value.replace(tzinfo=ZoneInfo(timezone)).astimezone(datetime.timezone.utc)
