"""A streaming query in a process of its own, for the tests that kill it (kill -9).

    python stream_job.py SOURCE TARGET CHECKPOINT {run|drain}

reads the PQDS/1 dataset SOURCE with format ``pqkit`` (two files per micro-batch) and
writes it into the dataset TARGET with format ``pqkit``. ``run`` keeps going until the
process is killed; ``drain`` reads what the source holds (Trigger.AvailableNow) and
exits 0.
"""
import os
import sys


def main(source, target, checkpoint, how):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import pqkit.spark
    spark = (SparkSession.builder.master("local[2]").appName("pqkit-stream-job")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    pqkit.spark.register(spark)
    stream = (spark.readStream.format("pqkit").option("maxFilesPerTrigger", 2).load(source)
              .writeStream.format("pqkit").option("checkpointLocation", checkpoint))
    if how == "drain":
        stream.trigger(availableNow=True).start(target).awaitTermination()
    else:
        stream.trigger(processingTime="0 seconds").start(target).awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
