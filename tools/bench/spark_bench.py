#!/usr/bin/env python3
"""pqkit on Spark (the ``pqkit`` format and pqkit.spark.read) against Spark's own Parquet
reader and writer, same session, same files.

Spark writes a dataset of about ``--size-mb`` MB (snappy, Spark's defaults: dictionary
on, 128 MB row groups) into a temporary directory: a bigint id, an int, a double,
a low- and a high-cardinality string, a date, a timestamp and a decimal(12,2).
Each reader then scans every column into Spark's no-op sink (``format("noop")``),
so nothing is skipped and nothing is written; best of ``--repeat`` runs, warm page
cache. Printed: seconds and MB/s per reader, and the ratio pqkit / Spark.

``--format`` adds the ``pqkit`` data source (``spark.read.format("pqkit")``) on the
cases of its issue, each against the same query through ``spark.read.parquet``:
a full scan into ``noop``, a 1 %-selective ``where`` on the id (row groups and
pages skipped), 2 of the 8 columns (the ``columns`` option), ``count()``, and a
write of the whole DataFrame (``df.write.format("pqkit")`` against
``df.write.parquet``). ``--connect`` runs them on a Spark Connect session served
by the same JVM as well. After the table: the bytes the selective case read and the
row groups and pages it skipped (the ``statisticsPath`` option), and where the full
scan's time goes: the Python side (the format's reader, decode and Arrow batches,
run in this process without Spark, divided by the master's cores), and the
crossing alone: a Python data source with the format's partitions that yields each
partition's first batch again and again, so nothing is decoded and every row
still crosses from Python into the JVM.

The issue's figures: ``--size-mb 1024 --repeat 3 --format --connect --engines ""``
on an otherwise idle machine.

Usage: python tools/bench/spark_bench.py [--size-mb 1024] [--master local[2]]
       [--engines pandas,arrow] [--format] [--connect] [--repeat 2] [--dir DIR] [--keep]
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

ROWS_PER_MB_GUESS = 20_000

GENERATOR_SQL = """
select id,
       cast(id % 100000 as int) as small,
       cast(id as double) * 0.001 as amount,
       concat('kind-', cast(id % 50 as string)) as kind,
       concat('user-', cast(xxhash64(id) as string)) as user,
       date_add(date'2000-01-01', cast(id % 9000 as int)) as day,
       timestamp_micros(1600000000000000 + id * 1000003) as ts,
       cast(id % 10000000 as decimal(12, 2)) / 100 as price
from range(0, {rows}, 1, {partitions})
"""


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONNECT_PORT = _free_port()


def _session(master):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master(master).appName("pqkit-spark-bench")
             .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
             .config("spark.connect.grpc.binding.port", str(CONNECT_PORT))
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "2g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _dir_mb(path):
    return sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(path)
               for n in names if n.endswith(".parquet")) / 1e6


def generate(spark, path, size_mb):
    """Write about ``size_mb`` MB with Spark: calibrate bytes per row on a sample first."""
    sample = path + "_sample"
    sample_rows = 200_000
    spark.sql(GENERATOR_SQL.format(rows=sample_rows, partitions=2)).write.mode("overwrite") \
        .parquet(sample)
    per_row = _dir_mb(sample) / sample_rows
    shutil.rmtree(sample)
    rows = max(sample_rows, int(size_mb / per_row))
    partitions = max(2, int(size_mb // 128) + 1)
    spark.sql(GENERATOR_SQL.format(rows=rows, partitions=partitions)).write \
        .mode("overwrite").parquet(path)
    return rows


def _connect_session():
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession
    spark = RemoteSparkSession.builder.remote(f"sc://127.0.0.1:{CONNECT_PORT}").getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return spark


def _timed(action):
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _scan(df):
    return _timed(lambda: df.write.format("noop").mode("overwrite").save())


def format_cases(spark, path, rows, out):
    """(case, Spark's action, the format's action) for the format's benchmark."""
    parquet = spark.read.parquet(path)
    fmt = spark.read.format("pqkit").load(path)
    cut = rows // 100
    return [
        ("full scan", lambda: _scan(parquet), lambda: _scan(fmt)),
        ("1% where id <", lambda: _scan(parquet.where(f"id < {cut}")),
         lambda: _scan(fmt.where(f"id < {cut}"))),
        ("2 of 8 columns", lambda: _scan(parquet.select("id", "amount")),
         lambda: _scan(spark.read.format("pqkit").option("columns", "id,amount").load(path))),
        ("count()", lambda: _timed(parquet.count), lambda: _timed(fmt.count)),
        ("write", lambda: _timed(lambda: parquet.write.mode("overwrite").parquet(out)),
         lambda: _timed(lambda: parquet.write.format("pqkit").mode("overwrite").save(out))),
    ]


def run_format(spark, path, rows, base, repeat, label):
    import pqkit.spark
    pqkit.spark.register(spark)
    print(f"-- format pqkit, {label} session (best of {repeat})")
    print(f"{'case':16s} {'spark s':>9s} {'pqkit s':>9s} {'ratio':>7s}")
    times = {}
    for name, theirs, ours in format_cases(spark, path, rows, os.path.join(base, "out")):
        t_spark = min(theirs() for _ in range(repeat))
        t_ours = min(ours() for _ in range(repeat))
        times[name] = t_ours
        print(f"{name:16s} {t_spark:9.2f} {t_ours:9.2f} {t_ours / t_spark:6.2f}x")
    return times


