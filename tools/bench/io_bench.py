#!/usr/bin/env python3
"""Read and write throughput: pqkit against pyarrow and fastparquet, in one run.

Cases (one column each, ``--rows`` rows): int64, float64, low- and
high-cardinality strings, the high-cardinality strings written without a
dictionary, 20%-null int64, list<int64> and a nested struct, each with snappy,
zstd and no compression (pyarrow's defaults otherwise: one row group, 1 MiB
pages, dictionary with fallback to PLAIN). Single thread, warm page cache, best
of ``--repeat`` rounds, each round timing every contender once in turn; a read
case keeps adding rounds until its rounds have taken ``--min-time`` seconds (at
most ``MAX_ROUNDS``), so that the few-millisecond cases get enough rounds for
their best time to settle on a VM whose speed drifts for tens of milliseconds at
a time (the same kernel measured 1.0 and 1.8 ms in back-to-back series here).

read:  pqkit ``read_table(use_threads=False)`` (Table) against pyarrow ``read_table(use_threads=False)``;
       pqkit ``.to_pandas()`` against pyarrow's ``.to_pandas()`` (both give pandas'
       default ``str`` dtype for strings, dicts for structs); and pqkit producing
       what fastparquet's ``ParquetFile.to_pandas()`` produces for the file, in
       one call as fastparquet does (``pqkit.read_pandas``, which hands the
       decoded buffers to pandas) -- ``strings="object"`` where fastparquet gives
       object strings, ``flatten()`` until no struct is left where it splits
       structs into dotted columns -- against fastparquet. Each contender's frame is checked against
       pqkit's once; a contender returning different values shows "WRONG".
write: pqkit ``write_table`` of a pqkit Table (page CRCs on, its default; and with
       ``write_checksums=False``, "nocrc"); pyarrow ``write_table`` of a pyarrow
       Table (no CRCs, its default); fastparquet ``write`` of a DataFrame (no CRCs,
       one page per chunk). All write a file in the same temporary directory.
       "dict" asks for dictionary encoding (pqkit and pyarrow try it on every
       column; fastparquet never dictionary-encodes numbers), "plain" turns it off.

Every case is read from two files: the one pyarrow writes with its default
settings ("pa" in the writer column) and the one pqkit writes with its defaults
("pq"), both with the row's codec. Besides the Table and ``to_pandas()`` times,
``read_pandas`` is timed (pqkit's one-call path, against the same pyarrow
``read_table().to_pandas()``), and the peak resident memory that each of the two
adds is measured once per file in a fresh subprocess (``--no-rss`` skips it):
the peak (VmHWM, reset through /proc/self/clear_refs after the imports) minus
the resident size before the read.

Usage: python tools/bench/io_bench.py [--mode read|write|both] [--rows N]
       [--cases int64,strings_low,...] [--codecs snappy,zstd,none] [--repeat N]
       [--min-time SECONDS]
       [--writers pyarrow,pqkit] [--no-rss] [--no-fastparquet]
"""
import argparse
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import pqkit
from pqkit.columnar.table import StructColumn

try:
    import fastparquet
except ImportError:          # optional contender
    fastparquet = None

CASES = ["int64", "float64", "strings_low", "strings_high", "strings_high_plain",
         "int64_nulls", "int64_small_range", "timestamp_us", "decimal", "list_int64",
         "struct"]
NESTED = {"list_int64", "struct"}
WRITERS = ["pyarrow", "pqkit"]
CODECS = ["snappy", "zstd", "none"]
READ_ONLY = {"strings_high_plain"}     # the same data as strings_high to a writer


def make_column(case, n, rng):
    if case == "int64":
        return pa.array(rng.integers(-2**62, 2**62, n))
    if case == "float64":
        return pa.array(rng.standard_normal(n))
    if case == "strings_low":
        pool = np.array([f"category-{i:03d}" for i in range(50)], dtype=object)
        return pa.array(pool[rng.integers(0, 50, n)], pa.string())
    if case in ("strings_high", "strings_high_plain"):
        return pa.array([f"user-{i:012d}-{v:06d}" for i, v in
                         enumerate(rng.integers(0, 10**6, n))], pa.string())
    if case == "int64_nulls":
        return pa.array(rng.integers(0, 10**9, n), mask=rng.random(n) < 0.2)
    if case == "int64_small_range":         # dictionary-encoded by both writers
        return pa.array(rng.integers(0, 100, n))
    if case == "timestamp_us":
        start = np.datetime64("2020-01-01", "us").astype(np.int64)
        return pa.array(start + np.sort(rng.integers(0, 10**14, n)), pa.timestamp("us"))
    if case == "decimal":
        return decimal_column(rng.integers(-10**15, 10**15, n), 18, 4)
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


