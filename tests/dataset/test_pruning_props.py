"""Pruning soundness (§3.10, §3.14): a filtered read equals a full read filtered in Python.

Random data over int64 and uint64 extremes, floats with NaN, ±0.0 and
infinities, strings longer than the 64-byte bound limit sharing long prefixes,
nulls everywhere, and a nullable partition column, written as many small
files with small row groups (so partition, file, row-group and page pruning
all take part); random DNF predicates with every operator. The oracle below is
written independently of pqkit: nulls never match, NaN compares as Python does.
"""
import math

from dshelpers import row_set
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
import pqkit.dataset as pds
import pqkit.datatypes as T

I64 = [-(2 ** 63), -(2 ** 63) + 1, -1, 0, 1, 2 ** 63 - 2, 2 ** 63 - 1]
U64 = [0, 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 2, 2 ** 64 - 1]
FLOATS = [float("nan"), -0.0, 0.0, float("inf"), -float("inf"), 1.5, -2.25, 1e300]
PREFIX = "p" * 66
STRINGS = ["", "a", "b", PREFIX, PREFIX + "a", PREFIX + "b", "é" * 40, "z" * 70, "\U0010ffff"]
SCHEMA = [T.field("part", T.int32()), T.field("i", T.int64()), T.field("u", T.uint64()),
          T.field("f", T.float64()), T.field("s", T.string())]


def _maybe(values):
    return st.one_of(st.none(), st.sampled_from(values))


rows_strategy = st.lists(st.fixed_dictionaries({
    "part": _maybe([0, 1, 2]),
    "i": st.one_of(_maybe(I64), st.integers(-(2 ** 63), 2 ** 63 - 1)),
    "u": st.one_of(_maybe(U64), st.integers(0, 2 ** 64 - 1)),
    "f": st.one_of(_maybe(FLOATS), st.floats(allow_nan=True)),
    "s": st.one_of(_maybe(STRINGS), st.text(max_size=80)),
}), min_size=1, max_size=30)

VALUES = {"part": st.sampled_from([0, 1, 2, 3]),
          "i": st.one_of(st.sampled_from(I64), st.integers(-(2 ** 63), 2 ** 63 - 1),
                         st.sampled_from([float(2 ** 63), -0.5, 1.0])),
          "u": st.one_of(st.sampled_from(U64), st.sampled_from([-1, 2 ** 64])),
          "f": st.one_of(st.sampled_from(FLOATS), st.floats(allow_nan=False)),
          "s": st.one_of(st.sampled_from(STRINGS), st.text(max_size=70))}
OPS = ["==", "!=", "<", "<=", ">", ">=", "in", "not in", "is_null", "is_not_null"]


@st.composite
def terms(draw, rows):
    col = draw(st.sampled_from(sorted(VALUES)))
    op = draw(st.sampled_from(OPS))
    pool = [r[col] for r in rows if r[col] is not None]
    pick = st.one_of(VALUES[col], st.sampled_from(pool)) if pool else VALUES[col]
    if op in ("in", "not in"):
        return (col, op, draw(st.lists(pick, min_size=1, max_size=3)))
    if op in ("is_null", "is_not_null"):
        return (col, op, None)
    return (col, op, draw(pick))


def _holds(value, op, operand):
    if op == "is_null":
        return value is None
    if op == "is_not_null":
        return value is not None
    if value is None:
        return op == "not in"          # as pyarrow: a null is "not in" any list
    return {"==": lambda: value == operand, "!=": lambda: value != operand,
            "<": lambda: value < operand, "<=": lambda: value <= operand,
            ">": lambda: value > operand, ">=": lambda: value >= operand,
            # By equality only: a value read from a file is never the operand object itself.
            "in": lambda: any(value == o for o in operand),
            "not in": lambda: not any(value == o for o in operand)}[op]()


def _oracle(rows, dnf):
    return [r for r in rows if any(all(_holds(r[c], op, v) for c, op, v in conj)
                                   for conj in dnf)]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data(), rows=rows_strategy, files=st.integers(1, 6), index=st.booleans())
def test_filtered_read_equals_python_filter(tmp_path_factory, data, rows, files, index):
    root = str(tmp_path_factory.mktemp("prop") / "ds")
    chunk = max(1, math.ceil(len(rows) / files))
    props = {"planning.index.min_files": "0" if index else "1000"}   # with and without
    for k in range(0, len(rows), chunk):
        part = rows[k:k + chunk]
        pds.write(root, {c.name: [r[c.name] for r in part] for c in SCHEMA}, schema=SCHEMA,
                  partition_by=["part"], row_group_size=3, data_page_size=16,
                  properties=props)
    ds = pds.open(root)
    dnf = data.draw(st.lists(st.lists(terms(rows), min_size=1, max_size=3), min_size=1,
                             max_size=2))
    cols = ["f", "i", "part", "s", "u"]
    expected = row_set({c: [r[c] for r in _oracle(rows, dnf)] for c in cols}, cols)
    got = ds.read(filters=dnf)
    assert row_set(got, cols) == expected
    assert ds.count(dnf) == len(expected)
    kept = {f.key for f in ds.files(dnf)}
    for f in ds.files():
        if f.key in kept:
            continue
        # A pruned file really holds no matching row: read it directly and check.
        content = pqkit.read_table(f.location).to_pylist()
        assert _oracle([dict(r, part=f.partition_values["part"]) for r in content], dnf) == []
