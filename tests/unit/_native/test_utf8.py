"""The UTF-8 kernel against Python's own decoder, which applies the same rule."""
import random

import numpy as np
import pytest

from pqkit._native.utf8 import first_invalid_utf8, invalid_utf8_mask
from pqkit.errors import EncodingError

PIECES = [b"a", b"abcdefghijklmnopqrstuvwxyz0123456789", b"\xc3\xa9", b"\xe2\x82\xac",
          b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf",
          # ill-formed: a surrogate, overlongs, past U+10FFFF, stray and cut sequences
          b"\xed\xa0\x80", b"\xc0\x80", b"\xe0\x80\x80", b"\xf0\x80\x80\x80",
          b"\xf4\x90\x80\x80", b"\x80", b"\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98"]


def _layout(values):
    offsets = np.zeros(len(values) + 1, np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    return offsets, np.frombuffer(b"".join(values), np.uint8).copy()


def _python(values):
    bad = []
    for v in values:
        try:
            v.decode("utf-8")
            bad.append(False)
        except UnicodeDecodeError:
            bad.append(True)
    return bad


def test_agrees_with_python_on_random_values():
    rng = random.Random(31)
    for _ in range(20000):
        values = [b"".join(rng.choice(PIECES) for _ in range(rng.randrange(4)))
                  for _ in range(rng.randrange(6))]
        expected = _python(values)
        offsets, data = _layout(values)
        assert first_invalid_utf8(offsets, data) == (expected.index(True) if any(expected)
                                                    else -1), values
        assert invalid_utf8_mask(offsets, data).tolist() == expected, values


def test_a_value_cut_inside_a_character_is_invalid_though_the_bytes_are_valid():
    offsets, data = _layout([b"ab\xc3", b"\xa9"])        # b"ab\xc3\xa9" as a whole is "abé"
    assert first_invalid_utf8(offsets, data) == 0


def test_long_ascii_runs_with_one_bad_byte_at_every_position():
    for pos in range(70):
        raw = bytearray(b"x" * 70)
        raw[pos] = 0xFF
        offsets, data = _layout([bytes(raw[:35]), bytes(raw[35:])])
        assert first_invalid_utf8(offsets, data) == (0 if pos < 35 else 1)


@pytest.mark.parametrize("offsets", [[0, 4], [-1, 0], [0, 2, 1], [0, 2, 1, 3]])
def test_offsets_outside_the_data_or_out_of_order_raise(offsets):
    data = np.frombuffer(b"\xc3\xa9\xff", np.uint8)   # not ASCII: values are read one by one
    with pytest.raises(EncodingError):
        first_invalid_utf8(np.array(offsets, np.int64), data)
    with pytest.raises(EncodingError):
        invalid_utf8_mask(np.array(offsets, np.int64), data)


def test_no_values_and_empty_values():
    assert first_invalid_utf8(np.zeros(1, np.int64), np.zeros(0, np.uint8)) == -1
    assert first_invalid_utf8(np.zeros(4, np.int64), np.zeros(0, np.uint8)) == -1
