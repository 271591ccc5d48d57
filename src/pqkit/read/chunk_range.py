"""Where a column chunk's pages lie in the file: the one rule every reader and checker uses.

A chunk starts at the smaller *valid* one of ``dictionary_page_offset`` and
``data_page_offset`` (valid: at least 4, past the leading magic; some writers
store 0, or nothing, for the offset they do not use, and a chunk of no values
may have only a dictionary page) and spans ``total_compressed_size`` bytes,
which must end before the footer. Example: ``dictionary_page_offset=4``,
``data_page_offset=120``, ``total_compressed_size=300`` gives bytes
``[4, 304)``; with ``dictionary_page_offset=0`` it gives ``[120, 420)``.

parquet-mr before 1.2.9 left the dictionary page header out of
``total_compressed_size`` (PARQUET-816); readers of such files ask for
:func:`dictionary_header_padding` extra bytes, as far as the data goes.
"""
import re

from pqkit.errors import CorruptFileError

__all__ = ["chunk_start", "chunk_range", "dictionary_segment", "dictionary_header_padding",
           "MAX_DICT_HEADER", "MAX_OVERRUN"]

MAX_DICT_HEADER = 100       # bytes: a dictionary page header is never longer
# Inspectors walk up to this many bytes past a chunk's declared end, to tell a PARQUET-816
# chunk (its pages run on) from a corrupt one.
MAX_OVERRUN = 256


def chunk_start(meta):
    """File offset of the chunk's first page (ColumnMetaData ``meta``), or None when
    neither page offset is valid."""
    offsets = [o for o in (meta.dictionary_page_offset, meta.data_page_offset)
               if o is not None and o >= 4]
    return min(offsets) if offsets else None


def dictionary_segment(meta, first_data_offset):
    """(offset, length) of the bytes before a chunk's first data page (its dictionary
    page), or None when the chunk starts at its first data page.

    Readers that fetch single pages through the OffsetIndex (which lists data pages
    only) fetch this too. It is located by the chunk's start, not by
    ``dictionary_page_offset`` alone: parquet-mr before 1.15.0 often left that field
    unset and pointed ``data_page_offset`` at the dictionary page instead
    (PARQUET-1850, parquet-java #2962), and every major reader copes.
    """
    start = chunk_start(meta)
    if start is None or start >= first_data_offset:
        return None
    return start, first_data_offset - start


def chunk_range(chunk, data_end, where, pad=0):
    """(offset, length) of a ColumnChunk's pages, checked against the data's end.

    Parameters
    ----------
    chunk : pqkit.format.ColumnChunk
    data_end : int
        Offset where the data ends (the footer's offset).
    where : str
        "column a.b, row group 3" -- the prefix of every error message.
    pad : int
        Extra bytes to add where ``data_end`` allows (see :func:`dictionary_header_padding`).

    Raises
    ------
    CorruptFileError
        No metadata, no valid page offset, a negative size, or a range past ``data_end``.
    """
    meta = chunk.meta_data
    if meta is None:
        raise CorruptFileError(f"{where}: column chunk has no meta_data (encrypted column?)")
    start = chunk_start(meta)
    length = meta.total_compressed_size
    if start is None or length is None or length < 0:
        raise CorruptFileError(
            f"{where}: invalid chunk range: dictionary_page_offset "
            f"{meta.dictionary_page_offset}, data_page_offset {meta.data_page_offset}, "
            f"total_compressed_size {length}")
    if start + length > data_end:
        raise CorruptFileError(
            f"{where}: chunk at offset {start} with {length} bytes runs past the end of the "
            f"data, which ends at offset {data_end}")
    return start, length + max(0, min(pad, data_end - start - length))


def dictionary_header_padding(created_by):
    """Bytes to add to chunk ranges of files from parquet-mr before 1.2.9 (PARQUET-816)."""
    if not created_by or not created_by.startswith("parquet-mr"):
        return 0
    m = re.match(r"parquet-mr(?: version)? (\d+)\.(\d+)\.(\d+)", created_by)
    if m is None:
        return MAX_DICT_HEADER
    return MAX_DICT_HEADER if tuple(map(int, m.groups())) < (1, 2, 9) else 0
