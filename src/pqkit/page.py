"""Pages: walking a column chunk's page headers, CRC checks and section splitting.

A column chunk is a run of ``PageHeader | payload`` pairs::

    [DICTIONARY_PAGE header | dictionary values]   at most one, first
    DATA_PAGE / DATA_PAGE_V2 header | payload       until num_values level entries are read
    (INDEX_PAGE and unknown page types are skipped by their compressed size)

A v1 data page compresses ``rep levels | def levels | values`` as one block,
levels RLE with a 4-byte length prefix (or legacy BIT_PACKED). A v2 page
stores ``rep levels | def levels`` uncompressed with their lengths in the
header, then the values, compressed only when ``is_compressed``.

The CRC (zlib's CRC-32, stored as a signed i32) covers exactly the
``compressed_page_size`` bytes after the header; it is computed by
:func:`pqkit._native.hashing.crc32`, zlib's function with a carry-less-multiply
kernel on CPUs that have one.
"""
from dataclasses import dataclass

from pqkit import format as fmt
from pqkit._native.hashing import crc32
from pqkit.compression import decompress
from pqkit.errors import AllocationLimitError, ChecksumError, CorruptFileError
from pqkit.format import Encoding, PageType

# Sizes above this are refused before anything is allocated (a corrupt header
# must not make us reserve gigabytes); a legitimate page is far smaller.
MAX_PAGE_SIZE = 1 << 31
# The scratch buffer grows to a declared size only within deflate's largest ratio
# (1032:1) plus a floor; see Scratch.get.
SCRATCH_RATIO = 1032
SCRATCH_FLOOR = 1 << 20


@dataclass
class RawPage:
    """A page header and its on-disk payload (still compressed)."""
    header: object            # pqkit.format.PageHeader
    offset: int               # file offset of the header
    header_size: int
    payload: memoryview       # compressed_page_size bytes after the header
    # An encrypted page's module as stored (payload is then its plaintext): parquet-mr
    # computes the page CRC over these bytes, parquet-cpp over the plaintext.
    sealed: memoryview = None

    @property
    def type(self):
        return self.header.type

    @property
    def payload_offset(self):
        return self.offset + self.header_size


@dataclass
class DataPage:
    """A data page split into its sections, values decompressed."""
    raw: RawPage
    num_values: int           # level entries (rows, nulls and repeats)
    encoding: int
    rep_levels: bytes         # v2: raw level bytes; v1: prefixed/bit-packed block
    def_levels: bytes
    values: memoryview        # decompressed value bytes
    v2: bool
    rep_encoding: int = Encoding.RLE
    def_encoding: int = Encoding.RLE
    num_nulls: int = None     # v2 header's claim (may be -1 from some writers)
    num_rows: int = None
    statistics: object = None


def crc_field(crc):
    """An unsigned CRC-32 as the signed 32-bit value PageHeader.crc stores (Thrift i32)."""
    return crc - (1 << 32) if crc >= (1 << 31) else crc


def crc32_signed(data):
    """zlib CRC-32 of `data` as the signed 32-bit value stored in PageHeader.crc."""
    return crc_field(crc32(data))


