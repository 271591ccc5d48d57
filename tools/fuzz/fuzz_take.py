"""Fuzz ``ParquetFile.take``: random row lists over fuzzed files.

Input: 4 control bytes (they seed the row list: in range, repeated, unsorted, now
and then one past either end), then the file. A row outside the file must raise a
:class:`pqkit.ParquetError`; a take that succeeds must equal the full read's rows
at those numbers (a mismatch is a finding: silent wrong rows); anything else but a
:class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_take.py -max_total_time=20 [corpus dir ...]
"""
import atheris
import known
import same
import seeds

with atheris.instrument_imports():
    import pqkit

CONTROL = 4


def row_list(rng, num_rows):
    """Up to 12 row numbers of ``[0, num_rows)``; one in five lists holds one outside."""
    rows = [rng.randrange(num_rows) for _ in range(rng.randrange(13))] if num_rows else []
    if rng.random() < 0.3:
        rows.sort()
    if rng.random() < 0.2:
        rows.insert(rng.randrange(len(rows) + 1), rng.choice((-1, num_rows)))
    return rows


def test_one(data):
    rng, blob = same.split(data, CONTROL)
    if rng is None:
        return
    f = known.attempt(pqkit.ParquetFile, blob)
    if f is known.FAILED:
        return
    rows = row_list(rng, min(f.metadata.num_rows, 1 << 20))
    got = known.attempt(f.take, rows)
    if got is known.FAILED:
        return
    assert all(0 <= r < f.metadata.num_rows for r in rows), f"take({rows}) succeeded"
    full = known.attempt(f.read)
    if full is known.FAILED:
        return
    expected, taken = same.rows_of(full), same.rows_of(got)
    if expected is None or taken is None:
        return
    want = {name: [values[r] for r in rows] for name, values in expected.items()}
    assert same.same(taken, want), f"take({rows}) returned other rows"


if __name__ == "__main__":
    seeds.fuzz("take", test_one, transform=seeds.led_by(CONTROL), paged=True)
