"""encodings/physical.py: the physical-type table every encoder and decoder uses."""
import numpy as np
import pytest

from pqkit.encodings.physical import NUMERIC, empty_array, fixed_width, numpy_dtype
from pqkit.format import Type


def test_numeric_types_are_little_endian_numbers():
    assert {t: d.str for t, d in NUMERIC.items()} == {
        Type.INT32: "<i4", Type.INT64: "<i8", Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}
    assert numpy_dtype(Type.BOOLEAN) == np.bool_
    assert numpy_dtype(Type.BYTE_ARRAY) is None and numpy_dtype(Type.INT96) is None


@pytest.mark.parametrize("physical, length, width", [
    (Type.INT32, None, 4), (Type.INT64, None, 8), (Type.FLOAT, None, 4),
    (Type.DOUBLE, None, 8), (Type.INT96, None, 12), (Type.FIXED_LEN_BYTE_ARRAY, 16, 16)])
def test_fixed_width(physical, length, width):
    assert fixed_width(physical, length) == width


@pytest.mark.parametrize("physical, length", [
    (Type.BYTE_ARRAY, None), (Type.BOOLEAN, None), (Type.FIXED_LEN_BYTE_ARRAY, 0),
    (Type.FIXED_LEN_BYTE_ARRAY, None)])
def test_no_fixed_width(physical, length):
    with pytest.raises(ValueError):
        fixed_width(physical, length)


def test_empty_arrays_have_the_decoded_layout():
    assert empty_array(Type.DOUBLE).dtype == np.float64
    assert empty_array(Type.BOOLEAN).dtype == np.bool_
    assert empty_array(Type.INT96).shape == (0, 12)
    assert empty_array(Type.FIXED_LEN_BYTE_ARRAY, 5).shape == (0, 5)
