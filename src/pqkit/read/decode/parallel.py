"""Reading row groups with their column chunks decoded on several threads.

Every (row group, leaf) chunk is one task for :func:`pqkit.threads.map_ordered`:
reading its bytes, decompressing, decoding levels and values and typing the
leaf. Nesting the leaves into columns and checking row counts stay in the
calling thread, row group by row group, so the Tables are the ones a
single-threaded read builds. A file that fails is read again in the calling
thread, so the error raised is the one a single-threaded read raises first
(a later row group's chunk may fail on a worker before an earlier row group's
row count is checked).
"""
from pqkit.errors import ParquetError
from pqkit.threads import map_ordered

__all__ = ["read_row_groups"]


def read_row_groups(reader, groups, tops, wanted, use_threads=True):
    """One Table per row group in ``groups`` (a :class:`RowGroupReader` read of the
    top-level nodes ``tops`` and leaf paths ``wanted``)."""
    groups = list(groups)
    for g in groups:
        # Decode and check each row group's footer part here, not in racing workers.
        reader.metadata.checked_row_group(g)
    nodes = [n for n in reader.schema.columns if n.path in wanted]
    tasks = [(g, node) for g in groups for node in nodes]
    try:
        decoded = iter(map_ordered(lambda task: reader.decode_leaf(*task), tasks, use_threads))
    except ParquetError:
        reader = reader.restarted()
        return [reader.read(g, tops, wanted) for g in groups]
    return [reader.group_table(g, tops, {node.path: next(decoded) for node in nodes})
            for g in groups]
