"""Pages found by walking a file from offset 4, and whether a page fits a column.

Used by ``pqkit.recover`` when the footer is gone: nothing says where a column
chunk ends, which column a page belongs to, or which codec compressed it. A
page *fits* a leaf column when, decompressed with the chunk's codec, its
levels decode with the column's max levels and its values section has the
size the encoding implies: for PLAIN, ``non-null values * width`` for
fixed-width types, or a run of ``length | bytes`` items filling it exactly for
BYTE_ARRAY; for a dictionary-encoded page, a bit width of at most 32. Example:
a v1 page of 100 values in a required INT64 column fits when its uncompressed
body is exactly 800 bytes; the same page does not fit an optional INT32 column,
whose body must start with a definition-level run and hold 4-byte values.
"""
import struct
from dataclasses import dataclass

from pqkit import format as fmt
from pqkit.compression import codec_available, decompress
from pqkit.encodings.physical import fixed_width
from pqkit.encodings.rle import decode_levels, decode_levels_bit_packed
from pqkit.errors import ParquetError
from pqkit.format import CompressionCodec, Encoding, PageType, Type
from pqkit.page import MAX_PAGE_SIZE

# A walked header is believed only within these bounds (a garbage header must not make
# recover allocate gigabytes): the page reader's size cap, and a count of values far
# above any writer's page.
MAX_VALUES = 1 << 27
_KNOWN = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2, PageType.DICTIONARY_PAGE)
DICTIONARY_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
# Tried in this order when a chunk's codec is not known from a hint.
CODECS = (CompressionCodec.ZSTD, CompressionCodec.SNAPPY, CompressionCodec.GZIP,
          CompressionCodec.LZ4_RAW, CompressionCodec.BROTLI, CompressionCodec.LZ4)


@dataclass
class ScannedPage:
    """A page header found in the file, and where its payload lies."""
    header: object
    offset: int
    header_size: int
    data: object            # the whole file's bytes (a memoryview)

    @property
    def end(self):
        return self.offset + self.header_size + self.header.compressed_page_size

    @property
    def payload(self):
        start = self.offset + self.header_size
        return self.data[start:start + self.header.compressed_page_size]

    @property
    def is_dictionary(self):
        return self.header.type == PageType.DICTIONARY_PAGE

    @property
    def sub(self):
        h = self.header
        return {PageType.DATA_PAGE: h.data_page_header,
                PageType.DATA_PAGE_V2: h.data_page_header_v2,
                PageType.DICTIONARY_PAGE: h.dictionary_page_header}[h.type]


def scan_pages(data, start=4):
    """Page headers one after another from ``start``, until bytes that are not a
    whole plausible page (the cut, or the indexes and footer after the data).

    Returns
    -------
    (list of ScannedPage, int, str)
        The pages, the offset where the walk stopped, and why.
    """
    pages, pos, size = [], start, len(data)
    while pos < size:
        try:
            header, used = fmt.decode(fmt.PageHeader, data, pos, size - pos, 0)
        except ParquetError as exc:
            return pages, pos, f"no page header at offset {pos}: {exc}"
        page = ScannedPage(header, pos, used, data)
        why = _implausible(header)
        if why:
            return pages, pos, f"no page at offset {pos}: {why}"
        if page.end > size:
            return pages, pos, (f"page at offset {pos} needs {page.end - size} bytes more "
                                "than the file has")
        pages.append(page)
        pos = page.end
    return pages, pos, "end of file"


def _implausible(h):
    if h.type not in _KNOWN:
        return f"page type {h.type}"
    if h.compressed_page_size is None or h.uncompressed_page_size is None \
            or h.compressed_page_size < 0 or h.uncompressed_page_size < 0:
        return "missing or negative page sizes"
    if h.uncompressed_page_size > MAX_PAGE_SIZE:
        return f"uncompressed size {h.uncompressed_page_size} above {MAX_PAGE_SIZE}"
    sub = {PageType.DATA_PAGE: h.data_page_header, PageType.DATA_PAGE_V2: h.data_page_header_v2,
           PageType.DICTIONARY_PAGE: h.dictionary_page_header}[h.type]
    if sub is None or sub.num_values is None or sub.num_values < 0 or sub.encoding is None:
        return "no page type header with num_values and encoding"
    if sub.num_values > MAX_VALUES:
        return f"{sub.num_values} values, above {MAX_VALUES}"
    if h.type == PageType.DATA_PAGE_V2 and (sub.num_rows is None or sub.num_rows < 0):
        return "v2 data page without num_rows"
    return None


