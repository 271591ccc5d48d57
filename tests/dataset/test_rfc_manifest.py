"""RFC-style single-manifest datasets (DATASET.md §3.13): write, read with checks, repair.

The layout is ``<key>/data.parquet`` (or ``part-NNNNN.parquet``), ``<key>/manifest.json``
and ``<key>/_SUCCESS`` written last; ``parts`` lists file names and ``schema_hash`` is
the sha256 of the Arrow schema's text (RFC-0008; pyarrow's ``Schema.to_string()`` is the
oracle here), pqkit's own per-part facts sit in ``part_facts``. Reading checks
``_SUCCESS`` and every part; a write killed at each step is rolled forward or back by
repair.
"""
import hashlib
import json
import os
import re

import pyarrow as pa
import pyarrow.dataset as pa_ds
import pyarrow.parquet as pq
import pytest
from dshelpers import row_set, run_forked

import pqkit.dataset as pds
from pqkit import SchemaError
from pqkit.dataset import DatasetError, DatasetExists, DatasetIncomplete, ManifestCorrupted
from pqkit.dataset.rfc0008.manifest import RfcManifestSource

DATA = {"id": [1, 2, 3, 4, 5], "name": ["a", None, "c", "é", "e"],
        "x": [0.5, 1.5, None, 3.5, 4.5]}
MORE = {"id": [6, 7], "name": ["f", "g"], "x": [6.5, 7.5]}


def manifest(root):
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def rewrite_manifest(root, **changes):
    doc = manifest(root)
    doc.update(changes)
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f)


