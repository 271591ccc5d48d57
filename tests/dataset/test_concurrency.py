"""Concurrent writers (§3.6, §3.9, §3.11): no lost commit, contiguous versions, conflicts.

Writers are separate processes with no lock held for the commit: each appends
by link-if-absent and rebases on a lost race. Checks: 4 processes × 25 appends
give 100 commits with contiguous versions and the exact row total; an overwrite
racing appends never lets an append that read an older version commit after
the overwrite (append vs intervening overwrite is R in the conflict table).
"""
import json
import multiprocessing

import pytest
from dshelpers import pyarrow_rows, row_set

import pqkit.dataset as pds
from pqkit import CommitConflict

_ctx = multiprocessing.get_context("fork")


def _appender(root, proc, count, barrier, out):
    barrier.wait()
    results = []
    for i in range(count):
        try:
            v = pds.write(root, {"p": [f"w{proc % 2}"], "proc": [proc], "i": [i]})
            results.append({"proc": proc, "i": i, "version": v})
        except CommitConflict as exc:
            results.append({"i": i, "conflict": exc.conflicting_version,
                            "retryable": exc.retryable})
    with open(out, "w") as f:
        json.dump(results, f)


def _overwriter(root, count, barrier, out):
    import time
    barrier.wait()
    results = []
    for k in range(count):
        time.sleep(0.05)
        v = pds.write(root, {"p": ["o"], "proc": [-1], "i": [k]}, mode="overwrite")
        results.append({"k": k, "version": v})
    with open(out, "w") as f:
        json.dump(results, f)


def _run(procs):
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]


def _versions(root):
    return [v["version"] for v in pds.open(root).versions()]


def test_four_processes_append_twenty_five_times_each(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["w0"], "proc": [-1], "i": [-1]}, partition_by=["p"], mode="create")
    barrier = _ctx.Barrier(4)
    outs = [str(tmp_path / f"out{k}.json") for k in range(4)]
    _run([_ctx.Process(target=_appender, args=(root, k, 25, barrier, outs[k]))
          for k in range(4)])
    results = [json.load(open(o)) for o in outs]
    assert all("version" in r for res in results for r in res), "an append conflicted"
    committed = sorted(r["version"] for res in results for r in res)
    assert committed == list(range(1, 101))            # every commit got its own version
    assert _versions(root) == list(range(101))         # contiguous, nothing lost
    ds = pds.open(root)
    assert ds.row_count == 101 and ds.count() == 101
    pairs = sorted((r["proc"], r["i"]) for r in ds.read(columns=["proc", "i"]).to_pylist())
    assert pairs == [(-1, -1)] + [(p, i) for p in range(4) for i in range(25)]
    assert pyarrow_rows(root, ["i", "p", "proc"]) == row_set(ds.read(), ["i", "p", "proc"])
    attempts = [pds.open(root, version=v).operation["attempt"] for v in range(1, 101)]
    assert max(attempts) >= 1


def test_overwrite_racing_appends_follows_the_conflict_table(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["o"], "proc": [-1], "i": [-1]}, partition_by=["p"], mode="create")
    barrier = _ctx.Barrier(3)
    outs = [str(tmp_path / f"out{k}.json") for k in range(3)]
    _run([_ctx.Process(target=_appender, args=(root, k, 15, barrier, outs[k]))
          for k in range(2)] +
         [_ctx.Process(target=_overwriter, args=(root, 3, barrier, outs[2]))])
    appends = [r for k in range(2) for r in json.load(open(outs[k]))]
    overwrites = [r["version"] for r in json.load(open(outs[2]))]
    latest = pds.open(root).version
    assert _versions(root) == list(range(latest + 1))
    ops = {v: pds.open(root, version=v).operation for v in range(1, latest + 1)}
    assert sorted(v for v, op in ops.items() if op["type"] == "overwrite") == overwrites
    for v, op in ops.items():
        if op["type"] != "append":
            continue
        between = [w for w in overwrites if op["read_version"] < w < v]
        assert not between, f"append v{v} read v{op['read_version']} across overwrite {between}"
    for r in appends:
        if "conflict" in r:
            assert r["retryable"] is True
            assert ops[r["conflict"]]["type"] == "overwrite"
    # Final content: the last overwrite plus exactly the appends committed after it.
    last = overwrites[-1]
    after = {(r["proc"], r["i"]) for r in appends if r.get("version", -1) > last}
    got = {(r["proc"], r["i"]) for r in pds.open(root).read(columns=["proc", "i"]).to_pylist()}
    assert got == {(-1, 2)} | after
    assert len(appends) == 30


@pytest.mark.parametrize("mode", ["create"])
def test_racing_creates_one_wins_the_other_gets_dataset_exists(tmp_path, mode):
    root = str(tmp_path / "ds")
    barrier = _ctx.Barrier(2)
    outs = [str(tmp_path / f"c{k}.json") for k in range(2)]

    def create(k):
        barrier.wait()
        try:
            v = pds.write(root, {"x": [k]}, mode=mode)
            res = {"version": v}
        except pds.DatasetExists:
            res = {"exists": True}
        with open(outs[k], "w") as f:
            json.dump(res, f)
    _run([_ctx.Process(target=create, args=(k,)) for k in range(2)])
    results = [json.load(open(o)) for o in outs]
    assert sorted("exists" in r for r in results) == [False, True]
    assert pds.open(root).version == 0 and pds.open(root).row_count == 1
