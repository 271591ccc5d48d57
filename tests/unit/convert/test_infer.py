"""Python values -> pqkit columns and dicts -> tables: inference, explicit types, errors.

The reference is pyarrow: for the same Python list, ``pa.array(values)`` must have the
type we infer and the same ``to_pylist()``; the deliberate differences are listed in
``test_deliberate_differences_from_pyarrow``. numpy and pandas inputs are tested in
test_from_arrays.py.
"""
import datetime as dt
import decimal
import io
import math
import uuid
import zoneinfo

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
from arrow_bridge import same_values, type_from_arrow, type_to_arrow
from pqkit import datatypes as T
from pqkit.convert import column_from_values, infer_type, table_from_data

D = decimal.Decimal
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
UTC = zoneinfo.ZoneInfo("UTC")
MINUS_0530 = dt.timezone(-dt.timedelta(hours=5, minutes=30))


# name: (values, the type inferred). Every list reads back as itself.
INFERRED = {
    "bool": ([True, None, False], T.bool_()),
    "int": ([1, None, -3, 2**63 - 1, -2**63], T.int64()),
    "float": ([1.5, None, math.nan, math.inf, -0.0], T.float64()),
    "str": (["a", None, "é", "", "日本語", "🎉", "a\x00b"], T.string()),
    "bytes": ([b"\x00\xff", None, b""], T.binary()),
    "decimal": ([D("1.25"), D("-300.50"), None], T.decimal(5, 2)),
    "date": ([dt.date(2020, 1, 1), None, dt.date(1, 1, 1), dt.date(9999, 12, 31)], T.date32()),
    "datetime": ([dt.datetime(2020, 1, 1, 12, 30, 1, 7), None, dt.datetime(1, 1, 1),
                  dt.datetime(9999, 12, 31, 23, 59, 59, 999999)], T.timestamp("us")),
    "zoned": ([dt.datetime(2020, 6, 1, 12, tzinfo=PARIS), None,
               dt.datetime(2020, 1, 1, tzinfo=PARIS)], T.timestamp("us", "Europe/Paris")),
    "utc": ([dt.datetime(2020, 6, 1, 12, tzinfo=UTC), None], T.timestamp("us", "UTC")),
    "offset": ([dt.datetime(2020, 6, 1, 12, tzinfo=MINUS_0530)], T.timestamp("us", "-05:30")),
    "time": ([dt.time(1, 2, 3, 4), None, dt.time(23, 59, 59, 999999), dt.time()],
             T.time64("us")),
    "timedelta": ([dt.timedelta(days=-1, microseconds=5), None, dt.timedelta()],
                  T.duration("us")),
    "uuid": ([uuid.UUID(int=5), None, uuid.UUID("12345678-1234-5678-1234-567812345678")],
             T.uuid()),
    "list": ([[1, 2], [], None, [None]], T.list_(T.int64())),
    "empty_lists": ([[], []], T.list_(T.null())),
    "null_lists": ([[None], None, []], T.list_(T.null())),
    # Nulls and empty lists at each of four levels.
    "depth4": ([[[[[1, None], None, []], None, []], None, []], None, [], [None], [[None]],
                [[[None]]], [[[[None]]]], [[[[]]]]],
               T.list_(T.list_(T.list_(T.list_(T.int64()))))),
    "struct": ([{"a": 1, "b": "x"}, None, {"a": None, "b": None}],
               T.struct([("a", T.int64()), ("b", T.string())])),
    "struct_depth4": ([{"a": [{"b": [1, None]}, None]}, None, {"a": None}, {"a": []},
                       {"a": [{"b": None}, {"b": []}]}],
                      T.struct([("a", T.list_(T.struct([("b", T.list_(T.int64()))])))])),
    "list_of_structs": ([[{"x": 1.5, "y": [b"a"]}], [], None, [None, {"x": None, "y": None}]],
                        T.list_(T.struct([("x", T.float64()), ("y", T.list_(T.binary()))]))),
    "nulls": ([None, None], T.null()),
    "nothing": ([], T.null()),
}


