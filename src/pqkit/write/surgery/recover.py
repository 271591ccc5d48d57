"""Saving the row groups of a file whose footer is lost: ``pqkit.recover``.

A writer that crashed leaves ``PAR1 | row group | row group | ... | part of one``
and no footer. The pages still say what they are, so the file is walked from
offset 4 page header by page header (:mod:`pqkit.write.surgery.page_scan`) and the
pages are dealt out to column chunks in schema order, row group after row
group, using what a row group must be:

- every leaf column has one chunk, in schema order, and all of them hold the
  same number of rows R;
- a dictionary page can only open a chunk, and dictionary-encoded data pages
  need one; all pages of a chunk share one codec (found by decompressing);
- each page fits its column (:func:`pqkit.write.surgery.page_scan.page_fit`).

R is not written anywhere: the candidates are the row counts after each page
of the first column, tried with the previous row group's R first (writers cut
row groups by a fixed row count), then smallest first; the first R for which
every column ends exactly on R rows wins. Row groups that cannot be completed
(the cut falls inside them) are reported as lost. Limitation: adjacent columns
of one type without dictionary pages, whose pages hold equal row counts, can
be dealt out in more than one way; dictionary pages (the default of pqkit,
pyarrow and Spark) remove the ambiguity.

The output is a new file: the complete row groups' chunks copied byte for
byte, an OffsetIndex per chunk, and a footer with the given schema (and the
key/value metadata and column orders of ``schema_from``). Statistics, column
indexes and bloom filters are not rebuilt.
"""
import mmap
import os
from dataclasses import dataclass, field

from pqkit import format as fmt
from pqkit.errors import CorruptFileError, EncryptedFileError, ParquetError, SchemaError
from pqkit.format import Encoding, PageType
from pqkit.schema.arrow_write import encode_arrow_schema
from pqkit.schema.from_table import parquet_schema
from pqkit.schema.tree import Schema
from pqkit.tail import MAGIC, MAGIC_ENCRYPTED, tail_bytes
from pqkit.write.existing import read_existing
from pqkit.write.file import created_by
from pqkit.write.stats import column_order
from pqkit.write.surgery.page_scan import DICTIONARY_ENCODINGS, detect_codec, page_fit, scan_pages


@dataclass
class RecoverResult:
    """What :func:`recover` saved and lost.

    Attributes
    ----------
    row_groups, num_rows : int
        Complete row groups (and their rows) written to ``dest``.
    row_group_rows : list of int
    pages_found : int
        Page headers walked from offset 4.
    pages_lost : int
        Pages after the last complete row group.
    recovered_end : int
        File offset where the last complete row group ends.
    bytes_lost : int
        Bytes of the source after ``recovered_end``.
    stop_offset : int
    stop_reason : str
        Where and why the page walk stopped.
    """
    row_groups: int = 0
    num_rows: int = 0
    row_group_rows: list = field(default_factory=list)
    pages_found: int = 0
    pages_lost: int = 0
    recovered_end: int = 4
    bytes_lost: int = 0
    stop_offset: int = 4
    stop_reason: str = ""

    def to_dict(self):
        return dict(self.__dict__)


@dataclass
class _Chunk:
    node: object
    pages: list
    rows: list          # rows per data page
    codec: int


