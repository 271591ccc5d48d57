"""Page index rules: the OffsetIndex against the pages walked, the ColumnIndex against itself.

For a chunk whose pages were walked (see :mod:`pqkit.inspect.verify.chunk_rules`):

* OffsetIndex ``page_locations`` are exactly the data pages, in order, each
  with its offset and header + payload size (PQ-INDEX-002);
* ``first_row_index`` is 0 for the first page, strictly increasing and below
  the row group's rows (PQ-INDEX-003); each page's span of rows equals the
  rows it holds where that is known without decoding: v2 pages state them, a
  column without repetition has one value per row (PQ-INDEX-004);
* ColumnIndex ``null_pages[i]`` is true exactly when every value of page i is
  null, as ``null_counts`` and the page's ``num_values`` tell (PQ-INDEX-006),
  and a null page's bounds are empty (PQ-INDEX-007);
* the bounds of non-null pages are legal as statistics are (PQ-INDEX-009) and
  ``boundary_order`` holds: ASCENDING means ``min_values`` and ``max_values``
  never decrease from one non-null page to the next, DESCENDING never increase
  (PQ-INDEX-008);
* ``null_counts`` add up to the chunk's ``null_count`` (PQ-INDEX-011);
* a chunk with a dictionary page and an OffsetIndex should declare the
  dictionary's offset (PQ-INDEX-014, a warning): the OffsetIndex lists data pages
  only, and without ``dictionary_page_offset`` a reader that seeks to single
  pages must know to fetch the bytes from the chunk's start to its first indexed
  page. Every major reader does; parquet-mr before 1.15.0 (PARQUET-1850,
  parquet-java #2962) and Polars before 1.39.0 (polars #26531) wrote such files.

Example: pages with bounds [1, 5], [3, 9], [2, 12] are not ASCENDING (the
min goes 3 -> 2) although every max increases.
"""
from pqkit.chunk_range import dictionary_header_padding
from pqkit.errors import EncryptedFileError, ParquetError
from pqkit.format import BoundaryOrder, PageType, Type
from pqkit.inspect.verify.findings import Where
from pqkit.inspect.verify.ordering import TYPE_ORDER, BoundSizeError
from pqkit.inspect.verify.stats_rules import check_bounds
from pqkit.inspect.verify.writer_bugs import min_max_untrusted
from pqkit.read.fetch.page_index import read_column_index, read_offset_index

INDEX_RULES = {name: "PQ-INDEX-009" for name in ("size", "nan", "zero", "order")}


def check_page_index(ctx, g, node, chunk, ordering, walk=None):
    """Check a chunk's OffsetIndex and ColumnIndex; returns (ColumnIndex, OffsetIndex)."""
    where = Where(g, node.dotted_path)
    if chunk.crypto_metadata is not None or (chunk.offset_index_offset is None and
                                             chunk.column_index_offset is None):
        return None, None
    limit = ctx.md.footer_offset
    oi = ci = None
    try:
        oi = read_offset_index(ctx.src, chunk, limit, str(where),
                               dictionary_header_padding(ctx.md.created_by))
    except EncryptedFileError:
        return None, None
    except ParquetError as exc:
        ctx.add("PQ-INDEX-001", str(exc), chunk.offset_index_offset, where)
    if oi is not None:
        num_rows = ctx.md.row_group(g).num_rows or 0
        _check_dictionary_offset(ctx, walk, where)
        _check_locations(ctx, oi, walk, where, chunk.offset_index_offset)
        ranges = _check_first_rows(ctx, oi, num_rows, where, chunk.offset_index_offset)
        if ranges is not None:
            _check_page_rows(ctx, oi, ranges, walk, where)
    try:
        ci = read_column_index(ctx.src, chunk, limit, str(where),
                               None if oi is None else len(oi.page_locations))
    except ParquetError as exc:
        ctx.add("PQ-INDEX-005", str(exc), chunk.column_index_offset, where)
    if ci is not None:
        if oi is None:
            ctx.add("PQ-INDEX-010", f"the ColumnIndex at offset {chunk.column_index_offset} "
                    "has no OffsetIndex to locate its pages", chunk.column_index_offset, where)
        _check_column_index(ctx, ci, oi, walk, ordering, where, chunk)
    return ci, oi


def _walked(walk, count):
    """The walked data pages when they can be matched one to one with ``count`` entries."""
    if walk is None or not walk.complete:
        return None
    pages = walk.data_pages
    return pages if len(pages) == count else None