@pytest.mark.parametrize("name", sorted(INFERRED))
def test_inferred_types_round_trip_and_match_pyarrow(name):
    values, expected = INFERRED[name]
    col = column_from_values(values)
    assert col.type == expected
    assert len(col) == len(values)
    same_values(col.to_pylist(), values)
    theirs = pa.array(values)
    assert type_from_arrow(theirs.type) == expected
    same_values(col.to_pylist(), theirs.to_pylist())


# Inference where values of several kinds share a column, as pyarrow does it.
@pytest.mark.parametrize("values", [
    [1, 2.5, None], ["a", b"b"], [D("1.5"), 1], [[1], (2,)], [{"a": 1}, {"b": "x"}],
    [[1], [1.5]], [D("0.001"), D("12.5")], [D("-0.00")], [D("1E+5")], [D("0")],
    [np.int8(3), None], [np.float32(1.5)], [np.int8(3), 4], [np.array([1, 2], np.int8)],
    [np.datetime64("2020-01-01T00:00:00.000000001"), None], [np.timedelta64(5, "s")],
    [np.str_("a"), "b"], [dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1, tzinfo=UTC)],
    [dt.datetime(2020, 1, 1, tzinfo=UTC), dt.datetime(2020, 1, 1)],
    [dt.datetime(2020, 1, 1, tzinfo=PARIS), dt.datetime(2020, 1, 1, tzinfo=UTC)],
    [bytearray(b"ab"), b"c"], [{}, None], [[{"a": None}], [{"a": 1}]],
], ids=repr)
def test_mixed_inference_matches_pyarrow(values):
    col = column_from_values(values)
    theirs = pa.array(values)
    assert col.type == type_from_arrow(theirs.type)
    same_values(col.to_pylist(), theirs.to_pylist())


def test_deliberate_differences_from_pyarrow():
    # pyarrow needs an explicit type for ints above int64; pqkit infers uint64.
    with pytest.raises(OverflowError):
        pa.array([2**64 - 1])
    assert column_from_values([2**64 - 1, None]).type == T.uint64()
    # pyarrow lets a bool follow a float (not an int); pqkit never mixes bools and numbers.
    assert pa.array([1.5, True]).type == pa.float64()
    with pytest.raises(pqkit.SchemaError, match="mixed value types"):
        column_from_values([1.5, True])
    # pyarrow turns datetimes among dates into dates, dropping the time of day.
    assert pa.array([dt.date(2020, 1, 1), dt.datetime(2020, 1, 1, 5)]).type == pa.date32()
    with pytest.raises(pqkit.SchemaError, match="row 1"):
        column_from_values([dt.date(2020, 1, 1), dt.datetime(2020, 1, 1, 5)])
    # pyarrow refuses ints beyond int64 among floats; pqkit makes doubles.
    with pytest.raises(pa.ArrowInvalid):
        pa.array([1.0, 2**64])
    assert column_from_values([1.0, 2**64]).to_pylist() == [1.0, 2.0**64]
    # pyarrow truncates 1.5 to 1 for an int type; pqkit refuses fractions.
    assert pa.array([1.5], pa.int64()).to_pylist() == [1]
    with pytest.raises(pqkit.SchemaError, match="not a whole number"):
        column_from_values([1.5], T.int64())
    # pyarrow drops dict keys that are not struct fields; pqkit refuses to lose data.
    assert pa.array([{"a": 1, "b": 2}], pa.struct([("a", pa.int64())])).to_pylist() == \
        [{"a": 1}]
    with pytest.raises(pqkit.SchemaError, match="key 'b' is not a field"):
        column_from_values([{"a": 1, "b": 2}], T.struct([("a", T.int64())]))
    # pyarrow cuts numpy bytes at the first NUL; numpy itself keeps inner NULs.
    arr = np.array([b"b\x00c", b"d"])
    assert pa.array(arr).to_pylist() == [b"b", b"d"]
    assert column_from_values(arr).to_pylist() == [b"b\x00c", b"d"]
    # pyarrow's nested inference of str then bytes makes strings ([b"b"] read as "b"),
    # unlike its top level; pqkit makes binary at every level.
    assert pa.array([["a", b"b"]]).to_pylist() == [["a", "b"]]
    assert column_from_values([["a", b"b"]]).to_pylist() == [[b"a", b"b"]]
    # pyarrow does not check non-nullable child fields; pqkit does.
    strict = T.struct([T.field("a", T.int64(), nullable=False)])
    assert pa.array([{"a": None}], type_to_arrow(strict)).to_pylist() == [{"a": None}]
    with pytest.raises(pqkit.SchemaError, match="non-nullable field a is null at row 0"):
        column_from_values([{"a": None}], strict)


