"""Walking one column chunk's pages from its bytes, for pqinspect pages, layout and dictionary.

The walk starts where :func:`pqkit.chunk_range.chunk_range` says the chunk
starts and reads page headers until the data pages cover ``num_values``; it
never raises for a bad page but records a ``problem`` (see
:func:`pqkit.cli.common.problem`). When the pages run past the declared end
(PARQUET-816), it goes on up to :data:`~pqkit.chunk_range.MAX_OVERRUN`
bytes further.
"""

from pqkit.cli.common import problem
from pqkit.cli.render import enum_name
from pqkit.errors import CorruptFileError, EncryptedFileError
from pqkit.format import CompressionCodec, Encoding, PageType
from pqkit.page import crc32_signed, crc_matches, walk_pages
from pqkit.chunk_range import MAX_OVERRUN, chunk_range
from pqkit.statistics import statistics_to_dict


def thrift_to_dict(obj):
    """A Thrift struct as JSON-ready data: set fields only, binary as hex, enums as ints."""
    if hasattr(obj, "FIELD_NAMES"):
        return {name: thrift_to_dict(getattr(obj, name)) for name in obj.FIELD_NAMES
                if getattr(obj, name) is not None}
    if isinstance(obj, (list, tuple)):
        return [thrift_to_dict(v) for v in obj]
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj).hex()
    return obj


def walk_chunk(src, md, g, node, chunk, check_crc=True, raw=False):
    """Walk one chunk's pages; a dict with the pages found and the problems met."""
    path = node.dotted_path
    where = f"column {path}, row group {g}"
    d = {"row_group": g, "path": path, "column": node.column_index,
         "physical_type": node.type_str()}
    problems = d["problems"] = []
    cmd = chunk.meta_data
    if cmd is None:
        d.update(encrypted=chunk.crypto_metadata is not None, pages=[])
        problems.append(problem(
            "no_metadata", f"{where}: the column chunk's metadata is "
            f"{'encrypted' if d['encrypted'] else 'missing'} (chunk file_offset "
            f"{chunk.file_offset}), its pages cannot be walked", chunk.file_offset, g, path))
        return d
    d.update(codec=enum_name(CompressionCodec, cmd.codec), num_values=cmd.num_values,
             encrypted=chunk.crypto_metadata is not None)
    pages = d["pages"] = []
    try:
        start, length = chunk_range(chunk, md.footer_offset, where)
    except CorruptFileError as exc:
        problems.append(problem("bad_chunk_range", str(exc), cmd.data_page_offset, g, path))
        return d
    d.update(offset=start, length=length)
    decryptor = None
    if d["encrypted"]:
        try:
            decryptor = md.chunk_decryptor(g, node.column_index, where)
        except EncryptedFileError as exc:     # no key for it (or a file read without keys)
            problems.append(problem(
                "encrypted", f"{exc}; its chunk is at offset {start}", start, g, path))
            return d
    num_values = cmd.num_values
    if num_values is None or num_values < 0:
        problems.append(problem("bad_num_values", f"{where}: ColumnMetaData.num_values is "
                                f"{num_values} (chunk at offset {start})", start, g, path))
        return d
    # A chunk of no values may still hold a dictionary page: walk until the first
    # data page or the chunk's end.
    target = max(num_values, 1)
    raw_pages, pos, error = walk_pages(src.read(start, length), start, target, where,
                                       decryptor)
    end = start + length
    pad = min(MAX_OVERRUN, md.footer_offset - end)
    if error is not None and pad > 0:
        # parquet-mr before 1.2.9 left the dictionary page header out of
        # total_compressed_size (PARQUET-816): see whether the pages continue.
        retry = walk_pages(src.read(start, length + pad), start, target, where, decryptor)
        if retry[2] is None:
            raw_pages, pos, error = retry
    seen = 0
    for page in raw_pages:
        p = page_dict(len(pages), page, node, check_crc, raw)
        pages.append(p)
        if p["crc_ok"] is False:
            problems.append(problem(
                "crc_mismatch", f"CRC mismatch in {p['type']} page at offset {page.offset} in "
                f"{where}: stored {p['crc']}, computed {p['crc_computed']}",
                page.offset, g, path))
        if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2"):
            seen += p["num_values"]
    d.update(values_walked=seen, bytes_walked=pos - start, trailing_bytes=max(end - pos, 0))
    if error is not None:
        problems.append(problem("bad_page", str(error), pos, g, path))
    elif pos > end:
        last = raw_pages[-1]
        problems.append(problem(
            "chunk_overrun", f"{where}: the page at offset {last.offset} ends at {pos}, "
            f"{pos - end} bytes after the chunk's declared end (offset {start} + "
            f"total_compressed_size {length}); parquet-mr before 1.2.9 left the dictionary "
            "page header out of that size (PARQUET-816)", last.offset, g, path))
    elif seen < num_values:
        problems.append(problem(
            "truncated_chunk", f"{where}: the chunk's {length} bytes at offset {start} end "
            f"after {seen} of its {num_values} values", end, g, path))
    elif seen > num_values:
        problems.append(problem(
            "value_count", f"{where}: the data pages hold {seen} values, the column "
            f"metadata says {num_values} (chunk at offset {start})", start, g, path))
    return d


def page_dict(index, page, node, check_crc=True, raw=False):
    """A JSON-ready description of one page (a pqkit.page.RawPage)."""
    h = page.header
    d = {"index": index, "offset": page.offset, "header_size": page.header_size,
         "type": enum_name(PageType, h.type), "compressed_size": h.compressed_page_size,
         "uncompressed_size": h.uncompressed_page_size}
    sub = None
    if h.type == PageType.DATA_PAGE:
        sub = h.data_page_header
        if sub is not None:
            d.update(encoding=enum_name(Encoding, sub.encoding),
                     definition_level_encoding=enum_name(Encoding, sub.definition_level_encoding),
                     repetition_level_encoding=enum_name(Encoding, sub.repetition_level_encoding),
                     num_values=sub.num_values)
    elif h.type == PageType.DATA_PAGE_V2:
        sub = h.data_page_header_v2
        if sub is not None:
            d.update(encoding=enum_name(Encoding, sub.encoding), num_values=sub.num_values,
                     num_nulls=sub.num_nulls, num_rows=sub.num_rows,
                     definition_levels_byte_length=sub.definition_levels_byte_length,
                     repetition_levels_byte_length=sub.repetition_levels_byte_length,
                     is_compressed=True if sub.is_compressed is None else sub.is_compressed)
    elif h.type == PageType.DICTIONARY_PAGE:
        sub = h.dictionary_page_header
        if sub is not None:
            d.update(encoding=enum_name(Encoding, sub.encoding), num_values=sub.num_values,
                     is_sorted=sub.is_sorted)
    stats = getattr(sub, "statistics", None)
    if stats is not None:
        d["statistics"] = statistics_to_dict(node, stats)
    d["crc"] = None if h.crc is None else f"{h.crc & 0xFFFFFFFF:#010x}"
    d["crc_computed"] = d["crc_ok"] = None
    if h.crc is not None and check_crc:
        computed = crc32_signed(page.payload)
        d["crc_computed"] = f"{computed & 0xFFFFFFFF:#010x}"
        d["crc_ok"] = crc_matches(page, computed)
    if page.sealed is not None:
        d["encrypted_size"] = len(page.sealed)
    if raw:
        d["header"] = thrift_to_dict(h)
    return d
