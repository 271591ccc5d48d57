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
numpy array itself (``NUMERIC``), so decoders copy and encoders view them.
"""
import numpy as np

from pqkit.format import Type

__all__ = ["NUMERIC", "numpy_dtype", "fixed_width", "empty_array"]

NUMERIC = {
    Type.INT32: np.dtype("<i4"),
    Type.INT64: np.dtype("<i8"),
    Type.FLOAT: np.dtype("<f4"),
    Type.DOUBLE: np.dtype("<f8"),
}
_BOOL = np.dtype(np.bool_)


def numpy_dtype(physical_type):
    """The numpy dtype of a BOOLEAN or numeric physical type's values, else None."""
    if physical_type == Type.BOOLEAN:
        return _BOOL
    return NUMERIC.get(physical_type)


def fixed_width(physical_type, type_length=None):
    """Bytes per PLAIN value of a fixed-width physical type (ValueError for the others)."""
    physical_type = Type(physical_type)
    if physical_type in NUMERIC:
        return NUMERIC[physical_type].itemsize
    if physical_type == Type.INT96:
        return 12
    if physical_type == Type.FIXED_LEN_BYTE_ARRAY:
        if type_length is None or type_length <= 0:
            raise ValueError(f"FIXED_LEN_BYTE_ARRAY needs a positive type_length, "
                             f"got {type_length}")
        return type_length
    raise ValueError(f"{physical_type.name} has no fixed width")


def empty_array(physical_type, type_length=None):
    """A zero-length array in the layout of a fixed-width physical type."""
    dtype = numpy_dtype(physical_type)
    if dtype is not None:
        return np.zeros(0, dtype)
    width = 12 if physical_type == Type.INT96 else (type_length or 0)
    return np.zeros((0, width), np.uint8)
