"""pqinspect dataset info|versions|files|verify|repair on PQDS/1, plain Hive and RFC layouts.

The JSON documents are checked (not the screen text); exit codes: 0 ok, 1 problems
found (verify; an unfinished repair), 2 unusable input.
"""
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import dataset_doc, run

import pqkit.dataset as pds
from pqkit.cli.main import main

COMMON = {"command", "schema_version", "root", "layout", "exit_code"}


@pytest.fixture(autouse=True)
def setup(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")


def doc_of(capsys, *argv, code=0):
    return dataset_doc(capsys, *argv, code=code, common=COMMON)


@pytest.fixture
def sales(tmp_path):
    root = str(tmp_path / "sales")
    pds.write(root, {"year": [2024, 2024, 2025], "country": ["DE", "FR", "DE"],
                     "amount": [1.5, 2.5, 3.5], "id": [1, 2, 3]}, partition_by=["year", "country"],
              metadata={"owner": "team-x"})
    pds.write(root, {"year": [2026, None], "country": ["DE", "a/b"], "amount": [9.0, 1.0],
                     "id": [4, 5]}, run_id="app:7")
    return root


def test_info(capsys, sales):
    doc = doc_of(capsys, "info", sales)
    assert doc["command"] == "dataset info" and doc["layout"] == "pqds"
    assert doc["version"] == 1 and doc["operation"] == {"type": "append", "run_id": "app:7"}
    assert [(f["name"], f["type"]) for f in doc["schema"]] == [("amount", "float64"),
                                                               ("id", "int64")]
    assert doc["partitioning"] == [{"name": "year", "type": "int64"},
                                   {"name": "country", "type": "string"}]
    assert doc["totals"]["files"] == 5 and doc["totals"]["rows"] == 5
    assert doc["totals"]["bytes"] == sum(f.size for f in pds.open(sales).files())
    assert doc["features"] == {"reader": [], "writer": []}
    assert doc["publish"] == {"layout": "pqds", "success": True, "latest_version": 1,
                              "published_version": 1, "state": "published"}
    assert doc_of(capsys, "info", sales, "--version", "0")["totals"]["rows"] == 3
    code, out, _ = run(capsys, "dataset", "info", sales)
    assert code == 0 and "published" in out and "amount" in out


def test_versions(capsys, sales):
    doc = doc_of(capsys, "versions", sales)
    assert [(v["version"], v["operation"], v["run_id"], v["row_count"], v["file_count"],
             v["files_added"], v["files_removed"], v["latest"]) for v in doc["versions"]] == [
        (0, "append", None, 3, 3, 3, 0, False), (1, "append", "app:7", 5, 5, 2, 0, True)]
    assert all(v["committed_at_utc"].endswith("Z") for v in doc["versions"])


def test_files_with_filters_show_pruning(capsys, sales):
    doc = doc_of(capsys, "files", sales, "--filter", "year >= 2025", "--filter", "id>3")
    assert doc["filters"] == [[["year", ">=", 2025], ["id", ">", 3]]]
    assert doc["pruning"] == {"total_files": 5, "after_partitions": 2, "selected_files": 1,
                              "total_rows": 5, "selected_rows": 1}
    [f] = doc["files"]
    assert f["partition"] == {"year": "2026", "country": "DE"} and f["rows"] == 1
    assert f["residual"] == [[["id", ">", 3]]]
    doc = doc_of(capsys, "files", sales, "--filter", "country in [\"a/b\", \"FR\"]")
    assert sorted(f["partition"]["country"] for f in doc["files"]) == ["FR", "a/b"]
    assert all(f["residual"] is None for f in doc["files"])
    doc = doc_of(capsys, "files", sales, "--filter", "year is_null")
    assert [f["partition"] for f in doc["files"]] == [{"year": None, "country": "a/b"}]
    doc = doc_of(capsys, "files", sales, "--filter", "country not in DE,FR",
                 "--filter", "amount < 2")
    assert doc["pruning"]["selected_files"] == 1
    assert doc_of(capsys, "files", sales)["pruning"]["selected_files"] == 5
    code, out, _ = run(capsys, "dataset", "files", sales, "--filter", "year == 2024")
    assert code == 0 and "2 of 5 files" in out and "partition values pruned 3" in out


@pytest.mark.parametrize("flt, message", [
    ("year", "expected 'column op value'"),
    ("nope == 1", "no column 'nope'"),
    ("year == twenty", "is not a int64 value"),
    ("id == null", "is_null"),
    ("year is_null 3", "takes no value"),
])
def test_bad_filters_are_unusable_input(capsys, sales, flt, message):
    code, out, err = run(capsys, "dataset", "files", sales, "--filter", flt)
    assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_verify(capsys, sales):
    doc = doc_of(capsys, "verify", sales, "--level", "sha256")
    assert doc["ok"] and doc["files_checked"] == 5 and doc["problems"] == []
    victim = pds.open(sales).files([("year", "==", 2026)])[0]
    os.unlink(victim.location)
    doc = doc_of(capsys, "verify", sales, code=1)
    assert [p["path"] for p in doc["problems"]] == [victim.path]
    code, out, _ = run(capsys, "dataset", "verify", sales)
    assert code == 1 and "PROBLEMS" in out and victim.path in out


def test_repair_finishes_a_publish(capsys, sales):
    os.unlink(os.path.join(sales, "_SUCCESS"))
    assert doc_of(capsys, "info", sales)["publish"]["state"] == "pending"
    doc = doc_of(capsys, "repair", sales)
    assert doc["result"]["version"] == 1 and doc["result"]["torn_version"] is None
    assert doc_of(capsys, "info", sales)["publish"]["state"] == "published"


def test_plain_hive_directory(capsys, tmp_path):
    root = str(tmp_path / "hive")
    pq.write_to_dataset(pa.table({"k": ["x", "y", "y"], "v": [1, 2, 3]}), root,
                        partition_cols=["k"])
    info = doc_of(capsys, "info", root)
    assert info["layout"] == "hive" and info["version"] == 0
    assert info["partitioning"] == [{"name": "k", "type": "string"}]
    assert info["publish"] == {"layout": "hive", "success": False, "state": "no marker"}
    assert doc_of(capsys, "versions", root)["versions"][0]["operation"] == "hive-listing"
    files = doc_of(capsys, "files", root, "--filter", "k == y")
    assert files["pruning"]["selected_rows"] == 2 and files["pruning"]["after_partitions"] == 1
    assert doc_of(capsys, "verify", root, "--level", "footer")["ok"]
    code, _, err = run(capsys, "dataset", "info", root, "--require-success")
    assert code == 2 and "DatasetIncomplete" in err
    assert doc_of(capsys, "verify", root, "--require-success", code=1)["problems"][0]["path"] \
        == "_SUCCESS"
    doc = doc_of(capsys, "repair", root)
    assert doc["layout"] == "hive" and "nothing to repair" in doc["result"]["note"]
    bad = os.path.join(root, "k=x", "broken.parquet")
    with open(bad, "wb") as f:
        f.write(b"PAR1 not really")
    code, _, err = run(capsys, "dataset", "info", root)
    assert code == 2 and "broken.parquet" in err
    doc = doc_of(capsys, "verify", root, code=1)
    assert [p["path"] for p in doc["problems"]] == ["k=x/broken.parquet"]


def test_rfc_manifest_dataset(capsys, tmp_path):
    root = str(tmp_path / "daily")
    pds.write(root, {"id": [1, 2, 3]}, layout="manifest", run_id="r1", max_rows_per_file=2,
              metadata={"team": "x"})
    info = doc_of(capsys, "info", root)
    assert info["layout"] == "manifest" and info["dataset_key"] == "daily"
    assert info["operation"] == {"type": "rfc-manifest", "run_id": "r1"}
    assert info["metadata"] == {"team": "x"} and info["totals"]["files"] == 2
    assert info["publish"]["state"] == "complete"
    assert doc_of(capsys, "files", root, "--filter", "id >= 3")["pruning"]["selected_files"] == 1
    os.unlink(os.path.join(root, "_SUCCESS"))
    code, _, err = run(capsys, "dataset", "info", root)
    assert code == 2 and "_SUCCESS" in err
    doc = doc_of(capsys, "verify", root, code=1)
    assert doc["problems"][0]["path"] == "_SUCCESS"
    doc = doc_of(capsys, "repair", root)
    assert doc["result"]["complete"] and doc["result"]["success_written"]
    assert doc_of(capsys, "verify", root)["ok"]
    os.unlink(os.path.join(root, "part-00001.parquet"))
    os.unlink(os.path.join(root, "_SUCCESS"))
    doc = doc_of(capsys, "repair", root, code=1)
    assert doc["result"]["problems"] == ["part part-00001.parquet is missing"]


def test_unusable_input_and_help(capsys, tmp_path):
    code, _, err = run(capsys, "dataset", "info", tmp_path / "missing")
    assert code == 2 and "DatasetNotFound" in err
    with open(tmp_path / "manifest.json", "w") as f:
        f.write("{")
    code, _, err = run(capsys, "dataset", "verify", tmp_path)
    assert code == 2 and "ManifestCorrupted" in err
    with pytest.raises(SystemExit):
        main(["dataset", "--help"])
    out = capsys.readouterr().out
    assert "pqinspect dataset files warehouse/sales --filter" in out
    with pytest.raises(SystemExit):
        main(["dataset", "files", "--help"])
    assert "example:" in capsys.readouterr().out


def test_json_flag_before_the_action(capsys, sales):
    code, out, _ = run(capsys, "dataset", "--json", "versions", sales)
    assert code == 0 and json.loads(out)["command"] == "dataset versions"
