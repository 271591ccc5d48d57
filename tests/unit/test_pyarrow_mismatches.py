"""Issue 15, item 5: what a new user coming from pyarrow tried, each compared with
pyarrow 26 doing the same thing (its result, or that it raises)."""
import datetime
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.errors import ParquetError, SchemaError

ROWS = {
    "id": [1, 2, 3, None, 5],
    "city": ["a", "b", None, "c", "a"],
    "st": [{"a": 1, "b": {"c": 2, "d": 3}}, None, {"a": 3, "b": None},
           {"a": 4, "b": {"c": None, "d": 6}}, {"a": 5, "b": {"c": 7, "d": 8}}],
    "m": [[("k", 1)], [], None, [("x", 2), ("y", 3)], [("k", 4)]],
}
ARROW = pa.table({"id": ROWS["id"], "city": ROWS["city"], "st": ROWS["st"],
                  "m": pa.array(ROWS["m"], pa.map_(pa.string(), pa.int64()))})


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("mismatch") / "t.parquet"
    pq.write_table(ARROW, p, row_group_size=2)       # three row groups
    return p


# --- reading ---------------------------------------------------------------------------------

def test_no_columns_gives_rows_without_columns(path):
    theirs = pq.read_table(path, columns=[])
    ours = pqkit.read_table(path, columns=[])
    assert (ours.num_rows, ours.num_columns) == (theirs.num_rows, theirs.num_columns) == (5, 0)
    assert ours.slice(1, 4).num_rows == 3
    assert ours.take([0, 0]).num_rows == 2
    assert pqkit.read_table(path).select([]).num_rows == 5
    assert pa.table(ours).num_rows == 5          # the Arrow export keeps the row count
    with pqkit.ParquetFile(path) as f:
        assert f.read(columns=[]).shape == (5, 0)
        assert f.read(columns=[], filters=[("id", ">", 2)]).num_rows == 2


@pytest.mark.parametrize("filters", [
    [("id", "==", "abc")], [("city", "in", [5])], [("id", "<", "5")],
    [("city", "not in", ["a", 1])], [("id", "==", True)],
])
def test_filter_value_of_the_wrong_kind_raises(path, filters):
    with pytest.raises((pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowInvalid)):
        pq.read_table(path, filters=filters)
    with pytest.raises(SchemaError, match="the column holds"):
        pqkit.read_table(path, filters=filters)


def test_filter_numbers_compare_across_int_and_float(path):
    for filters in ([("id", ">", 2.5)], [("id", "in", [np.int64(1), 5.0])]):
        assert pqkit.read_table(path, filters=filters).to_pydict()["id"] == \
            pq.read_table(path, filters=filters).to_pydict()["id"]


@pytest.mark.parametrize("filters", [
    [("city", "not in", ["a"])], [("id", "not in", [1, 2])], [("city", "!=", "a")],
    [("id", "not in", [1]), ("city", "!=", "b")], [[("id", "not in", [5])], [("id", "==", 5)]],
])
def test_not_in_keeps_nulls_as_pyarrow(path, filters):
    theirs = pq.read_table(path, filters=filters, columns=["id", "city"]).to_pydict()
    ours = pqkit.read_table(path, filters=filters, columns=["id", "city"]).to_pydict()
    assert ours == theirs


def test_dataset_planning_agrees_on_nulls():
    from pqkit.dataset.core.planning import ColumnBounds, term_holds
    assert term_holds(None, "not in", ["a"]) and not term_holds(None, "in", ["a"])
    assert not term_holds(None, "!=", "a")
    bounds = ColumnBounds(T.string())
    all_null = {"nulls": 4}
    assert bounds.may_match(all_null, 4, "not in", ["a"])
    assert not bounds.may_match(all_null, 4, "!=", "a")


def test_not_in_keeps_a_page_of_nulls_only(tmp_path):
    # The page index says the second page holds nulls only: `not in` must still read it.
    p = tmp_path / "nulls.parquet"
    pqkit.write_table({"x": [1, 2, 3] + [None] * 3}, p, data_page_size=1, row_group_size=3)
    got = pqkit.read_table(p, filters=[("x", "not in", [1])]).to_pydict()["x"]
    assert got == pq.read_table(p, filters=[("x", "not in", [1])]).to_pydict()["x"]
    assert got == [2, 3, None, None, None]


def test_struct_path_gives_a_top_level_column(path):
    for columns in (["st.b.c"], ["st.b"], ["st.b.c", "id", "st.a"], ["city", "id"]):
        theirs = pq.read_table(path, columns=columns)
        ours = pqkit.read_table(path, columns=columns)
        assert ours.column_names == theirs.column_names
        assert ours.to_pydict() == theirs.to_pydict()
    assert pqkit.read_table(path, columns=["st.b.c"]).schema[0].type == T.int64()
    # ParquetFile.read keeps the pruned struct, as pyarrow's ParquetFile.read does.
    with pqkit.ParquetFile(path) as f:
        ours = f.read(columns=["st.b.c"]).to_pydict()
    assert ours == pq.ParquetFile(path).read(columns=["st.b.c"]).to_pydict()


def _dictionary_inside(type_):
    if isinstance(type_, T.DictionaryType):
        return True
    return type_.is_nested and any(_dictionary_inside(f.type) for f in type_.fields)


