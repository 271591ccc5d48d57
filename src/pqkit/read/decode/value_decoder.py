"""The values of a column chunk, decoded page by page into the chunk's buffers.

A :class:`ValueDecoder` takes the dictionary page and, for each data page, the
encoded non-null values that follow the levels. Fixed-width numbers decode
straight into one preallocated array (dictionary-encoded numbers are
expanded there too); byte arrays of dictionary-encoded pages stay indices, so
the chunk's strings are never copied, until a PLAIN page forces them into one
growing offsets/data pair. :meth:`ValueDecoder.result` gives the values in
the shapes of :mod:`pqkit.read.decode.values`.
"""
from dataclasses import dataclass

import numpy as np

from pqkit._native.bitpack import decode_dict_indices
from pqkit._native.dict_gather import decode_dict_values
from pqkit._native.plain import decode_byte_array_into
from pqkit._native.take import take_byte_array_into
from pqkit._native.utf8 import first_invalid_utf8
from pqkit.encodings.bss import decode_bss
from pqkit.encodings.delta import decode_delta
from pqkit.encodings.physical import NUMERIC, empty_array
from pqkit.encodings.plain import decode_plain
from pqkit.encodings.rle import decode_rle_booleans
from pqkit.errors import CorruptFileError, EncodingError, UnsupportedFeatureError
from pqkit.format import Encoding, Type
from pqkit.read.decode import values as V
from pqkit.read.decode.level_decoder import encoding_name

__all__ = ["ValueDecoder", "empty_values"]

_DELTA = (Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_LENGTH_BYTE_ARRAY,
          Encoding.DELTA_BYTE_ARRAY)
_DICT_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


def empty_values(physical_type, type_length=None):
    """A zero-length FixedValues/BinaryValues in the physical layout of a type."""
    if physical_type == Type.BYTE_ARRAY:
        return V.BinaryValues(np.zeros(1, np.int64), np.zeros(0, np.uint8))
    return V.FixedValues(empty_array(physical_type, type_length))


@dataclass(frozen=True)
class _Span:
    """Values [start, stop) of the decoder's preallocated fixed-width output."""
    start: int
    stop: int


@dataclass(frozen=True)
class _IndexSpan:
    """Entries [start, stop) of the decoder's dictionary index buffer."""
    start: int
    stop: int


@dataclass(frozen=True)
class _PlainBytes:
    """A page's PLAIN byte arrays, not yet decoded: ``count`` values at ``body[pos:]``
    (file offset ``at``). Valid until the next page reuses the decompression buffer."""
    body: object
    pos: int
    count: int
    at: int


