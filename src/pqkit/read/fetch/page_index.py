"""Reading the page index of a column chunk, and mapping rows to pages.

The page index is two Thrift structs per column chunk, stored after the row
groups and before the footer, and located by four ColumnChunk fields::

    ColumnChunk.column_index_offset / column_index_length  -> ColumnIndex
    ColumnChunk.offset_index_offset / offset_index_length  -> OffsetIndex

The OffsetIndex lists the chunk's *data* pages (never the dictionary page) in
file order: each PageLocation gives the page's file offset, its size header
included, and the row-group-relative index of its first row. Page ``i`` holds
rows ``[first_row_index[i], first_row_index[i + 1])``; the last page runs to
``RowGroup.num_rows``. The ColumnIndex has one entry per page in each of its
lists: ``null_pages``, the PLAIN-encoded ``min_values``/``max_values`` (empty
for a null page), optional ``null_counts`` and ``boundary_order``.

Example: a row group of 250 rows whose OffsetIndex has first_row_index
0, 100, 200 has pages covering rows [0, 100), [100, 200) and [200, 250), so
``pages_for_rows(oi, 250, 150, 210)`` is ``[1, 2]``.

An absent offset means "no index" (either structure may be missing on its
own; a ColumnIndex without an OffsetIndex is useless to a reader, but this
module reports what is stored). A present offset with a missing or
non-positive length, a range outside the bytes before the footer, malformed
Thrift, or lists that do not line up raise :class:`pqkit.CorruptFileError`
naming the column path, the row group and the offset.
"""
from collections import namedtuple

from pqkit import format as fmt
from pqkit.chunk_range import chunk_range, dictionary_header_padding, where_of
from pqkit.crypto.modules import ModuleType
from pqkit.errors import CorruptFileError, EncryptedFileError, ThriftDecodeError
from pqkit.read.fetch.footer import read_metadata_from
from pqkit.read.fetch.source import Source
from pqkit.read.row_selection import RowSelection

__all__ = ["PageIndex", "IndexLocation", "index_location", "read_column_index",
           "read_offset_index", "read_page_index", "page_row_ranges", "pages_for_rows"]

PageIndex = namedtuple("PageIndex", ["column_index", "offset_index"])
PageIndex.__doc__ = """The (ColumnIndex or None, OffsetIndex or None) of one column chunk."""

IndexLocation = namedtuple("IndexLocation", ["offset", "length"])
IndexLocation.__doc__ = """Where an index struct is stored: file offset and byte length."""

_KINDS = {"column_index": fmt.ColumnIndex, "offset_index": fmt.OffsetIndex}
_NAMES = {"column_index": "ColumnIndex", "offset_index": "OffsetIndex"}
_MODULES = {"column_index": ModuleType.COLUMN_INDEX, "offset_index": ModuleType.OFFSET_INDEX}


def index_location(chunk, kind, limit, where):
    """The checked byte range of a chunk's ColumnIndex or OffsetIndex.

    Parameters
    ----------
    chunk : pqkit.format.ColumnChunk
    kind : {"column_index", "offset_index"}
    limit : int
        End of the bytes the index may occupy: the footer offset (or the file
        size when the footer position is unknown).
    where : str
        "column a.b, row group 0", for error messages.

    Returns
    -------
    IndexLocation or None
        None when the chunk has no such index (no offset stored).

    Raises
    ------
    pqkit.CorruptFileError
        A length that is missing or not positive, or a range outside [4, limit).
    """
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'column_index' or 'offset_index', not {kind!r}")
    offset = getattr(chunk, kind + "_offset")
    length = getattr(chunk, kind + "_length")
    if offset is None:
        return None
    name = _NAMES[kind]
    if length is None or length <= 0:
        raise CorruptFileError(f"{name} of {where} at offset {offset} has length {length}")
    if offset < 4 or offset + length > limit:
        raise CorruptFileError(
            f"{name} of {where} at offset {offset} with {length} bytes lies outside the "
            f"file's data (bytes 4 to {limit})")
    return IndexLocation(offset, length)


def _read(src, chunk, kind, limit, where, decryptor):
    loc = index_location(chunk, kind, limit, where)
    if loc is None:
        return None
    raw = src.read(loc.offset, loc.length)
    if chunk.crypto_metadata is not None:
        if decryptor is None:
            raise EncryptedFileError(f"{_NAMES[kind]} of {where} at offset {loc.offset} is "
                                     "encrypted with the column, and no key was given")
        raw = decryptor.open(_MODULES[kind], raw, f"{_NAMES[kind]} at offset {loc.offset}")
    try:
        obj, _ = fmt.decode(_KINDS[kind], raw, 0, len(raw), loc.offset)
    except ThriftDecodeError as exc:
        raise ThriftDecodeError(f"{_NAMES[kind]} of {where} at offset {loc.offset}: "
                                f"{exc}") from None
    return obj