def canonical_hash(fields):
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_write_then_read_round_trip(tmp_path):
    root = str(tmp_path / "sales" / "daily")
    doc = pds.write(root, DATA, layout="manifest", run_id="airflow:daily:1",
                    metadata={"owner": "team-x"}, compression="snappy")
    assert sorted(os.listdir(root)) == ["_SUCCESS", "_manifest.lock", "data.parquet",
                                        "manifest.json"]
    assert os.path.getsize(os.path.join(root, "_SUCCESS")) == 0
    stored = manifest(root)
    assert stored == doc
    assert set(stored) == {"dataset_key", "parts", "row_count", "schema_hash", "compression",
                           "created_at_utc", "run_id", "metadata", "part_facts"}
    assert stored["parts"] == ["data.parquet"]
    assert stored["dataset_key"] == "daily" and stored["row_count"] == 5
    assert stored["compression"] == "snappy" and stored["run_id"] == "airflow:daily:1"
    assert stored["metadata"] == {"owner": "team-x"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", stored["created_at_utc"])
    part = stored["part_facts"]["data.parquet"]
    path = os.path.join(root, "data.parquet")
    assert part["size"] == os.path.getsize(path)
    assert part["row_count"] == 5
    assert part["sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
    assert part["stats"]["id"] == {"min": "1", "max": "5", "nulls": 0}
    ds = pds.open(root)
    assert pds.detect_layout(root) == "manifest" and ds.version == 0
    # schema_hash = sha256 of the Arrow schema's text, as pyarrow prints it.
    text = pq.read_schema(path).to_string()
    assert text == "id: int64\nname: string\nx: double"
    assert stored["schema_hash"] == hashlib.sha256(text.encode()).hexdigest()
    assert ds.read().to_pydict() == DATA
    assert pq.read_table(path).to_pydict() == DATA
    assert ds.operation["run_id"] == "airflow:daily:1"
    assert ds.committed_at_utc == stored["created_at_utc"]
    assert ds.manifest.data["metadata"] == {"owner": "team-x"}
    assert ds.count([("id", ">", 3)]) == 2


def test_parts_split_and_bounds_prune(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", max_rows_per_file=2)
    assert manifest(root)["parts"] == \
        ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    ds = pds.open(root)
    assert [f.path for f in ds.files([("id", ">=", 5)])] == ["part-00002.parquet"]
    assert ds.read(filters=[("id", "in", [2, 3])]).to_pydict()["name"] == [None, "c"]
    assert row_set(ds.read()) == row_set(DATA)


def test_modes(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", max_rows_per_file=2)
    with pytest.raises(DatasetExists):
        pds.write(root, DATA, layout="manifest")
    pds.write(root, MORE, layout="manifest", mode="append", run_id="r2")
    stored = manifest(root)
    assert stored["parts"][-1] == "part-00003.parquet"
    assert stored["row_count"] == 7 and stored["run_id"] == "r2"
    assert row_set(pds.open(root).read()) == row_set({k: DATA[k] + MORE[k] for k in DATA})
    with pytest.raises(SchemaError, match="columns"):
        pds.write(root, {"id": [8]}, layout="manifest", mode="append")
    with pytest.raises(SchemaError):
        pds.write(root, {"id": [[8]], "name": ["h"], "x": [1.0]}, layout="manifest",
                  mode="append")
    pds.write(root, MORE, layout="manifest", mode="overwrite")
    assert sorted(n for n in os.listdir(root) if n.endswith(".parquet")) == ["data.parquet"]
    assert not [n for n in os.listdir(root) if n.endswith(".tmp")]
    assert pds.open(root).read().to_pydict() == MORE
    with pytest.raises(SchemaError, match="partition_by"):
        pds.write(root, MORE, layout="manifest", mode="overwrite", partition_by=["name"])
    with pytest.raises(SchemaError, match="layout"):
        pds.write(root, MORE, layout="delta")


def test_layouts_do_not_mix(tmp_path):
    rfc, pqds, hive = (str(tmp_path / n) for n in ("rfc", "pqds", "hive"))
    pds.write(rfc, DATA, layout="manifest")
    with pytest.raises(DatasetError, match="single-manifest.*layout='manifest'"):
        pds.write(rfc, DATA)
    pds.write(pqds, DATA)
    with pytest.raises(DatasetError, match="PQDS/1"):
        pds.write(pqds, DATA, layout="manifest")
    os.makedirs(hive)
    pq.write_table(pa.table(DATA), os.path.join(hive, "x.parquet"))
    with pytest.raises(DatasetError, match="no manifest"):
        pds.write(hive, DATA, layout="manifest")


def test_hidden_manifest_keeps_the_directory_readable_by_pyarrow(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", manifest_name="_manifest.json",
              max_rows_per_file=3)
    assert os.path.exists(os.path.join(root, "_manifest.json"))
    assert row_set(pa_ds.dataset(root, format="parquet").to_table().to_pydict()) == \
        row_set(DATA)
    assert row_set(pds.open(root).read()) == row_set(DATA)
    with open(os.path.join(root, "manifest.json"), "w") as f:
        f.write("{}")
    with pytest.raises(ManifestCorrupted, match="both"):
        pds.open(root)


def test_success_is_required(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest")
    os.unlink(os.path.join(root, "_SUCCESS"))
    with pytest.raises(DatasetIncomplete, match="_SUCCESS"):
        pds.open(root)
    assert pds.open(root, require_success=False).count() == 5
    report = pds.verify(root)
    assert not report.ok and report.problems[0]["path"] == "_SUCCESS"
    assert pds.publish_state(root)["state"] == "incomplete"


@pytest.mark.parametrize("damage, error, message", [
    (lambda r: os.unlink(os.path.join(r, "part-00001.parquet")), DatasetIncomplete,
     "part-00001.parquet is missing"),
    (lambda r: open(os.path.join(r, "part-00000.parquet"), "ab").write(b"x"), ManifestCorrupted,
     "bytes, the manifest says"),
    (lambda r: rewrite_manifest(r, part_facts={"part-00000.parquet": {"row_count": 9}}),
     ManifestCorrupted, "holds 3 rows, the manifest says 9"),
    (lambda r: rewrite_manifest(r, parts=[{"path": p, "row_count": 9} for p in
                                          manifest(r)["parts"]]),
     ManifestCorrupted, "holds 3 rows, the manifest says 9"),
    (lambda r: rewrite_manifest(r, schema_hash="0" * 64), ManifestCorrupted, "schema hash"),
    (lambda r: rewrite_manifest(r, row_count=6), ManifestCorrupted, "row_count is 6"),
    (lambda r: rewrite_manifest(r, parts=["../escape.parquet"]), ManifestCorrupted,
     "relative POSIX path"),
    (lambda r: rewrite_manifest(r, parts=[{"size": 3}]), ManifestCorrupted, "path"),
    (lambda r: rewrite_manifest(r, row_count="5"), ManifestCorrupted, "not a count"),
    (lambda r: open(os.path.join(r, "manifest.json"), "w").write("{"), ManifestCorrupted,
     "not valid JSON"),
    (lambda r: open(os.path.join(r, "manifest.json"), "w").write('{"parts": []}'),
     ManifestCorrupted, "missing row_count, schema_hash"),
])
def test_damage_is_detected(tmp_path, damage, error, message):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", max_rows_per_file=3)
    damage(root)
    with pytest.raises(error, match=message):
        pds.open(root)


def test_verify_levels_and_non_strict_source(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", max_rows_per_file=3, compression="none")
    path = os.path.join(root, "part-00000.parquet")
    with open(path, "r+b") as f:                        # same size, same footer, other bytes
        f.seek(4)
        byte = f.read(1)
        f.seek(4)
        f.write(bytes([byte[0] ^ 0xFF]))
    assert pds.verify(root, "footer").ok
    report = pds.verify(root, "sha256")
    assert [p["path"] for p in report.problems] == ["part-00000.parquet"]
    os.unlink(os.path.join(root, "part-00001.parquet"))
    source = RfcManifestSource(root, strict=False)
    assert [p["path"] for p in source.problems] == ["part-00001.parquet"]
    assert pds.verify(root, "exists").problems[0]["problem"] == "part part-00001.parquet is " \
                                                                "missing"


def test_foreign_manifest_with_path_strings(tmp_path):
    root = str(tmp_path / "k")
    os.makedirs(root)
    pq.write_table(pa.table({"v": [1, 2]}), os.path.join(root, "a.parquet"))
    pq.write_table(pa.table({"v": [3]}), os.path.join(root, "b.parquet"))
    fields = [{"name": "v", "nullable": True, "type": "int64"}]
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump({"parts": ["a.parquet", "b.parquet"], "row_count": 3,
                   "schema_hash": canonical_hash(fields),
                   "created_at_utc": "2025-01-31T12:00:00Z"}, f)
    open(os.path.join(root, "_SUCCESS"), "w").close()
    ds = pds.open(root)
    assert ds.read().to_pydict() == {"v": [1, 2, 3]}
    assert ds.committed_at_utc == "2025-01-31T12:00:00.000000Z"
    assert pds.convert(root, tmp_path / "copy") == 0
    assert pds.open(tmp_path / "copy").read().to_pydict() == {"v": [1, 2, 3]}


def _overwrite(root):
    return lambda: pds.write(root, MORE, layout="manifest", mode="overwrite",
                             max_rows_per_file=1)


@pytest.mark.parametrize("step, nth, after", [
    ("rfc.parts_written", 1, "old"),        # _SUCCESS still there: old data, temporaries left
    ("rfc.success_removed", 1, "old"),      # manifest not switched: roll back
    ("rfc.manifest_written", 1, "new"),     # parts still temporary: roll forward
    ("rfc.part_renamed", 1, "new"),         # one part renamed, one not
])
def test_repair_after_a_crash(tmp_path, step, nth, after):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", max_rows_per_file=3)
    killed, _ = run_forked(_overwrite(root), crash_at=f"{step}:{nth}")
    assert killed
    if step != "rfc.parts_written":
        with pytest.raises(DatasetIncomplete):
            pds.open(root)
    result = pds.repair(root)
    assert result["complete"] and result["problems"] == []
    assert result["success_written"] == (step != "rfc.parts_written")
    assert result["temporaries_deleted"] or result["parts_restored"]
    expected = DATA if after == "old" else MORE
    assert row_set(pds.open(root).read()) == row_set(expected)
    assert not [n for n in os.listdir(root) if n.endswith(".tmp")]
    assert pds.verify(root, "sha256").ok


def test_repair_reports_what_it_cannot_finish(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, DATA, layout="manifest", max_rows_per_file=3)
    killed, _ = run_forked(_overwrite(root), crash_at="rfc.manifest_written")
    assert killed
    for name in os.listdir(root):
        if name.startswith((".part-00001.parquet.", "part-00001.parquet")):
            os.unlink(os.path.join(root, name))
    result = pds.repair(root)
    assert not result["complete"] and not result["success_written"]
    assert any("part-00001.parquet is missing" in p for p in result["problems"])
    assert result["parts_restored"] == ["part-00000.parquet"]     # what could be, was
    assert not os.path.exists(os.path.join(root, "_SUCCESS"))
    with pytest.raises(DatasetIncomplete):
        pds.open(root)
