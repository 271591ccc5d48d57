"""How the bounds of one leaf column compare: sort order, column order and byte sizes.

A stored bound is PLAIN encoded (byte arrays without the length prefix).
:class:`Ordering` turns a bound into a key that Python compares in the
column's order:

==========================  ==============================  =========================
column                      TYPE_ORDER key                  bound size
==========================  ==============================  =========================
BOOLEAN                     False < True                    1
INT32/INT64 (signed)        the signed integer              4 / 8
INTEGER(unsigned), UINT_*   the bits as an unsigned integer 4 / 8
FLOAT/DOUBLE                the float (NaN has no key)      4 / 8
FLOAT16 on FLBA(2)          the half float's value          2
DECIMAL on FLBA/BYTE_ARRAY  big-endian two's complement     type_length / any
other BYTE_ARRAY/FLBA       the bytes, unsigned, bytewise   any / at most type_length
INT96                       none under TYPE_ORDER           12
==========================  ==============================  =========================

Under ``IEEE_754_TOTAL_ORDER`` (FLOAT, DOUBLE, FLOAT16) the key is the bit
pattern read as a signed integer with every bit but the sign flipped when
negative, so -NaN < -Inf < -0 < +0 < +Inf < +NaN. Under
``INT96_TIMESTAMP_ORDER`` it is (Julian day, nanoseconds of the day).
For example an INT32 column with bounds ``ff ff ff ff`` and ``01 00 00 00``
has keys -1 and 1; the same bytes under UINT_32 give 4294967295 and 1, so
there min > max.
"""
import math
import struct

import numpy as np

from pqkit.encodings.physical import struct_format
from pqkit.format import Type
from pqkit.statistics import bound_kind, bound_width, decode_stat_value, sort_order

TYPE_ORDER, TOTAL_ORDER, INT96_ORDER = "TYPE_ORDER", "IEEE_754_TOTAL_ORDER", "INT96_TIMESTAMP_ORDER"


class BoundSizeError(ValueError):
    """A bound whose byte size cannot hold a value of the column's type."""


def column_order_name(order):
    """The set member of a ColumnOrder union, ``"UNKNOWN"`` when none is, None for None."""
    if order is None:
        return None
    for name in order.FIELD_NAMES:
        if getattr(order, name) is not None:
            return name
    return "UNKNOWN"


