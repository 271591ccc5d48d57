"""RLE/bit-packed hybrid and legacy BIT_PACKED levels: allocation and dispatch.

The layouts are described in ``pqkit._native.bitpack``. In short, for bit
width 3 the values ``[5] * 8 + [1, 2, 3]`` encode as ``10 05`` (an RLE run of
8 fives) then ``03 d1 00 00`` (one bit-packed group of 8, padded with zeros).

Where the hybrid appears:

====================  =================  ==========================
data                  page               framing
====================  =================  ==========================
rep / def levels      v1                 4-byte LE length prefix
rep / def levels      v2                 none (lengths in header)
dictionary indices    v1 and v2          1 bit-width byte, no length
booleans (RLE)        v1 and v2          4-byte LE length prefix
====================  =================  ==========================

Legacy BIT_PACKED (encoding 4, levels only) has no header: ceil(n * w / 8)
bytes holding the values MSB-first, i.e. value i is bits [i*w, i*w + w) of the
stream read from the most significant bit of byte 0 onwards. Values 0..7 at
width 3 are ``0x05 0x39 0x77``. It is rare and decoded here with numpy.
"""
from __future__ import annotations

import numpy as np

from pqkit._native.bitpack import (
    decode_dict_indices,
    decode_hybrid,
    decode_hybrid_prefixed,
    unpack_bits,
)
from pqkit._native.hybrid_encode import encode_dictionary_indices as _encode_indices
from pqkit._native.hybrid_encode import encode_hybrid, pack_bits
from pqkit.errors import EncodingError

__all__ = [
    "bit_width_of", "pack_bits", "unpack_bits", "decode_hybrid", "decode_hybrid_prefixed",
    "decode_dict_indices", "encode_hybrid", "decode_levels", "encode_levels",
    "decode_levels_bit_packed", "encode_levels_bit_packed", "decode_rle_booleans",
    "encode_rle_booleans", "decode_dictionary_indices", "encode_dictionary_indices",
]


def bit_width_of(max_value: int) -> int:
    """Bits needed to store every value in ``0..max_value`` (0 for 0)."""
    if max_value < 0:
        raise ValueError(f"bit width of negative value {max_value}")
    return int(max_value).bit_length()


def decode_levels(data, offset: int, max_level: int, count: int, *, prefixed: bool = True,
                  length: int = -1, base_offset: int = 0) -> tuple[np.ndarray, int]:
    """Decode ``count`` RLE-hybrid repetition or definition levels.

    Parameters
    ----------
    data : bytes-like
        Buffer holding the levels at ``data[offset]``.
    max_level : int
        The column's max level; the bit width is ``bit_width_of(max_level)``.
    count : int
        Levels to decode (the page's ``num_values``).
    prefixed : bool
        True for data page v1 (4-byte length prefix); False for v2, where
        ``length`` gives the section size (-1: the rest of ``data``).
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    (numpy.ndarray of int16, int)
        The levels and the bytes consumed (v1: including the prefix).
    """
    out = np.empty(count, dtype=np.int16)
    width = bit_width_of(max_level)
    if prefixed:
        used = decode_hybrid_prefixed(data, offset, width, count, out, base_offset)
    else:
        if length < 0:
            length = len(data) - offset
        decode_hybrid(data, offset, length, width, count, out, base_offset)
        used = length
    return out, used


def decode_levels_bit_packed(data, offset: int, max_level: int, count: int,
                             base_offset: int = 0) -> tuple[np.ndarray, int]:
    """Decode ``count`` legacy BIT_PACKED (MSB-first) levels.

    Returns
    -------
    (numpy.ndarray of int16, int)
        The levels and the bytes consumed, ``ceil(count * w / 8)``.
    """
    width = bit_width_of(max_level)
    if width > 16 or count < 0:
        raise ValueError(f"BIT_PACKED levels: max level {max_level}, count {count}")
    nbytes = (count * width + 7) // 8
    avail = memoryview(data).nbytes - offset
    if offset < 0 or nbytes > avail:
        raise EncodingError(f"BIT_PACKED levels at offset {base_offset}: {count} values of "
                            f"{width} bits need {nbytes} bytes, {max(avail, 0)} remain")
    if width == 0:
        return np.zeros(count, np.int16), 0
    raw = np.frombuffer(data, np.uint8, nbytes, offset)
    bits = np.unpackbits(raw, bitorder="big")[:count * width].reshape(count, width)
    weights = (1 << np.arange(width - 1, -1, -1)).astype(np.int32)
    return (bits @ weights).astype(np.int16), nbytes


def encode_levels_bit_packed(levels, max_level: int) -> bytes:
    """Encode levels as legacy BIT_PACKED (MSB-first, ``ceil(n * w / 8)`` bytes)."""
    width = bit_width_of(max_level)
    arr = np.asarray(levels, dtype=np.int64).reshape(-1)
    if arr.size and (arr.min() < 0 or arr.max() > max_level):
        raise ValueError(f"levels outside 0..{max_level}")
    shifts = np.arange(width - 1, -1, -1)
    bits = ((arr[:, None] >> shifts) & 1).astype(np.uint8)
    return np.packbits(bits.reshape(-1), bitorder="big").tobytes()


def encode_levels(levels, max_level: int, *, prefixed: bool = True) -> bytes:
    """Encode levels with the hybrid at the width of ``max_level`` (v1: ``prefixed``)."""
    return encode_hybrid(np.asarray(levels), bit_width_of(max_level), prefixed)


def decode_rle_booleans(data, offset: int, count: int,
                        base_offset: int = 0) -> tuple[np.ndarray, int]:
    """Decode ``count`` RLE-encoded booleans (width 1, 4-byte length prefix).

    Returns
    -------
    (numpy.ndarray of bool, int)
        The values and the bytes consumed, prefix included.
    """
    out = np.empty(count, dtype=np.uint8)
    used = decode_hybrid_prefixed(data, offset, 1, count, out, base_offset)
    return out.view(np.bool_), used


def encode_rle_booleans(values) -> bytes:
    """Encode booleans as RLE (width 1, with the 4-byte length prefix)."""
    return encode_hybrid(np.asarray(values, dtype=np.bool_), 1, True)


def decode_dictionary_indices(data, offset: int, count: int, dict_len: int | None = None,
                              *, length: int = -1,
                              base_offset: int = 0) -> tuple[np.ndarray, int]:
    """Decode an RLE_DICTIONARY / PLAIN_DICTIONARY data page's indices.

    Parameters
    ----------
    data, offset : bytes-like, int
        The bit-width byte is ``data[offset]``.
    count : int
        Indices to decode (the page's non-null values).
    dict_len : int, optional
        Dictionary size; when given, every index must be below it.
    length : int
        Bytes of the section, -1 for the rest of ``data``.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    (numpy.ndarray of int32, int)
        The indices and the bytes consumed.
    """
    out = np.empty(count, dtype=np.int32)
    used, _ = decode_dict_indices(data, offset, length, count, out,
                                  -1 if dict_len is None else dict_len, base_offset)
    return out, used


def encode_dictionary_indices(indices, dict_len: int) -> bytes:
    """Encode a dictionary-index page body: bit-width byte, then hybrid runs.

    The width is that of ``dict_len - 1``, so every index of the dictionary fits;
    an index outside the dictionary raises ValueError. int32 indices (the
    writer's) are encoded without a copy.
    """
    return _encode_indices(indices, max(int(dict_len), 0))