def decimal_column(unscaled, precision, scale):
    """decimal128(precision, scale) over int64 unscaled values, sign-extended to 128 bits
    (no Decimal objects made)."""
    words = np.empty((len(unscaled), 2), np.int64)
    words[:, 0] = unscaled
    words[:, 1] = unscaled >> 63
    return pa.Array.from_buffers(pa.decimal128(precision, scale), len(unscaled),
                                 [None, pa.py_buffer(words.tobytes())])


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


# --- what fastparquet produces, and pqkit producing the same -----------------------------
def fastparquet_like(path, frame):
    """The pqkit options giving what fastparquet gave for ``path``: (strings, flatten)."""
    object_strings = any(frame[c].dtype == object and isinstance(_first(frame[c]), str)
                         for c in frame.columns)
    return ("object" if object_strings else "str"), any("." in c for c in frame.columns)


def _first(series):
    valid = series.dropna()
    return valid.iloc[0] if len(valid) else None


def pqkit_pandas(path, strings="str", flatten=False):
    """One call into pandas, as fastparquet's ``to_pandas()``: ``read_pandas``, or the
    same steps with ``flatten()`` in between."""
    if not flatten:
        return pqkit.read_pandas(path, strings=strings, use_threads=False)
    table = pqkit.read_table(path, use_threads=False)
    while any(isinstance(c, StructColumn) for c in table.columns):
        table = table.flatten()
    return table.to_pandas(strings=strings, self_destruct=True)


def same_frames(a, b):
    """Same column names and, column by column, the same values and nulls."""
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False
    for name in a.columns:
        x, y = a[name], b[name]
        if x.isna().tolist() != y.isna().tolist():
            return False
        keep = ~x.isna().to_numpy()
        xs, ys = x.to_numpy(dtype=object)[keep], y.to_numpy(dtype=object)[keep]
        if not all(_same_value(u, v) for u, v in zip(xs, ys)):
            return False
    return True


def _same_value(u, v):
    if isinstance(u, (list, np.ndarray)) or isinstance(v, (list, np.ndarray)):
        return list(u) == list(v)
    return u == v


def pyarrow_pandas(path):
    return pq.read_table(path, use_threads=False).to_pandas(use_threads=False)


MAX_ROUNDS = 200


def best_of_interleaved(fns, repeat, min_time=0.0, clock=time.perf_counter):
    """Best time of each of ``fns`` (name -> callable) over at least ``repeat`` rounds,
    and more until the rounds took ``min_time`` seconds (at most :data:`MAX_ROUNDS`),
    each round calling every contender once in turn (starting one further each
    round), so a burst of load from elsewhere on the machine hits all of them alike
    instead of one contender's whole series. A contender that raises gets None.
    ``clock`` measures each call (``time.process_time`` for CPU time)."""
    best = {name: math.inf for name in fns}
    order = list(fns.items())
    start = time.perf_counter()
    r = 0
    while r < repeat or (time.perf_counter() - start < min_time and r < MAX_ROUNDS):
        # Each round starts with the next contender, so none always runs right after
        # the same other one (whose garbage or cache state it would inherit).
        for name, fn in order[r % len(order):] + order[:r % len(order)]:
            if best[name] is None:
                continue
            gc.collect()
            t0 = clock()
            try:
                fn()
            except Exception:   # a contender that cannot handle a case shows "n/a"
                best[name] = None
                continue
            best[name] = min(best[name], clock() - t0)
        r += 1
    return best


def read_row(path, repeat, with_fastparquet=True, min_time=0.0):
    t = best_of_interleaved({
        "pqkit": lambda: pqkit.read_table(path, use_threads=False),
        "pyarrow": lambda: pq.read_table(path, use_threads=False),
        "pqkit_pandas": lambda: pqkit.read_table(path, use_threads=False).to_pandas(),
        "pyarrow_pandas": lambda: pyarrow_pandas(path),
        "pqkit_read_pandas": lambda: pqkit.read_pandas(path, use_threads=False),
    }, repeat, min_time)
    t.update({"pqkit_fp_like": None, "fastparquet": None, "fp_options": None,
              "fp_correct": None})
    if fastparquet is not None and with_fastparquet:
        frame = fastparquet.ParquetFile(path).to_pandas()
        strings, flatten = fastparquet_like(path, frame)
        ours = pqkit_pandas(path, strings, flatten)
        t["fp_options"] = f"strings={strings}" + (", flatten" if flatten else "")
        t["fp_correct"] = same_frames(frame, ours)
        t.update(best_of_interleaved({
            "fastparquet": lambda: fastparquet.ParquetFile(path).to_pandas(),
            "pqkit_fp_like": lambda: pqkit_pandas(path, strings, flatten)}, repeat, min_time))
    return t


