#!/usr/bin/env python3
"""Filtered reads and ``take``: pqkit against pyarrow, in one interleaved run.

The file (issue 29's): ``--rows`` rows (1M) of a sorted int64 ``id``, a float64 ``x``
and a string ``s`` of 1,000 distinct values, plus a ``list<int64>`` column ``l``;
written by pyarrow with 100k-row row groups, page index and 64 KiB pages, snappy.

Cases, each timed for pyarrow (``pq.read_table(filters=...)``), pqkit with a filter,
and pqkit reading the same columns without a filter (the "whole" column: what a
filter must beat when it prunes, and come near when it prunes nothing):

- ``range10``: ``id >= 300_000 and id < 400_000`` (10 %), columns id, x, s
- ``point``: ``id == 777_777`` (1 row), columns id, x, s
- ``ne_str``: ``s != "zzz"`` (prunes nothing; the statistics prove every row matches)
- ``ne_mid``: ``s != "value-00500-kkkkkkk"`` (prunes nothing, and nothing proves it:
  the filter is evaluated on every row), columns id, x, s
- ``point_list``: ``id == 123_456``, columns id, l
- ``take100``: 100 random rows; pyarrow ``read_table(...).take(rows)``

Each row is measured single-threaded and with each library's default threads.
Rounds interleave the contenders (``io_bench.best_of_interleaved``); best time shown.

``--before DIR`` adds an earlier pqkit as a contender in the same run: DIR holds a copy
of that commit's ``src/pqkit`` renamed to the package ``pqkit_before`` (its imports
rewritten to that name, the built extensions copied in), imported after ``pqkit``.

Usage: python tools/bench/filter_bench.py [--rows N] [--repeat N] [--min-time S]
       [--json out.json] [--before DIR]
"""
import importlib
import argparse
import json
import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import pqkit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_bench import best_of_interleaved  # noqa: E402

COLS3 = ["id", "x", "s"]


def make_file(path, rows, seed=7):
    rng = np.random.default_rng(seed)
    words = np.array([f"value-{i:05d}-{'k' * (i % 17)}" for i in range(1000)], object)
    lengths = rng.integers(0, 5, rows)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    table = pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "x": pa.array(rng.standard_normal(rows)),
        "s": pa.array(words[rng.integers(0, 1000, rows)]),
        "l": pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)),
                                      pa.array(rng.integers(0, 1 << 40, offsets[-1]))),
    })
    pq.write_table(table, path, row_group_size=100_000, write_page_index=True,
                   data_page_size=64 << 10, compression="snappy")


def cases(rows, rng):
    take_rows = np.sort(rng.choice(rows, 100, replace=False))
    return {
        "range10": (COLS3, [("id", ">=", int(rows * 0.3)), ("id", "<", int(rows * 0.4))]),
        "point": (COLS3, [("id", "==", int(rows * 0.777777))]),
        "ne_str": (COLS3, [("s", "!=", "zzz")]),
        "ne_mid": (COLS3, [("s", "!=", "value-00500-" + "k" * (500 % 17))]),
        "point_list": (["id", "l"], [("id", "==", int(rows * 0.123456))]),
        "take100": (COLS3, take_rows),
    }


def contenders(path, columns, how, threads, before=None):
    if isinstance(how, np.ndarray):
        def pa_take():
            return pq.read_table(path, columns=columns, use_threads=threads).take(how)

        def pq_take():
            with pqkit.ParquetFile(path) as f:
                return f.take(how, columns=columns, use_threads=threads)
        out = {"pyarrow": pa_take, "pqkit": pq_take}
        if before is not None:
            def old_take():
                with before.ParquetFile(path) as f:
                    return f.take(how, columns=columns)
            out["pqkit before"] = old_take
        return out
    out = {
        "pyarrow": lambda: pq.read_table(path, columns=columns, filters=how,
                                         use_threads=threads),
        "pqkit": lambda: pqkit.read_table(path, columns=columns, filters=how,
                                          use_threads=threads),
        "pqkit whole": lambda: pqkit.read_table(path, columns=columns, use_threads=threads),
    }
    if before is not None:
        out["pqkit before"] = lambda: before.read_table(path, columns=columns, filters=how,
                                                        use_threads=threads)
    return out


def check(path, columns, how):
    """pqkit's rows equal pyarrow's (a wrong answer must not be timed as a win)."""
    ref = contenders(path, columns, how, True)
    ours = pa.table(ref["pqkit"]())
    theirs = ref["pyarrow"]()
    if not ours.equals(theirs.cast(ours.schema)):
        raise SystemExit(f"pqkit and pyarrow disagree on {how!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--json")
    ap.add_argument("--before", help="directory holding the package pqkit_before")
    args = ap.parse_args()
    before = None
    if args.before:
        sys.path.insert(0, args.before)
        before = importlib.import_module("pqkit_before")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "filtered.parquet")
        make_file(path, args.rows)
        for name, (columns, how) in cases(args.rows, np.random.default_rng(1)).items():
            check(path, columns, how)
            for threads in (False, True):
                best = best_of_interleaved(contenders(path, columns, how, threads, before),
                                           args.repeat, args.min_time)
                results.append({"case": name, "threads": threads,
                                **{k: v * 1e3 for k, v in best.items()}})
    print(f"{'case':<11} {'threads':<8} {'pyarrow':>9} {'pqkit':>9} {'whole':>9} "
          f"{'before':>9} {'pq/pa':>6} {'pq/whole':>8} {'pq/before':>9}")
    for r in results:
        ours, whole, old = r["pqkit"], r.get("pqkit whole"), r.get("pqkit before")
        print(f"{r['case']:<11} {'default' if r['threads'] else 'one':<8} "
              f"{r['pyarrow']:>7.2f}ms {ours:>7.2f}ms {_ms(whole):>9} {_ms(old):>9} "
              f"{ours / r['pyarrow']:>6.2f} {_ratio(ours, whole):>8} {_ratio(ours, old):>9}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


def _ms(v):
    return f"{v:7.2f}ms" if v else "-"


def _ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


if __name__ == "__main__":
    main()
