"""Distributed reading and writing with Spark, decoding and encoding with pqkit.

The package has three parts: :mod:`pqkit.spark.conversion` (Parquet types and values <->
Spark's, shared by the other two), :mod:`pqkit.spark.jobs` (the functions below) and
:mod:`pqkit.spark.datasource` (the ``pqkit`` format).

The ``pqkit`` data source (:mod:`pqkit.spark.datasource.source`):
``pqkit.spark.register(spark)`` once per session, then
``spark.read.format("pqkit").load(path)`` and ``df.write.format("pqkit").save(path)``, on a
classic or a Spark Connect session.

Reading (:func:`read`, in :mod:`pqkit.spark.jobs.read_job`): the driver plans splits from
the footers (:mod:`pqkit.spark.jobs.plan`: Hive partitions, filters pruning partitions and
row groups), packs them into tasks and builds a small DataFrame with one row per
task. ``mapInPandas`` (or ``mapInArrow`` with ``engine="arrow"``) then runs on
the executors: each task opens its files with :class:`pqkit.ParquetFile`,
decodes one row group at a time (page-index skipping for filtered reads),
casts the columns to their Spark types (:mod:`pqkit.spark.conversion.columns`) and
yields batches of at most ``batch_size`` rows. Any file pqkit reads can be read so,
also those ``spark.read.parquet`` rejects (FLOAT16, nanosecond timestamps,
unsigned 64-bit integers, BYTE_STREAM_SPLIT integers, ...); type mapping and
precision rules are in :mod:`pqkit.spark.conversion.schema`.

Writing (:func:`write`, in :mod:`pqkit.spark.jobs.write_job`): the executors write part
files with :class:`pqkit.ParquetWriter` into a staging directory and return one
row of metadata per file; the driver moves them into place and writes
``_SUCCESS`` last.

pyspark is imported only when a function needs it. The executors need pqkit
and pandas in the Python that Spark starts (``PYSPARK_PYTHON``); the Arrow
engine also needs pyarrow there.

Example::

    import pqkit.spark
    df = pqkit.spark.read(spark, "/data/events", filters=[("year", "=", 2024)])
    pqkit.spark.plan("/data/events", filters=[("year", "=", 2024)]).splits
    pqkit.spark.write(df, "/data/out", partition_by=["year"], mode="overwrite")
"""
from pqkit.spark.datasource.statistics import collect_statistics
from pqkit.spark.jobs.plan import ReadPlan, Split
from pqkit.spark.jobs.read_job import plan, read
from pqkit.spark.jobs.write_job import WriteResult, write

__all__ = ["read", "plan", "write", "register", "collect_statistics", "ReadPlan", "Split",
           "WriteResult"]


def register(spark, pushdown=None):
    """Register the ``pqkit`` data source in ``spark``; see
    :func:`pqkit.spark.datasource.source.register` (imported here only when called: it needs
    pyspark)."""
    from pqkit.spark.datasource.source import register as register_source
    return register_source(spark, pushdown)
