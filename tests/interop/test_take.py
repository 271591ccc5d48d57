"""Issue 18: ``ParquetFile.take`` decodes only the pages holding the rows asked for
(counted), and its rows equal pyarrow's ``Table.take``."""
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit.read.decode.chunk import ChunkData
from pqkit.read.decode.records import keep_records
from pqkit.read.decode.row_group import RowGroupReader
from pqkit.read.column_selection import select_columns
from pqkit.read.decode.values import FixedValues

pytestmark = pytest.mark.interop

BIG = 10_000_000


@pytest.fixture(scope="session")
def big_file(tmp_path_factory):
    """10M rows, page index, 64 KiB pages: an int64, an int32 and a dictionary string."""
    rng = np.random.default_rng(18)
    ids = pa.array(np.arange(BIG, dtype=np.int64))
    codes = pc.cast(pa.array(np.arange(BIG) % 5000), pa.string())
    table = pa.table({"id": ids,
                      "x": pa.array(rng.integers(0, 1000, BIG).astype(np.int32)),
                      "s": pc.binary_join_element_wise("c", codes, "")})
    path = tmp_path_factory.mktemp("take") / "big.parquet"
    pq.write_table(table, path, row_group_size=2_000_000, data_page_size=64 * 1024,
                   write_page_index=True, compression="snappy")
    return path


class Counting:
    """Counts the data pages fetched through RowGroupReader.read_pages and the chunks
    decoded whole through decode_leaf, per leaf path."""

    def __init__(self, monkeypatch):
        self.pages, self.chunks = {}, {}
        read_pages, decode_leaf = RowGroupReader.read_pages, RowGroupReader.decode_leaf
        counter = self

        def pages(self, g, node, segments, **how):
            data = read_pages(self, g, node, segments, **how)
            dict_off = self.column_chunk(g, node).meta_data.dictionary_page_offset
            fetched = [s for s in segments if s[0] != dict_off]
            counter.pages[node.dotted_path] = counter.pages.get(node.dotted_path, 0) + \
                len(fetched)
            return data

        def chunk(self, g, node):
            counter.chunks[node.dotted_path] = counter.chunks.get(node.dotted_path, 0) + 1
            return decode_leaf(self, g, node)

        monkeypatch.setattr(RowGroupReader, "read_pages", pages)
        monkeypatch.setattr(RowGroupReader, "decode_leaf", chunk)


def test_ten_rows_of_ten_million_read_at_most_ten_pages_per_column(big_file, monkeypatch):
    rows = np.random.default_rng(7).integers(0, BIG, 10)
    count = Counting(monkeypatch)
    with pqkit.ParquetFile(big_file) as f:
        got = f.take(rows)
    assert count.chunks == {}
    assert set(count.pages) == {"id", "x", "s"}
    assert all(1 <= n <= 10 for n in count.pages.values()), count.pages
    assert got.column("id").to_pylist() == rows.tolist()
    assert got.to_pydict() == pq.read_table(big_file).take(rows).to_pydict()


def test_rows_in_one_page_read_one_page(big_file, monkeypatch):
    count = Counting(monkeypatch)
    with pqkit.ParquetFile(big_file) as f:
        got = f.take([5_000_001, 5_000_000, 5_000_001], columns=["s", "id"])
    assert count.pages == {"id": 1, "s": 1}
    assert got.to_pydict() == {"s": ["c1", "c0", "c1"],
                               "id": [5_000_001, 5_000_000, 5_000_001]}


def _nested_table(rng, n):
    ints = rng.integers(-50, 50, n)
    return pa.table({
        "i": pa.array([None if k % 7 == 0 else int(v) for k, v in enumerate(ints)], pa.int64()),
        "s": pa.array([f"v{v % 37}" if v % 5 else None for v in ints]),
        "l": pa.array([None if v % 4 == 0 else list(range(int(v) % 6)) for v in ints],
                      pa.list_(pa.int32())),
        "st": pa.array([{"a": int(v), "b": [str(v)] * (int(v) % 3)} if v % 9 else None
                        for v in ints]),
        "m": pa.array([[(str(v), int(v))] * (int(v) % 3) for v in ints],
                      pa.map_(pa.string(), pa.int64())),
    })


