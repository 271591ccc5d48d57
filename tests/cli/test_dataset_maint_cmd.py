"""pqinspect dataset vacuum|compact|restore|tag|publish|index build|optimize|merge.

Each action is checked through its ``--json`` document; with ``--dry-run`` the
document says what would change and a checksum of every file under the root
(names and contents) stays the same.
"""
import gzip
import hashlib
import os

import pytest
from cli_run import dataset_doc, run

import pqkit
import pqkit.dataset as pds

COMMON = {"command", "schema_version", "root", "layout", "exit_code", "dry_run"}


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")


def doc_of(capsys, *argv, code=0):
    doc = dataset_doc(capsys, *argv, code=code, common=COMMON)
    assert doc["layout"] == "pqds"
    return doc


def checksum(root):
    h = hashlib.sha256()
    for dirpath, dirnames, names in os.walk(root):
        dirnames.sort()
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            h.update(os.path.relpath(path, root).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def dry(capsys, root, *argv):
    """The --dry-run document of ``argv``; asserts that nothing under ``root`` changed."""
    before = checksum(root)
    doc = doc_of(capsys, *argv, "--dry-run")
    assert doc["dry_run"] is True and checksum(root) == before
    return doc


@pytest.fixture
def sales(tmp_path):
    root = str(tmp_path / "sales")
    for i in range(3):
        pds.write(root, {"id": [2 * i, 2 * i + 1], "p": ["a", "b"], "v": [i, -i]},
                  partition_by=["p"])
    return root


def _rows(root, version=None):
    return sorted(pds.open(root, version=version).read(["id", "p", "v"]).to_pylist(),
                  key=lambda r: r["id"])


def test_vacuum(capsys, sales):
    pds.write(sales, {"id": [9], "p": ["c"], "v": [9]}, mode="overwrite")
    args = ["vacuum", sales, "--retention", "0s", "--keep-last", "1", "--grace", "0s"]
    plan = dry(capsys, sales, *args)
    assert plan["result"]["versions_deleted"] == [0, 1, 2]
    assert len(plan["result"]["files_deleted"]) == 6
    doc = doc_of(capsys, *args)
    assert doc["dry_run"] is False
    for key in ("versions_deleted", "files_deleted"):
        assert doc["result"][key] == plan["result"][key]
    assert all(not os.path.exists(os.path.join(sales, p))
               for p in doc["result"]["files_deleted"])
    assert _rows(sales) == [{"id": 9, "p": "c", "v": 9}]


def test_compact(capsys, sales):
    rows = _rows(sales)
    plan = dry(capsys, sales, "compact", sales)
    assert [len(g) for g in plan["groups"]] == [3, 3] and plan["version"] == 2
    doc = doc_of(capsys, "compact", sales, "--target", "1MiB")
    assert doc["groups"] == plan["groups"]
    assert (doc["version_before"], doc["version"], doc["files_before"], doc["files"]) == \
        (2, 3, 6, 2)
    assert _rows(sales) == rows
    assert doc_of(capsys, "compact", sales)["groups"] == []
    _, _, err = run(capsys, "dataset", "compact", sales, "--target", "lots")
    assert "size 'lots'" in err


def test_restore(capsys, sales):
    plan = dry(capsys, sales, "restore", sales, "0")
    assert plan["files_added"] == [] and len(plan["files_removed"]) == 4
    assert plan["version"] == 2
    doc = doc_of(capsys, "restore", sales, "0")
    assert doc["version"] == 3 and doc["files_removed"] == plan["files_removed"]
    assert _rows(sales) == _rows(sales, version=0)


def test_tag(capsys, sales):
    doc = doc_of(capsys, "tag", sales, "release", "--version", "1")
    assert (doc["tag"], doc["version"]) == ("release", 1)
    assert pds.open(sales, tag="release").version == 1
    assert dry(capsys, sales, "tag", sales, "release", "--delete")["deleted"] is True
    assert doc_of(capsys, "tag", sales, "release", "--delete")["deleted"] is True
    assert dry(capsys, sales, "tag", sales, "release", "--delete")["deleted"] is False
    code, _, err = run(capsys, "dataset", "tag", sales, "again", "--dry-run")
    assert code == 2 and "--dry-run goes with --delete" in err


def test_publish(capsys, sales):
    os.remove(os.path.join(sales, "_SUCCESS"))
    plan = dry(capsys, sales, "publish", sales)
    assert plan["before"]["state"] == plan["after"]["state"] == "pending"
    doc = doc_of(capsys, "publish", sales)
    assert doc["after"] == {"layout": "pqds", "success": True, "latest_version": 2,
                            "published_version": 2, "state": "published"}
    assert os.path.exists(os.path.join(sales, "_SUCCESS"))


def test_index_build_and_optimize(capsys, sales):
    doc = doc_of(capsys, "index", "build", sales, "id")
    assert (doc["command"], doc["column"], doc["version"], doc["segments"]) == \
        ("dataset index build", "id", 3, 1)
    assert doc["files_uncovered_before"] == 6
    pds.write(sales, {"id": [50], "p": ["a"], "v": [5]})       # indexes its own file
    plan = dry(capsys, sales, "index", "optimize", sales, "id")
    assert (plan["segments_before"], plan["segments"], plan["version"]) == (2, 2, 4)
    doc = doc_of(capsys, "index", "optimize", sales, "id")
    assert (doc["segments_before"], doc["segments"], doc["version"]) == (2, 1, 5)
    assert [r["id"] for r in pds.open(sales).read(filters=[("id", "==", 50)]).to_pylist()] \
        == [50]


def test_merge_from_a_file(capsys, sales, tmp_path):
    changes = str(tmp_path / "changes.parquet")
    pqkit.write_table({"id": [1, 100], "v": [10, 1000], "p": ["b", "a"]}, changes)
    args = ["merge", sales, "--from", changes, "--on", "id"]
    plan = dry(capsys, sales, *args)
    assert plan["plan"] == {"version": 2, "files_read": 1, "files_rewritten":
                            plan["plan"]["files_rewritten"], "rows_matched": 1,
                            "rows_written": 2}
    assert len(plan["plan"]["files_rewritten"]) == 1 and plan["metrics"] is None
    doc = doc_of(capsys, *args)
    assert doc["version"] == 3 and doc["on"] == ["id"]
    assert doc["metrics"] == {"rows_added": 2, "rows_removed": 1, "files_added": 2,
                              "files_removed": 1}
    got = {r["id"]: r["v"] for r in _rows(sales)}
    assert (got[1], got[100], len(got)) == (10, 1000, 7)
    deleted = doc_of(capsys, "merge", sales, "--from", changes, "--on", "id,p",
                     "--when-matched", "delete", "--when-not-matched", "ignore")
    assert deleted["on"] == ["id", "p"] and deleted["metrics"]["rows_removed"] == 2
    assert {r["id"] for r in _rows(sales)} == {0, 2, 3, 4, 5}


@pytest.mark.parametrize("name, text, given", [
    ("changes.csv", "v,id,p\n10,1,b\n1000,100,a\n", None),
    ("changes.jsonl", '{"id": 1, "v": 10, "p": "b"}\n{"id": 100, "p": "a", "v": 1000}\n',
     None),
    ("changes.tsv", "id\tv\tp\n1\t10\tb\n100\t1000\ta\n", None),
    ("changes.tsv.gz", "id\tv\tp\n1\t10\tb\n100\t1000\ta\n", None),
    ("changes.txt", '{"id": 1, "v": 10, "p": "b"}\n{"id": 100, "v": 1000, "p": "a"}\n',
     "jsonl"),
])
def test_merge_from_text(capsys, sales, tmp_path, name, text, given):
    changes = str(tmp_path / name)
    with (gzip.open if name.endswith(".gz") else open)(changes, "wt") as f:
        f.write(text)
    args = ["merge", sales, "--from", changes, "--on", "id"]
    if given:
        code, _, err = run(capsys, "dataset", *args, "--json")
        assert code == 2 and "cannot tell the input format" in err
        args += ["--format", given]
    plan = dry(capsys, sales, *args)
    assert plan["format"] == (given or ("jsonl" if name.endswith(".jsonl") else "csv"))
    assert (plan["plan"]["rows_matched"], plan["plan"]["rows_written"]) == (1, 2)
    doc = doc_of(capsys, *args)
    assert doc["version"] == 3 and doc["metrics"]["rows_added"] == 2
    got = {(r["id"], r["p"]): r["v"] for r in _rows(sales)}
    assert (got[(1, "b")], got[(100, "a")], len(got)) == (10, 1000, 7)


def test_partial_merge_from_csv_sets_only_its_columns(capsys, sales, tmp_path):
    changes = str(tmp_path / "v_only.csv")
    with open(changes, "w") as f:
        f.write("id,v\n1,10\n3,30\n99,0\n")
    args = ["merge", sales, "--from", changes, "--on", "id", "--when-not-matched", "ignore"]
    plan = dry(capsys, sales, *args)
    assert (plan["plan"]["rows_matched"], plan["plan"]["rows_written"]) == (2, 2)
    assert doc_of(capsys, *args)["metrics"]["rows_added"] == 2
    got = {r["id"]: (r["p"], r["v"]) for r in _rows(sales)}
    assert (got[1], got[3], len(got)) == (("b", 10), ("b", 30), 6)
    code, _, err = run(capsys, "dataset", "merge", sales, "--from", changes, "--on", "id",
                       "--json")
    assert code == 2 and "lacks ['p']" in err


def test_merge_from_csv_reports_a_bad_value_by_line(capsys, sales, tmp_path):
    changes = str(tmp_path / "bad.csv")
    with open(changes, "w") as f:
        f.write("id,v,p\n1,10,b\n2,ten,a\n")
    before = checksum(sales)
    code, _, err = run(capsys, "dataset", "merge", sales, "--from", changes, "--on", "id",
                       "--json")
    assert code == 2 and "line 3" in err and "ten" in err and checksum(sales) == before


def test_merge_refuses_repeated_keys(capsys, sales, tmp_path):
    changes = str(tmp_path / "twice.parquet")
    pqkit.write_table({"id": [1, 1], "v": [1, 2], "p": ["b", "b"]}, changes)
    before = checksum(sales)
    code, _, err = run(capsys, "dataset", "merge", sales, "--from", changes, "--on", "id",
                       "--json")
    assert code == 2 and "repeats the key (id=1)" in err and checksum(sales) == before


def _stderr_on_a_terminal(*argv):
    """(stdout, what a terminal on stderr received) of ``pqinspect dataset *argv``."""
    import pty
    import subprocess
    import sys
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), COLUMNS="100")
    code = "import sys; from pqkit.cli.main import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "dataset", *argv], env=env,
                          stdout=subprocess.PIPE, stderr=slave, timeout=120, check=False)
    os.close(slave)
    seen = b""
    try:
        while chunk := os.read(master, 65536):
            seen += chunk
    except OSError:                       # the terminal is closed once drained
        pass
    os.close(master)
    assert done.returncode == 0
    return done.stdout.decode(), seen.decode("utf-8", "replace")


def test_progress_bar_on_a_terminal_only(sales):
    out, terminal = _stderr_on_a_terminal("compact", sales)
    assert "compacting 6 files" in terminal and "0:00:0" in terminal
    assert "dataset compact" in out and "compacting" not in out
    out, terminal = _stderr_on_a_terminal("index", "build", sales, "id", "--json")
    assert terminal == "" and '"segments": 1' in out
