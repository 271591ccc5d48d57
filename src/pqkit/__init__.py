"""pqkit: a from-scratch Parquet toolkit.

Read, write, inspect and verify Parquet files without pyarrow.
"""
from pqkit import variant
from pqkit._version import __version__
from pqkit.columnar.table import Table
from pqkit.errors import *
from pqkit.errors import __all__ as _error_names
from pqkit.read.explain import explain_filter
from pqkit.read.file import ParquetFile, read_pandas, read_table
from pqkit.read.filter_text import parse_filter
from pqkit.read.footer import FileMetadata, read_metadata
from pqkit.read.options import ReadOptions
from pqkit.schema.tree import Schema, SchemaNode
from pqkit.write.file import ParquetWriter, write_table

__all__ = list(_error_names) + ["FileMetadata", "read_metadata", "Schema", "SchemaNode",
                               "ParquetFile", "read_table", "read_pandas", "ReadOptions", "Table",
                               "ParquetWriter", "write_table", "variant", "__version__",
                               "parse_filter", "explain_filter"]
