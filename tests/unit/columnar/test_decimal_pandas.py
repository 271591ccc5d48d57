"""``to_pandas(decimals=...)`` / ``read_pandas(decimals=...)``: Decimal objects, floats, text.

The contract: "float" gives ``float(d)`` and "str" gives ``str(d)`` for every
``Decimal`` ``d`` that the default "decimal" gives (Python rounds
``float(Decimal)`` correctly), nulls as NaN / missing; checked on int64
unscaled values (fast paths, including values beyond 2**53) and 16-byte
big-endian ones (decimal128 stored as FIXED_LEN_BYTE_ARRAY), at every scale.
"""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.decimal_pandas import decimal_floats, decimals_as
from pqkit.columnar.fixed import DecimalColumn
from pqkit.columnar.table import Table

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def texts(col):
    """The "str" option's values of a DecimalColumn, every slot."""
    out = decimals_as(col, "str")
    return [bytes(out.data[a:b]).decode() for a, b in zip(out.offsets[:-1], out.offsets[1:])]


def be16(values):
    """16-byte big-endian two's complement rows of Python ints."""
    return np.frombuffer(b"".join(v.to_bytes(16, "big", signed=True) for v in values),
                         np.uint8).reshape(len(values), 16)


@FAST
@given(values=st.lists(st.integers(-2**63, 2**63 - 1), max_size=40),
       scale=st.integers(0, 18))
def test_int64_values_float_and_text_match_decimal_objects(values, scale):
    col = DecimalColumn(T.DecimalType(38, scale), np.array(values, np.int64))
    objects = col.to_pylist()
    assert decimal_floats(col).tolist() == [float(d) for d in objects]
    assert texts(col) == [str(d) for d in objects]


@FAST
@given(values=st.lists(st.integers(-10**38 + 1, 10**38 - 1), max_size=20),
       scale=st.integers(0, 38))
def test_wide_values_float_and_text_match_decimal_objects(values, scale):
    col = DecimalColumn(T.DecimalType(38, scale), be16(values))
    objects = col.to_pylist()
    assert decimal_floats(col).tolist() == [float(d) for d in objects]
    assert texts(col) == [str(d) for d in objects]


def test_docstring_example():
    col = DecimalColumn(T.DecimalType(5, 2), np.array([1234, -5, 0], np.int32),
                        np.array([True, True, False]))
    table = Table({"d": col})
    floats = table.to_pandas(decimals="float")["d"]
    assert floats.dtype == np.float64
    assert floats.tolist()[:2] == [12.34, -0.05] and np.isnan(floats.iloc[2])
    text = table.to_pandas(decimals="str", strings="object")["d"]
    assert text.tolist() == ["12.34", "-0.05", None]
    objects = table.to_pandas()["d"]
    assert [str(d) for d in objects.tolist()[:2]] == ["12.34", "-0.05"]
    assert objects.iloc[2] is None


@pytest.mark.parametrize("decimals", ["decimal", "float", "str"])
def test_read_pandas_option_matches_to_pandas(decimals):
    col = DecimalColumn(T.DecimalType(20, 4), be16([123456789, -1, 10**19, 0]),
                        np.array([True, True, True, False]))
    sink = io.BytesIO()
    pqkit.write_table(Table({"d": col, "i": PrimitiveColumn(T.int64(), np.arange(1, 5))}), sink)
    frame = pqkit.read_pandas(io.BytesIO(sink.getvalue()), decimals=decimals)
    want = pqkit.read_table(io.BytesIO(sink.getvalue())).to_pandas(decimals=decimals)
    assert frame["d"].dtype == want["d"].dtype
    assert frame["d"].isna().tolist() == [False, False, False, True]
    expected = {"decimal": ["12345.6789", "-0.0001", "1000000000000000.0000"],
                "float": [12345.6789, -0.0001, 1e15],
                "str": ["12345.6789", "-0.0001", "1000000000000000.0000"]}[decimals]
    got = frame["d"].tolist()[:3]
    assert (got if decimals != "decimal" else [str(d) for d in got]) == expected
    assert frame["i"].tolist() == [1, 2, 3, 4]


def test_unknown_option_is_refused():
    with pytest.raises(ValueError, match="decimals must be one of"):
        Table({"i": PrimitiveColumn(T.int64(), np.arange(1))}).to_pandas(decimals="double")
