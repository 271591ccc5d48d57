"""pqkit against pyarrow on a local S3 server: requests and wall time per operation.

Starts moto's S3 server on 127.0.0.1 behind the request counter of
``tests/s3server.py``, uploads a 3-column file of 50 row groups (small
pages, page index) and a published PQDS/1 dataset of ``--files`` one-row files
(written by pqkit.dataset into ``--root``, kept between runs), then measures
in one run, for pqkit (s3fs through fsspec) and pyarrow
(``pyarrow.fs.S3FileSystem`` pointed at the same server):

* read_metadata: the footer only;
* one column: ``read_table(columns=["b"])``;
* point query: ``a == 77777`` reading columns a and s;
* dataset planning of the point query ``a == 42 and b == 17 and id == <one id>``:
  pqkit ``pqkit.dataset.open(url).files(filters)`` (hint, version file, next
  version: no listing) against pyarrow.dataset's discovery of the same prefix
  (listing) and ``get_fragments(filter)``.

Reported: GET, HEAD and LIST requests and the median wall time of ``--repeat``
runs after one warm-up run (every run opens the file anew). Usage::

    python tools/bench/remote_bench.py [--repeat 5] [--files 10000] [--root DIR]
"""
import argparse
import io
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src"))

import pqkit
from s3server import BUCKET, CountingS3Server, upload_published

ROWS = 100_000


def _kinds(requests):
    gets = sum(r.method == "GET" and not r.is_list for r in requests)
    lists = sum(r.is_list for r in requests)
    heads = sum(r.method == "HEAD" for r in requests)
    return gets, heads, lists


def measure(server, fn, repeat):
    times, counts = [], None
    fn()                       # warm up: connection pools, credentials, s3fs's event loop
    for _ in range(repeat):
        mark = server.log.mark()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        counts = _kinds(server.log.since(mark))
    return counts, statistics.median(times)


def upload_file(client):
    t = pa.table({"a": np.arange(ROWS), "b": np.arange(ROWS) * 2.0,
                  "s": [f"v{i}" for i in range(ROWS)]})
    buf = io.BytesIO()
    pq.write_table(t, buf, row_group_size=ROWS // 50, write_page_index=True,
                   data_page_size=1000)
    client.put_object(Bucket=BUCKET, Key="bench/fifty.parquet", Body=buf.getvalue())
    return len(buf.getvalue())


def build_dataset(root, files):
    """A PQDS/1 dataset of ``files`` one-row files in partitions a=<i>/b=<j> (kept)."""
    import pqkit.dataset as pds
    if os.path.isdir(os.path.join(root, "_pqkit")):
        return
    side = 100
    os.environ.setdefault("PQKIT_DATASET_FSYNC", "0")
    pds.write(root, {"a": np.arange(files) // side, "b": np.arange(files) % side,
                     "id": np.arange(files)}, partition_by=["a", "b"], mode="create")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--root", default=None,
                    help="where the dataset is built and kept (default: a temp dir per size)")
    args = ap.parse_args()
    root = args.root or os.path.join(tempfile.gettempdir(), f"pqkit-remote-bench-{args.files}")
    build_dataset(root, args.files)
    server = CountingS3Server()
    server.start()
    try:
        client = server.boto3_client()
        client.create_bucket(Bucket=BUCKET)
        size = upload_file(client)
        upload_published(client, root, "bench/ds/")
        so = server.storage_options()
        url = f"s3://{BUCKET}/bench/fifty.parquet"
        path = f"{BUCKET}/bench/fifty.parquet"
        afs = server.pyarrow_fs()
        point = [("a", "==", 77_777)]
        ops = [
            ("read_metadata", lambda: pqkit.read_metadata(url, storage_options=so),
             lambda: pq.read_metadata(path, filesystem=afs)),
            ("one column (b)", lambda: pqkit.read_table(url, columns=["b"], storage_options=so),
             lambda: pq.read_table(path, columns=["b"], filesystem=afs)),
            ("point query a == 77777",
             lambda: pqkit.read_table(url, columns=["a", "s"], filters=point,
                                      storage_options=so),
             lambda: pq.read_table(path, columns=["a", "s"], filters=point, filesystem=afs)),
        ]
        print(f"file: {size:,} bytes, 50 row groups x 3 columns; dataset: {args.files:,} files; "
              f"median of {args.repeat} runs; requests as GET/HEAD/LIST")
        print(f"{'operation':28} {'pqkit req':>11} {'pqkit ms':>9} {'pyarrow req':>12} "
              f"{'pyarrow ms':>10}")
        for name, ours, theirs in ops:
            (g1, h1, l1), t1 = measure(server, ours, args.repeat)
            (g2, h2, l2), t2 = measure(server, theirs, args.repeat)
            print(f"{name:28} {g1:>5}/{h1}/{l1:<3} {t1 * 1e3:9.1f} {g2:>6}/{h2}/{l2:<3} "
                  f"{t2 * 1e3:10.1f}")

        import pqkit.dataset as pds
        target = 42 * 100 + 17
        point_ds = [("a", "==", 42), ("b", "==", 17), ("id", "==", target)]

        def pqkit_plan():
            files = pds.open(f"s3://{BUCKET}/bench/ds", storage_options=so).files(point_ds)
            assert len(files) == 1

        def pyarrow_plan():
            ds = pads.dataset(f"{BUCKET}/bench/ds", filesystem=afs, format="parquet",
                              partitioning="hive")
            frags = list(ds.get_fragments(filter=(pads.field("a") == 42) &
                                          (pads.field("b") == 17) &
                                          (pads.field("id") == target)))
            assert len(frags) == 1
        (g1, h1, l1), t1 = measure(server, pqkit_plan, min(args.repeat, 3))
        (g2, h2, l2), t2 = measure(server, pyarrow_plan, min(args.repeat, 3))
        print(f"{'dataset planning':28} {g1:>5}/{h1}/{l1:<3} {t1 * 1e3:9.1f} "
              f"{g2:>6}/{h2}/{l2:<3} {t2 * 1e3:10.1f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
