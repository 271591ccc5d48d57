"""Deleting one row with deletion files against copy-on-write, and what deletion files cost
reads (docs/DATASET.md, "Deletion files").

A PQDS/1 dataset of ``--files`` files (default 8) of about ``--size-mb / --files`` MiB each
(default 1024 MB in all: 8 x 128 MiB), sorted by ``id`` (int64, unique; three random
double columns and ``bucket``, a random int32 in 0..99, beside it), is written once and copied, so that one copy has
``deletes="files"`` and the other the default copy-on-write. Then:

* **delete** ``id == k`` on each copy, ``--repeat`` times (default 3) with ``k`` in a
  different file each time: wall time and the bytes the delete added under the root
  (deletion file and version file; copy-on-write: the rewritten data file too);
* **read** the whole dataset (every column) with no deletion, with the one row deleted,
  and with 1 % of the rows deleted at random (``bucket == 0``: one deletion file per
  data file),
  interleaved, best of ``--repeat``, each read from a freshly opened version (so the
  deletion files are read too); wall time, and the process's CPU time (all threads),
  which a loaded machine disturbs less.

Prints one table. The data stays in ``--dir`` (removed with ``--clean``). Usage::

    python tools/bench/deletion_bench.py [--size-mb 1024] [--files 8] [--dir /tmp/deletion_bench]
"""
import argparse
import os
import shutil
import time

import numpy as np

import pqkit.dataset as pds

BYTES_PER_ROW = 26          # about, for the id, three random doubles and bucket, zstd


def _write(root, files, rows_per_file):
    rng = np.random.default_rng(34)
    for i in range(files):
        ids = np.arange(i * rows_per_file, (i + 1) * rows_per_file, dtype=np.int64)
        data = {"id": ids, "a": rng.standard_normal(len(ids)),
                "b": rng.standard_normal(len(ids)), "c": rng.standard_normal(len(ids)),
                "bucket": rng.integers(0, 100, len(ids)).astype(np.int32)}
        pds.write(root, data, mode="create" if i == 0 else "append")


def _tree(root):
    """{path: size} of every file under ``root``."""
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            out[path] = os.path.getsize(path)
    return out


def _timed_delete(root, k):
    """(seconds, bytes added under the root) of deleting ``id == k``."""
    before = _tree(root)
    os.sync()
    t = time.perf_counter()
    pds.delete(root, [("id", "==", int(k))])
    seconds = time.perf_counter() - t
    after = _tree(root)
    added = sum(size for path, size in after.items() if path not in before)
    return seconds, added


def _timed_read(root, version):
    """(wall seconds, CPU seconds of the process, all threads) of reading ``version``."""
    t, cpu = time.perf_counter(), time.process_time()
    pds.open(root, version=version).read()
    return time.perf_counter() - t, time.process_time() - cpu


def _mib(n):
    return f"{n / (1 << 20):.2f} MiB" if n >= 1 << 20 else f"{n / 1024:.1f} KiB"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=int, default=1024, help="dataset size in MB")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/deletion_bench")
    ap.add_argument("--clean", action="store_true", help="remove --dir afterwards")
    args = ap.parse_args(argv)
    rows_per_file = (args.size_mb << 20) // args.files // BYTES_PER_ROW
    total_rows = rows_per_file * args.files
    shutil.rmtree(args.dir, ignore_errors=True)
    files_root, cow_root = os.path.join(args.dir, "files"), os.path.join(args.dir, "cow")
    t = time.perf_counter()
    _write(files_root, args.files, rows_per_file)
    pds.commit(files_root, [], mode="append",
               properties={"deletes": "files"})          # opt in: a commit without files
    shutil.copytree(files_root, cow_root)
    pds.commit(cow_root, [], mode="append", properties={"deletes": "copy-on-write"})
    size = sum(f["size"] for f in pds.open(files_root).manifest.files)
    print(f"dataset: {args.files} files, {total_rows:,} rows, {_mib(size)} "
          f"(written in {time.perf_counter() - t:.1f} s)")

    # one row each, in a different file each time
    keys = [(f % args.files) * rows_per_file + rows_per_file // 3 + f
            for f in range(args.repeat)]
    deletes = {"files": [], "cow": []}
    base = pds.open(files_root).version
    for k in keys:                                  # interleaved
        deletes["files"].append(_timed_delete(files_root, k))
        deletes["cow"].append(_timed_delete(cow_root, k))
    one_row = base + 1                              # the version after the first delete

    # 1 % of the rows at random on top of the version with no deletion
    pds.restore(files_root, base)
    random_rows = pds.open(files_root).count([("bucket", "==", 0)])
    t = time.perf_counter()
    pds.delete(files_root, [("bucket", "==", 0)])
    random_delete = time.perf_counter() - t
    one_percent = pds.open(files_root).version
    deleted = pds.open(files_root).manifest.files
    random_bytes = sum(f["deletions"]["size"] for f in deleted if f.get("deletions"))

    reads = {"no deletion": (base, []), "1 row deleted": (one_row, []),
             "1 % deleted": (one_percent, [])}
    for _ in range(args.repeat):                    # interleaved
        for name, (version, times) in reads.items():
            times.append(_timed_read(files_root, version))
            reads[name] = (version, times)
    expected = {"no deletion": total_rows, "1 row deleted": total_rows - 1,
                "1 % deleted": total_rows - random_rows}
    for name, (version, _) in reads.items():
        assert pds.open(files_root, version=version).count() == expected[name], name

    best = {m: min(d[0] for d in deletes[m]) for m in deletes}
    written = {m: max(d[1] for d in deletes[m]) for m in deletes}
    print()
    print("| measurement | deletion files | copy-on-write | ratio |")
    print("|---|---|---|---|")
    print(f"| delete `id == k`: wall time, best of {args.repeat} | {best['files'] * 1e3:.1f} ms "
          f"| {best['cow'] * 1e3:.0f} ms | {best['files'] / best['cow'] * 100:.2f} % |")
    print(f"| delete `id == k`: bytes written, most of {args.repeat} | "
          f"{_mib(written['files'])} | {_mib(written['cow'])} | "
          f"{written['files'] / written['cow'] * 100:.3f} % |")
    print()
    no_wall = min(w for w, _ in reads["no deletion"][1])
    no_cpu = min(c for _, c in reads["no deletion"][1])
    print(f"| full read (best of {args.repeat}, interleaved) | wall s | vs no deletion "
          f"| CPU s | vs no deletion |")
    print("|---|---|---|---|---|")
    for name, (_, times) in reads.items():
        wall, cpu = min(w for w, _ in times), min(c for _, c in times)
        print(f"| {name} | {wall:.3f} | {wall / no_wall:.3f}x | {cpu:.3f} | "
              f"{cpu / no_cpu:.3f}x |")
    print()
    print(f"1 % delete (`bucket == 0`, {random_rows:,} rows): {random_delete:.1f} s, "
          f"deletion files {_mib(random_bytes)} in all")
    if args.clean:
        shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
