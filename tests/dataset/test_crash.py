"""Crash injection (§3.11, §3.14): a writer is SIGKILLed at every step of commit and publish.

Each case forks a writer process that kills itself at one named step
(``PQKIT_DATASET_CRASH_AT``). Afterwards the latest version must load, every
file it lists must resolve, the manifest read must equal either the old or the
new state (new exactly when the link happened), and after ``repair`` a plain
``pyarrow.dataset`` read of the root must equal the manifest read, with no
orphan left behind.
"""
import json
import os

import pytest
from dshelpers import pyarrow_rows, pyarrow_rows_untyped, row_set, run_forked

import pqkit.dataset as pds
from pqkit.dataset.pqds.paths import RootPaths

STEPS_BEFORE_COMMIT = ["stage.partial", "stage.written", "commit.tmp_partial",
                       "commit.tmp_written"]
STEPS_AFTER_COMMIT = ["commit.linked", "commit.committed", "publish.locked",
                      "publish.success_removed", "publish.moved_one", "publish.moved_all",
                      "publish.common_metadata", "publish.success_written"]
BASE = {"p": ["a", "b", "a/x", None], "x": [1, 2, 3, 4], "s": ["u", "v", "w", "y"]}
APPENDED = {"p": ["b", "c"], "x": [10, 11], "s": ["n1", "n2"]}
OVERWRITTEN = {"p": ["z", "a"], "x": [20, 21], "s": ["o1", "o2"]}


def _operation(kind, root):
    if kind == "append":
        return lambda: pds.write(root, APPENDED)
    if kind == "overwrite":
        return lambda: pds.write(root, OVERWRITTEN, mode="overwrite")
    return lambda: pds.write(root, {"p": ["b"], "x": [30], "s": ["r"]},
                             mode="replace_partitions")


def _expected(kind):
    base = row_set(BASE)
    if kind == "append":
        return base, sorted(base + row_set(APPENDED), key=repr)
    if kind == "overwrite":
        return base, row_set(OVERWRITTEN)
    new = [r for r in base if r[0] != "b"] + row_set({"p": ["b"], "x": [30], "s": ["r"]})
    return base, sorted(new, key=repr)


def _shadow_files(root):
    out = []
    for dirpath, _, names in os.walk(RootPaths(root).shadow_dir):
        out += [os.path.join(dirpath, n) for n in names]
    return out


@pytest.mark.parametrize("kind", ["append", "overwrite", "replace_partitions"])
@pytest.mark.parametrize("step", STEPS_BEFORE_COMMIT + STEPS_AFTER_COMMIT)
def test_crash_at_every_step(tmp_path, kind, step):
    root = str(tmp_path / "ds")
    # The planning index (a derived file of publish) is on for two of the three kinds.
    props = {"planning.index.min_files": "0" if kind != "append" else "1000"}
    pds.write(root, BASE, partition_by=["p"], mode="create", properties=props)
    old, new = _expected(kind)
    killed, code = run_forked(_operation(kind, root), crash_at=step)
    assert killed, f"the writer did not reach {step} (exit code {code})"

    ds = pds.open(root)
    committed = step in STEPS_AFTER_COMMIT
    assert ds.version == (1 if committed else 0)
    assert ds.verify("size").ok
    assert row_set(ds.read()) == (new if committed else old)

    report = pds.repair(root, grace=0)
    assert report["version"] == ds.version
    assert pyarrow_rows(root, ["p", "s", "x"]) == row_set(ds.read(), ["p", "s", "x"])
    assert pyarrow_rows_untyped(root, ["s", "x"]) == row_set(ds.read(), ["s", "x"])
    marker = pds.open(root).manifest
    layout = RootPaths(root)
    assert os.path.exists(layout.success) and os.path.exists(layout.common_metadata)
    assert not os.listdir(layout.tmp_dir) if os.path.isdir(layout.tmp_dir) else True
    referenced = {layout.shadow(f["path"]) for v in (0, ds.version)
                  for f in pds.open(root, version=v).manifest.files}
    assert set(_shadow_files(root)) <= referenced
    assert marker.version == ds.version


@pytest.mark.parametrize("step", ["commit.committed", "publish.moved_one"])
def test_next_writer_finishes_a_crashed_publish(tmp_path, step):
    root = str(tmp_path / "ds")
    pds.write(root, BASE, partition_by=["p"], mode="create")
    killed, _ = run_forked(_operation("overwrite", root), crash_at=step)
    assert killed
    success = RootPaths(root).success
    # Either _SUCCESS still describes version 0 exactly, or it is gone and sensors wait.
    if os.path.exists(success):
        assert json.load(open(success))["version"] == 0
        assert pyarrow_rows(root, ["p", "s", "x"]) == row_set(BASE, ["p", "s", "x"])
    else:
        assert step != "commit.committed"
    pds.write(root, APPENDED)                          # publishes versions 1 and 2 in order
    ds = pds.open(root)
    assert ds.version == 2
    assert pyarrow_rows(root, ["p", "s", "x"]) == row_set(ds.read(), ["p", "s", "x"])


def test_reader_with_publish_true_finishes_a_crashed_publish(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, BASE, partition_by=["p"], mode="create")
    assert run_forked(_operation("append", root), crash_at="publish.success_removed")[0]
    layout = RootPaths(root)
    assert not os.path.exists(layout.success)
    pds.open(root)                                     # read-only: does not publish
    assert not os.path.exists(layout.success)
    ds = pds.open(root, publish=True)
    assert os.path.exists(layout.success)
    assert pyarrow_rows(root, ["p", "s", "x"]) == row_set(ds.read(), ["p", "s", "x"])


def test_a_crashed_writer_leaves_old_readers_working(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, BASE, partition_by=["p"], mode="create")
    pinned = pds.open(root)
    assert run_forked(_operation("overwrite", root), crash_at="publish.moved_all")[0]
    pds.repair(root, grace=0)
    # The overwrite retired version 0's files to shadow: the pinned reader still finds them.
    assert row_set(pinned.read()) == row_set(BASE)
    assert row_set(pds.open(root).read()) == row_set(OVERWRITTEN)


def test_orphans_younger_than_the_grace_period_survive_repair(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, BASE, partition_by=["p"], mode="create")
    assert run_forked(_operation("append", root), crash_at="commit.tmp_written")[0]
    before = _shadow_files(root)
    report = pds.repair(root)                          # default grace: 7 days
    assert report["files_deleted"] == []
    assert _shadow_files(root) == before
    assert pds.vacuum(root, grace=0)["files_deleted"]
