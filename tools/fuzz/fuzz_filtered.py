"""Fuzz filtered reads (``pqkit.read_table(filters=...)``) of files with page indexes.

Input: 4 control bytes, then the file. The control bytes pick a top-level column of
scalars, a value of it from a random row of the full read and a comparison
(``== != < <= > >= in not in``). A filtered read that succeeds must return exactly
the full read's rows whose value satisfies the comparison (a null only ``not in``),
in file order. Bounds in statistics and ColumnIndexes are trusted by design, so a
read may leave out rows when ``verify --deep`` finds an error in the file (a damaged
bound), but every row it returns must be a matching row of the full read, in order.
Any other mismatch (silent wrong rows) and anything but a result or a
:class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_filtered.py -max_total_time=20 [corpus dir ...]
"""
import datetime
import decimal
import math
import operator

import atheris
import known
import same
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.inspect.verify.runner import verify_file

CONTROL = 4
OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
       ">": operator.gt, ">=": operator.ge}
SCALARS = (bool, int, float, str, bytes, datetime.date, datetime.datetime, datetime.time,
           decimal.Decimal)


def _term(rng, values):
    """(op, literal, keep(value)) for a column's Python values, or None."""
    present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not present:
        return None
    literal = rng.choice(present)
    op = rng.choice(list(OPS) + ["in", "not in"])
    if op in OPS:
        return op, literal, lambda v: OPS[op](v, literal)
    chosen = {rng.choice(present) for _ in range(rng.randrange(1, 4))}
    inside = op == "in"
    return op, sorted(chosen, key=repr), lambda v: (v in chosen) == inside


def _matches(op, keep, value):
    """As pyarrow: a null matches only ``not in``; NaN compares as Python compares it."""
    return op == "not in" if value is None else keep(value)


def test_one(data):
    rng, blob = same.split(data, CONTROL)
    if rng is None:
        return
    table = known.attempt(pqkit.read_table, blob)
    if table is known.FAILED:
        return
    full = same.rows_of(table)
    if not full:
        return
    names = [n for n, vs in full.items() if "." not in n
             and all(v is None or isinstance(v, SCALARS) for v in vs)]
    if not names:
        return
    name = rng.choice(sorted(names))
    term = _term(rng, full[name])
    if term is None:
        return
    op, literal, keep = term
    filtered = known.attempt(pqkit.read_table, blob, filters=[(name, op, literal)])
    got = None if filtered is known.FAILED else same.rows_of(filtered)
    if got is None:
        return
    kept = [i for i, v in enumerate(full[name]) if _matches(op, keep, v)]
    want = {n: [vs[i] for i in kept] for n, vs in full.items()}
    if same.same(got, want):
        return
    term = (name, op, literal)
    assert _in_order_within(got, want), f"filter {term} returned rows that do not match"
    assert _bounds_refuted(blob), f"filter {term} left out matching rows"


def _rows(columns):
    return list(zip(*[[repr(v) for v in vs] for vs in columns.values()]))


def _in_order_within(got, want):
    """Whether every row of ``got`` is a row of ``want``, in the same order."""
    rest = iter(_rows(want))
    return all(any(row == other for other in rest) for row in _rows(got))


def _bounds_refuted(blob):
    """Whether ``verify --deep`` finds an error in the file: bounds in statistics and
    ColumnIndexes are trusted by design, so a read may leave out rows a damaged bound
    rules out (verify checks the bounds against the values)."""
    report = known.attempt(verify_file, blob, deep=True)
    return report is known.FAILED or any(f["severity"] == "error"
                                         for f in report.to_dict()["findings"])


if __name__ == "__main__":
    seeds.fuzz("filtered", test_one, transform=seeds.led_by(CONTROL), paged=True)
