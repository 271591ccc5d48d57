"""pqkit's CRC-32 (the page checksum) against zlib: every length around the 16-, 64-
and 128-byte folding steps, continued values, unaligned and non-bytes buffers, with
each kernel this CPU has (256-bit and 128-bit carry-less multiply, byte table)."""
import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit._native import hashing
from pqkit._native.hashing import crc32, crc32_accelerated, crc32_copy
from pqkit.page import crc32_signed

KERNELS = [k for k in ("table", "pclmul", "vpclmulqdq")
           if hashing._KERNELS.index(k) <= hashing._KERNELS.index(hashing.crc32_kernel())]


@pytest.fixture(autouse=True, params=KERNELS)
def kernel(request):
    """Every test runs once per kernel this CPU has."""
    hashing._use_kernel(request.param)
    yield request.param
    hashing._use_kernel()


@pytest.mark.parametrize("start", [0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x89ABCDEF])
def test_every_length_up_to_300_and_past_the_lanes(start):
    rng = random.Random(start)
    for n in list(range(600)) + [1023, 1024, 1025, 4096 + 15, 65536 + 63]:
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert crc32(data, start) == zlib.crc32(data, start), n


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=2000), cut=st.integers(0, 2000), start=st.integers(0, 2**32 - 1))
def test_continuing_equals_one_pass(data, cut, start):
    head, tail = data[:cut], data[cut:]
    assert crc32(tail, crc32(head, start)) == crc32(data, start) == zlib.crc32(data, start)


def test_buffers_of_any_kind_and_alignment():
    arr = np.random.default_rng(1).integers(-2**62, 2**62, 100_003)
    raw = arr.tobytes()
    assert crc32(arr) == zlib.crc32(raw)
    for shift in range(1, 8):
        view = memoryview(raw)[shift:]
        assert crc32(view) == zlib.crc32(view)
    assert crc32(bytearray(raw[:777])) == zlib.crc32(raw[:777])
    assert crc32(b"") == 0 and crc32(b"", 1234) == 1234


def test_signed_page_value():
    assert crc32_signed(b"\x00" * 100) == zlib.crc32(b"\x00" * 100) - (1 << 32)
    assert crc32_signed(b"abc") == zlib.crc32(b"abc")        # below 2**31


def test_kernel_choice_is_reported(kernel):
    assert hashing.crc32_kernel() == kernel
    assert crc32_accelerated() == (kernel != "table")
    with pytest.raises(ValueError):
        hashing._use_kernel("no-such-kernel")


@pytest.mark.parametrize("start", [0, 0x89ABCDEF])
def test_crc_while_copying_equals_crc_and_copy(start):
    rng = random.Random(start)
    for n in list(range(200)) + [1023, 4096 + 15, 65536 + 63]:
        data = bytes(rng.getrandbits(8) for _ in range(n))
        out = bytearray(n + 3)
        assert crc32_copy(data, out, start) == zlib.crc32(data, start), n
        assert bytes(out[:n]) == data and out[n:] == b"\0\0\0"


def test_crc_while_copying_refuses_short_or_overlapping_targets():
    buf = bytearray(range(200))
    with pytest.raises(ValueError, match="holds 99 bytes"):
        crc32_copy(bytes(100), bytearray(99))
    with pytest.raises(ValueError, match="overlaps"):
        crc32_copy(memoryview(buf)[:100], memoryview(buf)[50:150])
    with pytest.raises((TypeError, ValueError, BufferError)):
        crc32_copy(bytes(10), bytes(10))                 # read-only target
    assert crc32_copy(b"", bytearray(0), 77) == 77
