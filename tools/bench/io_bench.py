#!/usr/bin/env python3
"""Read and write throughput: pqkit against pyarrow and fastparquet, in one run.

Cases (one column each, ``--rows`` rows): int64, float64, low- and
high-cardinality strings, 20%-null int64, list<int64> and a nested struct,
each with snappy, zstd and no compression. Single thread, warm page cache,
best of ``--repeat`` runs.

read:  pqkit ``read_table`` (Table) and ``.to_pandas()``; pyarrow
       ``read_table(use_threads=False)`` and ``.to_pandas()``; fastparquet
       ``ParquetFile.to_pandas()``.
write: pqkit ``write_table`` of a pqkit Table; pyarrow ``write_table`` of a
       pyarrow Table; fastparquet ``write`` of a DataFrame. "dict" writes use
       dictionary encoding (the default of all three), "plain" turns it off.

Usage: python tools/bench/io_bench.py [--mode read|write|both] [--rows N]
       [--cases int64,strings_low,...] [--codecs snappy,zstd,none] [--repeat N]
"""
import argparse
import gc
import io
import json
import math
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import pqkit

try:
    import fastparquet
except ImportError:          # optional contender
    fastparquet = None

CASES = ["int64", "float64", "strings_low", "strings_high", "int64_nulls", "list_int64",
         "struct"]
CODECS = ["snappy", "zstd", "none"]


def make_column(case, n, rng):
    if case == "int64":
        return pa.array(rng.integers(-2**62, 2**62, n))
    if case == "float64":
        return pa.array(rng.standard_normal(n))
    if case == "strings_low":
        pool = np.array([f"category-{i:03d}" for i in range(50)], dtype=object)
        return pa.array(pool[rng.integers(0, 50, n)], pa.string())
    if case == "strings_high":
        return pa.array([f"user-{i:012d}-{v:06d}" for i, v in
                         enumerate(rng.integers(0, 10**6, n))], pa.string())
    if case == "int64_nulls":
        return pa.array(rng.integers(0, 10**9, n), mask=rng.random(n) < 0.2)
    if case == "list_int64":
        lengths = rng.integers(0, 6, n)
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum(lengths, out=offsets[1:])
        values = pa.array(rng.integers(0, 1000, int(offsets[-1])))
        arr = pa.ListArray.from_arrays(pa.array(offsets), values)
        mask = rng.random(n) < 0.05
        return pa.ListArray.from_arrays(pa.array(offsets), values,
                                        mask=pa.array(mask)) if mask.any() else arr
    if case == "struct":
        a = pa.array(rng.integers(0, 10**6, n))
        b = pa.array(np.array([f"s{i % 1000}" for i in range(n)], dtype=object), pa.string())
        d = pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.1)
        c = pa.StructArray.from_arrays([d], ["d"])
        return pa.StructArray.from_arrays([a, b, c], ["a", "b", "c"],
                                          mask=pa.array(rng.random(n) < 0.1))
    raise ValueError(f"unknown case {case!r}")


def best_of(fn, repeat):
    best = math.inf
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def attempt(fn, repeat):
    try:
        return best_of(fn, repeat)
    except Exception:           # a contender that cannot handle a case shows "n/a"
        return None


def read_row(path, repeat):
    t = {
        "pqkit": attempt(lambda: pqkit.read_table(path), repeat),
        "pqkit_pandas": attempt(lambda: pqkit.read_table(path).to_pandas(), repeat),
        "pyarrow": attempt(lambda: pq.read_table(path, use_threads=False), repeat),
        "pyarrow_pandas": attempt(lambda: pq.read_table(path, use_threads=False)
                                  .to_pandas(use_threads=False), repeat),
        "fastparquet": None,
    }
    if fastparquet is not None:
        t["fastparquet"] = attempt(lambda: fastparquet.ParquetFile(path).to_pandas(), repeat)
    return t


def write_row(table, ours, frame, codec, dictionary, repeat):
    comp = None if codec == "none" else codec
    t = {
        "pqkit": attempt(lambda: pqkit.write_table(ours, io.BytesIO(), compression=comp,
                                                   use_dictionary=dictionary), repeat),
        "pyarrow": attempt(lambda: pq.write_table(table, io.BytesIO(), compression=codec,
                                                  use_dictionary=dictionary), repeat),
        "fastparquet": None,
    }
    if fastparquet is not None and frame is not None:
        fp_comp = None if codec == "none" else codec.upper()
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "fp.parquet")
            t["fastparquet"] = attempt(
                lambda: fastparquet.write(target, frame, compression=fp_comp,
                                          stats=True), repeat)
    return t


