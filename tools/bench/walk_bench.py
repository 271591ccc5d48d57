#!/usr/bin/env python3
"""Metadata walks: pqkit against pyarrow, interleaved, process CPU time.

Two cases:

- ``walk``: one wide file (``--columns`` int64 columns x ``--row-groups`` row
  groups, 1000 x 50 by default: 50,000 column chunks, statistics on). Its footer
  is read once; the timed part visits every chunk through the public metadata
  objects (``md.row_group(g).column(c)``) and reads its sizes, offsets,
  num_values and statistics min/max, as planning and pruning do.
- ``plan``: ``--files`` small files (``--plan-columns`` columns of int64, double
  and string, ``--plan-row-groups`` row groups each). Timed: for every file, read
  its footer and walk every chunk as above (pyarrow: ``pq.ParquetFile(path)
  .metadata``), as Spark split planning or a dataset scan does.

Each round times every contender once, starting one further each round; best of
``--repeat``. Ratios are to pyarrow (below 1: faster).

Usage: python tools/bench/walk_bench.py [--cases walk,plan] [--repeat N]
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import pqkit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_bench import best_of_interleaved  # noqa: E402


def walk_chunks(md):
    """Touch what a planner reads of every chunk; works on pqkit's and pyarrow's
    metadata objects alike (they share the pyarrow-shaped API)."""
    total = 0
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            total += col.total_compressed_size + col.total_uncompressed_size
            total += col.data_page_offset + col.num_values
            st = col.statistics
            if st is not None and st.has_min_max:
                st.min, st.max
    return total


def make_wide(path, columns, row_groups):
    table = pa.table({f"c{i}": np.arange(row_groups, dtype="int64") for i in range(columns)})
    pq.write_table(table, path, row_group_size=1, compression="none")


def make_plan_files(directory, files, columns, row_groups):
    rng = np.random.default_rng(7)
    rows = 10 * row_groups
    paths = []
    for f in range(files):
        cols = {}
        for c in range(columns):
            kind = c % 3
            if kind == 0:
                cols[f"i{c}"] = rng.integers(0, 10**6, rows)
            elif kind == 1:
                cols[f"d{c}"] = rng.standard_normal(rows)
            else:
                cols[f"s{c}"] = pa.array([f"v{x}" for x in rng.integers(0, 100, rows)])
        path = os.path.join(directory, f"part-{f:05d}.parquet")
        pq.write_table(pa.table(cols), path, row_group_size=10)
        paths.append(path)
    return paths


def contenders(case, args, tmp):
    if case == "walk":
        path = os.path.join(tmp, "wide.parquet")
        make_wide(path, args.columns, args.row_groups)
        ours, theirs = pqkit.read_metadata(path), pq.read_metadata(path)
        return {"pyarrow": lambda: walk_chunks(theirs), "pqkit": lambda: walk_chunks(ours)}
    paths = make_plan_files(tmp, args.files, args.plan_columns, args.plan_row_groups)
    return {"pyarrow": lambda: [walk_chunks(pq.ParquetFile(p).metadata) for p in paths],
            "pqkit": lambda: [walk_chunks(pqkit.read_metadata(p)) for p in paths]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="walk,plan")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--columns", type=int, default=1000)
    ap.add_argument("--row-groups", type=int, default=50)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--plan-columns", type=int, default=12)
    ap.add_argument("--plan-row-groups", type=int, default=2)
    args = ap.parse_args()
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    for case in args.cases.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            fns = contenders(case, args, tmp)
            assert len({fn() if case == "walk" else sum(fn()) for fn in fns.values()}) == 1, \
                "the contenders walked different numbers"
            t = best_of_interleaved(fns, args.repeat, clock=time.process_time)
        base = t["pyarrow"]
        print(f"{case:5s} " + " ".join(f"{n}={v * 1e3:8.1f}ms ({v / base:4.2f})"
                                       for n, v in t.items()), flush=True)


if __name__ == "__main__":
    main()
