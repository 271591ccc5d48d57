"""Parquet (pqkit) types and values <-> Spark's, shared by :mod:`pqkit.spark.jobs` and
:mod:`pqkit.spark.datasource`: the type mapping, column casts, Spark's legacy calendar, its
row metadata and VARIANT bytes."""
