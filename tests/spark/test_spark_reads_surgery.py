"""Spark reads what pqkit's file surgery makes, value-equal to pyarrow (issue 18's Spark
sample): footers rewritten by ``edit_metadata``, files saved by ``recover``, the files
``take`` reads rows from, and the results of ``concat`` and ``append``.

Each kind is one Spark read over all its files (``input_file_name()`` tells them
apart), so the whole module costs five Spark jobs. parquet-java has no brotli
codec, so the files use the other codecs.
"""
import os
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

import pqkit
from interop.test_surgery import complete_row_groups
from spark_helpers import canonical_rows, canonical_values

pytestmark = pytest.mark.interop

ROWS = 3000
SPARK_CODECS = ["none", "snappy", "gzip", "zstd", "lz4_raw"]


def _table(start, n, seed):
    """Nested rows with nulls at every level: ids start..start+n."""
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 1000, n)
    return pa.table({
        "id": pa.array(range(start, start + n), pa.int64()),
        "name": pa.array([None if x % 7 == 0 else f"name{x % 101}" for x in v]),
        "tags": pa.array([None if x % 9 == 0 else [int(x) + j for j in range(x % 4)]
                          for x in v], pa.list_(pa.int64())),
        "point": pa.array([None if x % 11 == 0 else {"x": x * 0.5, "y": None if x % 3 else
                           int(x)} for x in v],
                          pa.struct([("x", pa.float64()), ("y", pa.int32())])),
        "attrs": pa.array([[(f"k{j}", int(x) * j) for j in range(x % 3)] for x in v],
                          pa.map_(pa.string(), pa.int64())),
        "amount": pa.array([None if x % 13 == 0 else Decimal(int(x) * 7).scaleb(-2)
                            for x in v], pa.decimal128(9, 2)),
    })


def _write(table, path, **options):
    pqkit.write_table(pqkit.Table.from_arrow(table), path, **options)
    return str(path)


def _arrow_rows(path):
    """pyarrow's rows of ``path`` shaped as Spark gives them (maps as dicts), each with
    the file's name."""
    rows = pq.read_table(path).to_pylist()
    for r in rows:
        r["attrs"] = dict(r["attrs"]) if r["attrs"] is not None else None
        r["file"] = os.path.basename(path)
    return rows


def _spark_rows(spark, paths):
    """Spark's rows of all ``paths`` in one read, each with its file's name."""
    frame = spark.read.parquet(*paths).withColumn(
        "file", F.element_at(F.split(F.input_file_name(), "/"), -1))
    return frame.collect()


def _spark_equals_pyarrow(spark, paths):
    got = canonical_rows(_spark_rows(spark, paths))
    want = canonical_values(r for p in paths for r in _arrow_rows(p))
    assert len(got) == sum(pq.ParquetFile(p).metadata.num_rows for p in paths)
    assert got == want


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("spark_reads_surgery")


def test_spark_reads_edited_footers(spark, root):
    paths = []
    for i, codec in enumerate(["zstd", "snappy"]):
        path = _write(_table(i * ROWS, ROWS, i), root / f"edit{i}.parquet", compression=codec,
                      row_group_size=1000)
        paths.append(path)
    pqkit.edit_metadata(paths[0], key_value_metadata={"owner": "spark-test", "empty": ""},
                        column_orders="type_defined")
    moved = str(root / "edit_dest.parquet")
    pqkit.edit_metadata(paths[1], key_value_metadata=None, created_by="edited by pqkit",
                        dest=moved)
    assert pq.read_metadata(paths[0]).metadata[b"owner"] == b"spark-test"
    assert pq.read_metadata(moved).created_by == "edited by pqkit"
    _spark_equals_pyarrow(spark, [paths[0], moved])


