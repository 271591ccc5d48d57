"""Issue 15, item 3: ``ParquetFile.iter_batches`` gives pyarrow's batch sizes across row
groups, and a file reader is a lazy Arrow stream that DuckDB, polars and pyarrow scan
through pqkit batch by batch with memory bounded by about one row group."""
import gc
import tracemalloc

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit.memory import release_buffer_cache
from pqkit.columnar.table import concat_tables
from pqkit.errors import SchemaError

pytestmark = pytest.mark.interop

GROUP_ROWS = 25_000
GROUPS = 6
N = GROUP_ROWS * GROUPS


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    rng = np.random.default_rng(15)
    data = {
        "id": np.arange(N, dtype=np.int64),
        "x": rng.standard_normal(N),
        "s": [None if i % 11 == 0 else f"row-{i % 977}" for i in range(N)],
        "l": [[i, i + 1] if i % 3 else None for i in range(N)],
    }
    p = tmp_path_factory.mktemp("stream") / "groups.parquet"
    pqkit.write_table(data, p, row_group_size=GROUP_ROWS)
    return p


@pytest.mark.parametrize("batch_size", [7_000, GROUP_ROWS, 40_000, 1_000_000])
def test_batch_sizes_cross_row_groups_as_pyarrow(path, batch_size):
    with pqkit.ParquetFile(path) as f:
        assert f.num_row_groups == GROUPS
        batches = list(f.iter_batches(batch_size=batch_size))
        whole = f.read()
    theirs = [b.num_rows for b in pq.ParquetFile(path).iter_batches(batch_size=batch_size)]
    assert [b.num_rows for b in batches] == theirs
    assert all(b.num_rows == batch_size for b in batches[:-1])
    assert sum(b.num_rows for b in batches) == N
    assert concat_tables(batches).equals(whole)


def test_batches_of_columns_row_groups_and_filters(path):
    # row groups 1 and 3 hold ids 25000..49999 and 75000..99999; the filter keeps
    # all of the first and 5000 rows of the second
    filters = [("id", "<", 80_000)]
    with pqkit.ParquetFile(path) as f:
        batches = list(f.iter_batches(batch_size=12_000, columns=["id", "s"],
                                      row_groups=[1, 3], filters=filters))
        assert [b.num_rows for b in batches] == [12_000, 12_000, 6_000]
        assert all(b.column_names == ["id", "s"] for b in batches)
        ids = np.concatenate([b.column("id").values for b in batches])
        assert np.array_equal(ids, np.r_[25_000:50_000, 75_000:80_000])
        assert list(f.iter_batches(filters=[("id", ">", N)])) == []
        assert f.iter_batches(filters=[("id", ">", N)]).read_all().shape == (0, 4)
        with pytest.raises(ValueError):
            f.iter_batches(batch_size=0)


def test_batches_without_columns(path):
    with pqkit.ParquetFile(path) as f:
        sizes = [b.shape for b in f.iter_batches(batch_size=40_000, columns=[])]
    assert sizes == [(40_000, 0)] * 3 + [(30_000, 0)]


def test_duckdb_polars_pyarrow_scan_the_reader(path):
    expected = pqkit.read_table(path)
    with pqkit.ParquetFile(path) as reader:  # noqa: F841 (DuckDB scans it by name)
        count = duckdb.sql("select count(*), sum(id), count(s) from reader").fetchall()[0]
    ids = expected.column("id").values
    assert count == (N, int(ids.sum()), N - expected.column("s").null_count)

    with pqkit.ParquetFile(path) as f:
        batches = f.iter_batches(batch_size=30_000)  # noqa: F841 (scanned by name)
        rel = duckdb.sql("select * from batches order by id")
        assert pqkit.Table.from_arrow(rel.arrow()).to_pydict() == expected.to_pydict()

    with pqkit.ParquetFile(path) as f:
        frame = pl.DataFrame(f.iter_batches(batch_size=30_000))
    assert frame.height == N
    assert frame["s"].to_list() == expected.column("s").to_pylist()
    assert frame["l"].to_list() == expected.column("l").to_pylist()

    with pqkit.ParquetFile(path) as f:
        assert pl.DataFrame(f).equals(pl.from_arrow(pq.read_table(path)))
        assert pa.table(f).to_batches()[0].num_rows == GROUP_ROWS   # a batch per row group

    with pqkit.ParquetFile(path) as f:
        stream = pa.RecordBatchReader.from_stream(f.iter_batches(batch_size=50_000))
        sizes = [b.num_rows for b in stream]
    assert sizes == [50_000] * 3


