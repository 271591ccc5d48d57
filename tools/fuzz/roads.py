"""The partial read roads of a mutated file, checked against full reads: ``take`` of
fixed rows and filtered reads (for ``sweep.py --roads``).

A road that succeeds must return exactly the full read's rows: those of the mutated
file's full read when it succeeds, else those of the unmutated file. The one
exception is a mutation that changes nothing but min/max bounds (chunk statistics or
ColumnIndex, which readers trust by design): a filtered read may then leave rows out,
but every row it returns must be a correct row, in order.
"""
import copy

import pyarrow as pa

import pqkit
from pqkit import format as fmt

TAKE_FRACTIONS = (0, 1 / 7, 1 / 3, 1 / 2, 4 / 5)     # of the rows, plus the last row
FILTER_COLUMNS = 3                                   # top-level columns filtered on


class Reference:
    """What the roads of the unmutated file ``data`` give, and the terms to filter by."""

    def __init__(self, data):
        self.full = _arrow(pqkit.read_table(data))
        n = self.full.num_rows
        self.rows = sorted({int(n * f) for f in TAKE_FRACTIONS} | {n - 1}) if n else []
        self.terms = _terms(self.full, self.rows)
        self.shape = bounds_free_shape(data)


def _arrow(table):
    return pa.table(table)


def _terms(full, rows):
    """``==`` on the scalar columns with the most distinct values (selective filters,
    which page indexes narrow) and ``>=`` on the first of them, with a row's value."""
    ranked = []
    for field in full.schema:
        t = field.type
        if pa.types.is_nested(t) or pa.types.is_dictionary(t) or pa.types.is_floating(t):
            continue
        values = full.column(field.name).to_pylist()
        picked = [values[r] for r in rows if values[r] is not None]
        if picked:
            distinct = len(set(values))
            ranked.append((-distinct, field.name, picked[len(picked) // 2]))
    ranked = sorted(ranked, key=lambda r: r[:2])[:FILTER_COLUMNS]
    terms = [(name, "==", value) for _, name, value in ranked]
    return terms + [(name, ">=", value) for _, name, value in ranked[:1]]


def bounds_free_shape(data):
    """The footer and page indexes of a file, encoded with every min/max bound left
    out; None when they cannot be decoded. Two files of equal shape differ at most in
    their bounds."""
    try:
        md = pqkit.read_metadata(data)
        raw = copy.deepcopy(md.raw)
        view = memoryview(data)
        indexes = []
        for rg in raw.row_groups or ():
            for chunk in rg.columns or ():
                indexes.append(_index_without_bounds(view, chunk))
                st = chunk.meta_data.statistics if chunk.meta_data else None
                if st is not None:
                    st.min = st.max = st.min_value = st.max_value = None
        return fmt.encode(raw), indexes
    except Exception:  # noqa: BLE001 -- any failure: not comparable, so strict checks
        return None


def _index_without_bounds(view, chunk):
    if chunk.column_index_offset is None or chunk.column_index_length is None:
        return None
    at, length = chunk.column_index_offset, chunk.column_index_length
    ci, _ = fmt.decode(fmt.ColumnIndex, bytes(view[at:at + length]))
    ci.min_values = ci.max_values = None
    return fmt.encode(ci)


def check(blob, ref):
    """(mismatches, bound omissions, {road: ParquetError class}) of the roads of
    ``blob``. A mismatch is a text naming the road."""
    full = None             # the mutated file's full read: read when first needed
    bounds_only = None
    mismatches, omissions, errors = [], 0, {}
    for road, expect, read in _roads(ref):
        try:
            got = _arrow(read(blob))
        except pqkit.ParquetError as exc:
            errors[road] = type(exc).__name__
            continue
        if got.equals(expect(ref.full)):
            continue
        if full is None:    # a flip of a value: the full read must show it too
            try:
                full = _arrow(pqkit.read_table(blob))
            except pqkit.ParquetError:
                full = ref.full
        want = expect(full)
        if want is not None and got.equals(want):
            continue
        if road.startswith("filter") and want is not None:
            if bounds_only is None:
                bounds_only = ref.shape is not None and bounds_free_shape(blob) == ref.shape
            if bounds_only and _rows_within(got, want):
                omissions += 1
                continue
        mismatches.append(f"{road}: {got.num_rows} rows, the full read gives "
                          f"{'none' if want is None else want.num_rows}")
    return mismatches, omissions, errors


def _roads(ref):
    """(road, expected(full read) -- None when no result is right --, read(blob))."""
    rows = ref.rows
    if rows:
        yield ("take", lambda full: full.take(rows) if rows[-1] < full.num_rows else None,
               lambda blob: _take(blob, rows))
    for term in ref.terms:
        yield (f"filter {term!r}", lambda full, term=term: _filtered(full, term),
               lambda blob, term=term: pqkit.read_table(blob, filters=[term]))


def _take(blob, rows):
    with pqkit.ParquetFile(blob) as f:
        return f.take(rows)


def _filtered(full, term):
    import pyarrow.compute as pc
    name, op, value = term
    column = full.column(name)
    scalar = pa.scalar(value, column.type)
    mask = pc.equal(column, scalar) if op == "==" else pc.greater_equal(column, scalar)
    return full.filter(mask)


def _rows_within(got, want):
    """Whether every row of ``got`` is a row of ``want``, in the same order."""
    rest = iter(want.to_pylist())
    return all(any(row == other for other in rest) for row in got.to_pylist())


def write_paged_samples(directory, rows=240):
    """Write two small files with page indexes and several pages per column chunk, one
    by pqkit and one by pyarrow, into ``directory``; return their paths."""
    import pathlib

    import pyarrow.parquet as pq

    directory = pathlib.Path(directory)
    data = {"id": list(range(rows)),
            "k": [None if i % 7 == 0 else f"k{i % 13:02d}" for i in range(rows)],
            "v": [(i * 37) % 101 - 50 for i in range(rows)],
            "b": [bytes([i % 5]) * (i % 3) for i in range(rows)]}
    ours, theirs = directory / "pqkit_paged.parquet", directory / "pyarrow_paged.parquet"
    pqkit.write_table(data, str(ours), data_page_size=128, row_group_size=rows // 2)
    pq.write_table(pa.table(data), str(theirs), data_page_size=128,
                   row_group_size=rows // 2, write_page_index=True)
    return [ours, theirs]
