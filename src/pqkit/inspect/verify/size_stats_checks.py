"""SizeStatistics rules: level histograms and byte-array sizes against the pages and the values.

SizeStatistics (format 2.10, PARQUET-2261) tell a reader what a chunk holds
before it decodes anything::

    ColumnMetaData.size_statistics
        unencoded_byte_array_data_bytes   the BYTE_ARRAY values' lengths summed (no length
                                          prefixes; dictionary-encoded values count as values)
        repetition_level_histogram        how often each repetition level occurs (max_rep + 1)
        definition_level_histogram        how often each definition level occurs (max_def + 1)
    ColumnIndex.repetition/definition_level_histograms    the same per page, concatenated
    OffsetIndex.unencoded_byte_array_data_bytes            the same per page

Any of them may be left out; an empty histogram counts as left out (Arrow
C++ writes ``[]`` for a max level of 0 and its reader accepts it). From the
metadata and the page headers alone:

* a chunk histogram has max level + 1 entries and no count is negative
  (PQ-SIZE-001; the ColumnIndex lengths are PQ-INDEX-013); only BYTE_ARRAY
  columns have byte counts (PQ-SIZE-002);
* a chunk histogram counts every level entry: its counts add up to
  num_values, and repetition level 0 (a row's start) occurs once per row of
  the row group (PQ-SIZE-003);
* each page's histogram adds up to its header's num_values, and the pages'
  histograms add up to the chunk's (PQ-SIZE-004);
* the OffsetIndex's byte counts add up to the chunk's (PQ-SIZE-005).

With ``--deep`` they are held against the decoded chunk, per chunk and per
page: byte counts against the lengths of the non-null values (PQ-SIZE-006),
histograms against the levels (PQ-SIZE-007).

Example: an optional string column (max_def 1, max_rep 0) holding ``"ab"``,
null, ``"cde"`` in one page has num_values 3, definition_level_histogram
``[1, 2]`` and unencoded_byte_array_data_bytes 5. A histogram ``[2, 2]``
breaks PQ-SIZE-003 (4 entries for 3 values); ``[2, 1]`` adds up, but breaks
PQ-SIZE-007 under ``--deep``; bytes 7 break PQ-SIZE-006.
"""
import numpy as np

from pqkit.format import Type
from pqkit.inspect.verify.decoded import data_header
from pqkit.inspect.verify.findings import Where

_KINDS = ("repetition", "definition")


def _max_level(node, kind):
    return node.max_repetition_level if kind == "repetition" else node.max_definition_level


def _problem(hist, level):
    if len(hist) != level + 1:
        return f"has {len(hist)} entries; a max level of {level} needs {level + 1}"
    if min(hist) < 0:
        return f"holds a negative count ({min(hist)})"
    return None


def _chunk_problem(cmd, rows, node, kind):
    """(rule, text) of what is wrong with a chunk histogram that is present, or None."""
    name = f"{kind}_level_histogram"
    hist = getattr(cmd.size_statistics, name)
    problem = _problem(hist, _max_level(node, kind))
    if problem:
        return "PQ-SIZE-001", f"{name} {problem}"
    total = sum(hist)
    if cmd.num_values is not None and total != cmd.num_values:
        return "PQ-SIZE-003", (f"{name} {hist} counts {total} level entries, num_values is "
                               f"{cmd.num_values}")
    if kind == "repetition" and len(hist) > 1 and rows is not None and hist[0] != rows:
        return "PQ-SIZE-003", (f"{name} {hist} starts {hist[0]} rows (repetition level 0), "
                               f"the row group has {rows}")
    return None


def _histogram(cmd, rows, node, kind):
    """The chunk's histogram of ``kind`` when present and sound (a broken one is reported
    once, by :func:`check_chunk_metadata`, and not compared again), else None."""
    ss = None if cmd is None else cmd.size_statistics
    hist = None if ss is None else getattr(ss, f"{kind}_level_histogram")
    if not hist or _chunk_problem(cmd, rows, node, kind):
        return None
    return hist


def _page_histograms(ci, node, kind):
    """The ColumnIndex's per-page histograms as a (pages, level + 1) array, or None when
    absent or of the wrong length (PQ-INDEX-013)."""
    flat = getattr(ci, f"{kind}_level_histograms")
    n, width = len(ci.null_pages), _max_level(node, kind) + 1
    if not flat or len(flat) != n * width:
        return None
    return np.asarray(flat, np.int64).reshape(n, width)


def _page_sizes(oi, count):
    sizes = None if oi is None else oi.unencoded_byte_array_data_bytes
    if sizes is None or len(sizes) != count or (sizes and min(sizes) < 0):
        return None
    return np.asarray(sizes, np.int64)