# --- peak memory, one read per fresh process ----------------------------------------------
RSS_READERS = {
    "pqkit_read_pandas": lambda path: pqkit.read_pandas(path, use_threads=False),
    "pyarrow_pandas": pyarrow_pandas,
}


def _status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def rss_child(reader, path):
    """Print the bytes that one ``reader`` call on ``path`` adds to the peak RSS."""
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                    # resets VmHWM to the current RSS
    before = _status_kib("VmRSS")
    result = RSS_READERS[reader](path)
    peak = _status_kib("VmHWM")
    del result
    print((peak - before) * 1024)


def peak_rss(reader, path):
    """Peak RSS (bytes) ``reader`` adds, measured in a fresh interpreter; None on failure."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--rss-child", reader,
                          path], capture_output=True, text=True, check=False)
    return int(out.stdout.strip()) if out.returncode == 0 else None


def write_row(table, ours, frame, codec, dictionary, repeat, tmp):
    comp = None if codec == "none" else codec
    target = os.path.join(tmp, "out.parquet")
    t = {
        "pqkit": attempt(lambda: pqkit.write_table(ours, target, compression=comp,
                                                   use_dictionary=dictionary,
                                                   use_threads=False), repeat),
        "pqkit_nocrc": attempt(lambda: pqkit.write_table(ours, target, compression=comp,
                                                         use_dictionary=dictionary,
                                                         write_checksums=False,
                                                         use_threads=False), repeat),
        "pyarrow": attempt(lambda: pq.write_table(table, target, compression=codec,
                                                  use_dictionary=dictionary), repeat),
        "fastparquet": None,
    }
    if fastparquet is not None and frame is not None:
        fp_comp = None if codec == "none" else codec.upper()
        t["fastparquet"] = attempt(lambda: fastparquet.write(target, frame, compression=fp_comp,
                                                             stats=True), repeat)
    return t


def ratio(a, b):
    return None if a is None or b is None else a / b


def fmt_ms(v):
    return "     n/a" if v is None else f"{v * 1e3:8.1f}"


def fmt_x(v):
    return "n/a" if v is None else f"{v:5.2f}x"


def geomean(values):
    vals = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def write_file(writer, table, path, case, codec):
    """Write ``table`` with ``writer``'s default settings (and ``codec``)."""
    dictionary = case != "strings_high_plain"
    if writer == "pyarrow":
        pq.write_table(table, path, compression=codec, use_dictionary=dictionary)
    else:
        pqkit.write_table(pqkit.Table.from_arrow(table), path,
                          compression=None if codec == "none" else codec,
                          use_dictionary=dictionary)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["read", "write", "both"], default="both")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="seconds of rounds per read case at least (default 1.0)")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--codecs", default=",".join(CODECS))
    ap.add_argument("--writers", default=",".join(WRITERS))
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-memory subprocesses")
    ap.add_argument("--no-fastparquet", action="store_true", help="leave fastparquet out")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--rss-child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        return rss_child(*args.rss_child)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    results = {"rows": args.rows, "read": [], "write": []}
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            # One seed per case: a case's data does not depend on which cases run.
            rng = np.random.default_rng(zlib.crc32(case.encode()))
            table = pa.table({"c": make_column(case, args.rows, rng)})
            frame = table.to_pandas() if case not in NESTED else None
            for codec in args.codecs.split(","):
                size = table.nbytes
                if args.mode in ("read", "both"):
                    for writer in args.writers.split(","):
                        path = os.path.join(tmp, f"{case}-{codec}-{writer}.parquet")
                        write_file(writer, table, path, case, codec)
                        assert pqkit.read_table(path, use_threads=False).num_rows == args.rows
                        t = read_row(path, args.repeat, not args.no_fastparquet, args.min_time)
                        if not args.no_rss:
                            for reader in RSS_READERS:
                                t["rss_" + reader] = peak_rss(reader, path)
                        results["read"].append({"case": case, "codec": codec,
                                                "writer": writer, "bytes": size, **t})
                if args.mode in ("write", "both") and case not in READ_ONLY:
                    path = os.path.join(tmp, f"{case}-{codec}.parquet")
                    pq.write_table(table, path, compression=codec)
                    ours = pqkit.read_table(path, use_threads=False)
                    for dictionary in (True, False):
                        t = write_row(table, ours, frame, codec, dictionary, args.repeat, tmp)
                        results["write"].append({"case": case, "codec": codec,
                                                 "encoding": "dict" if dictionary else "plain",
                                                 "bytes": size, **t})
    report(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


def report(results):
    if results["read"]:
        report_read(results)
    if results["write"]:
        report_write(results)


def fmt_mb(v):
    return "   n/a" if v is None else f"{v / 2**20:6.1f}"


def report_read(results):
    print(f"READ ({results['rows']:,} rows; ms, best of N; ratio < 1 means pqkit is faster; "
          f"wr = writer of the file, pa = pyarrow, pq = pqkit)")
    print(f"{'case':18s} {'codec':7s} {'wr':2s} {'pqkit':>8s} {'pyarrow':>8s} {'vs pa':>7s} "
          f"{'pq->pd':>8s} {'rd_pd':>8s} {'pa->pd':>8s} {'vs pa':>7s} {'rd/pa':>7s} "
          f"{'MB pq':>6s} {'MB pa':>6s} {'mem':>6s} "
          f"{'pq->fp':>8s} {'fastpq':>8s} {'vs fp':>7s}  pqkit options for fastparquet's dtypes")
    r_pa, r_pd, r_rd, r_mem, r_fp = [], [], [], [], []
    for r in results["read"]:
        a = ratio(r["pqkit"], r["pyarrow"])
        b = ratio(r["pqkit_pandas"], r["pyarrow_pandas"])
        rd = ratio(r.get("pqkit_read_pandas"), r["pyarrow_pandas"])
        mem = ratio(r.get("rss_pqkit_read_pandas"), r.get("rss_pyarrow_pandas"))
        c = ratio(r["pqkit_fp_like"], r["fastparquet"]) if r["fp_correct"] else None
        for acc, v in ((r_pa, a), (r_pd, b), (r_rd, rd), (r_mem, mem), (r_fp, c)):
            acc.append(v)
        note = r["fp_options"] or ""
        if r["fp_correct"] is False:
            note += "; fastparquet WRONG (values differ), ratio left out"
        writer = "pa" if r.get("writer", "pyarrow") == "pyarrow" else "pq"
        print(f"{r['case']:18s} {r['codec']:7s} {writer:2s} "
              f"{fmt_ms(r['pqkit'])} {fmt_ms(r['pyarrow'])} {fmt_x(a):>7s} "
              f"{fmt_ms(r['pqkit_pandas'])} {fmt_ms(r.get('pqkit_read_pandas'))} "
              f"{fmt_ms(r['pyarrow_pandas'])} {fmt_x(b):>7s} {fmt_x(rd):>7s} "
              f"{fmt_mb(r.get('rss_pqkit_read_pandas'))} {fmt_mb(r.get('rss_pyarrow_pandas'))} "
              f"{fmt_x(mem):>6s} "
              f"{fmt_ms(r['pqkit_fp_like'])} {fmt_ms(r['fastparquet'])} {fmt_x(c):>7s}  {note}")
    print(f"geomean: pqkit/pyarrow {fmt_x(geomean(r_pa))}, pandas pqkit/pyarrow "
          f"{fmt_x(geomean(r_pd))}, read_pandas/pyarrow {fmt_x(geomean(r_rd))}, peak RSS "
          f"read_pandas/pyarrow {fmt_x(geomean(r_mem))}, pandas pqkit/fastparquet "
          f"{fmt_x(geomean(r_fp))}")
    print(f"worst: pqkit/pyarrow {fmt_x(max(filter(None, r_pa), default=None))}, "
          f"read_pandas/pyarrow {fmt_x(max(filter(None, r_rd), default=None))}, peak RSS "
          f"{fmt_x(max(filter(None, r_mem), default=None))}")


def report_write(results):
    print(f"\nWRITE ({results['rows']:,} rows; ms, best of N; pqkit with page CRCs, "
          f"nocrc without; pyarrow and fastparquet write none)")
    print(f"{'case':18s} {'codec':7s} {'enc':5s} {'pqkit':>8s} {'nocrc':>8s} {'pyarrow':>8s} "
          f"{'vs pa':>7s} {'fastpq':>8s} {'vs fp':>7s} {'nocrc/fp':>8s}")
    r_pa, r_fp, r_nc = [], [], []
    for r in results["write"]:
        a = ratio(r["pqkit"], r["pyarrow"])
        c = ratio(r["pqkit"], r["fastparquet"])
        d = ratio(r["pqkit_nocrc"], r["fastparquet"])
        r_pa.append(a)
        r_fp.append(c)
        r_nc.append(d)
        print(f"{r['case']:18s} {r['codec']:7s} {r['encoding']:5s} {fmt_ms(r['pqkit'])} "
              f"{fmt_ms(r['pqkit_nocrc'])} {fmt_ms(r['pyarrow'])} {fmt_x(a):>7s} "
              f"{fmt_ms(r['fastparquet'])} {fmt_x(c):>7s} {fmt_x(d):>8s}")
    print(f"geomean: pqkit/pyarrow {fmt_x(geomean(r_pa))}, pqkit/fastparquet "
          f"{fmt_x(geomean(r_fp))}, pqkit nocrc/fastparquet {fmt_x(geomean(r_nc))}")


if __name__ == "__main__":
    main()
