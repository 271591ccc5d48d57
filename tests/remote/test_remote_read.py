"""Reading and writing Parquet on a local S3 server: results and request counts.

Each test counts the requests the server saw during one operation (the
server's request log, see ``s3server.py``): a HEAD for the object's size,
GETs with a ``Range`` header for its bytes.
"""
import io
import math
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit.cli.main import main as pqinspect
from pqkit.read.fetch.page_index import read_page_index
from s3server import BUCKET

ROWS = 100_000


def _ranges(requests):
    """(offset, length) of each ranged GET."""
    out = []
    for r in requests:
        assert r.method == "GET" and r.range.startswith("bytes="), r
        a, b = r.range[6:].split("-")
        out.append((int(a), int(b) - int(a) + 1))
    return out


def _split(requests):
    heads = [r for r in requests if r.method == "HEAD"]
    gets = [r for r in requests if r.method == "GET"]
    assert len(heads) + len(gets) == len(requests), requests
    return heads, gets


@pytest.fixture(scope="module")
def fifty_groups(s3):
    """A 3-column file of 50 row groups with small pages and a page index, on S3 and
    in memory."""
    t = pa.table({"a": np.arange(ROWS), "b": np.arange(ROWS) * 2.0,
                  "s": [f"v{i}" for i in range(ROWS)]})
    buf = io.BytesIO()
    pq.write_table(t, buf, row_group_size=ROWS // 50, write_page_index=True,
                   data_page_size=1000)
    data = buf.getvalue()
    s3.boto3_client().put_object(Bucket=BUCKET, Key="fifty.parquet", Body=data)
    return f"s3://{BUCKET}/fifty.parquet", data, t


def _count(s3, op):
    mark = s3.log.mark()
    result = op()
    return result, s3.log.since(mark)


def test_read_metadata_is_one_get_of_the_tail(s3, s3fs_options, fifty_groups):
    url, data, _ = fifty_groups
    md, requests = _count(s3, lambda: pqkit.read_metadata(url, storage_options=s3fs_options))
    heads, gets = _split(requests)
    assert md.num_row_groups == 50 and md.num_rows == ROWS
    assert md.footer_length < 64 << 10
    assert len(gets) == 1 and len(heads) == 1
    assert _ranges(gets) == [(len(data) - (64 << 10), 64 << 10)]


def test_larger_footer_costs_a_second_get(s3, s3fs_options, fifty_groups):
    url, data, _ = fifty_groups
    md, requests = _count(s3, lambda: pqkit.read_metadata(
        url, storage_options=s3fs_options, tail_read=1024))
    _, gets = _split(requests)
    assert md.footer_length > 1024
    assert _ranges(gets) == [(len(data) - 1024, 1024), (md.footer_offset, md.footer_length)]


