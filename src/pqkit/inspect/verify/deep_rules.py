"""Value rules (``--deep``): decode every page and hold its values against the metadata.

A chunk is decoded once (:func:`pqkit.inspect.verify.decoded.decode_chunk`) and cut
back into its data pages by their level counts: page ``i`` owns level
entries ``[e_i, e_i + num_values_i)`` and the non-null values among them. For
each page:

* the nulls (entries below the max definition level) equal the page
  statistics' ``null_count``, a v2 header's ``num_nulls`` and the
  ColumnIndex ``null_counts`` entry (PQ-DEEP-005);
* the rows (entries with repetition level 0) equal a v2 header's ``num_rows``
  (PQ-DEEP-006) and the OffsetIndex span (PQ-INDEX-004);
* the smallest and largest values -- NaN left out, compared in the column's
  order -- lie inside the page statistics (PQ-DEEP-002) and the ColumnIndex
  bounds (PQ-DEEP-004), and a bound flagged exact is one of the values
  (PQ-DEEP-007); ``nan_count`` equals the NaNs found (PQ-DEEP-008).

The same holds for the whole chunk against the chunk statistics (PQ-DEEP-003)
and, for a repeated column of v1 pages, the rows against the row group
(PQ-ROWS-002). Bounds the writer-bug table distrusts give warnings.

Example: an optional INT64 column of two pages with num_values 3 and 2 and
definition levels ``1 0 1 | 1 1`` holds values ``[5, 9 | 7, 8]``: page 0 has
1 null and values 5..9, page 1 no null and values 7..8; page statistics of
``min 6`` on page 0 break PQ-DEEP-002.
"""
import numpy as np

from pqkit.format import PageType
from pqkit.inspect.verify.decoded import data_header
from pqkit.inspect.verify.ordering import BoundSizeError
from pqkit.inspect.verify.stats_rules import effective_bounds
from pqkit.inspect.verify.writer_bugs import min_max_untrusted
from pqkit.read.decode import values as V
from pqkit.write.stats import StatisticsAccumulator


def check_values(ctx, decoded, column_index=None, offset_index=None):
    """Check the values of one decoded chunk (:func:`pqkit.inspect.verify.decoded.decode_chunk`);
    returns how many values were checked."""
    walk = decoded.walk
    defs, reps, values = decoded.defs, decoded.reps, decoded.values
    node, ordering = walk.node, walk.ordering
    acc = StatisticsAccumulator(node, truncate_length=None)
    pages = walk.data_pages
    ci = column_index if column_index is not None and \
        len(column_index.null_pages) == len(pages) else None
    spans = _spans(offset_index, len(pages), ctx.md.row_group(walk.row_group).num_rows)
    entry = value = rows_total = 0
    max_def = node.max_definition_level
    for i, page in enumerate(pages):
        sub = data_header(page)
        n = sub.num_values
        page_defs = None if defs is None else defs[entry:entry + n]
        present = n if page_defs is None else int(np.count_nonzero(page_defs == max_def))
        rows = n if reps is None else int(np.count_nonzero(reps[entry:entry + n] == 0))
        rows_total += rows
        page_values = _slice(values, value, value + present)
        where = walk.where.page(page.offset)
        try:
            extremes = _extremes(acc, ordering, page_values, n - present)
        except (TypeError, ValueError) as exc:
            ctx.add("PQ-DEEP-001", f"the values of the page at offset {page.offset} cannot be "
                    f"compared: {exc}", page.offset, where)
            return value
        _check_page(ctx, walk, page, sub, n - present, rows, extremes, where,
                    None if ci is None else i, ci, spans[i] if spans else None)
        entry += n
        value += present
    ctx.counters["values_checked"] += value
    _check_chunk(ctx, walk, acc, rows_total)
    return value


def _spans(oi, count, num_rows):
    if oi is None or len(oi.page_locations) != count or num_rows is None:
        return None
    firsts = [p.first_row_index for p in oi.page_locations]
    return list(zip(firsts, firsts[1:] + [num_rows]))


def _slice(values, start, stop):
    if isinstance(values, V.BinaryValues):
        return values.offsets[start:stop + 1], values.data
    return values.array[start:stop]


def _extremes(acc, ordering, page_values, nulls):
    """(min raw, max raw, nan count) of a page's values, also folded into the chunk's."""
    if ordering.kind == "int96":
        lo, hi = _int96_extremes(page_values)
        acc.null_count += nulls
        if lo is not None:
            acc.lo = _wider(acc.lo, (ordering.key(lo), lo), min)
            acc.hi = _wider(acc.hi, (ordering.key(hi), hi), max)
        return lo, hi, 0
    st = acc.page(page_values, nulls)
    return st.min_value, st.max_value, st.nan_count or 0


def _wider(current, candidate, pick):
    return candidate if current is None else pick(current, candidate, key=lambda c: c[0])


def _int96_extremes(rows):
    rows = np.ascontiguousarray(rows, np.uint8).reshape(-1, 12)
    if not len(rows):
        return None, None
    nanos = rows[:, :8].copy().view("<i8").reshape(-1)
    days = rows[:, 8:].copy().view("<i4").reshape(-1)
    order = np.lexsort((nanos, days))
    return rows[order[0]].tobytes(), rows[order[-1]].tobytes()


