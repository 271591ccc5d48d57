"""numpy arrays and pandas data -> pqkit columns: dtypes, masks, casts, shared buffers.

As for Python values (test_infer.py), pyarrow is the reference: ``pa.array(arr)`` and
``pa.Table.from_pandas`` give the types and values expected, except where noted.
"""
import datetime as dt
import decimal
import math
import sys
import zoneinfo

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import pqkit
from arrow_bridge import same_values, type_from_arrow
from pqkit import datatypes as T
from pqkit.convert import build, column_from_values, table_from_data

D = decimal.Decimal
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
UTC = zoneinfo.ZoneInfo("UTC")


# --- numpy --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4",
                                   "f8", "?", "M8[s]", "M8[ms]", "M8[us]", "M8[ns]", "m8[s]",
                                   "m8[ns]"])
def test_numpy_arrays_are_used_without_copy(dtype):
    arr = np.arange(5).astype(dtype)
    col = column_from_values(arr)
    assert np.shares_memory(col.values, arr)
    assert col.validity is None
    same_values(col.to_pylist(), pa.array(arr).to_pylist())
    assert col.type == type_from_arrow(pa.array(arr).type)


def test_numpy_paths_never_touch_python_values(monkeypatch):
    def no_python(values, t):
        raise AssertionError(f"Python values built for {t}")
    # Every module that calls the Python-values builder binds it; patch each binding.
    binders = [m for name, m in sys.modules.items() if name.startswith("pqkit.convert")
               and getattr(m, "build_column", None) is build.build_column]
    assert len(binders) >= 3
    for module in binders:
        monkeypatch.setattr(module, "build_column", no_python)
    with pytest.raises(AssertionError, match="Python values built"):
        column_from_values([1, 2])                 # the patch does intercept that path
    with pytest.raises(AssertionError, match="Python values built"):
        column_from_values(np.array([1, None], dtype=object))
    arrays = [np.ma.MaskedArray([1, 2, 3], [0, 1, 0]), np.array(["a", "é", ""]),
              np.array([b"a", b""]), np.array(["2020-01-01", "NaT"], "M8[D]"),
              np.array([1, 2], "M8[h]"), np.array([1, 2], "m8[D]"), np.arange(6).reshape(3, 2),
              np.arange(4, dtype=">i4"), np.arange(10)[::3]]
    for arr in arrays:
        column_from_values(arr)
    casts = [(np.arange(3), T.int8()), (np.array([1.0, 2.0]), T.int32()),
             (np.arange(3), T.float32()), (np.arange(3), T.timestamp("s", "UTC")),
             (np.array(["2020-01-01"], "M8[ns]"), T.timestamp("us")),
             (np.array(["2020-01-01"], "M8[s]"), T.date32()),
             (np.array([1, 2], "m8[ms]"), T.duration("us")), (np.arange(3), T.decimal(10, 2)),
             (np.array(["x", "y", "x"]), T.dictionary(T.int8(), T.string())),
             (np.arange(3), T.dictionary(T.int32(), T.int64())),
             (np.arange(6, dtype=np.int8).reshape(3, 2), T.fixed_size_list(T.int16(), 2)),
             (np.array(["a"]), T.large_binary())]
    for arr, typ in casts:
        assert column_from_values(arr, typ).type == typ