class Ordering:
    """The comparison rules for the statistics of one leaf column.

    Parameters
    ----------
    node : pqkit.SchemaNode
        The leaf.
    order_name : str or None
        Its ``ColumnOrder`` member (see :func:`column_order_name`); None when
        the footer has no ``column_orders`` (bounds are then read as
        TYPE_ORDER, which is what writers of such files meant).

    Attributes
    ----------
    kind : str or None
        ``bool``, ``int``, ``uint``, ``float``, ``float16``, ``decimal``,
        ``bytes`` or ``int96``; None when the order is undefined (bounds are
        then not comparable and not checked).
    sort : str
        ``SIGNED``, ``UNSIGNED`` or ``UNKNOWN`` under TYPE_ORDER.
    total : bool
        IEEE 754 total order (no NaN or zero rules).
    implicit : bool
        The footer has no column_orders: min_value/max_value then have no
        defined order in the spec, and readers such as Arrow ignore them.
    """

    def __init__(self, node, order_name=None):
        self.node = node
        self.physical = node.physical_type
        self.type_length = node.element.type_length
        self.order_name = order_name or TYPE_ORDER
        self.implicit = order_name is None
        self.sort = sort_order(node)
        self.total = False
        self.kind = self._kind()

    def _kind(self):
        if self.order_name == TOTAL_ORDER:
            base = self._type_order_kind()
            self.total = base in ("float", "float16")
            return base if self.total else None
        if self.order_name == INT96_ORDER:
            return "int96" if self.physical == Type.INT96 else None
        if self.order_name != TYPE_ORDER:
            return None
        return self._type_order_kind()

    def _type_order_kind(self):
        return bound_kind(self.node, self.sort)

    def describe(self):
        """The order in words, for messages."""
        if self.total:
            return "the IEEE 754 total order"
        return {"bool": "false < true", "int": "signed order", "uint": "unsigned order",
                "float": "numeric order", "float16": "numeric order",
                "decimal": "signed decimal order", "bytes": "unsigned bytewise order",
                "int96": "INT96 timestamp order"}.get(self.kind, "no defined order")

    def implicit_note(self):
        """Why a problem of min_value/max_value or ColumnIndex bounds is only a warning."""
        if not self.implicit:
            return None
        return ("the file has no column_orders, so these bounds have no defined order and "
                "readers ignore them; reported as a warning")

    @property
    def floating(self):
        return self.kind in ("float", "float16")

    @property
    def truncatable(self):
        """Whether a bound may be a shortened stand-in (bytewise orders only)."""
        return self.kind == "bytes"

    def check_size(self, raw):
        """Raise BoundSizeError when ``raw`` cannot be a bound of this column."""
        size = bound_width(self.physical)
        if self.physical == Type.FIXED_LEN_BYTE_ARRAY:
            width = self.type_length or 0
            if self.kind == "bytes" and len(raw) > width:
                raise BoundSizeError(f"{len(raw)} bytes for a FIXED_LEN_BYTE_ARRAY({width})")
            if self.kind in ("decimal", "float16") and len(raw) != width:
                raise BoundSizeError(f"{len(raw)} bytes for a FIXED_LEN_BYTE_ARRAY({width})")
        elif size is not None and len(raw) != size:
            raise BoundSizeError(f"{len(raw)} bytes for a {Type(self.physical).name} "
                                 f"(expected {size})")

    def key(self, raw):
        """The bound as a key comparing in this column's order (None for a NaN under
        TYPE_ORDER, which has no place in it)."""
        self.check_size(raw)
        kind = self.kind
        if kind == "bool":
            return raw[0] != 0
        if kind in ("int", "uint"):
            return struct.unpack(struct_format(self.physical, kind == "uint"), raw)[0]
        if kind == "float":
            if self.total:
                return _total_key(raw)
            value = struct.unpack(struct_format(self.physical), raw)[0]
            return None if math.isnan(value) else value
        if kind == "float16":
            if self.total:
                return _total_key(raw)
            value = float(np.frombuffer(raw, "<f2")[0])
            return None if math.isnan(value) else value
        if kind == "decimal":
            if self.physical in (Type.INT32, Type.INT64):
                return struct.unpack(struct_format(self.physical), raw)[0]
            return int.from_bytes(raw, "big", signed=True)
        if kind == "int96":
            return (struct.unpack("<i", raw[8:12])[0], struct.unpack("<q", raw[:8])[0])
        if kind == "bytes":
            return bytes(raw)
        raise ValueError(f"column {self.node.dotted_path} has no defined order")

    def value(self, raw):
        """A key for containment checks: floats compare by value (-0.0 == +0.0) under
        every order, None for NaN; other kinds as :meth:`key`."""
        if self.kind == "float":
            self.check_size(raw)
            value = struct.unpack(struct_format(self.physical), raw)[0]
            return None if math.isnan(value) else value
        if self.kind == "float16":
            self.check_size(raw)
            value = float(np.frombuffer(raw, "<f2")[0])
            return None if math.isnan(value) else value
        return self.key(raw)

    def float_value(self, raw):
        """The float a FLOAT/DOUBLE/FLOAT16 bound holds (NaN included)."""
        if self.kind == "float16":
            return float(np.frombuffer(raw, "<f2")[0])
        return struct.unpack(struct_format(self.physical), raw)[0]

    def is_nan(self, raw):
        return self.floating and math.isnan(self.float_value(raw))

    def zero_sign(self, raw):
        """``"+"`` or ``"-"`` for a zero floating bound, None otherwise."""
        if not self.floating:
            return None
        value = self.float_value(raw)
        if value != 0:
            return None
        return "-" if math.copysign(1.0, value) < 0 else "+"

    def show(self, raw):
        """A short human form of a bound: decoded value and, for binary, hex."""
        if raw is None:
            return "none"
        try:
            value = decode_stat_value(self.node, bytes(raw))
        except (ValueError, ArithmeticError, struct.error):
            value = None
        if value is None:
            return f"0x{bytes(raw).hex()}"
        if isinstance(value, float) and value == 0:
            return "-0.0" if math.copysign(1.0, value) < 0 else "+0.0"
        text = repr(value) if isinstance(value, str) else str(value)
        return text if len(text) <= 60 else text[:57] + "..."


def is_floating_column(node):
    """FLOAT, DOUBLE, or FLOAT16 on FIXED_LEN_BYTE_ARRAY(2): the columns with NaN rules."""
    lt = node.logical_type
    return node.physical_type in (Type.FLOAT, Type.DOUBLE) or (
        node.physical_type == Type.FIXED_LEN_BYTE_ARRAY and lt is not None
        and lt.FLOAT16 is not None)


def _total_key(raw):
    bits = int.from_bytes(raw, "little", signed=True)
    if bits < 0:
        bits ^= (1 << (8 * len(raw) - 1)) - 1
    return bits


def orderings(md):
    """One :class:`Ordering` per leaf of a file, from its footer's column_orders.

    A ``column_orders`` list of the wrong length is ignored (TYPE_ORDER is
    assumed); the footer rules report it.
    """
    orders = md.raw.column_orders
    leaves = md.schema.columns
    if orders is None or len(orders) != len(leaves):
        return [Ordering(node) for node in leaves]
    return [Ordering(node, column_order_name(o)) for node, o in zip(leaves, orders)]