# Explicit types: the values read back unchanged, and as pyarrow builds them.
EXPLICIT = [
    (T.int8(), [-128, 127, None]), (T.int16(), [-2**15, 2**15 - 1]),
    (T.int32(), [-2**31, None, 2**31 - 1]), (T.uint8(), [0, 255, None]),
    (T.uint16(), [2**16 - 1]), (T.uint32(), [0, 2**32 - 1]), (T.uint64(), [2**64 - 1, None]),
    (T.float16(), [1.5, None, math.inf]),
    (T.float32(), [1.5, None, math.nan]), (T.float64(), [0.1, -0.0]),
    (T.bool_(), [True, None]), (T.large_string(), ["x", None, "é"]),
    (T.large_binary(), [b"x", None]), (T.fixed_size_binary(3), [b"abc", None]),
    (T.fixed_size_binary(0), [b"", None]), (T.decimal(5, 2), [D("1.25"), None, D("-999.99")]),
    (T.decimal(38, 0), [D(10**37), D(-(10**38 - 1))]),
    (T.decimal(40, 4), [D("-12345678901234567890.1234"), None]),
    (T.decimal(76, 0), [D("9" * 76), D("-" + "9" * 76)]),
    (T.timestamp("s"), [dt.datetime(2020, 1, 1, 1, 2, 3), None]),
    (T.timestamp("ms", "UTC"), [dt.datetime(2020, 1, 1, 1, 2, 3, 4000, tzinfo=UTC)]),
    (T.timestamp("ns"), [pd.Timestamp("2020-01-01 00:00:00.000000005"), None]),
    (T.timestamp("ns", "Europe/Paris"), [pd.Timestamp("2262-04-11", tz=PARIS)]),
    (T.date64(), [dt.date(2000, 2, 29), None]), (T.time32("s"), [dt.time(12, 0, 1), None]),
    (T.time32("ms"), [dt.time(12, 0, 0, 5000)]), (T.time64("ns"), [dt.time(23, 59, 59, 1)]),
    (T.duration("s"), [dt.timedelta(seconds=-5), None]),
    (T.duration("ns"), [pd.Timedelta(1005), None]),
    (T.month_day_nano_interval(), [T.MonthDayNano(1, -2, 3), None]),
    (T.uuid(), [uuid.UUID(int=2**128 - 1), None]),
    (T.interval(), [b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", None]),
    (T.large_list(T.int16()), [[1, None], None, []]),
    (T.fixed_size_list(T.int16(), 2), [[1, 2], None, [None, 4]]),
    (T.fixed_size_list(T.string(), 0), [[], None]),
    (T.map_(T.string(), T.int32()), [[("a", 1), ("b", None)], None, []]),
    (T.map_(T.int64(), T.list_(T.string())), [[(1, ["x"]), (2, None)]]),
    (T.dictionary(T.int8(), T.string()), ["x", "y", "x", None]),
    (T.dictionary(T.int32(), T.float64()), [1.5, None, 1.5, -0.0, 0.0]),
    (T.struct([T.field("a", T.int8(), nullable=False), ("b", T.list_(T.bool_()))]),
     [{"a": 1, "b": [True]}, None, {"a": -1, "b": None}]),
    (T.list_(T.field("item", T.int8(), nullable=False)), [[1], None, []]),
    (T.null(), [None, None]),
]


@pytest.mark.parametrize("typ,values", EXPLICIT, ids=lambda x: str(x)[:40])
def test_explicit_types_round_trip_and_match_pyarrow(typ, values):
    col = column_from_values(values, typ)
    assert col.type == typ
    same_values(col.to_pylist(), values)
    same_values(col.to_pylist(), pa.array(values, type_to_arrow(typ)).to_pylist())


@pytest.mark.parametrize("typ,values,expected", [
    (T.int64(), [1.0, None, -2.0], [1, None, -2]),                 # whole floats
    (T.float64(), [1, True, None], [1.0, 1.0, None]),
    (T.string(), [b"caf\xc3\xa9", "x"], ["café", "x"]),              # UTF-8 bytes
    (T.binary(), ["é", b"x"], [b"\xc3\xa9", b"x"]),
    (T.uuid(), [b"\x00" * 15 + b"\x07"], [uuid.UUID(int=7)]),
    (T.interval(), [(1, 2, 3)], [b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"]),
    (T.decimal(5, 2), [7, D("1.5")], [D("7.00"), D("1.50")]),
    (T.decimal(3, -2), [1200, D("-1E+3")], [D("1.2E+3"), D("-1.0E+3")]),
    (T.timestamp("s"), [dt.datetime(2020, 1, 1, 0, 0, 1, 999999)],
     [dt.datetime(2020, 1, 1, 0, 0, 1)]),
    (T.timestamp("us"), [dt.datetime(2020, 1, 1, 1, tzinfo=PARIS)],
     [dt.datetime(2020, 1, 1)]),
    (T.timestamp("us", "UTC"), [dt.datetime(2020, 1, 1)],
     [dt.datetime(2020, 1, 1, tzinfo=UTC)]),
    (T.timestamp("s"), [0, None, 86400],
     [dt.datetime(1970, 1, 1), None, dt.datetime(1970, 1, 2)]),
    (T.date32(), [18262, dt.date(1970, 1, 2)], [dt.date(2020, 1, 1), dt.date(1970, 1, 2)]),
    (T.struct([("a", T.int64()), ("b", T.string())]), [(1, "x"), {"b": "y"}, {}],
     [{"a": 1, "b": "x"}, {"a": None, "b": "y"}, {"a": None, "b": None}]),
    (T.map_(T.string(), T.int64()), [{"k": 1, "j": None}], [[("k", 1), ("j", None)]]),
    (T.list_(T.int8()), [np.array([1, 2]), (3,)], [[1, 2], [3]]),
    (T.int64(), [pd.NA, 1, pd.NaT, None], [None, 1, None, None]),
    (T.int64(), [np.int64(5), None, 7, np.uint8(3)], [5, None, 7, 3]),
    (T.bool_(), [np.bool_(True), None], [True, None]),
    (T.float64(), [np.float32(1.5), 2], [1.5, 2.0]),
])
def test_explicit_types_accept_what_pyarrow_accepts(typ, values, expected):
    same_values(column_from_values(values, typ).to_pylist(), expected)


@pytest.mark.parametrize("typ,values,fragment", [
    (T.int8(), [1, 300], "value 300 at row 1 does not fit int8: outside -128..127"),
    (T.uint8(), [None, -1], "value -1 at row 1"),
    (T.int64(), ["a"], "value 'a' at row 0 does not fit int64: expected an int, got str"),
    (T.int64(), [1, True], "row 1 does not fit int64: expected an int, got bool"),
    (T.int32(), [math.nan], "row 0"),
    (T.float64(), ["1.5"], "row 0 does not fit double: expected a float, got str"),
    (T.float32(), [10**400], "row 0"),
    (T.bool_(), [True, 1], "value 1 at row 1 does not fit bool"),
    (T.string(), ["a", 5], "value 5 at row 1"),
    (T.string(), [b"\xff"], "not valid UTF-8"),
    (T.string(), ["a\ud800"], "lone surrogate"),
    (T.binary(), [5], "value 5 at row 0"),
    (T.fixed_size_binary(2), [b"ab", b"abc"], "row 1 .*3 bytes, expected 2"),
    (T.uuid(), [b"x" * 15], "15 bytes, expected 16"),
    (T.decimal(5, 2), [D("1.234")], "value Decimal\\('1.234'\\) at row 0 .* more than 2 frac"),
    (T.decimal(5, 2), [D("1000")], "more than 5 digits"),
    (T.decimal(5, 2), [1.5], "expected a Decimal or an int, got float"),
    (T.decimal(5, 2), ["1.5"], "got str"),
    (T.decimal(5, 2), [D("NaN")], "NaN or infinity"),
    (T.decimal(10, 2), [D("1E+999999999")], "more than 10 digits"),
    (T.date32(), [dt.datetime(2020, 1, 1)], "expected a date, got datetime"),
    (T.time64("us"), [dt.datetime(2020, 1, 1)], "expected a time, got datetime"),
    (T.timestamp("us"), [dt.date(2020, 1, 1)], "expected a datetime, got date"),
    (T.timestamp("ns"), [dt.datetime(3000, 1, 1)], "row 0 .*nanosecond range"),
    (T.duration("ns"), [dt.timedelta(days=10**6)], "nanosecond range"),
    (T.duration("us"), [None, dt.timedelta(days=999999999)], "row 1 .*int64 range"),
    (T.time32("s"), [2**40], "outside"),
    (T.month_day_nano_interval(), [(1, 2)], "three ints"),
    (T.null(), [None, 0], "value 0 at row 1 .*only None"),
    (T.list_(T.int64()), [[1], "ab"], "value 'ab' at row 1 .*expected a list or tuple"),
    (T.list_(T.int64()), [[1], None, [2, "x"]], "value 'x' at row 2 \\[1\\] does not fit int64"),
    (T.fixed_size_list(T.int64(), 2), [[1, 2], [3]], "row 1 .*1 values, expected 2"),
    (T.fixed_size_list(T.int64(), 2), [[1, 2], [3, "x"]], "'x' at row 1 \\[1\\]"),
    (T.struct([("a", T.list_(T.int64()))]), [{"a": [1]}, {"a": [2, "x"]}],
     "value 'x' at row 1 \\['a'\\]\\[1\\] does not fit int64"),
    (T.struct([("a", T.int64())]), [5], "expected a dict, got int"),
    (T.struct([("a", T.int64())]), [(1, 2)], "2 values for 1 fields"),
    (T.map_(T.string(), T.int64()), [[("a", 1, 2)]], "row 0 \\[0\\] .*not a \\(key, value\\)"),
    (T.map_(T.string(), T.int64()), [[], [(None, 1)]], "row 1 \\[0\\] .*keys cannot be null"),
    (T.map_(T.string(), T.int64()), [[("a", "x")]], "'x' at row 0 \\[0\\]\\[1\\]"),
    (T.dictionary(T.int8(), T.int64()), [list(range(200))], "expected an int, got list"),
])
def test_values_that_do_not_fit_name_the_row(typ, values, fragment):
    with pytest.raises(pqkit.SchemaError, match=fragment):
        column_from_values(values, typ)


@pytest.mark.parametrize("values,fragment", [
    (["a", 1], "value 1 at row 1: mixed value types in one column: int after str"),
    ([1, None, "a"], "value 'a' at row 2: mixed value types"),
    ([True, 1], "row 1: mixed value types"),
    ([[1], [2, "x"]], "value 'x' at row 1 \\[1\\]: mixed"),
    ([{"a": [1]}, {"a": ["x"]}], "value 'x' at row 1 \\['a'\\]\\[0\\]: mixed"),
    ([-1, 2**63], "row 1: needs uint64, but the column also holds negative ints"),
    ([2**64], "row 0: an int beyond both int64 and uint64"),
    ([-2**63 - 1], "row 0: an int beyond both"),
    ([{1: "a"}], "struct field names must be str"),
    ([None, {1}], "value \\{1\\} at row 1: cannot infer a column type for set values"),
    ([D("NaN")], "NaN or infinity"),
    ([D("1" * 70 + ".0000000001")], "more than 76"),
])
def test_inference_errors_name_the_row(values, fragment):
    with pytest.raises(pqkit.SchemaError, match=fragment):
        column_from_values(values)
    with pytest.raises(pqkit.SchemaError, match=fragment):
        infer_type(values)


def test_dictionary_indices_must_hold_every_value():
    with pytest.raises(pqkit.SchemaError, match="200 distinct values do not fit the int8"):
        column_from_values(list(range(200)), T.dictionary(T.int8(), T.int64()))
    col = column_from_values(list(range(200)) * 2, T.dictionary(T.int16(), T.int64()))
    assert len(col.dictionary) == 200 and col.to_pylist() == list(range(200)) * 2


def test_nested_non_nullable_fields_are_enforced_at_every_level():
    inner = T.struct([T.field("x", T.int64(), nullable=False)])
    typ = T.list_(T.field("item", T.struct([T.field("a", T.list_(inner), nullable=False)]),
                          nullable=False))
    ok = [[{"a": [{"x": 1}, None]}], None, []]
    assert column_from_values(ok, typ).to_pylist() == ok
    for bad, where in [([[{"a": [{"x": 1}]}], [None]], "item is null at row 1"),
                       ([[], [{"a": None}]], "item.a is null at row 1"),
                       ([None, [{"a": [{"x": 1}]}, {"a": [{"x": None}]}]],
                        "item.a.item.x is null at row 1")]:
        with pytest.raises(pqkit.SchemaError, match=where):
            column_from_values(bad, typ)
    fixed = T.fixed_size_list(T.field("item", T.int8(), nullable=False), 2)
    assert column_from_values([[1, 2], None], fixed).to_pylist() == [[1, 2], None]
    with pytest.raises(pqkit.SchemaError, match="item is null at row 1"):
        column_from_values([[1, 2], [3, None]], fixed)
    strict_map = T.map_(T.string(), T.field("value", T.int8(), nullable=False))
    with pytest.raises(pqkit.SchemaError, match="value is null at row 0"):
        column_from_values([[("a", None)]], strict_map)


# --- hypothesis: random types, values of those types ----------------------------------------
_LEAVES = [
    (T.int64(), st.integers(-2**63, 2**63 - 1)), (T.float64(), st.floats()),
    (T.string(), st.text(max_size=6)), (T.binary(), st.binary(max_size=6)),
    (T.bool_(), st.booleans()), (T.date32(), st.dates()),
    (T.timestamp("us"), st.datetimes()), (T.time64("us"), st.times()),
    (T.duration("us"), st.timedeltas(-dt.timedelta(microseconds=2**63),
                                     dt.timedelta(microseconds=2**63 - 1))),
    (T.decimal(9, 3), st.decimals(-10**5, 10**5, places=3, allow_nan=False)),
]


def _typed(depth):
    leaf = st.sampled_from(_LEAVES)
    if depth == 0:
        return leaf
    inner = _typed(depth - 1)
    lists = inner.map(lambda tv: (T.list_(tv[0]), st.lists(st.none() | tv[1], max_size=3)))
    structs = st.lists(inner, min_size=1, max_size=3).map(lambda tvs: (
        T.struct([(f"f{i}", t) for i, (t, _) in enumerate(tvs)]),
        st.tuples(*(st.none() | v for _, v in tvs)).map(
            lambda row: {f"f{i}": x for i, x in enumerate(row)})))
    return st.one_of(leaf, lists, structs)


@settings(max_examples=250, deadline=None)
@given(_typed(4).flatmap(lambda tv: st.tuples(st.just(tv[0]),
                                              st.lists(st.none() | tv[1], max_size=6))))
def test_random_nested_values_round_trip(typed):
    typ, values = typed
    col = column_from_values(values, typ)
    assert col.type == typ
    same_values(col.to_pylist(), values)
    inferred = column_from_values(values)
    theirs = pa.array(values)
    assert inferred.type == type_from_arrow(theirs.type)
    same_values(inferred.to_pylist(), theirs.to_pylist())


# --- tables -------------------------------------------------------------------------------
def test_table_from_dict_infers_each_column():
    table = table_from_data({"a": [1, None], "b": np.array([1.5, 2.5]), "c": ["x", "y"]})
    assert table.schema == [T.field("a", T.int64()), T.field("b", T.float64()),
                            T.field("c", T.string())]
    assert table.to_pydict() == {"a": [1, None], "b": [1.5, 2.5], "c": ["x", "y"]}


@pytest.mark.parametrize("schema", [
    [T.field("a", T.int16(), nullable=False), T.field("b", T.string(), metadata={"k": "v"})],
    [("a", T.int16()), ("b", T.string())],
    T.struct([("a", T.int16()), ("b", T.string())]),
    {"a": T.int16(), "b": T.string()},
])
def test_schema_fixes_types_and_order(schema):
    table = table_from_data({"b": ["x", None], "a": [1, 2]}, schema)
    assert table.column_names == ["a", "b"]
    assert [f.type for f in table.schema] == [T.int16(), T.string()]
    if isinstance(schema, list) and isinstance(schema[0], T.Field):
        assert table.schema == schema          # nullability and metadata kept


def test_schema_errors_name_the_column_and_row():
    strict = [T.field("a", T.int16(), nullable=False)]
    with pytest.raises(pqkit.SchemaError, match="column 'a' is not nullable but row 1 is null"):
        table_from_data({"a": [1, None]}, strict)
    with pytest.raises(pqkit.SchemaError, match="column 'a' is not nullable but row 0"):
        table_from_data(pd.DataFrame({"a": pd.array([None], dtype="Int16")}), strict)
    with pytest.raises(pqkit.SchemaError, match="column 'a': value 32768 at row 1 does not "
                                                "fit int16"):
        table_from_data({"a": [1, 2**15]}, strict)
    with pytest.raises(pqkit.SchemaError, match="no column 'b'"):
        table_from_data({"a": [1]}, {"a": T.int8(), "b": T.int8()})
    with pytest.raises(pqkit.SchemaError, match="data column 'c' is not in the schema"):
        table_from_data({"a": [1], "c": [2]}, {"a": T.int8()})
    with pytest.raises(pqkit.SchemaError, match="column 'b': value 1 at row 1: mixed"):
        table_from_data({"a": [1], "b": ["x", 1]})
    with pytest.raises(pqkit.SchemaError, match="has 1 rows, expected 2"):
        table_from_data({"a": [1, 2], "b": [1]})
    with pytest.raises(pqkit.SchemaError, match="names a column twice"):
        table_from_data({"a": [1]}, [("a", T.int8()), ("a", T.int8())])
    with pytest.raises(pqkit.SchemaError, match="cannot make a table of list"):
        table_from_data([{"a": 1}])


def test_tables_pass_through_or_are_cast():
    table = table_from_data({"a": [1, 2], "b": ["x", "y"]}).replace_metadata({"k": "v"})
    assert table_from_data(table) is table
    cast = table_from_data(table, [("a", T.int8()), ("b", T.dictionary(T.int32(), T.string()))])
    assert [f.type for f in cast.schema] == [T.int8(), T.dictionary(T.int32(), T.string())]
    assert cast.to_pydict() == table.to_pydict() and dict(cast.metadata) == {"k": "v"}


def test_dataframe_index_is_stored_as_pyarrow_does():
    df = pd.DataFrame({"a": [1, 2]}, index=pd.Index(["x", "y"], name="key"))
    assert table_from_data(df).column_names == ["a", "key"]
    assert table_from_data(df, preserve_index=False).column_names == ["a"]
    assert table_from_data(df.reset_index(drop=True)).column_names == ["a"]
    with pytest.raises(pqkit.SchemaError, match="repeated column names"):
        table_from_data(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_converted_tables_are_written_and_read_back_by_pyarrow():
    data = {
        "masked": np.ma.MaskedArray(np.array([1, 100, 3], np.int8), [0, 1, 0]),
        "nat": np.array(["2020-01-01", "NaT", "1970-01-01"], "M8[ns]"),
        "days": np.array(["2020-01-01", "NaT", "1970-01-01"], "M8[D]"),
        "dec": [D("1.25"), None, D("-3.5")], "dec40": [D("1.25"), None, D("-3.5")],
        "dict": ["x", None, "x"], "u": np.array(["é", "", "abc"]),
        "nested": [[{"a": [1, None]}], None, []], "map": [{"k": 1}, None, [("z", None)]],
        "uuid": [uuid.UUID(int=1), None, uuid.UUID(int=2)],
        "zoned": [dt.datetime(2020, 1, 1, tzinfo=PARIS), None, None],
        "matrix": np.arange(6, dtype=np.int16).reshape(3, 2),
    }
    explicit = {"dec": T.decimal(5, 2), "dec40": T.decimal(40, 2),
                "dict": T.dictionary(T.int32(), T.string()), "map": T.map_(T.string(), T.int64())}
    schema = [(k, explicit.get(k) or column_from_values(v).type) for k, v in data.items()]
    table = table_from_data(data, schema)
    buf = io.BytesIO()
    pqkit.write_table(table, buf)
    same_values(pq.read_table(io.BytesIO(buf.getvalue())).to_pydict(), table.to_pydict())
