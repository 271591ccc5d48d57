"""pqkit.read.prune.term_mask: a term evaluated on the buffers equals the row-by-row evaluation."""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit.read.prune.filters import PY_OPS
from pqkit.read.prune.term_mask import term_mask

OPS = ["==", "!=", "<", "<=", ">", ">="]
SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def by_rows(col, op, value):
    """The reference: each row's Python value compared with ``value``."""
    return np.array([op == "not in" if v is None else bool(PY_OPS[op](v, value))
                     for v in col.to_pylist()], np.bool_)


def column(values, first, **write):
    """A read-back column of ``[first] + values`` (``first`` fixes the inferred type)."""
    buf = io.BytesIO()
    pqkit.write_table({"c": [first] + list(values)}, buf, **write)
    return pqkit.read_table(buf.getvalue()).column("c")


TEXT = st.text(alphabet="ab\x00é\U0001f600", max_size=4)


@SETTINGS
@given(st.lists(st.one_of(st.none(), TEXT), max_size=30), TEXT,
       st.sampled_from(OPS + ["in", "not in"]), st.booleans())
def test_strings_plain_and_dictionary(values, probe, op, dictionary):
    col = column(values, "b", use_dictionary=dictionary)
    value = [probe, "a"] if op in ("in", "not in") else probe
    fast = term_mask(col, op, value)
    assert fast is not None
    np.testing.assert_array_equal(fast, by_rows(col, op, value))


@SETTINGS
@given(st.lists(st.one_of(st.none(), st.binary(max_size=4)), max_size=30),
       st.binary(max_size=4), st.sampled_from(OPS))
def test_binary(values, probe, op):
    col = column(values, b"b")
    fast = term_mask(col, op, probe)
    assert fast is not None
    np.testing.assert_array_equal(fast, by_rows(col, op, probe))


@SETTINGS
@given(st.lists(st.one_of(st.none(), st.binary(max_size=4)), max_size=30), TEXT,
       st.sampled_from(OPS + ["in", "not in"]))
def test_binary_against_text_compares_its_utf8_bytes(values, probe, op):
    """As pyarrow casts a str to binary: it used to match no row at all."""
    col = column(values, b"b")
    value, encoded = probe, probe.encode()
    if op in ("in", "not in"):
        value, encoded = [probe, b"b"], [encoded, b"b"]
    np.testing.assert_array_equal(term_mask(col, op, value), by_rows(col, op, encoded))


@SETTINGS
@given(st.lists(st.one_of(st.none(), st.integers(-2**63, 2**63 - 1)), max_size=30),
       st.one_of(st.integers(-2**70, 2**70), st.floats()), st.sampled_from(OPS))
def test_int64_against_any_number(values, probe, op):
    col = column(values, 0)
    fast = term_mask(col, op, probe)
    if fast is not None:                   # huge ints and floats go row by row
        np.testing.assert_array_equal(fast, by_rows(col, op, probe))


@SETTINGS
@given(st.lists(st.one_of(st.none(), st.floats(width=32)), max_size=30),
       st.one_of(st.floats(), st.integers(-2**60, 2**60)), st.sampled_from(OPS))
def test_float32_nan_and_signed_zero(values, probe, op):
    col = column([np.float32(v) if v is not None else None for v in values],
                 np.float32(-0.0))
    fast = term_mask(col, op, probe)
    if fast is not None:
        np.testing.assert_array_equal(fast, by_rows(col, op, probe))


@pytest.mark.parametrize("op", ["in", "not in"])
def test_membership_of_numbers_keeps_null_rule(op):
    col = column([None, 3, 4], 1)
    np.testing.assert_array_equal(term_mask(col, op, [3, 4, 99]), by_rows(col, op, [3, 4, 99]))


def test_types_it_cannot_do_exactly_go_row_by_row():
    assert term_mask(column([False], True), "==", 1) is None       # bool vs int
    assert term_mask(column([2], 1), "==", "1") is None             # str vs int
    assert term_mask(column([], "a"), "==", b"a") is None            # bytes vs str
