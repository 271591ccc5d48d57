#!/usr/bin/env python3
"""pqkit.spark.read against Spark's own Parquet reader, same session, same files.

Spark writes a dataset of about ``--size-mb`` MB (snappy, Spark's defaults: dictionary
on, 128 MB row groups) into a temporary directory: a bigint id, an int, a double,
a low- and a high-cardinality string, a date, a timestamp and a decimal(12,2).
Each reader then scans every column into Spark's no-op sink (``format("noop")``),
so nothing is skipped and nothing is written; best of ``--repeat`` runs, warm page
cache. Printed: seconds and MB/s per reader, and the ratio pqkit / Spark.

Usage: python tools/bench/spark_bench.py [--size-mb 1024] [--master local[2]]
       [--engines pandas,arrow] [--repeat 2] [--dir DIR] [--keep]
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


def _session(master):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master(master).appName("pqkit-spark-bench")
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


def _scan(df):
    start = time.perf_counter()
    df.write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--engines", default="pandas,arrow")
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
        readers = [("spark.read.parquet", lambda: spark.read.parquet(path))]
        for engine in args.engines.split(","):
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
