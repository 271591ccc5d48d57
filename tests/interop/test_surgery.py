"""File surgery against pyarrow and DuckDB: concat, append, edit_metadata and recover on
random nested tables under every codec; copied pages byte for byte; verify --deep clean."""
import random

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from arrow_bridge import same_values
from interop.test_read_pyarrow_files import tables
from pqkit.inspect.verify import verify_file

pytestmark = pytest.mark.interop

CODECS = ["none", "snappy", "gzip", "zstd", "lz4_raw", "brotli"]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def _write(table, path, **options):
    pqkit.write_table(pqkit.Table.from_arrow(table), path, **options)
    return path


def _chunk_bytes(path):
    """{(row group, column): the chunk's bytes} read through pyarrow's metadata."""
    md = pq.ParquetFile(path).metadata
    data = open(path, "rb").read()
    out = []
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            start = col.dictionary_page_offset if col.has_dictionary_page \
                else col.data_page_offset
            out.append(data[start:start + col.total_compressed_size])
    return out


def _clean(path):
    report = verify_file(str(path), deep=True)
    errors = [f for f in report.findings if f.severity == "error"]
    assert report.exit_code == 0, errors


def _duck(paths):
    """DuckDB's rows of the files, or its error: DuckDB refuses some valid data (a map
    with repeated keys), and must then refuse the sources and the result alike."""
    listed = ", ".join(f"'{p}'" for p in paths)
    try:
        return sorted(map(repr, duckdb.sql(f"select * from read_parquet([{listed}])")
                          .fetchall()))
    except duckdb.InvalidInputException as exc:
        return str(exc)


def _column_bytes(path):
    """Per leaf column, its chunks' bytes joined over the row groups: equal before and
    after concat whether or not row groups were merged."""
    chunks = _chunk_bytes(path)
    n = pq.ParquetFile(path).metadata.num_columns
    return [b"".join(chunks[c::n]) for c in range(n)]


@SETTINGS
@given(table=tables(), cuts=st.lists(st.integers(0, 40), max_size=2),
       codecs=st.lists(st.sampled_from(CODECS), min_size=3, max_size=3),
       row_group_size=st.integers(1, 15), page_size=st.sampled_from([64, 1 << 20]),
       dictionary=st.booleans(), merge_to=st.sampled_from([None, 10, 1000]))
def test_concat_random_tables(tmp_path_factory, table, cuts, codecs, row_group_size,
                              page_size, dictionary, merge_to):
    tmp = tmp_path_factory.mktemp("concat")
    table = table.append_column("key", pa.array(range(table.num_rows), pa.int64()))
    bounds = sorted({0, table.num_rows, *[min(c, table.num_rows) for c in cuts]})
    parts = [table.slice(a, b - a) for a, b in zip(bounds, bounds[1:])] or [table]
    sources = [_write(p, tmp / f"s{i}.parquet", compression=codecs[i % 3],
                      row_group_size=row_group_size, data_page_size=page_size,
                      bloom_filter_columns=["key"], use_dictionary=dictionary)
               for i, p in enumerate(parts)]
    result = pqkit.concat(sources, tmp / "out.parquet", row_group_size=merge_to)
    out = tmp / "out.parquet"
    assert result.num_rows == table.num_rows
    got = pq.read_table(out)
    want = pa.concat_tables([pq.read_table(s) for s in sources])
    assert got.schema.equals(want.schema, check_metadata=True)
    same_values(got.to_pydict(), want.to_pydict())      # NaN equals NaN here, not in equals()
    same_values(got.to_pydict(), table.to_pydict())
    assert _duck([out]) == _duck(sources)
    if merge_to is None:
        assert _chunk_bytes(out) == [b for s in sources for b in _chunk_bytes(s)]
    else:
        joined = [_column_bytes(s) for s in sources]
        assert _column_bytes(out) == [b"".join(c) for c in zip(*joined)]
        if not dictionary and len(set(codecs)) == 1:
            assert result.merges_refused == []
    _clean(out)


