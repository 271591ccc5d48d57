"""The byte ranges a read will fetch, planned before any of them is read.

For each selected row group (after pruning by chunk statistics when there is a
filter) a plan names every range the read may touch:

* the column chunk of each selected leaf and of each filtered leaf
  (:func:`pqkit.chunk_range.chunk_range`, the one rule for a chunk's bytes);
* with a filter, the ColumnIndex and OffsetIndex of those chunks, which decide
  which pages the read decodes.

A filtered read may then need fewer bytes than planned (only the pages whose
rows can match), never more, so a caller who fetches the planned ranges itself
can decode with ``ParquetFile.read(..., buffers=...)``. Ranges are returned
sorted and unmerged; :func:`pqkit.read.fetch.coalesce.coalesce` turns them into
requests.
"""
from collections import namedtuple

from pqkit.chunk_range import chunk_range, where_of
from pqkit.read.fetch.page_index import index_location

__all__ = ["ByteRange", "fetch_ahead", "plan_chunks", "plan_indexes", "plan_read"]

ByteRange = namedtuple("ByteRange", ["offset", "length"])
ByteRange.__doc__ = """A range of a file's bytes: offset and length."""


def _chunks(groups, row_groups, paths):
    """(row group, leaf node, ColumnChunk) of the leaves with paths in ``paths``."""
    for g in row_groups:
        for node in groups.schema.columns:
            if node.path in paths:
                yield g, node, groups.column_chunk(g, node)


def plan_chunks(groups, row_groups, wanted):
    """The chunk ranges of the leaves whose paths are in ``wanted``, in ``row_groups``.

    Parameters
    ----------
    groups : pqkit.read.decode.row_group.RowGroupReader
    row_groups : iterable of int
    wanted : set of tuple
        Leaf paths.
    """
    limit = groups.metadata.footer_offset
    return sorted(ByteRange(*chunk_range(chunk, limit, where_of(node, g), groups.pad))
                  for g, node, chunk in _chunks(groups, row_groups, wanted)
                  if chunk.meta_data.num_values != 0)


def plan_indexes(groups, row_groups, leaves):
    """The ColumnIndex and OffsetIndex ranges of the leaves with paths in ``leaves``."""
    out = []
    limit = groups.metadata.footer_offset
    for g, node, chunk in _chunks(groups, row_groups, leaves):
        for kind in ("column_index", "offset_index"):
            loc = index_location(chunk, kind, limit, where_of(node, g))
            if loc is not None:
                out.append(ByteRange(loc.offset, loc.length))
    return sorted(out)


def plan_read(groups, row_groups, wanted, filtered=None):
    """Every range a read of leaves ``wanted`` in ``row_groups`` may fetch, sorted.

    ``filtered`` is the read's :class:`pqkit.read.prune.filtered.FilteredReader`, or None: with
    one, row groups its statistics rule out are left out, and the filtered leaves' chunks
    and the page indexes are added.
    """
    if filtered is None:
        return plan_chunks(groups, row_groups, wanted)
    kept = [g for g in row_groups if filtered.group_may_match(g)]
    leaves = set(wanted) | filtered.filter_selection()[1]
    return sorted(plan_indexes(groups, kept, leaves) + plan_chunks(groups, kept, leaves))


def fetch_ahead(groups, row_groups, wanted, filtered=None):
    """Let a remote source fetch, coalesced and concurrently, what a read will need first:
    the whole chunks of an unfiltered read, the page indexes of a filtered one (which
    then fetches only the pages that can match). A local source skips this."""
    if not groups.source.ranged:
        return
    if filtered is None:
        groups.source.prefetch(plan_chunks(groups, row_groups, wanted))
    else:
        kept = [g for g in row_groups if filtered.group_may_match(g)]
        groups.source.prefetch(plan_indexes(groups, kept,
                                            set(wanted) | filtered.filter_selection()[1]))