def recover(path, dest, schema=None, schema_from=None):
    """Write every complete row group of a Parquet file that lost its footer to ``dest``.

    Parameters
    ----------
    path : str or os.PathLike
        The damaged file (it must start with ``PAR1``).
    dest : str or os.PathLike
    schema : list of pqkit.Field or pqkit.Schema, optional
        The file's schema. The Parquet schema is built from Fields as pqkit writes it,
        so give ``schema_from`` for files by other writers.
    schema_from : path, optional
        A file with the same schema (an earlier file of the same job); its footer also
        gives the key/value metadata (``ARROW:schema``), column orders and codec hints.
        Neither given: the file's own footer, when it still has one.

    Returns
    -------
    RecoverResult

    Raises
    ------
    SchemaError
        No schema given and none found.
    CorruptFileError
        ``path`` does not start with ``PAR1``.
    EncryptedFileError
        ``path`` (or ``schema_from``) is encrypted.
    """
    elements, kv, orders, hints = _schema(path, schema, schema_from)
    tree = Schema(elements)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(4)
        if head == MAGIC_ENCRYPTED:
            raise EncryptedFileError(f"{path}: the file is encrypted (magic 'PARE'): "
                                     "recover cannot scan encrypted pages")
        if size < 4 or head != MAGIC:
            raise CorruptFileError(f"{path}: does not start with b'PAR1'")
        # Slices of an mmap are copies: only the pages looked at are read.
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size > 4 else MAGIC
        try:
            pages, stop, why = scan_pages(data)
            result = RecoverResult(pages_found=len(pages), stop_offset=stop, stop_reason=why)
            groups, used = _deal(pages, tree.columns, hints)
            result.pages_lost = len(pages) - used
            _write(dest, f, groups, tree, elements, kv, orders, result)
            result.bytes_lost = size - result.recovered_end
        finally:
            if isinstance(data, mmap.mmap):
                data.close()
    return result


def _schema(path, schema, schema_from):
    """(elements, key/value list, column orders, codec hints) for the output footer."""
    if isinstance(schema, Schema):
        return schema.elements, None, None, None
    if schema is not None:
        # Stored as pqkit writes it, so Arrow-based readers restore the same types.
        arrow = fmt.KeyValue(key="ARROW:schema", value=encode_arrow_schema(list(schema)))
        return parquet_schema(schema)[0], [arrow], None, None
    source = schema_from if schema_from is not None else path
    try:
        existing = read_existing(source)
    except EncryptedFileError:
        raise
    except (ParquetError, OSError) as exc:
        raise SchemaError(f"recover needs a schema: give schema= or schema_from= "
                          f"({source}: {exc})") from None
    meta = existing.meta
    hints = [c.meta_data.codec if c.meta_data else None
             for c in meta.row_groups[0].columns] if meta.row_groups else None
    return meta.schema, meta.key_value_metadata, meta.column_orders, hints


def _deal(pages, columns, hints):
    """Complete row groups as lists of _Chunk, and how many pages they use."""
    groups, i, last_r = [], 0, None
    while i < len(pages):
        found = _row_group(pages, i, columns, hints, last_r)
        if found is None:
            break
        chunks, i = found
        groups.append(chunks)
        last_r = sum(chunks[0].rows)
    return groups, i


def _row_group(pages, i, columns, hints, last_r):
    first = _chunk(pages, i, columns[0], _hint(hints, 0), None)
    if first is None:
        return None
    candidates = sorted({r for r in _running(first.rows)}, key=lambda r: (r != last_r, r))
    for r in candidates:
        head = _chunk(pages, i, columns[0], _hint(hints, 0), r)
        chunks, j = [head], i + len(head.pages)
        for c in range(1, len(columns)):
            chunk = _chunk(pages, j, columns[c], _hint(hints, c), r)
            if chunk is None:
                break
            chunks.append(chunk)
            j += len(chunk.pages)
        else:
            return chunks, j
    return None


def _hint(hints, c):
    return hints[c] if hints and c < len(hints) else None


def _running(rows):
    total = 0
    for r in rows:
        total += r
        if r:
            yield total


def _chunk(pages, i, node, hint, want):
    """The chunk of ``node`` starting at page ``i`` with ``want`` rows (None: as many
    fitting data pages as follow), or None."""
    if i >= len(pages):
        return None
    codec = next((detect_codec(p, hint) for p in pages[i:i + 2]
                  if p.header.compressed_page_size), hint)
    if codec is None:
        codec = 0
    taken, rows, j = [], [], i
    has_dict = pages[j].is_dictionary
    if has_dict:
        if page_fit(pages[j], node, codec) is None:
            return None
        taken.append(pages[j])
        rows.append(0)
        j += 1
    total = 0
    while j < len(pages) and (want is None or total < want):
        p = pages[j]
        if p.is_dictionary or (p.sub.encoding in DICTIONARY_ENCODINGS and not has_dict):
            break
        n = page_fit(p, node, codec)
        if n is None:
            break
        taken.append(p)
        rows.append(n)
        total += n
        j += 1
    if len(taken) == has_dict or (want is not None and total != want):
        return None
    return _Chunk(node, taken, rows, codec)


