"""Table/Column.to_pandas: the ``strings`` options, nested rows built in Cython, and
Table.flatten -- against to_pylist() and pyarrow."""
import gc
import io
import random
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings

import pqkit
from arrow_bridge import from_arrow, same_values
from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn, concat_columns
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    StructColumn,
)
from pqkit.columnar.table import Table
from pqkit.errors import EncodingError
from unit.columnar.test_column import sliced_arrays

PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3
STR = pd.StringDtype(na_value=np.nan) if PANDAS_3 else np.dtype(object)


def _strings(values):
    data = b"".join(v.encode() for v in values if v is not None)
    lengths = [0 if v is None else len(v.encode()) for v in values]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    validity = np.array([v is not None for v in values])
    return BinaryColumn(T.string(), offsets, np.frombuffer(data, np.uint8).copy(),
                        None if validity.all() else validity)


VALUES = ["a", None, "ß€", "", "a", "longer value", None]


# --- strings="str" ------------------------------------------------------------------------
def test_str_is_pandas_default_string_dtype():
    s = _strings(VALUES).to_pandas()
    assert s.dtype == STR
    assert s.isna().tolist() == [v is None for v in VALUES]
    assert s[s.notna()].tolist() == [v for v in VALUES if v is not None]


@pytest.mark.skipif(not PANDAS_3, reason="pandas' str dtype starts with pandas 3")
def test_str_with_pyarrow_storage_matches_pyarrow_to_pandas():
    theirs = pa.table({"s": pa.array(VALUES, pa.string())}).to_pandas()["s"]
    ours = Table({"s": _strings(VALUES)}).to_pandas()["s"]
    assert ours.dtype == theirs.dtype and ours.dtype.storage == "pyarrow"
    assert ours.equals(theirs)
    assert type(ours.array).__name__ == "ArrowStringArray"


@pytest.mark.skipif(not PANDAS_3, reason="pandas' str dtype starts with pandas 3")
def test_str_follows_pandas_python_storage_option():
    with pd.option_context("mode.string_storage", "python"):
        s = _strings(VALUES).to_pandas()
    assert s.dtype == pd.StringDtype("python", na_value=np.nan)
    assert s.isna().tolist() == [v is None for v in VALUES]
    assert s.dropna().tolist() == [v for v in VALUES if v is not None]


def test_str_of_a_slice_with_offsets_not_at_zero():
    col = _strings(VALUES).slice(2, 6)
    assert int(col.offsets[0]) != 0
    s = col.to_pandas()
    assert s.isna().tolist() == [v is None for v in VALUES[2:6]]
    assert s.dropna().tolist() == [v for v in VALUES[2:6] if v is not None]


def test_str_shares_bytes_and_releases_them():
    col = _strings(["x" * 10] * 1000)
    data = col.data
    before = sys.getrefcount(data)
    s = col.to_pandas()
    held = sys.getrefcount(data)
    del s
    gc.collect()
    after = sys.getrefcount(data)
    assert held > before and after == before     # pandas held the buffer (no copy), then let go


def test_empty_and_all_null_strings():
    for values in ([], [None, None], [""]):
        for strings in ("str", "object"):
            s = _strings(values).to_pandas(strings=strings)
            assert len(s) == len(values)
            assert s.isna().tolist() == [v is None for v in values]


# --- strings="object" ---------------------------------------------------------------------
def test_object_strings_with_none_for_nulls():
    s = _strings(VALUES).to_pandas(strings="object")
    assert s.dtype == object
    assert s.tolist() == VALUES


def test_dictionary_decoded_strings_share_objects():
    dictionary = _strings(["red", "green", "blue"])
    idx = np.array([0, 1, 0, 2, 0, 1, 2, 2], np.int32)
    col = DictionaryColumn(T.dictionary(T.int32(), T.string()), idx, dictionary).decode()
    assert col._gathered is not None
    s = col.to_pandas(strings="object")
    assert s.tolist() == [["red", "green", "blue"][i] for i in idx]
    assert len({id(v) for v in s}) == 3
    # slices, takes and concatenations keep knowing their source
    for part in (col.slice(2, 7), col.take(np.array([7, 0, 3])),
                 concat_columns([col.slice(1, 4), col])):
        assert part._gathered is not None
        assert part.to_pandas(strings="object").tolist() == part.to_pylist()


def test_gathered_source_with_invalid_utf8_in_an_unused_value():
    source = BinaryColumn(T.string(), np.array([0, 1, 3, 4]), np.frombuffer(b"a\xff\xfeb",
                                                                              np.uint8))
    col = source.take(np.array([0, 2, 0, 2, 0, 2]))
    assert col.to_pandas(strings="object").tolist() == ["a", "b"] * 3


def test_read_dictionary_encoded_file_shares_objects_across_row_groups():
    values = [f"v{i % 7}" for i in range(5000)]
    buf = io.BytesIO()
    pq.write_table(pa.table({"s": values}), buf, row_group_size=1000)
    table = pqkit.read_table(buf.getvalue())
    s = table.to_pandas(strings="object")["s"]
    assert s.tolist() == values
    assert len({id(v) for v in s}) <= 7 * 5


