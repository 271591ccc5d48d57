"""Column chunk rules: byte ranges, the pages walked from the chunk's bytes, CRCs, dictionaries.

A chunk starts at the smaller valid one of ``dictionary_page_offset`` and
``data_page_offset`` and spans ``total_compressed_size`` bytes; inside it,
``PageHeader | payload`` pairs follow each other with no gap::

    [DICTIONARY_PAGE]  DATA_PAGE / DATA_PAGE_V2 ...    (INDEX_PAGE and unknown types skipped)

The walk decodes every header in those bytes. It must end exactly at the
chunk's end, and the data pages' ``num_values`` must add up to the chunk's
``num_values`` (PQ-CHUNK-003/-005). When a page runs past the end, the walk
is retried a little further: parquet-mr before 1.2.9 left the dictionary
page header out of ``total_compressed_size`` (PARQUET-816). Pages and
dictionaries are then checked one by one, and the chunk's row count against
its row group: a column without repetition has one level entry per row, and
v2 pages state their rows.

Example: a chunk at offset 4 with total_compressed_size 100 whose pages are a
20-byte header + 30-byte dictionary and a 15-byte header + 35-byte data page
ends exactly at offset 104. Had the data page said num_values 9 where
ColumnMetaData says 10, that would break PQ-CHUNK-005; had
total_compressed_size been 101, the byte after the last page would break
PQ-CHUNK-003.
"""
import sys
from dataclasses import dataclass, field

from pqkit.encodings.physical import PLAIN_WIDTH
from pqkit.encodings.rle import decode_levels
from pqkit.errors import CorruptFileError, ParquetError
from pqkit.format import CompressionCodec, Encoding, PageType, Type
from pqkit.inspect.verify.findings import Where
from pqkit.inspect.verify.footer_rules import usable_chunk
from pqkit.page import crc32_signed, walk_pages
from pqkit.chunk_range import MAX_OVERRUN, chunk_range, chunk_start

# How far past a chunk's declared end pages are looked for (PARQUET-816; a dictionary
# page header is far smaller).
_DATA = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)
_DICT_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
# Bytes of one PLAIN value (BYTE_ARRAY: at least its 4-byte length).
_PLAIN_WIDTH = {**PLAIN_WIDTH, Type.BYTE_ARRAY: 4}


@dataclass
class ChunkWalk:
    """One column chunk and the pages walked from its bytes.

    Attributes
    ----------
    row_group : int
    node : pqkit.SchemaNode
    chunk : pqkit.format.ColumnChunk
    where : pqkit.inspect.verify.findings.Where
    ordering : pqkit.inspect.verify.ordering.Ordering
    start, length : int
        The chunk's byte range as the metadata declares it.
    data : bytes
        The bytes the pages were walked from (past ``length`` after PARQUET-816).
    pages : list of pqkit.page.RawPage
    complete : bool
        The pages cover the chunk's num_values exactly, without a broken page.
    num_rows : int or None
        Rows the pages hold, when known without decoding levels.
    """
    row_group: int
    node: object
    chunk: object
    where: Where
    ordering: object
    start: int
    length: int
    data: bytes
    pages: list = field(default_factory=list)
    complete: bool = False
    num_rows: int = None

    @property
    def meta(self):
        return self.chunk.meta_data

    @property
    def data_pages(self):
        return [p for p in self.pages if p.type in _DATA]

    @property
    def dictionary_page(self):
        return next((p for p in self.pages if p.type == PageType.DICTIONARY_PAGE), None)


def declared_span(chunk, data_end):
    """(start, length) of a chunk whose range is valid, else None (PQ-CHUNK-002 reports it)."""
    try:
        return chunk_range(chunk, data_end, "")
    except CorruptFileError:
        return None