class ValueDecoder:
    """Non-null values of one column chunk.

    Parameters
    ----------
    physical : pqkit.format.Type
    type_length : int or None
        FIXED_LEN_BYTE_ARRAY width.
    num_values : int
        Level entries of the chunk: an upper bound on its values.
    chunk_bytes : int
        Stored size of the chunk (sizes the byte-array buffer).
    where : str
        Names the column and row group in errors.
    text : bool
        The values are text: byte arrays materialised page by page are checked to be
        UTF-8 as they are written (see :class:`_BinaryOutput`).
    charge : callable, optional
        ``charge(nbytes, what)`` before byte arrays are expanded from the dictionary
        (bytes the page sizes do not bound): the read's budget.
    """

    def __init__(self, physical, type_length, num_values, chunk_bytes, where, text=False,
                 charge=None):
        self.text = text
        self.charge = charge
        self.physical = physical
        self.type_length = type_length
        self.num_values = num_values
        self.chunk_bytes = chunk_bytes
        self.where = where
        self.dictionary = None
        self._pieces = []
        self._fixed = None          # preallocated output of fixed-width numbers
        self._fixed_pos = 0
        self._binary = None         # byte arrays once a page must be materialised
        self._indices = None        # dictionary indices of the chunk's pages, in order
        self._indices_pos = 0

    # -- dictionary ------------------------------------------------------------------
    def read_dictionary(self, page, decompress):
        """Decode the dictionary page ``page``; ``decompress()`` gives its body, and is
        called only once the header has been checked."""
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
                                f"uses encoding {encoding_name(enc)}; only PLAIN is valid")
        body = decompress()
        self._check_count(h.num_values, len(body), page)
        values, _ = decode_plain(self.physical, body, 0, h.num_values, self.type_length,
                                 page.payload_offset)
        self.dictionary = _wrap(values)

    # -- data pages ------------------------------------------------------------------
    def add_page(self, encoding, body, pos, count, page):
        """Decode ``count`` values encoded with ``encoding`` at ``body[pos:]``."""
        vals = self._decode(encoding, body, pos, count, page)
        self._keep(vals)

    def _decode(self, encoding, body, pos, count, page):
        at = page.payload_offset + pos
        remaining = len(body) - pos
        if encoding == Encoding.PLAIN:
            if self.physical != Type.BOOLEAN:
                self._check_count(count, remaining, page)
            if self.physical in NUMERIC:
                return self._copy_plain(body, pos, count, page)
            if self._fixed_rows():
                return self._copy_rows(body, pos, count, page)
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
            if self.physical in NUMERIC or self._fixed_rows():
                # Numbers and fixed-size rows (decimals, UUIDs) gain nothing from staying
                # encoded: the fused kernel expands the indices into the output as it
                # decodes them (each checked), so a chunk mixing dictionary and PLAIN
                # pages is never concatenated.
                decode_dict_values(body, pos, remaining, count, self.dictionary.array,
                                   self._output(count), at)
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
                                      f"encoding {encoding_name(encoding)} for "
                                      f"{self.physical.name} values")

    def _keep(self, vals):
        """Add a page's values to the chunk's: byte arrays go into the shared buffers
        from the first page that must be materialised on (earlier pages in order)."""
        if self._binary is None:
            if not isinstance(vals, _PlainBytes):
                self._pieces.append(vals)
                return
            self._binary = _BinaryOutput(self.num_values, self.chunk_bytes, vals, self.where,
                                         self.text, self.charge)
            for p in self._pieces:
                self._binary.add(self._piece(p), self.dictionary)
            self._pieces = []
        self._binary.add(self._piece(vals), self.dictionary)

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
        """PLAIN numbers are the little-endian array itself: copy them once, straight
        into the chunk's output buffer."""
        dtype = NUMERIC[self.physical]
        need = count * dtype.itemsize
        if need > len(body) - pos:
            raise EncodingError(f"PLAIN values at offset {page.payload_offset + pos} in "
                                f"{self.where}: {count} values of {dtype.itemsize} bytes need "
                                f"{need} bytes, {len(body) - pos} remain")
        self._output(count)[:] = np.frombuffer(body, dtype, count, pos)
        return self._advance(count)

    def _fixed_rows(self):
        """Whether values are FIXED_LEN_BYTE_ARRAY rows decoded into the output."""
        return self.physical == Type.FIXED_LEN_BYTE_ARRAY and bool(self.type_length)

    def _copy_rows(self, body, pos, count, page):
        """PLAIN fixed-size rows are the (count, width) byte array itself."""
        width = self.type_length
        if count * width > len(body) - pos:
            raise EncodingError(f"PLAIN values at offset {page.payload_offset + pos} in "
                                f"{self.where}: {count} values of {width} bytes need "
                                f"{count * width} bytes, {len(body) - pos} remain")
        out = self._output(count)
        out[:] = np.frombuffer(body, np.uint8, count * width, pos).reshape(count, width)
        return self._advance(count)

    def _output(self, count):
        """The next ``count`` slots of the chunk's preallocated fixed-width output."""
        if self._fixed is None:
            self._fixed = np.empty(self.num_values, NUMERIC[self.physical]) \
                if self.physical in NUMERIC else \
                np.empty((self.num_values, self.type_length), np.uint8)
        return self._fixed[self._fixed_pos:self._fixed_pos + count]

    def _advance(self, count):
        start = self._fixed_pos
        self._fixed_pos += count
        return _Span(start, start + count)

    def _check_count(self, count, nbytes, page):
        # Every non-boolean value takes at least one byte (BYTE_ARRAY: its 4-byte length),
        # so a count beyond the bytes is corrupt -- refuse before allocating for it.
        if self.physical == Type.BOOLEAN:
            ok = count <= nbytes * 8
        else:
            ok = count * (4 if self.physical == Type.BYTE_ARRAY else 1) <= nbytes
        if not ok:
            raise CorruptFileError(f"page at offset {page.offset} in {self.where} claims "
                                   f"{count} values in {nbytes} bytes")

    # -- result ----------------------------------------------------------------------
    def result(self):
        """The chunk's values: FixedValues, BinaryValues or DictionaryValues."""
        pieces = self._pieces
        if self._binary is not None:
            return self._binary.values()
        if pieces and all(isinstance(p, _Span) for p in pieces):   # spans are contiguous
            return V.FixedValues(self._fixed[:self._fixed_pos])
        if pieces and all(isinstance(p, _IndexSpan) for p in pieces):
            # Every index was checked against the dictionary while decoded; no view of
            # the buffer exists yet, so it can shrink in place.
            self._indices.resize(self._indices_pos, refcheck=False)
            return V.DictionaryValues(self._indices, self.dictionary)
        empty = empty_values(self.physical, self.type_length)
        return V.combine([self._piece(p) for p in pieces], self.dictionary, empty, self.where,
                         self.charge)


class _BinaryOutput:
    """A chunk's byte-array values decoded page after page into one offsets/data pair.

    The data buffer is sized from the first PLAIN page (its bytes per value times
    the chunk's values, within a multiple of the chunk's stored size) and grows by
    half when a page needs more; it is trimmed in place at the end. With ``text``,
    each page's values are checked to be UTF-8 right after they are written, while
    their bytes are in cache: reading them again later, for the leaf's check
    (:mod:`pqkit.read.decode.text_check`), would cost a pass over memory. A failure
    is only noted; the leaf's check then finds the value and names its row.
    """

    def __init__(self, num_values, chunk_bytes, first_page, where, text=False, charge=None):
        self.utf8_valid = text
        self.charge = charge
        self._lengths = None        # (dictionary, its value lengths) of the last expansion
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
        first = self.count
        if isinstance(piece, _PlainBytes):
            self._plain(piece)
        elif isinstance(piece, V.DictIndices):
            self._take(dictionary, piece.indices)
        else:                                   # BinaryValues of another encoding
            self._take(piece, np.arange(len(piece), dtype=np.int32))
        if self.utf8_valid:
            self.utf8_valid = first_invalid_utf8(self.offsets[first:self.count + 1],
                                                 self.data) < 0

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
        if self.charge is not None and isinstance(dictionary, V.BinaryValues):
            if self._lengths is None or self._lengths[0] is not dictionary:
                self._lengths = (dictionary, V.value_lengths(dictionary))
            V.charge_expansion(self.charge, dictionary, indices, self._lengths[1])
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
        return V.BinaryValues(self.offsets, self.data, self.utf8_valid)


def _wrap(values):
    if isinstance(values, tuple):
        return V.BinaryValues(*values)
    return V.FixedValues(values)
