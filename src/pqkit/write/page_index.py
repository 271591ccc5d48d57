"""Building the page index (ColumnIndex and OffsetIndex) of a written column chunk.

The OffsetIndex lists every data page: its file offset, its size (header
included), the index of its first row within the row group and, for byte
arrays, its unencoded value bytes. The
ColumnIndex gives, per page, whether it holds only nulls, its bounds (the page
statistics' min_value/max_value), its null count, its repetition/definition level histograms (concatenated page
after page), and the ``boundary_order``
that holds over the pages' bounds in the column's sort order (ASCENDING when
both the mins and the maxes never decrease, DESCENDING when they never
increase, UNORDERED otherwise; null pages are skipped in that check).

A chunk whose pages lack bounds where they have values (statistics off, an
all-NaN page) gets no ColumnIndex.
"""
import struct

import numpy as np

from pqkit import format as fmt
from pqkit.encodings.physical import struct_format
from pqkit.format import BoundaryOrder, ConvertedType, Type
from pqkit.statistics import is_unsigned



def offset_index(pages):
    """OffsetIndex for a chunk's written pages (:class:`pqkit.write.chunk.PageRecord`)."""
    unencoded = [p.byte_array_bytes for p in pages]
    return fmt.OffsetIndex(page_locations=[
        fmt.PageLocation(offset=p.offset, compressed_page_size=p.size,
                         first_row_index=p.first_row) for p in pages],
        unencoded_byte_array_data_bytes=unencoded if all(u is not None for u in unencoded)
        and unencoded else None)


def _histograms(pages, attr):
    hists = [getattr(p, attr) for p in pages]
    if not hists or any(h is None for h in hists):
        return None
    return [c for h in hists for c in h]


def sort_key(node):
    """A function mapping a PLAIN-encoded bound to a Python value ordered as the column's
    sort order, or None where the type has no order (INT96, INTERVAL)."""
    physical = Type(node.physical_type)
    lt, ct = node.logical_type, node.converted_type
    if physical == Type.INT96 or ct == ConvertedType.INTERVAL:
        return None
    code = struct_format(physical, is_unsigned(node))
    if code is not None:
        return lambda raw: struct.unpack(code, raw)[0]
    if physical == Type.BOOLEAN:
        return lambda raw: raw[0]
    is_decimal = (lt is not None and lt.DECIMAL is not None) or ct == ConvertedType.DECIMAL
    if is_decimal:
        return lambda raw: int.from_bytes(raw, "big", signed=True)
    if lt is not None and lt.FLOAT16 is not None:
        return lambda raw: float(np.frombuffer(raw, "<f2")[0])
    return bytes


def column_index(node, pages):
    """ColumnIndex for a chunk's pages, or None when the bounds are incomplete."""
    key = sort_key(node)
    if key is None or not pages:
        return None
    null_pages, mins, maxs, null_counts = [], [], [], []
    for p in pages:
        st = p.statistics
        all_null = p.num_values == 0
        if st is None:
            return None
        if all_null:
            null_pages.append(True)
            mins.append(b"")
            maxs.append(b"")
        else:
            if st.min_value is None or st.max_value is None:
                return None
            null_pages.append(False)
            mins.append(bytes(st.min_value))
            maxs.append(bytes(st.max_value))
        null_counts.append(p.null_count)
    return fmt.ColumnIndex(null_pages=null_pages, min_values=mins, max_values=maxs,
                           boundary_order=boundary_order(key, null_pages, mins, maxs),
                           null_counts=null_counts,
                           repetition_level_histograms=_histograms(pages, "rep_histogram"),
                           definition_level_histograms=_histograms(pages, "def_histogram"))


def boundary_order(key, null_pages, mins, maxs):
    """ASCENDING, DESCENDING or UNORDERED for the non-null pages' bounds."""
    lo = [key(m) for m, n in zip(mins, null_pages) if not n]
    hi = [key(m) for m, n in zip(maxs, null_pages) if not n]
    pairs = list(zip(lo, hi))
    if all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(pairs, pairs[1:])):
        return BoundaryOrder.ASCENDING
    if all(a[0] >= b[0] and a[1] >= b[1] for a, b in zip(pairs, pairs[1:])):
        return BoundaryOrder.DESCENDING
    return BoundaryOrder.UNORDERED
