"""Flat fixed-width column chunks decoded straight into their row slots.

A flat column -- no repetition, at most one OPTIONAL node on its path, so its
definition levels are 0 (null) or 1 (present) -- has one row slot per level
entry. A chunk of INT32, INT64, FLOAT, DOUBLE or FIXED_LEN_BYTE_ARRAY values,
or of dictionary-encoded strings (whose rows are their int32 dictionary
indices), is decoded here without the intermediate buffers of the general
path (int16 levels, dense values, assembly, scatter):

* a PLAIN v1 page is decompressed into the output itself, placed so that its
  values end where the page's rows end: ``[4-byte length | levels | values]``
  lands with the values already in the tail of the page's rows. The level
  bytes (a few bytes for a page without nulls) are copied out, the bytes of
  the previous page's rows the prefix covered are put back, and
  :func:`pqkit._native.place.place_values` spreads the values forward over
  the rows while it decodes the levels into validity;
* a dictionary-encoded page is gathered from the dictionary into the tail of
  its rows (:class:`pqkit._native.dict_gather.DictGather`, once the
  levels have been counted) and spread the same way; for strings the indices
  themselves are decoded there (the dictionary stays apart, as the general
  path keeps it);
* a PLAIN v2 page keeps its levels apart and uncompressed, so its values
  are decompressed straight into the tail of its rows;
* other pages (a first page whose level prefix would land before the buffer,
  anything unusual) are decompressed into the reader's scratch buffer and
  their values placed from there.

A page without nulls never moves a value: its values are already in their
rows, and the chunk's validity is None. Any page this path does not take (an
encoding other than PLAIN or dictionary, BIT_PACKED levels, anything
malformed, a PLAIN page of strings) raises :class:`Fallback`; the reader then
decodes the chunk with the general path, which reports malformed data with
the offset.

For ``optional int64`` values ``[5, None, 7]`` in one PLAIN v1 page of 26
bytes (``[4-byte length 2 | 2 level bytes | 5 | 7]``) the page is
decompressed at byte 8 - 26 + 24 = 6 of the rows' 24 bytes -- so 5 and 7 are
at bytes 8 and 16 -- and placed to ``[5, 0, 7]`` with validity
``[True, False, True]``.
"""
from dataclasses import dataclass

import numpy as np

from pqkit import datatypes as T
from pqkit._native.bitpack import decode_dict_indices
from pqkit._native.dict_gather import DictGather
from pqkit._native.hashing import crc32, crc32_copy
from pqkit._native.place import count_present, place_values
from pqkit.compression import CompressionCodec, decompress
from pqkit.encodings.physical import NUMERIC
from pqkit.errors import ParquetError
from pqkit.format import Encoding, PageType, Type
from pqkit.page import MAX_PAGE_SIZE, Scratch, data_page_num_values, split_data_page

__all__ = ["Fallback", "PlacedChunk", "PlacedDecoder", "placeable"]

# Bytes before the first row: room for the level prefix of the first page.
HEADROOM = 64
_DICT = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
_LEVELS = (Encoding.RLE, None)


class Fallback(Exception):
    """The chunk needs the general decoding path."""


@dataclass
class PlacedChunk:
    """A flat chunk's values in their rows.

    Attributes
    ----------
    values : numpy.ndarray
        One value per row (zero in null rows), in the physical dtype.
        For FIXED_LEN_BYTE_ARRAY, uint8 rows of ``type_length`` bytes; for
        strings, int32 indices into ``dictionary``.
    validity : numpy.ndarray of bool or None
        True where the row is present; None when no row is null.
    num_entries, num_values : int
        Rows, and rows holding a value.
    dictionary : pqkit.read.decode.values.BinaryValues or None
        The strings ``values`` index (None for the other types).
    """
    values: np.ndarray
    validity: np.ndarray | None
    num_entries: int
    num_values: int
    dictionary: object = None


def placeable(node, type_):
    """Whether leaf ``node``, read as ``type_``, is flat and of a kind this path
    decodes: INT32/INT64/FLOAT/DOUBLE, FIXED_LEN_BYTE_ARRAY, or BYTE_ARRAY strings
    (tried for dictionary-encoded chunks)."""
    if node.max_repetition_level != 0 or node.max_definition_level > 1:
        return False
    physical = node.physical_type
    if physical in NUMERIC:
        return True
    if physical == Type.FIXED_LEN_BYTE_ARRAY:
        width = node.element.type_length
        return isinstance(width, int) and width > 0
    return physical == Type.BYTE_ARRAY and isinstance(type_, T.StringType)


def _pages_supported(pages, max_def, plain):
    for page in pages:
        h = page.header
        if h.type == PageType.DATA_PAGE:
            sub = h.data_page_header
            if sub is None or (max_def and sub.definition_level_encoding not in _LEVELS):
                return False
        elif h.type == PageType.DATA_PAGE_V2:
            sub = h.data_page_header_v2
            if sub is None:
                return False
        else:
            continue
        if sub.encoding not in _DICT and not (plain and sub.encoding == Encoding.PLAIN):
            return False
    return True


