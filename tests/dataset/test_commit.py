"""The commit protocol (§3.6), staging + distributed commit, time travel, verify, vacuum (§3.12)."""
import datetime
import errno
import json
import os
import time

import pytest
from dshelpers import pyarrow_rows, row_set

import pqkit.dataset as pds
from pqkit import DatasetError, DatasetIncomplete, DatasetNotFound, ManifestCorrupted, SchemaError
from pqkit.dataset.core import fsops
from pqkit.dataset.core.fsops import new_txn
from pqkit.dataset.pqds.paths import SHADOW_SUFFIX, RootPaths, _cache


# --- the link-if-absent primitive -----------------------------------------------------------------
def test_publish_if_absent_never_replaces(tmp_path):
    a, b, dst = tmp_path / "a", tmp_path / "b", tmp_path / "v" / "dst"
    a.write_text("first")
    b.write_text("second")
    assert fsops.publish_if_absent(str(a), str(dst)) is True
    assert fsops.publish_if_absent(str(b), str(dst)) is False
    assert dst.read_text() == "first" and not a.exists() and not b.exists()


def test_exclusive_create_fallback_without_hard_links(tmp_path, monkeypatch):
    def no_links(src, dst):
        raise OSError(errno.EPERM, "hard links not supported")
    monkeypatch.setattr(os, "link", no_links)
    root = str(tmp_path / "ds")
    assert pds.write(root, {"x": [1]}) == 0
    assert pds.write(root, {"x": [2]}) == 1
    assert pds.open(root).count() == 2
    a, dst = tmp_path / "a", tmp_path / "dst"
    a.write_text("x")
    dst.write_text("taken")
    assert fsops.publish_if_absent(str(a), str(dst)) is False and dst.read_text() == "taken"


def test_durable_mode_fsyncs_and_commits(tmp_path, monkeypatch):
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "1")
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a"], "x": [1]}, partition_by=["p"])
    assert len(synced) >= 6              # data file, its dirs, tmp manifest, versions dir, ...
    assert pds.open(root).count() == 1


# --- stage_file + commit (the Spark driver/executor split) ---------------------------------------
def test_stage_then_commit_one_version(tmp_path):
    root = str(tmp_path / "ds")
    txn = new_txn()
    entries = [pds.stage_file(root, {"x": [i, i + 1]}, {"day": f"2024-01-0{i}", "n": i},
                              txn=txn, seq=i) for i in (1, 2, 3)]
    assert entries[1]["key"] == f"{txn}-00002"
    assert entries[1]["path"] == f"day=2024-01-02/n=2/part-00002-{txn}.parquet"
    json.dumps(entries)                                              # JSON-able
    with pytest.raises(DatasetNotFound):
        pds.open(root)                                               # nothing committed yet
    v = pds.commit(root, entries, mode="append", partition_by=["day", "n"], run_id="spark:1")
    ds = pds.open(root)
    assert v == 0 and ds.count() == 6 and ds.partition_by == ["day", "n"]
    assert ds.count([("n", ">=", 2)]) == 4
    assert pyarrow_rows(root, ["day", "n", "x"]) == row_set(ds.read(), ["day", "n", "x"])
    assert pds.commit(root, entries, mode="append", run_id="spark:1") == 0   # retried job


def test_stage_file_uses_the_dataset_schema_and_partition_types(tmp_path):
    import pqkit.datatypes as T
    root = str(tmp_path / "ds")
    pds.write(root, {"p": [1], "x": [1], "y": ["a"]},
              schema=[T.field("p", T.int32()), T.field("x", T.int16()),
                      T.field("y", T.string())], partition_by=["p"])
    e = pds.stage_file(root, {"y": ["b"], "x": [7]}, {"p": 2})
    assert [f["type"] for f in e["schema"]] == ["string", "int16"]
    assert [f["id"] for f in e["schema"]] == [2, 1]
    assert e["partition_types"] == {"p": "int32"}
    assert pds.commit(root, [e], mode="append") == 1
    assert row_set(pds.open(root).read()) == row_set({"p": [1, 2], "x": [1, 7],
                                                      "y": ["a", "b"]})


