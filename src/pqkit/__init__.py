"""pqkit: a from-scratch Parquet toolkit.

Read, write, inspect and verify Parquet files without pyarrow.
"""
from ._version import __version__
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _error_names
from .footer import FileMetadata, read_metadata
from .reader import ParquetFile, read_pandas, read_table
from .schema import Schema, SchemaNode
from .table import Table
from .writer import ParquetWriter, write_table

__all__ = list(_error_names) + ["FileMetadata", "read_metadata", "Schema", "SchemaNode",
                               "ParquetFile", "read_table", "read_pandas", "Table", "ParquetWriter",
                               "write_table", "__version__"]
