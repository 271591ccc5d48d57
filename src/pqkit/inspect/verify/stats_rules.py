"""Statistics rules: bounds legal in the column's order, counts possible, pages inside chunks.

Bounds are read as the reader of the file would (see
:mod:`pqkit.inspect.verify.ordering`): ``min_value``/``max_value`` in the column's
``ColumnOrder``; the deprecated ``min``/``max`` only where the type's order is
signed (they were always compared as signed). For every pair:

* each bound's size fits the physical type (PQ-STATS-006);
* no bound is NaN (PQ-STATS-002), and a zero min is -0.0, a zero max +0.0
  (PQ-STATS-003) -- both only under TYPE_ORDER; the total order has neither
  rule;
* min <= max (PQ-STATS-001);
* ``is_*_value_exact`` only with its bound, and false only where bounds may
  be truncated (byte arrays under the bytewise order) (PQ-STATS-004);
* ``null_count`` and ``distinct_count`` within the values, ``nan_count``
  only for floating columns and within the non-null values.

A page's exact bounds must lie inside its chunk's bounds and the pages' null
counts must add up to the chunk's (PQ-STATS-009). Where the writer-bug table
says the bounds are not to be trusted, what they break is reported as a
warning that names the bug.

Example: a DOUBLE chunk with ``min_value = 00 00 00 00 00 00 00 00`` (+0.0)
and ``max_value = 00 00 00 00 00 00 f8 7f`` (NaN) breaks PQ-STATS-003 (a zero
min must be -0.0) and PQ-STATS-002; under ``IEEE_754_TOTAL_ORDER`` neither
rule applies and +0.0 <= NaN holds.
"""
from pqkit.format import PageType
from pqkit.inspect.verify.findings import WARNING, Where
from pqkit.inspect.verify.ordering import TYPE_ORDER, BoundSizeError, is_floating_column
from pqkit.inspect.verify.writer_bugs import min_max_untrusted
from pqkit.statistics import SIGNED

STATS_RULES = {"size": "PQ-STATS-006", "nan": "PQ-STATS-002", "zero": "PQ-STATS-003",
               "order": "PQ-STATS-001"}
_DATA = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)


def bound_bugs(ctx, ordering, lo, hi):
    """Writer bugs that excuse each kind of bound problem of a column's (lo, hi)."""
    node = ordering.node
    base = min_max_untrusted(ctx.trust, node, ordering, lo, hi)
    return {"size": base, "order": base,
            "nan": base + ctx.trust.bugs_for(node, ordering, "nan_bounds"),
            "zero": base + ctx.trust.bugs_for(node, ordering, "zero_bounds")}


def check_bounds(ctx, ordering, lo, hi, what, offset, where, rules=STATS_RULES,
                 deprecated=False):
    """Check one (min, max) pair; returns their keys (None where absent, NaN or broken).

    ``deprecated`` pairs (``min``/``max``) have their signed order without column_orders;
    others are only warned about then.
    """
    if ordering.kind is None or (lo is None and hi is None):
        return None, None
    bugs = bound_bugs(ctx, ordering, lo, hi)
    note = None if deprecated else ordering.implicit_note()
    keys = []
    for name, raw in (("min", lo), ("max", hi)):
        if raw is None:
            keys.append(None)
            continue
        try:
            ordering.check_size(raw)
        except BoundSizeError as exc:
            ctx.add(rules["size"], f"{what}: the {name} is {exc}", offset, where,
                    bugs=bugs["size"], note=note)
            keys.append(None)
            continue
        if not ordering.total and ordering.is_nan(raw):
            ctx.add(rules["nan"], f"{what}: the {name} is NaN; NaN is never a bound",
                    offset, where, bugs=bugs["nan"], note=note)
            keys.append(None)
            continue
        sign = None if ordering.total else ordering.zero_sign(raw)
        if (name, sign) in (("min", "+"), ("max", "-")):
            want = "-0.0" if name == "min" else "+0.0"
            # The spec tells readers to allow for this (a +0.0 min may hide -0.0), and
            # IEEE comparisons never prune a zero by it: a warning, never an error.
            ctx.add(rules["zero"], f"{what}: a zero {name} is written as {sign}0.0; writers "
                    f"should write {want} (parquet-cpp before Arrow 3.0 and parquet-mr "
                    "before 1.18.0 did not; readers allow for it)", offset, where,
                    bugs=bugs["zero"], note=note, severity=WARNING)
        keys.append(ordering.key(raw))
    if keys[0] is not None and keys[1] is not None and keys[0] > keys[1]:
        ctx.add(rules["order"], f"{what}: min {ordering.show(lo)} > max {ordering.show(hi)} "
                f"under the column's {ordering.describe()}", offset, where,
                bugs=bugs["order"], note=note)
    return keys[0], keys[1]


