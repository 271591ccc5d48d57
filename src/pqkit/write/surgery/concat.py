"""Concatenating Parquet files without decoding them: ``pqkit.concat``.

Every column chunk is copied byte for byte (page headers with their CRCs,
dictionary pages, data pages); only the footer and the page index are made
anew. A chunk copied from offset ``a`` to offset ``b`` moves by ``b - a``, and
so do its ``data_page_offset``, ``dictionary_page_offset``,
``index_page_offset``, its ``file_offset`` and every page offset in its
OffsetIndex. ColumnIndexes and bloom filters hold no offsets: their bytes are
copied and their new locations stored. The result is laid out as pqkit writes::

    PAR1 | row groups of source 0 | of source 1 | ... | bloom filters |
    column indexes | offset indexes | footer | len | PAR1

Example: two files of one row group each, the second's chunk at [4, 504)
copied to [1004, 1504): its pages' offsets grow by 1000.

The footer (key/value metadata, ``created_by``, column orders) is the first
source's. The schemas, including column orders, must be equal element by
element; otherwise a :class:`pqkit.SchemaError` names the first difference.

With ``row_group_size``, consecutive row groups are merged into one while their
rows stay within it, and only when every column of the later group has the
same codec as the earlier and no dictionary page (a chunk may have one
dictionary page, at its start); :mod:`pqkit.write.surgery.chunk_merge` says how their
metadata combine.
"""
import os
from dataclasses import dataclass, field

from pqkit import format as fmt
from pqkit.chunk_range import exact_chunk_range, pages_end
from pqkit.errors import (
    ArgumentError,
    CorruptFileError,
    SchemaError,
    UnsupportedFeatureError,
)
from pqkit.filesystems import open_binary
from pqkit.tail import MAGIC, tail_bytes
from pqkit.write.existing import read_existing, schema_difference
from pqkit.write.surgery.chunk_merge import MergedChunk, can_merge

COPY_BLOCK = 8 << 20


@dataclass
class ConcatResult:
    """What :func:`concat` wrote."""
    num_rows: int = 0
    row_groups_in: int = 0
    row_groups_out: int = 0
    bytes_copied: int = 0
    merges_refused: list = field(default_factory=list)   # reasons, when row_group_size is set


def concat(sources, dest, row_group_size=None):
    """Concatenate Parquet files with equal schemas into ``dest`` by copying their pages.

    Parameters
    ----------
    sources : list of paths
    dest : path
        Written through a temporary file and renamed, so a crash leaves any earlier
        ``dest`` as it was.
    row_group_size : int, optional
        Merge consecutive row groups up to this many rows where their codecs match and
        the later ones have no dictionary pages; groups are never split.

    Returns
    -------
    ConcatResult

    Raises
    ------
    SchemaError
        The schemas or column orders differ (the message names the first difference).
    CorruptFileError, EncryptedFileError, UnsupportedFeatureError
        A source without a readable footer, a chunk past its data, or chunks stored in
        other files (``file_path``).
    """
    if isinstance(sources, (str, bytes, os.PathLike)):
        raise ArgumentError(f"sources must be a list of files, not one path: {sources!r}")
    if row_group_size is not None and (isinstance(row_group_size, bool)
                                       or not isinstance(row_group_size, int)
                                       or row_group_size <= 0):
        raise ArgumentError(f"row_group_size must be a positive int or None, got "
                            f"{row_group_size!r}")
    sources = [os.fspath(s) for s in sources]
    if not sources:
        raise SchemaError("concat needs at least one source file")
    files = [read_existing(s) for s in sources]
    for f in files[1:]:
        check_same_schema(files[0], f)
    result = ConcatResult(row_groups_in=sum(len(f.meta.row_groups) for f in files))
    groups = _plan(files, row_group_size, result)
    tmp = os.fspath(dest) + ".pqkit-tmp"
    try:
        with open(tmp, "wb") as out:
            _write(files, groups, out, result)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return result


def check_same_schema(first, other):
    """Raise SchemaError naming the first difference between two files' schemas."""
    diff = schema_difference(first.meta.schema, other.meta.schema)
    if diff is not None:
        raise SchemaError(f"schemas of {first.path} (first) and {other.path} (second) "
                          f"differ: {diff}")
    if first.meta.column_orders != other.meta.column_orders:
        raise SchemaError(f"{other.path}: column_orders differ from {first.path}'s")


def _plan(files, target, result):
    """Output row groups as lists of (file index, row group index)."""
    groups, rows = [], 0
    for fi, f in enumerate(files):
        for gi, rg in enumerate(f.meta.row_groups):
            _check_group(f, gi, rg)
            if groups and target and rows + rg.num_rows <= target:
                prev_f, prev_g = groups[-1][-1]
                reason = can_merge(files[prev_f].meta.row_groups[prev_g], rg)
                if reason is None:
                    groups[-1].append((fi, gi))
                    rows += rg.num_rows
                    continue
                result.merges_refused.append(f"{f.path} row group {gi}: {reason}")
            groups.append([(fi, gi)])
            rows = rg.num_rows
    return groups


