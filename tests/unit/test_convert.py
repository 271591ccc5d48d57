"""Python, numpy and pandas values -> pqkit columns: inference, explicit types, errors."""
import datetime as dt
import decimal
import math
import uuid
import zoneinfo

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
from arrow_bridge import same_values, type_from_arrow
from pqkit import datatypes as T
from pqkit.convert import column_from_values, infer_type, table_from_data

SAMPLES = {
    "int": [1, None, -3],
    "big": [2**64 - 1, 0, None],
    "float": [1.5, None, float("inf"), 2],
    "bool": [True, None, False],
    "str": ["a", None, "é", ""],
    "bytes": [b"\x00\xff", None, b""],
    "decimal": [decimal.Decimal("1.25"), decimal.Decimal("-300.5"), None],
    "date": [dt.date(2020, 1, 1), None, dt.date(1, 1, 1)],
    "datetime": [dt.datetime(2020, 1, 1, 12, 30, 1, 7), None, dt.datetime(1900, 1, 1)],
    "aware": [dt.datetime(2020, 6, 1, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")), None],
    "time": [dt.time(1, 2, 3, 4), None, dt.time(23, 59, 59)],
    "timedelta": [dt.timedelta(days=-1, microseconds=5), None],
    "uuid": [uuid.UUID(int=5), None],
    "list": [[1, 2], [], None, [None]],
    "nested": [[[1], [None, 2]], None, [[]]],
    "struct": [{"a": 1, "b": "x"}, None, {"a": None, "b": None}],
    "list_of_structs": [[{"a": [1, None]}], [], None],
    "nulls": [None, None],
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_inference_round_trips_and_matches_pyarrow(name):
    values = SAMPLES[name]
    col = column_from_values(values)
    assert len(col) == len(values)
    got = col.to_pylist()
    # pyarrow refuses ints above 2**63 - 1 without a type; pqkit infers uint64 for them.
    theirs = pa.array(values, pa.uint64() if name == "big" else None)
    assert col.type == type_from_arrow(theirs.type), (col.type, theirs.type)
    same_values(got, theirs.to_pylist())


@pytest.mark.parametrize("typ,values", [
    (T.int8(), [-128, 127, None]),
    (T.uint32(), [0, 2**32 - 1]),
    (T.float32(), [1.5, None]),
    (T.timestamp("ns", "UTC"), [dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), None]),
    (T.time32("ms"), [dt.time(12, 0, 0, 5000)]),
    (T.date64(), [dt.date(2000, 2, 29), None]),
    (T.fixed_size_binary(3), [b"abc", None]),
    (T.large_string(), ["x", None]),
    (T.decimal(40, 4), [decimal.Decimal("-12345678901234567890.1234"), None]),
    (T.map_(T.string(), T.int32()), [[("a", 1), ("b", None)], None, {"c": 3}]),
    (T.fixed_size_list(T.int16(), 2), [[1, 2], None, [None, 4]]),
    (T.dictionary(T.int32(), T.string()), ["x", "y", "x", None]),
])
def test_explicit_types(typ, values):
    col = column_from_values(values, typ)
    assert col.type == typ
    expected = [dict(v) if isinstance(v, dict) else v for v in values]
    if isinstance(typ, T.MapType):
        expected = [None if v is None else list(v.items()) if isinstance(v, dict) else v
                    for v in values]
    same_values(col.to_pylist(), pa.array(expected, _to_arrow(typ)).to_pylist())


def _to_arrow(typ):
    from arrow_bridge import type_to_arrow
    return type_to_arrow(typ)


@pytest.mark.parametrize("typ,values,fragment", [
    (T.int8(), [1, 300], "value 300 at row 1"),
    (T.int64(), ["a"], "value 'a' at row 0"),
    (T.decimal(5, 2), [decimal.Decimal("1.234")], "1.234"),
    (T.fixed_size_binary(2), [b"abc"], "row 0"),
])
def test_values_that_do_not_fit_name_the_row(typ, values, fragment):
    with pytest.raises(pqkit.SchemaError, match=fragment):
        column_from_values(values, typ)


def test_mixed_types_are_refused():
    with pytest.raises(pqkit.SchemaError, match="mixed value types"):
        infer_type(["a", 1])


def test_numpy_arrays_are_used_without_copy():
    arr = np.arange(10, dtype=np.int32)
    col = column_from_values(arr)
    assert col.type == T.int32() and np.shares_memory(col.values, arr)
    masked = np.ma.MaskedArray([1.0, 2.0], mask=[False, True])
    assert column_from_values(masked).to_pylist() == [1.0, None]
    ts = np.array(["2020-01-01", "NaT"], dtype="M8[s]")
    assert column_from_values(ts).to_pylist() == [dt.datetime(2020, 1, 1), None]


def test_pandas_frames():
    df = pd.DataFrame({
        "i": pd.array([1, None, 3], dtype="Int64"),
        "c": pd.Categorical(["x", "y", None]),
        "s": pd.array(["p", None, "q"], dtype="string"),
        "t": pd.to_datetime(["2020-01-01", None, "2021-01-01"]).tz_localize("UTC"),
        "f": [1.0, math.nan, 2.0],
    })
    table = table_from_data(df)
    theirs = pa.Table.from_pandas(df, preserve_index=False).to_pydict()
    got = table.to_pydict()
    for name in theirs:
        same_values(got[name], theirs[name], name)


def test_schema_fixes_types_and_nullability():
    table = table_from_data({"a": [1, 2]}, [T.field("a", T.int16(), nullable=False)])
    assert table.schema[0] == T.field("a", T.int16(), nullable=False)
    with pytest.raises(pqkit.SchemaError):
        table_from_data({"a": [1, None]}, [T.field("a", T.int16(), nullable=False)])
    with pytest.raises(pqkit.SchemaError, match="no column 'b'"):
        table_from_data({"a": [1]}, {"b": T.int8()})


_leaf = st.one_of(st.integers(-2**63, 2**63 - 1), st.text(max_size=5),
                  st.floats(allow_nan=False), st.booleans())
_value = st.recursive(_leaf, lambda inner: st.one_of(
    st.lists(st.none() | inner, max_size=3),
    st.fixed_dictionaries({"k": st.none() | inner})), max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["int", "text", "float", "bool"]).flatmap(
    lambda kind: st.lists(st.none() | _value.filter(lambda v: _kind(v) in (kind, "nested")),
                          max_size=8)))
def test_random_nested_values_round_trip(values):
    try:
        col = column_from_values(values)
    except pqkit.SchemaError as exc:
        if "mixed value types" in str(exc):
            return      # deliberate: pyarrow coerces booleans among numbers, pqkit refuses
        with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError,
                            OverflowError)):
            pa.array(values)
        return
    same_values(col.to_pylist(), pa.array(values, _to_arrow(col.type)).to_pylist())


def _kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "text"
    return "nested"
