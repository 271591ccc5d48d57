"""String and binary columns exported in Arrow's view layout (``vu`` / ``vz``).

A view array is a validity bitmap, 16 bytes per value (length, then the value
itself when it has at most 12 bytes, else its 4-byte prefix, a buffer number
and an offset; see :mod:`pqkit._native.views`), the variadic data buffers and,
last, an int64 array of those buffers' sizes. pqkit builds the views over the
column's own data, so the data buffers are shared, never copied, and a
consumer that keeps strings as views (polars) takes the column as it is,
where it would copy a ``string``/``large_string`` array into its own layout.

A column decoded from a dictionary (rows gathered from the distinct values,
see :class:`pqkit.columnar.column.BinaryColumn`) never builds its rows' bytes:
the views of the distinct values are made once and gathered by row, and the
data buffers are the distinct values' own. ``["ab", "ab", None]`` over the
dictionary ``["ab"]`` exports the view of ``"ab"`` twice, a third view
(any: its slot is null) and no data buffer at all.
"""
import numpy as np

from pqkit._native.views import binary_views

_VIEW = np.dtype((np.void, 16))


def binary_view_node(column, bitmap, nulls):
    """The array node of a string/binary column in the view layout."""
    gathered = getattr(column, "_gathered", None)
    if gathered is not None:
        source, positions = gathered
        views, buffers = binary_views(np.ascontiguousarray(source.offsets, np.int64),
                                      np.ascontiguousarray(source.data))
        views = np.take(views.view(_VIEW).reshape(-1), positions)
    else:
        views, buffers = binary_views(np.ascontiguousarray(column.offsets, np.int64),
                                      np.ascontiguousarray(column.data))
    sizes = np.array([len(b) for b in buffers], np.int64)
    return (len(column), nulls, 0, (bitmap, views, *buffers, sizes), (), None)
