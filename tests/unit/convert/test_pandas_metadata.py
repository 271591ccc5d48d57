"""The ``pandas`` metadata entry built from DataFrames as pyarrow builds it
(pqkit.convert.pandas_metadata); its parsing is tested in
tests/unit/columnar/test_pandas_metadata.py."""
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.convert import table_from_data
from pqkit.convert.pandas_metadata import label_to_string, pandas_type

FRAMES = {
    "named": pd.DataFrame({"a": [1, 2, 3]}, index=pd.Index([10, 20, 30], name="k")),
    "range": pd.DataFrame({"a": [1, 2, 3]}, index=pd.RangeIndex(5, 11, 2)),
    "unnamed": pd.DataFrame({"a": [1, 2]}, index=pd.Index(["x", "y"])),
    "index_named_like_a_column": pd.DataFrame({"a": [1, 2]}, index=pd.Index([5, 6], name="a")),
    "multi": pd.DataFrame({"a": [1, 2]}, index=pd.MultiIndex.from_tuples(
        [(1, "a"), (2, "b")], names=["i", None])),
    "dtypes": pd.DataFrame({
        "i": pd.array([1, None], dtype="Int64"), "b": pd.array([True, None], dtype="boolean"),
        "c": pd.Categorical(["x", "y"], categories=["y", "x"], ordered=True),
        "t": pd.to_datetime(["2020-01-01", "2021-01-01"]).tz_localize("Europe/Paris"),
        "o": pd.Series(["a", None], dtype=object), "f": [1.5, np.nan],
        "u": np.array([1, 2], dtype="u2"), "dt": pd.to_datetime(["2020-01-01", None]),
        "bytes": [b"x", None], "lists": [[1], None]}),
    "int_labels": pd.DataFrame([[1, 2]]),
    "multi_labels": pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples(
        [("a", "x"), ("b", "y")], names=["l0", "l1"])),
}


def _ours(df, **kw):
    return json.loads(table_from_data(df, **kw).metadata["pandas"])


@pytest.mark.parametrize("name", FRAMES)
@pytest.mark.parametrize("preserve_index", [None, True, False])
def test_entry_equals_pyarrows(name, preserve_index):
    df = FRAMES[name]
    ours = _ours(df, preserve_index=preserve_index)
    theirs = pa.Table.from_pandas(df, preserve_index=preserve_index).schema.pandas_metadata
    assert ours.pop("creator") == {"library": "pqkit", "version": pqkit.__version__}
    theirs.pop("creator")
    assert ours == _as_stored_by_pqkit(theirs)


def _as_stored_by_pqkit(entry):
    """pyarrow's entry with pandas' str columns typed "unicode": pyarrow stores them as
    large_string, whose pandas_type is "object", pqkit as string."""
    for c in entry["columns"]:
        if c["numpy_type"] == "str" and c["pandas_type"] == "object":
            c["pandas_type"] = "unicode"
    return entry


def test_str_columns_are_unicode_because_they_are_stored_as_string():
    # pyarrow stores pandas' str dtype as large_string, whose pandas_type is "object".
    df = pd.DataFrame({"s": ["a", None]})
    assert _ours(df)["columns"][0] == {"name": "s", "field_name": "s", "pandas_type": "unicode",
                                      "numpy_type": "str", "metadata": None}
    assert table_from_data(df).field("s").type == T.string()


def test_index_layout():
    table = table_from_data(FRAMES["multi"])
    assert table.column_names == ["a", "i", "__index_level_1__"]
    assert _ours(FRAMES["multi"])["index_columns"] == ["i", "__index_level_1__"]
    assert table_from_data(FRAMES["index_named_like_a_column"]).column_names == \
        ["a", "__index_level_0__"]
    ranged = table_from_data(FRAMES["range"], preserve_index=True)
    assert ranged.column_names == ["a", "__index_level_0__"]
    assert ranged.column("__index_level_0__").to_pylist() == [5, 7, 9]


def test_explicit_schema_takes_index_levels_by_name():
    df = FRAMES["multi"]
    table = table_from_data(df, [("a", T.int32()), ("i", T.int8())])
    assert table.column_names == ["a", "i"] and table.field("i").type == T.int8()
    meta = json.loads(table.metadata["pandas"])
    assert meta["index_columns"] == ["i"]
    assert [c["field_name"] for c in meta["columns"]] == ["a", "i"]
    with pytest.raises(pqkit.SchemaError, match="no column 'nope'"):
        table_from_data(df, [("a", T.int64()), ("nope", T.int64())])
    ranged = json.loads(table_from_data(FRAMES["range"], [("a", T.int64())]).metadata["pandas"])
    assert ranged["index_columns"] == [{"kind": "range", "name": None, "start": 5, "stop": 11,
                                        "step": 2}]


def test_bad_preserve_index():
    with pytest.raises(pqkit.SchemaError, match="preserve_index"):
        table_from_data(FRAMES["named"], preserve_index="yes")


def test_decimal_entry():
    from decimal import Decimal
    df = pd.DataFrame({"d": [Decimal("1.25"), None]})
    entry = _ours(df)["columns"][0]
    assert entry["pandas_type"] == "decimal" and entry["numpy_type"] == "object"
    assert entry["metadata"] == {"precision": 3, "scale": 2}


@pytest.mark.parametrize("t, expected", [
    (T.null(), "empty"), (T.bool_(), "bool"), (T.uint32(), "uint32"), (T.float16(), "float16"),
    (T.date32(), "date"), (T.time64("us"), "time"), (T.binary(), "bytes"),
    (T.string(), "unicode"), (T.large_string(), "object"), (T.fixed_size_binary(3), "bytes"),
    (T.list_(T.int16()), "list[int16]"), (T.timestamp("ms", "UTC"), "datetimetz"),
    (T.timestamp("ns"), "datetime"), (T.decimal(5, 1), "decimal"),
    (T.dictionary(T.int32(), T.string()), "categorical"), (T.uuid(), "object"),
])
def test_pandas_type_of_each_type(t, expected):
    assert pandas_type(t) == expected


def test_label_to_string():
    assert label_to_string("a") == "a" and label_to_string(None) is None
    assert label_to_string(3) == "3" and label_to_string(b"x") == "x"
    assert label_to_string(("a", 1)) == "('a', '1')"
    assert label_to_string(float("nan")) is None
