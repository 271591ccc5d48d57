"""Column chunk reading: pages -> levels and decoded values.

One chunk is read as four cooperating parts (the shape arrow-rs uses): the
page iterator (:class:`pqkit.page.PageWalker`), a repetition-level decoder, a
definition-level decoder and a value decoder. The result is a
:class:`ChunkData`: the chunk's levels concatenated over all its pages (a v1
page may split a record, so assembly works on the whole chunk) and its
non-null values in physical layout (:mod:`pqkit.values`).

For example a chunk of ``optional int32`` with values ``[1, None, 3]`` in one
PLAIN v1 page gives ``def_levels == [1, 0, 1]``, ``rep_levels is None`` and
``values == FixedValues(array([1, 3], dtype=int32))``.
"""
import re
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import values as V
from .encodings.bss import decode_bss
from .encodings.delta import decode_delta
from .encodings.plain import decode_plain
from .encodings.rle import (bit_width_of, decode_dictionary_indices, decode_hybrid,
                            decode_hybrid_prefixed, decode_levels_bit_packed,
                            decode_rle_booleans)
from ._native.bitpack import decode_dict_indices
from ._native.plain import decode_byte_array_into
from ._native.take import take_byte_array_into
from .errors import CorruptFileError, EncodingError, UnsupportedFeatureError
from .format import Encoding, PageType, Type
from .page import PageWalker, Scratch, decompress_page, split_data_page

_EMPTY = {
    Type.BOOLEAN: np.zeros(0, np.bool_),
    Type.INT32: np.zeros(0, np.int32),
    Type.INT64: np.zeros(0, np.int64),
    Type.INT96: np.zeros((0, 12), np.uint8),
    Type.FLOAT: np.zeros(0, np.float32),
    Type.DOUBLE: np.zeros(0, np.float64),
}

_MAX_DICT_HEADER = 100
_DELTA = (Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_LENGTH_BYTE_ARRAY,
          Encoding.DELTA_BYTE_ARRAY)
_DICT_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


_COPYABLE = {Type.INT32: np.dtype("<i4"), Type.INT64: np.dtype("<i8"),
             Type.FLOAT: np.dtype("<f4"), Type.DOUBLE: np.dtype("<f8")}


@dataclass(frozen=True)
class _Span:
    """Values [start, stop) of the reader's preallocated fixed-width output."""
    start: int
    stop: int


@dataclass(frozen=True)
class _IndexSpan:
    """Entries [start, stop) of the reader's dictionary index buffer."""
    start: int
    stop: int


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


def empty_values(physical_type, type_length=None):
    """A zero-length FixedValues/BinaryValues in the physical layout of a type."""
    if physical_type == Type.BYTE_ARRAY:
        return V.BinaryValues(np.zeros(1, np.int64), np.zeros(0, np.uint8))
    if physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        return V.FixedValues(np.zeros((0, type_length or 0), np.uint8))
    return V.FixedValues(_EMPTY[physical_type])


def chunk_range(chunk, file_size, where, pad=0):
    """(offset, length) of a column chunk's pages in the file, checked against its size.

    ``pad`` extra bytes are added, as far as ``file_size`` allows, for writers
    that left the dictionary page header out of ``total_compressed_size``.
    """
    md = chunk.meta_data
    if md is None:
        raise CorruptFileError(f"{where}: column chunk has no meta_data (encrypted column?)")
    start = md.data_page_offset
    dict_off = md.dictionary_page_offset
    # Some writers set dictionary_page_offset to 0 when there is no dictionary.
    if dict_off is not None and 0 < dict_off < start:
        start = dict_off
    length = md.total_compressed_size
    if start is None or length is None or start < 4 or length < 0:
        raise CorruptFileError(f"{where}: invalid chunk range offset {start} length {length}")
    if start + length > file_size:
        raise CorruptFileError(
            f"{where}: chunk at offset {start} with {length} bytes runs past the end of the "
            f"file ({file_size} bytes)")
    return start, length + min(pad, file_size - start - length)