def detect_codec(page, hint=None):
    """The codec that decompresses ``page`` to its declared size, or None."""
    raw, size = _compressed_part(page)
    if raw is None or not size:
        return hint
    candidates = ([hint] if hint is not None else []) + \
        ([CompressionCodec.UNCOMPRESSED] if len(raw) == size else []) + list(CODECS)
    for codec in candidates:
        if codec == CompressionCodec.UNCOMPRESSED:
            if len(raw) == size:
                return codec
            continue
        if not codec_available(codec):
            continue
        try:
            decompress(codec, raw, size)
            return codec
        except (ParquetError, ValueError, OSError, MemoryError):
            continue
    return None


def _compressed_part(page):
    """(compressed bytes, uncompressed size) of what the codec applies to; (None, 0) for
    a v2 page whose values are stored uncompressed."""
    h = page.header
    if h.type != PageType.DATA_PAGE_V2:
        return page.payload, h.uncompressed_page_size
    sub = h.data_page_header_v2
    levels = (sub.repetition_levels_byte_length or 0) + (sub.definition_levels_byte_length or 0)
    if sub.is_compressed is False or levels > h.compressed_page_size:
        return None, 0
    return page.payload[levels:], h.uncompressed_page_size - levels


def page_fit(page, node, codec):
    """Rows of data page ``page`` when it fits leaf ``node`` under ``codec``, else None
    (for a dictionary page: 0 when it fits)."""
    try:
        return _fit(page, node, codec)
    except (ParquetError, ValueError, OSError, MemoryError, IndexError, struct.error):
        return None


def _body(page, codec):
    raw, size = _compressed_part(page)
    if raw is None:
        return page.payload
    if codec == CompressionCodec.UNCOMPRESSED or not size:
        if len(raw) != size:
            raise ValueError("size")
        body = raw
    else:
        body = decompress(codec, raw, size)
    if page.header.type == PageType.DATA_PAGE_V2:
        levels = len(page.payload) - len(raw)
        return memoryview(bytes(page.payload[:levels]) + bytes(body))
    return memoryview(body)


def _fit(page, node, codec):
    h, sub = page.header, page.sub
    body = _body(page, codec)
    n = sub.num_values
    if page.is_dictionary:      # parquet-mr labels its PLAIN dictionaries PLAIN_DICTIONARY
        return 0 if _values_fit(body, n, node, Encoding.PLAIN) else None
    max_rep, max_def = node.max_repetition_level, node.max_definition_level
    pos, rows, present = 0, n, n
    if h.type == PageType.DATA_PAGE_V2:
        rep_len = sub.repetition_levels_byte_length or 0
        def_len = sub.definition_levels_byte_length or 0
        if (max_rep == 0) != (rep_len == 0) or (max_def == 0 and def_len):
            return None
        rows = sub.num_rows
        if max_def:
            levels, _ = decode_levels(body, rep_len, max_def, n, prefixed=False, length=def_len)
            present = int((levels == max_def).sum())
        pos = rep_len + def_len
    else:
        if max_rep:
            levels, used = decode_levels(body, 0, max_rep, n)
            rows, pos = int((levels == 0).sum()), used
        if max_def:
            if sub.definition_level_encoding == Encoding.BIT_PACKED:
                levels, used = decode_levels_bit_packed(body, pos, max_def, n)
            else:
                levels, used = decode_levels(body, pos, max_def, n)
            present, pos = int((levels == max_def).sum()), pos + used
    return rows if _values_fit(body[pos:], present, node, sub.encoding) else None


def _values_fit(values, count, node, encoding):
    physical = node.physical_type
    if encoding in DICTIONARY_ENCODINGS:
        return count == 0 or (len(values) >= 1 and values[0] <= 32)
    if encoding != Encoding.PLAIN:
        return True
    if physical == Type.BOOLEAN:
        return len(values) == (count + 7) // 8
    if physical == Type.BYTE_ARRAY:
        pos = 0
        for _ in range(count):
            if pos + 4 > len(values):
                return False
            pos += 4 + struct.unpack_from("<I", values, pos)[0]
        return pos == len(values)
    return len(values) == count * fixed_width(physical, node.element.type_length)


__all__ = ["ScannedPage", "scan_pages", "detect_codec", "page_fit", "DICTIONARY_ENCODINGS"]