def _write(files, groups, out, result):
    out.write(MAGIC)
    handles = [open_binary(f.path) for f in files]
    try:
        merged_groups = []
        for ordinal, members in enumerate(groups):
            merged_groups.append(_copy_group(files, handles, members, out, ordinal, result))
        row_groups = [rg for rg, _ in merged_groups]
        chunks = [c for _, cs in merged_groups for c in cs]
        for mc in chunks:
            mc.write_bloom(out, handles)
        for mc in chunks:
            mc.write_column_index(out, handles)
        for mc in chunks:
            mc.write_offset_index(out, handles)
    finally:
        for h in handles:
            h.close()
    meta = files[0].meta
    meta.row_groups = row_groups
    meta.num_rows = sum(rg.num_rows for rg in row_groups)
    footer = fmt.encode(meta)
    out.write(footer + tail_bytes(len(footer)))
    out.flush()
    os.fsync(out.fileno())
    result.num_rows = meta.num_rows
    result.row_groups_out = len(row_groups)


def _copy_group(files, handles, members, out, ordinal, result):
    start = out.tell()
    first_rg = files[members[0][0]].meta.row_groups[members[0][1]]
    ncols = len(first_rg.columns)
    merged = [MergedChunk(files[members[0][0]].schema.columns[c]) for c in range(ncols)]
    parts, rows = [], 0         # (file, row group, RowGroup, rows before it)
    for fi, gi in members:
        rg = files[fi].meta.row_groups[gi]
        parts.append((fi, gi, rg, rows))
        rows += rg.num_rows
    # Column by column: the parts of a merged chunk must lie back to back.
    for c in range(ncols):
        for fi, gi, rg, rows_before in parts:
            f = files[fi]
            where = f"{f.path}: column {f.schema.columns[c].dotted_path}, row group {gi}"
            begin, length = _chunk_span(f, handles[fi], rg.columns[c], where)
            delta = out.tell() - begin
            _copy(handles[fi], out, begin, length)
            result.bytes_copied += length
            merged[c].add(rg.columns[c], fi, delta, rows_before, where)
    chunks = [m.finish() for m in merged]
    rg = fmt.RowGroup(
        columns=chunks, num_rows=rows, file_offset=start,
        total_byte_size=sum(c.meta_data.total_uncompressed_size for c in chunks),
        total_compressed_size=out.tell() - start, ordinal=ordinal,
        sorting_columns=first_rg.sorting_columns if len(members) == 1 else None)
    return rg, merged


def _check_group(f, gi, rg):
    """Raise CorruptFileError unless row group ``gi`` has the fields a copy relies on:
    one chunk per leaf and a row count (checked before anything is written)."""
    ncols = len(f.schema.columns)
    if rg.columns is None or len(rg.columns) != ncols:
        raise CorruptFileError(f"{f.path}: row group {gi} has "
                               f"{'no' if rg.columns is None else len(rg.columns)} "
                               f"column chunks for {ncols} leaf columns")
    if rg.num_rows is None or rg.num_rows < 0:
        raise CorruptFileError(f"{f.path}: row group {gi} has num_rows {rg.num_rows}")


def _chunk_span(f, handle, chunk, where):
    """(start, length) of a chunk's pages, exactly (:func:`pqkit.chunk_range.exact_chunk_range`).

    A chunk of a PARQUET-816 file comes out with sizes that count its dictionary
    page header, so the result is right whatever writer its footer names; a chunk
    whose ``total_compressed_size`` ends inside a page is extended to its pages'
    walked end (:func:`pqkit.chunk_range.pages_end`), never copied cut.
    """
    if chunk.file_path is not None:
        raise UnsupportedFeatureError(f"{where}: chunk stored in another file "
                                      f"({chunk.file_path!r}) cannot be copied")
    if chunk.meta_data is None:
        raise UnsupportedFeatureError(f"{where}: no meta_data (encrypted column?)")

    def read(offset, length):
        handle.seek(offset)
        return handle.read(length)

    start, length = exact_chunk_range(chunk, f.data_end, where, f.meta.created_by, read)
    meta = chunk.meta_data
    if meta.total_uncompressed_size is None or meta.total_uncompressed_size < 0:
        raise CorruptFileError(f"{where}: total_uncompressed_size is "
                               f"{meta.total_uncompressed_size}")
    walked = pages_end(meta, start, f.data_end, where, read)
    if walked is not None and walked[0] > start + length:
        # total_compressed_size cut the last page: copy the pages whole, sizes as walked.
        length = walked[0] - start
        meta.total_compressed_size, meta.total_uncompressed_size = length, walked[1]
        return start, length
    missing = length - meta.total_compressed_size
    if missing:
        meta.total_compressed_size += missing
        meta.total_uncompressed_size = (meta.total_uncompressed_size or 0) + missing
    return start, length


def _copy(src, out, offset, length):
    """Copy ``length`` bytes at ``offset`` of ``src`` to the end of ``out``."""
    out.flush()
    left, pos = length, offset
    try:
        dst_fd, src_fd = out.fileno(), src.fileno()    # a URL's file object has none
        while left:
            n = os.copy_file_range(src_fd, dst_fd, min(left, 1 << 30), pos)
            if n == 0:
                raise CorruptFileError(f"{src.name}: file ends inside a chunk at offset {pos}")
            left -= n
            pos += n
        out.seek(0, os.SEEK_END)
        return
    except (AttributeError, OSError):
        out.seek(0, os.SEEK_END)
        pos = offset + (length - left)
    src.seek(pos)
    while left:
        data = src.read(min(left, COPY_BLOCK))
        if not data:
            raise CorruptFileError(f"{src.name}: file ends inside a chunk at offset {pos}")
        out.write(data)
        left -= len(data)


__all__ = ["concat", "ConcatResult", "check_same_schema"]
