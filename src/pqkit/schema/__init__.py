"""Schemas: the Parquet schema tree of a file, the logical type of each leaf,
the Parquet schema written for a Table, and the ``ARROW:schema`` entry read and
written beside it."""
from pqkit.schema.tree import Schema, SchemaNode

__all__ = ["Schema", "SchemaNode"]