class PageWalker:
    """Iterate the pages of one column chunk held in memory.

    Parameters
    ----------
    data : bytes
        The chunk's bytes (file range [offset, offset + len(data))).
    offset : int
        File offset of data[0].
    num_values : int
        ColumnMetaData.num_values: data pages are read until this many level
        entries were seen (trailing bytes are ignored).
    where : str
        Column/row-group description for error messages.
    verify_checksums : bool
        Check PageHeader.crc when present.
    thrift_limits : dict, optional
        Limits of the page header decoder (``ReadOptions.thrift_limits()``).
    decryptor : pqkit.crypto.ChunkDecryptor, optional
        The chunk's decryptor when it is encrypted: each header and page is then an
        encrypted module, and the pages yielded hold the plaintext (their headers'
        ``compressed_page_size`` its length).
    """

    def __init__(self, data, offset, num_values, where, verify_checksums=True,
                 thrift_limits=None, decryptor=None):
        self.limits = thrift_limits or {}
        self.decryptor = decryptor
        self.data = data
        self.offset = offset
        self.num_values = num_values
        self.where = where
        self.verify = verify_checksums

    def __iter__(self):
        pos, seen, data = 0, 0, self.data
        view = memoryview(data)
        modules = None
        while pos < len(data) and seen < self.num_values:
            page_offset = self.offset + pos
            if self.decryptor is not None:
                modules = modules or self.decryptor.pages(self.offset)
                header, used = modules.header(data, pos, page_offset, self.limits)
            else:
                header, used = fmt.decode(fmt.PageHeader, data, pos, len(data) - pos,
                                          self.offset, **self.limits)
            size = header.compressed_page_size
            if header.type is None or size is None or header.uncompressed_page_size is None:
                raise CorruptFileError(f"page header at offset {page_offset} in {self.where} "
                                       "lacks type or sizes")
            if size < 0 or header.uncompressed_page_size < 0:
                raise CorruptFileError(f"negative page size in header at offset {page_offset} "
                                       f"in {self.where}")
            start = pos + used
            if start + size > len(data):
                raise CorruptFileError(
                    f"page at offset {page_offset} in {self.where} claims {size} bytes but the "
                    f"column chunk ends {len(data) - start} bytes after its header")
            payload = sealed = view[start:start + size]
            if modules is not None:
                payload = memoryview(modules.payload(sealed))
            page = RawPage(header, page_offset, used, payload,
                           sealed if modules is not None else None)
            if self.verify and header.crc is not None:
                self.check_crc(page)
            pos = start + size
            if header.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                seen += data_page_num_values(page, self.where)
            yield page

    def check_crc(self, page):
        check_crc(page, self.where)


def crc_matches(page, actual):
    """Whether ``page``'s stored CRC is ``actual`` (its payload's signed CRC-32) or, for
    an encrypted page, the CRC of its stored module (as parquet-mr computes it)."""
    return actual == page.header.crc or (page.sealed is not None and
                                         crc32_signed(page.sealed) == page.header.crc)


def check_crc(page, where, computed=None):
    """Raise ChecksumError when ``page`` has a CRC its payload does not match
    (``computed``: the payload's unsigned CRC-32 when the caller already has it)."""
    if page.header.crc is None:
        return
    actual = crc32_signed(page.payload) if computed is None else crc_field(computed)
    if not crc_matches(page, actual):
        kind = PageType(page.type).name if page.type in PageType._value2member_map_ \
            else page.type
        raise ChecksumError(
            f"CRC mismatch in {kind} page at offset {page.offset} in {where}: stored "
            f"{page.header.crc & 0xFFFFFFFF:#010x}, computed {actual & 0xFFFFFFFF:#010x}")


def walk_pages(data, origin, num_values, where, decryptor=None):
    """Walk page headers without stopping at the first bad one (``decryptor``: the
    chunk's :class:`pqkit.crypto.ChunkDecryptor` when it is encrypted).

    Returns ``([RawPage], end offset of the last whole page, CorruptFileError (or an
    AllocationLimitError of the header decoder) or
    None)``: the pages read before a problem, and the problem, so that inspection
    tools can report both. CRCs are not checked here.
    """
    pages, pos = [], origin
    walker = iter(PageWalker(data, origin, num_values, where, verify_checksums=False,
                             decryptor=decryptor))
    while True:
        try:
            page = next(walker)
        except StopIteration:
            return pages, pos, None
        except (CorruptFileError, AllocationLimitError) as exc:
            return pages, pos, exc
        pages.append(page)
        pos = page.payload_offset + len(page.payload if page.sealed is None else page.sealed)