@pytest.mark.parametrize("arr,typ,expected", [
    (np.array(["a", "é", "", "日本🎉", "x\x00y"]), T.string(),
     ["a", "é", "", "日本🎉", "x\x00y"]),
    (np.array([b"a\x00b", b"", b"\xff"]), T.binary(), [b"a\x00b", b"", b"\xff"]),
    (np.ma.MaskedArray(["é", "b"], [1, 0]), T.string(), [None, "b"]),
    (np.ma.MaskedArray([1.5, 2.0], [False, True]), T.float64(), [1.5, None]),
    (np.array([1.0, np.nan]), T.float64(), [1.0, math.nan]),        # NaN is a value in numpy
    (np.array(["2020-01-01", "NaT"], "M8[s]"), T.timestamp("s"),
     [dt.datetime(2020, 1, 1), None]),
    (np.array(["2020-01-01", "NaT"], "M8[D]"), T.date32(), [dt.date(2020, 1, 1), None]),
    (np.array(["2020-03"], "M8[M]"), T.date32(), [dt.date(2020, 3, 1)]),
    (np.array([3], "M8[h]"), T.timestamp("s"), [dt.datetime(1970, 1, 1, 3)]),
    (np.array([2, "NaT"], "m8[D]"), T.duration("s"), [dt.timedelta(days=2), None]),
    (np.array([5], "M8[10ms]"), T.timestamp("ms"),
     [dt.datetime(1970, 1, 1, 0, 0, 0, 50000)]),
    (np.arange(4, dtype=">i4"), T.int32(), [0, 1, 2, 3]),
    (np.arange(10)[::3], T.int64(), [0, 3, 6, 9]),
    (np.arange(6, dtype=np.int16).reshape(3, 2), T.list_(T.int16()),
     [[0, 1], [2, 3], [4, 5]]),
    (np.ma.MaskedArray([[1, 2]], [[0, 1]]), T.list_(T.int64()), [[1, None]]),
    (np.array([[1], None, "x"], dtype=object), None, None),
    (np.array([1, None], dtype=object), T.int64(), [1, None]),
    (np.array([], dtype="U0"), T.string(), []),
    (np.zeros(2, T.month_day_nano_interval().numpy_dtype), T.month_day_nano_interval(),
     [T.MonthDayNano(0, 0, 0)] * 2),
])
def test_numpy_dtypes(arr, typ, expected):
    if typ is None:
        with pytest.raises(pqkit.SchemaError, match="mixed value types"):
            column_from_values(arr)
        return
    col = column_from_values(arr)
    assert col.type == typ
    same_values(col.to_pylist(), expected)


@pytest.mark.parametrize("arr,typ,fragment", [
    (np.array([1, 300, 2]), T.int8(), "value 300 at row 1 does not fit int8"),
    (np.array([1.0, 2.5]), T.int64(), "value 2.5 at row 1 .*not a whole number"),
    (np.array([np.nan]), T.int64(), "row 0"),
    (np.array([2**53 + 1]), T.float64(), "row 0 .*not exactly representable"),
    (np.array([2**63], np.uint64), T.int64(), "row 0"),
    (np.array([0, -1]), T.uint64(), "value -1 at row 1"),
    (np.array([2**64 - 1], np.uint64), T.int8(), "row 0"),
    (np.array(["2020-01-01T00:00:00.5"], "M8[ms]"), T.timestamp("s"), "would lose precision"),
    (np.array(["2020-01-01T01"], "M8[s]"), T.date32(), "would lose precision"),
    (np.array(["3000-01-01"], "M8[s]"), T.timestamp("ns"), "outside"),
    (np.array([10**9]), T.decimal(5, 2), "more than 5 digits"),
    (np.array(["a"]), T.int64(), "expected an int, got str"),
    (np.array([b"\xff"]), T.string(), "not valid UTF-8"),
    (np.array(["\ud800"]), T.string(), "not valid Unicode"),
    (np.array([[1, 2], [3, 4]]), T.fixed_size_list(T.int8(), 3), "2 values, expected 3"),
])
def test_numpy_casts_name_the_row(arr, typ, fragment):
    with pytest.raises(pqkit.SchemaError, match=fragment):
        column_from_values(arr, typ)


def test_masked_slots_are_never_checked():
    arr = np.ma.MaskedArray([1, 1000, 2.5, np.nan], [0, 1, 1, 1])
    assert column_from_values(arr, T.int8()).to_pylist() == [1, None, None, None]
    with pytest.raises(pqkit.SchemaError, match="numpy dtype complex128"):
        column_from_values(np.array([1j]))
    with pytest.raises(pqkit.SchemaError, match="0-d"):
        column_from_values(np.array(5))
    with pytest.raises(pqkit.SchemaError, match="a list, a numpy array"):
        column_from_values("abc")