def effective_bounds(stats, ordering):
    """(min, max, min exact?, max exact?) a reader uses; exactness None when unknown.

    Without column_orders, min_value/max_value are still taken (they are what the
    writer meant); the findings about them are warnings (see Ordering.implicit).
    """
    if stats is None:
        return None, None, None, None
    if stats.min_value is not None or stats.max_value is not None:
        lo_exact, hi_exact = stats.is_min_value_exact, stats.is_max_value_exact
        if not ordering.truncatable:
            lo_exact = hi_exact = True
        return stats.min_value, stats.max_value, lo_exact, hi_exact
    if _deprecated_usable(ordering):
        return stats.min, stats.max, True, True
    return None, None, None, None


def _deprecated_usable(ordering):
    return ordering.sort == SIGNED and ordering.order_name == TYPE_ORDER and \
        ordering.kind is not None


def check_statistics(ctx, ordering, stats, num_values, what, offset, where, chunk=False):
    """All rules of one Statistics struct (a chunk's or a page header's)."""
    if stats is None:
        return
    _check_counts(ctx, ordering, stats, num_values, what, offset, where)
    _check_exactness(ctx, ordering, stats, what, offset, where)
    has_bounds = any(getattr(stats, n) is not None for n in ("min_value", "max_value"))
    if ordering.kind is None:
        if chunk and (has_bounds or stats.min is not None or stats.max is not None):
            ctx.add("PQ-STATS-008", f"{what} has min/max but the column's order is undefined "
                    f"({ordering.node.type_str()}, {ordering.order_name}); readers ignore them",
                    offset, where)
        return
    check_bounds(ctx, ordering, stats.min_value, stats.max_value, what, offset, where)
    if not _deprecated_usable(ordering) or (stats.min is None and stats.max is None) or \
            (stats.min, stats.max) == (stats.min_value, stats.max_value):
        return
    old = check_bounds(ctx, ordering, stats.min, stats.max, what + " (deprecated min/max)",
                       offset, where, {**STATS_RULES, "order": "PQ-STATS-007"},
                       deprecated=True)
    if has_bounds and (stats.min, stats.max) != (stats.min_value, stats.max_value) and \
            None not in old:
        ctx.add("PQ-STATS-007", f"{what}: deprecated min/max {ordering.show(stats.min)} .. "
                f"{ordering.show(stats.max)} differ from min_value/max_value "
                f"{ordering.show(stats.min_value)} .. {ordering.show(stats.max_value)}",
                offset, where)


def _check_counts(ctx, ordering, stats, num_values, what, offset, where):
    nulls = stats.null_count
    if nulls is not None and (nulls < 0 or nulls > num_values):
        bugs = ctx.trust.bugs_for(ordering.node, ordering, "null_count")
        ctx.add("PQ-STATS-005", f"{what}: null_count {nulls} for {num_values} values", offset,
                where, bugs=bugs)
    distinct = stats.distinct_count
    if distinct is not None and (distinct < 0 or distinct > num_values):
        ctx.add("PQ-STATS-011", f"{what}: distinct_count {distinct} for {num_values} values",
                offset, where)
    nans = stats.nan_count
    if nans is None:
        return
    if not is_floating_column(ordering.node):
        ctx.add("PQ-STATS-010", f"{what}: nan_count {nans} on a {ordering.node.type_str()} "
                "column; only FLOAT, DOUBLE and FLOAT16 have it", offset, where,
                severity="warning")
    elif nans < 0 or nans > num_values - max(nulls or 0, 0):
        ctx.add("PQ-STATS-010", f"{what}: nan_count {nans} for {num_values} values of which "
                f"{nulls} are null", offset, where)


def _check_exactness(ctx, ordering, stats, what, offset, where):
    for name in ("min", "max"):
        flag = getattr(stats, f"is_{name}_value_exact")
        if flag is None:
            continue
        if getattr(stats, f"{name}_value") is None:
            ctx.add("PQ-STATS-004", f"{what}: is_{name}_value_exact is set without "
                    f"{name}_value", offset, where, severity="info")
        elif flag is False and ordering.kind is not None and not ordering.truncatable:
            ctx.add("PQ-STATS-004", f"{what}: the {name}_value is marked inexact, but a "
                    f"{ordering.node.type_str()} bound in {ordering.describe()} is never "
                    "truncated", offset, where)


