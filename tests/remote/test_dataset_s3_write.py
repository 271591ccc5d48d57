"""Writing PQDS/1 datasets on the local S3 server: data files at their final keys,
the version file's conditional PUT as the commit, repair after a killed writer, and
concurrent writers (appends only, and mixed appends, merges, deletes and tags)."""
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid

import pyarrow.dataset as pads
import pytest

import pqkit.dataset as pds
import s3_mixed_worker
from pqkit.errors import SchemaError
from s3server import BUCKET

WORKER = os.path.join(os.path.dirname(__file__), "s3_append_worker.py")
MIXED_WORKER = os.path.join(os.path.dirname(__file__), "s3_mixed_worker.py")


def _url(name):
    return f"s3://{BUCKET}/{name}-{uuid.uuid4().hex}"


def _env():
    env = dict(os.environ)
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(src), env.get("PYTHONPATH", "")])
    return env


def _pyarrow_ids(s3, url):
    table = pads.dataset(url.removeprefix("s3://"), filesystem=s3.pyarrow_fs(),
                         format="parquet", partitioning="hive").to_table()
    return sorted(table.column("id").to_pylist())


def _keys(s3_fs, url):
    prefix = url.removeprefix("s3://")
    s3_fs.invalidate_cache(prefix)
    return sorted(p[len(prefix) + 1:] for p in s3_fs.find(prefix))


def test_write_append_overwrite_and_vacuum(s3, s3fs_options, s3_fs):
    url = _url("write")
    opts = s3fs_options
    assert pds.write(url, {"p": [1, 1, 2], "x": [1, 2, 3]}, partition_by=["p"],
                     mode="create", storage_options=opts) == 0
    assert pds.write(url, {"p": [3], "x": [4]}, storage_options=opts) == 1
    ds = pds.open(url, storage_options=opts)
    assert (ds.version, ds.file_count) == (1, 3)
    assert sorted(ds.read().column("x").to_pylist()) == [1, 2, 3, 4]
    keys = _keys(s3_fs, url)
    # data files at their final keys, nothing staged under _pqkit/shadow
    assert sum(k.endswith(".parquet") and "/" in k and not k.startswith("_") for k in keys) == 3
    assert not any(k.startswith("_pqkit/shadow/") for k in keys)
    assert {"_SUCCESS", "_common_metadata", "_pqkit/_latest"} <= set(keys)
    assert json.loads(s3_fs.cat_file(f"{url}/_pqkit/_latest")) == {"version": 1}

    assert pds.write(url, {"p": [5], "x": [9]}, mode="overwrite", storage_options=opts) == 2
    assert pds.open(url, storage_options=opts).read().column("x").to_pylist() == [9]
    assert _pyarrow_ids_or_x(s3, url) == [9]        # the overwritten files were retired
    old = pds.open(url, version=1, storage_options=opts)      # time travel reads them
    assert sorted(old.read().column("x").to_pylist()) == [1, 2, 3, 4]
    shadows = [k for k in _keys(s3_fs, url) if k.startswith("_pqkit/shadow/")]
    assert len(shadows) == 3
    out = pds.vacuum(url, grace=0, retention=0, keep_last=1, storage_options=opts)
    assert out["versions_deleted"] == [0, 1]
    assert sorted(out["files_deleted"]) == sorted(shadows)
    assert pds.open(url, storage_options=opts).read().column("x").to_pylist() == [9]


def _pyarrow_ids_or_x(s3, url):
    table = pads.dataset(url.removeprefix("s3://"), filesystem=s3.pyarrow_fs(),
                         format="parquet", partitioning="hive").to_table()
    return sorted(table.column("x").to_pylist())


