"""Portability (§3.1, §3.2, §3.7): the root is a plain Hive directory pyarrow and DuckDB read.

Partition values ``/ = % : ? # space é + null`` must come back identical from
pqkit and from ``pyarrow.dataset.dataset(root, partitioning="hive")``; ``""`` is
refused. The derived files (``_common_metadata``, ``_metadata``, ``_SUCCESS``) are
checked with pyarrow's own readers.
"""
import datetime
import decimal
import json
import os

import duckdb
import pyarrow as pa
import pyarrow.dataset as pa_ds
import pyarrow.parquet as pq
import pytest
from dshelpers import pyarrow_rows, pyarrow_rows_untyped, row_set

import pqkit.dataset as pds
import pqkit.datatypes as T
from pqkit import SchemaError
from pqkit.dataset.pqds.paths import RootPaths

SPECIAL = ["a/b", "k=v", "50%", "12:30", "why?", "#1", "two words", "é", "a+b", None,
           "%2F", "__x", ".hidden", "<tag>|", "back\\slash", "日本"]


def test_special_partition_values_read_the_same_in_pyarrow(tmp_path):
    root = str(tmp_path / "ds")
    n = len(SPECIAL)
    pds.write(root, {"k": SPECIAL, "v": list(range(n))}, partition_by=["k"])
    ds = pds.open(root)
    ours = row_set(ds.read(), ["k", "v"])
    assert ours == row_set({"k": SPECIAL, "v": list(range(n))}, ["k", "v"])
    assert pyarrow_rows_untyped(root, ["k", "v"]) == ours
    for value in SPECIAL:
        got = ds.read(filters=[("k", "==", value)] if value is not None
                      else [("k", "is_null", True)]).to_pydict()
        assert got["k"] == [value]


def test_empty_string_partition_is_refused(tmp_path):
    root = str(tmp_path / "ds")
    with pytest.raises(SchemaError, match="empty string"):
        pds.write(root, {"k": ["a", ""], "v": [1, 2]}, partition_by=["k"])
    assert not os.path.exists(RootPaths(root).versions_dir) or \
        os.listdir(RootPaths(root).versions_dir) == []
    pds.write(root, {"k": ["a", ""], "v": [1, 2]}, partition_by=["k"], empty_string_as_null=True)
    assert row_set(pds.open(root).read()) == row_set({"k": ["a", None], "v": [1, 2]})
    assert pyarrow_rows_untyped(root, ["k", "v"]) == row_set({"k": ["a", None], "v": [1, 2]},
                                                             ["k", "v"])
    with pytest.raises(SchemaError, match="empty string"):
        pds.stage_file(root, {"v": [3]}, {"k": ""})


def test_typed_partitions_read_the_same_in_pyarrow(tmp_path):
    root = str(tmp_path / "ds")
    data = {"i": [-5, 2 ** 40, None], "b": [True, False, True],
            "d": [datetime.date(2024, 2, 29), datetime.date(1969, 12, 31), None],
            "m": [decimal.Decimal("-1.50"), decimal.Decimal("2.25"), decimal.Decimal("0.00")],
            "v": ["x", "y", "z"]}
    schema = [T.field("i", T.int64()), T.field("b", T.bool_()), T.field("d", T.date32()),
              T.field("m", T.decimal(9, 2)), T.field("v", T.string())]
    pds.write(root, data, schema=schema, partition_by=["i", "b", "d", "m"])
    ds = pds.open(root)
    assert [str(f.type) for f in ds.schema] == ["string", "int64", "bool", "date32[day]",
                                                "decimal128(9, 2)"]
    assert row_set(ds.read(), sorted(data)) == row_set(data)
    assert pyarrow_rows(root, sorted(data)) == row_set({**data, "m": ["-1.50", "2.25", "0.00"]})
    assert ds.read(filters=[("m", "<", decimal.Decimal("0"))]).to_pydict()["v"] == ["x"]


