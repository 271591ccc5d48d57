"""PLAIN encoding for every physical type, and the dictionary gathers.

The byte layout is described in ``pqkit._native.plain``. Decoded values use
the in-memory layout of :mod:`pqkit.columnar.table`:

=====================  =============================================
physical type          decoded as
=====================  =============================================
BOOLEAN                numpy bool
INT32 / INT64          numpy ``<i4`` / ``<i8``
FLOAT / DOUBLE         numpy ``<f4`` / ``<f8``
INT96                  uint8 array of shape (n, 12)
FIXED_LEN_BYTE_ARRAY   uint8 array of shape (n, type_length)
BYTE_ARRAY             (int64 offsets[n + 1], uint8 data)
=====================  =============================================

For example ``decode_plain(Type.INT32, b"\\x01\\x00\\x00\\x00\\xff\\xff\\xff\\xff", 0, 2)``
gives ``(array([1, -1], dtype=int32), 8)``.
"""
from __future__ import annotations

import numpy as np

from pqkit._native.plain import (
    decode_booleans,
    decode_byte_array,
    decode_fixed,
    encode_booleans,
    encode_byte_array,
)
from pqkit._native.take import take_byte_array, take_fixed
from pqkit.encodings.physical import NUMERIC, fixed_width
from pqkit.format import Type

__all__ = [
    "decode_plain", "encode_plain", "fixed_width", "take_fixed", "take_byte_array",
    "decode_booleans", "decode_byte_array", "decode_fixed", "encode_booleans",
    "encode_byte_array",
]

def decode_plain(physical_type: int, data, offset: int, count: int,
                 type_length: int | None = None, base_offset: int = 0):
    """Decode ``count`` PLAIN values of one physical type.

    Parameters
    ----------
    physical_type : pqkit.format.Type
    data, offset : bytes-like, int
        The values start at ``data[offset]``.
    count : int
        Values to decode (the page's non-null values).
    type_length : int, optional
        Required for FIXED_LEN_BYTE_ARRAY.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    (values, int)
        The values (see the module table; BYTE_ARRAY gives an
        ``(offsets, data)`` pair) and the bytes consumed.
    """
    physical_type = Type(physical_type)
    if physical_type == Type.BOOLEAN:
        return decode_booleans(data, offset, count, base_offset)
    if physical_type == Type.BYTE_ARRAY:
        offsets, values, used = decode_byte_array(data, offset, count, base_offset)
        return (offsets, values), used
    width = fixed_width(physical_type, type_length)
    raw, used = decode_fixed(data, offset, count, width, base_offset)
    if physical_type in NUMERIC:
        return raw.view(NUMERIC[physical_type]), used
    return raw.reshape(count, width), used


def encode_plain(physical_type: int, values, type_length: int | None = None) -> bytes:
    """Encode values of one physical type as PLAIN.

    ``values`` follows the module table; BYTE_ARRAY takes an
    ``(offsets, data)`` pair, INT96 and FIXED_LEN_BYTE_ARRAY a uint8 array of
    shape (n, width) (or any buffer of n * width bytes).
    """
    physical_type = Type(physical_type)
    if physical_type == Type.BOOLEAN:
        return encode_booleans(values)
    if physical_type == Type.BYTE_ARRAY:
        offsets, data = values
        return encode_byte_array(np.ascontiguousarray(offsets, dtype=np.int64),
                                 np.ascontiguousarray(data).view(np.uint8).reshape(-1))
    width = fixed_width(physical_type, type_length)
    if physical_type in NUMERIC:
        return np.ascontiguousarray(values, dtype=NUMERIC[physical_type]).tobytes()
    raw = np.ascontiguousarray(values).view(np.uint8)
    if raw.ndim > 1 and raw.shape[-1] != width:
        raise ValueError(f"{physical_type.name} rows of {raw.shape[-1]} bytes, "
                         f"expected {width}")
    if raw.size % width:
        raise ValueError(f"{raw.size} bytes are not a whole number of {width}-byte values")
    return raw.tobytes()
