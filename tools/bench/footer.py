#!/usr/bin/env python3
"""Footer decoding of a wide file: pqkit against pyarrow and fastparquet, same run.

The file has 1000 int64 columns and 50 row groups (a ~5.5 MB footer). Each
contender decodes the footer from a warm page cache; the best of N runs is
reported with its ratio to pyarrow. pqkit is timed twice: `read_metadata`
(row groups validated but built lazily, what opening a file costs) and a full
materialisation of every row group object.

Usage: python tools/bench/footer.py [--repeat N] [--columns C] [--row-groups R]
"""
import argparse
import gc
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import pqkit


def make_file(path, columns, row_groups):
    table = pa.table({f"c{i}": np.arange(row_groups, dtype="int64") for i in range(columns)})
    pq.write_table(table, path, row_group_size=1, compression="none")


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def contenders(path):
    def pqkit_open():
        pqkit.read_metadata(path)

    def pqkit_full():
        md = pqkit.read_metadata(path)
        was = gc.isenabled()
        gc.disable()
        try:
            for rg in md.raw.row_groups:
                rg.columns
        finally:
            if was:
                gc.enable()

    out = {"pyarrow read_metadata": lambda: pq.read_metadata(path),
           "pqkit read_metadata (lazy row groups)": pqkit_open,
           "pqkit read_metadata + all row groups": pqkit_full}
    try:
        import fastparquet
        out["fastparquet ParquetFile"] = lambda: fastparquet.ParquetFile(path)
    except ImportError:
        pass
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--columns", type=int, default=1000)
    ap.add_argument("--row-groups", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "wide.parquet")
        make_file(path, args.columns, args.row_groups)
        footer = pqkit.read_metadata(path).footer_length
        print(f"{args.columns} columns x {args.row_groups} row groups, footer {footer:,} bytes")
        results = {name: best_of(fn, args.repeat) for name, fn in contenders(path).items()}
    base = results["pyarrow read_metadata"]
    print(f"{'contender':42} {'best ms':>9} {'vs pyarrow':>11}")
    for name, t in results.items():
        print(f"{name:42} {t * 1e3:9.1f} {t / base:10.2f}x")


if __name__ == "__main__":
    main()