def check_chunk(ctx, g, node, chunk, ordering):
    """Walk and check one column chunk; the walk, or None when its pages cannot be found."""
    where = Where(g, node.dotted_path)
    cmd = chunk.meta_data
    at = ctx.md.footer_offset
    if chunk.crypto_metadata is not None:
        ctx.add("PQ-CHUNK-011", f"the column is encrypted (footer at offset {at}); its pages, "
                "statistics and indexes are not verified", at, where)
        return None
    if cmd is None:
        ctx.add("PQ-CHUNK-001", f"the column chunk has no meta_data (footer at offset {at})",
                at, where)
        return None
    if chunk.file_path is not None:
        return None
    limit = ctx.md.footer_offset
    try:
        start, length = chunk_range(chunk, limit, str(where))
    except CorruptFileError as exc:
        ctx.add("PQ-CHUNK-002", f"{exc} (the data runs from offset 4 to {limit})",
                chunk_start(cmd), where)
        return None
    n = cmd.num_values
    if n is None or n < 0:
        ctx.add("PQ-CHUNK-005", f"ColumnMetaData.num_values is {n} (chunk at offset {start})",
                start, where)
        return None
    walk = _walk_chunk(ctx, g, node, chunk, ordering, where, start, length, n)
    ctx.counters["chunks_walked"] += 1
    _check_pages(ctx, walk)
    if walk.complete:
        _check_totals(ctx, walk)
        _check_rows(ctx, walk)
    _check_offsets(ctx, walk)
    return walk


def _values(pages):
    return sum(_num_values(p) or 0 for p in pages if p.type in _DATA)


def _num_values(page):
    h = page.header
    sub = h.data_page_header if h.type == PageType.DATA_PAGE else h.data_page_header_v2
    return None if sub is None else sub.num_values


def _walk_chunk(ctx, g, node, chunk, ordering, where, start, length, n):
    data = ctx.src.read(start, length)
    end = start + length
    pages, pos, error = walk_pages(data, start, sys.maxsize, str(where))
    walk = ChunkWalk(g, node, chunk, where, ordering, start, length, data, pages)
    seen = _values(pages)
    if error is None:
        walk.complete = seen == n
        if seen != n:
            ctx.add("PQ-CHUNK-005", f"the data pages of the chunk at offset {start} hold "
                    f"{seen} values, its metadata says {n}", start, where)
        return walk
    if seen >= n:
        # Readers stop at the chunk's last value and never look at what follows:
        # pyarrow, DuckDB, polars and pqkit read such chunks right (issue 18 evidence).
        ctx.add("PQ-CHUNK-003", f"total_compressed_size {length} of the chunk at offset "
                f"{start} covers {end - pos} bytes after its last page (which ends at offset "
                f"{pos}) that are not a page: {error}", pos, where,
                note="readers stop after the last value and read such chunks right"
                if seen == n else None)
        walk.complete = seen == n
        if seen > n:
            ctx.add("PQ-CHUNK-005", f"the data pages of the chunk at offset {start} hold "
                    f"{seen} values, its metadata says {n}", start, where)
        return walk
    pad = min(MAX_OVERRUN, ctx.md.footer_offset - end)
    if pad > 0:
        longer = ctx.src.read(start, length + pad)
        more, more_pos, more_error = walk_pages(longer, start, n, str(where))
        if more_error is None and _values(more) == n and more_pos > end:
            bugs = ctx.trust.file_bugs("chunk_size")
            ctx.add("PQ-CHUNK-003", f"the page at offset {more[-1].offset} ends at offset "
                    f"{more_pos}, {more_pos - end} bytes after the end the chunk's "
                    f"total_compressed_size {length} declares (chunk at offset {start})",
                    more[-1].offset, where, bugs=bugs)
            walk.data, walk.pages, walk.complete = longer, more, True
            return walk
    ctx.add("PQ-CHUNK-004", f"after {seen} of {n} values the walk of the chunk at offset "
            f"{start} stops at offset {pos}: {error}", pos, where)
    return walk