def test_a_reader_is_one_stream(path):
    with pqkit.ParquetFile(path) as f:
        batches = f.iter_batches()
        next(batches)
        with pytest.raises(SchemaError, match="already"):
            batches.__arrow_c_stream__()


def test_a_stream_outliving_its_file_fails_cleanly(path):
    with pqkit.ParquetFile(path) as f:
        stream = pa.RecordBatchReader.from_stream(f.iter_batches(batch_size=GROUP_ROWS))
        assert stream.read_next_batch().num_rows == GROUP_ROWS
    with pytest.raises(OSError, match="was closed"):
        stream.read_next_batch()


def _peak(run):
    gc.collect()
    # Start every measurement from an empty buffer cache: what earlier tests in this
    # process left cached would otherwise shift one run's peak and not another's.
    release_buffer_cache()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_streaming_memory_is_about_one_row_group(path):
    # The unit: the peak of decoding one row group on its own (chunk bytes, levels,
    # values). While the next row group decodes, the consumer still holds the batch
    # before it, so a stream may peak near two of them, never near the whole file.
    def one_group():
        with pqkit.ParquetFile(path) as f:
            assert f.read_row_group(2).num_rows == GROUP_ROWS

    def drain_batches():
        with pqkit.ParquetFile(path) as f:
            for batch in f.iter_batches(batch_size=9_000):
                assert batch.num_rows

    def duckdb_count():
        with pqkit.ParquetFile(path) as reader:  # noqa: F841 (scanned by name)
            assert duckdb.sql("select count(*) from reader").fetchall() == [(N,)]

    def whole_read():
        assert pqkit.read_table(path).num_rows == N

    group, whole = _peak(one_group), _peak(whole_read)
    assert whole > 5 * group
    for run in (drain_batches, duckdb_count):
        peak = _peak(run)
        assert peak < 2.5 * group, (run.__name__, peak, group)
        assert peak < whole / 3, (run.__name__, peak, whole)


def test_dictionary_columns_stream_across_row_groups(tmp_path):
    # pyarrow records the dictionary type; each row group has its own dictionary, so a
    # batch spanning two holds both (appended), and the stream's type never changes.
    p = tmp_path / "dict.parquet"
    words = pa.array([f"w{i % 7}" if i % 5 else None for i in range(1_000)]).dictionary_encode()
    pq.write_table(pa.table({"w": words, "i": range(1_000)}), p, row_group_size=300)
    with pqkit.ParquetFile(p) as f:
        batches = list(f.iter_batches(batch_size=450))
        assert [b.num_rows for b in batches] == [450, 450, 100]
        assert all(isinstance(b.schema[0].type, pqkit.datatypes.DictionaryType)
                   for b in batches)
        frame = pl.DataFrame(f.iter_batches(batch_size=450))
        count = duckdb.sql("select count(w), count(distinct w) from f").fetchall()
    assert frame["w"].to_list() == words.to_pylist()
    assert count == [(800, 7)]


def test_dictionary_type_of_plain_chunks_is_kept(tmp_path):
    # Written without dictionary pages, the column's recorded type is still a dictionary:
    # every row group and the empty read (the stream's schema) agree on it, as pyarrow.
    p = tmp_path / "plain.parquet"
    words = pa.array([f"w{i % 3}" for i in range(100)]).dictionary_encode()
    pq.write_table(pa.table({"w": words}), p, row_group_size=40, use_dictionary=False)
    with pqkit.ParquetFile(p) as f:
        types = {str(b.schema[0].type) for b in f.iter_batches(batch_size=30)}
        assert types == {str(f.read().schema[0].type)}
        assert isinstance(f.read().schema[0].type, pqkit.datatypes.DictionaryType)
        assert pa.table(f).column("w").to_pylist() == words.to_pylist()
        assert pa.table(f).schema == pq.read_table(p).schema