# --- pandas -------------------------------------------------------------------------------
def _frame():
    return pd.DataFrame({
        "i8": pd.array([1, None, -3], dtype="Int8"), "i64": pd.array([1, None, 3], "Int64"),
        "u16": pd.array([None, 2, 65535], dtype="UInt16"),
        "f32": pd.array([1.5, None, 2.0], dtype="Float32"),
        "b": pd.array([True, None, False], dtype="boolean"),
        "ints": [1, 2, 3], "floats": [1.0, math.nan, 2.0], "bools": [True, False, True],
        "s": pd.array(["p", None, "é"], dtype="string"),
        "s_arrow": pd.array(["p", None, "é"], dtype="string[pyarrow]"),
        "s_default": ["a", None, "c"],
        "cat": pd.Categorical(["x", "y", None]),
        "cat_int": pd.Categorical([3, None, 3], ordered=True),
        "ts": pd.to_datetime(["2020-01-01", None, "2021-01-01 00:00:00.000001"],
                             format="ISO8601"),
        "ts_ns": pd.to_datetime(["2020-01-01", None, "2021-01-01"]).astype("M8[ns]"),
        "utc": pd.to_datetime(["2020-01-01", None, "2021-01-01"]).tz_localize("UTC"),
        "paris": pd.to_datetime(["2020-01-01", None, "2021-07-01"]).tz_localize(PARIS),
        "offset": pd.to_datetime(["2020-01-01", None, "2021-07-01"]).tz_localize(
            dt.timezone(dt.timedelta(hours=2))),
        "td": pd.to_timedelta([1, None, -5], unit="s"),
        "lists": [[1, 2], None, []], "dicts": [{"a": 1}, None, {"a": None}],
        "decimals": [D("1.5"), None, D("-2")], "dates": [dt.date(2020, 1, 1), None, None],
        "objects_nan": pd.Series([1.5, math.nan, None], dtype=object),
        "arrow_int": pd.array([1, None, 3], dtype=pd.ArrowDtype(pa.int16())),
    }, index=[10, 20, 30])


# pandas dtypes where pyarrow picks another type of the same values: pandas strings
# become large_string, and Categorical keeps pandas' int8 codes.
_PANDAS_TYPE_DIFFERENCES = {"s": T.string(), "s_arrow": T.string(), "s_default": T.string(),
                            "cat": T.dictionary(T.int32(), T.string()),
                            "cat_int": T.dictionary(T.int32(), T.int64(), ordered=True)}


def test_pandas_frames_match_pyarrow():
    df = _frame()
    table = table_from_data(df, preserve_index=False)
    assert table.column_names == list(df.columns) and table.num_rows == 3
    theirs = pa.Table.from_pandas(df, preserve_index=False)
    for name in df.columns:
        expected = _PANDAS_TYPE_DIFFERENCES.get(name) or \
            type_from_arrow(theirs.schema.field(name).type)
        assert table.column(name).type == expected, name
        same_values(table.column(name).to_pylist(), theirs.column(name).to_pylist(), name)


def test_pandas_buffers_are_shared():
    s = pd.Series(np.arange(5))
    assert np.shares_memory(column_from_values(s).values, s.to_numpy())
    masked = pd.array([1, None, 3], dtype="Int32")
    col = column_from_values(masked)
    assert col.type == T.int32() and np.shares_memory(col.values, masked._data)
    tz = pd.Series(pd.date_range("2020", periods=3, tz=PARIS))
    col = column_from_values(tz)
    assert col.type == T.timestamp("us", "Europe/Paris")
    assert np.shares_memory(col.values, tz.array.asi8)


def test_pandas_with_explicit_types():
    assert column_from_values(pd.Series([1.0, math.nan]), T.int32()).to_pylist() == [1, None]
    with pytest.raises(pqkit.SchemaError, match="value 300 at row 2 does not fit int8"):
        column_from_values(pd.array([1, None, 300], dtype="Int64"), T.int8())
    cat = pd.Categorical(["x", None, "x"])
    assert column_from_values(cat, T.string()).to_pylist() == ["x", None, "x"]
    col = column_from_values(cat, T.dictionary(T.int8(), T.large_string()))
    assert col.type == T.dictionary(T.int8(), T.large_string())
    assert col.to_pylist() == ["x", None, "x"]
    naive = pd.Series(pd.to_datetime(["2020-01-01", None]).astype("M8[ns]"))
    same_values(column_from_values(naive, T.timestamp("ms", "UTC")).to_pylist(),
                [dt.datetime(2020, 1, 1, tzinfo=UTC), None])
    assert column_from_values(pd.Index(["a", "b"])).to_pylist() == ["a", "b"]