class PlacedDecoder:
    """Decode the walked ``pages`` of one :func:`placeable` chunk of ``num_entries`` rows.

    Parameters
    ----------
    reader : pqkit.read.decode.chunk.ColumnChunkReader
        The chunk's reader (physical type, codec, max level, ``where``).
    num_entries : int
        Level entries the data pages hold (checked by the reader).
    """

    def __init__(self, reader, num_entries):
        self.reader = reader
        self.indices = reader.physical == Type.BYTE_ARRAY
        if self.indices:
            dtype, self.width, shape = np.dtype(np.int32), 4, (num_entries,)
        elif reader.physical == Type.FIXED_LEN_BYTE_ARRAY:
            self.width = reader.type_length
            dtype, shape = np.dtype(np.uint8), (num_entries, self.width)
        else:
            dtype = NUMERIC[reader.physical]
            self.width, shape = dtype.itemsize, (num_entries,)
        self.max_def = reader.max_def
        self.raw = np.empty(HEADROOM + num_entries * self.width, np.uint8)
        self.rows = self.raw[HEADROOM:].view(dtype).reshape(shape)
        self.valid = np.empty(num_entries, np.uint8) if self.max_def else None
        self.scratch = Scratch()
        self.dictionary = None
        self.gather = None          # DictGather(dictionary, rows).gather, once both exist
        self.entries = 0
        self.present = 0

    def decode(self, pages):
        """The chunk as a :class:`PlacedChunk`; raises :class:`Fallback` for a page
        this path does not take."""
        if not _pages_supported(pages, self.max_def, plain=not self.indices):
            raise Fallback()
        try:
            for page in pages:
                if not self._copies_plain(page):
                    self.reader.check_crc(page)
                if page.type == PageType.DICTIONARY_PAGE:
                    self._dictionary(page)
                elif page.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                    self._data_page(page)
        except ParquetError:
            raise Fallback() from None
        n = self.entries
        validity = None
        if self.valid is not None and self.present != n:
            validity = self.valid[:n].view(np.bool_)
        if not self.indices:
            return PlacedChunk(self.rows[:n], validity, n, self.present)
        if self.dictionary is None or not len(self.dictionary):
            raise Fallback()
        return PlacedChunk(self.rows[:n], validity, n, self.present, self.dictionary)

    def _dictionary(self, page):
        if self.dictionary is not None:
            raise Fallback()
        values = self.reader.read_dictionary_page(page, self.scratch)
        self.dictionary = values if self.indices else values.array

    def _copies_plain(self, page):
        """Whether ``page`` is an uncompressed PLAIN data page: its bytes are copied
        into the rows as they are, and its CRC is computed in the same pass."""
        if self.reader.codec != CompressionCodec.UNCOMPRESSED:
            return False
        h = page.header
        sub = h.data_page_header if h.type == PageType.DATA_PAGE else \
            h.data_page_header_v2 if h.type == PageType.DATA_PAGE_V2 else None
        return sub is not None and sub.encoding == Encoding.PLAIN

    def _data_page(self, page):
        n = data_page_num_values(page, self.reader.where)
        h = page.header
        if h.type == PageType.DATA_PAGE and h.data_page_header.encoding == Encoding.PLAIN \
                and self._plain_in_place(page, n):
            return
        if h.type == PageType.DATA_PAGE_V2 and h.data_page_header_v2.encoding == Encoding.PLAIN \
                and self._plain_v2_in_place(page, n):
            return
        r = self.reader
        r.check_crc(page)            # not copied in place after all (a no-op if checked)
        dp = split_data_page(page, r.codec, r.where, 0, self.max_def, scratch=self.scratch)
        body = dp.values
        levels, lpos, llen, vpos = self._levels(dp, body)
        if dp.encoding == Encoding.PLAIN:
            taken = self._place_from(body, vpos, len(body) - vpos, levels, lpos, llen, n)
        else:
            taken = self._gather(body, vpos, levels, lpos, llen, n)
        self.entries += n
        self.present += taken

    def _levels(self, dp, body):
        """(level bytes, start, length, where the values start in ``body``)."""
        if not self.max_def:
            return None, 0, 0, 0
        if dp.v2:
            return dp.def_levels, 0, len(dp.def_levels), 0
        if len(body) < 4:
            raise Fallback()
        llen = int.from_bytes(body[:4], "little")
        if llen > len(body) - 4:
            raise Fallback()
        return body, 4, llen, 4 + llen

    def _out_start(self):
        return HEADROOM + self.entries * self.width

    def _place_from(self, src, start, length, levels, lpos, llen, n):
        """Place a page's PLAIN values from ``src[start:start + length]``."""
        out = self._out_start()
        if not self.max_def:
            need = n * self.width
            if need > length:
                raise Fallback()
            self.raw[out:out + need] = np.frombuffer(src, np.uint8, need, start)
            return n
        taken = place_values(levels, lpos, llen, self.max_def, n, self.raw, out, self.width,
                             src, start, length, self.valid, self.entries)
        if taken < 0:
            raise Fallback()
        return taken

    def _gather(self, body, vpos, levels, lpos, llen, n):
        """Gather a dictionary-encoded page's values into the tail of its rows, then
        spread them."""
        if self.dictionary is None or len(body) <= vpos:
            raise Fallback()
        present = n
        if self.max_def:
            present = count_present(levels, lpos, llen, self.max_def, n)
            if present < 0:
                raise Fallback()
        tail = self.entries + n - present
        if present and self.indices:
            decode_dict_indices(body, vpos, len(body) - vpos, present,
                                self.rows[tail:tail + present], len(self.dictionary))
        elif present:
            if self.gather is None:
                self.gather = DictGather(self.dictionary, self.rows).gather
            self.gather(body, vpos, len(body) - vpos, present, tail)
        if self.max_def:
            taken = place_values(levels, lpos, llen, self.max_def, n, self.raw,
                                 self._out_start(), self.width, None,
                                 HEADROOM + tail * self.width, present * self.width,
                                 self.valid, self.entries)
            if taken != present:
                raise Fallback()
        return present

    def _plain_in_place(self, page, n):
        """Decompress a PLAIN v1 page so its values end where its rows end; False
        when its level prefix would land before the buffer."""
        size = page.header.uncompressed_page_size
        out = self._out_start()
        end = out + n * self.width
        start = end - size
        if size > MAX_PAGE_SIZE or start < 0 or (self.max_def and size < 4):
            return False
        r = self.reader
        saved = self.raw[start:out].copy() if start < out else None
        view = memoryview(self.raw)
        try:
            if r.codec == CompressionCodec.UNCOMPRESSED and len(page.payload) == size \
                    and r.crc_pending(page):
                r.check_crc(page, crc32_copy(page.payload, view[start:end]))
            else:
                r.check_crc(page)
                decompress(r.codec, page.payload, size, out=view[start:end],
                           where=f"page at offset {page.offset} in {r.where}")
            if self.max_def:
                llen = int.from_bytes(self.raw[start:start + 4].tobytes(), "little")
                if llen > size - 4:
                    raise Fallback()
                levels = self.raw[start + 4:start + 4 + llen].tobytes()
        finally:
            if saved is not None:
                self.raw[start:out] = saved
        if not self.max_def:
            if size != n * self.width:
                raise Fallback()
            taken = n
        else:
            nbytes = size - 4 - llen
            taken = place_values(levels, 0, llen, self.max_def, n, self.raw, out, self.width,
                                 None, end - nbytes, nbytes, self.valid, self.entries)
            if taken < 0 or taken * self.width != nbytes:
                raise Fallback()
        self.entries += n
        self.present += taken
        return True

    def _plain_v2_in_place(self, page, n):
        """Decompress a PLAIN v2 page's values (its levels lie before them, never
        compressed) into the tail of its rows; False when they would not fit there."""
        sub = page.header.data_page_header_v2
        rep_len = sub.repetition_levels_byte_length or 0
        def_len = sub.definition_levels_byte_length or 0
        nbytes = page.header.uncompressed_page_size - rep_len - def_len
        out = self._out_start()
        end = out + n * self.width
        if rep_len or def_len < 0 or def_len > len(page.payload) or not 0 <= nbytes <= end - out:
            return False
        raw = page.payload[def_len:]
        start = end - nbytes
        r = self.reader
        if r.codec == CompressionCodec.UNCOMPRESSED and len(raw) == nbytes \
                and r.crc_pending(page):
            dst = memoryview(self.raw)[start:end]
            r.check_crc(page, crc32_copy(raw, dst, crc32(page.payload[:def_len])))
        elif nbytes and (sub.is_compressed is None or sub.is_compressed) and len(raw):
            r.check_crc(page)
            decompress(r.codec, raw, nbytes, out=memoryview(self.raw)[start:end],
                       where=f"page at offset {page.offset} in {r.where}")
        elif len(raw) == nbytes:
            r.check_crc(page)
            self.raw[start:end] = np.frombuffer(raw, np.uint8)
        else:
            return False
        if not self.max_def:
            taken = n if nbytes == n * self.width else -1
        else:
            taken = place_values(page.payload, 0, def_len, self.max_def, n, self.raw, out,
                                 self.width, None, start, nbytes, self.valid, self.entries)
        if taken < 0 or taken * self.width != nbytes:
            raise Fallback()
        self.entries += n
        self.present += taken
        return True