@pytest.fixture(scope="module")
def one_column(s3):
    """A one-column file of 50 row groups: its chunks lie back to back."""
    t = pa.table({"b": np.arange(ROWS) * 2.0})
    buf = io.BytesIO()
    pq.write_table(t, buf, row_group_size=ROWS // 50, compression="none")
    s3.boto3_client().put_object(Bucket=BUCKET, Key="one.parquet", Body=buf.getvalue())
    return f"s3://{BUCKET}/one.parquet", t


def _one_column_gets(s3, url, options, storage_options):
    with pqkit.ParquetFile(url, storage_options=storage_options, options=options) as f:
        selected = sum(n for _, n in f.plan(columns=["b"]))
        got, requests = _count(s3, lambda: f.read(columns=["b"]))
    return got, selected, _ranges(_split(requests)[1])


def test_one_column_of_fifty_row_groups(s3, s3fs_options, fifty_groups):
    """The b chunks of the 50 row groups lie less than the hole size (1 MiB) apart: after
    the tail GET made on open, one GET fetches all of them."""
    url, _, table = fifty_groups
    got, selected, gets = _one_column_gets(s3, url, pqkit.ReadOptions(), s3fs_options)
    assert got.to_pydict() == table.select(["b"]).to_pydict()
    assert 1 + len(gets) == 2 <= 1 + math.ceil(selected / (32 << 20))


@pytest.mark.parametrize("max_range", [200 << 10, 64 << 10])
def test_max_range_size_splits_requests(s3, s3fs_options, one_column, max_range):
    url, table = one_column
    options = pqkit.ReadOptions(max_range_size=max_range)
    got, selected, gets = _one_column_gets(s3, url, options, s3fs_options)
    assert got.to_pydict() == table.to_pydict()
    assert 1 + len(gets) <= 1 + math.ceil(selected / max_range)
    assert len(gets) > 1 and all(n <= max_range for _, n in gets)
    # chunks back to back: no hole is read (the last chunks came with the tail)
    assert sum(n for _, n in gets) <= selected


def test_holes_larger_than_the_hole_size_are_not_read(s3, s3fs_options, fifty_groups):
    url, _, table = fifty_groups
    options = pqkit.ReadOptions(hole_size=0)
    got, _, gets = _one_column_gets(s3, url, options, s3fs_options)
    assert got.to_pydict() == table.select(["b"]).to_pydict()
    with pqkit.ParquetFile(url, storage_options=s3fs_options) as f:
        chunks = set(f.plan(columns=["b"]))
    # one GET per chunk, exactly its bytes (the last chunk came with the tail)
    assert len(gets) >= 49 and set(gets) <= chunks


def test_one_column_read_table_gets(s3, s3fs_options, fifty_groups):
    url, _, table = fifty_groups
    got, requests = _count(s3, lambda: pqkit.read_table(url, columns=["b"],
                                                        storage_options=s3fs_options))
    _, gets = _split(requests)
    assert got.to_pydict() == table.select(["b"]).to_pydict()
    assert len(gets) == 2                     # the tail, then the 50 chunks in one range


def _needed_pages(data, value):
    """(offset, length) of the pages a point query on ``a == value`` must decode: per
    column, the dictionary page and the data page holding the row."""
    md = pqkit.read_metadata(data)
    g = value // (ROWS // 50)
    row = value % (ROWS // 50)
    out = []
    for col in (0, 2):
        _, oi = read_page_index(data, g, col)
        locs = oi.page_locations
        meta = md.column_chunk(g, col).meta_data
        out.append((meta.dictionary_page_offset, locs[0].offset - meta.dictionary_page_offset))
        i = max(k for k, loc in enumerate(locs) if loc.first_row_index <= row)
        out.append((locs[i].offset, locs[i].compressed_page_size))
    return sorted(out)


def test_point_query_fetches_only_its_pages(s3, s3fs_options, fifty_groups):
    url, data, _ = fifty_groups
    with pqkit.ParquetFile(url, storage_options=s3fs_options) as f:
        tail = f.metadata.file_size - (64 << 10)
        got, requests = _count(s3, lambda: f.read(columns=["a", "s"],
                                                  filters=[("a", "==", 77_777)]))
    assert got.to_pydict() == {"a": [77_777], "s": ["v77777"]}
    # the page GETs run concurrently, so the server sees them in any order
    fetched = sorted(r for r in _ranges(_split(requests)[1]) if r[0] < tail)
    assert fetched == _needed_pages(data, 77_777)       # the page index was in the tail
    assert sum(n for _, n in fetched) < 25_000          # of a 1.6 MB file


def test_plan_then_read_from_own_buffers(s3, s3fs_options, fifty_groups):
    url = fifty_groups[0]
    client = s3.boto3_client()
    with pqkit.ParquetFile(url, storage_options=s3fs_options) as f:
        plan = f.plan(columns=["s"], filters=[("a", ">=", 99_000)])
        assert plan and all(o >= 4 and o + n <= f.metadata.footer_offset for o, n in plan)
        buffers = {}
        for o, n in plan:
            body = client.get_object(Bucket=BUCKET, Key="fifty.parquet",
                                     Range=f"bytes={o}-{o + n - 1}")["Body"].read()
            buffers[o] = body
        got, requests = _count(s3, lambda: f.read(columns=["s"],
                                                  filters=[("a", ">=", 99_000)],
                                                  buffers=buffers))
        with pytest.raises(pqkit.ParquetError, match="not among the buffers"):
            f.read(columns=["b"], buffers=buffers)
    assert requests == []
    assert got.to_pydict() == {"s": [f"v{i}" for i in range(99_000, ROWS)]}


def test_write_table_to_s3_and_read_back(s3, s3fs_options, s3_fs):
    url = f"s3://{BUCKET}/written/{uuid.uuid4().hex}.parquet"
    data = {"x": list(range(1000)), "y": [f"r{i}" for i in range(1000)]}
    pqkit.write_table(data, url, storage_options=s3fs_options, row_group_size=300)
    back = pq.read_table(url.removeprefix("s3://"), filesystem=s3.pyarrow_fs())
    assert back.to_pydict() == data
    assert pqkit.read_table(url, storage_options=s3fs_options).to_pydict() == data
    assert pqkit.read_table(url.removeprefix("s3://"), filesystem=s3_fs).num_rows == 1000


def test_failed_writer_leaves_no_object(s3, s3fs_options, s3_fs):
    key = f"{BUCKET}/failed/{uuid.uuid4().hex}.parquet"
    table = pqkit.Table.from_arrow(pa.table({"x": list(range(10))}))
    with pytest.raises(RuntimeError), pqkit.ParquetWriter(f"s3://{key}", table.schema,
                             storage_options=s3fs_options) as w:
        w.write(table)
        raise RuntimeError("stop")
    assert not s3_fs.exists(key)


def test_storage_options_refused_for_a_local_path(tmp_path):
    pqkit.write_table({"x": [1]}, tmp_path / "a.parquet")
    with pytest.raises(ValueError, match="storage_options apply to URLs only"):
        pqkit.read_table(str(tmp_path / "a.parquet"), storage_options={"anon": True})


def test_pqinspect_schema_is_one_get(s3, fifty_groups, monkeypatch, capsys):
    url, _, _ = fifty_groups
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for command, shows in (("schema", '"a"'), ("meta", '"num_row_groups": 50')):
        code, requests = _count(s3, lambda c=command: pqinspect([c, "--json", url]))
        out = capsys.readouterr().out
        heads, gets = _split(requests)
        assert code == 0 and shows in out
        assert len(gets) == 1 and len(heads) == 1, (command, requests)
