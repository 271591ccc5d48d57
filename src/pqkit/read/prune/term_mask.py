"""One filter term evaluated over a whole column with numpy, no Python object per row.

:func:`term_mask` gives the same mask as comparing each row's Python value (what
``to_pylist`` gives) with the term's value, for the columns where that can be done on
the buffers exactly: integers, floats and booleans against numbers, strings and
binaries against ``str``/``bytes``, and dictionary columns of those (the term is
evaluated once per dictionary value, then gathered by the indices). It returns None
for anything else, and the caller compares row by row.

Strings compare by their UTF-8 bytes, which orders them as Python orders ``str``
(by code point). Null rows never match, except under ``not in``, where they do, as
in the row-by-row evaluation.
"""
import operator

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.nested import DictionaryColumn

__all__ = ["term_mask"]

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_EXACT_FLOAT_INT = 1 << 53


def term_mask(col, op, value):
    """Boolean mask of the rows of ``col`` for which ``row op value`` holds, or None
    when this column or value needs the row-by-row evaluation."""
    if isinstance(col, DictionaryColumn):
        return _dictionary_mask(col, op, value)
    if isinstance(col, PrimitiveColumn):
        hits = _number_hits(col, op, value)
    elif type(col) is BinaryColumn and col.gathered() is not None:
        source, positions = col.gathered()        # once per distinct value, then gathered
        per_value = _bytes_hits(source, op, value)
        hits = None if per_value is None else per_value[positions]
    elif type(col) is BinaryColumn:
        hits = _bytes_hits(col, op, value)
    else:
        return None
    if hits is None:
        return None
    return _with_nulls(hits, col.validity, op)


def _with_nulls(hits, validity, op):
    if validity is None:
        return hits
    return hits | ~validity if op == "not in" else hits & validity


def _dictionary_mask(col, op, value):
    if len(col.dictionary) == 0:
        hits = np.zeros(len(col), np.bool_)
    else:
        per_value = term_mask(col.dictionary, op, value)
        if per_value is None:
            return None
        idx = col.indices if col.validity is None else np.where(col.validity, col.indices, 0)
        hits = per_value[idx]
    return _with_nulls(hits, col.validity, op)


# --- numbers ------------------------------------------------------------------------------
def _scalar(type_, dtype, v):
    """``v`` as a value numpy compares with ``dtype`` exactly as Python compares it with
    the column's Python values, or None when it cannot be."""
    if isinstance(type_, T.BooleanType):
        return v if isinstance(v, (bool, np.bool_)) else None
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(type_, T.IntegerType):
        if isinstance(v, (int, np.integer)):
            info = np.iinfo(dtype)
            return int(v) if info.min <= int(v) <= info.max else None
        return None
    if isinstance(type_, T.FloatingType):
        if isinstance(v, (int, np.integer)):
            return float(v) if abs(int(v)) <= _EXACT_FLOAT_INT else None
        return float(v) if isinstance(v, (float, np.floating)) else None
    return None


def _number_hits(col, op, value):
    t = col.type
    if not isinstance(t, (T.BooleanType, T.IntegerType, T.FloatingType)):
        return None
    values = col.values
    if op in ("in", "not in"):
        try:
            wanted = [_scalar(t, values.dtype, v) for v in value]
        except TypeError:
            return None
        if any(w is None for w in wanted):
            return None
        probe_dtype = np.float64 if values.dtype.kind == "f" else values.dtype
        hits = np.isin(values, np.asarray(wanted, dtype=probe_dtype)) if wanted \
            else np.zeros(len(values), np.bool_)
        return ~hits if op == "not in" else hits
    v = _scalar(t, values.dtype, value)
    if v is None or op not in _COMPARE:
        return None
    # A float probe stays float64 (a float32 column is widened to it, exactly); an
    # integer probe is within the column's range, so its own dtype holds it exactly.
    probe = np.float64(v) if values.dtype.kind == "f" else values.dtype.type(v)
    return np.asarray(_COMPARE[op](values, probe), np.bool_)


# --- strings and binaries ------------------------------------------------------------------
def _encoded(type_, v):
    if isinstance(type_, T.BinaryType) and isinstance(v, (bytes, bytearray)):
        return bytes(v)
    # A str matches text and, as in pyarrow, binary by its UTF-8 bytes.
    return v.encode("utf-8", "surrogatepass") if isinstance(v, str) else None


def _bytes_hits(col, op, value):
    if op in ("in", "not in"):
        try:
            wanted = [_encoded(col.type, v) for v in value]
        except TypeError:
            return None
        if any(w is None for w in wanted):
            return None
        hits = np.zeros(len(col), np.bool_)
        for w in wanted:
            eq = _bytes_compare(col, "==", w)
            if eq is None:
                return None
            hits |= eq
        return ~hits if op == "not in" else hits
    v = _encoded(col.type, value)
    if v is None or op not in _COMPARE:
        return None
    return _bytes_compare(col, op, v)


def _bytes_compare(col, op, v):
    """``row op v`` for every row, compared as unsigned byte strings one byte position at
    a time over the rows still undecided, so the cost is rows x common prefix length."""
    offsets = col.offsets
    starts, lengths = offsets[:-1], np.diff(offsets)
    data, probe = col.data, np.frombuffer(v, np.uint8)
    n = len(lengths)
    less = np.zeros(n, np.bool_)
    equal = np.zeros(n, np.bool_)
    undecided = np.arange(n)
    for j in range(len(v) + 1):
        if not len(undecided):
            break
        ended = lengths[undecided] <= j
        if j == len(v):
            # Every remaining row starts with v: equal if it ends here, greater if longer.
            equal[undecided[ended]] = True
            break
        less[undecided[ended]] = True                 # a proper prefix of v
        undecided = undecided[~ended]
        here = data[starts[undecided] + j]
        less[undecided[here < probe[j]]] = True
        undecided = undecided[here == probe[j]]
    if op == "==":
        return equal
    if op == "!=":
        return ~equal
    if op == "<":
        return less
    if op == "<=":
        return less | equal
    if op == ">":
        return ~(less | equal)
    return ~less
