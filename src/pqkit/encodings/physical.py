"""Parquet physical types in memory: the one table every encoder and decoder uses.

================  ==========================  =====================
physical type     numpy layout                bytes per value
================  ==========================  =====================
BOOLEAN           bool                        (bit-packed on disk)
INT32 / INT64     ``<i4`` / ``<i8``           4 / 8
FLOAT / DOUBLE    ``<f4`` / ``<f8``           4 / 8
INT96             uint8, shape (n, 12)        12
FIXED_LEN_BYTE_   uint8, shape (n, length)    ``type_length``
ARRAY
BYTE_ARRAY        int64 offsets + uint8 data  (variable)
================  ==========================  =====================

The four numeric types are *little-endian numbers*: their PLAIN bytes are the
numpy array itself (``NUMERIC``), so decoders copy and encoders view them, and
one value's bytes unpack with :func:`struct_format` (``"<i"``, or ``"<I"`` for
an INT32 read as unsigned).
"""
import numpy as np

from pqkit.format import Type

__all__ = ["NUMERIC", "PLAIN_WIDTH", "numpy_dtype", "fixed_width", "struct_format",
           "empty_array"]

NUMERIC = {
    Type.INT32: np.dtype("<i4"),
    Type.INT64: np.dtype("<i8"),
    Type.FLOAT: np.dtype("<f4"),
    Type.DOUBLE: np.dtype("<f8"),
}
_BOOL = np.dtype(np.bool_)
# Bytes of one PLAIN value of each type whose width the type alone fixes.
PLAIN_WIDTH = {**{t: d.itemsize for t, d in NUMERIC.items()}, Type.INT96: 12}
_STRUCT = {Type.INT32: "i", Type.INT64: "q", Type.FLOAT: "f", Type.DOUBLE: "d"}


def numpy_dtype(physical_type):
    """The numpy dtype of a BOOLEAN or numeric physical type's values, else None."""
    if physical_type == Type.BOOLEAN:
        return _BOOL
    return NUMERIC.get(physical_type)


def fixed_width(physical_type, type_length=None):
    """Bytes per PLAIN value of a fixed-width physical type (ValueError for the others)."""
    physical_type = Type(physical_type)
    if physical_type in PLAIN_WIDTH:
        return PLAIN_WIDTH[physical_type]
    if physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        if type_length is None or type_length <= 0:
            raise ValueError(f"FIXED_LEN_BYTE_ARRAY needs a positive type_length, "
                             f"got {type_length}")
        return type_length
    raise ValueError(f"{physical_type.name} has no fixed width")


def struct_format(physical_type, unsigned=False):
    """The little-endian ``struct`` format of one numeric value (integers as unsigned when
    ``unsigned``), or None for the other physical types."""
    code = _STRUCT.get(physical_type)
    if code is None:
        return None
    return "<" + (code.upper() if unsigned and physical_type in (Type.INT32, Type.INT64)
                  else code)


def empty_array(physical_type, type_length=None):
    """A zero-length array in the layout of a fixed-width physical type."""
    dtype = numpy_dtype(physical_type)
    if dtype is not None:
        return np.zeros(0, dtype)
    width = PLAIN_WIDTH[Type.INT96] if physical_type == Type.INT96 else (type_length or 0)
    return np.zeros((0, width), np.uint8)