def ratio(a, b):
    return None if a is None or b is None else a / b


def fmt_ms(v):
    return "n/a" if v is None else f"{v * 1e3:8.1f}"


def fmt_x(v):
    return "n/a" if v is None else f"{v:5.2f}x"


def geomean(values):
    vals = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["read", "write", "both"], default="both")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--codecs", default=",".join(CODECS))
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    rng = np.random.default_rng(42)
    results = {"rows": args.rows, "read": [], "write": []}
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            table = pa.table({"c": make_column(case, args.rows, rng)})
            frame = table.to_pandas() if case not in ("list_int64", "struct") else None
            for codec in args.codecs.split(","):
                path = os.path.join(tmp, f"{case}-{codec}.parquet")
                pq.write_table(table, path, compression=codec)
                ours = pqkit.read_table(path)
                assert ours.num_rows == args.rows
                size = table.nbytes
                if args.mode in ("read", "both"):
                    t = read_row(path, args.repeat)
                    results["read"].append({"case": case, "codec": codec, "bytes": size, **t})
                if args.mode in ("write", "both"):
                    for dictionary in (True, False):
                        t = write_row(table, ours, frame, codec, dictionary, args.repeat)
                        results["write"].append({"case": case, "codec": codec,
                                                 "encoding": "dict" if dictionary else "plain",
                                                 "bytes": size, **t})
    report(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


def report(results):
    if results["read"]:
        print(f"READ ({results['rows']:,} rows; ms, best of N; ratio < 1 means pqkit is faster)")
        print(f"{'case':14s} {'codec':7s} {'pqkit':>8s} {'pyarrow':>8s} {'vs pa':>7s} "
              f"{'pq->pd':>8s} {'pa->pd':>8s} {'vs pa':>7s} {'fastpq':>8s} {'vs fp':>7s} "
              f"{'MB/s':>7s}")
        r_pa, r_pd, r_fp = [], [], []
        for r in results["read"]:
            a = ratio(r["pqkit"], r["pyarrow"])
            b = ratio(r["pqkit_pandas"], r["pyarrow_pandas"])
            c = ratio(r["pqkit_pandas"], r["fastparquet"])
            r_pa.append(a)
            r_pd.append(b)
            r_fp.append(c)
            mbs = r["bytes"] / r["pqkit"] / 1e6 if r["pqkit"] else None
            print(f"{r['case']:14s} {r['codec']:7s} {fmt_ms(r['pqkit'])} {fmt_ms(r['pyarrow'])} "
                  f"{fmt_x(a):>7s} {fmt_ms(r['pqkit_pandas'])} {fmt_ms(r['pyarrow_pandas'])} "
                  f"{fmt_x(b):>7s} {fmt_ms(r['fastparquet'])} {fmt_x(c):>7s} "
                  f"{'n/a' if mbs is None else f'{mbs:7.0f}'}")
        print(f"geomean: pqkit/pyarrow {fmt_x(geomean(r_pa))}, pandas pqkit/pyarrow "
              f"{fmt_x(geomean(r_pd))}, pandas pqkit/fastparquet {fmt_x(geomean(r_fp))}")
    if results["write"]:
        print(f"\nWRITE ({results['rows']:,} rows; ms, best of N)")
        print(f"{'case':14s} {'codec':7s} {'enc':5s} {'pqkit':>8s} {'pyarrow':>8s} {'vs pa':>7s} "
              f"{'fastpq':>8s} {'vs fp':>7s}")
        r_pa, r_fp = [], []
        for r in results["write"]:
            a = ratio(r["pqkit"], r["pyarrow"])
            c = ratio(r["pqkit"], r["fastparquet"])
            r_pa.append(a)
            r_fp.append(c)
            print(f"{r['case']:14s} {r['codec']:7s} {r['encoding']:5s} {fmt_ms(r['pqkit'])} "
                  f"{fmt_ms(r['pyarrow'])} {fmt_x(a):>7s} {fmt_ms(r['fastparquet'])} "
                  f"{fmt_x(c):>7s}")
        print(f"geomean: pqkit/pyarrow {fmt_x(geomean(r_pa))}, pqkit/fastparquet "
              f"{fmt_x(geomean(r_fp))}")


if __name__ == "__main__":
    main()