def data_page_num_values(page, where):
    h = page.header
    sub = h.data_page_header if h.type == PageType.DATA_PAGE else h.data_page_header_v2
    if sub is None or sub.num_values is None:
        raise CorruptFileError(f"data page at offset {page.offset} in {where} has no "
                               f"{'data_page_header' if h.type == PageType.DATA_PAGE else 'data_page_header_v2'}")
    if sub.num_values < 0:
        raise CorruptFileError(f"data page at offset {page.offset} in {where} has "
                               f"num_values {sub.num_values}")
    return sub.num_values


class Scratch:
    """A reusable decompression buffer for the pages of one reader.

    Decoders copy what they keep out of a page body, so one buffer serves every
    page: it grows to the largest page and is never reallocated per page.
    """

    def __init__(self):
        self._buf = bytearray()

    def get(self, size, compressed_size):
        """``size`` bytes of the buffer, or None when growing it to ``size`` is not
        justified by ``compressed_size`` input bytes.

        A header's size is only a claim: the buffer grows only as far as real
        compression ratios reach, and a larger claim is left to the codec, whose
        own buffer grows with the bytes that actually decompress.
        """
        if len(self._buf) < size:
            if size > SCRATCH_RATIO * compressed_size + SCRATCH_FLOOR:
                return None
            self._buf = bytearray(max(size, 2 * len(self._buf)))
        return memoryview(self._buf)[:size]


def decompress_page(page, codec, where, size=None, data=None, scratch=None):
    """Decompress a page payload (or the given part of it) to `size` bytes.

    With a :class:`Scratch`, the result is a view of its buffer, valid until the
    next page is decompressed into it.
    """
    size = page.header.uncompressed_page_size if size is None else size
    data = page.payload if data is None else data
    if size > MAX_PAGE_SIZE:
        raise CorruptFileError(f"page at offset {page.offset} in {where} claims "
                               f"{size} uncompressed bytes")
    out = scratch.get(size, len(data)) if scratch is not None and codec != 0 else None
    return decompress(codec, data, size, out=out,
                      where=f"page at offset {page.offset} in {where}")


def split_data_page(page, codec, where, max_rep, max_def, v2_compressed_override=None,
                    scratch=None):
    """Turn a RawPage holding a data page into a DataPage with values decompressed."""
    h = page.header
    if h.type == PageType.DATA_PAGE:
        sub = h.data_page_header
        body = memoryview(decompress_page(page, codec, where, scratch=scratch))
        return DataPage(page, sub.num_values, sub.encoding, None, None, body, False,
                        rep_encoding=sub.repetition_level_encoding,
                        def_encoding=sub.definition_level_encoding,
                        statistics=sub.statistics)
    sub = h.data_page_header_v2
    rep_len = sub.repetition_levels_byte_length or 0
    def_len = sub.definition_levels_byte_length or 0
    size = h.compressed_page_size
    if rep_len < 0 or def_len < 0 or rep_len + def_len > size:
        raise CorruptFileError(
            f"v2 data page at offset {page.offset} in {where}: level lengths {rep_len}+{def_len} "
            f"exceed the page's {size} bytes")
    values_raw = page.payload[rep_len + def_len:]
    values_size = h.uncompressed_page_size - rep_len - def_len
    if values_size < 0:
        raise CorruptFileError(
            f"v2 data page at offset {page.offset} in {where}: uncompressed size "
            f"{h.uncompressed_page_size} is smaller than its levels ({rep_len + def_len})")
    compressed = sub.is_compressed if sub.is_compressed is not None else True
    if v2_compressed_override is not None:
        compressed = v2_compressed_override
    if compressed and len(values_raw) and values_size:
        values = memoryview(decompress_page(page, codec, where, values_size, values_raw,
                                            scratch))
    elif not len(values_raw) or not values_size:
        values = memoryview(b"")    # an empty values section is never decompressed
    else:
        values = values_raw
    return DataPage(page, sub.num_values, sub.encoding, page.payload[:rep_len],
                    page.payload[rep_len:rep_len + def_len], values, True,
                    num_nulls=sub.num_nulls, num_rows=sub.num_rows, statistics=sub.statistics)
