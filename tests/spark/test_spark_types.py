"""Type mapping and executor conversions of pqkit.spark, without a SparkSession."""
import datetime
import decimal
import uuid

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from pyspark.sql import types as S
from pyspark.sql.pandas.types import to_arrow_type

from pqkit import SchemaError
from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.fixed import FixedSizeBinaryColumn
from pqkit.columnar.nested import FixedSizeListColumn
from pqkit.convert import column_from_values
from pqkit.spark.conversion.columns import (constant_column, spark_pylist, to_arrow, to_pandas,
                                            to_ready)
from pqkit.spark.conversion.schema import (from_spark, infer_partition_type, merge_types,
                                           ready_type, to_spark)

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]

READY = [
    (T.uint8(), T.int16(), S.ShortType()),
    (T.uint16(), T.int32(), S.IntegerType()),
    (T.uint32(), T.int64(), S.LongType()),
    (T.uint64(), T.decimal(20, 0), S.DecimalType(20, 0)),
    (T.float16(), T.float32(), S.FloatType()),
    (T.large_string(), T.string(), S.StringType()),
    (T.large_binary(), T.binary(), S.BinaryType()),
    (T.fixed_size_binary(5), T.binary(), S.BinaryType()),
    (T.uuid(), T.string(), S.StringType()),
    (T.date64(), T.date32(), S.DateType()),
    (T.timestamp("ns", "UTC"), T.timestamp("us", "UTC"), S.TimestampType()),
    (T.timestamp("ms", "+01:00"), T.timestamp("us", "UTC"), S.TimestampType()),
    (T.timestamp("ns"), T.timestamp("us"), S.TimestampNTZType()),
    (T.duration("ns"), T.duration("us"), S.DayTimeIntervalType()),
    (T.dictionary(T.int32(), T.string()), T.string(), S.StringType()),
    (T.decimal(38, 10), T.decimal(38, 10), S.DecimalType(38, 10)),
]


@pytest.mark.parametrize("source, ready, spark_type", READY, ids=[str(r[0]) for r in READY])
def test_ready_type_and_spark_type(source, ready, spark_type):
    assert ready_type(source, "c") == ready
    assert to_spark(ready) == spark_type


def test_int96_leaves_are_instants():
    t = T.struct([("a", T.timestamp("ns")), ("b", T.list_(T.timestamp("ns")))])
    got = ready_type(t, "s", [True, False])
    assert got.fields[0].type == T.timestamp("us", "UTC")
    assert got.fields[1].type.value_type == T.timestamp("us")


def test_nested_types_map_to_spark():
    t = T.map_(T.string(), T.list_(T.struct([("x", T.uint32()), ("y", T.float16())])))
    spark_type = to_spark(ready_type(t, "m"))
    assert spark_type == S.MapType(S.StringType(), S.ArrayType(S.StructType([
        S.StructField("x", S.LongType()), S.StructField("y", S.FloatType())])))


@pytest.mark.parametrize("bad", [T.time64("us"), T.time32("ms"), T.interval(),
                                 T.month_day_nano_interval(), T.decimal(40, 2)],
                         ids=str)
def test_types_spark_cannot_hold_raise_naming_the_column(bad):
    with pytest.raises(SchemaError, match=r"column outer\.inner"):
        ready_type(T.struct([("inner", bad)]), "outer")


def test_merge_widens_and_rejects():
    assert merge_types(T.int32(), T.int64(), "c") == T.int64()
    assert merge_types(T.float32(), T.float64(), "c") == T.float64()
    assert merge_types(T.decimal(5, 2), T.decimal(9, 2), "c") == T.decimal(9, 2)
    assert merge_types(T.null(), T.string(), "c") == T.string()
    a = T.struct([("x", T.int32())])
    b = T.struct([("y", T.string()), ("x", T.int16())])
    assert merge_types(a, b, "s") == T.struct([("x", T.int32()), ("y", T.string())])
    with pytest.raises(SchemaError, match="column c: files disagree"):
        merge_types(T.int64(), T.string(), "c")
    with pytest.raises(SchemaError):
        merge_types(T.decimal(5, 2), T.decimal(5, 3), "c")


