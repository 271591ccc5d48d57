"""The fused dictionary gather (pqkit._native.dict_gather) against the unfused path.

The unfused path decodes a page's indices with ``decode_dict_indices`` and then
takes the dictionary's rows; the fused kernel must give the same values and
consume the same bytes for every page, and raise the same error for every bad
one. Pages are built from runs with the oracle in tests/reference/rle_ref.py,
so both RLE and bit-packed runs (and runs longer than the values asked for)
are exercised.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.reference import rle_ref as ref

from pqkit._native.bitpack import decode_dict_indices
from pqkit._native.dict_gather import DictGather, decode_dict_values
from pqkit.errors import EncodingError

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = [np.int32, np.int64, np.float32, np.float64]


def unfused(page, count, dictionary, base_offset=0):
    """(values, bytes used) the unfused way, or the EncodingError message."""
    idx = np.empty(count, np.int32)
    try:
        used, _ = decode_dict_indices(page, 0, len(page), count, idx, len(dictionary),
                                      base_offset)
    except EncodingError as e:
        return str(e)
    return dictionary[idx], used


def fused(page, count, dictionary, base_offset=0):
    out = np.empty((count,) + dictionary.shape[1:], dictionary.dtype)
    try:
        used = decode_dict_values(page, 0, len(page), count, dictionary, out, base_offset)
    except EncodingError as e:
        return str(e)
    return out, used


def gathered(page, count, dictionary, base_offset=0, before=0, after=0):
    """(values, bytes used) through DictGather into rows [before, before + count) of
    a larger output, checking the rows around the span stay as they were."""
    out = np.full((before + count + after,) + dictionary.shape[1:], 99, dictionary.dtype)
    try:
        used = DictGather(dictionary, out).gather(page, 0, len(page), count, before,
                                                  base_offset)
    except EncodingError as e:
        return str(e)
    assert (out[:before] == 99).all() and (out[before + count:] == 99).all()
    return out[before:before + count], used


def assert_same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert a[1] == b[1]
    assert a[0].dtype == b[0].dtype
    np.testing.assert_array_equal(a[0], b[0])


@st.composite
def pages(draw, max_runs=6):
    """(page bytes, count): a bit-width byte and hybrid runs of indices below 2**width."""
    width = draw(st.integers(0, 20))   # 1-16: one load per index; 17-20: via a block
    top = (1 << width) - 1
    body, total = b"", 0
    if width:
        for _ in range(draw(st.integers(1, max_runs))):
            if draw(st.booleans()):
                n = draw(st.integers(1, 1200))
                body += ref.rle_run(draw(st.integers(0, top)), n, width)
            else:
                values = draw(st.lists(st.integers(0, top), min_size=1, max_size=1100))
                n = len(values)
                body += ref.packed_run(values, width)
            total += n
    else:
        total = draw(st.integers(1, 3000))
    count = draw(st.integers(0, total))
    return bytes([width]) + body, count


def test_docstring_example():
    dictionary = np.array([10, 20, 30], np.int64)
    out = np.empty(6, np.int64)
    assert decode_dict_values(bytes.fromhex("0206020309"), 0, -1, 6, dictionary, out) == 5
    assert out.tolist() == [30, 30, 30, 20, 30, 10]


@FAST
@given(pages(), st.sampled_from(DTYPES), st.integers(1, 5000), st.randoms())
def test_fused_equals_unfused(page_count, dtype, dict_len, rnd):
    page, count = page_count
    dictionary = np.arange(dict_len, dtype=dtype) * 3 - 7
    rnd.shuffle(dictionary)
    result = fused(page, count, dictionary, 100)
    assert_same(result, unfused(page, count, dictionary, 100))
    if not isinstance(result, str):
        assert len(result[0]) == count


@FAST
@given(pages(), st.integers(1, 300))
def test_fixed_width_rows(page_count, dict_len):
    # INT96 and FIXED_LEN_BYTE_ARRAY dictionaries are (n, width) byte rows.
    page, count = page_count
    dictionary = np.random.default_rng(dict_len).integers(0, 256, (dict_len, 12), np.uint8)
    assert_same(fused(page, count, dictionary), unfused(page, count, dictionary))


@FAST
@given(st.binary(max_size=60), st.integers(0, 200), st.integers(0, 40))
def test_hostile_bytes_fail_alike(page, count, dict_len):
    dictionary = np.arange(dict_len, dtype=np.int64)
    assert_same(fused(page, count, dictionary, 4096), unfused(page, count, dictionary, 4096))


def test_index_past_dictionary_names_it():
    page = bytes([2]) + ref.rle_run(3, 5, 2)
    with pytest.raises(EncodingError, match="dictionary index 3 .* the dictionary has 3 entries"):
        decode_dict_values(page, 0, -1, 5, np.arange(3, dtype=np.int64), np.empty(5, np.int64))


def test_output_must_match_the_dictionary():
    page = bytes([1]) + ref.rle_run(1, 4, 1)
    with pytest.raises(ValueError, match="does not match"):
        decode_dict_values(page, 0, -1, 4, np.arange(2, dtype=np.int64),
                           np.empty(4, np.int32))
    with pytest.raises(ValueError, match="holds 3 values, 4 requested"):
        decode_dict_values(page, 0, -1, 4, np.arange(2, dtype=np.int64),
                           np.empty(3, np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        decode_dict_values(page, 0, -1, 4, np.arange(2, dtype=np.int64),
                           np.empty(8, np.int64)[::2])


@FAST
@given(pages(), st.sampled_from(DTYPES + ["flba"]), st.integers(1, 400),
       st.integers(0, 9), st.integers(0, 9), st.randoms())
def test_gather_into_a_span_equals_unfused(page_count, dtype, dict_len, before, after, rnd):
    # The per-chunk DictGather writes each page into its own span of the chunk's rows.
    page, count = page_count
    if dtype == "flba":
        dictionary = np.random.default_rng(dict_len).integers(0, 256, (dict_len, 5), np.uint8)
    else:
        dictionary = np.arange(dict_len, dtype=dtype) * 3 - 7
        rnd.shuffle(dictionary)
    assert_same(gathered(page, count, dictionary, 100, before, after),
                unfused(page, count, dictionary, 100))


@FAST
@given(st.binary(max_size=60), st.integers(0, 200), st.integers(0, 40), st.integers(0, 5))
def test_gather_hostile_bytes_fail_alike(page, count, dict_len, before):
    dictionary = np.arange(dict_len, dtype=np.int64)
    assert_same(gathered(page, count, dictionary, 4096, before),
                unfused(page, count, dictionary, 4096))


def test_gather_checks_its_arrays_and_span():
    page = bytes([1]) + ref.rle_run(1, 4, 1)
    dictionary = np.arange(2, dtype=np.int64)
    with pytest.raises(ValueError, match="does not match"):
        DictGather(dictionary, np.empty(4, np.int32))
    with pytest.raises(ValueError, match="C-contiguous"):
        DictGather(dictionary, np.empty(8, np.int64)[::2])
    with pytest.raises(ValueError, match="writable"):
        DictGather(dictionary, np.frombuffer(bytes(32), np.int64))
    gather = DictGather(dictionary, np.empty(6, np.int64)).gather
    for row, count in ((3, 4), (-1, 2), (0, 7), (6, 1), (2, -1)):
        with pytest.raises(ValueError, match="not inside the output"):
            gather(page, 0, -1, count, row)
    assert gather(page, 0, -1, 4, 2) == len(page)
