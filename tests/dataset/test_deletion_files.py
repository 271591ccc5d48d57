"""Deletion files (PQDS/1 feature ``deletion_vectors``, core/deletion_file.py): a dataset
with ``deletes="files"`` deletes rows by recording their positions, never rewriting a
data file; every pqkit read applies them, compaction folds them, vacuum collects them,
and a SIGKILLed delete leaves the old or the new version."""
import os
import random

import numpy as np
import pytest
from dshelpers import pyarrow_rows, row_set, run_forked

import pqkit.dataset as pds
from pqkit.dataset.core import snapshot
from pqkit.dataset.core.storage import LocalStorage
from pqkit.dataset.pqds import maintenance
from pqkit.dataset.pqds import paths as pqds_paths
from pqkit.errors import CommitConflict, DatasetError, UnsupportedFeature

N = 200
FILES = {"p": ["a"] * 100 + ["b"] * 100}


def _create(root, deletes="files", options=None, n=N, **writer_options):
    """A dataset of ``n`` rows (``id`` 0..n-1, value ``v = 2 * id``) in partitions a and b,
    row groups of 30 rows."""
    props = {} if deletes is None else {"deletes": deletes}
    data = {"id": np.arange(n, dtype=np.int64), "v": np.arange(n) * 2.0,
            "p": ["a"] * (n // 2) + ["b"] * (n - n // 2)}
    pds.write(root, data, partition_by=["p"], mode="create", properties=props,
              row_group_size=30, storage_options=options, **writer_options)


def _ids(ds, **kwargs):
    return sorted(ds.read(**kwargs).column("id").to_pylist())


def _data_file_bytes(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith((".parquet", ".parquet.shadow")):
                with open(os.path.join(dirpath, name), "rb") as f:
                    out[name.lstrip("_").removesuffix(".shadow")] = f.read()
    return out


def _deletion_files(root):
    top = os.path.join(root, "_pqkit", "deletions")
    return sorted(os.listdir(top)) if os.path.isdir(top) else []


def test_delete_writes_deletion_files_and_leaves_the_data_files_alone(tmp_path):
    root = str(tmp_path / "ds")
    _create(root)
    before = _data_file_bytes(root)
    v = pds.delete(root, [("id", "in", [3, 4, 150])])
    ds = pds.open(root)
    assert v == 1 and ds.operation["type"] == "delete"
    assert ds.manifest.data["reader_features"] == ["deletion_vectors"]
    assert _data_file_bytes(root) == before                # nothing rewritten or moved
    records = {f["partition"]["p"]: f["deletions"] for f in ds.manifest.files}
    assert [records["a"]["rows"], records["b"]["rows"]] == [2, 1]
    assert all(r["size"] < 4096 and r["path"].endswith(".pqdel") for r in records.values())
    assert len(_deletion_files(root)) == 2
    expected = [i for i in range(N) if i not in (3, 4, 150)]
    assert _ids(ds) == expected
    assert ds.row_count == ds.count() == N - 3
    assert ds.count([("p", "==", "a")]) == 98               # from the manifest alone
    assert ds.count([("id", "<", 10)]) == 8
    assert _ids(ds, filters=[("id", "<", 10)]) == [0, 1, 2, 5, 6, 7, 8, 9]
    assert _ids(ds, filters=[("v", "in", [6.0, 10.0])]) == [5]
    assert ds.read(columns=["p"]).num_rows == N - 3
    assert ds.operation["metrics"]["rows_removed"] == 3
    # time travel: the version before the delete still has the rows
    assert _ids(pds.open(root, version=0)) == list(range(N))


def test_a_second_delete_writes_the_union_and_a_fully_deleted_file_is_dropped(tmp_path):
    root = str(tmp_path / "ds")
    _create(root)
    pds.delete(root, [("id", "==", 3)])
    first = pds.open(root).manifest.files[0]["deletions"]
    pds.delete(root, [("id", "in", [3, 7])])               # 3 is gone already
    ds = pds.open(root)
    second = ds.manifest.files[0]["deletions"]
    assert second["rows"] == 2 and second["path"] != first["path"]
    assert first["path"].rsplit("/", 1)[1] in _deletion_files(root)  # immutable, kept
    assert ds.version == 2 and 3 not in _ids(ds) and 7 not in _ids(ds)
    assert pds.delete(root, [("id", "==", 3)]) == 2       # nothing left to delete: no version
    pds.delete(root, [("id", "<", 100)])                   # the rest of partition a
    ds = pds.open(root)
    assert ds.file_count == 1 and ds.operation["removed"]
    assert _ids(ds) == list(range(100, N))
    assert _ids(pds.open(root, version=1)) == [i for i in range(N) if i != 3]


def test_compact_folds_deletion_files_and_vacuum_removes_them(tmp_path):
    root = str(tmp_path / "ds")
    _create(root)
    pds.delete(root, [("id", "in", [1, 2, 120])])
    pds.delete(root, [("id", "==", 130)])
    assert len(_deletion_files(root)) == 3
    pds.compact(root)
    ds = pds.open(root)
    assert ds.operation["type"] == "compact"
    assert not any(f.get("deletions") for f in ds.manifest.files)
    assert ds.manifest.data["reader_features"] == []
    expected = [i for i in range(N) if i not in (1, 2, 120, 130)]
    assert _ids(ds) == expected
    # after compaction plain readers agree, as every file holds live rows only
    assert sorted(r[0] for r in pyarrow_rows(root, ["id"])) == expected
    report = pds.vacuum(root, retention=0, keep_last=1, grace=0)
    assert sum(p.startswith("_pqkit/deletions/") for p in report["files_deleted"]) == 3
    assert _deletion_files(root) == []
    assert _ids(pds.open(root)) == expected


def test_vacuum_keeps_the_deletion_files_of_retained_versions(tmp_path):
    root = str(tmp_path / "ds")
    _create(root)
    pds.delete(root, [("id", "==", 5)])
    pds.delete(root, [("id", "==", 6)])
    pds.vacuum(root, retention=0, keep_last=1, grace=0)
    assert len(_deletion_files(root)) == 1                 # the first is unreferenced now
    assert _ids(pds.open(root)) == [i for i in range(N) if i not in (5, 6)]


def test_a_version_opened_through_its_planning_index_applies_deletion_files(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"id": np.arange(100), "p": ["a"] * 50 + ["b"] * 50}, partition_by=["p"],
              mode="create", properties={"deletes": "files", "planning.index.min_files": "0"})
    pds.delete(root, [("id", "in", [1, 60])])
    pqds_paths._cache.clear()
    ds = pds.open(root)
    assert ds._manifest is None                  # the head came from the planning index
    assert ds.row_count == ds.count() == ds.read().num_rows == 98
    assert ds.read(filters=[("p", "==", "a")]).num_rows == ds.count([("p", "==", "b")]) == 49


def test_verify_reports_a_missing_deletion_file(tmp_path):
    root = str(tmp_path / "ds")
    _create(root)
    pds.delete(root, [("id", "==", 5)])
    assert pds.open(root).verify("exists").ok
    os.remove(os.path.join(root, pds.open(root).manifest.files[0]["deletions"]["path"]))
    report = pds.open(root).verify("exists")
    assert len(report.problems) == 1
    assert "deletion file" in report.problems[0]["problem"]


def test_plain_hive_readers_see_deleted_rows_until_compaction(tmp_path):
    """Why it is opt-in (docs/DATASET.md): pyarrow.dataset reads the visible files as they
    are."""
    root = str(tmp_path / "ds")
    _create(root)
    pds.delete(root, [("id", "==", 5)])
    assert len(pyarrow_rows(root, ["id"])) == N
    assert pds.open(root).count() == N - 1


def test_a_pqkit_without_the_feature_refuses_the_version(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    _create(root)
    pds.delete(root, [("id", "==", 5)])
    monkeypatch.setattr(snapshot, "SUPPORTED_READER_FEATURES", frozenset({"column_mapping"}))
    pqds_paths._cache.clear()              # as a fresh process of the older pqkit
    with pytest.raises(UnsupportedFeature, match="deletion_vectors"):
        pds.open(root).read()
    assert pds.open(root, version=0).count() == N           # the older version has no files


def test_default_is_copy_on_write_and_the_property_is_checked(tmp_path):
    root = str(tmp_path / "ds")
    _create(root, deletes=None)
    pds.delete(root, [("id", "==", 5)])
    ds = pds.open(root)
    assert _deletion_files(root) == [] and ds.manifest.data["reader_features"] == []
    assert ds.count() == N - 1
    # turned on later: a commit carrying the property
    pds.write(root, {"id": [1000], "v": [0.0], "p": ["c"]}, properties={"deletes": "files"})
    pds.delete(root, [("id", "==", 6)])
    assert len(_deletion_files(root)) == 1
    bad = str(tmp_path / "bad")
    _create(bad, deletes="sometimes")
    with pytest.raises(DatasetError, match="deletes='sometimes'"):
        pds.delete(bad, [("id", "==", 5)])


def test_merge_restore_and_index_reads_honour_deletion_files(tmp_path):
    root = str(tmp_path / "ds")
    _create(root)
    pds.build_index(root, "id")
    pds.delete(root, [("id", "in", [10, 11])])
    ds = pds.open(root)
    assert _ids(ds, filters=[("id", "in", [10, 11, 12])]) == [12]   # index, then positions
    pds.merge(root, {"id": [12, 500], "v": [-1.0, -2.0], "p": ["a", "a"]}, on=["id"])
    ds = pds.open(root)
    assert _ids(ds) == [i for i in range(N) if i not in (10, 11)] + [500]
    assert ds.read(filters=[("id", "==", 12)]).column("v").to_pylist() == [-1.0]
    pds.restore(root, 0)
    assert _ids(pds.open(root)) == list(range(N))
    pds.restore(root, 2)
    assert _ids(pds.open(root)) == [i for i in range(N) if i not in (10, 11)]


def test_concurrent_deletes_of_one_file_conflict(tmp_path, monkeypatch):
    """Two deletion files for one data file would lose the rows of the first: the later
    commit conflicts (retryable) instead."""
    root = str(tmp_path / "ds")
    _create(root)
    real = maintenance.Change.commit
    calls = []

    def commit_after_another_delete(self, *args, **kwargs):
        if not calls:
            calls.append(1)
            pds.delete(root, [("id", "==", 20)])            # commits first
        return real(self, *args, **kwargs)

    monkeypatch.setattr(maintenance.Change, "commit", commit_after_another_delete)
    with pytest.raises(CommitConflict, match="deleted rows of files") as info:
        pds.delete(root, [("id", "==", 21)])
    assert info.value.retryable
    monkeypatch.setattr(maintenance.Change, "commit", real)
    pds.delete(root, [("id", "==", 21)])                   # the retry sees both
    assert [i for i in range(N) if i not in _ids(pds.open(root))] == [20, 21]


def test_deletes_on_every_store(store):
    root, o = store.root, store.options
    k = list(range(N))
    pds.write(root, {"k": k, "p": FILES["p"], "v": [2.0 * i for i in k]}, partition_by=["p"],
              mode="create", properties={"deletes": "files"}, storage_options=o)
    pds.delete(root, [("k", "in", [0, 199])], storage_options=o)
    ds = store.open()
    assert sorted(ds.read().column("k").to_pylist()) == k[1:-1]
    assert all(f["deletions"]["rows"] == 1 for f in ds.manifest.files)
    assert store.open(version=0).count() == N
    assert len(store.pyarrow_rows()) == N                  # plain readers: until compaction
    pds.compact(root, storage_options=o)
    assert not any(f.get("deletions") for f in store.open().manifest.files)
    assert [r[0] for r in store.pyarrow_rows()] == k[1:-1]
    report = pds.vacuum(root, retention=0, keep_last=1, grace=0, storage_options=o)
    assert sum(p.startswith("_pqkit/deletions/") for p in report["files_deleted"]) == 2


# --- crash safety ----------------------------------------------------------------------------
_STORAGE_OPS = [name for name, f in vars(LocalStorage).items()
                if callable(f) and not name.startswith("_")]


def _kill_after(n):
    """Make this process SIGKILL itself at its ``n``-th storage operation."""
    count = [0]
    for name in _STORAGE_OPS:
        real = getattr(LocalStorage, name)

        def counted(*args, _real=real, **kwargs):
            count[0] += 1
            if count[0] >= n:
                os.kill(os.getpid(), 9)
            return _real(*args, **kwargs)
        setattr(LocalStorage, name, counted)
    return count


CRASH_IDS = [7 * i for i in range(40)]        # one row in each of 40 files


def _crash_dataset(root):
    data = {"id": np.arange(400, dtype=np.int64), "k": np.arange(400) % 40}
    pds.write(root, data, partition_by=["k"], mode="create", properties={"deletes": "files"})
    pds.delete(root, [("id", "==", 1)])                    # file k=1 has a deletion file


def _storage_ops_of_a_delete(root):
    """How many storage operations the delete of the crash test makes, counted in a child."""
    _crash_dataset(root)
    pipe_r, pipe_w = os.pipe()

    def counting():
        seen = _kill_after(10 ** 9)
        pds.delete(root, [("id", "in", CRASH_IDS)])
        os.write(pipe_w, str(seen[0]).encode())
    killed, code = run_forked(counting)
    os.close(pipe_w)
    assert not killed and code == 0
    return int(os.read(pipe_r, 32))


def test_a_delete_killed_after_any_storage_operation_leaves_old_or_new(tmp_path):
    template = str(tmp_path / "template")
    _crash_dataset(template)
    old = _ids(pds.open(template))
    new = [i for i in old if i not in CRASH_IDS]
    total = _storage_ops_of_a_delete(str(tmp_path / "counted"))
    rng = random.Random(34)
    points = sorted(rng.sample(range(1, total + 1), min(total, 60)))
    assert len(points) >= 50, f"a delete makes only {total} storage operations"
    outcomes = set()
    for n in points:
        root = str(tmp_path / f"run{n}")
        _crash_dataset(root)
        killed, code = run_forked(lambda: (_kill_after(n),
                                           pds.delete(root, [("id", "in", CRASH_IDS)])))
        assert killed, f"the delete finished before storage operation {n} (exit {code})"
        ds = pds.open(root)
        assert ds.version in (1, 2), n
        assert _ids(ds) == (old if ds.version == 1 else new), n
        assert ds.count() == len(_ids(ds)), n
        outcomes.add(ds.version)
        pds.repair(root, grace=0)
        pds.vacuum(root, retention=0, keep_last=1, grace=0)
        assert _ids(pds.open(root)) == (old if ds.version == 1 else new), n
        referenced = {f["deletions"]["path"].rsplit("/", 1)[1]
                      for f in pds.open(root).manifest.files if f.get("deletions")}
        assert set(_deletion_files(root)) == referenced, n
    assert outcomes == {1, 2}                  # killed both before and after the commit
