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
from .encodings.rle import (decode_dictionary_indices, decode_levels, decode_levels_bit_packed,
                            decode_rle_booleans)
from .errors import CorruptFileError, EncodingError, UnsupportedFeatureError
from .format import Encoding, PageType, Type
from .page import PageWalker, decompress_page, split_data_page

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
        if self.num_values is None or self.num_values < 0:
            raise CorruptFileError(f"{self.where}: invalid num_values {self.num_values}")
        defs, reps, pieces, entries = [], [], [], 0
        walker = PageWalker(data, offset, self.num_values, self.where, self.verify)
        for page in walker:
            ptype = page.type
            if ptype == PageType.DICTIONARY_PAGE:
                self._read_dictionary(page)
            elif ptype in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2):
                d, r, vals, n = self._read_data_page(page)
                entries += n
                if d is not None:
                    defs.append(d)
                if r is not None:
                    reps.append(r)
                if vals is not None:
                    pieces.append(vals)
            # INDEX_PAGE and unknown page types carry nothing a reader needs.
        if entries != self.num_values:
            raise CorruptFileError(f"{self.where}: pages hold {entries} values, the column "
                                   f"chunk declares {self.num_values}")
        def_levels = _join(defs, np.int16) if self.max_def else None
        rep_levels = _join(reps, np.int16) if self.max_rep else None
        values = V.combine(pieces, self.dictionary,
                           empty_values(self.physical, self.type_length), self.where)
        return ChunkData(def_levels, rep_levels, entries, values)

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
        body = decompress_page(page, self.codec, self.where)
        self._check_count(h.num_values, len(body), page)
        values, _ = decode_plain(self.physical, body, 0, h.num_values, self.type_length,
                                 page.payload_offset)
        self.dictionary = _wrap(values)

    # -- data pages ------------------------------------------------------------------
    def _read_data_page(self, page):
        dp = split_data_page(page, self.codec, self.where, self.max_rep, self.max_def)
        n = dp.num_values
        at = page.payload_offset
        if dp.v2:
            reps = self._levels_v2(dp.rep_levels, self.max_rep, n, at) if self.max_rep else None
            defs = self._levels_v2(dp.def_levels, self.max_def, n,
                                   at + len(dp.rep_levels)) if self.max_def else None
            body, pos = dp.values, 0
        else:
            body, pos = dp.values, 0
            reps = defs = None
            if self.max_rep:
                reps, used = self._levels_v1(body, pos, dp.rep_encoding, self.max_rep, n, at)
                pos += used
            if self.max_def:
                defs, used = self._levels_v1(body, pos, dp.def_encoding, self.max_def, n,
                                             at + pos)
                pos += used
        if reps is not None and n and reps[0] != 0:
            raise EncodingError(f"data page at offset {page.offset} in {self.where} starts "
                                f"with repetition level {int(reps[0])}, not a new record")
        present = n if defs is None else int(np.count_nonzero(defs == self.max_def))
        vals = self._values(dp.encoding, body, pos, present, page) if present else None
        return defs, reps, vals, n

    def _levels_v1(self, body, pos, encoding, max_level, n, at):
        if encoding == Encoding.BIT_PACKED:
            return decode_levels_bit_packed(body, pos, max_level, n, at)
        if encoding not in (Encoding.RLE, None):
            raise EncodingError(f"levels at offset {at} in {self.where} use encoding "
                                f"{_enc_name(encoding)}; expected RLE or BIT_PACKED")
        return decode_levels(body, pos, max_level, n, prefixed=True, base_offset=at)

    def _levels_v2(self, raw, max_level, n, at):
        levels, _ = decode_levels(raw, 0, max_level, n, prefixed=False, length=len(raw),
                                  base_offset=at)
        return levels

    def _values(self, encoding, body, pos, count, page):
        at = page.payload_offset + pos
        remaining = len(body) - pos
        if encoding == Encoding.PLAIN:
            if self.physical != Type.BOOLEAN:
                self._check_count(count, remaining, page)
            vals, _ = decode_plain(self.physical, body, pos, count, self.type_length, at)
            return _wrap(vals)
        if encoding in _DICT_ENCODINGS:
            if self.dictionary is None:
                raise CorruptFileError(f"dictionary-encoded page at offset {page.offset} in "
                                       f"{self.where} but the chunk has no dictionary page")
            if remaining <= 0:
                raise EncodingError(f"dictionary-encoded page at offset {page.offset} in "
                                    f"{self.where} has no index data for {count} values")
            idx, _ = decode_dictionary_indices(body, pos, count, len(self.dictionary),
                                               length=remaining, base_offset=at)
            return V.DictIndices(idx)
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


def _wrap(values):
    if isinstance(values, tuple):
        return V.BinaryValues(*values)
    return V.FixedValues(values)


def _join(arrays, dtype):
    if not arrays:
        return np.zeros(0, dtype)
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _enc_name(encoding):
    try:
        return Encoding(encoding).name
    except ValueError:
        return f"UNKNOWN({encoding})"
