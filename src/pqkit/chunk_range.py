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
:func:`dictionary_header_padding` extra bytes, as far as the data goes. Whoever
copies a chunk elsewhere (``pqkit.concat``) needs its exact end instead, so
:func:`exact_chunk_range` adds the size of the dictionary page header it finds
at the chunk's start: with a 21-byte header the example's ``[4, 304)`` becomes
``[4, 325)``.

Both roads use this module: the read road to fetch a chunk, file surgery on the
write road to copy one.
"""
import re

from pqkit import format as fmt
from pqkit.errors import AllocationLimitError, CorruptFileError
from pqkit.format import Encoding, PageType

__all__ = [
    "MAX_DICT_HEADER",
    "MAX_OVERRUN",
    "chunk_range",
    "chunk_start",
    "dictionary_header_padding",
    "dictionary_segment",
    "exact_chunk_range",
    "has_dictionary_page",
    "pages_end",
    "where_of",
]

_DICTIONARY_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
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


def has_dictionary_page(meta):
    """Whether a chunk (ColumnMetaData ``meta``) starts with a dictionary page.

    True when ``dictionary_page_offset`` is valid, and also when it is not but the
    chunk lists a dictionary encoding: its data pages then need a dictionary page,
    which parquet-mr before 1.15.0 placed at ``data_page_offset`` (PARQUET-1850).
    """
    offset = meta.dictionary_page_offset
    if offset is not None and offset >= 4:
        return True
    return any(e in _DICTIONARY_ENCODINGS for e in meta.encodings or ())


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


def exact_chunk_range(chunk, data_end, where, created_by, read):
    """(offset, length) of exactly a ColumnChunk's pages, for copying them.

    As :func:`chunk_range`, except for a file of a PARQUET-816 writer
    (:func:`dictionary_header_padding` of ``created_by`` is not 0) whose chunk
    starts with a dictionary page: its length then includes that page's header,
    which ``total_compressed_size`` left out.

    Parameters
    ----------
    chunk, data_end, where
        As for :func:`chunk_range`.
    created_by : str or None
        The footer's ``created_by``.
    read : callable
        ``read(offset, length) -> bytes`` of the file (fewer bytes at its end).

    Raises
    ------
    CorruptFileError
        As :func:`chunk_range`; or the dictionary page header is undecodable, or the
        chunk with its header runs past ``data_end``.
    """
    start, length = chunk_range(chunk, data_end, where)
    if not dictionary_header_padding(created_by):
        return start, length
    head = bytes(read(start, min(MAX_DICT_HEADER, data_end - start)))
    try:
        header, used = fmt.decode(fmt.PageHeader, head, 0, len(head), start)
    except (CorruptFileError, AllocationLimitError) as exc:
        raise CorruptFileError(f"{where}: no page header at the chunk's start, offset "
                               f"{start}: {exc}") from None
    if header.type != PageType.DICTIONARY_PAGE:
        return start, length
    if start + length + used > data_end:
        raise CorruptFileError(
            f"{where}: chunk at offset {start} with {length} bytes and its dictionary page "
            f"header of {used} bytes (PARQUET-816) runs past the end of the data, which ends "
            f"at offset {data_end}")
    return start, length + used


HEADER_READ = 256              # bytes read for a page header, first try
MAX_HEADER_READ = 1 << 20      # ...and at most (statistics can make one long)


def pages_end(meta, start, data_end, where, read):
    """(end offset, total uncompressed size) of a chunk's pages, found by walking their
    headers from ``start`` until the data pages hold ``meta.num_values`` values; for a
    copy, which must not cut a page whatever ``total_compressed_size`` says (some
    writers under-declared it). None when the chunk declares no values.

    Raises
    ------
    CorruptFileError
        A header that does not decode, a page past ``data_end``, or the data ending
        before the chunk's values.
    """
    if not meta.num_values or meta.num_values < 0:
        return None
    pos, seen, uncompressed = start, 0, 0
    while seen < meta.num_values:
        header, used = _header_at(pos, data_end, where, read)
        size, full = header.compressed_page_size, header.uncompressed_page_size
        if size is None or size < 0 or full is None or full < 0:
            raise CorruptFileError(f"{where}: page header at offset {pos} has sizes "
                                   f"{size} / {full}")
        if pos + used + size > data_end:
            raise CorruptFileError(f"{where}: page at offset {pos} of {used + size} bytes "
                                   f"runs past the end of the data, at offset {data_end}")
        if header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
            sub = header.data_page_header if header.type == PageType.DATA_PAGE \
                else header.data_page_header_v2
            if sub is None or sub.num_values is None or sub.num_values < 0:
                raise CorruptFileError(f"{where}: data page at offset {pos} has no "
                                       "valid num_values")
            seen += sub.num_values
        pos += used + size
        uncompressed += used + full
    return pos, uncompressed


def _header_at(pos, data_end, where, read):
    size = HEADER_READ
    while True:
        head = bytes(read(pos, min(size, data_end - pos)))
        try:
            return fmt.decode(fmt.PageHeader, head, 0, len(head), pos)
        except (CorruptFileError, AllocationLimitError) as exc:
            if size >= MAX_HEADER_READ or pos + size >= data_end:
                raise CorruptFileError(f"{where}: no page header at offset {pos}: "
                                       f"{exc}") from None
            size = MAX_HEADER_READ


def dictionary_header_padding(created_by):
    """Bytes to add to chunk ranges of files from parquet-mr before 1.2.9 (PARQUET-816)."""
    if not created_by or not created_by.startswith("parquet-mr"):
        return 0
    m = re.match(r"parquet-mr(?: version)? (\d+)\.(\d+)\.(\d+)", created_by)
    if m is None:
        return MAX_DICT_HEADER
    return MAX_DICT_HEADER if tuple(map(int, m.groups())) < (1, 2, 9) else 0


def where_of(node, g):
    """The place named in error messages: ``column a.b, row group 3``."""
    return f"column {node.dotted_path}, row group {g}"
