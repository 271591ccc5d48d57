"""The ``pqkit`` Spark data source (pyspark's Python Data Source API, Spark >= 4.0).

::

    import pqkit.spark
    pqkit.spark.register(spark)                   # once per session, classic or Connect
    df = spark.read.format("pqkit").load("/data/events")
    df.where("id = 77").show()                    # filters pushed to pqkit

Importing pqkit is not enough: Spark knows a Python data source only once it is
registered in the session (:func:`register`).

Filter pushdown: Spark 4.3 fails every query of a reader that offers
``pushFilters`` while ``spark.sql.python.filterPushdown.enabled`` is false
(``DATA_SOURCE_PUSHDOWN_DISABLED``). :func:`register` therefore decides once:
it turns the setting on when the session has not set it, and registers the
source so that its reader offers pushdown exactly when the setting was on (or
turned on) at registration. A session that sets it to false before registering
gets a reader without pushdown, whose answers Spark filters itself; the option
``pushdown=false`` asks for that reader on one read.
"""
from pyspark.sql.datasource import DataSource, DataSourceReader

from pqkit.spark.datasource.pushdown import translate
from pqkit.spark.datasource.read import SourceReader, source_schema
from pqkit.spark.datasource.write import SourceWriter

__all__ = ["PqkitDataSource", "register", "PUSHDOWN_CONF"]

PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"


class PlainReader(SourceReader, DataSourceReader):
    """A reader without filter pushdown: Spark evaluates every filter."""


class PushingReader(PlainReader):
    """A reader that takes Spark's filters (see :mod:`pqkit.spark.datasource.pushdown`)."""

    def pushFilters(self, filters):
        terms, left = translate(list(filters), self.schema)
        self.filters = terms or None
        return left


class PqkitDataSource(DataSource):
    """``spark.read.format("pqkit")`` / ``df.write.format("pqkit")``; streaming over PQDS/1
    datasets with ``readStream`` / ``writeStream`` (:mod:`pqkit.spark.datasource.stream_source`,
    :mod:`pqkit.spark.datasource.stream_sink`)."""

    offers_pushdown = True     # what register() saw; a class attribute travels with the class

    @classmethod
    def name(cls):
        return "pqkit"

    def schema(self):
        return source_schema(self.options)

    def reader(self, schema):
        if self.offers_pushdown and PlainReader.pushdown_wanted(self.options):
            return PushingReader(self.options, schema)
        return PlainReader(self.options, schema)

    def writer(self, schema, overwrite):
        return SourceWriter(self.options, schema, overwrite)

    def streamReader(self, schema):
        from pqkit.spark.datasource.stream_source import DatasetStreamReader
        return DatasetStreamReader(self.options, schema)

    def streamWriter(self, schema, overwrite):
        from pqkit.spark.datasource.stream_sink import DatasetStreamWriter
        return DatasetStreamWriter(self.options, schema, overwrite)


def register(spark, pushdown=None):
    """Register the ``pqkit`` format in ``spark`` (a classic or Spark Connect session).

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
    pushdown : bool, optional
        Offer Spark's filters to pqkit. Default: as ``spark.sql.python.filterPushdown.enabled``
        says, turning it on when the session leaves it unset. ``True`` turns it on;
        ``False`` leaves it alone and registers a source whose reader never offers pushdown.
    """
    if pushdown is None:
        current = spark.conf.get(PUSHDOWN_CONF, None)
        pushdown = current is None or str(current).lower() == "true"
    if pushdown:
        spark.conf.set(PUSHDOWN_CONF, "true")
    source = PqkitDataSource if pushdown else _without_pushdown()
    spark.dataSource.register(source)
    return source


def _without_pushdown():
    class PqkitDataSourceNoPushdown(PqkitDataSource):
        offers_pushdown = False
    return PqkitDataSourceNoPushdown
