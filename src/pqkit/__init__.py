"""pqkit: a from-scratch Parquet toolkit.

Read, write, inspect and verify Parquet files without pyarrow.
"""
from pqkit import variant
from pqkit._version import __version__
from pqkit.columnar.table import Table
from pqkit.crypto.properties import DecryptionProperties, EncryptionProperties
from pqkit.errors import *
from pqkit.errors import __all__ as _error_names
from pqkit.read.explain import explain_filter
from pqkit.read.file import ParquetFile, read_pandas, read_table
from pqkit.read.prune.filter_text import parse_filter
from pqkit.read.fetch.footer import FileMetaData, FileMetadata, read_metadata
from pqkit.read.options import ReadOptions
from pqkit.read.read_statistics import ReadStatistics
from pqkit.schema.annotations import geo_field
from pqkit.schema.tree import Schema, SchemaNode
from pqkit.write.surgery.append import append
from pqkit.write.surgery.concat import concat
from pqkit.write.existing import finish_interrupted
from pqkit.write.file import ParquetWriter, write_table
from pqkit.write.options import WriteOptions
from pqkit.write.surgery.footer_edit import edit_metadata
from pqkit.write.surgery.recover import recover

__all__ = list(_error_names) + ["FileMetaData", "FileMetadata", "read_metadata", "Schema", "SchemaNode",
                               "ParquetFile", "read_table", "read_pandas", "ReadOptions",
                               "ReadStatistics", "Table",
                               "ParquetWriter", "write_table", "WriteOptions", "variant", "__version__",
                               "concat", "append", "edit_metadata", "recover", "finish_interrupted",
                               "parse_filter", "explain_filter", "DecryptionProperties",
                               "EncryptionProperties", "geo_field"]
