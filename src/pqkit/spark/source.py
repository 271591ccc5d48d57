"""Moved to :mod:`pqkit.spark.datasource.source`; this alias goes away in the next release.

``PqkitDataSource`` is the class users register themselves
(``spark.dataSource.register``), and they import it from here.
"""
from pqkit.spark.datasource.source import PUSHDOWN_CONF, PqkitDataSource, register

__all__ = ["PqkitDataSource", "register", "PUSHDOWN_CONF"]
