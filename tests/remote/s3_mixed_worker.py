"""A writer process for the object-store concurrency test: ``count`` mixed operations.

Usage: ``python s3_mixed_worker.py URL OPTIONS_JSON WORKER COUNT``.

Worker ``w`` appends, merges (updates one of its rows and inserts one), deletes one of
its rows, or tags the current version, in an order fixed by :func:`plan`; it only ever
touches rows of partition ``w`` with ids ``w * 10000 + …``, so the workers' operations
commute and :func:`expected_rows` is the dataset after all of them, whatever their
interleaving. Every commit carries ``run_id = "w<w>:<i>"``; a retryable CommitConflict
is retried. Each operation prints one JSON line: its index, kind and the version it
committed (None for a tag).
"""
import json
import random
import sys

import pqkit.dataset as pds
from pqkit.errors import CommitConflict

KINDS = ("append", "append", "merge", "delete", "tag")


def plan(worker, count):
    """[(kind, payload)] of the worker's operations, replayed on its own rows."""
    rows, out = {}, []
    for i in range(count):
        rng = random.Random(worker * 7919 + i)
        kind = rng.choice(KINDS)
        base = worker * 10000 + i * 10
        if kind in ("merge", "delete") and not rows:
            kind = "append"
        if kind == "append":
            payload = {base: float(base), base + 1: float(base + 1)}
            rows.update(payload)
        elif kind == "merge":
            old = rng.choice(sorted(rows))
            payload = {old: -float(old), base + 5: float(base + 5)}
            rows.update(payload)
        elif kind == "delete":
            payload = rng.choice(sorted(rows))
            del rows[payload]
        else:
            payload = f"w{worker}-{i}"
        out.append((kind, payload))
    return out


def expected_rows(workers, count):
    """Sorted (w, id, v) of the dataset after every worker's operations."""
    out = []
    for w in range(workers):
        rows = {}
        for kind, payload in plan(w, count):
            if kind in ("append", "merge"):
                rows.update(payload)
            elif kind == "delete":
                del rows[payload]
        out += [(w, k, v) for k, v in rows.items()]
    return sorted(out)


def _batch(worker, rows):
    ids = sorted(rows)
    return {"w": [worker] * len(ids), "id": ids, "v": [rows[k] for k in ids]}


def _run(url, options, worker, i, kind, payload):
    run_id = f"w{worker}:{i}"
    if kind == "append":
        return pds.write(url, _batch(worker, payload), run_id=run_id, storage_options=options)
    if kind == "merge":
        return pds.merge(url, _batch(worker, payload), on=["id"], run_id=run_id,
                         storage_options=options)
    if kind == "delete":
        return pds.delete(url, [("id", "==", payload)], run_id=run_id,
                          storage_options=options)
    pds.tag(url, payload, storage_options=options)
    return None


def main(url, options, worker, count):
    for i, (kind, payload) in enumerate(plan(worker, count)):
        for _ in range(100):
            try:
                version = _run(url, options, worker, i, kind, payload)
                break
            except CommitConflict as exc:
                if not exc.retryable:
                    raise
        else:
            raise SystemExit(f"worker {worker}: operation {i} ({kind}) never committed")
        print(json.dumps({"op": i, "kind": kind, "version": version}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
