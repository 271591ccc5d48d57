"""Alias kept for one release: the ``pqkit`` data source moved to
:mod:`pqkit.spark.datasource.source`."""
from pqkit.spark.datasource.source import PUSHDOWN_CONF, PqkitDataSource, register

__all__ = ["PqkitDataSource", "register", "PUSHDOWN_CONF"]
