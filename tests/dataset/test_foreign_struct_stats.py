"""Per-file statistics of files pqkit did not write cover struct members (dotted paths),
so a filter on a struct leaf prunes the files of a Hive directory and of an imported
Kartothek table, with the same rows as a full scan filtered in Python."""
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dshelpers import count_opened

import pqkit.dataset as pds
from pqkit.dataset.core.footer_snapshot import read_facts

POINT = pa.struct([("x", pa.int64()), ("tag", pa.struct([("name", pa.string())]))])
SCHEMA = pa.schema([("id", pa.int64()), ("point", POINT), ("tags", pa.list_(pa.string()))])
UUID = "5e1f0000-0000-4000-8000-00000000abcd"


def _part(i):
    """Rows of file ``i``: point.x in [100*i, 100*i + 2], one row with a null struct."""
    return pa.table({"id": [i * 10 + j for j in range(3)],
                     "point": [{"x": i * 100 + j, "tag": {"name": f"t{i}"}}
                               if j != 1 else None for j in range(3)],
                     "tags": [[f"a{i}"], [], None]}, schema=SCHEMA)


def _hive(root):
    for i in range(4):
        os.makedirs(os.path.join(root, f"k={i % 2}"), exist_ok=True)
        pq.write_table(_part(i), os.path.join(root, f"k={i % 2}", f"part-{i}.parquet"))
    return root


def _kartothek(store):
    """One-table Kartothek v4 dataset (layout as tests/dataset/kartothek_build.py describes)."""
    partitions = {}
    for i in range(4):
        label = f"k={i % 2}/{i:04d}" + "e" * 28
        key = f"{UUID}/core/{label}.parquet"
        path = os.path.join(store, *key.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(_part(i), path)
        partitions[label] = {"files": {"core": key}}
    pq.write_metadata(SCHEMA.append(pa.field("k", pa.int64())),
                      os.path.join(store, UUID, "core", "_common_metadata"))
    doc = {"dataset_metadata_version": 4, "dataset_uuid": UUID, "metadata": {},
           "partitions": partitions, "partition_keys": ["k"]}
    with open(os.path.join(store, f"{UUID}.by-dataset-metadata.json"), "w") as f:
        json.dump(doc, f)
    return pds.import_kartothek(store, UUID, "core")


def test_pyarrow_file_gets_struct_leaf_stats(tmp_path):
    path = str(tmp_path / "one.parquet")
    pq.write_table(_part(2), path)
    stats = read_facts(path).stats
    assert stats["point.x"] == {"min": "200", "max": "202", "nulls": 1}
    assert stats["point.tag.name"] == {"min": "t2", "max": "t2", "min_exact": True,
                                       "max_exact": True, "nulls": 1}
    assert set(stats) == {"id", "point.x", "point.tag.name"}     # the list leaf has none


def test_float_struct_leaf_without_nan_count_gets_no_bounds(tmp_path):
    path = str(tmp_path / "f.parquet")
    pq.write_table(pa.table({"p": [{"y": 1.5}, {"y": float("nan")}]}), path)
    assert "p.y" not in read_facts(path).stats   # pyarrow writes no nan_count: unknown


@pytest.fixture(params=["hive", "kartothek"])
def foreign(request, tmp_path):
    if request.param == "hive":
        return _hive(str(tmp_path / "hive"))
    return _kartothek(str(tmp_path / "store"))


def _expected(threshold):
    rows = []
    for i in range(4):
        for r in _part(i).to_pylist():
            if r["point"] is not None and r["point"]["x"] >= threshold:
                rows.append(r["id"])
    return sorted(rows)


@pytest.mark.parametrize("threshold, files", [(300, 1), (200, 2), (102, 3), (-1, 4)])
def test_struct_leaf_filter_prunes_foreign_files(foreign, monkeypatch, threshold, files):
    opened = count_opened(monkeypatch)
    got = pds.open(foreign).read(filters=[("point.x", ">=", threshold)], columns=["id"])
    assert len(opened) == files
    assert sorted(got.to_pydict()["id"]) == _expected(threshold)


def test_struct_string_leaf_prunes_foreign_files(foreign, monkeypatch):
    opened = count_opened(monkeypatch)
    got = pds.open(foreign).read(filters=[("point.tag.name", "==", "t1")], columns=["id"])
    assert len(opened) == 1
    assert sorted(got.to_pydict()["id"]) == [10, 12]
