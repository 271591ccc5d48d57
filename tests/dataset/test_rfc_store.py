"""RFC-0008 both ways: datasets of an independent RFC writer open and verify in pqkit, and
pqkit's ParquetDatasetStore writes manifests that the independent reader validates.

``rfc0008_reference`` follows the RFC text with pyarrow and imports nothing of pqkit.
"""
import datetime
import decimal
import hashlib
import json
import os

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
import rfc0008_reference as ref
from dshelpers import row_set

import pqkit
import pqkit.dataset as pds
from pqkit.dataset import (
    AlreadyExists,
    DatasetExists,
    DatasetIncomplete,
    DatasetManifest,
    DatasetNotFound,
    ManifestCorrupted,
    ParquetDatasetStore,
)
from pqkit.dataset.rfc0008.schema_hash import schema_text

UTC = datetime.timezone.utc


def sample(n=7):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([f"n{i}" if i % 3 else None for i in range(n)], pa.string()),
        "x": pa.array([i / 2 for i in range(n)], pa.float64()),
        "day": pa.array([datetime.date(2024, 1, 1 + i) for i in range(n)], pa.date32()),
        "ts": pa.array([datetime.datetime(2024, 1, 1, i, tzinfo=UTC) for i in range(n)],
                       pa.timestamp("us", tz="UTC")),
        "amount": pa.array([decimal.Decimal(f"{i}.25") for i in range(n)],
                           pa.decimal128(9, 2)),
        "flag": pa.array([i % 2 == 0 for i in range(n)], pa.bool_()),
        "tags": pa.array([[f"t{i}"] * (i % 3) for i in range(n)], pa.list_(pa.string())),
    })


def frame_rows(table):
    return row_set(pa.table(table).to_pydict())


@pytest.mark.parametrize("digits", [64, 16])
@pytest.mark.parametrize("max_rows", [None, 3])
def test_reference_written_dataset_opens_and_verifies(tmp_path, digits, max_rows):
    store, table = str(tmp_path), sample()
    written = ref.write(store, "silver/orders", table, max_rows_per_file=max_rows,
                        run_id="run-1", metadata={"owner": "x"}, digits=digits)
    root = os.path.join(store, "silver", "orders")
    ds = pds.open(root)
    assert pds.detect_layout(root) == "manifest"
    assert ds.count() == 7 and ds.operation["run_id"] == "run-1"
    assert pds.verify(root, "sha256").ok
    assert frame_rows(ds.read()) == frame_rows(table)
    api = ParquetDatasetStore(store)
    assert api.dataset_exists("silver/orders")
    m = api.read_manifest("silver/orders")
    assert m.parts == written["parts"] and m.schema_hash == written["schema_hash"]
    assert json.loads(m.to_json()) == written
    assert frame_rows(api.read_dataset("silver/orders", columns=["id", "tags"])) == \
        frame_rows(table.select(["id", "tags"]))


def test_reference_pandas_dataset_hash_covers_schema_metadata(tmp_path):
    frame = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]})
    table = pa.Table.from_pandas(frame)
    assert "pandas" in table.schema.to_string()          # metadata is part of the text
    ref.write(str(tmp_path), "p", table)
    assert pds.open(str(tmp_path / "p")).read().to_pandas()["a"].tolist() == [1, 2, 3]