@SETTINGS
@given(table=tables(), codec=st.sampled_from(CODECS))
def test_append_random_tables(tmp_path_factory, table, codec):
    tmp = tmp_path_factory.mktemp("append")
    head, tail = table.slice(0, table.num_rows // 2), table.slice(table.num_rows // 2)
    path = _write(head, tmp / "a.parquet", compression=codec, row_group_size=7)
    before = open(path, "rb").read()
    rows = pqkit.append(path, pqkit.Table.from_arrow(tail), compression=codec,
                        row_group_size=5)
    assert rows == table.num_rows
    same_values(pq.read_table(path).to_pydict(), table.to_pydict())
    assert open(path, "rb").read()[:len(before)] == before      # no old byte moved
    assert duckdb.sql(f"select count(*) from '{path}'").fetchall()[0][0] == table.num_rows
    _clean(path)


@SETTINGS
@given(table=tables(), codec=st.sampled_from(CODECS),
       kv=st.dictionaries(st.text(min_size=1, max_size=5), st.text(max_size=5), max_size=3))
def test_edit_metadata_random_tables(tmp_path_factory, table, codec, kv):
    tmp = tmp_path_factory.mktemp("edit")
    path = _write(table, tmp / "e.parquet", compression=codec, row_group_size=9)
    pages = _chunk_bytes(path)
    keep = pqkit.read_metadata(path).key_value_metadata
    pqkit.edit_metadata(path, key_value_metadata={**keep, **kv}, created_by="edited by test")
    md = pq.ParquetFile(path).metadata
    assert md.created_by == "edited by test"
    assert {k.decode(): v.decode() for k, v in md.metadata.items()} == {**keep, **kv}
    same_values(pq.read_table(path).to_pydict(), table.to_pydict())
    assert _chunk_bytes(path) == pages
    pqkit.edit_metadata(path, key_value_metadata=None, dest=tmp / "copy.parquet")
    assert pq.ParquetFile(tmp / "copy.parquet").metadata.metadata is None
    assert _chunk_bytes(tmp / "copy.parquet") == pages
    _clean(path)
    _clean(tmp / "copy.parquet")


@SETTINGS
@given(table=tables(), codec=st.sampled_from(CODECS), dictionary=st.booleans(),
       fraction=st.floats(0, 1))
def test_recover_random_tables(tmp_path_factory, table, codec, dictionary, fraction):
    tmp = tmp_path_factory.mktemp("recover")
    path = _write(table, tmp / "r.parquet", compression=codec, row_group_size=6,
                  use_dictionary=dictionary)
    data = open(path, "rb").read()
    cut = 4 + int(fraction * (len(data) - 4))
    (tmp / "cut.parquet").write_bytes(data[:cut])
    result = pqkit.recover(tmp / "cut.parquet", tmp / "out.parquet", schema_from=path)
    complete = complete_row_groups(path, cut)
    assert result.row_groups == len(complete)
    rows = sum(complete)
    same_values(pq.read_table(tmp / "out.parquet").to_pydict(), table.slice(0, rows).to_pydict())
    assert result.num_rows == rows


def complete_row_groups(path, cut):
    """Row counts of the row groups whose chunks all end at or before ``cut``."""
    md = pq.ParquetFile(path).metadata
    out = []
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        ends = []
        for c in range(md.num_columns):
            col = rg.column(c)
            start = col.dictionary_page_offset if col.has_dictionary_page \
                else col.data_page_offset
            ends.append(start + col.total_compressed_size)
        if max(ends) > cut:
            break
        out.append(rg.num_rows)
    return out


NESTED = pa.table({
    "id": pa.array(range(3000), pa.int64()),
    "name": pa.array([None if i % 7 == 0 else f"name{i % 101}" for i in range(3000)]),
    "tags": pa.array([[f"t{j}" for j in range(i % 4)] if i % 9 else None
                      for i in range(3000)]),
    "point": pa.array([{"x": i * 0.5, "y": None if i % 3 else i} for i in range(3000)]),
})


@pytest.mark.parametrize("writer", ["pqkit", "pyarrow"])
def test_recover_at_100_random_cuts(tmp_path, writer):
    path = tmp_path / "source.parquet"
    if writer == "pqkit":
        _write(NESTED, path, row_group_size=300, data_page_size=2048)
    else:
        pq.write_table(NESTED, path, row_group_size=300, data_page_size=2048,
                       compression="snappy")
    data = path.read_bytes()
    rng = random.Random(18)
    found = []
    for cut in sorted(rng.sample(range(4, len(data) + 1), 100)):
        (tmp_path / "cut.parquet").write_bytes(data[:cut])
        result = pqkit.recover(tmp_path / "cut.parquet", tmp_path / "out.parquet",
                               schema_from=path)
        complete = complete_row_groups(path, cut)
        rows = sum(complete)
        assert (result.row_groups, result.num_rows) == (len(complete), rows), cut
        assert pq.read_table(tmp_path / "out.parquet").equals(NESTED.slice(0, rows)), cut
        found.append(result.row_groups)
    assert found[-1] == 10 and found[0] <= 1          # the cuts span the whole file


def test_recover_of_an_intact_file_is_the_file(tmp_path):
    path = _write(NESTED, tmp_path / "whole.parquet", row_group_size=1000)
    result = pqkit.recover(path, tmp_path / "out.parquet")
    assert (result.row_groups, result.num_rows, result.pages_lost) == (3, 3000, 0)
    assert pq.read_table(tmp_path / "out.parquet").equals(NESTED)
    assert _chunk_bytes(tmp_path / "out.parquet") == _chunk_bytes(path)
    _clean(tmp_path / "out.parquet")


def test_concat_of_pyarrow_files_keeps_their_page_index(tmp_path):
    sources = []
    for i in range(3):
        part = NESTED.slice(i * 1000, 1000)
        sources.append(tmp_path / f"p{i}.parquet")
        pq.write_table(part, sources[-1], row_group_size=400, write_page_index=True)
    pqkit.concat(sources, tmp_path / "out.parquet")
    out = pq.ParquetFile(tmp_path / "out.parquet")
    assert out.metadata.num_row_groups == 9
    assert out.read().equals(NESTED)
    assert all(out.metadata.row_group(g).column(c).has_offset_index
               for g in range(9) for c in range(out.metadata.num_columns))
    _clean(tmp_path / "out.parquet")
    hit = duckdb.sql(f"select name from '{tmp_path / 'out.parquet'}' where id = 2500").fetchall()
    assert hit == [("name" + str(2500 % 101),)]
