#!/usr/bin/env python3
"""Single-threaded writes: pqkit against pyarrow, polars and DuckDB, in one run.

Ten one-column cases (``--rows`` rows each, seeded): int64 random, int64 in a
small range (dictionary-friendly), float64 random, high-cardinality strings
(~16 characters, unique), low-cardinality strings (1,000 values), int64 with
10 % nulls, list<int64> of 0-5 elements, a struct of int64, float64 and string
with nulls, timestamp[us] and decimal(18,4). Each contender writes the same data
from memory with its own defaults and the row's codec:

- pqkit ``write_table(pqkit_table, compression=..., use_threads=False)`` (its
  Table built from the Arrow one beforehand; page CRCs on, its default);
- pyarrow ``pq.write_table(table, compression=...)`` with one CPU thread;
- polars ``DataFrame.write_parquet(compression=...)`` with ``POLARS_MAX_THREADS=1``
  set before polars is imported;
- DuckDB ``COPY t TO ... (FORMAT parquet, COMPRESSION ...)`` over the registered
  Arrow table, after ``SET threads=1``.

Time is process CPU time (``time.process_time``), best of ``--repeat`` rounds;
each round times every contender once, starting one further each round, so a
burst of load from the other users of the machine hits all of them alike. Ratios
are to pyarrow (below 1: faster). File sizes are each writer's last file.
``--rss`` adds each writer's peak RSS while writing, measured in a fresh
subprocess (the peak while writing minus the RSS after the input is built).

Usage: python tools/bench/write_bench.py [--rows N] [--repeat N] [--cases a,b]
       [--codecs snappy,zstd,none] [--writers pqkit,pyarrow,polars,duckdb]
       [--rss] [--json out.json]
"""
import os

os.environ.setdefault("POLARS_MAX_THREADS", "1")     # before polars is imported

import argparse              # noqa: E402
import gc                    # noqa: E402
import json                  # noqa: E402
import math                  # noqa: E402
import resource              # noqa: E402
import subprocess            # noqa: E402
import sys                   # noqa: E402
import tempfile              # noqa: E402
import time                  # noqa: E402
import zlib                  # noqa: E402

import duckdb                # noqa: E402
import numpy as np           # noqa: E402
import polars as pl          # noqa: E402
import pyarrow as pa         # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import pqkit                 # noqa: E402

CASES = ["int64_random", "int64_small_range", "float64_random", "string_high_card",
         "string_low_card", "nullable_int64", "list_int64", "struct_nested",
         "timestamp_us", "decimal128_18_4"]
CODECS = ["snappy", "zstd", "none"]
WRITERS = ["pqkit", "pyarrow", "polars", "duckdb"]


def make_column(case, n, rng):
    """The Arrow array of one case."""
    if case == "int64_random":
        return pa.array(rng.integers(-2**62, 2**62, n))
    if case == "int64_small_range":
        return pa.array(rng.integers(0, 1000, n))
    if case == "float64_random":
        return pa.array(rng.standard_normal(n))
    if case == "string_high_card":
        return pa.array([f"u{i:09d}-{v:05d}" for i, v in
                         enumerate(rng.integers(0, 10**5, n))], pa.string())
    if case == "string_low_card":
        pool = np.array([f"value-{i:04d}-{'x' * (i % 9)}" for i in range(1000)], dtype=object)
        return pa.array(pool[rng.integers(0, 1000, n)], pa.string())
    if case == "nullable_int64":
        return pa.array(rng.integers(0, 10**9, n), mask=rng.random(n) < 0.1)
    if case == "list_int64":
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum(rng.integers(0, 6, n), out=offsets[1:])
        values = pa.array(rng.integers(0, 10**6, int(offsets[-1])))
        return pa.ListArray.from_arrays(pa.array(offsets), values)
    if case == "struct_nested":
        a = pa.array(rng.integers(0, 10**6, n))
        b = pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.1)
        pool = np.array([f"name-{i}" for i in range(5000)], dtype=object)
        c = pa.array(pool[rng.integers(0, 5000, n)], pa.string(), mask=rng.random(n) < 0.1)
        return pa.StructArray.from_arrays([a, b, c], ["a", "b", "c"],
                                          mask=pa.array(rng.random(n) < 0.05))
    if case == "timestamp_us":
        start = np.datetime64("2020-01-01", "us").astype(np.int64)
        return pa.array(start + np.sort(rng.integers(0, 10**14, n)), pa.timestamp("us"))
    if case == "decimal128_18_4":
        unscaled = rng.integers(-10**17, 10**17, n)
        words = np.empty((n, 2), np.int64)
        words[:, 0] = unscaled
        words[:, 1] = unscaled >> 63
        return pa.Array.from_buffers(pa.decimal128(18, 4), n,
                                     [None, pa.py_buffer(words.tobytes())])
    raise ValueError(f"unknown case {case!r}")