def _check_pages(ctx, walk):
    cmd, where = walk.meta, walk.where
    codec = cmd.codec
    seen_data = seen_dict = False
    counters = ctx.counters
    for page in walk.pages:
        h = page.header
        pw = where.page(page.offset)
        counters["pages"] += 1
        _check_crc(ctx, page, pw)
        if h.type == PageType.DICTIONARY_PAGE:
            counters["dictionary_pages"] += 1
            _check_dictionary_page(ctx, page, pw, seen_data, seen_dict)
            seen_dict = True
        elif h.type in _DATA:
            counters["data_pages"] += 1
            _check_data_page(ctx, walk, page, pw, seen_dict, first=not seen_data)
            seen_data = True
        else:
            counters["other_pages"] += 1
            ctx.add("PQ-PAGE-004", f"a page of type {_page_type(h.type)} at offset "
                    f"{page.offset} was skipped", page.offset, pw)
        _check_sizes(ctx, walk, page, pw, codec)


def _check_crc(ctx, page, where):
    crc = page.header.crc
    if crc is None:
        ctx.counters["pages_without_crc"] += 1
        return
    ctx.counters["pages_with_crc"] += 1
    actual = crc32_signed(page.payload)
    if actual != crc:
        ctx.counters["crc_mismatches"] += 1
        ctx.add("PQ-CRC-001", f"the CRC of the {_page_type(page.type)} page at offset "
                f"{page.offset} is {crc & 0xFFFFFFFF:#010x}, its "
                f"{len(page.payload)} bytes give {actual & 0xFFFFFFFF:#010x}",
                page.offset, where)


