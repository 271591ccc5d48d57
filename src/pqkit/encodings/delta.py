"""DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.

The byte layouts, with a worked example, are described in
``pqkit._native.delta``. Decoded values use the layout of :mod:`pqkit.columnar.table`:

==========================  ====================  ==============================
encoding                    physical type         decoded as
==========================  ====================  ==============================
DELTA_BINARY_PACKED         INT32 / INT64         numpy ``<i4`` / ``<i8``
DELTA_LENGTH_BYTE_ARRAY     BYTE_ARRAY            (int64 offsets[n + 1], uint8 data)
DELTA_BYTE_ARRAY            BYTE_ARRAY            (int64 offsets[n + 1], uint8 data)
DELTA_BYTE_ARRAY            FIXED_LEN_BYTE_ARRAY  uint8 array of shape (n, type_length)
==========================  ====================  ==============================

Every decoder returns the bytes it consumed: DELTA_LENGTH_BYTE_ARRAY and
DELTA_BYTE_ARRAY data follow a DELTA_BINARY_PACKED run immediately. For
example ``decode_delta(Encoding.DELTA_BINARY_PACKED, Type.INT32,
bytes.fromhex("8001040205" "02" "00000000"), 0, 10, 2)`` gives
``(array([-3, -2], dtype=int32), 10)``.
"""
from __future__ import annotations

import numpy as np

from pqkit._native.delta import (
    decode_delta_binary_packed,
    decode_delta_byte_array,
    decode_delta_length_byte_array,
)
from pqkit._native.delta_encode import (
    encode_delta_binary_packed,
    encode_delta_byte_array,
    encode_delta_length_byte_array,
)
from pqkit.errors import EncodingError
from pqkit.format import Encoding, Type

#: Block layout (block size, miniblocks) that Arrow C++ writes per physical
#: type; parquet-java and our encoder's default use (128, 4) for both.
ARROW_BLOCK_LAYOUT = {"INT32": (128, 4), "INT64": (256, 4)}

__all__ = [
    "ARROW_BLOCK_LAYOUT", "decode_delta", "encode_delta",
    "decode_delta_binary_packed", "decode_delta_byte_array", "decode_delta_length_byte_array",
    "encode_delta_binary_packed", "encode_delta_byte_array", "encode_delta_length_byte_array",
]

_SUPPORTED = {
    Encoding.DELTA_BINARY_PACKED: {Type.INT32, Type.INT64},
    Encoding.DELTA_LENGTH_BYTE_ARRAY: {Type.BYTE_ARRAY},
    Encoding.DELTA_BYTE_ARRAY: {Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY},
}


def _check_pair(encoding, physical_type):
    encoding, physical_type = Encoding(encoding), Type(physical_type)
    if physical_type not in _SUPPORTED.get(encoding, ()):
        raise EncodingError(f"{encoding.name} cannot encode {physical_type.name} values")
    return encoding, physical_type


def decode_delta(encoding: int, physical_type: int, data, offset: int, length: int, count: int,
                 type_length: int | None = None, base_offset: int = 0, previous=None):
    """Decode exactly ``count`` delta-encoded values from ``data[offset:offset + length]``.

    Parameters
    ----------
    encoding : pqkit.format.Encoding
    physical_type : pqkit.format.Type
    data, offset, length
        The encoded region; the values may end before it does.
    count : int
        Values the page holds (its non-null values); a run declaring another
        count is an error.
    type_length : int, optional
        Required for FIXED_LEN_BYTE_ARRAY; every value must have this length.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.
    previous : bytes-like, optional
        DELTA_BYTE_ARRAY only: the value before the first one, for files from
        parquet-mr < 1.8.0 (PARQUET-246).

    Returns
    -------
    (values, int)
        The values (see the module table) and the bytes consumed.
    """
    encoding, physical_type = _check_pair(encoding, physical_type)
    if encoding == Encoding.DELTA_BINARY_PACKED:
        values, used = decode_delta_binary_packed(data, offset, length,
                                                  physical_type == Type.INT64, count, base_offset)
        n = len(values)
    elif encoding == Encoding.DELTA_LENGTH_BYTE_ARRAY:
        offsets, raw, used = decode_delta_length_byte_array(data, offset, length, count,
                                                            base_offset)
        values, n = (offsets, raw), len(offsets) - 1
    else:
        offsets, raw, used = decode_delta_byte_array(data, offset, length, count, base_offset,
                                                     previous)
        values, n = (offsets, raw), len(offsets) - 1
        if physical_type == Type.FIXED_LEN_BYTE_ARRAY:
            values = _fixed_rows(offsets, raw, type_length, base_offset)
    if n != count:
        raise EncodingError(f"{encoding.name} data at offset {base_offset} holds {n} values, "
                            f"expected {count}")
    return values, used


def _fixed_rows(offsets, raw, type_length, base_offset):
    if type_length is None or type_length <= 0:
        raise ValueError(f"FIXED_LEN_BYTE_ARRAY needs a positive type_length, got {type_length}")
    bad = np.flatnonzero(np.diff(offsets) != type_length)
    if len(bad):
        i = int(bad[0])
        raise EncodingError(f"DELTA_BYTE_ARRAY value {i} at offset {base_offset} has "
                            f"{offsets[i + 1] - offsets[i]} bytes, expected {type_length}")
    return raw.reshape(len(offsets) - 1, type_length)


def encode_delta(encoding: int, physical_type: int, values, type_length: int | None = None,
                 block_layout: tuple[int, int] = (128, 4)) -> bytes:
    """Encode values of one physical type with a delta encoding.

    ``values`` follows the module table: an integer array for INT32/INT64, an
    ``(offsets, data)`` pair for BYTE_ARRAY, a uint8 array of shape
    (n, type_length) for FIXED_LEN_BYTE_ARRAY. ``block_layout`` is the
    DELTA_BINARY_PACKED (block size, miniblocks) of integer columns.
    """
    encoding, physical_type = _check_pair(encoding, physical_type)
    if encoding == Encoding.DELTA_BINARY_PACKED:
        dtype = np.int32 if physical_type == Type.INT32 else np.int64
        return encode_delta_binary_packed(np.ascontiguousarray(values, dtype=dtype),
                                          *block_layout)
    if physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        raw = np.ascontiguousarray(values).view(np.uint8)
        width = raw.shape[-1] if raw.ndim > 1 else type_length
        if not width or (type_length and width != type_length) or raw.size % width:
            raise ValueError(f"FIXED_LEN_BYTE_ARRAY values of shape {raw.shape} do not fit "
                             f"type_length {type_length}")
        offsets = np.arange(0, raw.size + 1, width, dtype=np.int64)
        return encode_delta_byte_array(offsets, raw.reshape(-1))
    offsets, data = values
    data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
    encode = (encode_delta_length_byte_array if encoding == Encoding.DELTA_LENGTH_BYTE_ARRAY
              else encode_delta_byte_array)
    return encode(np.ascontiguousarray(offsets, dtype=np.int64), data)