def _check_dictionary_offset(ctx, walk, where):
    dictionary = None if walk is None else walk.dictionary_page
    if dictionary is not None and walk.meta.dictionary_page_offset != dictionary.offset:
        ctx.add("PQ-INDEX-014", f"the chunk has an OffsetIndex and a dictionary page at offset "
                f"{dictionary.offset}, but dictionary_page_offset is "
                f"{walk.meta.dictionary_page_offset}: a reader that seeks to the pages the "
                "OffsetIndex lists must take the dictionary from the chunk's start, as every "
                "major reader does (written by parquet-mr before 1.15.0, PARQUET-1850 and "
                "parquet-java #2962, and by Polars before 1.39.0, polars #26531)",
                dictionary.offset, where)


def _check_locations(ctx, oi, walk, where, at):
    if walk is None or not walk.complete:
        return
    listed = [(p.offset, p.compressed_page_size) for p in oi.page_locations]
    walked = [(p.offset, p.header_size + len(p.payload)) for p in walk.data_pages]
    if len(listed) != len(walked):
        ctx.add("PQ-INDEX-002", f"the OffsetIndex at offset {at} lists {len(listed)} pages, "
                f"the chunk at offset {walk.start} has {len(walked)} data pages", at, where)
        return
    for i, (mine, theirs) in enumerate(zip(listed, walked)):
        if mine != theirs:
            ctx.add("PQ-INDEX-002", f"OffsetIndex (at offset {at}) page {i} is at offset "
                    f"{mine[0]} with {mine[1]} bytes, the walked data page is at offset "
                    f"{theirs[0]} with {theirs[1]} bytes (header included)", theirs[0],
                    where.page(theirs[0]))
            return


def _check_first_rows(ctx, oi, num_rows, where, at):
    """Row spans [(first, stop)] of the pages, or None when first_row_index is broken."""
    locs = oi.page_locations
    firsts = [loc.first_row_index for loc in locs]
    if not firsts:
        return []
    problem = None
    if firsts[0] != 0:
        problem = (0, f"the first page starts at row {firsts[0]}, not 0")
    else:
        for i in range(1, len(firsts)):
            if firsts[i] <= firsts[i - 1]:
                problem = (i, f"page {i} starts at row {firsts[i]}, not after page {i - 1} "
                              f"(row {firsts[i - 1]})")
                break
        else:
            if firsts[-1] >= max(num_rows, 1):
                problem = (len(firsts) - 1, f"the last page starts at row {firsts[-1]} of a "
                                            f"row group of {num_rows} rows")
    if problem is not None:
        i, text = problem
        off = locs[i].offset
        ctx.add("PQ-INDEX-003", f"OffsetIndex at offset {at}: {text}", off, where.page(off))
        return None
    return list(zip(firsts, firsts[1:] + [num_rows]))


def _check_page_rows(ctx, oi, ranges, walk, where):
    pages = _walked(walk, len(ranges))
    if pages is None:
        return
    repeated = walk.node.max_repetition_level > 0
    for page, (first, stop) in zip(pages, ranges):
        h = page.header
        if h.type == PageType.DATA_PAGE_V2:
            rows = h.data_page_header_v2.num_rows
        elif not repeated:
            rows = h.data_page_header.num_values
        else:
            continue
        if rows != stop - first:
            ctx.add("PQ-INDEX-004", f"the OffsetIndex gives the page at offset {page.offset} "
                    f"rows {first} to {stop} ({stop - first}), the page holds {rows}",
                    page.offset, where.page(page.offset))


def _check_column_index(ctx, ci, oi, walk, ordering, where, chunk):
    at = chunk.column_index_offset
    n = len(ci.null_pages)
    pages = _walked(walk, n)
    locs = oi.page_locations if oi is not None and len(oi.page_locations) == n else None
    if ordering.order_name == TYPE_ORDER and ordering.physical == Type.INT96:
        ctx.add("PQ-INDEX-012", f"a ColumnIndex at offset {at} for an INT96 column under "
                "TYPE_ORDER, where INT96 has no order; readers must ignore it", at, where)
    _check_histograms(ctx, ci, n, ordering.node, where, at)
    bounds = []
    for i in range(n):
        off = locs[i].offset if locs is not None else at
        pw = where.page(off) if locs is not None else where
        entries = None if pages is None else _page_values(pages[i])
        null_page = bool(ci.null_pages[i])
        nulls = None if ci.null_counts is None else ci.null_counts[i]
        _check_null_page(ctx, i, null_page, nulls, entries, off, pw, at)
        lo, hi = ci.min_values[i], ci.max_values[i]
        if null_page:
            if lo or hi:
                ctx.add("PQ-INDEX-007", f"ColumnIndex (at offset {at}) entry {i} is a null page "
                        f"with bounds {lo.hex() or 'empty'} / {hi.hex() or 'empty'}; they must "
                        "be empty", off, pw)
            continue
        lo_key, hi_key = check_bounds(ctx, ordering, lo, hi, f"ColumnIndex (at offset {at}) "
                                      f"entry {i}", off, pw, INDEX_RULES)
        if lo_key is not None and hi_key is not None:
            bounds.append((i, off, _order_key(ordering, lo), _order_key(ordering, hi)))
    _check_boundary_order(ctx, ci, bounds, ordering, where, at)
    _check_null_total(ctx, ci, ordering, where, at, chunk)