def _check_dictionary_page(ctx, page, where, seen_data, seen_dict):
    at = page.offset
    if seen_data:
        ctx.add("PQ-DICT-001", f"the dictionary page at offset {at} follows a data page", at,
                where)
    if seen_dict:
        ctx.add("PQ-DICT-002", f"a second dictionary page at offset {at}", at, where)
    sub = page.header.dictionary_page_header
    if sub is None or sub.num_values is None or sub.num_values < 0:
        ctx.add("PQ-CHUNK-004", f"the dictionary page at offset {at} has no valid "
                "dictionary_page_header", at, where)
        return
    if sub.encoding not in (None, Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
        ctx.add("PQ-DICT-004", f"the dictionary page at offset {at} is "
                f"{_encoding(sub.encoding)} encoded; dictionaries are PLAIN", at, where)


def _check_data_page(ctx, walk, page, where, seen_dict, first):
    h, at = page.header, page.offset
    v2 = h.type == PageType.DATA_PAGE_V2
    sub = h.data_page_header_v2 if v2 else h.data_page_header
    if sub.encoding in _DICT_ENCODINGS and not seen_dict:
        ctx.add("PQ-DICT-003", f"the data page at offset {at} is {_encoding(sub.encoding)} "
                "encoded but no dictionary page precedes it", at, where)
    if sub.num_values == 0:
        ctx.add("PQ-PAGE-001", f"the data page at offset {at} holds no values", at, where)
    if v2:
        _check_v2_header(ctx, walk, page, sub, where)
    if sub.encoding == Encoding.PLAIN:
        _check_plain_size(ctx, walk, page, sub, v2, where)
    if walk.node.max_repetition_level and sub.num_values and \
            (v2 or first or walk.chunk.offset_index_offset is not None):
        _check_first_level(ctx, walk, page, sub, v2, where)


def _check_first_level(ctx, walk, page, sub, v2, where):
    """The first page of a chunk starts a row; so does every page of a chunk with an
    OffsetIndex and every v2 page (PARQUET-2473). The first repetition level is read
    where no decompression is needed: v2 levels, pages of uncompressed chunks."""
    max_rep = walk.node.max_repetition_level
    try:
        if v2:
            length = sub.repetition_levels_byte_length or 0
            levels, _ = decode_levels(page.payload, 0, max_rep, 1, prefixed=False,
                                      length=length, base_offset=page.payload_offset)
        elif walk.meta.codec == CompressionCodec.UNCOMPRESSED and \
                sub.repetition_level_encoding in (None, Encoding.RLE):
            levels, _ = decode_levels(page.payload, 0, max_rep, 1,
                                      base_offset=page.payload_offset)
        else:
            return
    except ParquetError:
        return                            # a broken level run: --deep reports it
    if levels[0] != 0:
        ctx.add("PQ-PAGE-006", f"the page at offset {page.offset} starts with repetition level "
                f"{int(levels[0])}, inside a row; it must start a new one", page.offset, where)


def _check_plain_size(ctx, walk, page, sub, v2, where):
    """A PLAIN page must hold its values' bytes, where the count is known without decoding
    levels: a v1 page of a column with no levels, or a v2 page (num_nulls, level lengths)."""
    node, h = walk.node, page.header
    if v2:
        nulls = sub.num_nulls
        if nulls is None or not 0 <= nulls <= sub.num_values:
            return
        count = sub.num_values - nulls
        size = h.uncompressed_page_size - (sub.repetition_levels_byte_length or 0) - \
            (sub.definition_levels_byte_length or 0)
    elif node.max_definition_level == 0 and node.max_repetition_level == 0:
        count, size = sub.num_values, h.uncompressed_page_size
    else:
        return
    if node.physical_type == Type.BOOLEAN:
        need = (count + 7) // 8
    elif node.physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        need = count * (node.element.type_length or 0)
    else:
        need = count * _PLAIN_WIDTH.get(node.physical_type, 0)
    if size < need:
        least = "at least " if node.physical_type == Type.BYTE_ARRAY else ""
        ctx.add("PQ-PAGE-005", f"the PLAIN page at offset {page.offset} declares {count} "
                f"{node.type_str()} values, which need {least}{need} bytes, in {size} bytes",
                page.offset, where)


def _check_v2_header(ctx, walk, page, sub, where):
    at, size = page.offset, page.header.compressed_page_size
    rep = sub.repetition_levels_byte_length or 0
    dfn = sub.definition_levels_byte_length or 0
    n = sub.num_values
    problems = []
    if rep < 0 or dfn < 0 or rep + dfn > size:
        problems.append(f"level lengths {rep} + {dfn} do not fit its {size} bytes")
    if rep + dfn > page.header.uncompressed_page_size:
        problems.append(f"level lengths {rep} + {dfn} exceed its uncompressed size "
                        f"{page.header.uncompressed_page_size}")
    rows = None
    if sub.num_rows is None or sub.num_rows < 0 or (n and not sub.num_rows):
        problems.append(f"num_rows {sub.num_rows} for {n} values")
    elif sub.num_rows > n:
        rows = f"num_rows {sub.num_rows} for {n} values"
    elif walk.node.max_repetition_level == 0 and sub.num_rows != n:
        rows = f"num_rows {sub.num_rows} for {n} values of a column without repetition"
    if problems:
        ctx.add("PQ-PAGE-003", f"the v2 page at offset {at}: {'; '.join(problems)}", at, where)
    if rows:
        # Readers count rows from the levels (issue 18 evidence: pyarrow, DuckDB, polars
        # and pqkit read such pages right).
        ctx.add("PQ-PAGE-003", f"the v2 page at offset {at}: {rows}", at, where,
                note="readers count rows from the levels, not from num_rows")
    nulls = sub.num_nulls
    if nulls is None or nulls < 0 or nulls > n:
        bugs = ctx.trust.file_bugs("negative_null_counts") if nulls == -1 else None
        ctx.add("PQ-PAGE-003", f"the v2 page at offset {at}: num_nulls {nulls} for {n} values",
                at, where, bugs=bugs)


def _check_sizes(ctx, walk, page, where, codec):
    h = page.header
    v2 = h.type == PageType.DATA_PAGE_V2 and h.data_page_header_v2 is not None
    stored_plain = codec == CompressionCodec.UNCOMPRESSED or (
        v2 and h.data_page_header_v2.is_compressed is False)
    if stored_plain and h.compressed_page_size != h.uncompressed_page_size:
        bugs = ctx.trust.file_bugs("v2_is_compressed") if v2 and \
            codec != CompressionCodec.UNCOMPRESSED else None
        ctx.add("PQ-PAGE-002", f"the {_page_type(h.type)} page at offset {page.offset} is "
                f"stored uncompressed but its sizes differ: {h.compressed_page_size} stored, "
                f"{h.uncompressed_page_size} uncompressed", page.offset, where, bugs=bugs)


def _check_totals(ctx, walk):
    cmd, where = walk.meta, walk.where
    pages = walk.pages
    total = sum(p.header_size + p.header.uncompressed_page_size for p in pages)
    if cmd.total_uncompressed_size is not None and cmd.total_uncompressed_size != total:
        ctx.add("PQ-CHUNK-006", f"total_uncompressed_size is {cmd.total_uncompressed_size}, "
                f"the pages of the chunk at offset {walk.start} (headers included) make "
                f"{total}", walk.start, where, bugs=ctx.trust.file_bugs("chunk_size"))
    _check_encodings(ctx, walk)


def _check_encodings(ctx, walk):
    cmd, where = walk.meta, walk.where
    used = set()
    counts = {}
    for p in walk.pages:
        h = p.header
        sub = {PageType.DATA_PAGE: h.data_page_header, PageType.DATA_PAGE_V2:
               h.data_page_header_v2, PageType.DICTIONARY_PAGE:
               h.dictionary_page_header}.get(h.type)
        if sub is None:
            continue
        enc = sub.encoding if sub.encoding is not None else Encoding.PLAIN
        key = (_stats_page_type(h.type), enc)
        counts[key] = counts.get(key, 0) + 1
        if h.type in _DATA:
            used.add(enc)
    listed = set(cmd.encodings or [])
    missing = sorted(used - listed, key=str)
    if cmd.encodings is not None and missing:
        ctx.add("PQ-CHUNK-009", f"the data pages of the chunk at offset {walk.start} use "
                f"{', '.join(_encoding(e) for e in missing)}, which ColumnMetaData.encodings "
                f"({', '.join(_encoding(e) for e in cmd.encodings)}) does not list",
                walk.start, where)
    if cmd.encoding_stats is not None:
        stated = {}
        for s in cmd.encoding_stats:
            key = (_stats_page_type(s.page_type), s.encoding)
            stated[key] = stated.get(key, 0) + (s.count or 0)
        if stated != counts:
            ctx.add("PQ-CHUNK-009", f"encoding_stats of the chunk at offset {walk.start} say "
                    f"{_stats_text(stated)}, the pages walked are {_stats_text(counts)}",
                    walk.start, where)


def _stats_page_type(page_type):
    # Arrow C++ counts v2 data pages as DATA_PAGE in encoding_stats; readers only ask
    # "data or dictionary page", so the two data page types count as one.
    return PageType.DATA_PAGE if page_type == PageType.DATA_PAGE_V2 else page_type


def _stats_text(counts):
    return ", ".join(f"{n} {_page_type(t)}/{_encoding(e)}"
                     for (t, e), n in sorted(counts.items(), key=str)) or "none"


def _check_rows(ctx, walk):
    rows = None
    data = walk.data_pages
    if walk.node.max_repetition_level == 0:
        rows = walk.meta.num_values
    elif data and all(p.type == PageType.DATA_PAGE_V2 for p in data):
        rows = sum(p.header.data_page_header_v2.num_rows or 0 for p in data)
    walk.num_rows = rows
    expected = ctx.md.row_group(walk.row_group).num_rows
    if rows is not None and expected is not None and rows != expected:
        ctx.add("PQ-ROWS-002", f"the chunk at offset {walk.start} holds {rows} rows, its row "
                f"group {expected}", walk.start, walk.where)


def _check_offsets(ctx, walk):
    cmd, where = walk.meta, walk.where
    dictionary = walk.dictionary_page
    data = walk.data_pages
    declared = cmd.dictionary_page_offset
    if dictionary is not None and declared in (None, 0) and data and \
            cmd.data_page_offset == dictionary.offset:
        # A common writer habit (Impala, old parquet-mr and parquet-cpp): the chunk's first
        # page, the dictionary, is located by data_page_offset alone.
        ctx.add("PQ-CHUNK-008", f"dictionary_page_offset is {declared} and data_page_offset "
                f"{cmd.data_page_offset} points at the dictionary page, not at the first data "
                f"page (offset {data[0].offset})", dictionary.offset, where)
        return
    if dictionary is not None and declared != dictionary.offset:
        ctx.add("PQ-CHUNK-008", f"the dictionary page is at offset {dictionary.offset} but "
                f"dictionary_page_offset is {declared}", dictionary.offset, where)
    elif dictionary is None and declared not in (None, 0) and walk.pages:
        ctx.add("PQ-CHUNK-008", f"dictionary_page_offset is {declared} but the chunk at offset "
                f"{walk.start} has no dictionary page", walk.start, where)
    if data and cmd.data_page_offset != data[0].offset:
        ctx.add("PQ-CHUNK-008", f"the first data page is at offset {data[0].offset} but "
                f"data_page_offset is {cmd.data_page_offset}", data[0].offset, where)


def check_row_groups(ctx):
    """Rules across the chunks of each row group and of the file: overlaps, offsets, sizes."""
    spans = []
    for g, rg in enumerate(ctx.md.raw.row_groups):
        chunks = rg.columns or []
        starts = []
        total = 0
        for node, chunk in zip(ctx.md.schema.columns, chunks):
            cmd = chunk.meta_data
            if cmd is None or chunk.file_path is not None or not usable_chunk(chunk):
                continue
            total += cmd.total_compressed_size or 0
            span = declared_span(chunk, ctx.md.footer_offset)
            if span is not None and span[1] > 0:
                starts.append(span[0])
                spans.append((span[0], span[0] + span[1], g, node.dotted_path))
        _check_row_group_totals(ctx, g, rg, starts, total, len(chunks))
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if b[0] < a[1]:
            ctx.add("PQ-CHUNK-010", f"the chunk at offset {b[0]} starts before the chunk of "
                    f"column {a[3]}, row group {a[2]} (offsets {a[0]} to {a[1]}) ends",
                    b[0], Where(b[2], b[3]))


def _check_row_group_totals(ctx, g, rg, starts, total, num_chunks):
    at = ctx.md.footer_offset
    if rg.total_compressed_size is not None and num_chunks and \
            rg.total_compressed_size != total:
        ctx.add("PQ-CHUNK-007", f"RowGroup.total_compressed_size is "
                f"{rg.total_compressed_size}, its chunks' sizes add up to {total} (footer at "
                f"offset {at})", at, Where(g))
    if rg.file_offset is not None and starts and rg.file_offset != min(starts):
        ctx.add("PQ-CHUNK-012", f"RowGroup.file_offset is {rg.file_offset}, its first chunk "
                f"starts at offset {min(starts)}", min(starts), Where(g),
                bugs=ctx.trust.file_bugs("row_group_offset"))
    if rg.num_rows == 0 and any(
            (c.meta_data is not None and (c.meta_data.num_values or 0) > 0)
            for c in rg.columns or []):
        ctx.add("PQ-ROWS-003", f"num_rows is 0 but its chunks hold values (footer at offset "
                f"{at})", at, Where(g))


def _page_type(value):
    try:
        return PageType(value).name
    except ValueError:
        return f"UNKNOWN({value})"


def _encoding(value):
    try:
        return Encoding(value).name
    except ValueError:
        return f"UNKNOWN({value})"
