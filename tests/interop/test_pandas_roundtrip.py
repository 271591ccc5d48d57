"""pandas frames through pqkit, pandas.read_parquet (pyarrow engine) and DataFrame.to_parquet.

Each frame goes three ways, and must come back ``DataFrame.equals`` (and
``assert_frame_equal``) to what went in: pqkit writes and reads; pqkit writes
and pandas reads; pandas writes and pqkit reads. Where pandas' own round trip
through pyarrow loses a dtype (``LOSSY_IN_PYARROW``), pandas reading our file
must give exactly what it gives for its own file.
"""
import datetime as dt
import io

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import pqkit
from pqkit import datatypes as T


def _frames():
    yield "named_index", pd.DataFrame({"a": [1, 2, 3, 4]},
                                      index=pd.Index([10, 20, 30, 40], name="key"))
    yield "default_range", pd.DataFrame({"a": [1.5, 2.5, 3.5, 4.5]})
    yield "stepped_range", pd.DataFrame({"a": [1, 2, 3]}, index=pd.RangeIndex(5, 11, 2, name="r"))
    yield "negative_step", pd.DataFrame({"a": [1, 2, 3]}, index=pd.RangeIndex(10, 1, -3))
    yield "unnamed_str_index", pd.DataFrame({"a": [1, 2]}, index=pd.Index(["x", "y"]))
    yield "multi_index", pd.DataFrame({"v": [1.0, 2.0, 3.0]}, index=pd.MultiIndex.from_arrays(
        [[1, 1, 2], ["a", "b", "a"]], names=["i", None]))
    yield "tz_index", pd.DataFrame({"v": [1, 2]}, index=pd.DatetimeIndex(
        ["2020-01-01", "2020-06-01"], name="when").tz_localize("Europe/Paris"))
    yield "categoricals", pd.DataFrame({
        "plain": pd.Categorical(["b", "a", None, "b"], categories=["b", "a"]),
        "ordered": pd.Categorical(["lo", "mid", "hi", None], categories=["lo", "mid", "hi"],
                                  ordered=True),
        "ints": pd.Categorical([3, 1, None, 3], ordered=True)})
    yield "nullable", pd.DataFrame({
        "i64": pd.array([1, None, 3, -4], dtype="Int64"),
        "i8": pd.array([1, 2, 3, 4], dtype="Int8"),
        "u16": pd.array([None, 2, 65535, 0], dtype="UInt16"),
        "f64": pd.array([1.5, None, np.nan, 0.0], dtype="Float64"),
        "b": pd.array([True, None, False, True], dtype="boolean"),
        "b_full": pd.array([True, False, False, True], dtype="boolean")})
    yield "timestamps", pd.DataFrame({
        "paris": pd.to_datetime(["2020-01-01", None, "2021-07-01 12:00", "1999-12-31"],
                                format="ISO8601").tz_localize("Europe/Paris"),
        "utc": pd.to_datetime(["2020-01-01", "2020-01-02", None, "2020-01-04"]).tz_localize("UTC"),
        "offset": pd.to_datetime(["2020-01-01", None, None, "2020-01-04"]).tz_localize(
            dt.timezone(dt.timedelta(hours=-3))),
        "naive_ns": pd.to_datetime(["2020-01-01 00:00:00.000000001", None, "2020-01-03",
                                    "2020-01-04"], format="ISO8601").astype("M8[ns]"),
        "naive_ms": pd.to_datetime(["2020-01-01", None, "2020-01-03", "2020-01-04"])
        .astype("M8[ms]")})
    strings = pd.DataFrame({
        "str": pd.array(["a", None, "é", ""], dtype="str"),
        "string": pd.array(["x", None, "y", "z"], dtype="string")},
        index=pd.Index(["p", "q", "r", "s"], name="id"))
    yield "strings", strings
    yield "nan_none", pd.DataFrame({
        "floats": [1.0, np.nan, None, 3.0],
        "obj_none": pd.Series([None, "a", None, "b"], dtype=object),
        "str_nan": pd.Series([np.nan, "a", "b", None], dtype="str"),
        "ints_nan": pd.array([None, None, 1, 2], dtype="Int32"),
        "all_null": pd.array([None, None, None, None], dtype="Int64")})
    yield "int_labels", pd.DataFrame([[1, 2], [3, 4]])
    yield "labels_name", pd.DataFrame({"a": [1]}).rename_axis(columns="fields")
    yield "attrs", pd.DataFrame({"a": [1]}).set_axis(pd.Index([7], name="n"))


FRAMES = dict(_frames())
FRAMES["attrs"].attrs = {"source": "sensor-3", "version": 2}
# pandas' own round trip through pyarrow changes these: integer categories come back
# as float64 and object strings as pandas 3's str dtype.
LOSSY_IN_PYARROW = {"categoricals", "nan_none"}


def _pqkit_bytes(df, **options):
    buf = io.BytesIO()
    pqkit.write_table(df, buf, **options)
    return buf.getvalue()


def _pandas_bytes(df, **options):
    buf = io.BytesIO()
    df.to_parquet(buf, engine="pyarrow", **options)
    return buf.getvalue()


def _same(got, df):
    assert got.equals(df)
    assert_frame_equal(got, df)
    assert got.attrs == df.attrs


@pytest.mark.parametrize("write", [_pqkit_bytes, _pandas_bytes], ids=["pqkit", "pandas"])
@pytest.mark.parametrize("name", FRAMES)
def test_pqkit_reads(name, write):
    df = FRAMES[name]
    data = write(df)
    _same(pqkit.read_pandas(data), df)
    _same(pqkit.read_table(data).to_pandas(), df)


