"""Column chunk reading: pages -> levels and decoded values.

A chunk is read by three cooperating parts (the shape of arrow-rs's
``GenericColumnReader``): the page iterator (:class:`pqkit.page.PageWalker`,
which checks CRCs and yields page headers and bodies), a
:class:`~pqkit.read.decode.level_decoder.LevelDecoder` for the repetition and
definition levels, and a :class:`~pqkit.read.decode.value_decoder.ValueDecoder` for
the values. The result is a :class:`ChunkData`: the chunk's levels over all
its pages (a v1 page may split a record, so assembly works on the whole
chunk) and its non-null values in physical layout (:mod:`pqkit.read.decode.values`).

For example a chunk of ``optional int32`` with values ``[1, None, 3]`` in one
PLAIN v1 page gives ``def_levels == [1, 0, 1]``, ``rep_levels is None`` and
``values == FixedValues(array([1, 3], dtype=int32))``.
"""
import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np

from pqkit.compression import CompressionCodec
from pqkit.encodings.physical import fixed_width
from pqkit.errors import CorruptFileError
from pqkit.format import PageType, Type
from pqkit.page import (
    PageWalker,
    Scratch,
    check_crc,
    data_page_num_values,
    decompress_page,
    split_data_page,
)
from pqkit.read.decode.level_decoder import LevelDecoder
from pqkit.read.decode.placed import Fallback, PlacedDecoder
from pqkit.read.decode.value_decoder import ValueDecoder, empty_values
from pqkit.read.options import DEFAULT_OPTIONS

__all__ = ["ChunkData", "ColumnChunkReader", "empty_values"]

# Data pages of no value a chunk may hold beyond its pages with values. Writers leave
# none (an empty chunk at most has one); a file of nothing but their headers, 17
# bytes each, would cost tens of microseconds of walking per page.
MAX_EMPTY_PAGES = 64


@dataclass
class ChunkData:
    """The levels and values of one column chunk.

    Attributes
    ----------
    def_levels, rep_levels : numpy.ndarray of int16 or None
        One entry per level entry; None when the column's max level is 0.
    num_entries : int
        Level entries (the chunk's ``num_values``).
    values : FixedValues, BinaryValues or DictionaryValues
        The non-null values, densely stored.
    """
    def_levels: Optional[np.ndarray]
    rep_levels: Optional[np.ndarray]
    num_entries: int
    values: object


