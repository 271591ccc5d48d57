"""pqkit Tables through pyarrow, polars, DuckDB and pandas over the Arrow PyCapsule interface.

The oracle for what a consumer should see is the same data handed over by
pyarrow itself: ``arrow_bridge.to_arrow`` builds a pyarrow array from a pqkit
column's buffers without the capsules, so a consumer's view of a pqkit Table
must equal its view of that reference table (each consumer applies its own
type rules: DuckDB turns durations into intervals, polars date64 into
datetimes). Back into pqkit, ``Table.from_arrow(consumer_output)`` must equal
pyarrow's reading of the same output. Types a consumer refuses are left out of
its cases, by name below.
"""
import io

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_read_pyarrow_files import all_types_table

import pqkit
from arrow_bridge import same_values, to_arrow
from corpus import entries, path_of
from pqkit import datatypes as T
from pqkit.columnar.pyvalues import ValueRangeError
from pqkit.convert import table_from_data

pytestmark = pytest.mark.interop

# Column types a consumer cannot take at all (its error, not ours); for polars also
# parquet.interval, which it keeps as an extension type where the reference is binary.
POLARS_REFUSES = ("decimal256", "+05:30", "parquet.interval", "month_day_nano", "halffloat")
DUCKDB_REFUSES = ("halffloat", "month_day_nano", "decimal256")


def _reader_table():
    """The reader tests' table of every type, as pqkit reads it, and the types pyarrow does
    not write to Parquet (null, large_binary, month_day_nano, Parquet's INTERVAL)."""
    buf = io.BytesIO()
    pq.write_table(all_types_table(), buf)
    t = pqkit.read_table(buf.getvalue())
    n = t.num_rows
    extra = table_from_data({
        "null": [None] * n,
        "large_bin": [bytes([i % 7]) * (i % 4) if i % 5 else None for i in range(n)],
        "mdn": [T.MonthDayNano(i, -i, i * 1000) if i % 3 else None for i in range(n)],
        "interval": [bytes(range(i % 200, i % 200 + 12)) if i % 4 else None for i in range(n)],
    }, [T.Field("null", T.null()), T.Field("large_bin", T.large_binary()),
        T.Field("mdn", T.month_day_nano_interval()), T.Field("interval", T.interval())])
    for f, c in zip(extra.schema, extra.columns):
        t = t.append_column(f, c)
    return t


TABLE = _reader_table()


def _reference(t):
    """The pyarrow table of ``t`` built without the PyCapsule interface."""
    return pa.table([to_arrow(c) for c in t.columns],
                    schema=pa.schema([pa.field(f.name, to_arrow(c).type, f.nullable)
                                      for f, c in zip(t.schema, t.columns)]))


def _without(t, refused):
    keep = [f.name for f in t.schema if not any(r in str(f.type) for r in refused)]
    return t.select(keep)


def _same_arrays(got, want, name):
    """Equal Arrow arrays, NaN equal to NaN (``Array.equals`` says NaN != NaN)."""
    assert got.type == want.type, name
    if not got.equals(want):
        same_values(got.to_pylist(), want.to_pylist(), name)


def _same_tables(got, want):
    assert got.schema == want.schema
    for name in want.column_names:
        _same_arrays(got.column(name), want.column(name), name)


def _same_pydict(ours, theirs):
    assert list(ours) == list(theirs)
    for name in theirs:
        same_values(ours[name], theirs[name], name)


# --- pyarrow --------------------------------------------------------------------------------

def _check_pyarrow_round_trip(t):
    p = pa.table(t)
    p.validate(full=True)
    ref = _reference(t)
    for f in t.schema:
        _same_arrays(p.column(f.name).combine_chunks(), ref.column(f.name).combine_chunks(),
                     f.name)
    back = pqkit.Table.from_arrow(p)
    assert [str(f) for f in back.schema] == [str(f) for f in t.schema]
    assert back.equals(t)


def test_pyarrow_takes_every_type_of_the_reader_table():
    assert TABLE.num_columns == all_types_table().num_columns + 4
    _check_pyarrow_round_trip(TABLE)


def test_pyarrow_array_of_each_column():
    for f, col in zip(TABLE.schema, TABLE.columns):
        arr = pa.array(col)
        arr.validate(full=True)
        _same_arrays(arr, to_arrow(col), f.name)


