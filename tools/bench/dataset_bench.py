"""Planning a point query on a 10,000-file dataset: pqkit.dataset against pyarrow.dataset.

The dataset is generated once (one pqkit.dataset.write of a table with 100 x 100
Hive partitions ``a=…/b=…``, one small file each) into a directory that is kept
between runs. Then, in the same process, for the point query
``a == 42 and b == 17 and id == <one id>``:

* pqkit: ``pqkit.dataset.open(root).files(filters)`` from a cold in-process
  cache: read the ``_latest`` hint, stat the next version, parse the version
  file, prune by partition values and per-file bounds. No directory listing.
* pyarrow: ``pyarrow.dataset.dataset(root, partitioning="hive")`` (discovery
  lists every directory) and ``get_fragments(filter=…)``.

Then the full read of the query's rows with each, and, for comparison, pqkit's
planning from the JSON version file alone (without the planning index).
Reported per step: median wall time over ``--repeat`` runs and bytes read
(``rchar`` of /proc/self/io: every byte returned by read/pread; directory
listings are not counted, so pyarrow's planning shows ~0). Usage::

    python tools/bench/dataset_bench.py [--root DIR] [--files 10000] [--repeat 5]
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np


def _rchar():
    try:
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def generate(root, files, rows_per_file=10):
    import pqkit.dataset as pds
    side = int(round(files ** 0.5))
    n = side * side * rows_per_file
    a = np.repeat(np.arange(side, dtype=np.int64), side * rows_per_file)
    b = np.tile(np.repeat(np.arange(side, dtype=np.int64), rows_per_file), side)
    ids = np.arange(n, dtype=np.int64)
    data = {"a": a, "b": b, "id": ids, "value": ids * 0.5,
            "name": [f"name-{i}" for i in range(n)]}
    t = time.perf_counter()
    os.environ.setdefault("PQKIT_DATASET_FSYNC", "0")
    pds.write(root, data, partition_by=["a", "b"], mode="create")
    return time.perf_counter() - t, side


def _measure(fn, repeat):
    times, reads, result = [], [], None
    for _ in range(repeat):
        before = _rchar()
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
        reads.append(_rchar() - before)
    return statistics.median(times), statistics.median(reads), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(tempfile.gettempdir(),
                                                       "pqkit-dataset-bench"))
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import pyarrow.dataset as pa_ds

    import pqkit.dataset as pds
    from pqkit.dataset import Dataset, ManifestSource
    from pqkit.dataset.pqds.paths import _cache

    root = os.path.join(args.root, f"files{args.files}")
    if not os.path.exists(os.path.join(root, "_SUCCESS")):
        secs, side = generate(root, args.files)
        print(f"generated {root} in {secs:.1f} s")
    pds.publish(root)              # idempotent; builds the planning index if it is missing
    ds = pds.open(root)
    side = int(round(ds.file_count ** 0.5))
    a, b = 42 % side, 17 % side
    target = (a * side + b) * 10 + 3
    filters = [("a", "==", a), ("b", "==", b), ("id", "==", target)]
    expr = (pa_ds.field("a") == a) & (pa_ds.field("b") == b) & (pa_ds.field("id") == target)
    manifest_bytes = os.path.getsize(pds.Layout(root).version_path(ds.version))
    print(f"dataset: {ds.file_count} files, {ds.row_count} rows, version file "
          f"{manifest_bytes / 1e6:.1f} MB")

    def pqkit_plan():
        _cache.clear()
        return pds.open(root).files(filters)

    def pqkit_plan_json():
        # The same planning from the JSON version file alone (no planning index).
        _cache.clear()
        source = ManifestSource(root)
        return Dataset(source, source.load(source.latest())).files(filters)

    def arrow_plan():
        dataset = pa_ds.dataset(root, partitioning="hive", format="parquet")
        return list(dataset.get_fragments(filter=expr))

    def pqkit_read():
        _cache.clear()
        return pds.open(root).read(filters=filters)

    def arrow_read():
        return pa_ds.dataset(root, partitioning="hive", format="parquet").to_table(filter=expr)

    rows = []
    for name, fn in (("pqkit plan", pqkit_plan), ("pyarrow plan", arrow_plan),
                     ("pqkit plan+read", pqkit_read), ("pyarrow plan+read", arrow_read),
                     ("pqkit plan, JSON only", pqkit_plan_json)):
        secs, nbytes, result = _measure(fn, args.repeat)
        count = len(result) if isinstance(result, list) else result.num_rows
        rows.append((name, secs, nbytes, count))
        print(f"{name:<22} {secs * 1000:9.1f} ms  {nbytes / 1e3:9.1f} KB read  -> {count} "
              f"{'files' if isinstance(result, list) else 'rows'}")
    print(f"planning: pqkit is {rows[1][1] / rows[0][1]:.1f}x faster than pyarrow discovery "
          f"+ filter (target >= 10x); from the JSON version file alone "
          f"{rows[1][1] / rows[4][1]:.1f}x")
    print(f"plan + read: pqkit is {rows[3][1] / rows[2][1]:.1f}x faster")


if __name__ == "__main__":
    main()
