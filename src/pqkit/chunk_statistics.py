"""Statistics the writer stores for pages and column chunks, exact to the spec's sort orders.

========================================  ====================================================
column                                    order of min_value / max_value
========================================  ====================================================
BOOLEAN                                   false < true
INT32 / INT64                             signed; unsigned for INT(_, false) / UINT_*
FLOAT / DOUBLE, FLOAT16 (FLBA(2))         numeric; NaN is never a bound (an all-NaN page has
                                          none); a zero min is written -0.0, a zero max +0.0
DECIMAL on FLBA / BYTE_ARRAY              signed two's complement, big-endian
other BYTE_ARRAY / FLBA                   unsigned bytewise (shorter prefix first)
INT96, INTERVAL                           no order: no min/max
========================================  ====================================================

Bounds are PLAIN-encoded (byte arrays without their length prefix). A
byte-array bound longer than ``truncate_length`` is cut: the min to its
prefix, the max to its prefix with the last byte below 0xFF incremented (and
dropped when every byte is 0xFF); ``is_min_value_exact`` /
``is_max_value_exact`` say whether that happened. For example the max
``b"abc\\xff\\xff"`` truncated to 3 bytes becomes ``b"abd"``. Truncation keeps
order (a prefix of a smaller value is not larger), so a chunk's bounds are
the extremes of its pages' bounds.
"""
import numpy as np

from . import format as fmt
from ._native.stats import binary_min_max
from .format import ConvertedType, Type

_UNSIGNED_CT = {ConvertedType.UINT_8, ConvertedType.UINT_16, ConvertedType.UINT_32,
                ConvertedType.UINT_64}


def sort_order(node):
    """"SIGNED", "UNSIGNED" or None (no defined order) for a leaf column."""
    physical = Type(node.physical_type)
    lt, ct = node.logical_type, node.converted_type
    if physical == Type.INT96 or ct == ConvertedType.INTERVAL:
        return None
    if physical in (Type.INT32, Type.INT64):
        unsigned = (lt is not None and lt.INTEGER is not None and not lt.INTEGER.isSigned) \
            or ct in _UNSIGNED_CT
        return "UNSIGNED" if unsigned else "SIGNED"
    if physical in (Type.BOOLEAN, Type.FLOAT, Type.DOUBLE):
        return "SIGNED"
    if _is_decimal(node) or (lt is not None and lt.FLOAT16 is not None):
        return "SIGNED"
    return "UNSIGNED"


def _is_decimal(node):
    lt = node.logical_type
    return (lt is not None and lt.DECIMAL is not None) or \
        node.converted_type == ConvertedType.DECIMAL


def column_order(node):
    """The footer's ColumnOrder for a leaf: the type-defined order."""
    return fmt.ColumnOrder(TYPE_ORDER=fmt.TypeDefinedOrder())