@pytest.mark.parametrize("strings", ["str", "object"])
def test_invalid_utf8_raises_encoding_error(strings):
    col = BinaryColumn(T.string(), np.array([0, 1, 3]), np.frombuffer(b"a\xc3\x28", np.uint8))
    with pytest.raises(EncodingError, match="UTF-8"):
        col.to_pandas(strings=strings)
    hidden = BinaryColumn(T.string(), np.array([0, 1, 3]), np.frombuffer(b"a\xc3\x28", np.uint8),
                          np.array([True, False]))
    assert hidden.to_pandas(strings=strings).isna().tolist() == [False, True]


def test_unknown_strings_option():
    with pytest.raises(ValueError, match="strings must be one of"):
        Table({"s": _strings(VALUES)}).to_pandas(strings="arrow")


# --- nested rows ----------------------------------------------------------------------------
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arr=sliced_arrays())
def test_to_pandas_values_equal_to_pylist(arr):
    col = from_arrow(arr, random.Random(0))
    if not isinstance(col, (ListColumn, FixedSizeListColumn, StructColumn)):
        return
    s = col.to_pandas()
    assert s.dtype == object and len(s) == len(col)
    if isinstance(col, StructColumn):
        same_values(s.tolist(), col.to_pylist())
        return
    # Lists are numpy arrays per row, as pyarrow gives them: numbers as pyarrow's
    # dtype and values, other children as object arrays of the Python values.
    theirs = None
    for i, (row, py) in enumerate(zip(s, col.to_pylist())):
        if py is None:
            assert row is None
            continue
        assert isinstance(row, np.ndarray) and not row.flags.writeable
        if row.dtype == object:
            same_values(row.tolist(), py, f"row {i}")
            continue
        if theirs is None:
            theirs = arr.to_pandas()
        assert row.dtype == theirs[i].dtype, f"row {i}"
        np.testing.assert_array_equal(row, theirs[i])


def test_equal_length_lists_stay_one_object_per_row():
    child = PrimitiveColumn(T.int64(), np.arange(6))
    col = ListColumn(T.list_(T.field("item", T.int64())), np.array([0, 2, 4, 6]), child)
    rows = col.to_pandas().tolist()
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert all(r.base is child.values for r in rows)       # views, not copies


def test_struct_rows_with_nulls_at_both_levels():
    arr = pa.array([{"a": 1, "b": [1, 2], "c": {"d": "x"}}, None,
                    {"a": None, "b": None, "c": None}, {"a": 3, "b": [], "c": {"d": None}}])
    col = from_arrow(arr)
    assert col.to_pandas().tolist() == arr.to_pylist()


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_state_is_restored(enabled):
    col = from_arrow(pa.array([[1, 2], None, [3]]))
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        col.to_pandas()
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


# --- Table.flatten --------------------------------------------------------------------------
def test_flatten_matches_pyarrow():
    arr = pa.array([{"a": 1, "b": "x", "c": {"d": 1.5}}, None,
                    {"a": None, "b": "y", "c": None}, {"a": 4, "b": None, "c": {"d": None}}])
    theirs = pa.table({"s": arr, "n": pa.array([1, 2, 3, 4])})
    ours = Table({"s": from_arrow(arr), "n": from_arrow(theirs["n"].chunks[0])})
    for _ in range(2):
        theirs, ours = theirs.flatten(), ours.flatten()
        assert ours.column_names == theirs.column_names
        assert [f.nullable for f in ours.schema] == [f.nullable for f in theirs.schema]
        assert ours.to_pydict() == theirs.to_pydict()
    assert ours.column_names == ["s.a", "s.b", "s.c.d", "n"]


def test_flatten_keeps_non_struct_tables_and_metadata():
    t = Table({"n": PrimitiveColumn(T.int32(), np.arange(3, dtype=np.int32))},
              metadata={"k": "v"})
    flat = t.flatten()
    assert flat.equals(t) and dict(flat.metadata) == {"k": "v"}


def test_map_rows_of_equal_length_stay_one_object_per_row():
    arr = pa.array([[("a", 1)], [("b", 2)]], pa.map_(pa.string(), pa.int64()))
    col = from_arrow(arr)
    assert col.to_pandas().tolist() == col.to_pylist() == [[("a", 1)], [("b", 2)]]


# --- self_destruct / read_pandas ------------------------------------------------------------
def _mixed_table(n=50_000):
    rng = np.random.default_rng(7)
    ints = rng.integers(-10**9, 10**9, n)
    floats = rng.standard_normal(n)
    mask = rng.random(n) < 0.2
    return pa.table({
        "i": pa.array(ints),
        "i_null": pa.array(ints, mask=mask),
        "f": pa.array(floats),
        "f_null": pa.array(floats, mask=mask),
        "u8": pa.array(ints % 200, pa.uint8()),
        "b": pa.array(ints % 3 == 0, mask=mask),
        "s": pa.array([f"v{i % 100}" for i in range(n)], mask=mask),
        "ts": pa.array(ints, pa.timestamp("us", "UTC")),
        "l": pa.array([[i, i + 1] if i % 5 else None for i in range(n)]),
    })