def test_from_spark_round_trips_every_writable_type():
    schema = S.StructType([
        S.StructField("b", S.ByteType()), S.StructField("ts", S.TimestampType()),
        S.StructField("ntz", S.TimestampNTZType()), S.StructField("v", S.VarcharType(3)),
        S.StructField("a", S.ArrayType(S.DecimalType(7, 2), False)),
        S.StructField("m", S.MapType(S.StringType(), S.DateType())),
    ])
    fields = [from_spark(f.dataType, f.name) for f in schema.fields]
    assert fields[1] == T.timestamp("us", "UTC") and fields[2] == T.timestamp("us")
    assert fields[3] == T.string()
    assert fields[4].value_field.nullable is False
    assert [to_spark(ready_type(t, "c")) for t in fields] == \
        [S.ByteType(), S.TimestampType(), S.TimestampNTZType(), S.StringType(),
         S.ArrayType(S.DecimalType(7, 2)), S.MapType(S.StringType(), S.DateType())]
    with pytest.raises(SchemaError, match="column c: .*cannot store"):
        from_spark(S.CalendarIntervalType(), "c")


@pytest.mark.parametrize("texts, expected", [
    (["1", "-20", None], T.int32()),
    (["1", "3000000000"], T.int64()),
    (["1", "99999999999999999999"], T.decimal(38, 0)),
    (["1", "2.5"], T.float64()),
    (["2024-01-31", "2023-12-01"], T.date32()),
    (["2024-01-31 12:00:00", "2024-01-31 12:00:00.5"], T.timestamp("us", "UTC")),
    (["2024-01-31", "x"], T.string()),
    ([None], T.string()),
])
def test_partition_type_inference_follows_spark(texts, expected):
    assert infer_partition_type(texts) == expected


# --- executor conversions --------------------------------------------------------------------
def test_nanoseconds_are_floored_to_microseconds():
    ns = PrimitiveColumn(T.timestamp("ns"), np.array([1_999, -1, 0, 5], np.int64),
                         np.array([True, True, True, False]))
    out = to_ready(ns, T.timestamp("us", "UTC"), "t")
    assert out.values[:3].tolist() == [1, -1, 0]
    assert out.validity.tolist() == [True, True, True, False]


def test_seconds_overflowing_microseconds_raise():
    s = PrimitiveColumn(T.timestamp("s"), np.array([2**62], np.int64))
    with pytest.raises(SchemaError, match="column t: value .* at row 0"):
        to_ready(s, T.timestamp("us"), "t")


def test_uint64_becomes_exact_decimal():
    col = PrimitiveColumn(T.uint64(), np.array([0, 2**64 - 1, 7], np.uint64))
    out = to_ready(col, T.decimal(20, 0), "u")
    assert out.to_pylist() == [0, 2**64 - 1, 7]


def test_flat_conversions():
    uuids = [uuid.UUID(int=i * 0x1234567890ABCDEF) for i in range(3)]
    col = column_from_values(uuids + [None], T.uuid())
    assert to_ready(col, T.string(), "u").to_pylist() == [str(u) for u in uuids] + [None]
    fixed = FixedSizeBinaryColumn(T.fixed_size_binary(2), np.array([[1, 2], [3, 4]], np.uint8))
    assert to_ready(fixed, T.binary(), "f").to_pylist() == [b"\x01\x02", b"\x03\x04"]
    d64 = PrimitiveColumn(T.date64(), np.array([86_400_000 * 3, -86_400_000], np.int64))
    assert to_ready(d64, T.date32(), "d").values.tolist() == [3, -1]
    half = PrimitiveColumn(T.float16(), np.array([1.5, np.nan], np.float16))
    out = to_ready(half, T.float32(), "h")
    assert out.values[0] == 1.5 and np.isnan(out.values[1])


