"""Fuzz Arrow export: tables read from fuzzed files, handed to pyarrow through the
PyCapsule interface and checked with ``pyarrow.Table.validate(full=True)``.

Input: 2 control bytes (a slice of the rows to export as well as the whole table),
then the file. A read that fails with a :class:`pqkit.ParquetError` ends the input;
a table that exports must hold as many rows and the same column names in pyarrow and
pass pyarrow's full validation; anything else is a finding.

Usage: python tools/fuzz/fuzz_arrow_export.py -max_total_time=20 [corpus dir ...]
"""
import atheris
import known
import same
import seeds

with atheris.instrument_imports():
    import pqkit
import pyarrow as pa        # not instrumented: the harness's oracle, not its target

CONTROL = 2


def exported(table):
    """``table`` through the C stream interface, validated in full by pyarrow."""
    arrow = known.attempt(pa.table, table)
    if arrow is known.FAILED:
        return
    assert arrow.num_rows == table.num_rows and arrow.column_names == table.column_names
    arrow.validate(full=True)


def test_one(data):
    rng, blob = same.split(data, CONTROL)
    if rng is None:
        return
    table = known.attempt(pqkit.read_table, blob)
    if table is known.FAILED:
        return
    exported(table)
    start = rng.randrange(table.num_rows + 1)
    exported(table.slice(start, rng.randrange(table.num_rows - start + 1)))


if __name__ == "__main__":
    seeds.fuzz("arrow_export", test_one, transform=seeds.led_by(CONTROL), paged=True)