def test_pyarrow_shares_the_buffers():
    p = pa.table(TABLE)

    def buffers(name):
        return p.column(name).chunk(0).buffers()

    assert buffers("iint64")[1].address == TABLE.column("iint64").values.ctypes.data
    assert buffers("f64")[1].address == TABLE.column("f64").values.ctypes.data
    assert buffers("str_high")[2].address == TABLE.column("str_high").data.ctypes.data
    large = TABLE.column("large_str")
    assert buffers("large_str")[1].address == large.offsets.ctypes.data
    assert buffers("large_str")[2].address == large.data.ctypes.data
    d = TABLE.column("dict")
    assert buffers("dict")[1].address == d.indices.ctypes.data
    dictionary = p.column("dict").chunk(0).dictionary
    assert dictionary.buffers()[2].address == d.dictionary.data.ctypes.data
    lst = TABLE.column("list")
    assert buffers("list")[3].address == lst.child.values.ctypes.data     # the child values
    assert buffers("large_list")[1].address == TABLE.column("large_list").offsets.ctypes.data


def test_pyarrow_buffers_come_in_shared():
    p = all_types_table().combine_chunks()
    t = pqkit.Table.from_arrow(p)

    def address(name, i):
        return p.column(name).chunk(0).buffers()[i].address

    assert t.column("iint64").values.ctypes.data == address("iint64", 1)
    assert t.column("str_high").data.ctypes.data == address("str_high", 2)
    assert t.column("large_str").offsets.ctypes.data == address("large_str", 1)
    assert t.column("dict").indices.ctypes.data == address("dict", 1)
    assert t.column("list").child.values.ctypes.data == address("list", 3)
    _same_pydict(t.to_pydict(), p.to_pydict())


def test_pyarrow_record_batch_reader_and_chunked_array():
    p = all_types_table()
    reader = pa.RecordBatchReader.from_batches(p.schema, p.to_batches(max_chunksize=64))
    t = pqkit.Table.from_arrow(reader)
    _same_pydict(t.to_pydict(), p.to_pydict())
    chunked = pa.chunked_array([pa.array([1, None]), pa.array([3])])
    col = pqkit.Table.from_arrow(chunked)
    assert col.to_pydict() == {"": [1, None, 3]}


# --- polars ----------------------------------------------------------------------------------

def test_polars_dataframe_of_a_table():
    t = _without(TABLE, POLARS_REFUSES)
    ours = pl.DataFrame(t)
    theirs = pl.DataFrame(_reference(t))
    _same_tables(ours.to_arrow(), theirs.to_arrow())
    assert pl.from_arrow(t).struct.unnest().equals(ours, null_equal=True)
    # numbers without nulls reach numpy through polars untouched
    assert ours["required"].to_numpy().ctypes.data == t.column("required").values.ctypes.data


def test_polars_dataframe_back_into_pqkit():
    df = pl.DataFrame(_reference(_without(TABLE, POLARS_REFUSES)))
    t = pqkit.Table.from_arrow(df)
    _same_pydict(t.to_pydict(), df.to_arrow().to_pydict())
    # polars hands strings over as views: pqkit makes them plain strings
    assert str(t.field("str_low").type) == "string"


def test_polars_round_trip_keeps_values():
    t = _without(TABLE, POLARS_REFUSES + ("date64", "uuid"))
    back = pqkit.Table.from_arrow(pl.DataFrame(t))
    _same_pydict(back.to_pydict(), t.to_pydict())


# --- DuckDB ---------------------------------------------------------------------------------

def test_duckdb_scans_a_table():
    t = _without(TABLE, DUCKDB_REFUSES)
    ref = _reference(t)     # noqa: F841 (DuckDB finds Python variables by name)
    ours = duckdb.sql("select * from t").to_arrow_table()
    theirs = duckdb.sql("select * from ref").to_arrow_table()
    _same_tables(ours, theirs)
    count = duckdb.sql("select count(*), sum(iint32) from t where bool").fetchall()
    assert count == duckdb.sql("select count(*), sum(iint32) from ref where bool").fetchall()


def test_duckdb_relation_into_pqkit():
    ref = _reference(_without(TABLE, DUCKDB_REFUSES))   # noqa: F841 (scanned by name)
    rel = duckdb.sql("select * from ref")
    t = pqkit.Table.from_arrow(rel)
    _same_pydict(t.to_pydict(), duckdb.sql("select * from ref").to_arrow_table().to_pydict())


def test_duckdb_round_trip_keeps_values():
    t = _without(TABLE, DUCKDB_REFUSES + ("duration", "tz=", "uuid"))
    back = pqkit.Table.from_arrow(duckdb.sql("select * from t"))
    _same_pydict(back.to_pydict(), t.to_pydict())


# --- pandas -----------------------------------------------------------------------------------