def _check_page(ctx, walk, page, sub, nulls, rows, extremes, where, i, ci, span):
    ordering = walk.ordering
    at = page.offset
    what = f"the page at offset {at}"
    stats = sub.statistics
    null_bugs = ctx.trust.bugs_for(walk.node, ordering, "null_count")
    claims = []
    if stats is not None and stats.null_count is not None:
        claims.append(("its statistics' null_count", stats.null_count, null_bugs))
    if page.header.type == PageType.DATA_PAGE_V2 and sub.num_nulls is not None and \
            sub.num_nulls >= 0:
        claims.append(("its header's num_nulls", sub.num_nulls, []))
    if ci is not None and ci.null_counts is not None:
        claims.append((f"ColumnIndex entry {i}'s null count", ci.null_counts[i], null_bugs))
    for name, claim, bugs in claims:
        if claim != nulls and claim >= 0:      # a negative count is reported on its own
            ctx.add("PQ-DEEP-005", f"{what} holds {nulls} nulls, {name} says {claim}", at,
                    where, bugs=bugs)
    if page.header.type == PageType.DATA_PAGE_V2 and sub.num_rows is not None and \
            sub.num_rows != rows:
        ctx.add("PQ-DEEP-006", f"{what} holds {rows} rows, its header's num_rows says "
                f"{sub.num_rows}", at, where)
    if span is not None and walk.node.max_repetition_level > 0 and \
            page.header.type == PageType.DATA_PAGE and span[1] - span[0] != rows:
        ctx.add("PQ-INDEX-004", f"the OffsetIndex gives {what} rows {span[0]} to {span[1]}, "
                f"its repetition levels hold {rows} rows", at, where)
    lo, hi, nans = extremes
    if stats is not None:
        _check_inside(ctx, ordering, stats, lo, hi, "PQ-DEEP-002",
                      f"the statistics of the page at offset {at}", at, where)
        if stats.nan_count is not None and stats.nan_count != nans:
            ctx.add("PQ-DEEP-008", f"{what} holds {nans} NaNs, its statistics' nan_count "
                    f"says {stats.nan_count}", at, where)
    if ci is not None and not ci.null_pages[i]:
        _check_inside_bounds(ctx, ordering, ci.min_values[i], ci.max_values[i], None, None,
                             lo, hi, "PQ-DEEP-004",
                             f"ColumnIndex entry {i} (the page at offset {at})", at, where)


def _check_inside(ctx, ordering, stats, lo, hi, rule, what, offset, where):
    b_lo, b_hi, lo_exact, hi_exact = effective_bounds(stats, ordering)
    new = stats.min_value is not None or stats.max_value is not None
    explicit = (stats.is_min_value_exact, stats.is_max_value_exact) if new else (None, None)
    _check_inside_bounds(ctx, ordering, b_lo, b_hi, *explicit, lo, hi, rule, what, offset,
                         where, implicit=new)


def _check_inside_bounds(ctx, ordering, b_lo, b_hi, lo_exact, hi_exact, lo, hi, rule, what,
                         offset, where, implicit=True):
    """Values with extremes (lo, hi) must lie in [b_lo, b_hi]; an exact bound must be one.

    ``implicit``: the bounds are min_value/max_value or ColumnIndex bounds, whose order
    a file without column_orders leaves undefined (then only warnings)."""
    if ordering.kind is None or lo is None:
        return
    bugs = min_max_untrusted(ctx.trust, ordering.node, ordering, b_lo, b_hi)
    note = ordering.implicit_note() if implicit else None
    v_lo, v_hi = ordering.value(lo), ordering.value(hi)
    for name, bound, exact, value, outside in (
            ("min", b_lo, lo_exact, v_lo, lambda b, v: v < b),
            ("max", b_hi, hi_exact, v_hi, lambda b, v: v > b)):
        if bound is None:
            continue
        try:
            key = ordering.value(bound)
        except BoundSizeError:
            continue                      # reported by the statistics rules
        if key is None or value is None:
            continue
        shown = ordering.show(lo if name == "min" else hi)
        if outside(key, value):
            ctx.add(rule, f"{what}: {name} bound {ordering.show(bound)}, but the values "
                    f"reach {shown}", offset, where, bugs=bugs, note=note)
        elif exact and key != value:
            ctx.add("PQ-DEEP-007", f"{what}: {name} bound {ordering.show(bound)} is marked "
                    f"exact, but the {name} of the values is {shown}", offset, where, bugs=bugs,
                    note=note)


def _check_chunk(ctx, walk, acc, rows_total):
    ordering, cmd = walk.ordering, walk.meta
    stats = cmd.statistics
    where = walk.where
    lo = None if acc.lo is None else acc.lo[1]
    hi = None if acc.hi is None else acc.hi[1]
    what = f"the statistics of the chunk at offset {walk.start}"
    if stats is not None:
        _check_inside(ctx, ordering, stats, lo, hi, "PQ-DEEP-003", what, walk.start, where)
        if stats.null_count is not None and stats.null_count != acc.null_count:
            ctx.add("PQ-DEEP-005", f"the chunk at offset {walk.start} holds {acc.null_count} "
                    f"nulls, its statistics' null_count says {stats.null_count}", walk.start,
                    where, bugs=ctx.trust.bugs_for(walk.node, ordering, "null_count"))
        if stats.nan_count is not None and ordering.floating and \
                stats.nan_count != acc.nan_count:
            ctx.add("PQ-DEEP-008", f"the chunk at offset {walk.start} holds {acc.nan_count} "
                    f"NaNs, its statistics' nan_count says {stats.nan_count}", walk.start,
                    where)
    expected = ctx.md.row_group(walk.row_group).num_rows
    if walk.num_rows is None and expected is not None and rows_total != expected:
        ctx.add("PQ-ROWS-002", f"the chunk at offset {walk.start} holds {rows_total} rows by "
                f"its repetition levels, its row group {expected}", walk.start, where)


__all__ = ["check_values"]