class ColumnChunkReader:
    """Decode the pages of one column chunk.

    Parameters
    ----------
    node : pqkit.SchemaNode
        The leaf column.
    codec : int
        ColumnMetaData.codec.
    num_values : int
        ColumnMetaData.num_values (level entries).
    where : str
        "column a.b, row group 3" -- used in every error message.
    verify_checksums : bool
        Check page CRCs where present.
    options : pqkit.ReadOptions, optional
        Resource limits, checked on the page headers before decoding.
    text : bool
        The leaf is read as text: byte arrays are checked to be UTF-8 as they are
        decoded, while in cache (:class:`~pqkit.read.decode.value_decoder.ValueDecoder`).
    budget : pqkit.read.budget.ReadBudget, optional
        The read's total allocation budget, charged before pages are decompressed and
        values decoded.
    decryptor : pqkit.crypto.ChunkDecryptor, optional
        Decrypts the pages of an encrypted chunk.
    """

    def __init__(self, node, codec, num_values, where, verify_checksums=True,
                 options=DEFAULT_OPTIONS, text=False, budget=None, decryptor=None):
        self.text = text
        self.budget = budget
        self.node = node
        self.decryptor = decryptor
        self.physical = Type(node.physical_type)
        self.type_length = node.element.type_length
        self.max_def = node.max_definition_level
        self.max_rep = node.max_repetition_level
        # A known codec id becomes its enum once here rather than on every page; an
        # unknown one stays as it is and is reported, with the page, when decompressed.
        self.codec = CompressionCodec._value2member_map_.get(codec, codec) \
            if isinstance(codec, int) else codec
        self.num_values = num_values
        self.where = where
        self.verify = verify_checksums
        self.options = options
        # (data, offset, walk) of the chunk read_placed walked and gave back: a read()
        # of the same bytes then decodes those pages instead of walking them again.
        self._walked = None
        # File offsets of pages whose CRC was checked: each is checked once, right
        # before its first decode, while its bytes are about to be read anyway.
        self._crc_checked = set()
        self.data_pages = 0           # data pages of the last walk (read statistics)

    def read(self, data, offset):
        """Decode the chunk held in ``data`` (which starts at file offset ``offset``)."""
        return self._decode([(data, offset)], exact=True)

    def read_pages(self, segments):
        """Decode some pages of the chunk: ``segments`` are (bytes, file offset) pairs, each
        holding whole pages (the dictionary page first, if any), e.g. the pages an
        OffsetIndex selects. The result covers only those pages' rows."""
        return self._decode(segments, exact=False)

    def read_dictionary(self, data, offset):
        """The values of the dictionary page that ``data`` (at file offset ``offset``)
        holds -- FixedValues or BinaryValues -- or None when it holds none."""
        values = ValueDecoder(self.physical, self.type_length, 0, len(data), self.where)
        for page in PageWalker(data, offset, 1, self.where, self.verify,
                               decryptor=self.decryptor):
            self._check_page_size(page)
            if page.type == PageType.DICTIONARY_PAGE:
                self._charge(page.header.uncompressed_page_size, "the dictionary page")
                values.read_dictionary(page, functools.partial(
                    decompress_page, page, self.codec, self.where, scratch=Scratch()))
        return values.dictionary

    def read_dictionary_page(self, page, scratch):
        """The values (FixedValues or BinaryValues) of dictionary page ``page``."""
        values = ValueDecoder(self.physical, self.type_length, 0, 0, self.where)
        values.read_dictionary(page, functools.partial(
            decompress_page, page, self.codec, self.where, scratch=scratch))
        return values.dictionary

    def read_placed(self, data, offset):
        """Decode a whole chunk of a flat column (:func:`placed.placeable`)
        straight into its rows: a :class:`~pqkit.read.decode.placed.PlacedChunk`, or None when
        the chunk needs the general path (:meth:`read`)."""
        walk = self._walk([(data, offset)], exact=True)
        try:
            return PlacedDecoder(self, walk[1]).decode(walk[0])
        except Fallback:
            self._walked = (data, offset, walk)
            return None

    def read_pages_placed(self, segments):
        """:meth:`read_pages` for a flat column (:func:`placed.placeable`), straight into
        its rows: a :class:`~pqkit.read.decode.placed.PlacedChunk` of those pages' rows,
        or None when they need the general path."""
        pages, held, _ = self._walk(segments, exact=False)
        try:
            return PlacedDecoder(self, held).decode(pages)
        except Fallback:
            return None

    def check_crc(self, page, computed=None):
        """Check ``page``'s CRC (when it has one and checking is on), once; ``computed``
        is its payload's CRC-32 when the caller computed it while copying the bytes."""
        if self.crc_pending(page):
            check_crc(page, self.where, computed)
            self._crc_checked.add(page.offset)

    def crc_pending(self, page):
        """Whether ``page`` has a CRC still to be checked."""
        return self.verify and page.header.crc is not None and \
            page.offset not in self._crc_checked

    def _walk(self, segments, exact):
        """(pages, level entries they hold, stored bytes), every limit checked."""
        walked, self._walked = self._walked, None
        if walked is not None and len(segments) == 1 and exact and \
                walked[0] is segments[0][0] and walked[1] == segments[0][1]:
            return walked[2]
        n = self.num_values
        size = sum(len(d) for d, _ in segments)
        # Walk every page header before allocating: the buffers are sized by what the
        # pages hold, never by the num_values the chunk merely claims. CRCs are checked
        # page by page just before decoding (check_crc), not here: a page's bytes are
        # then read twice in a row, the second time from cache.
        limits = self.options.thrift_limits()
        pages = self._pages(segments, n, limits)
        self.data_pages = sum(p.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)
                              for p in pages)
        held = self._held_values(pages, n, exact, segments[0][1])
        # Each level entry takes at least a bit on disk (RLE runs compress further, but
        # never below one header byte per run of up to 2**31): cap what a page header's
        # count can make us allocate by what the chunk could hold.
        if held > max(size, 1) * 8 * (1 << 16):
            raise CorruptFileError(f"{self.where}: pages claiming {held} values are "
                                   f"impossible for a chunk of {size} bytes")
        decoded = held * self._bytes_per_entry()
        self.options.check("max_chunk_bytes", decoded,
                           f"bytes of levels and values for {held} entries", self.where)
        if self.budget is not None:
            unpacked = 0 if self.codec == CompressionCodec.UNCOMPRESSED else \
                sum(p.header.uncompressed_page_size for p in pages)
            self._charge(unpacked + decoded, f"decompressing {len(pages)} pages "
                         f"({unpacked} bytes) and decoding {held} entries ({decoded} bytes)")
        return pages, held, size

    def _pages(self, segments, n, limits):
        """The pages of ``segments``, walked; the walk stops where the data pages of no
        value outnumber the other pages by more than MAX_EMPTY_PAGES."""
        pages, empty = [], 0
        for data, offset in segments:
            for page in PageWalker(data, offset, n, self.where, False, limits,
                                   self.decryptor):
                pages.append(page)
                if page.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2) and \
                        data_page_num_values(page, self.where) == 0:
                    empty += 1
                    if empty - (len(pages) - empty) > MAX_EMPTY_PAGES:
                        raise CorruptFileError(
                            f"{self.where}: {empty} of the first {len(pages)} pages (up to "
                            f"offset {page.offset}) are data pages of no value, more than "
                            f"{MAX_EMPTY_PAGES} beyond the other pages (they carry nothing, "
                            f"and walking millions of them would take minutes)")
        return pages

    def _charge(self, nbytes, what):
        if self.budget is not None:
            self.budget.charge(nbytes, what, self.where)

    def _decode(self, segments, exact):
        pages, held, size = self._walk(segments, exact)
        levels = LevelDecoder(self.max_rep, self.max_def, held, self.where, whole_chunk=exact)
        values = ValueDecoder(self.physical, self.type_length, held, size, self.where,
                              self.text, self._charge)
        scratch = Scratch()
        entries = 0
        for page in pages:
            self.check_crc(page)
            if page.type == PageType.DICTIONARY_PAGE:
                values.read_dictionary(page, functools.partial(
                    decompress_page, page, self.codec, self.where, scratch=scratch))
            elif page.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                dp = split_data_page(page, self.codec, self.where, self.max_rep,
                                     self.max_def, scratch=scratch)
                pos, present = levels.decode_page(dp, page, entries)
                if present:
                    values.add_page(dp.encoding, dp.values, pos, present, page)
                entries += dp.num_values
            # INDEX_PAGE and unknown page types carry nothing a reader needs.
        def_levels, rep_levels = levels.result(entries)
        return ChunkData(def_levels, rep_levels, entries, values.result())

    def _held_values(self, pages, n, exact, chunk_offset):
        """Level entries the data pages hold, checked against the chunk's ``n``."""
        held = 0
        for page in pages:
            self._check_page_size(page)
            if page.type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                count = data_page_num_values(page, self.where)
                if held + count > n:
                    raise CorruptFileError(
                        f"data page at offset {page.offset} in {self.where} holds "
                        f"{count} values, past the chunk's {n}")
                held += count
        if exact and held != n:
            raise CorruptFileError(f"{self.where}: pages hold {held} values, the column "
                                   f"chunk at offset {chunk_offset} declares {n}")
        return held

    def _check_page_size(self, page):
        limit = ("max_dictionary_size" if page.type == PageType.DICTIONARY_PAGE
                 else "max_page_size")
        self.options.check(limit, page.header.uncompressed_page_size, "decompressed bytes",
                           f"page at offset {page.offset} in {self.where}")

    def _bytes_per_entry(self):
        """What one level entry costs in the decoded chunk: its levels and at most one
        value slot (a byte array's offset; its bytes count in the page sizes)."""
        levels = 2 * ((self.max_rep > 0) + (self.max_def > 0))
        if self.physical in (Type.BYTE_ARRAY, Type.BOOLEAN):
            return levels + (8 if self.physical == Type.BYTE_ARRAY else 1)
        return levels + fixed_width(self.physical, self.type_length)
