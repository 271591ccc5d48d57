"""Run by test_spark_encryption.py in its own process, whose JVM has the test KMS class on
its classpath (a session's classpath is fixed when its JVM starts). Spark reads the
pqkit-encrypted files the test wrote and writes encrypted copies through parquet-java's
``PropertiesDrivenCryptoFactory``. Prints one JSON object: each case's rows as Spark read
them."""
import json
import os
import sys


def main(classes, work):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    with open(os.path.join(work, "cases.json")) as f:
        spec = json.load(f)
    builder = (SparkSession.builder.master("local[2]").appName("pqkit-encryption")
               .config("spark.driver.extraClassPath", classes)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    for key, value in spec["hadoop"].items():
        builder = builder.config(f"spark.hadoop.{key}", value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    seen = {}
    try:
        for name, write_options in spec["cases"].items():
            df = spark.read.parquet(os.path.join(work, "pqkit", f"{name}.parquet"))
            seen[name] = [list(row) for row in df.orderBy("a").collect()]
            (df.coalesce(2).write.options(**write_options).mode("overwrite")
             .parquet(os.path.join(work, "spark", name)))
    finally:
        spark.stop()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