@pytest.mark.parametrize("strings", ["str", "object"])
def test_self_destruct_gives_the_same_frame(tmp_path, strings):
    path = tmp_path / "m.parquet"
    pq.write_table(_mixed_table(), path)
    expected = pqkit.read_table(path).to_pandas(strings=strings)
    table = pqkit.read_table(path)
    got = table.to_pandas(strings=strings, self_destruct=True)
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(pqkit.read_pandas(path, strings=strings), expected)
    pd.testing.assert_frame_equal(pqkit.read_pandas(path, columns=["f_null", "s"],
                                                    strings=strings),
                                  expected[["f_null", "s"]])


def test_self_destruct_hands_over_buffers_and_retires_the_table(tmp_path):
    path = tmp_path / "m.parquet"
    pq.write_table(_mixed_table(), path)
    table = pqkit.read_table(path)
    values = {name: table.column(name).values for name in ("i", "f", "f_null", "i_null")}
    df = table.to_pandas(self_destruct=True)
    for name, buf in values.items():
        assert np.shares_memory(np.asarray(df[name].array._ndarray if name != "i_null"
                                           else df[name].array._data), buf), name
    with pytest.raises(ValueError, match="self_destruct"):
        table.column("i")
    with pytest.raises(ValueError, match="self_destruct"):
        table.num_columns
    df.loc[0, "i"] = 123                        # the frame owns writable buffers
    assert df["i"].iloc[0] == 123


def test_default_to_pandas_never_shares_numeric_buffers(tmp_path):
    path = tmp_path / "m.parquet"
    pq.write_table(_mixed_table(), path)
    table = pqkit.read_table(path)
    df = table.to_pandas()
    df.loc[0, "f"] = -1.0
    assert table.column("f").values[0] != -1.0
    assert not np.shares_memory(df["i"].to_numpy(), table.column("i").values)


def test_self_destruct_copies_read_only_buffers():
    ro = np.arange(10, dtype=np.int64)
    ro.flags.writeable = False
    table = Table({"x": PrimitiveColumn(T.int64(), ro)})
    df = table.to_pandas(self_destruct=True)
    df.loc[0, "x"] = 5                          # writable: a copy, the source untouched
    assert ro[0] == 0 and df["x"].iloc[0] == 5


# --- timestamps, durations and decimals ----------------------------------------------------
@pytest.mark.parametrize("nulls", [False, True])
def test_timestamps_handed_over_are_viewed_not_copied(nulls):
    values = np.array([0, 1_500_000, -2, 7], np.int64)
    validity = np.array([True, False, True, True]) if nulls else None
    col = PrimitiveColumn(T.timestamp("us"), values, validity)
    kept = col.to_pandas()                       # the column stays usable: a copy
    assert not np.shares_memory(kept.to_numpy(), values)
    t = Table({"t": col})
    s = t.to_pandas(self_destruct=True)["t"]
    assert s.dtype == np.dtype("M8[us]")
    assert np.shares_memory(s.to_numpy(), values)
    expected = ["1970-01-01T00:00:00.000000", "NaT" if nulls else "1970-01-01T00:00:01.500000",
                "1969-12-31T23:59:59.999998", "1970-01-01T00:00:00.000007"]
    assert [str(v) for v in s.to_numpy()] == expected
    assert s.isna().tolist() == [False, nulls, False, False]
    assert kept.isna().tolist() == [False, nulls, False, False]


def test_durations_and_read_pandas_match_pyarrow():
    table = pa.table({"d": pa.array([1, None, -3], pa.duration("ms")),
                      "t": pa.array([5, 6, None], pa.timestamp("ns")),
                      "z": pa.array([5, None, 6], pa.timestamp("us", "Asia/Tokyo"))})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    ours = pqkit.read_pandas(buf.getvalue())
    theirs = table.to_pandas()
    assert ours.dtypes.tolist() == theirs.dtypes.tolist()
    assert ours.equals(theirs)


def test_decimals_match_pyarrow_digits_and_exponents():
    from decimal import Decimal
    values = [Decimal("1.2345"), None, Decimal("-0.0001"), Decimal("0.0000"),
              Decimal("99999999999999.9999")]
    for typ, rows in ((pa.decimal128(18, 4), values), (pa.decimal128(9, 4), values[:4]),
                      (pa.decimal128(30, 4), values)):
        table = pa.table({"d": pa.array(rows, typ)})
        buf = io.BytesIO()
        pq.write_table(table, buf)
        ours = pqkit.read_pandas(buf.getvalue())["d"].tolist()
        theirs = table.to_pandas()["d"].tolist()
        assert [None if v is None else v.as_tuple() for v in ours] == \
            [None if v is None else v.as_tuple() for v in theirs]