def _page_values(page):
    h = page.header
    sub = h.data_page_header if h.type == PageType.DATA_PAGE else h.data_page_header_v2
    return sub.num_values


def _check_null_page(ctx, i, null_page, nulls, entries, off, where, at):
    text, bugs = None, None
    if nulls is not None and nulls < 0:
        text = f"null count {nulls}"
        bugs = ctx.trust.file_bugs("negative_null_counts") if nulls == -1 else None
    elif nulls is not None and entries is not None:
        if nulls > entries:
            text = f"null count {nulls} for a page of {entries} values"
        elif null_page and nulls != entries:
            text = f"a null page, but only {nulls} of its {entries} values are null"
        elif not null_page and entries and nulls == entries:
            text = f"not a null page, but all {entries} of its values are null"
    elif null_page and nulls == 0:
        text = "a null page with null count 0"
    if text:
        ctx.add("PQ-INDEX-006", f"ColumnIndex (at offset {at}) entry {i}: {text}", off, where,
                bugs=bugs)


def _order_key(ordering, raw):
    try:
        return ordering.key(raw) if ordering.total else ordering.value(raw)
    except BoundSizeError:
        return None


def _check_boundary_order(ctx, ci, bounds, ordering, where, at):
    order = ci.boundary_order
    if order not in (BoundaryOrder.ASCENDING, BoundaryOrder.DESCENDING) or \
            ordering.kind is None:
        return
    ascending = order == BoundaryOrder.ASCENDING
    bugs = min_max_untrusted(ctx.trust, ordering.node, ordering, None, None)
    pairs = [b for b in bounds if b[2] is not None and b[3] is not None]
    for (i, _, lo1, hi1), (j, off, lo2, hi2) in zip(pairs, pairs[1:]):
        broken = (lo2 < lo1 or hi2 < hi1) if ascending else (lo2 > lo1 or hi2 > hi1)
        if broken:
            ctx.add("PQ-INDEX-008", f"the ColumnIndex at offset {at} says "
                    f"{BoundaryOrder(order).name}, but entry {j} ({_show(ordering, lo2)} .. "
                    f"{_show(ordering, hi2)}) does not follow entry {i} "
                    f"({_show(ordering, lo1)} .. {_show(ordering, hi1)})", off,
                    where.page(off) if off != at else where, bugs=bugs)
            return


def _show(ordering, key):
    if isinstance(key, (bytes, bytearray)):
        return repr(bytes(key)) if len(key) <= 40 else repr(bytes(key[:37])) + "..."
    return str(key)


def _check_null_total(ctx, ci, ordering, where, at, chunk):
    cmd = chunk.meta_data
    stats = None if cmd is None else cmd.statistics
    if ci.null_counts is None or stats is None or stats.null_count is None:
        return
    total = sum(ci.null_counts)
    if total != stats.null_count:
        ctx.add("PQ-INDEX-011", f"the ColumnIndex at offset {at} counts {total} nulls, the "
                f"chunk statistics {stats.null_count}", at, where,
                bugs=ctx.trust.bugs_for(ordering.node, ordering, "null_count"))


def _check_histograms(ctx, ci, n, node, where, at):
    for name, level in (("repetition_level_histograms", node.max_repetition_level),
                        ("definition_level_histograms", node.max_definition_level)):
        hist = getattr(ci, name)
        if hist is not None and len(hist) != n * (level + 1):
            ctx.add("PQ-INDEX-013", f"the ColumnIndex at offset {at} has {len(hist)} "
                    f"{name} entries; {n} pages of max level {level} need {n * (level + 1)}",
                    at, where)

