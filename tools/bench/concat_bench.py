"""Concatenating N Parquet files of M MB: pqkit.concat against pyarrow read + write.

One source file of about ``--mb`` MB is written with pyarrow (zstd, dictionary
and plain columns, several row groups) and copied ``--files`` times. Then, in
one run each:

* pqkit: ``pqkit.concat(sources, out)``: chunks copied byte for byte
  (``copy_file_range``), page index and footer rebuilt, the output fsynced;
* pyarrow: each source read with ``pq.read_table`` and written to one
  ``pq.ParquetWriter`` with the same codec: what users do without concat.

The sources are in the page cache (just written) and ``os.sync()`` runs before
each timed step. concat returns with its output fsynced; pyarrow's time is given
as it is and with one ``fsync`` of its output added (the same durability). Reported: wall time of each, the ratio, and the output sizes; both outputs'
row counts are checked. The files are left in ``--dir`` (removed with
``--clean``). Usage::

    python tools/bench/concat_bench.py [--files 100] [--mb 50] [--dir /tmp/concat_bench]
"""
import argparse
import os
import shutil
import time

import numpy as np


def _write_source(path, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = np.random.default_rng(18)
    table = pa.table({
        "id": np.arange(rows, dtype=np.int64),
        "value": rng.standard_normal(rows),
        "code": rng.integers(0, 1000, rows).astype(np.int32),
        "name": pa.array(np.char.add("n", rng.integers(0, 5000, rows).astype(str))),
    })
    pq.write_table(table, path, compression="zstd", row_group_size=1 << 20)
    return os.path.getsize(path)


def _source(path, mb):
    """Write a source of about ``mb`` MB: a 1M-row probe gives the bytes per row."""
    per_row = _write_source(path, 1 << 20) / (1 << 20)
    return _write_source(path, max(1, int(mb * 1e6 / per_row)))


def _pyarrow_concat(sources, out):
    import pyarrow.parquet as pq
    writer = None
    for s in sources:
        table = pq.read_table(s)
        if writer is None:
            writer = pq.ParquetWriter(out, table.schema, compression="zstd")
        writer.write_table(table, row_group_size=1 << 20)
    writer.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--dir", default="/tmp/concat_bench")
    ap.add_argument("--clean", action="store_true", help="remove the files afterwards")
    args = ap.parse_args()

    import pyarrow.parquet as pq

    import pqkit
    os.makedirs(args.dir, exist_ok=True)
    first = os.path.join(args.dir, "src-000.parquet")
    size = _source(first, args.mb)
    sources = [first]
    for i in range(1, args.files):
        sources.append(os.path.join(args.dir, f"src-{i:03d}.parquet"))
        shutil.copyfile(first, sources[-1])
    rows = pq.ParquetFile(first).metadata.num_rows * args.files
    print(f"{args.files} files of {size / 1e6:.1f} MB ({size * args.files / 1e9:.2f} GB, "
          f"{rows:,} rows)")

    ours, theirs = os.path.join(args.dir, "pqkit.parquet"), os.path.join(args.dir, "pa.parquet")
    # Each run starts with no dirty pages left by the one before (copies, output).
    os.sync()
    t0 = time.perf_counter()
    result = pqkit.concat(sources, ours)
    t_ours = time.perf_counter() - t0
    os.sync()
    t0 = time.perf_counter()
    _pyarrow_concat(sources, theirs)
    t_theirs = time.perf_counter() - t0
    # concat fsyncs its output (its result is durable when it returns); pyarrow does
    # not, so the same guarantee costs it one fsync more.
    fd = os.open(theirs, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    t_durable = time.perf_counter() - t0
    assert result.num_rows == rows == pq.ParquetFile(ours).metadata.num_rows \
        == pq.ParquetFile(theirs).metadata.num_rows
    print(f"pqkit.concat          {t_ours:8.2f} s   {os.path.getsize(ours) / 1e9:.3f} GB   "
          f"{result.row_groups_out} row groups")
    print(f"pyarrow read + write  {t_theirs:8.2f} s   {os.path.getsize(theirs) / 1e9:.3f} GB")
    print(f"  + fsync (durable)   {t_durable:8.2f} s")
    print(f"ratio                 {t_theirs / t_ours:8.1f} x   "
          f"({t_durable / t_ours:.1f} x against the durable pyarrow output)")
    if args.clean:
        shutil.rmtree(args.dir)


if __name__ == "__main__":
    main()