def _chunk_bytes(size_statistics):
    u = None if size_statistics is None else size_statistics.unencoded_byte_array_data_bytes
    return None if u is None or u < 0 else u


# -- from the metadata -----------------------------------------------------------------------
def check_chunk_metadata(ctx, g, node, chunk):
    """PQ-SIZE-001..003: a chunk's SizeStatistics against themselves and the chunk's counts."""
    cmd = chunk.meta_data
    ss = None if cmd is None else cmd.size_statistics
    if ss is None:
        return
    where = Where(g, node.dotted_path)
    at = ctx.md.footer_offset
    what = f"the chunk's SizeStatistics (footer at offset {at})"
    rows = ctx.md.row_group(g).num_rows
    for kind in _KINDS:
        if not getattr(ss, f"{kind}_level_histogram"):
            continue
        problem = _chunk_problem(cmd, rows, node, kind)
        if problem is not None:
            ctx.add(problem[0], f"{what}: {problem[1]}", at, where)
    u = ss.unencoded_byte_array_data_bytes
    if u is None:
        return
    if node.physical_type != Type.BYTE_ARRAY:
        ctx.add("PQ-SIZE-002", f"{what}: unencoded_byte_array_data_bytes {u} for a "
                f"{node.type_str()} column; only BYTE_ARRAY columns have it", at, where)
    elif u < 0:
        ctx.add("PQ-SIZE-001", f"{what}: unencoded_byte_array_data_bytes is {u}", at, where)


def check_page_index(ctx, walk, node, chunk, ci, oi, where):
    """PQ-SIZE-001/002/004/005: the page index's size fields against the pages walked and
    the chunk's SizeStatistics."""
    cmd = chunk.meta_data
    if ci is not None:
        _check_column_index(ctx, walk, node, chunk, ci, where)
    if oi is not None and oi.unencoded_byte_array_data_bytes is not None:
        _check_offset_index(ctx, node, chunk, oi, None if cmd is None else cmd.size_statistics,
                            where)


def _check_column_index(ctx, walk, node, chunk, ci, where):
    at = chunk.column_index_offset
    n = len(ci.null_pages)
    pages = None
    if walk is not None and walk.complete and len(walk.data_pages) == n:
        pages = walk.data_pages
    for kind in _KINDS:
        name = f"{kind}_level_histograms"
        per_page = _page_histograms(ci, node, kind)
        if per_page is None:
            continue
        if per_page.size and per_page.min() < 0:
            ctx.add("PQ-SIZE-001", f"the ColumnIndex at offset {at}: {name} hold a negative "
                    f"count ({int(per_page.min())})", at, where)
            continue
        if pages is not None:
            declared = np.array([data_header(p).num_values or 0 for p in pages], np.int64)
            counted = per_page.sum(axis=1)
            bad = np.flatnonzero(counted != declared)
            if len(bad):
                i = int(bad[0])
                off = pages[i].offset
                ctx.add("PQ-SIZE-004", f"ColumnIndex (at offset {at}) entry {i}: its {kind} "
                        f"level histogram {per_page[i].tolist()} counts {int(counted[i])} "
                        f"entries, the page at offset {off} holds {int(declared[i])} "
                        f"({_pages_text(len(bad), n)})", off, where.page(off))
        hist = _histogram(chunk.meta_data, ctx.md.row_group(where.row_group).num_rows, node,
                          kind)
        if hist is not None and per_page.sum(axis=0).tolist() != list(hist):
            ctx.add("PQ-SIZE-004", f"the ColumnIndex at offset {at}: the pages' {name} add up "
                    f"to {per_page.sum(axis=0).tolist()}, the chunk's SizeStatistics say "
                    f"{list(hist)}", at, where)


def _check_offset_index(ctx, node, chunk, oi, ss, where):
    at = chunk.offset_index_offset
    sizes = oi.unencoded_byte_array_data_bytes
    if node.physical_type != Type.BYTE_ARRAY:
        ctx.add("PQ-SIZE-002", f"the OffsetIndex at offset {at} has "
                f"unencoded_byte_array_data_bytes for a {node.type_str()} column; only "
                "BYTE_ARRAY columns have them", at, where)
        return
    if sizes and min(sizes) < 0:
        ctx.add("PQ-SIZE-001", f"the OffsetIndex at offset {at}: "
                f"unencoded_byte_array_data_bytes hold a negative count ({min(sizes)})", at,
                where)
        return
    u = _chunk_bytes(ss)
    if u is not None and sum(sizes) != u:
        ctx.add("PQ-SIZE-005", f"the OffsetIndex at offset {at}: the pages' "
                f"unencoded_byte_array_data_bytes add up to {sum(sizes)}, the chunk's "
                f"SizeStatistics say {u}", at, where)


