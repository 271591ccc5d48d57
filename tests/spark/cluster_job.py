"""Run by test_spark_source_cluster.py in its own process: the format's read and write on
``local-cluster[2,1,1024]`` (two executor JVMs, each with its own Python workers).
Prints one JSON object of what it saw."""
import json
import os
import sys


def main(out):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import pqkit.spark
    spark = (SparkSession.builder.master("local-cluster[2,1,1024]")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.executorEnv.PYTHONPATH", os.environ.get("PYTHONPATH", ""))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        pqkit.spark.register(spark)
        df = spark.sql("select id, cast(id % 3 as int) as k, concat('r', id) as s "
                       "from range(0, 3000, 1, 4)")
        target = os.path.join(out, "t")
        df.write.format("pqkit").option("partition_by", "k").mode("overwrite").save(target)
        ours = spark.read.format("pqkit").load(target)
        theirs = spark.read.parquet(target)
        bad = df.selectExpr("id", "k", "case when id = 2999 then raise_error('boom') "
                            "else s end as s")
        before = sorted(os.listdir(target))
        try:
            bad.write.format("pqkit").option("partition_by", "k").mode("overwrite").save(target)
            failed = False
        except Exception as exc:
            failed = "boom" in str(exc)
        executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
        print(json.dumps({
            "executors": executors,
            "same_rows": sorted(map(tuple, ours.collect())) ==
            sorted(map(tuple, theirs.select(*ours.columns).collect())),
            "where": [r.s for r in ours.where("id = 77").collect()],
            "failed": failed,
            "unchanged": sorted(os.listdir(target)) == before and theirs.count() == 3000,
        }))
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