# Codec as pqkit names it -> as pyarrow does ("lz4" is LZ4_RAW there), and its enum value.
CODECS = {"none": ("none", 0), "snappy": ("snappy", 1), "gzip": ("gzip", 2),
          "zstd": ("zstd", 6), "lz4_raw": ("lz4", 7), "brotli": ("brotli", 4)}


# Every codec with each writer, a few random tables each (pages of both versions
# among them): about 50 small files in all.
@pytest.mark.parametrize("writer", ["pyarrow", "pqkit"])
@pytest.mark.parametrize("codec", list(CODECS))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), page_size=st.sampled_from([64, 300, 4096]),
       v2=st.booleans(), columns=st.sampled_from([None, ["st"], ["m", "i"], ["l", "s"]]))
def test_nested_tables_equal_pyarrow_take(tmp_path, codec, writer, seed, page_size, v2,
                                          columns):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    table = _nested_table(rng, n)
    path = tmp_path / f"nested-{seed}.parquet"
    version = "2.0" if v2 else "1.0"
    arrow_name, codec_id = CODECS[codec]
    if writer == "pyarrow":
        pq.write_table(table, path, row_group_size=max(n // 3, 1), data_page_size=page_size,
                       write_page_index=True, data_page_version=version,
                       compression=arrow_name)
    else:
        pqkit.write_table(table, path, row_group_size=max(n // 3, 1),
                          data_page_size=page_size, data_page_version=version,
                          compression=codec)
    rows = rng.integers(0, n, int(rng.integers(0, 25)))
    with pqkit.ParquetFile(path) as f:
        assert {c.meta_data.codec for rg in f.metadata.raw.row_groups
                for c in rg.columns} == {codec_id}
        stats = pqkit.ReadStatistics()
        got = f.take(rows, columns, statistics=stats)
        _, wanted = select_columns(f.schema, columns)
    want = pq.read_table(path, columns=columns).take(pa.array(rows, pa.int64()))
    assert got.to_pydict() == want.to_pydict()
    if len(rows):
        # every chunk has an OffsetIndex: a chunk is decoded whole only when each of
        # its pages holds a row asked for, so each leaf decodes at most one page per
        # distinct row (records spanning pages are not written with a page index)
        assert stats.pages_decoded <= len(wanted) * len(set(rows.tolist()))
        assert stats.chunks_paged > 0 or stats.pages_skipped == 0


def test_without_page_index_whole_chunks_are_read(tmp_path, monkeypatch):
    table = _nested_table(np.random.default_rng(3), 2000)
    path = tmp_path / "noindex.parquet"
    pq.write_table(table, path, row_group_size=500, data_page_size=256,
                   write_page_index=False)
    count = Counting(monkeypatch)
    rows = [1999, 3, 3, 1200]
    got = pqkit.ParquetFile(path).take(rows, columns=["i", "st"])
    assert count.pages == {}
    assert count.chunks == {"i": 3, "st.a": 3, "st.b.list.element": 3}
    assert got.to_pydict() == pq.read_table(path, columns=["i", "st"]).take(rows).to_pydict()


def test_bad_row_numbers(big_file):
    with pqkit.ParquetFile(big_file) as f:
        with pytest.raises(IndexError, match=f"row {BIG} out of range: the file has {BIG}"):
            f.take([0, BIG])
        with pytest.raises(IndexError, match="row -1 out of range"):
            f.take([-1])
        with pytest.raises(TypeError, match="sequence of ints"):
            f.take([1.5])
        empty = f.take([], columns=["x"])
    assert empty.num_rows == 0
    assert empty.column_names == ["x"]


def test_keep_records_of_the_module_example():
    chunk = ChunkData(np.array([2, 2, 1, 2, 2], np.int16), np.array([0, 1, 0, 0, 1], np.int16),
                      5, FixedValues(np.array([10, 11, 12, 13])))
    kept = keep_records(chunk, np.array([1, 2]), 2, "column r")
    assert kept.rep_levels.tolist() == [0, 0, 1] and kept.def_levels.tolist() == [1, 2, 2]
    assert kept.num_entries == 3 and kept.values.array.tolist() == [12, 13]
    with pytest.raises(pqkit.CorruptFileError, match="hold 3 records, but the OffsetIndex "
                                                     "puts record 3"):
        keep_records(chunk, np.array([3]), 2, "column r")
