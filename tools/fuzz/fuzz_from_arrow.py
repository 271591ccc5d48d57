"""Fuzz ``pqkit.Table.from_arrow``: pyarrow tables built from the input, written by
pqkit and read back.

Input: the bytes drive an ``atheris.FuzzedDataProvider`` that picks 1 to 4 columns
from a menu of Arrow types (integers, floats, bool, strings, binary, fixed-size
binary, dates, timestamps, decimals, lists, structs, dictionaries), their values and
nulls, and whether the table is sliced or split into two batches. ``from_arrow``
must give a Table or a :class:`pqkit.ParquetError`; a Table must survive
``write_table`` and ``read_table`` with the same values as pyarrow holds (compared
as ``to_pylist`` on both sides); anything else is a finding.

Usage: python tools/fuzz/fuzz_from_arrow.py -max_total_time=20 [corpus dir ...]
"""
import datetime
import decimal
import io

import atheris
import known
import same
import seeds

with atheris.instrument_imports():
    import pqkit
import pyarrow as pa        # not instrumented: the harness's oracle, not its target

MAX_ROWS = 24


def _ints(fdp, bits, signed, n):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return [fdp.ConsumeIntInRange(lo, hi) for _ in range(n)]


def _text(fdp):
    return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 6))


def _bytes(fdp):
    return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 6))


def _scalar_column(fdp, n):
    """(type, python values) of one scalar column."""
    kind = fdp.ConsumeIntInRange(0, 13)
    if kind < 8:
        bits, signed = (8, 16, 32, 64)[kind % 4], kind < 4
        return getattr(pa, f"{'' if signed else 'u'}int{bits}")(), _ints(fdp, bits, signed, n)
    if kind == 8:
        return pa.float64(), [fdp.ConsumeRegularFloat() if fdp.ConsumeBool()
                              else float("nan") for _ in range(n)]
    if kind == 9:
        return pa.bool_(), [fdp.ConsumeBool() for _ in range(n)]
    if kind == 10:
        return pa.string(), [_text(fdp) for _ in range(n)]
    if kind == 11:
        return pa.binary(), [_bytes(fdp) for _ in range(n)]
    if kind == 12:
        day = datetime.date(1970, 1, 1)
        return pa.date32(), [day + datetime.timedelta(days=fdp.ConsumeIntInRange(-10**5, 10**5))
                             for _ in range(n)]
    return pa.decimal128(9, 2), [decimal.Decimal(fdp.ConsumeIntInRange(-10**9 + 1, 10**9 - 1))
                                 .scaleb(-2) for _ in range(n)]


def _column(fdp, n, depth=0):
    """A pyarrow array of ``n`` values, nulls included."""
    shape = fdp.ConsumeIntInRange(0, 5) if depth < 2 else 0
    nulls = [fdp.ConsumeIntInRange(0, 3) == 0 for _ in range(n)]
    if shape == 1:          # list of a column
        lengths = [fdp.ConsumeIntInRange(0, 3) for _ in range(n)]
        inner = _column(fdp, sum(lengths), depth + 1)
        offsets, at = [0], 0
        for length in lengths:
            at += length
            offsets.append(at)
        mask = pa.array(nulls, pa.bool_())
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), inner, mask=mask)
    if shape == 2:          # struct of two columns
        a, b = _column(fdp, n, depth + 1), _column(fdp, n, depth + 1)
        return pa.StructArray.from_arrays([a, b], ["a", "b"], mask=pa.array(nulls, pa.bool_()))
    if shape == 3:          # dictionary-encoded strings, the dictionary maybe with a null
        words = pa.array([None if fdp.ConsumeIntInRange(0, 7) == 0 else _text(fdp)
                          for _ in range(fdp.ConsumeIntInRange(1, 4))], pa.string())
        indices = [None if z else fdp.ConsumeIntInRange(0, len(words) - 1) for z in nulls]
        return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int8()), words)
    if shape == 4:
        width = 3
        return pa.array([None if z else fdp.ConsumeBytes(width).ljust(width, b"\0") for z in nulls],
                        pa.binary(width))
    type_, values = _scalar_column(fdp, n)
    return pa.array([None if z else v for z, v in zip(nulls, values)], type_)


def arrow_table(fdp):
    n = fdp.ConsumeIntInRange(0, MAX_ROWS)
    columns = [_column(fdp, n) for _ in range(fdp.ConsumeIntInRange(1, 4))]
    table = pa.table(columns, names=[f"c{i}" for i in range(len(columns))])
    how = fdp.ConsumeIntInRange(0, 2)
    if how == 1:
        start = fdp.ConsumeIntInRange(0, n)
        table = table.slice(start, fdp.ConsumeIntInRange(0, n - start))
    elif how == 2:
        table = pa.concat_tables([table, table.slice(n // 2)])
    return table


def test_one(data):
    fdp = atheris.FuzzedDataProvider(data)
    source = arrow_table(fdp)
    table = known.attempt(pqkit.Table.from_arrow, source)
    if table is known.FAILED:
        return
    assert table.num_rows == source.num_rows
    out = io.BytesIO()
    if known.attempt(pqkit.write_table, table, out) is known.FAILED:
        return
    back = pqkit.read_table(out.getvalue())
    want = source.to_pylist()
    got = pa.table(back).to_pylist()
    assert same.same(got, want), "from_arrow, write and read changed the values"


def arrow_seeds():
    """Inputs of a few sizes: the provider reads any bytes as a table."""
    import random
    rng = random.Random(31)
    return [bytes(rng.randrange(256) for _ in range(size)) for size in (16, 64, 256, 1024)
            for _ in range(8)]


if __name__ == "__main__":
    seeds.fuzz("from_arrow", test_one, seeds_of=arrow_seeds)