def selective_statistics(spark, path, rows, base):
    """The ReadStatistics of the 1 %-selective scan through the format."""
    import pqkit.spark
    directory = tempfile.mkdtemp(prefix="stats-", dir=base)
    df = spark.read.format("pqkit").option("statisticsPath", directory).load(path)
    _scan(df.where(f"id < {rows // 100}"))
    return pqkit.spark.collect_statistics(directory)


def python_side_seconds(path):
    """CPU seconds (all threads) this process takes to run the format's reader over every
    partition of a full scan (plan, decode, Arrow batches), without Spark."""
    from pqkit.spark.datasource.source import PlainReader, PqkitDataSource
    options = {"path": path}
    schema = PqkitDataSource(options).schema()
    reader = PlainReader(options, schema)
    start = time.process_time()
    for partition in reader.partitions():
        for _ in reader.read(partition):
            pass
    return time.process_time() - start


def report_format_details(spark, path, rows, base, mb, cores, full_scan, repeat):
    s = selective_statistics(spark, path, rows, base)
    print(f"1% where: read {s.bytes_read / 1e6:,.1f} MB of {mb:,.0f} MB; row groups "
          f"{s.row_groups}, skipped {s.row_groups_skipped}; pages skipped "
          f"{s.pages_skipped}, decoded {s.pages_decoded}")
    python = python_side_seconds(path)
    print(f"full scan: Python side {python:.2f} CPU s = {python / cores:.2f} s over "
          f"{cores} cores, of {full_scan:.2f} s wall")
    crossing = crossing_seconds(spark, path, repeat)
    print(f"crossing alone (the same rows repeated, nothing decoded): {crossing:.2f} s = "
          f"{crossing / full_scan:.0%} of the format's full scan")


def _repeating_source():
    """A Python data source class that repeats the first batch of each of the format's
    partitions up to that partition's rows: the Python->JVM crossing without decoding."""
    from pyspark.sql.datasource import DataSource, DataSourceReader

    class RepeatedBatches(DataSourceReader):
        def __init__(self, options, schema):
            from pqkit.spark.datasource.source import PlainReader
            self.inner = PlainReader({"path": options["path"]}, schema)

        def partitions(self):
            return self.inner.partitions()

        def read(self, partition):
            rows = sum(s.num_rows for s in partition.splits)
            batch = next(iter(self.inner.read(partition)))
            while rows > 0:
                yield batch if rows >= batch.num_rows else batch.slice(0, rows)
                rows -= batch.num_rows

    class RepeatedBatchSource(DataSource):
        @classmethod
        def name(cls):
            return "pqkit_bench_repeat"

        def schema(self):
            from pqkit.spark.datasource.source import PqkitDataSource
            return PqkitDataSource({"path": self.options["path"]}).schema()

        def reader(self, schema):
            return RepeatedBatches(self.options, schema)

    return RepeatedBatchSource


def crossing_seconds(spark, path, repeat):
    spark.dataSource.register(_repeating_source())
    df = spark.read.format("pqkit_bench_repeat").load(path)
    return min(_scan(df) for _ in range(repeat))


def _cores(master):
    inside = master[master.find("[") + 1:master.find("]")] if "[" in master else "1"
    return os.cpu_count() if inside == "*" else max(1, int(inside.split(",")[0]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--engines", default="pandas,arrow")
    ap.add_argument("--format", action="store_true", help="benchmark the pqkit format")
    ap.add_argument("--connect", action="store_true",
                    help="with --format: also on a Spark Connect session")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dir", default=None, help="where to generate (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the generated data")
    args = ap.parse_args(argv)

    import pqkit.spark
    spark = _session(args.master)
    base = args.dir or tempfile.mkdtemp(prefix="pqkit-spark-bench-")
    path = os.path.join(base, "data")
    try:
        if not os.path.isdir(path):
            rows = generate(spark, path, args.size_mb)
        else:
            rows = spark.read.parquet(path).count()
        mb = _dir_mb(path)
        plan = pqkit.spark.plan(path)
        print(f"data: {rows:,} rows, {mb:,.0f} MB in {plan.num_files} files, "
              f"{plan.num_row_groups} row groups; master {args.master}")
        if args.format:
            times = run_format(spark, path, rows, base, args.repeat, "classic")
            report_format_details(spark, path, rows, base, mb, _cores(args.master),
                                  times["full scan"], args.repeat)
            if args.connect:
                remote = _connect_session()
                try:
                    run_format(remote, path, rows, base, args.repeat, "Connect")
                finally:
                    remote.stop()
        readers = [("spark.read.parquet", lambda: spark.read.parquet(path))]
        for engine in filter(None, args.engines.split(",")):
            readers.append((f"pqkit.spark.read engine={engine}",
                            lambda e=engine: pqkit.spark.read(spark, path, engine=e)))
        times = {}
        for name, make in readers:
            times[name] = min(_scan(make()) for _ in range(args.repeat))
            print(f"{name:36s} {times[name]:8.2f} s {mb / times[name]:8.1f} MB/s")
        spark_time = times["spark.read.parquet"]
        for name, t in times.items():
            if name.startswith("pqkit"):
                print(f"ratio {name} / spark.read.parquet: {t / spark_time:.2f}x time")
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