def dictionary_header_padding(created_by):
    """Bytes to add to chunk ranges of files from parquet-mr before 1.2.9 (PARQUET-816).

    Those versions did not count the dictionary page header in
    ``total_compressed_size``; a header is at most about 100 bytes.
    """
    if not created_by or not created_by.startswith("parquet-mr"):
        return 0
    m = re.match(r"parquet-mr(?: version)? (\d+)\.(\d+)\.(\d+)", created_by)
    if m is None:
        return _MAX_DICT_HEADER
    return _MAX_DICT_HEADER if tuple(map(int, m.groups())) < (1, 2, 9) else 0


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
    """

    def __init__(self, node, codec, num_values, where, verify_checksums=True):
        self.node = node
        self.physical = Type(node.physical_type)
        self.type_length = node.element.type_length
        self.max_def = node.max_definition_level
        self.max_rep = node.max_repetition_level
        self.codec = codec
        self.num_values = num_values
        self.where = where
        self.verify = verify_checksums
        self.dictionary = None

    def read(self, data, offset):
        """Decode the chunk held in ``data`` (which starts at file offset ``offset``)."""
        return self._decode([(data, offset)], exact=True)

    def read_pages(self, segments):
        """Decode some pages of the chunk: ``segments`` are (bytes, file offset) pairs, each
        holding whole pages (the dictionary page first, if any), e.g. the pages an
        OffsetIndex selects. The result covers only those pages' rows."""
        return self._decode(segments, exact=False)

    def _decode(self, segments, exact):
        n = self.num_values
        if n is None or n < 0:
            raise CorruptFileError(f"{self.where}: invalid num_values {n}")
        size = sum(len(d) for d, _ in segments)
        # Each level entry takes at least a bit on disk (RLE runs compress further, but
        # never below one header byte per run of up to 2**31): cap what a corrupt
        # num_values can make us allocate by what the chunk could hold.
        cap = max(size, 1) * 8 * (1 << 16)
        if n > cap:
            raise CorruptFileError(f"{self.where}: num_values {n} is impossible for a chunk "
                                   f"of {size} bytes")
        self._defs = np.empty(n, np.int16) if self.max_def else None
        self._reps = np.empty(n, np.int16) if self.max_rep else None
        self._fixed = None          # preallocated PLAIN output of fixed-width values
        self._fixed_pos = 0
        # Byte arrays decode into one growing pair of buffers once a page needs them
        # materialised (PLAIN); chunks whose pages are all dictionary indices stay indices.
        self._binary = None
        self._indices = None        # dictionary indices of the chunk's pages, in order
        self._indices_pos = 0
        self._scratch = Scratch()
        self._whole = exact
        pieces, entries = [], 0
        for data, offset in segments:
            for page in PageWalker(data, offset, n - entries if exact else n, self.where,
                                   self.verify):
                ptype = page.type
                if ptype == PageType.DICTIONARY_PAGE:
                    self._read_dictionary(page)
                elif ptype in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                    vals, used = self._read_data_page(page, entries)
                    entries += used
                    if vals is not None:
                        pieces = self._keep(pieces, vals, size)
                # INDEX_PAGE and unknown page types carry nothing a reader needs.
        if exact and entries != n:
            raise CorruptFileError(f"{self.where}: pages hold {entries} values, the column "
                                   f"chunk at offset {segments[0][1]} declares {n}")
        if not exact:
            self._defs = None if self._defs is None else self._defs[:entries]
            self._reps = None if self._reps is None else self._reps[:entries]
        empty = empty_values(self.physical, self.type_length)
        if self._binary is not None:
            values = self._binary.values()
        elif pieces and all(isinstance(p, _Span) for p in pieces):   # spans are contiguous
            values = V.FixedValues(self._fixed[:self._fixed_pos])
        elif pieces and all(isinstance(p, _IndexSpan) for p in pieces):
            # Every index was checked against the dictionary while decoded; no view of
            # the buffer exists yet, so it can shrink in place.
            self._indices.resize(self._indices_pos, refcheck=False)
            values = V.DictionaryValues(self._indices, self.dictionary)
        else:
            values = V.combine([self._piece(p) for p in pieces], self.dictionary, empty,
                               self.where)
        return ChunkData(self._defs, self._reps, entries, values)

    # -- dictionary ------------------------------------------------------------------
    def _read_dictionary(self, page):
        if self.dictionary is not None:
            raise CorruptFileError(f"second dictionary page at offset {page.offset} in "
                                   f"{self.where}")
        h = page.header.dictionary_page_header
        if h is None or h.num_values is None or h.num_values < 0:
            raise CorruptFileError(f"dictionary page at offset {page.offset} in {self.where} "
                                   "has no valid dictionary_page_header")
        enc = h.encoding if h.encoding is not None else Encoding.PLAIN
        if enc not in (Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
            raise EncodingError(f"dictionary page at offset {page.offset} in {self.where} "
                                f"uses encoding {_enc_name(enc)}; only PLAIN is valid")
        body = decompress_page(page, self.codec, self.where, scratch=self._scratch)
        self._check_count(h.num_values, len(body), page)
        values, _ = decode_plain(self.physical, body, 0, h.num_values, self.type_length,
                                 page.payload_offset)
        self.dictionary = _wrap(values)

    # -- data pages ------------------------------------------------------------------
    def _read_data_page(self, page, at_entry):
        dp = split_data_page(page, self.codec, self.where, self.max_rep, self.max_def,
                             scratch=self._scratch)
        n = dp.num_values
        if at_entry + n > self.num_values:
            raise CorruptFileError(f"data page at offset {page.offset} in {self.where} holds "
                                   f"{n} values, past the chunk's {self.num_values}")
        at = page.payload_offset
        body, pos = dp.values, 0
        reps = None if self._reps is None else self._reps[at_entry:at_entry + n]
        defs = None if self._defs is None else self._defs[at_entry:at_entry + n]
        if dp.v2:
            if reps is not None:
                self._levels_v2(dp.rep_levels, self.max_rep, reps, at)
            if defs is not None:
                self._levels_v2(dp.def_levels, self.max_def, defs, at + len(dp.rep_levels))
        else:
            if reps is not None:
                pos += self._levels_v1(body, pos, dp.rep_encoding, self.max_rep, reps, at)
            if defs is not None:
                pos += self._levels_v1(body, pos, dp.def_encoding, self.max_def, defs, at + pos)
        # In a whole chunk a v1 page may continue the previous page's record (old
        # parquet-mr did so); only the chunk's first page, and any page of a subset
        # chosen through the OffsetIndex, must start one.
        if reps is not None and n and reps[0] != 0 and (at_entry == 0 or not self._whole):
            raise EncodingError(f"data page at offset {page.offset} in {self.where} starts "
                                f"with repetition level {int(reps[0])}, not a new record")
        present = n if defs is None else int(np.count_nonzero(defs == self.max_def))
        vals = self._values(dp.encoding, body, pos, present, page) if present else None
        return vals, n

    def _levels_v1(self, body, pos, encoding, max_level, out, at):
        if encoding == Encoding.BIT_PACKED:
            levels, used = decode_levels_bit_packed(body, pos, max_level, len(out), at)
            out[:] = levels
            return used
        if encoding not in (Encoding.RLE, None):
            raise EncodingError(f"levels at offset {at} in {self.where} use encoding "
                                f"{_enc_name(encoding)}; expected RLE or BIT_PACKED")
        return decode_hybrid_prefixed(body, pos, bit_width_of(max_level), len(out), out, at)

    def _levels_v2(self, raw, max_level, out, at):
        decode_hybrid(raw, 0, len(raw), bit_width_of(max_level), len(out), out, at)

    def _values(self, encoding, body, pos, count, page):
        at = page.payload_offset + pos
        remaining = len(body) - pos
        if encoding == Encoding.PLAIN:
            if self.physical != Type.BOOLEAN:
                self._check_count(count, remaining, page)
            if self.physical in _COPYABLE:
                return self._copy_plain(body, pos, count, page)
            if self.physical == Type.BYTE_ARRAY:
                return _PlainBytes(body, pos, count, at)
            vals, _ = decode_plain(self.physical, body, pos, count, self.type_length, at)
            return _wrap(vals)
        if encoding in _DICT_ENCODINGS:
            if self.dictionary is None:
                raise CorruptFileError(f"dictionary-encoded page at offset {page.offset} in "
                                       f"{self.where} but the chunk has no dictionary page")
            if remaining <= 0:
                raise EncodingError(f"dictionary-encoded page at offset {page.offset} in "
                                    f"{self.where} has no index data for {count} values")
            if self.physical in _COPYABLE:
                # Numbers gain nothing from staying encoded: expand into the output now.
                idx, _ = decode_dictionary_indices(body, pos, count, len(self.dictionary),
                                                   length=remaining, base_offset=at)
                out = self._output(count)
                np.take(self.dictionary.array, idx, out=out)   # indices checked above
                return self._advance(count)
            return self._dict_indices(body, pos, count, remaining, at)
        if encoding == Encoding.RLE and self.physical == Type.BOOLEAN:
            vals, _ = decode_rle_booleans(body, pos, count, at)
            return V.FixedValues(vals)
        if encoding in _DELTA:
            vals, _ = decode_delta(encoding, self.physical, body, pos, remaining, count,
                                   self.type_length, at)
            return _wrap(vals)
        if encoding == Encoding.BYTE_STREAM_SPLIT:
            vals, _ = decode_bss(self.physical, body, pos, count, self.type_length, at)
            return V.FixedValues(vals)
        raise UnsupportedFeatureError(f"data page at offset {page.offset} in {self.where} uses "
                                      f"encoding {_enc_name(encoding)} for "
                                      f"{self.physical.name} values")

    def _keep(self, pieces, vals, chunk_bytes):
        """Add a page's values to the chunk's: byte arrays go into the shared buffers
        from the first page that must be materialised on (earlier pages in order)."""
        if self._binary is None:
            if not isinstance(vals, _PlainBytes):
                pieces.append(vals)
                return pieces
            self._binary = _BinaryOutput(self.num_values, chunk_bytes, vals, self.where)
            for p in pieces:
                self._binary.add(self._piece(p), self.dictionary)
            pieces = []
        self._binary.add(self._piece(vals), self.dictionary)
        return pieces

    def _dict_indices(self, body, pos, count, remaining, at):
        """Decode a page's dictionary indices (checked against the dictionary's size)
        into the chunk's index buffer."""
        if self._indices is None:
            self._indices = np.empty(self.num_values, np.int32)
        start = self._indices_pos
        decode_dict_indices(body, pos, remaining, count, self._indices[start:start + count],
                            len(self.dictionary), at)
        self._indices_pos += count
        return _IndexSpan(start, start + count)

    def _piece(self, p):
        """A page's values as a values.* object (spans become views of the buffers)."""
        if isinstance(p, _Span):
            return V.FixedValues(self._fixed[p.start:p.stop])
        if isinstance(p, _IndexSpan):
            return V.DictIndices(self._indices[p.start:p.stop])
        return p

    def _copy_plain(self, body, pos, count, page):
        """PLAIN fixed-width values are the little-endian array itself: copy them once,
        straight into the chunk's output buffer."""
        dtype = _COPYABLE[self.physical]
        need = count * dtype.itemsize
        if need > len(body) - pos:
            raise EncodingError(f"PLAIN values at offset {page.payload_offset + pos} in "
                                f"{self.where}: {count} values of {dtype.itemsize} bytes need "
                                f"{need} bytes, {len(body) - pos} remain")
        self._output(count)[:] = np.frombuffer(body, dtype, count, pos)
        return self._advance(count)

    def _output(self, count):
        """The next ``count`` slots of the chunk's preallocated fixed-width output."""
        if self._fixed is None:
            self._fixed = np.empty(self.num_values, _COPYABLE[self.physical])
        return self._fixed[self._fixed_pos:self._fixed_pos + count]

    def _advance(self, count):
        start = self._fixed_pos
        self._fixed_pos += count
        return _Span(start, start + count)

    def _check_count(self, count, nbytes, page):
        # Every non-boolean value takes at least one byte (BYTE_ARRAY: its 4-byte length),
        # so a count beyond the bytes is corrupt -- refuse before allocating for it.
        minimum = 4 if self.physical == Type.BYTE_ARRAY else 1
        if self.physical == Type.BOOLEAN:
            ok = count <= nbytes * 8
        else:
            ok = count * minimum <= nbytes
        if not ok:
            raise CorruptFileError(f"page at offset {page.offset} in {self.where} claims "
                                   f"{count} values in {nbytes} bytes")


@dataclass(frozen=True)
class _PlainBytes:
    """A page's PLAIN byte arrays, not yet decoded: ``count`` values at ``body[pos:]``
    (file offset ``at``). Valid until the next page reuses the decompression buffer."""
    body: object
    pos: int
    count: int
    at: int


class _BinaryOutput:
    """A chunk's byte-array values decoded page after page into one offsets/data pair.

    The data buffer is sized from the first PLAIN page (its bytes per value times
    the chunk's values, within a multiple of the chunk's stored size) and grows by
    half when a page needs more; it is trimmed in place at the end.
    """

    def __init__(self, num_values, chunk_bytes, first_page, where):
        self.offsets = np.empty(num_values + 1, np.int64)
        self.offsets[0] = 0
        p = first_page
        per_value = max(len(p.body) - p.pos - 4 * p.count, 0) / max(p.count, 1)
        guess = int(per_value * num_values * 1.05) + 64
        self.data = np.empty(min(guess, 8 * chunk_bytes + 64), np.uint8)
        self.count = 0
        self.end = 0
        self.where = where

    def add(self, piece, dictionary):
        if isinstance(piece, _PlainBytes):
            self._plain(piece)
        elif isinstance(piece, V.DictIndices):
            self._take(dictionary, piece.indices)
        else:                                   # BinaryValues of another encoding
            self._take(piece, np.arange(len(piece), dtype=np.int32))

    def _plain(self, p):
        while True:
            used, end = decode_byte_array_into(p.body, p.pos, p.count, self.offsets, self.count,
                                               self.data, self.end, p.at)
            if used >= 0:
                break
            self._grow(end)
        self.count += p.count
        self.end = end

    def _take(self, dictionary, indices):
        try:
            while True:
                fits, end = take_byte_array_into(
                    np.ascontiguousarray(dictionary.offsets, np.int64),
                    np.ascontiguousarray(dictionary.data, np.uint8), indices, self.offsets,
                    self.count, self.data, self.end)
                if fits:
                    break
                self._grow(end)
        except EncodingError as exc:
            raise CorruptFileError(f"{exc} (dictionary of {len(dictionary)} values in "
                                   f"{self.where})") from None
        self.count += len(indices)
        self.end = end

    def _grow(self, need):
        bigger = np.empty(max(need, len(self.data) + len(self.data) // 2), np.uint8)
        bigger[:self.end] = self.data[:self.end]
        self.data = bigger

    def values(self):
        # Nothing else refers to these arrays yet: shrinking them reallocates in place.
        self.offsets.resize(self.count + 1, refcheck=False)
        self.data.resize(self.end, refcheck=False)
        return V.BinaryValues(self.offsets, self.data)


def _wrap(values):
    if isinstance(values, tuple):
        return V.BinaryValues(*values)
    return V.FixedValues(values)


def _enc_name(encoding):
    try:
        return Encoding(encoding).name
    except ValueError:
        return f"UNKNOWN({encoding})"