def test_four_processes_append_25_times_each(s3, s3fs_options):
    url = _url("appends")
    pds.write(url, {"w": [-1], "id": [-1]}, partition_by=["w"], mode="create",
              storage_options=s3fs_options)
    procs = [subprocess.Popen([sys.executable, WORKER, url, json.dumps(s3fs_options),
                               str(w), "25"], env=_env(), stderr=subprocess.PIPE)
             for w in range(4)]
    errors = [p.communicate(timeout=600)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    ds = pds.open(url, storage_options=s3fs_options)
    assert ds.version == 100
    versions = ds.versions()
    assert [v["version"] for v in versions] == list(range(101))       # contiguous
    assert sorted(v["run_id"] for v in versions[1:]) == \
        sorted(f"w{w}:{i}" for w in range(4) for i in range(25))      # each append once
    expected = sorted([-1] + [w * 1000 + k for w in range(4) for k in range(50)])
    assert sorted(ds.read().column("id").to_pylist()) == expected     # none lost or doubled
    assert ds.file_count == 101
    pds.publish(url, storage_options=s3fs_options)
    assert _pyarrow_ids(s3, url) == expected


def test_four_processes_mix_25_operations_each(s3, s3fs_options):
    """Appends, merges, deletes and tags from 4 processes on one s3 dataset: every
    commit took exactly one version (contiguous, none twice), each committed operation
    is in the history once, and the rows equal the oracle (no row lost or doubled)."""
    url = _url("mixed")
    pds.write(url, {"w": [-1], "id": [-1], "v": [-1.0]}, partition_by=["w"], mode="create",
              storage_options=s3fs_options)
    procs = [subprocess.Popen([sys.executable, MIXED_WORKER, url, json.dumps(s3fs_options),
                               str(w), "25"], env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for w in range(4)]
    outputs = [p.communicate(timeout=900) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [e.decode() for _, e in outputs]
    logs = [[json.loads(line) for line in out.decode().splitlines()] for out, _ in outputs]
    plans = [s3_mixed_worker.plan(w, 25) for w in range(4)]
    assert [[(e["op"], e["kind"]) for e in log] for log in logs] == \
        [[(i, kind) for i, (kind, _) in enumerate(p)] for p in plans]
    committed = sorted(e["version"] for log in logs for e in log if e["kind"] != "tag")
    assert committed == list(range(1, len(committed) + 1))        # contiguous, none twice
    ds = pds.open(url, storage_options=s3fs_options)
    assert ds.version == len(committed)
    history = ds.versions()
    assert [v["version"] for v in history] == list(range(ds.version + 1))
    assert sorted(v["run_id"] for v in history[1:]) == sorted(
        f"w{w}:{e['op']}" for w, log in enumerate(logs) for e in log if e["kind"] != "tag")
    expected = [(-1, -1, -1.0)] + s3_mixed_worker.expected_rows(4, 25)
    got = ds.read().to_pydict()
    assert sorted(zip(got["w"], got["id"], got["v"])) == expected
    pds.publish(url, storage_options=s3fs_options)
    assert _pyarrow_ids(s3, url) == sorted(r[1] for r in expected)
    for w, log in enumerate(logs):                    # every tag names a committed version
        for e in log:
            if e["kind"] == "tag":
                tagged = pds.open(url, tag=f"w{w}-{e['op']}", storage_options=s3fs_options)
                assert 0 <= tagged.version <= ds.version


def test_a_writer_killed_at_a_random_moment_leaves_a_repairable_dataset(s3, s3fs_options,
                                                                       s3_fs, tmp_path):
    url = _url("killed")
    pds.write(url, {"w": [-1], "id": [-1]}, partition_by=["w"], mode="create",
              storage_options=s3fs_options)
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, WORKER, url, json.dumps(s3fs_options), "0",
                             "1000", str(ready)], env=_env(), stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), proc.stderr.read().decode()
        time.sleep(random.uniform(0.0, 1.0))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    ds = pds.open(url, storage_options=s3fs_options)
    committed = sorted(ds.read().column("id").to_pylist())
    assert committed == [-1] + list(range(2 * ds.version))           # whole appends only
    out = pds.repair(url, grace=0, storage_options=s3fs_options)
    assert out["version"] == ds.version
    live = {f.path for f in pds.open(url, storage_options=s3fs_options).files()}
    visible = {k for k in _keys(s3_fs, url) if k.endswith(".parquet") and
               not k.startswith("_")}
    assert visible == live                  # orphans of the killed append are gone
    assert not any(k.startswith(("_pqkit/shadow/", "_pqkit/tmp/")) for k in _keys(s3_fs, url))
    assert _pyarrow_ids(s3, url) == committed
    # and it stays writable
    assert pds.write(url, {"w": [9], "id": [9999]}, storage_options=s3fs_options) == \
        ds.version + 1



@pytest.mark.parametrize("step", ["stage.written", "commit.committed", "publish.locked"])
def test_a_writer_killed_at_a_fixed_step_leaves_a_repairable_dataset(s3, s3fs_options, s3_fs,
                                                                     step):
    """The random kill above may land anywhere; these land after the data file's PUT
    (an orphan at its final key), after the commit PUT, and before the publish."""
    url = _url("crash")
    pds.write(url, {"w": [-1], "id": [-1]}, partition_by=["w"], mode="create",
              storage_options=s3fs_options)
    env = _env()
    env["PQKIT_DATASET_CRASH_AT"] = f"{step}:2"             # the second append dies
    proc = subprocess.run([sys.executable, WORKER, url, json.dumps(s3fs_options), "0", "3"],
                          env=env, stderr=subprocess.PIPE, timeout=120, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    committed = 2 if step == "stage.written" else 3
    ds = pds.open(url, storage_options=s3fs_options)
    assert ds.version == committed - 1
    assert sorted(ds.read().column("id").to_pylist()) == [-1] + list(range(2 * (committed - 1)))
    out = pds.repair(url, grace=0, storage_options=s3fs_options)
    if step == "stage.written":
        assert len(out["retired"]) == 1 and len(out["files_deleted"]) == 1
        names = pds.Layout("/names")                 # the hidden name of the retired file
        hidden = names.relpath(names.shadow(out["retired"][0]))
        assert out["files_deleted"] == [hidden] and os.path.basename(hidden).startswith("_")
    live = {f.path for f in pds.open(url, storage_options=s3fs_options).files()}
    keys = _keys(s3_fs, url)
    assert {k for k in keys if k.endswith(".parquet") and not k.startswith("_")} == live
    assert json.loads(s3_fs.cat_file(f"{url}/_pqkit/_latest")) == {"version": committed - 1}
    assert json.loads(s3_fs.cat_file(f"{url}/_SUCCESS"))["version"] == committed - 1
    assert _pyarrow_ids(s3, url) == sorted(ds.read().column("id").to_pylist())


@pytest.mark.parametrize("step, committed", [
    ("stage.written", False), ("commit.committed", True), ("publish.success_removed", True),
    ("publish.moved_one", True)])
def test_a_merge_killed_at_a_fixed_step_leaves_a_repairable_dataset(s3, s3fs_options, s3_fs,
                                                                    step, committed):
    """A merge (rewrites a file, retires it, adds files) killed before its commit PUT,
    after it, and in the middle of publishing: the dataset opens at the old or the new
    state, never between, and repair leaves exactly the live files visible."""
    url = _url("merge-crash")
    opts = s3fs_options
    pds.write(url, {"p": [1, 1, 2], "id": [1, 2, 3], "v": [1.0, 2.0, 3.0]},
              partition_by=["p"], mode="create", storage_options=opts)
    old = {(1, 1, 1.0), (1, 2, 2.0), (2, 3, 3.0)}
    new = {(1, 1, 1.0), (1, 2, -2.0), (2, 3, 3.0), (2, 9, 9.0)}
    code = ("import pqkit.dataset as pds; "
            "pds.merge(%r, {'p': [1, 2], 'id': [2, 9], 'v': [-2.0, 9.0]}, on=['id'], "
            "storage_options=%r)" % (url, opts))
    env = dict(_env(), PQKIT_DATASET_CRASH_AT=step)
    proc = subprocess.run([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE,
                          timeout=120, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()

    def state():
        got = pds.open(url, storage_options=opts).read().to_pydict()
        return set(zip(got["p"], got["id"], got["v"]))
    assert state() == (new if committed else old)
    pds.repair(url, grace=0, storage_options=opts)
    assert state() == (new if committed else old)
    live = {f.path for f in pds.open(url, storage_options=opts).files()}
    visible = {k for k in _keys(s3_fs, url) if k.endswith(".parquet") and
               not k.startswith("_")}
    assert visible == live
    assert _pyarrow_ids(s3, url) == sorted(i for _, i, _ in (new if committed else old))


def test_delete_and_compact_on_s3(s3, s3fs_options, s3_fs):
    url = _url("maintain")
    opts = s3fs_options
    pds.write(url, {"p": [1, 1, 2], "x": [1, 2, 3]}, partition_by=["p"], mode="create",
              storage_options=opts)
    pds.write(url, {"p": [1, 2], "x": [4, 5]}, storage_options=opts)
    assert pds.delete(url, [("x", "==", 2)], storage_options=opts) == 2
    ds = pds.open(url, storage_options=opts)
    assert sorted(ds.read().column("x").to_pylist()) == [1, 3, 4, 5]
    assert pds.compact(url, storage_options=opts) == 3
    ds = pds.open(url, storage_options=opts)
    assert ds.file_count == 2                                  # one per partition
    assert sorted(ds.read().column("x").to_pylist()) == [1, 3, 4, 5]
    assert _pyarrow_ids_or_x(s3, url) == [1, 3, 4, 5]          # retired files left the view


def test_retiring_files_lists_nothing(s3, s3fs_options):
    """A delete, a compaction and a restore retire files (a server-side copy to the
    shadow key, then a delete) with one CopyObject each and no listing."""
    url = _url("retire")
    opts = s3fs_options
    pds.write(url, {"p": [1, 1, 2], "x": [1, 2, 3]}, partition_by=["p"], mode="create",
              storage_options=opts)
    pds.write(url, {"p": [1, 2], "x": [4, 5]}, storage_options=opts)
    for operation in (lambda: pds.delete(url, [("x", "==", 2)], storage_options=opts),
                      lambda: pds.compact(url, storage_options=opts),
                      lambda: pds.restore(url, 1, storage_options=opts)):
        mark = s3.log.mark()
        operation()
        requests = s3.log.since(mark)
        assert not any(r.is_list for r in requests), \
            [(r.method, r.path, r.query) for r in requests if r.is_list]
    assert sorted(pds.open(url, storage_options=opts).read().column("x").to_pylist()) == \
        [1, 2, 3, 4, 5]
    assert _pyarrow_ids_or_x(s3, url) == [1, 2, 3, 4, 5]


def test_a_failing_write_leaves_no_object(s3, s3fs_options, s3_fs):
    url = _url("failing")
    pds.write(url, {"x": [1]}, mode="create", storage_options=s3fs_options)
    before = _keys(s3_fs, url)
    # the writer fails inside the data file's upload: the upload is aborted
    with pytest.raises(SchemaError, match="bad writer option"):
        pds.write(url, {"x": [2]}, no_such_option=1, storage_options=s3fs_options)
    assert _keys(s3_fs, url) == before
    assert pds.open(url, storage_options=s3fs_options).read().column("x").to_pylist() == [1]