def read_offset_index(src, chunk, limit, where, pad=0, decryptor=None):
    """Read and check a chunk's OffsetIndex.

    Parameters
    ----------
    src : pqkit.read.fetch.source.Source
        The open file.
    chunk : pqkit.format.ColumnChunk
    limit : int
        The footer offset: index and pages must lie before it.
    where : str
        "column a.b, row group 0", for error messages.
    pad : int
        Bytes the chunk's range extends past ``total_compressed_size`` (files of
        PARQUET-816 writers: :func:`pqkit.chunk_range.dictionary_header_padding`).
    decryptor : pqkit.crypto.ChunkDecryptor, optional
        Decrypts the index of an encrypted chunk (and learns its page offsets).

    Returns
    -------
    pqkit.format.OffsetIndex or None
        None when the chunk has none.

    Raises
    ------
    pqkit.CorruptFileError
        Bad location, malformed Thrift, a PageLocation with a missing field, a
        page outside [4, limit) or outside the chunk's own byte range, or offsets
        that do not increase. Every road that uses the index (filtered reads,
        ``take``, pruning, the inspectors) reads it here, so none follows a page
        location into another chunk's bytes.
    pqkit.EncryptedFileError
        The column is encrypted (so is its index) and no ``decryptor`` is given.
    """
    oi = _read(src, chunk, "offset_index", limit, where, decryptor)
    if oi is None:
        return None
    at = chunk.offset_index_offset
    if oi.page_locations is None:
        raise CorruptFileError(f"OffsetIndex of {where} at offset {at} has no page_locations")
    prev_end = 4
    first, length = chunk_range(chunk, limit, where, pad) if chunk.meta_data is not None \
        else (4, limit - 4)
    for i, loc in enumerate(oi.page_locations):
        if loc.offset is None or loc.compressed_page_size is None or \
                loc.first_row_index is None:
            raise CorruptFileError(f"OffsetIndex of {where} at offset {at}: page location {i} "
                                   "lacks a required field")
        if loc.compressed_page_size <= 0 or loc.offset < prev_end or \
                loc.offset + loc.compressed_page_size > limit:
            raise CorruptFileError(
                f"OffsetIndex of {where} at offset {at}: page {i} at offset {loc.offset} with "
                f"{loc.compressed_page_size} bytes overlaps the previous page or lies outside "
                f"the file's data (bytes {prev_end} to {limit})")
        if loc.offset < first or loc.offset + loc.compressed_page_size > first + length:
            raise CorruptFileError(
                f"OffsetIndex of {where} at offset {at}: page {i} at offset {loc.offset} "
                f"with {loc.compressed_page_size} bytes lies outside the column chunk "
                f"(bytes {first} to {first + length})")
        prev_end = loc.offset + loc.compressed_page_size
    if decryptor is not None:
        decryptor.page_offsets = [loc.offset for loc in oi.page_locations]
    n = len(oi.page_locations)
    extra = oi.unencoded_byte_array_data_bytes
    if extra is not None and len(extra) != n:
        raise CorruptFileError(f"OffsetIndex of {where} at offset {at} has {n} pages but "
                               f"{len(extra)} unencoded_byte_array_data_bytes entries")
    return oi


def read_column_index(src, chunk, limit, where, num_pages=None, decryptor=None):
    """Read and check a chunk's ColumnIndex.

    Parameters
    ----------
    src, chunk, limit, where, decryptor
        As for :func:`read_offset_index`.
    num_pages : int, optional
        The page count of the chunk's OffsetIndex; every list must have it.

    Returns
    -------
    pqkit.format.ColumnIndex or None
        None when the chunk has none.

    Raises
    ------
    pqkit.CorruptFileError
        Bad location, malformed Thrift, a required list missing, or lists of
        different lengths.
    pqkit.EncryptedFileError
        The column is encrypted (so is its index).
    """
    ci = _read(src, chunk, "column_index", limit, where, decryptor)
    if ci is None:
        return None
    at = chunk.column_index_offset
    for name in ("null_pages", "min_values", "max_values", "boundary_order"):
        if getattr(ci, name) is None:
            raise CorruptFileError(f"ColumnIndex of {where} at offset {at} lacks the required "
                                   f"field {name}")
    n = len(ci.null_pages) if num_pages is None else num_pages
    for name in ("null_pages", "min_values", "max_values", "null_counts", "nan_counts"):
        values = getattr(ci, name)
        if values is not None and len(values) != n:
            raise CorruptFileError(f"ColumnIndex of {where} at offset {at} has {len(values)} "
                                   f"{name} for {n} pages")
    return ci


