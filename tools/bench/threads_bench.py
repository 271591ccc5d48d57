#!/usr/bin/env python3
"""pqkit with its default threads against pyarrow and polars with theirs, in one run.

Cases: io_bench's one-column files (``--rows`` rows, one row group, each codec of
``--codecs``, written by pyarrow), and per codec a "wide" file holding every
io_bench write case as a column, in four row groups, where chunks can be
decoded side by side. Warm page cache, best of ``--repeat`` runs.

(a) read:   ``pqkit.read_table(path)`` against ``pyarrow.parquet.read_table(path)``,
            both with their default threads (pqkit: ``pqkit.threads.max_threads()``;
            pyarrow: its CPU pool);
(b) polars: ``polars.DataFrame(pqkit.ParquetFile(path).arrow_stream(string_view=True))``
            (the Arrow PyCapsule stream export: one batch per row group, decoded on
            pqkit's threads and not concatenated, strings as views, which polars keeps
            without copying; ``polars.DataFrame(table)`` copies every string column
            into polars' view layout) against ``polars.read_parquet(path)``.
            (``polars.from_arrow`` turns any PyCapsule producer into a struct Series,
            by polars' own rule; ``polars.DataFrame`` takes the stream as a frame.)
(c) write:  ``pqkit.write_table(pyarrow_table, path, compression=codec)`` against
            ``pq.write_table(pyarrow_table, path, compression=codec)``, each with its
            other defaults (pqkit writes page CRCs, pyarrow does not).

Ratios are pqkit time / other time (below 1: pqkit is faster); the geomean is over
every row of a table. Each result is checked against pyarrow's once.

Usage: python tools/bench/threads_bench.py [--rows N] [--repeat N] [--codecs ...]
       [--cases ...] [--parts a,b,c] [--json out.json]
"""
import argparse
import json
import os
import sys
import tempfile
import zlib

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import pqkit
import pqkit.threads

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from io_bench import CASES, READ_ONLY, best_of, fmt_ms, fmt_x, geomean, make_column  # noqa: E402


def files(tmp, cases, codecs, rows):
    """[(name, codec, path, pyarrow table)] written by pyarrow."""
    out = []
    columns = {}
    for case in cases:
        rng = np.random.default_rng(zlib.crc32(case.encode()))
        columns[case] = make_column(case, rows, rng)
    for codec in codecs:
        for case in cases:
            table = pa.table({"c": columns[case]})
            path = os.path.join(tmp, f"{case}-{codec}.parquet")
            pq.write_table(table, path, compression=codec,
                           use_dictionary=case != "strings_high_plain")
            out.append((case, codec, path, table))
        wide = pa.table({c: columns[c] for c in cases if c not in READ_ONLY})
        path = os.path.join(tmp, f"wide-{codec}.parquet")
        pq.write_table(wide, path, compression=codec, row_group_size=-(-rows // 4))
        out.append(("wide", codec, path, wide))
    return out


def to_polars(path):
    """The fastest documented way from a Parquet file through pqkit into polars: row
    groups decoded on pqkit's threads, not concatenated, strings exported as views."""
    with pqkit.ParquetFile(path) as f:
        return pl.DataFrame(f.arrow_stream(string_view=True))


def measure(entries, repeat, tmp, parts):
    rows = []
    for case, codec, path, table in entries:
        ours = pqkit.read_table(path)
        assert pa.table(ours).equals(pq.read_table(path)), f"{case}/{codec} reads differently"
        assert to_polars(path).equals(pl.read_parquet(path)), f"{case}/{codec}: polars"
        row = {"case": case, "codec": codec}
        if "a" in parts:
            row["read_pqkit"] = best_of(lambda: pqkit.read_table(path), repeat)
            row["read_pyarrow"] = best_of(lambda: pq.read_table(path), repeat)
        if "b" in parts:
            row["polars_pqkit"] = best_of(lambda: to_polars(path), repeat)
            row["polars_own"] = best_of(lambda: pl.read_parquet(path), repeat)
        if "c" in parts and case not in READ_ONLY:
            out = os.path.join(tmp, "out.parquet")
            row["write_pqkit"] = best_of(
                lambda: pqkit.write_table(table, out, compression=codec), repeat)
            assert pq.read_table(out).equals(table), f"{case}/{codec}: written differently"
            row["write_pyarrow"] = best_of(
                lambda: pq.write_table(table, out, compression=codec), repeat)
        rows.append(row)
    return rows


def report(rows, ours, theirs, title):
    print(f"\n{title}")
    print("| case | codec | pqkit ms | other ms | ratio |\n|---|---|---:|---:|---:|")
    ratios = []
    for r in rows:
        if ours not in r:
            continue
        x = r[ours] / r[theirs]
        ratios.append(x)
        print(f"| {r['case']} | {r['codec']} | {fmt_ms(r[ours]).strip()} | "
              f"{fmt_ms(r[theirs]).strip()} | {fmt_x(x).strip()} |")
    print(f"| geomean | | | | {fmt_x(geomean(ratios)).strip()} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=500_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--codecs", default="snappy,zstd,none")
    ap.add_argument("--parts", default="a,b,c", help="which comparisons to run (a, b, c)")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    if not parts or not parts <= {"a", "b", "c"}:
        ap.error(f"--parts takes a, b and c, got {args.parts!r}")
    print(f"rows={args.rows} repeat={args.repeat} cpus={len(os.sched_getaffinity(0))} "
          f"pqkit threads={pqkit.threads.max_threads()} pyarrow cpu_count={pa.cpu_count()} "
          f"polars threads={pl.thread_pool_size()}")
    with tempfile.TemporaryDirectory() as tmp:
        entries = files(tmp, args.cases.split(","), args.codecs.split(","), args.rows)
        rows = measure(entries, args.repeat, tmp, parts)
    if "a" in parts:
        report(rows, "read_pqkit", "read_pyarrow",
               "(a) read_table, default threads: pqkit / pyarrow")
    if "b" in parts:
        report(rows, "polars_pqkit", "polars_own", "(b) into polars: polars.DataFrame("
               "ParquetFile.arrow_stream(string_view=True)) / polars.read_parquet")
    if "c" in parts:
        report(rows, "write_pqkit", "write_pyarrow",
               "(c) write_table(pyarrow table): pqkit / pyarrow")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": args.rows, "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