def test_nested_conversions():
    child = column_from_values([1, 2, 3, 4], T.uint8())
    fixed = FixedSizeListColumn(T.fixed_size_list(T.uint8(), 2), child,
                                np.array([True, False]))
    target = T.list_(T.field("element", T.int16()))
    assert to_ready(fixed, target, "l").to_pylist() == [[1, 2], None]
    m = column_from_values([[("a", 1)], None, []], T.map_(T.string(), T.uint32()))
    out = to_ready(m.slice(1), ready_type(m.type, "m"), "m")
    assert out.to_pylist() == [None, []]
    assert spark_pylist(to_ready(m, ready_type(m.type, "m"), "m")) == [{"a": 1}, None, {}]
    s = column_from_values([{"a": 1}], T.struct([("a", T.int8())]))
    wider = T.struct([("a", T.int64()), ("b", T.string())])
    assert to_ready(s, wider, "s").to_pylist() == [{"a": 1, "b": None}]


def test_pandas_keeps_nan_distinct_from_null():
    col = PrimitiveColumn(T.float64(), np.array([np.nan, 1.0, 0.0]),
                          np.array([True, True, False]))
    series = to_pandas(col, pd)
    arrow = pa.Array.from_pandas(series)
    assert arrow.null_count == 1 and np.isnan(arrow[0].as_py())
    ints = PrimitiveColumn(T.int64(), np.array([2**62 + 1, 0]), np.array([True, False]))
    assert pa.Array.from_pandas(to_pandas(ints, pd)).to_pylist() == [2**62 + 1, None]


def test_pandas_temporal_columns():
    ts = PrimitiveColumn(T.timestamp("us", "UTC"), np.array([0, 1]), np.array([True, False]))
    s = to_pandas(ts, pd)
    assert str(s.dtype) == "datetime64[us, UTC]" and s.isna().tolist() == [False, True]
    dates = PrimitiveColumn(T.date32(), np.array([0, 19000], np.int32), np.array([False, True]))
    assert to_pandas(dates, pd).tolist() == [None, datetime.date(2022, 1, 8)]


ARROW_CASES = [
    ([1, None, 3], T.int32()),
    ([True, None, False], T.bool_()),
    ([1.5, float("nan"), None], T.float64()),
    (["a", None, "ccc"], T.string()),
    ([b"x", None, b""], T.binary()),
    ([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], T.decimal(5, 2)),
    ([decimal.Decimal("1" * 30), decimal.Decimal("-" + "9" * 30)], T.decimal(30, 0)),
    ([datetime.date(2024, 1, 2), None], T.date32()),
    ([datetime.datetime(2024, 1, 2, 3, 4, 5, 6), None], T.timestamp("us")),
    ([[1, None], None, []], T.list_(T.field("element", T.int64()))),
    ([{"a": 1, "b": "x"}, None], T.struct([("a", T.int64()), ("b", T.string())])),
    ([[("k", [1])], None, []], T.map_(T.field("key", T.string(), nullable=False),
                                      T.field("value", T.list_(T.field("element",
                                                                       T.int64()))))),
]


@pytest.mark.parametrize("values, t", ARROW_CASES, ids=[str(c[1]) for c in ARROW_CASES])
def test_arrow_arrays_match_pyarrow(values, t):
    col = column_from_values(values, t)
    arrow_type = to_arrow_type(to_spark(t), timezone="UTC")
    got = to_arrow(col.slice(0), arrow_type, pa)
    got.validate(full=True)
    expected = pa.array(values, type=arrow_type)
    assert got.type == expected.type and got.null_count == expected.null_count
    assert repr(got.to_pylist()) == repr(expected.to_pylist())        # NaN equals NaN
    sliced = to_arrow(col.slice(1), arrow_type, pa)
    sliced.validate(full=True)
    assert repr(sliced.to_pylist()) == repr(expected.slice(1).to_pylist())


def test_constant_partition_columns():
    assert constant_column(7, T.int32(), 3).to_pylist() == [7, 7, 7]
    assert constant_column(None, T.date32(), 2).to_pylist() == [None, None]