def check_chunk_statistics(ctx, g, node, chunk, ordering):
    """Rules of the statistics in one chunk's ColumnMetaData (no page bytes needed)."""
    cmd = chunk.meta_data
    if cmd is None or cmd.statistics is None or cmd.num_values is None:
        return
    at = ctx.md.footer_offset
    check_statistics(ctx, ordering, cmd.statistics, cmd.num_values,
                     f"the chunk statistics (footer at offset {at})", at,
                     Where(g, node.dotted_path), chunk=True)


def check_page_statistics(ctx, walk):
    """Page header statistics: legal on their own, inside the chunk's, adding up to it."""
    ordering = walk.ordering
    chunk_stats = walk.meta.statistics
    c_lo, c_hi, _, _ = effective_bounds(chunk_stats, ordering)
    bugs = bound_bugs(ctx, ordering, c_lo, c_hi)["order"] if ordering.kind else []
    c_lo_v = _value(ordering, c_lo)
    c_hi_v = _value(ordering, c_hi)
    null_sum, nulls_known = 0, True
    for page in walk.data_pages:
        h = page.header
        sub = h.data_page_header if h.type == PageType.DATA_PAGE else h.data_page_header_v2
        stats = sub.statistics
        where = walk.where.page(page.offset)
        what = f"the statistics of the page at offset {page.offset}"
        if stats is None or stats.null_count is None:
            nulls_known = False
        else:
            null_sum += stats.null_count
        if stats is None:
            continue
        check_statistics(ctx, ordering, stats, sub.num_values or 0, what, page.offset, where)
        if ordering.kind is None:
            continue
        lo, hi, lo_exact, hi_exact = effective_bounds(stats, ordering)
        lo_v, hi_v = _value(ordering, lo), _value(ordering, hi)
        note = ordering.implicit_note() if stats.min_value is not None or \
            stats.max_value is not None else None
        if lo_exact and lo_v is not None and c_lo_v is not None and lo_v < c_lo_v:
            ctx.add("PQ-STATS-009", f"{what}: its min {ordering.show(lo)} is below the chunk's "
                    f"min {ordering.show(c_lo)}", page.offset, where, bugs=bugs, note=note)
        if hi_exact and hi_v is not None and c_hi_v is not None and hi_v > c_hi_v:
            ctx.add("PQ-STATS-009", f"{what}: its max {ordering.show(hi)} is above the chunk's "
                    f"max {ordering.show(c_hi)}", page.offset, where, bugs=bugs, note=note)
    chunk_nulls = None if chunk_stats is None else chunk_stats.null_count
    if walk.complete and nulls_known and walk.data_pages and chunk_nulls is not None and \
            null_sum != chunk_nulls:
        ctx.add("PQ-STATS-009", f"the page statistics of the chunk at offset {walk.start} "
                f"count {null_sum} nulls, the chunk statistics {chunk_nulls}", walk.start,
                walk.where, bugs=ctx.trust.bugs_for(walk.node, ordering, "null_count"))


def _value(ordering, raw):
    """The containment key of a bound, None when absent or unusable."""
    if raw is None or ordering.kind is None:
        return None
    try:
        return ordering.value(raw)
    except BoundSizeError:
        return None


def report_untrusted(ctx):
    """One warning per column whose statistics the writer-bug table distrusts."""
    if not ctx.trust.bugs:
        return
    for g, rg in enumerate(ctx.md.raw.row_groups):
        for node, ordering, chunk in zip(ctx.md.schema.columns, ctx.orderings, rg.columns or []):
            stats = None if chunk.meta_data is None else chunk.meta_data.statistics
            if stats is None:
                continue
            lo, hi, _, _ = effective_bounds(stats, ordering)
            where = Where(column=node.dotted_path)
            if lo is not None or hi is not None:
                for bug in min_max_untrusted(ctx.trust, node, ordering, lo, hi):
                    if bug.announce:
                        ctx.flag_bug(bug, where, "its min/max statistics")
            if stats.null_count is not None:
                for bug in ctx.trust.bugs_for(node, ordering, "null_count"):
                    if bug.announce:
                        ctx.flag_bug(bug, where, "its null counts")
