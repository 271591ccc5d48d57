#!/usr/bin/env python3
"""Default-threaded write of one large mixed table: pqkit against pyarrow, wall time.

The table has ``--rows`` rows (16M by default) and six columns made as
write_bench's cases of the same names: int64 random, float64 random, strings of
low cardinality (1,000 values), strings of high cardinality (unique, built with
Arrow compute rather than a Python loop), list<int64> of 0-5 elements and a
struct of int64, float64 and string with nulls. Each library writes it with all
its defaults (threads, codec, row groups): ``pqkit.write_table(table, path)`` from
its own Table built beforehand, ``pq.write_table(table, path)``.

Each round times both once, starting one further each round; best of
``--repeat`` wall times (a threaded write is judged by the time it takes, so the
load of the machine, printed with the results, matters).

Usage: python tools/bench/mixed_write_bench.py [--rows N] [--repeat N]
"""
import argparse
import os
import sys
import tempfile
import time
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import pqkit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_bench import best_of_interleaved  # noqa: E402
from write_bench import make_column  # noqa: E402

COLUMNS = ["int64_random", "float64_random", "string_low_card", "string_high_card",
           "list_int64", "struct_nested"]


def high_card_strings(n, rng):
    """``u<row, 9 digits>-<random, 5 digits>``, as write_bench's case, vectorized."""
    row = pc.utf8_lpad(pc.cast(pa.array(np.arange(n)), pa.string()), 9, "0")
    tail = pc.utf8_lpad(pc.cast(pa.array(rng.integers(0, 10**5, n)), pa.string()), 5, "0")
    return pc.binary_join_element_wise(pc.binary_join_element_wise("u", row, ""), tail, "-")


def make_mixed(rows):
    cols = {}
    for case in COLUMNS:
        rng = np.random.default_rng(zlib.crc32(case.encode()))
        cols[case] = high_card_strings(rows, rng) if case == "string_high_card" \
            else make_column(case, rows, rng)
    return pa.table(cols)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=16_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    table = make_mixed(args.rows)
    ours = pqkit.Table.from_arrow(table)
    print(f"{args.rows:,} rows, {table.nbytes / 2**20:,.0f} MB in Arrow; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = {n: os.path.join(tmp, f"{n}.parquet") for n in ("pyarrow", "pqkit")}
        fns = {"pyarrow": lambda: pq.write_table(table, path["pyarrow"]),
               "pqkit": lambda: pqkit.write_table(ours, path["pqkit"])}
        t = best_of_interleaved(fns, args.repeat, clock=time.perf_counter)
        sizes = {n: os.path.getsize(p) / 2**20 for n, p in path.items()}
    print(" ".join(f"{n}={v:7.2f}s ({v / t['pyarrow']:4.2f}) {sizes[n]:,.0f} MB"
                   for n, v in t.items()) + f"; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
