"""Decimal columns for pandas as Decimal objects, floats or text (``to_pandas(decimals=...)``).

pandas has no decimal dtype, so a decimal column becomes one of

======== =================================================================
option   pandas column
======== =================================================================
decimal  object: ``decimal.Decimal`` with exactly the type's scale, None for
         nulls -- pyarrow's conversion, and the default
float    float64: the double nearest each decimal value, NaN for nulls
str      the ``strings`` option's dtype: each value's ``str(Decimal)`` text,
         missing for nulls
======== =================================================================

For ``decimal(5, 2)`` unscaled values ``[1234, -5]`` and a null, "float" gives
``[12.34, -0.05, nan]`` and "str" gives ``["12.34", "-0.05", None]``. Floats
are exact to the last bit: an unscaled value within 2**53 and a scale of at
most 22 are both exact doubles, so one IEEE division rounds correctly; other
values go through :class:`fractions.Fraction`. Text of int64 unscaled values
at scales 0 to 6 (where ``str(Decimal)`` never uses an exponent) is written
digit by digit in numpy (:func:`plain_texts`); other values go through
``decimal``. The options apply to the table's decimal columns;
decimals nested in lists, structs or maps stay ``Decimal`` objects.
"""
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import pyvalues as pv
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn
from pqkit.errors import ArgumentError

__all__ = ["DECIMAL_OPTIONS", "check_decimals_option", "decimals_as"]

DECIMAL_OPTIONS = ("decimal", "float", "str")
_EXACT_INT = 1 << 53
_PLAIN_SCALES = range(7)
_INT64_DIGITS = 19             # digits of 2**63
_WIDE = Context(prec=100)       # scaleb exactly for any decimal128/256 value


def check_decimals_option(decimals):
    if decimals not in DECIMAL_OPTIONS:
        raise ArgumentError(f"decimals must be one of {DECIMAL_OPTIONS}, got {decimals!r}")
    return decimals


def decimals_as(col, decimals):
    """``col`` as pandas should see it under the ``decimals`` option: a float64 or
    string column for a decimal column under "float" / "str", else ``col`` itself."""
    if decimals == "decimal" or not isinstance(col, DecimalColumn):
        return col
    if decimals == "float":
        return PrimitiveColumn(T.float64(), decimal_floats(col), col.validity)
    ints = _int64_values(col)
    if ints is not None and col.type.scale in _PLAIN_SCALES:
        offsets, data = plain_texts(ints, col.type.scale)
    else:
        texts = decimal_texts(col)
        offsets = np.zeros(len(texts) + 1, np.int64)
        np.cumsum([len(t) for t in texts], out=offsets[1:])
        data = np.frombuffer("".join(texts).encode("ascii"), np.uint8)
    return BinaryColumn(T.string(), offsets, data, col.validity)


def plain_texts(ints, scale):
    """(offsets, ASCII bytes) of ``str(Decimal)`` for int64 unscaled values at a scale of
    0 to 6, built column by column in numpy: each value's digits are written
    right-aligned into a row of the widest text, and each row's used tail is kept."""
    n = len(ints)
    negative = ints < 0
    # |v| as uint64 (also for -2**63): the two's complement negation of the bits.
    mags = np.where(negative, ~ints.view(np.uint64) + np.uint64(1), ints.view(np.uint64))
    unit = np.uint64(10 ** scale)
    whole, frac = mags // unit, mags % unit
    point = 1 if scale else 0
    width = 1 + _INT64_DIGITS + point + scale
    rows = np.full((n, width), ord("0"), np.uint8)
    for k in range(scale):
        rows[:, width - 1 - k] = (frac // np.uint64(10 ** k)) % np.uint64(10) + ord("0")
    if scale:
        rows[:, width - 1 - scale] = ord(".")
    last = width - 1 - scale - point          # column of the units digit
    digits = np.ones(n, np.int64)
    rest = whole.copy()
    for k in range(_INT64_DIGITS):
        rows[:, last - k] = rest % np.uint64(10) + ord("0")
        rest //= np.uint64(10)
        if k:
            digits += whole >= np.uint64(10 ** k)
    start = last + 1 - digits - negative
    rows[np.flatnonzero(negative), start[negative]] = ord("-")
    lengths = width - start
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, rows[np.arange(width)[None, :] >= start[:, None]]


def _int64_values(col):
    """The unscaled values as 1-D int64 when they are stored so narrow, else None."""
    v = col.values
    if v.ndim == 2 and v.shape[1] <= 8:
        v = pv.be_bytes_to_int64(v)
    return v.astype(np.int64, copy=False) if v.ndim == 1 else None


def decimal_floats(col):
    """float64 values of a DecimalColumn (null slots hold whatever their slot holds)."""
    scale = col.type.scale
    ints = _int64_values(col)
    if ints is None or not 0 <= scale <= 22:
        return np.array([float(_fraction(i, scale)) for i in col.unscaled()], np.float64)
    out = ints.astype(np.float64) / (10.0 ** scale)
    wide = (ints > _EXACT_INT) | (ints < -_EXACT_INT)
    if wide.any():
        out[wide] = [float(_fraction(i, scale)) for i in ints[wide].tolist()]
    return out


def _fraction(unscaled, scale):
    return Fraction(unscaled, 10 ** scale) if scale >= 0 else Fraction(unscaled * 10 ** -scale)


def decimal_texts(col):
    """``str(Decimal)`` of every slot's value (null slots included) as a list of str."""
    scale = col.type.scale
    return [str(Decimal(i).scaleb(-scale, _WIDE)) for i in col.unscaled()]