def test_map_key_by_path_is_not_dictionary_typed(path):
    # pyarrow 26 cannot select inside a map; pqkit gives the map's key_value entries
    # pruned to the key, typed as the file's keys (string), not a dictionary of them.
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(path, columns=["m.key_value.key"])
    whole = pqkit.read_table(path, columns=["m"]).column("m")
    assert whole.type.key_type == T.string()
    with pqkit.ParquetFile(path) as f:
        pruned = [f.read(columns=["m.key_value.key"]).column("m"),
                  pqkit.read_table(path, columns=["m.key_value.key"]).column("m")]
    for col in pruned:
        assert not _dictionary_inside(col.type), col.type
        assert col.type.value_type.fields[0].type == T.string()
        assert [None if r is None else [e["key"] for e in r] for r in col.to_pylist()] == \
            [None if r is None else [k for k, _ in r] for r in ROWS["m"]]


# --- writing ---------------------------------------------------------------------------------

def test_unknown_column_in_column_encoding_raises_like_bloom_filter_columns():
    # pyarrow 26 ignores both silently; pqkit refuses a name that selects nothing,
    # so that a typo does not leave a column with the default encoding unnoticed.
    data = {"a": [1, 2]}
    for option in ({"column_encoding": {"no_such_column": "PLAIN"}},
                   {"bloom_filter_columns": ["no_such_column"]}):
        with pytest.raises(SchemaError, match="names no column.*no_such_column"):
            pqkit.write_table(data, io.BytesIO(), **option)
    pqkit.write_table(data, out := io.BytesIO(), column_encoding={"a": "PLAIN"})
    out.seek(0)
    assert pq.read_metadata(out).row_group(0).column(0).encodings == ("PLAIN", "RLE")


def test_unknown_compression_is_a_value_error():
    with pytest.raises(pa.ArrowException, match="bogus"):
        pq.write_table(pa.table({"a": [1]}), io.BytesIO(), compression="bogus")
    with pytest.raises(ValueError, match="bogus") as info:
        pqkit.write_table({"a": [1]}, io.BytesIO(), compression="bogus")
    assert isinstance(info.value, ParquetError)
    with pytest.raises(SchemaError, match="expected one of"):
        pqkit.compression.codec_from_name("bogus")


VERSIONED = pa.table({
    "u32": pa.array([1, 4_000_000_000], pa.uint32()),
    "ns": pa.array([1_000, 2_000], pa.timestamp("ns", "UTC")),
    "u8": pa.array([1, 2], pa.uint8()),
    "lns": pa.array([[1_000], None], pa.list_(pa.timestamp("ns"))),
})


@pytest.mark.parametrize("version", ["1.0", "2.4", "2.6"])
def test_version_chooses_logical_types_as_pyarrow(version):
    theirs, ours = io.BytesIO(), io.BytesIO()
    pq.write_table(VERSIONED, theirs, version=version)
    pqkit.write_table(VERSIONED, ours, version=version)
    for store in (ours, theirs):
        store.seek(0)
    t_meta, o_meta = pq.read_metadata(theirs), pq.read_metadata(ours)
    assert o_meta.format_version == t_meta.format_version
    for i in range(t_meta.num_columns):
        t_col, o_col = t_meta.schema.column(i), o_meta.schema.column(i)
        assert o_col.physical_type == t_col.physical_type
        ours_lt, theirs_lt = str(o_col.logical_type), str(t_col.logical_type)
        # pqkit annotates every int64 as INT(64, signed); pyarrow leaves it bare
        assert ours_lt == theirs_lt or (theirs_lt, ours_lt) == \
            ("None", "Int(bitWidth=64, isSigned=true)")
    theirs.seek(0)
    ours.seek(0)
    assert pq.read_table(ours).schema == pq.read_table(theirs).schema
    assert pq.read_table(ours).to_pydict() == pq.read_table(theirs).to_pydict()
    ours.seek(0)
    assert pqkit.read_table(ours).to_pydict() == pq.read_table(theirs).to_pydict()


def test_version_refuses_lossy_timestamps_and_unknown_values():
    lossy = pa.table({"ns": pa.array([1_001], pa.timestamp("ns"))})
    with pytest.raises(pa.ArrowInvalid):
        pq.write_table(lossy, io.BytesIO(), version="2.4")
    with pytest.raises(SchemaError, match="1001 ns"):
        pqkit.write_table(lossy, io.BytesIO(), version="2.4")
    pqkit.write_table(lossy, out := io.BytesIO(), version="2.6")
    out.seek(0)
    assert pqkit.read_table(out).column("ns").values.tolist() == [1_001]
    for bad in ("3.0", 2):
        with pytest.raises(ValueError):
            pq.write_table(lossy, io.BytesIO(), version=bad)
        with pytest.raises(SchemaError, match="format version"):
            pqkit.write_table(lossy, io.BytesIO(), version=bad)


def test_version_in_parquet_writer():
    out = io.BytesIO()
    with pqkit.ParquetWriter(out, VERSIONED.schema, version="1.0") as w:
        w.write(VERSIONED)
        w.write_table(VERSIONED)
    out.seek(0)
    back = pqkit.read_table(out)
    assert back.schema[0].type == T.int64()
    assert back.column("u32").to_pylist() == [1, 4_000_000_000] * 2
    assert back.column("ns").to_pylist()[0] == \
        datetime.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=datetime.timezone.utc)