def read_page_index(source, row_group, column, metadata=None):
    """The ColumnIndex and OffsetIndex of one column chunk.

    Parameters
    ----------
    source : path, bytes-like, binary file object or pqkit.read.fetch.source.Source
    row_group : int
    column : int, str or tuple
        Leaf index, dotted path or path tuple.
    metadata : pqkit.FileMetadata, optional
        The file's footer, when already read (saves reading it again).

    Returns
    -------
    PageIndex
        ``(column_index, offset_index)``, each None when not stored.

    Raises
    ------
    pqkit.CorruptFileError
        See :func:`read_offset_index` and :func:`read_column_index`; also when
        the ColumnIndex and the OffsetIndex disagree on the page count.
    pqkit.EncryptedFileError
        The column is encrypted (so are its indexes).
    IndexError, KeyError
        No such row group or column.
    """
    if isinstance(source, Source):
        return _page_index(source, row_group, column, metadata)
    with Source(source) as src:
        return _page_index(src, row_group, column, metadata)


def _page_index(src, row_group, column, metadata):
    md = metadata if metadata is not None else read_metadata_from(src)
    if not 0 <= row_group < md.num_row_groups:
        raise IndexError(f"row group {row_group} out of range (file has {md.num_row_groups})")
    node = md.schema.column(column)
    chunk = md.checked_row_group(row_group).columns[node.column_index]
    where = where_of(node, row_group)
    decryptor = md.chunk_decryptor(row_group, node.column_index, where)
    oi = read_offset_index(src, chunk, md.footer_offset, where,
                           dictionary_header_padding(md.created_by), decryptor)
    ci = read_column_index(src, chunk, md.footer_offset, where,
                           None if oi is None else len(oi.page_locations), decryptor)
    return PageIndex(ci, oi)


def page_row_ranges(offset_index, num_rows, where="the row group"):
    """The rows of each page: ``[(first, stop), ...]`` with ``stop`` exclusive.

    Parameters
    ----------
    offset_index : pqkit.format.OffsetIndex
    num_rows : int
        RowGroup.num_rows: where the last page ends.
    where : str
        For error messages.

    Returns
    -------
    list of (int, int)

    Raises
    ------
    pqkit.CorruptFileError
        The first page does not start at row 0, first_row_index decreases,
        a page starts beyond the row group, or ``num_rows`` is missing.
    """
    if num_rows is None or num_rows < 0:
        raise CorruptFileError(f"OffsetIndex of {where}: the row group's num_rows is {num_rows}")
    locs = offset_index.page_locations or []
    firsts = [loc.first_row_index for loc in locs]
    if firsts and firsts[0] != 0:
        raise CorruptFileError(f"OffsetIndex of {where}: the first page (at offset "
                               f"{locs[0].offset}) starts at row {firsts[0]}, not 0")
    stops = firsts[1:] + [num_rows]
    for loc, a, b in zip(locs, firsts, stops):
        if not 0 <= a <= b <= num_rows:
            raise CorruptFileError(
                f"OffsetIndex of {where}: page at offset {loc.offset} spans rows {a} to {b}, "
                f"outside the row group's {num_rows} rows or out of order")
    return list(zip(firsts, stops))


def pages_for_rows(offset_index, num_rows, start, stop):
    """Indices of the pages holding any row in ``[start, stop)``.

    Parameters
    ----------
    offset_index : pqkit.format.OffsetIndex
    num_rows : int
        RowGroup.num_rows.
    start, stop : int
        Row-group-relative rows, ``0 <= start``; ``stop`` beyond ``num_rows``
        is clipped.

    Returns
    -------
    list of int
        Ascending page numbers (positions in ``offset_index.page_locations``);
        empty when ``start >= stop``.

    Raises
    ------
    ValueError
        A negative ``start``.
    pqkit.CorruptFileError
        See :func:`page_row_ranges`.
    """
    if start < 0:
        raise ValueError(f"start row {start} is negative")
    ranges = page_row_ranges(offset_index, num_rows)
    selection = RowSelection.from_ranges([(start, min(stop, num_rows))], num_rows)
    return selection.pages([a for a, _ in ranges]).tolist()
