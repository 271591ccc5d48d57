"""Decimals into Arrow's little-endian 16/32-byte storage (pqkit._native.decimal_le),
against Python's own integer conversions."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit._native.decimal_le import be_rows_to_le, ints_to_le


def le_ints(out):
    return [int.from_bytes(r.tobytes(), "little", signed=True) for r in out]


@settings(max_examples=150, deadline=None)
@given(width=st.integers(1, 32), out_width=st.sampled_from([16, 32]), data=st.data())
def test_big_endian_rows_widen_to_little_endian(width, out_width, data):
    if width > out_width:
        out_width = 32
    lo, hi = -(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1
    values = data.draw(st.lists(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, 0, -1])),
                                max_size=50))
    rows = np.frombuffer(b"".join(v.to_bytes(width, "big", signed=True) for v in values),
                         np.uint8).reshape(len(values), width)
    out = be_rows_to_le(rows, out_width)
    assert out.shape == (len(values), out_width) and out.dtype == np.uint8
    assert le_ints(out) == values


@given(values=st.lists(st.integers(-2**63, 2**63 - 1), max_size=50),
       out_width=st.sampled_from([16, 32]), dtype=st.sampled_from([np.int32, np.int64]))
def test_unscaled_ints_widen_to_little_endian(values, out_width, dtype):
    if dtype is np.int32:
        values = [v % 2**32 - 2**31 for v in values]
    out = ints_to_le(np.array(values, dtype), out_width)
    assert out.shape == (len(values), out_width)
    assert le_ints(out) == values


def test_widths_are_checked():
    with pytest.raises(ValueError, match="16 or 32"):
        be_rows_to_le(np.zeros((2, 4), np.uint8), 8)
    with pytest.raises(ValueError, match="cannot widen 17-byte"):
        be_rows_to_le(np.zeros((2, 17), np.uint8), 16)
    with pytest.raises(ValueError, match="16 or 32"):
        ints_to_le(np.zeros(2, np.int64), 24)