def test_pandas_from_arrow():
    t = TABLE.select(["iint64", "f64", "str_low", "ts_ms_utc", "bool"])
    ours = pd.DataFrame.from_arrow(t)
    pd.testing.assert_frame_equal(ours, pd.DataFrame.from_arrow(_reference(t)))


# --- the writer takes Arrow producers ------------------------------------------------------------

def test_write_table_takes_producers(tmp_path):
    df = pl.DataFrame({"a": [1, None, 3], "s": ["x", "y", None], "l": [[1], [], None]})
    pqkit.write_table(df, tmp_path / "polars.parquet")
    assert pl.read_parquet(tmp_path / "polars.parquet").equals(df, null_equal=True)
    pqkit.write_table(duckdb.sql("select 1 as x, 'a' as y"), tmp_path / "duck.parquet")
    assert pqkit.read_table(tmp_path / "duck.parquet").to_pydict() == {"x": [1], "y": ["a"]}
    p = all_types_table()
    pqkit.write_table(p, tmp_path / "arrow.parquet")
    _same_pydict(pqkit.read_table(tmp_path / "arrow.parquet").to_pydict(), p.to_pydict())


def test_parquet_writer_with_arrow_schema_and_batches(tmp_path):
    p = pa.table({"a": pa.array([1, 2, 3], pa.int32()), "s": ["x", None, "z"]})
    with pqkit.ParquetWriter(tmp_path / "w.parquet", p.schema) as w:
        for batch in p.to_batches(max_chunksize=2):
            w.write_batch(batch)
        w.write_table(p)
    assert pq.read_table(tmp_path / "w.parquet").equals(pa.concat_tables([p, p]))


# --- every corpus file pqkit reads ------------------------------------------------------------------

def _corpus_table(entry):
    # Two files carry wrong page CRCs on purpose (tests/interop/test_corpus_read.py).
    return pqkit.read_table(path_of(entry), verify_checksums="corrupt-checksum" not in
                            entry["path"])


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["readable"] and not e["encrypted"]))
def test_corpus_file_round_trips(corpus, entry):
    t = _corpus_table(entry)
    _check_pyarrow_round_trip(t)
    polars_part = _without(t, POLARS_REFUSES)
    if polars_part.num_columns:
        back = pqkit.Table.from_arrow(pl.DataFrame(polars_part))
        assert back.num_rows == t.num_rows
        want = pl.DataFrame(_reference(polars_part))
        try:
            _same_pydict(back.to_pydict(), want.to_arrow().to_pydict())
        except OverflowError:       # dates beyond Python's: compare inside polars
            assert pl.DataFrame(back).equals(want, null_equal=True)
    # DuckDB parses the data of extension types it knows (geoarrow.wkb) and refuses junk.
    duck_part = _without(t, DUCKDB_REFUSES)
    duck_part = duck_part.select([f.name for f in duck_part.schema
                                  if "ARROW:extension:name" not in (f.metadata or {})])
    if duck_part.num_columns and duck_part.num_rows:
        ref = _reference(duck_part)     # noqa: F841 (scanned by DuckDB by name)
        got = pqkit.Table.from_arrow(duckdb.sql("select * from duck_part"))
        want = duckdb.sql("select * from ref").to_arrow_table()
        try:
            _same_pydict(got.to_pydict(), want.to_pydict())
        except (OverflowError, ValueRangeError):    # instants beyond Python's: compare in Arrow
            assert pa.table(got).equals(want)


def test_shared_memory_survives_the_table(tmp_path):
    p = pa.table({"x": np.arange(100_000), "s": [f"v{i}" for i in range(100_000)]})
    pq.write_table(p, tmp_path / "f.parquet")
    t = pqkit.read_table(tmp_path / "f.parquet")
    df = pl.DataFrame(t)
    rel = duckdb.sql("select sum(x) as total from t")
    arrow = pa.table(t)
    del t
    junk = [np.full(10_000, -1, np.int64) for _ in range(100)]
    assert df["x"].sum() == 100_000 * 99_999 // 2
    assert rel.fetchall() == [(100_000 * 99_999 // 2,)]
    assert arrow.equals(p)
    del junk


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries())
def test_every_corpus_table_pqkit_reads_exports_as_valid_arrow(entry):
    """Export never hands a consumer an invalid array (text that is not UTF-8, offsets
    past their data, ...): pyarrow's full validation of every corpus table pqkit reads."""
    try:
        t = pqkit.read_table(path_of(entry))
    except pqkit.ParquetError:
        return        # a file pqkit refuses exports nothing; test_corpus_read checks why
    pa.table(t).validate(full=True)