def test_reference_dataset_with_a_wrong_hash_is_corrupted(tmp_path):
    ref.write(str(tmp_path), "k", sample())
    path = tmp_path / "k" / "manifest.json"
    doc = json.loads(path.read_text())
    doc["schema_hash"] = hashlib.sha256(b"id: int32").hexdigest()[:16]
    path.write_text(json.dumps(doc))
    with pytest.raises(ManifestCorrupted, match="schema hash"):
        pds.open(str(tmp_path / "k"))


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "polars", "pqkit", "dict"])
def test_pqkit_written_dataset_validates_in_reference_reader(tmp_path, kind):
    base = sample().drop(["tags"]) if kind == "pandas" else sample()
    data = {"pyarrow": lambda: base, "pandas": lambda: base.to_pandas(),
            "polars": lambda: pl.from_arrow(base), "pqkit": lambda: pqkit.Table.from_arrow(base),
            "dict": lambda: {"id": [1, 2], "name": ["a", None]}}[kind]()
    store = ParquetDatasetStore(str(tmp_path), max_rows_per_file=4)
    m = store.write_dataset(data, "gold/t", run_id="r9", metadata={"team": "x"})
    assert isinstance(m, DatasetManifest)
    checked = ref.validate(str(tmp_path), "gold/t")
    facts = checked.pop("part_facts")                     # pqkit's optional extra field
    assert checked == json.loads(m.to_json())
    assert sorted(facts) == checked["parts"]
    assert checked["parts"] == (["part-00000.parquet", "part-00001.parquet"]
                                if kind != "dict" else ["data.parquet"])
    assert len(checked["schema_hash"]) == 64
    got = ref.read(str(tmp_path), "gold/t")
    expected = pa.table(data) if kind in ("polars", "pqkit", "pyarrow") else \
        (pa.Table.from_pandas(data, preserve_index=False) if kind == "pandas" else
         pa.table(data))
    assert frame_rows(got) == frame_rows(expected)
    if kind == "pyarrow":
        # The hash is the one the RFC writer computes from the caller's table.
        assert checked["schema_hash"] == ref.schema_hash(base.schema)
        assert schema_text(list(pqkit.Table.from_arrow(base).schema)) == \
            base.schema.to_string()


def test_api_names_and_errors(tmp_path):
    store = ParquetDatasetStore(str(tmp_path), compression="snappy")
    assert not store.dataset_exists("k")
    store.write_dataset(sample(), "k")
    assert ref.read_manifest(str(tmp_path), "k")["compression"] == "snappy"
    with pytest.raises(AlreadyExists, match="overwrite=True"):
        store.write_dataset(sample(), "k")
    assert issubclass(AlreadyExists, DatasetExists)
    m = store.write_dataset(pa.table({"v": [1]}), "k", overwrite=True)
    assert m.row_count == 1 and m.parts == ["data.parquet"]
    assert store.read_dataset("k").to_pydict() == {"v": [1]}
    os.unlink(tmp_path / "k" / "_SUCCESS")
    assert not pds.dataset_exists(str(tmp_path), "k")
    with pytest.raises(DatasetIncomplete, match="_SUCCESS"):
        store.read_dataset("k")
    with pytest.raises(ref.Incomplete):
        ref.read(str(tmp_path), "k")
    store.write_dataset(pa.table({"v": [2]}), "k")          # a crashed write is replaced
    assert store.read_dataset("k").to_pydict() == {"v": [2]}
    pds.delete_dataset(str(tmp_path), "k")
    assert not os.path.exists(tmp_path / "k")
    with pytest.raises(DatasetNotFound):
        store.delete_dataset("k")
    with pytest.raises(DatasetNotFound):
        store.read_manifest("k")
    with pytest.raises(pds.DatasetError):
        store.write_dataset(sample(), "../outside")


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ("[]", "JSON object"),
    ('{"dataset_key": "k", "parts": []}', "missing row_count"),
    (json.dumps({"dataset_key": "k", "parts": [{"path": "a"}], "row_count": 1,
                 "schema_hash": "h", "compression": "zstd", "created_at_utc": "t"}),
     "list of file names"),
    (json.dumps({"dataset_key": "k", "parts": [], "row_count": "1", "schema_hash": "h",
                 "compression": "zstd", "created_at_utc": "t"}), "not an integer"),
])
def test_manifest_record_rejects_malformed_json(text, message):
    with pytest.raises(ManifestCorrupted, match=message):
        DatasetManifest.from_json(text)
