"""pqkit.read.fetch.page_index: reading ColumnIndex/OffsetIndex and mapping rows to pages.

The page indexes are written by pyarrow; their contents are checked against
the data written (each page's bounds are the values of its rows) and against
the page headers the locations point at.
"""
import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
from pqkit import CorruptFileError, ThriftDecodeError
from pqkit import format as fmt
from pqkit.read.fetch.page_index import (
    PageIndex,
    index_location,
    page_row_ranges,
    pages_for_rows,
    read_column_index,
    read_offset_index,
    read_page_index,
)
from pqkit.read.fetch.source import Source

ROWS = 10_000


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A file with several row groups of many small pages, an int64 and a nullable string."""
    path = tmp_path_factory.mktemp("pageindex") / "indexed.parquet"
    table = pa.table({
        "a": pa.array(range(ROWS), pa.int64()),
        "s": pa.array([None if i % 7 == 0 else f"v{i:05d}" for i in range(ROWS)]),
    })
    pq.write_table(table, path, row_group_size=4000, write_page_index=True,
                   data_page_size=512, write_batch_size=50, use_dictionary=["s"],
                   compression="snappy")
    return str(path)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    path = tmp_path_factory.mktemp("pageindex") / "plain.parquet"
    pq.write_table(pa.table({"a": list(range(100))}), path, write_page_index=False)
    return str(path)


def test_pyarrow_page_index_matches_the_data(indexed):
    md = pqkit.read_metadata(indexed)
    theirs = pq.ParquetFile(indexed).metadata
    first_row = 0
    for g in range(md.num_row_groups):
        num_rows = md.row_group(g).num_rows
        assert theirs.row_group(g).column(0).has_offset_index
        ci, oi = read_page_index(indexed, g, "a", metadata=md)
        ranges = page_row_ranges(oi, num_rows)
        assert len(ranges) > 5
        assert ranges[0][0] == 0 and ranges[-1][1] == num_rows
        assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))
        assert len(ci.null_pages) == len(ranges) and not any(ci.null_pages)
        for (lo, hi), mn, mx in zip(ranges, ci.min_values, ci.max_values):
            assert struct.unpack("<q", mn)[0] == first_row + lo
            assert struct.unpack("<q", mx)[0] == first_row + hi - 1
        assert ci.boundary_order == fmt.BoundaryOrder.ASCENDING
        first_row += num_rows
    assert first_row == ROWS


def test_string_column_null_counts_and_bounds(indexed):
    md = pqkit.read_metadata(indexed)
    ci, oi = read_page_index(indexed, 1, ("s",), metadata=md)
    ranges = page_row_ranges(oi, md.row_group(1).num_rows)
    base = md.row_group(0).num_rows
    for (lo, hi), nulls, mn, mx in zip(ranges, ci.null_counts, ci.min_values, ci.max_values):
        values = [None if i % 7 == 0 else f"v{i:05d}" for i in range(base + lo, base + hi)]
        present = [v for v in values if v is not None]
        assert nulls == len(values) - len(present)
        assert mn.decode() == min(present) and mx.decode() == max(present)


def test_locations_point_at_data_page_headers(indexed):
    md = pqkit.read_metadata(indexed)
    data = open(indexed, "rb").read()
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            cmd = md.row_group(g).thrift.columns[c].meta_data
            _, oi = read_page_index(indexed, g, c)
            locs = oi.page_locations
            assert locs[0].offset == cmd.data_page_offset
            for loc in locs:
                header, used = fmt.decode(fmt.PageHeader, data, loc.offset,
                                          len(data) - loc.offset)
                assert header.type == fmt.PageType.DATA_PAGE
                assert used + header.compressed_page_size == loc.compressed_page_size
            chunk_start = min(o for o in (cmd.dictionary_page_offset, cmd.data_page_offset)
                              if o is not None)
            assert locs[-1].offset + locs[-1].compressed_page_size == \
                chunk_start + cmd.total_compressed_size


def test_sources_and_column_keys(indexed):
    expected = read_page_index(indexed, 0, 1)
    assert isinstance(expected, PageIndex)
    raw = open(indexed, "rb").read()
    with open(indexed, "rb") as f:
        assert read_page_index(f, 0, "s") == expected
    assert read_page_index(raw, 0, ("s",)) == expected
    assert read_page_index(io.BytesIO(raw), 0, "s") == expected
    with Source(indexed) as src:
        assert read_page_index(src, 0, "s") == expected
        assert src.read(0, 4) == b"PAR1"          # a Source passed in is left open
    with pytest.raises(IndexError):
        read_page_index(indexed, 7, 0)
    with pytest.raises(KeyError):
        read_page_index(indexed, 0, "nope")


def test_absent_index_is_none(plain):
    assert read_page_index(plain, 0, 0) == (None, None)


def _bad_metadata(path, **fields):
    md = pqkit.read_metadata(path)
    chunk = md.row_group(1).thrift.columns[0]
    for name, value in fields.items():
        setattr(chunk, name, value)
    return md


@pytest.mark.parametrize("fields, message", [
    ({"offset_index_offset": 10**9}, "offset 1000000000"),
    ({"offset_index_offset": 2}, "offset 2 "),
    ({"offset_index_length": None}, "has length None"),
    ({"offset_index_length": -5}, "has length -5"),
    ({"column_index_length": 10**6}, "lies outside"),
])
def test_location_outside_the_data(indexed, fields, message):
    md = _bad_metadata(indexed, **fields)
    with pytest.raises(CorruptFileError, match=message) as exc:
        read_page_index(indexed, 1, 0, metadata=md)
    assert "column a, row group 1" in str(exc.value)


def test_index_running_into_the_footer(indexed):
    md = pqkit.read_metadata(indexed)
    chunk = md.row_group(1).thrift.columns[0]
    chunk.offset_index_offset = md.footer_offset - 3
    chunk.offset_index_length = 10
    with pytest.raises(CorruptFileError, match=f"offset {md.footer_offset - 3}"):
        read_page_index(indexed, 1, "a", metadata=md)


def test_index_offset_at_page_bytes(indexed):
    """Pointing the OffsetIndex at a data page: the Thrift does not decode as one."""
    md = pqkit.read_metadata(indexed)
    chunk = md.row_group(0).thrift.columns[0]
    chunk.offset_index_offset = chunk.meta_data.data_page_offset + 20
    chunk.offset_index_length = 40
    with pytest.raises(CorruptFileError, match="column a, row group 0") as exc:
        read_page_index(indexed, 0, 0, metadata=md)
    assert f"offset {chunk.offset_index_offset}" in str(exc.value)


def test_column_index_of_another_chunk(indexed):
    """A ColumnIndex whose page count differs from the OffsetIndex is rejected."""
    md = pqkit.read_metadata(indexed)
    a, s = md.row_group(0).thrift.columns
    _, oi_a = read_page_index(indexed, 0, 0, metadata=md)
    _, oi_s = read_page_index(indexed, 0, 1, metadata=md)
    assert len(oi_a.page_locations) != len(oi_s.page_locations)
    a.column_index_offset, a.column_index_length = s.column_index_offset, s.column_index_length
    with pytest.raises(CorruptFileError, match="ColumnIndex of column a, row group 0 at offset"):
        read_page_index(indexed, 0, 0, metadata=md)


def _source_with(struct_obj):
    """A Source holding PAR1 + the encoded struct, and a chunk pointing at it."""
    enc = fmt.encode(struct_obj)
    buf = b"PAR1" + enc
    return Source(buf), len(buf), len(enc)


@pytest.mark.parametrize("locations, message", [
    ([(4, 10, 0), (10, 10, 5)], "overlaps the previous page"),
    ([(4, 0, 0)], "with 0 bytes"),
    ([(4, 10, 0), (20, 10**6, 5)], "outside"),
])
def test_bad_page_locations(locations, message):
    oi = fmt.OffsetIndex(page_locations=[
        fmt.PageLocation(offset=o, compressed_page_size=n, first_row_index=r)
        for o, n, r in locations])
    src, size, n = _source_with(oi)
    chunk = fmt.ColumnChunk(offset_index_offset=4, offset_index_length=n)
    with pytest.raises(CorruptFileError, match=message):
        read_offset_index(src, chunk, 10**5 if "outside" not in message else size, "column x")


def test_missing_fields_and_truncated_thrift():
    oi = fmt.OffsetIndex(page_locations=[fmt.PageLocation(offset=4, compressed_page_size=5)])
    src, size, n = _source_with(oi)
    chunk = fmt.ColumnChunk(offset_index_offset=4, offset_index_length=n)
    with pytest.raises(CorruptFileError, match="lacks a required field"):
        read_offset_index(src, chunk, size, "column x")
    chunk.offset_index_length = n - 2
    with pytest.raises(ThriftDecodeError, match="OffsetIndex of column x at offset 4"):
        read_offset_index(src, chunk, size, "column x")
    ci = fmt.ColumnIndex(null_pages=[False, True], min_values=[b"a"], max_values=[b"b", b""],
                         boundary_order=0)
    src, size, n = _source_with(ci)
    chunk = fmt.ColumnChunk(column_index_offset=4, column_index_length=n)
    with pytest.raises(CorruptFileError, match="1 min_values for 2 pages"):
        read_column_index(src, chunk, size, "column x")
    ci.min_values, ci.boundary_order = [b"a", b""], None
    src, size, n = _source_with(ci)
    chunk.column_index_length = n
    with pytest.raises(CorruptFileError, match="lacks the required field boundary_order"):
        read_column_index(src, chunk, size, "column x")


def test_index_location():
    chunk = fmt.ColumnChunk(column_index_offset=100, column_index_length=20)
    assert index_location(chunk, "column_index", 120, "c") == (100, 20)
    assert index_location(chunk, "offset_index", 120, "c") is None
    with pytest.raises(CorruptFileError, match="ColumnIndex of c at offset 100"):
        index_location(chunk, "column_index", 119, "c")
    with pytest.raises(ValueError):
        index_location(chunk, "bloom", 120, "c")


def _oi(firsts):
    return fmt.OffsetIndex(page_locations=[
        fmt.PageLocation(offset=4 + 10 * i, compressed_page_size=10, first_row_index=f)
        for i, f in enumerate(firsts)])


def test_row_ranges_and_pages_for_rows():
    oi = _oi([0, 100, 200])
    assert page_row_ranges(oi, 250) == [(0, 100), (100, 200), (200, 250)]
    assert pages_for_rows(oi, 250, 150, 210) == [1, 2]
    assert pages_for_rows(oi, 250, 0, 1) == [0]
    assert pages_for_rows(oi, 250, 99, 101) == [0, 1]
    assert pages_for_rows(oi, 250, 100, 200) == [1]
    assert pages_for_rows(oi, 250, 249, 10**9) == [2]
    assert pages_for_rows(oi, 250, 250, 300) == []
    assert pages_for_rows(oi, 250, 5, 5) == []
    assert page_row_ranges(_oi([]), 0) == []
    assert pages_for_rows(_oi([]), 0, 0, 10) == []
    with pytest.raises(ValueError):
        pages_for_rows(oi, 250, -1, 5)


@pytest.mark.parametrize("firsts, num_rows, message", [
    ([5, 100], 200, "starts at row 5, not 0"),
    ([0, 100, 50], 200, "spans rows 100 to 50"),
    ([0, 300], 200, "outside the row group's 200 rows"),
])
def test_bad_row_numbers(firsts, num_rows, message):
    with pytest.raises(CorruptFileError, match=message):
        page_row_ranges(_oi(firsts), num_rows, "column a, row group 0")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 20), max_size=12), st.integers(0, 20),
       st.integers(0, 300), st.integers(0, 300))
def test_pages_for_rows_matches_brute_force(steps, tail, start, stop):
    firsts, row = [], 0
    for step in steps:
        firsts.append(row)
        row += step
    num_rows = row + tail
    ranges = page_row_ranges(_oi(firsts), num_rows)
    expected = [i for i, (a, b) in enumerate(ranges) if max(a, start) < min(b, stop)]
    assert pages_for_rows(_oi(firsts), num_rows, start, stop) == expected
    covered = sorted(r for a, b in ranges for r in range(a, b))
    assert covered == list(range(num_rows)) if firsts else covered == []


def test_pages_for_rows_on_a_pyarrow_file(indexed):
    md = pqkit.read_metadata(indexed)
    _, oi = read_page_index(indexed, 0, "a", metadata=md)
    n = md.row_group(0).num_rows
    ranges = page_row_ranges(oi, n)
    for start, stop in [(0, n), (123, 124), (1000, 2500), (n - 1, n)]:
        pages = pages_for_rows(oi, n, start, stop)
        assert ranges[pages[0]][0] <= start and ranges[pages[-1]][1] >= stop
        assert pages == list(range(pages[0], pages[-1] + 1))


def test_page_locations_moved_into_the_next_chunk_are_refused_on_every_road(tmp_path):
    """Locations shifted, all together, into the next column's chunk still increase and
    lie in the file; they are refused where the index is read, so that a filtered read
    or iter_batches (which probe dictionaries and pages through it) never reads another
    column's bytes as this one's (issue 31, class 1/2)."""
    from verify_files import edit_index
    path = tmp_path / "two.parquet"
    pqkit.write_table({"a": [f"a{i % 5}" for i in range(1000)],
                       "b": [f"b{i % 7}" for i in range(1000)]}, str(path),
                      compression="none", data_page_size=256)
    columns = pqkit.read_metadata(str(path)).row_group(0).thrift.columns
    shift = columns[1].meta_data.data_page_offset - columns[0].meta_data.data_page_offset

    def lie(oi):
        for loc in oi.page_locations:
            loc.offset += shift
    bad = edit_index(str(path), tmp_path / "bad.parquet", 0, "offset_index", lie)
    md = pqkit.read_metadata(bad)
    with pytest.raises(CorruptFileError, match=r"OffsetIndex of column a, row group 0 at "
                                               r"offset \d+: page 0 at offset \d+ with \d+ "
                                               r"bytes lies outside the column chunk"):
        read_page_index(bad, 0, 0, metadata=md)
    f = pqkit.ParquetFile(bad)
    roads = [lambda: pqkit.read_table(bad, filters=[("a", "==", "a3")]),
             lambda: list(f.iter_batches(filters=[("a", "==", "a3")])),
             lambda: f.take([0, 999])]
    for road in roads:
        with pytest.raises(CorruptFileError, match="lies outside the column chunk"):
            road()
    # A plain read does not use the index: it reads every row as written.
    assert pqkit.read_table(bad).column("a").to_pylist()[:6] == \
        ["a0", "a1", "a2", "a3", "a4", "a0"]
