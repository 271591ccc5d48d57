"""Moved to :mod:`pqkit.read.fetch.metadata`; this alias goes away in the next release.

``RowGroupMetaData``, ``ColumnChunkMetaData``, ``Statistics`` and ``SortingColumn`` are
what ``FileMetadata.row_group(i)`` hands out, and users import them from here.
"""
from pqkit.read.fetch.metadata import (ColumnChunkMetaData, RowGroupMetaData, SortingColumn,
                                       Statistics)

__all__ = ["RowGroupMetaData", "ColumnChunkMetaData", "Statistics", "SortingColumn"]