def test_spark_reads_recovered_files(spark, root):
    """Files of pqkit and pyarrow cut inside their fourth row group: three come back."""
    paths = []
    for writer in ("pqkit", "pyarrow"):
        whole = root / f"whole_{writer}.parquet"
        table = _table(0, ROWS, 7)
        if writer == "pqkit":
            _write(table, whole, row_group_size=500, data_page_size=2048, compression="gzip")
        else:
            pq.write_table(table, whole, row_group_size=500, data_page_size=2048,
                           compression="snappy")
        md = pq.ParquetFile(whole).metadata
        col = md.row_group(3).column(0)
        cut = (col.dictionary_page_offset if col.has_dictionary_page
               else col.data_page_offset) + 10
        (root / f"cut_{writer}.parquet").write_bytes(whole.read_bytes()[:cut])
        out = str(root / f"recovered_{writer}.parquet")
        result = pqkit.recover(root / f"cut_{writer}.parquet", out, schema_from=whole)
        assert complete_row_groups(whole, cut) == [500, 500, 500]
        assert (result.row_groups, result.num_rows) == (3, 1500)
        assert pq.read_table(out).equals(pq.read_table(whole).slice(0, 1500))
        paths.append(out)
    _spark_equals_pyarrow(spark, paths)


def test_spark_reads_the_files_take_reads_and_agrees_on_the_rows(spark, root):
    """Small pages with a page index under each codec Spark has; the rows pqkit's take
    gives are those Spark finds by id."""
    paths, taken = [], []
    picks = np.random.default_rng(18).integers(0, ROWS, 10)
    for i, codec in enumerate(SPARK_CODECS):
        path = _write(_table(i * ROWS, ROWS, 20 + i), root / f"take_{codec}.parquet",
                      compression=codec, row_group_size=1000, data_page_size=512,
                      data_page_version="2.0" if i % 2 else "1.0")
        paths.append(path)
        with pqkit.ParquetFile(path) as f:
            got = pa.table(f.take(picks))
        assert got.equals(pq.read_table(path).take(pa.array(picks)))
        taken += [dict(r, file=os.path.basename(path)) for r in got.to_pylist()]
    spark_rows = _spark_rows(spark, paths)
    want = canonical_values(r for p in paths for r in _arrow_rows(p))
    assert canonical_rows(spark_rows) == want
    ids = {r["id"] for r in taken}
    for r in taken:
        r["attrs"] = dict(r["attrs"])
    assert canonical_rows(r for r in spark_rows if r["id"] in ids) == canonical_values(taken)


def test_spark_reads_concat_and_append_results(spark, root):
    sources = []
    for i, codec in enumerate(["snappy", "zstd", "lz4_raw"]):
        sources.append(_write(_table(i * ROWS, ROWS, 40 + i), root / f"part{i}.parquet",
                              compression=codec, row_group_size=700, use_dictionary=i != 1,
                              bloom_filter_columns=["id"]))
    plain = str(root / "concat.parquet")
    pqkit.concat(sources, plain)
    merged = str(root / "concat_merged.parquet")
    same_codec = []
    for i in range(3):
        same_codec.append(_write(_table(i * 400, 400, 50 + i), root / f"small{i}.parquet",
                                 compression="zstd", row_group_size=200,
                                 use_dictionary=False))
    result = pqkit.concat(same_codec, merged, row_group_size=1200)
    assert (result.row_groups_in, result.row_groups_out) == (6, 1)

    appended = str(root / "appended.parquet")
    _write(_table(0, ROWS, 60), appended, compression="gzip", row_group_size=1000)
    pqkit.append(appended, pqkit.Table.from_arrow(_table(ROWS, 1200, 61)),
                 compression="snappy", row_group_size=500)
    assert pq.ParquetFile(appended).metadata.num_rows == ROWS + 1200

    got = canonical_rows(_spark_rows(spark, [plain, merged, appended]))
    assert got == canonical_values(r for p in (plain, merged, appended)
                                   for r in _arrow_rows(p))
    # and the results hold the sources' rows
    for out, parts in ((plain, sources), (merged, same_codec)):
        assert pq.read_table(out).equals(pa.concat_tables(pq.read_table(p) for p in parts))