class StatisticsAccumulator:
    """Page statistics, folded into the column chunk's.

    Parameters
    ----------
    node : pqkit.SchemaNode
    truncate_length : int
        Longest byte-array bound written (longer ones are truncated).
    """

    def __init__(self, node, truncate_length=64):
        self.node = node
        self.physical = Type(node.physical_type)
        self.order = sort_order(node)
        self.k = int(truncate_length)
        self.is_float16 = node.logical_type is not None and node.logical_type.FLOAT16 is not None
        self.decimal = _is_decimal(node)
        self.nulls = 0
        self.lo = self.hi = None        # (key, raw, exact)
        self.max_lost = False           # a page's max could not be written (all 0xFF prefix)

    def page(self, values, null_count):
        """Statistics of one page's non-null ``values`` (physical layout)."""
        self.nulls += int(null_count)
        bounds = self._bounds(values) if self.order is not None else None
        if bounds is not None:
            lo, hi = bounds
            if self.lo is None or lo[0] < self.lo[0]:
                self.lo = lo
            if hi is None:
                self.max_lost = True
            elif self.hi is None or hi[0] > self.hi[0]:
                self.hi = hi
        return self._statistics(int(null_count), bounds)

    def chunk(self):
        """Statistics of every page seen."""
        bounds = None
        if self.lo is not None:
            bounds = (self.lo, None if self.max_lost else self.hi)
        return self._statistics(self.nulls, bounds)

    # -- helpers -----------------------------------------------------------------------
    def _statistics(self, nulls, bounds):
        st = fmt.Statistics(null_count=nulls)
        if bounds is None:
            return st
        lo, hi = bounds
        st.min_value, st.is_min_value_exact = lo[1], lo[2]
        if hi is not None:
            st.max_value, st.is_max_value_exact = hi[1], hi[2]
            if self.order == "SIGNED" and self.physical in (Type.BOOLEAN, Type.INT32,
                                                            Type.INT64, Type.FLOAT,
                                                            Type.DOUBLE):
                st.min, st.max = st.min_value, st.max_value     # for readers of the old fields
        return st

    def _bounds(self, values):
        """((key, raw, exact), (key, raw, exact) or None) or None when there is no bound."""
        p = self.physical
        if p == Type.BYTE_ARRAY:
            return self._binary_bounds(*values)
        arr = np.asarray(values)
        if len(arr) == 0:
            return None
        if p == Type.BOOLEAN:
            lo, hi = bool(arr.min()), bool(arr.max())
            return (lo, bytes([lo]), True), (hi, bytes([hi]), True)
        if p in (Type.FLOAT, Type.DOUBLE) or self.is_float16:
            return self._float_bounds(arr)
        if p in (Type.INT32, Type.INT64):
            view = arr.view(arr.dtype.str.replace("i", "u")) if self.order == "UNSIGNED" else arr
            i, j = int(np.argmin(view)), int(np.argmax(view))
            return ((int(view[i]), arr[i:i + 1].tobytes(), True),
                    (int(view[j]), arr[j:j + 1].tobytes(), True))
        return self._fixed_bytes_bounds(arr)

    def _float_bounds(self, arr):
        floats = arr.view("<f2").reshape(-1) if self.is_float16 else arr
        finite = floats[~np.isnan(floats)]
        if len(finite) == 0:
            return None
        lo, hi = finite.min(), finite.max()
        if lo == 0:
            lo = -lo if not np.signbit(lo) else lo          # -0.0
        if hi == 0:
            hi = abs(hi)                                    # +0.0
        dtype = floats.dtype
        return ((float(lo), np.array([lo], dtype).tobytes(), True),
                (float(hi), np.array([hi], dtype).tobytes(), True))

    def _fixed_bytes_bounds(self, rows):
        """(n, w) uint8 rows: decimals signed big-endian, others unsigned bytewise."""
        rows = np.ascontiguousarray(rows)
        if rows.shape[1] == 0:
            return (b"", b"", True), (b"", b"", True)
        keys = rows.copy()
        if self.decimal:
            keys[:, 0] ^= 0x80         # flipping the sign bit makes signed order bytewise
        order = np.lexsort(keys.T[::-1])
        i, j = int(order[0]), int(order[-1])
        lo, hi = rows[i].tobytes(), rows[j].tobytes()
        if self.decimal:
            return ((int.from_bytes(lo, "big", signed=True), lo, True),
                    (int.from_bytes(hi, "big", signed=True), hi, True))
        return self._truncated(lo, hi)

    def _binary_bounds(self, offsets, data):
        n = len(offsets) - 1
        if n == 0:
            return None
        if self.decimal:
            vals = {bytes(data[offsets[i]:offsets[i + 1]]) for i in range(n)}
            ints = {int.from_bytes(v, "big", signed=True) if v else 0: v for v in vals}
            lo, hi = min(ints), max(ints)
            return (lo, ints[lo], True), (hi, ints[hi], True)
        i, j = binary_min_max(offsets, data)
        return self._truncated(bytes(data[offsets[i]:offsets[i + 1]]),
                               bytes(data[offsets[j]:offsets[j + 1]]))

    def _truncated(self, lo, hi):
        lo_exact = len(lo) <= self.k
        lo = lo if lo_exact else lo[:self.k]
        hi_exact = len(hi) <= self.k
        if not hi_exact:
            hi = _increment(hi[:self.k])
            if hi is None:
                return (lo, lo, lo_exact), None
        return (lo, lo, lo_exact), (hi, hi, hi_exact)


def _increment(prefix):
    """The smallest byte string above every string starting with ``prefix``, or None."""
    b = bytearray(prefix)
    while b and b[-1] == 0xFF:
        b.pop()
    if not b:
        return None
    b[-1] += 1
    return bytes(b)


__all__ = ["sort_order", "column_order", "StatisticsAccumulator"]