def _pages_text(bad, n):
    return f"{bad} of the {n} pages disagree" if bad > 1 else f"1 of the {n} pages disagrees"


# -- against the decoded chunk (--deep) ---------------------------------------------------------
def check_values(ctx, decoded, ci, oi):
    """PQ-SIZE-006/007: byte counts and level histograms against a decoded chunk."""
    walk = decoded.walk
    node = walk.node
    rows = ctx.md.row_group(walk.row_group).num_rows
    pages = walk.data_pages
    if ci is not None and len(ci.null_pages) != len(pages):
        ci = None
    for kind in _KINDS:
        hist = _histogram(walk.meta, rows, node, kind)
        per_page = None if ci is None else _page_histograms(ci, node, kind)
        if hist is None and per_page is None:
            continue
        counts = _level_counts(decoded, kind)
        if hist is not None and counts.sum(axis=0).tolist() != list(hist):
            ctx.add("PQ-SIZE-007", f"the chunk at offset {walk.start} holds {kind} levels "
                    f"{_counts_text(counts.sum(axis=0))}, its SizeStatistics' "
                    f"{kind}_level_histogram says {list(hist)}", walk.start, walk.where)
        if per_page is not None:
            _check_pages(ctx, walk, pages, counts, per_page, "PQ-SIZE-007",
                         f"ColumnIndex (at offset {walk.chunk.column_index_offset})",
                         f"{kind} level histogram",
                         lambda c, k=kind: f"{k} levels {_counts_text(c)}")
    if node.physical_type == Type.BYTE_ARRAY:
        _check_bytes(ctx, decoded, walk.meta.size_statistics, oi)


def _level_counts(decoded, kind):
    """(pages, levels) array: how often each level occurs in each page. Levels above the
    max (a corrupt page) widen it, so they never match a histogram."""
    levels = decoded.defs if kind == "definition" else decoded.reps
    bounds = decoded.entry_bounds
    pages = len(bounds) - 1
    if levels is None:                    # max level 0: every entry is at level 0
        return np.diff(bounds).reshape(pages, 1)
    width = _max_level(decoded.walk.node, kind) + 1
    if len(levels):
        width = max(width, int(levels.max()) + 1)
    page_of_entry = np.repeat(np.arange(pages, dtype=np.int64), np.diff(bounds))
    flat = np.bincount(page_of_entry * width + levels, minlength=pages * width)
    return flat.reshape(pages, width)


def _counts_text(counts):
    return str(np.asarray(counts).tolist())


def _check_bytes(ctx, decoded, ss, oi):
    walk = decoded.walk
    u = _chunk_bytes(ss)
    sizes = _page_sizes(oi, len(walk.data_pages))
    if u is None and sizes is None:
        return
    offsets = np.asarray(decoded.values.offsets, np.int64)
    bounds = decoded.value_bounds
    per_page = offsets[bounds[1:]] - offsets[bounds[:-1]]
    total = int(offsets[-1] - offsets[0])
    if u is not None and total != u:
        ctx.add("PQ-SIZE-006", f"the chunk at offset {walk.start} holds {total} bytes of "
                f"byte-array values (lengths without prefixes), its SizeStatistics' "
                f"unencoded_byte_array_data_bytes says {u}", walk.start, walk.where)
    if sizes is not None:
        _check_pages(ctx, walk, walk.data_pages, per_page, sizes, "PQ-SIZE-006",
                     f"OffsetIndex (at offset {walk.chunk.offset_index_offset})",
                     "unencoded_byte_array_data_bytes", lambda v: f"{int(v)} bytes of values")


def _check_pages(ctx, walk, pages, actual, claimed, rule, index, field, show):
    """One finding for the pages whose ``actual`` rows differ from ``claimed``: the first,
    and how many."""
    actual = np.asarray(actual)
    claimed = np.asarray(claimed)
    if actual.ndim == 2 and actual.shape[1] != claimed.shape[1]:
        width = max(actual.shape[1], claimed.shape[1])
        actual, claimed = _widen(actual, width), _widen(claimed, width)
    differs = actual != claimed
    bad = np.flatnonzero(differs.any(axis=1) if differs.ndim == 2 else differs)
    if not len(bad):
        return
    i = int(bad[0])
    off = pages[i].offset
    said = claimed[i].tolist()
    ctx.add(rule, f"{index} entry {i}: the page at offset {off} holds {show(actual[i])}, its "
            f"{field} says {said} ({_pages_text(len(bad), len(pages))})", off,
            walk.where.page(off))


def _widen(counts, width):
    out = np.zeros((counts.shape[0], width), np.int64)
    out[:, :counts.shape[1]] = counts
    return out