def make_table(case, rows):
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    return pa.table({"c": make_column(case, rows, rng)})


def writers(table, codec, directory):
    """name -> callable writing ``table`` to ``directory/<name>.parquet`` with that
    writer's defaults."""
    path = {n: os.path.join(directory, f"{n}.parquet") for n in WRITERS}
    ours = pqkit.Table.from_arrow(table)
    frame = pl.from_arrow(table)
    con = duckdb.connect()
    con.execute("SET threads=1")
    con.register("t", table)
    duck_codec = "uncompressed" if codec == "none" else codec
    pl_codec = "uncompressed" if codec == "none" else codec
    return {
        "pqkit": lambda: pqkit.write_table(ours, path["pqkit"], use_threads=False,
                                           compression=None if codec == "none" else codec),
        "pyarrow": lambda: pq.write_table(table, path["pyarrow"], compression=codec),
        "polars": lambda: frame.write_parquet(path["polars"], compression=pl_codec),
        "duckdb": lambda: con.execute(f"COPY t TO '{path['duckdb']}' "
                                      f"(FORMAT parquet, COMPRESSION {duck_codec})"),
    }


def best_cpu_interleaved(fns, repeat):
    """Best process CPU time of each callable over ``repeat`` interleaved rounds."""
    best = {name: math.inf for name in fns}
    order = list(fns.items())
    for r in range(repeat):
        for name, fn in order[r % len(order):] + order[:r % len(order)]:
            gc.collect()
            t0 = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - t0)
    return best


def _status_bytes(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss_child(case, codec, writer, rows, directory):
    """Print the bytes one write adds to the peak RSS: the peak while writing minus the
    RSS after the input is built. Building the input (and importing four libraries)
    peaks higher than many writes, so the peak is reset first (Linux: clear_refs 5
    resets VmHWM); elsewhere ru_maxrss, which includes that earlier peak, is used."""
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    table = make_table(case, rows)
    fn = writers(table, codec, directory)[writer]
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = _status_bytes("VmRSS")
        fn()
        peak = _status_bytes("VmHWM")
    except OSError:
        before = 0
        fn()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(peak - before)


def peak_rss(case, codec, writer, rows, directory):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--rss-child", case,
                          codec, writer, str(rows), directory], capture_output=True, text=True,
                         check=False)
    return int(out.stdout.strip()) if out.returncode == 0 else None


def geomean(values):
    vals = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--codecs", default=",".join(CODECS))
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--rss", action="store_true", help="measure peak RSS per writer")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--rss-child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        case, codec, writer, rows, directory = args.rss_child
        return rss_child(case, codec, writer, int(rows), directory)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    names = args.writers.split(",")
    codecs = args.codecs.split(",")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            table = make_table(case, args.rows)
            for codec in codecs:
                fns = {n: fn for n, fn in writers(table, codec, tmp).items() if n in names}
                times = best_cpu_interleaved(fns, args.repeat)
                row = {"case": case, "codec": codec, "time": times,
                       "size": {n: os.path.getsize(os.path.join(tmp, f"{n}.parquet"))
                                for n in fns}}
                if args.rss:
                    row["rss"] = {n: peak_rss(case, codec, n, args.rows, tmp) for n in fns}
                results.append(row)
                print_row(row, names)
    print_summary(results, names, codecs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": args.rows, "results": results}, f, indent=2)


def print_row(row, names):
    t = row["time"]
    base = t.get("pyarrow")
    cells = " ".join(f"{n}={t[n] * 1e3:7.1f}ms" + (f" ({t[n] / base:4.2f})" if base else "")
                     for n in names if n in t)
    sizes = " ".join(f"{n}={row['size'][n] / 2**20:.2f}MB" for n in names if n in row["size"])
    rss = ""
    if "rss" in row:
        rss = " rss " + " ".join(f"{n}={(row['rss'][n] or 0) / 2**20:.0f}MB"
                                 for n in names if n in row["rss"])
    print(f"{row['case']:18s} {row['codec']:6s} {cells} | {sizes}{rss}", flush=True)


def print_summary(results, names, codecs):
    others = [n for n in names if n != "pyarrow"]
    if "pyarrow" not in names:
        return
    print("\nratios to pyarrow (process CPU time): " + " / ".join(others))
    for codec in codecs:
        rows = [r for r in results if r["codec"] == codec]
        print(f"{codec:6s} geomean " + " / ".join(
            f"{geomean([r['time'][n] / r['time']['pyarrow'] for r in rows]):.2f}"
            for n in others))


if __name__ == "__main__":
    main()