def test_commit_checks_entries(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a"], "x": [1]}, partition_by=["p"])
    e = pds.stage_file(root, {"x": [2]}, {"p": "b"})
    with pytest.raises(SchemaError, match="partitioned by"):
        pds.commit(root, [e], mode="append", partition_by=["q"])
    bad = dict(e, partition={"p": "c"})
    with pytest.raises(SchemaError, match="does not match its partition"):
        pds.commit(root, [bad], mode="append")
    other = pds.stage_file(root, {"x": [2]}, {"q": "b"})
    with pytest.raises(SchemaError, match="partition"):
        pds.commit(root, [other], mode="append")
    os.remove(RootPaths(root).shadow(e["path"]))                        # vacuumed meanwhile
    with pytest.raises(DatasetIncomplete, match="stage it again"):
        pds.commit(root, [e], mode="append")
    assert pds.open(root).version == 0


def test_failed_write_removes_its_staged_files(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a"], "x": [1]}, partition_by=["p"], mode="create")
    with pytest.raises(pds.DatasetExists):
        pds.write(root, {"p": ["b"], "x": [2]}, mode="create")
    shadow = [n for _, _, names in os.walk(RootPaths(root).shadow_dir) for n in names]
    assert shadow == []


# --- time travel ---------------------------------------------------------------------------------
def test_version_as_of_and_tag(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    time.sleep(0.01)
    middle = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(0.01)
    pds.write(root, {"x": [2]})
    pds.write(root, {"x": [3]}, mode="overwrite")
    assert pds.open(root, version=1).count() == 2
    assert pds.open(root, as_of=middle).version == 0
    assert pds.open(root, as_of=middle.isoformat()).version == 0
    assert pds.open(root, as_of=datetime.datetime(2999, 1, 1)).version == 2
    with pytest.raises(DatasetIncomplete, match="at or before"):
        pds.open(root, as_of=datetime.datetime(2000, 1, 1))
    with pytest.raises(DatasetIncomplete, match="does not exist"):
        pds.open(root, version=9)
    with pytest.raises(DatasetError, match="at most one"):
        pds.open(root, version=1, tag="x")
    assert pds.tag(root, "before-overwrite", 1) == 1
    assert pds.open(root, tag="before-overwrite").read().to_pydict() == {"x": [1, 2]}
    with pytest.raises(DatasetError, match="no tag"):
        pds.open(root, tag="nope")
    vs = pds.open(root).versions()
    assert [(v["version"], v["operation"]) for v in vs] == [(0, "append"), (1, "append"),
                                                           (2, "overwrite")]


# --- verify and lazy checks -----------------------------------------------------------------------
def test_verify_levels_and_lazy_size_check(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a", "b", "c"], "x": [1, 2, 3]}, partition_by=["p"])
    ds = pds.open(root)
    assert ds.verify("sha256").ok
    files = ds.files()
    os.remove(files[0].location)
    with open(files[1].location, "ab") as f:
        f.write(b"junk")
    with open(files[2].location, "r+b") as f:
        f.seek(5)
        byte = f.read(1)
        f.seek(5)
        f.write(bytes([byte[0] ^ 0xFF]))
    report = ds.verify("sha256")
    problems = {p["path"]: p["problem"] for p in report.problems}
    assert not report.ok and report.files_checked == 3
    assert "missing" in problems[files[0].path]
    assert "bytes on disk" in problems[files[1].path]
    assert "sha256" in problems[files[2].path]
    assert len(ds.verify("exists").problems) == 1
    with pytest.raises(DatasetIncomplete, match="vacuumed or deleted outside pqkit"):
        ds.read(filters=[("p", "==", "a")])
    with pytest.raises(ManifestCorrupted, match="manifest says"):
        ds.read(filters=[("p", "==", "b")])
    with pytest.raises(DatasetError, match="verify level"):
        ds.verify("deep")
    assert report.to_dict()["ok"] is False


# --- vacuum ---------------------------------------------------------------------------------------
def test_vacuum_keeps_retained_and_tagged_versions(tmp_path):
    root = str(tmp_path / "ds")
    for i in range(6):
        pds.write(root, {"x": [i]}, mode="overwrite")
    pds.tag(root, "first", 0)
    dry = pds.vacuum(root, retention=0, keep_last=2, grace=0, dry_run=True)
    assert dry["versions_deleted"] == [1, 2, 3]
    assert [v["version"] for v in pds.open(root).versions()] == list(range(6))
    report = pds.vacuum(root, retention=0, keep_last=2, grace=0)
    assert report["versions_deleted"] == [1, 2, 3] and len(report["files_deleted"]) == 3
    assert [v["version"] for v in pds.open(root).versions()] == [0, 4, 5]
    assert pds.open(root, tag="first").read().to_pydict() == {"x": [0]}
    assert pds.open(root, version=4).read().to_pydict() == {"x": [4]}
    with pytest.raises(DatasetIncomplete):
        pds.open(root, version=2)
    assert pds.write(root, {"x": [9]}) == 6                        # the hint still leads
    assert pds.vacuum(root)["versions_deleted"] == []               # default: 7 days


def test_vacuum_respects_the_grace_period_for_staged_files(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    staged = pds.stage_file(root, {"x": [2]})                       # a writer in flight
    assert pds.vacuum(root, retention=0, keep_last=1, grace=3600)["files_deleted"] == []
    assert pds.commit(root, [staged], mode="append") == 1
    assert pds.open(root).count() == 2
    orphan = pds.stage_file(root, {"x": [3]})
    old = time.time() - 7200
    os.utime(RootPaths(root).shadow(orphan["path"]), (old, old))
    deleted = pds.vacuum(root, grace=3600)["files_deleted"]
    layout = RootPaths(root)
    assert deleted == [layout.relpath(layout.shadow(orphan["path"]))]
    assert deleted[0].endswith("/_" + orphan["path"] + SHADOW_SUFFIX)


def test_vacuumed_versions_make_stale_writers_conflict(tmp_path):
    from pqkit import CommitConflict
    from pqkit.dataset.pqds.commit import commit_operation
    from pqkit.dataset.pqds.operations import Operation
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    e = pds.stage_file(root, {"x": [2]})
    op = Operation("append", new_txn(), entries=[e], read_version=0)
    for i in range(3):
        pds.write(root, {"x": [i]})
    pds.vacuum(root, retention=0, keep_last=1, grace=3600)
    _cache.clear()
    with pytest.raises(CommitConflict, match="vacuumed"):
        commit_operation(RootPaths(root), op)


def test_latest_found_without_hint_across_a_vacuum_gap(tmp_path):
    # Vacuum may keep a tagged version 0 and remove 1..k; with the hint gone,
    # counting up from 0 would stop at the gap and the next commit would fork history.
    root = str(tmp_path / "ds")
    for i in range(5):
        pds.write(root, {"x": [i]})
    layout = pds.Layout(root)
    for v in (1, 2):
        os.remove(layout.version_path(v))
    os.remove(layout.latest_hint)
    assert pds.open(root).version == 4
    assert pds.write(root, {"x": [5]}) == 5


def test_only_prefixed_names_are_versions_and_tags(tmp_path):
    # No released pqkit wrote version files or tags without the _ prefix, so a file
    # under such a name is not one of them: neither found, nor listed, nor committed over.
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [0]})
    layout = pds.Layout(root)
    with open(layout.version_path(0)) as f:
        data = json.load(f)
    data.update(version=1, parent_version=0)   # a valid version 1, under the unprefixed name
    with open(os.path.join(layout.versions_dir, "00000000000000000001.json"), "w") as f:
        json.dump(data, f)
    os.makedirs(layout.tags_dir, exist_ok=True)
    with open(os.path.join(layout.tags_dir, "gold.json"), "w") as f:
        json.dump({"version": 0}, f)
    os.remove(layout.latest_hint)
    assert pds.latest_version(root) == 0
    assert [v["version"] for v in pds.open(root).versions()] == [0]
    with pytest.raises(DatasetError, match="no tag 'gold'"):
        pds.open(root, tag="gold")
    assert pds.write(root, {"x": [1]}) == 1
    assert pds.open(root).read().to_pydict() == {"x": [0, 1]}


def test_lost_races_retry_past_ten_attempts_until_the_patience_runs_out(tmp_path, monkeypatch):
    # A writer that keeps losing (here: every create of the next version "loses")
    # retries beyond MAX_ATTEMPTS while the patience lasts, then reports contention.
    import importlib

    from pqkit import CommitConflict
    commit = importlib.import_module("pqkit.dataset.pqds.commit")
    storage = importlib.import_module("pqkit.dataset.core.storage")
    root = str(tmp_path / "ds")
    pds.write(root, {"a": [1]}, mode="create")
    attempts, peers, inside = [], [], []
    real_create = storage.LocalStorage.create_version

    def always_lose(self, layout, tmp, dst, data):
        if inside:                          # the faster peer's own commit
            return real_create(self, layout, tmp, dst, data)
        attempts.append(dst)
        peers.append(dst)
        inside.append(True)
        try:
            pds.write(root, {"a": [0]})     # a faster peer commits first
        finally:
            inside.pop()
        return False

    monkeypatch.setattr(storage.LocalStorage, "create_version", always_lose)
    monkeypatch.setattr(commit, "_backoff", lambda attempt: time.sleep(0.01))
    # Long enough for more than MAX_ATTEMPTS lost rounds (each a peer's whole commit)
    # even on a machine loaded many times over.
    patience = 3.0
    monkeypatch.setattr(commit, "COMMIT_PATIENCE_S", patience)
    started = time.monotonic()
    with pytest.raises(CommitConflict) as info:
        pds.write(root, {"a": [2]})
    assert time.monotonic() - started >= patience
    assert len(attempts) > commit.MAX_ATTEMPTS
    assert info.value.retryable and info.value.reason == "contention"
    monkeypatch.setattr(commit, "COMMIT_PATIENCE_S", 0.0)
    attempts.clear()
    with pytest.raises(CommitConflict):
        pds.write(root, {"a": [3]})
    assert len(attempts) == commit.MAX_ATTEMPTS
    monkeypatch.undo()
    # only the peers' rows were committed besides the first one
    assert sorted(pds.open(root).read().to_pydict()["a"]) == [0] * len(peers) + [1]