def test_float_and_timestamp_partitions(tmp_path):
    root = str(tmp_path / "ds")
    ts = datetime.datetime(2024, 1, 31, 12, 30, 5, tzinfo=datetime.timezone.utc)
    pds.write(root, {"f": [1.5, -0.0, float("inf")], "t": [ts, ts, None], "v": [1, 2, 3]},
              partition_by=["f", "t"])
    ds = pds.open(root)
    paths = sorted(f.path.rsplit("/", 1)[0] for f in ds.files())
    assert paths[0] == "f=0.0/t=2024-01-31 12%3A30%3A05"
    got = row_set(ds.read(), ["f", "t", "v"])
    assert got == row_set({"f": [1.5, 0.0, float("inf")], "t": [ts, ts, None],
                           "v": [1, 2, 3]}, ["f", "t", "v"])
    table = pa_ds.dataset(root, partitioning="hive").to_table()
    assert sorted(table.column("v").to_pylist()) == [1, 2, 3]


def test_common_metadata_is_a_footer_only_parquet_file(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a"], "id": [1], "name": ["x"]}, partition_by=["p"])
    path = RootPaths(root).common_metadata
    md = pq.read_metadata(path)
    assert md.num_row_groups == 0 and md.num_rows == 0
    schema = pq.read_schema(path)
    assert schema.names == ["id", "name"]                   # no partition column
    assert schema.field("id").metadata[b"PARQUET:field_id"] == b"1"
    info = json.loads(md.metadata[b"pqds.dataset"])
    assert info["version"] == 0 and info["partitioning"]["columns"][0]["name"] == "p"


def test_success_marker_is_rfc_compatible_json(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1, 2]}, run_id="airflow:sales:3")
    marker = json.load(open(RootPaths(root).success))
    assert marker["version"] == 0 and marker["row_count"] == 2 and marker["file_count"] == 1
    assert marker["run_id"] == "airflow:sales:3"
    assert marker["schema_hash"] == pds.open(root).manifest.schema.sha256()
    assert marker["manifest"] == "_pqkit/versions/_00000000000000000000.json"
    assert json.load(open(RootPaths(root).latest_hint)) == {"version": 0}


def test_summary_metadata_when_enabled(tmp_path):
    root = str(tmp_path / "ds")
    props = {"summary.metadata": "always"}
    pds.write(root, {"p": ["a", "b"], "x": [1, 2]}, partition_by=["p"], properties=props)
    pds.write(root, {"p": ["c"], "x": [3]})
    summary = RootPaths(root).summary_metadata
    md = pq.read_metadata(summary)
    assert md.num_row_groups == 3 and md.num_rows == 3
    dataset = pa_ds.parquet_dataset(summary, partitioning="hive")
    assert sorted(dataset.to_table().column("x").to_pylist()) == [1, 2, 3]
    # Files with different schemas: _metadata is suppressed (pyarrow's rule).
    pds.write(root, {"p": ["d"], "x": [4], "y": ["new"]}, evolve_schema=True)
    assert not os.path.exists(summary)


def test_summary_metadata_is_off_by_default(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    assert not os.path.exists(RootPaths(root).summary_metadata)


def test_overwrite_retires_files_from_the_visible_tree(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a", "b"], "x": [1, 2]}, partition_by=["p"])
    pds.write(root, {"p": ["c"], "x": [3]}, mode="overwrite")
    assert pyarrow_rows(root, ["p", "x"]) == [("c", 3)]
    assert pds.open(root, version=0).count() == 2           # still in shadow


def test_duckdb_reads_the_visible_tree(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a", "b", "b"], "x": [1, 2, 3]}, partition_by=["p"])
    rows = duckdb.sql(f"select p, x from read_parquet('{root}/*/*.parquet', "
                      "hive_partitioning=true) order by x").fetchall()
    assert rows == [("a", 1), ("b", 2), ("b", 3)]


def test_pyarrow_written_files_round_trip_through_the_dataset(tmp_path):
    table = pa.table({"a": pa.array([1, 2], pa.int32()), "s": ["x", None]})
    src = tmp_path / "in.parquet"
    pq.write_table(table, src)
    import pqkit
    root = str(tmp_path / "ds")
    pds.write(root, pqkit.read_table(str(src)))
    assert pds.open(root).read().to_pydict() == table.to_pydict()
    assert pa_ds.dataset(root, format="parquet").to_table().to_pydict() == table.to_pydict()