@pytest.mark.parametrize("name", FRAMES)
def test_pqkit_file_read_by_pandas(name):
    df = FRAMES[name]
    ours = pd.read_parquet(io.BytesIO(_pqkit_bytes(df)), engine="pyarrow")
    twin = pd.read_parquet(io.BytesIO(_pandas_bytes(df)), engine="pyarrow")
    assert_frame_equal(ours, twin)
    assert twin.equals(df) is (name not in LOSSY_IN_PYARROW)
    if name not in LOSSY_IN_PYARROW:
        _same(ours, df)


def test_object_strings_stay_object_unless_asked():
    df = FRAMES["nan_none"]
    back = pqkit.read_pandas(_pqkit_bytes(df))
    assert back["obj_none"].dtype == object and back["obj_none"].tolist() == [None, "a", None, "b"]
    assert str(pqkit.read_pandas(_pqkit_bytes(df), strings="str")["obj_none"].dtype) == "str"


def test_categories_unused_and_out_of_order_from_pyarrow():
    df = pd.DataFrame({"c": pd.Categorical(["z", "x", "z"], categories=["z", "y", "x"],
                                           ordered=True)})
    back = pqkit.read_pandas(_pandas_bytes(df))
    assert list(back["c"].cat.categories) == ["z", "y", "x"] and back["c"].cat.ordered
    _same(back, df)


@pytest.mark.parametrize("ordered", [False, True])
def test_categories_unused_and_out_of_order_from_pqkit(ordered):
    # The column's own dictionary starts the chunk's dictionary page, as pyarrow writes it.
    df = pd.DataFrame({"c": pd.Categorical(["x", "z", None, "x"], categories=["z", "y", "x"],
                                           ordered=ordered)})
    data = _pqkit_bytes(df)
    _same(pqkit.read_pandas(data), df)
    assert pd.read_parquet(io.BytesIO(data))["c"].cat.categories.tolist() == ["z", "y", "x"]


@pytest.mark.parametrize("write", [_pqkit_bytes, _pandas_bytes])
def test_preserve_index_true_stores_a_range_index(write):
    df = FRAMES["stepped_range"]
    data = write(df, preserve_index=True) if write is _pqkit_bytes else write(df, index=True)
    assert pqkit.read_table(data).column_names == ["a", "r"]
    _same(pqkit.read_pandas(data), df)
    _same(pd.read_parquet(io.BytesIO(data)), df)


def test_preserve_index_false_stores_no_index():
    df = FRAMES["named_index"]
    data = _pqkit_bytes(df, preserve_index=False)
    assert pqkit.read_table(data).column_names == ["a"]
    expected = df.reset_index(drop=True)
    _same(pqkit.read_pandas(data), expected)
    _same(pd.read_parquet(io.BytesIO(data)), expected)


def test_parquet_writer_given_frames():
    first = pd.DataFrame({"a": pd.array([1, None], dtype="Int64")},
                         index=pd.Index(["x", "y"], name="k"))
    second = pd.DataFrame({"a": pd.array([3, 4], dtype="Int64")},
                          index=pd.Index(["z", "w"], name="k"))
    buf = io.BytesIO()
    with pqkit.ParquetWriter(buf, first) as w:
        w.write(first)
        w.write(second)
    expected = pd.concat([first, second])
    _same(pqkit.read_pandas(buf.getvalue()), expected)
    _same(pd.read_parquet(io.BytesIO(buf.getvalue())), expected)


def test_writes_of_range_indexed_frames_get_a_fresh_range():
    df = pd.DataFrame({"a": [1, 2, 3]})
    buf = io.BytesIO()
    with pqkit.ParquetWriter(buf, [("a", T.int64())]) as w:
        w.write(df)
        w.write(df)
    expected = pd.concat([df, df], ignore_index=True)
    _same(pqkit.read_pandas(buf.getvalue()), expected)
    _same(pd.read_parquet(io.BytesIO(buf.getvalue())), expected)


@pytest.mark.parametrize("write", [_pqkit_bytes, _pandas_bytes])
def test_column_selection_keeps_the_index(write):
    df = FRAMES["multi_index"].assign(w=[7, 8, 9])
    data = write(df)
    _same(pqkit.read_pandas(data, columns=["w"]), df[["w"]])


def test_slices_keep_stored_index_and_drop_a_stale_range():
    named = pqkit.read_table(_pqkit_bytes(FRAMES["named_index"])).slice(1, 3)
    _same(named.to_pandas(), FRAMES["named_index"].iloc[1:3])
    ranged = pqkit.read_table(_pqkit_bytes(FRAMES["stepped_range"])).slice(1)
    _same(ranged.to_pandas(), FRAMES["stepped_range"].iloc[1:].reset_index(drop=True))


def test_ignore_metadata_gives_the_stored_columns():
    df = FRAMES["named_index"]
    back = pqkit.read_table(_pqkit_bytes(df)).to_pandas(ignore_metadata=True)
    assert list(back.columns) == ["a", "key"] and isinstance(back.index, pd.RangeIndex)
    assert back["key"].tolist() == [10, 20, 30, 40]


def test_files_without_pandas_metadata_read_as_before():
    data = _pqkit_bytes({"a": [1, None], "s": ["x", None]})
    assert "pandas" not in pqkit.read_metadata(io.BytesIO(data)).key_value_metadata
    back = pqkit.read_pandas(data)
    assert isinstance(back.index, pd.RangeIndex) and list(back.columns) == ["a", "s"]
    assert str(back["a"].dtype) == "Int64" and str(back["s"].dtype) == "str"
