"""BYTE_STREAM_SPLIT for the fixed-width physical types.

The layout is described in ``pqkit._native.bss``; the kernels only move
bytes. Decoded values use the layout of :mod:`pqkit.columnar.table`: numpy ``<i4``,
``<i8``, ``<f4``, ``<f8`` for INT32, INT64, FLOAT, DOUBLE, and a uint8 array of
shape (n, type_length) for FIXED_LEN_BYTE_ARRAY (float16 is FLBA of length 2).
For example ``decode_bss(Type.INT32, b"\\x01\\x02\\x00\\x00\\x00\\x00\\x00\\x00", 0, 2)``
gives ``(array([1, 2], dtype=int32), 8)``.
"""
from __future__ import annotations

import numpy as np

from pqkit._native.bss import decode_byte_stream_split, encode_byte_stream_split
from pqkit.encodings.physical import NUMERIC, fixed_width
from pqkit.errors import EncodingError
from pqkit.format import Type

__all__ = ["decode_bss", "encode_bss", "decode_byte_stream_split", "encode_byte_stream_split"]



def _width(physical_type, type_length):
    if physical_type not in NUMERIC and physical_type != Type.FIXED_LEN_BYTE_ARRAY:
        raise EncodingError(f"BYTE_STREAM_SPLIT cannot encode {physical_type.name} values")
    return fixed_width(physical_type, type_length)


def decode_bss(physical_type: int, data, offset: int, count: int,
               type_length: int | None = None, base_offset: int = 0):
    """Decode ``count`` BYTE_STREAM_SPLIT values starting at ``data[offset]``.

    Parameters
    ----------
    physical_type : pqkit.format.Type
    data, offset : bytes-like, int
    count : int
        Values to decode (the page's non-null values).
    type_length : int, optional
        Required for FIXED_LEN_BYTE_ARRAY.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    (numpy.ndarray, int)
        The values and the bytes consumed (``count * width``).
    """
    physical_type = Type(physical_type)
    width = _width(physical_type, type_length)
    raw = decode_byte_stream_split(data, offset, count, width, base_offset)
    if physical_type in NUMERIC:
        return raw.view(NUMERIC[physical_type]), count * width
    return raw.reshape(count, width), count * width


def encode_bss(physical_type: int, values, type_length: int | None = None) -> bytes:
    """Encode values of one physical type as BYTE_STREAM_SPLIT.

    ``values`` is a numeric array, or for FIXED_LEN_BYTE_ARRAY a uint8 array
    of shape (n, type_length) (or any buffer of n * type_length bytes).
    """
    physical_type = Type(physical_type)
    width = _width(physical_type, type_length)
    if physical_type in NUMERIC:
        raw = np.ascontiguousarray(values, dtype=NUMERIC[physical_type]).view(np.uint8)
    else:
        raw = np.ascontiguousarray(values).view(np.uint8)
        if raw.ndim > 1 and raw.shape[-1] != width:
            raise ValueError(f"FIXED_LEN_BYTE_ARRAY rows of {raw.shape[-1]} bytes, "
                             f"expected {width}")
    return encode_byte_stream_split(raw.reshape(-1), width)