def _write(dest, src, groups, tree, elements, kv, orders, result):
    tmp = os.fspath(dest) + ".pqkit-tmp"
    with open(tmp, "wb") as out:
        out.write(MAGIC)
        row_groups, located = [], []
        for ordinal, chunks in enumerate(groups):
            start = out.tell()
            cols = []
            for ch in chunks:
                begin, end = ch.pages[0].offset, ch.pages[-1].end
                out.write(_read_span(src, begin, end))
                meta = _chunk_meta(ch, out.tell() - (end - begin))
                cols.append(fmt.ColumnChunk(file_offset=out.tell() - (end - begin),
                                            meta_data=meta))
                located.append((cols[-1], ch, out.tell() - end))
            result.recovered_end = chunks[-1].pages[-1].end
            rows = sum(chunks[0].rows)
            row_groups.append(fmt.RowGroup(
                columns=cols, num_rows=rows, file_offset=start, ordinal=ordinal,
                total_byte_size=sum(c.meta_data.total_uncompressed_size for c in cols),
                total_compressed_size=out.tell() - start))
            result.row_group_rows.append(rows)
        for col, ch, delta in located:
            data = fmt.encode(_offset_index(ch, delta))
            col.offset_index_offset, col.offset_index_length = out.tell(), len(data)
            out.write(data)
        meta = fmt.FileMetaData(
            version=2, schema=elements, num_rows=sum(result.row_group_rows),
            row_groups=row_groups, key_value_metadata=kv, created_by=created_by(),
            column_orders=orders or [column_order(n) for n in tree.columns])
        footer = fmt.encode(meta)
        out.write(footer + tail_bytes(len(footer)))
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, dest)
    result.row_groups = len(row_groups)
    result.num_rows = meta.num_rows


def _read_span(src, begin, end):
    src.seek(begin)
    return src.read(end - begin)


def _chunk_meta(ch, new_start):
    delta = new_start - ch.pages[0].offset
    data_pages = [p for p in ch.pages if not p.is_dictionary]
    encodings, stats = [], {}
    for p in ch.pages:
        sub = p.sub
        found = [sub.encoding]
        if p.header.type == PageType.DATA_PAGE:
            found += [sub.definition_level_encoding, sub.repetition_level_encoding]
        elif p.header.type == PageType.DATA_PAGE_V2:
            found.append(Encoding.RLE)
        encodings += [e for e in found if e is not None and e not in encodings]
        key = (p.header.type, sub.encoding)
        stats[key] = stats.get(key, 0) + 1
    return fmt.ColumnMetaData(
        type=ch.node.physical_type, encodings=encodings, path_in_schema=list(ch.node.path),
        codec=ch.codec, num_values=sum(p.sub.num_values for p in data_pages),
        total_uncompressed_size=sum(p.header_size + p.header.uncompressed_page_size
                                    for p in ch.pages),
        total_compressed_size=ch.pages[-1].end - ch.pages[0].offset,
        data_page_offset=data_pages[0].offset + delta,
        dictionary_page_offset=ch.pages[0].offset + delta if ch.pages[0].is_dictionary
        else None,
        encoding_stats=[fmt.PageEncodingStats(page_type=t, encoding=e, count=c)
                        for (t, e), c in stats.items()])


def _offset_index(ch, delta):
    locations, first_row = [], 0
    for p, rows in zip(ch.pages, ch.rows):
        if p.is_dictionary:
            continue
        locations.append(fmt.PageLocation(offset=p.offset + delta,
                                          compressed_page_size=p.end - p.offset,
                                          first_row_index=first_row))
        first_row += rows
    return fmt.OffsetIndex(page_locations=locations)


__all__ = ["recover", "RecoverResult"]
