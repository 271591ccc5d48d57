"""Statistics values: the spec's sort orders and decoding the PLAIN-encoded bounds.

Bounds are stored PLAIN encoded without the byte-array length prefix, e.g. an
INT32 min of 5 is ``05 00 00 00`` and a STRING max of "ab" is ``61 62``.

The order of ``min_value`` / ``max_value`` comes from the column's type
(``ColumnOrder.TYPE_ORDER``); the logical type wins over the converted type,
which wins over the physical type. :func:`sort_order` is the one place that
decides it, for the writer's statistics and page index, the reader's pruning
and ``verify``:

=================================================  ===========  =================================
column                                             sort order   how values compare
=================================================  ===========  =================================
BOOLEAN                                            SIGNED       false < true
INT32 / INT64 (plain, INT_*, DATE, TIME,           SIGNED       as signed integers
TIMESTAMP, DECIMAL)
INT32 / INT64 with INTEGER(unsigned) / UINT_*      UNSIGNED     the bits as unsigned integers
FLOAT / DOUBLE; FLOAT16 on FLBA(2)                 SIGNED       numeric; NaN never a bound
DECIMAL on FLBA / BYTE_ARRAY                       SIGNED       big-endian two's complement,
                                                                sign-extended to equal length
other BYTE_ARRAY / FLBA (strings, binary, ENUM,    UNSIGNED     bytewise unsigned, a prefix
JSON, BSON, UUID)                                               before its extensions
INT96, INTERVAL, VARIANT, GEOMETRY, GEOGRAPHY,     UNKNOWN      none: no min/max are written
NullType, unknown logical types, type mismatches
=================================================  ===========  =================================
"""
import datetime
import decimal
import functools
import struct

import numpy as np

from pqkit.encodings.physical import PLAIN_WIDTH, struct_format
from pqkit.format import ConvertedType as CT
from pqkit.format import Type

SIGNED, UNSIGNED, UNKNOWN = "SIGNED", "UNSIGNED", "UNKNOWN"
# Annotations that make BYTE_ARRAY values text (ordered bytewise, shown as str).
TEXT_LOGICAL = ("STRING", "ENUM", "JSON")
TEXT_CONVERTED = (CT.UTF8, CT.ENUM, CT.JSON)

_INTS = (Type.INT32, Type.INT64)
_BYTES = (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY)
_PHYSICAL_ORDER = {Type.BOOLEAN: SIGNED, Type.INT32: SIGNED, Type.INT64: SIGNED,
                   Type.FLOAT: SIGNED, Type.DOUBLE: SIGNED, Type.BYTE_ARRAY: UNSIGNED,
                   Type.FIXED_LEN_BYTE_ARRAY: UNSIGNED, Type.INT96: UNKNOWN}
# converted type -> (sort order, physical types it may annotate)
_CONVERTED_ORDER = {
    **{ct: (SIGNED, _INTS) for ct in (CT.INT_8, CT.INT_16, CT.INT_32, CT.INT_64, CT.DATE,
                                      CT.TIME_MILLIS, CT.TIME_MICROS, CT.TIMESTAMP_MILLIS,
                                      CT.TIMESTAMP_MICROS)},
    **{ct: (UNSIGNED, _INTS) for ct in (CT.UINT_8, CT.UINT_16, CT.UINT_32, CT.UINT_64)},
    **{ct: (UNSIGNED, _BYTES) for ct in (CT.UTF8, CT.ENUM, CT.JSON, CT.BSON)},
    CT.DECIMAL: (SIGNED, _INTS + _BYTES),
}


def sort_order(node):
    """The order of a leaf column's min/max statistics.

    Parameters
    ----------
    node : pqkit.SchemaNode
        A leaf column.

    Returns
    -------
    str
        ``"SIGNED"``, ``"UNSIGNED"`` or ``"UNKNOWN"`` (no defined order: write no
        min/max, ignore those read). An annotation on a physical type it cannot
        annotate gives ``"UNKNOWN"``.
    """
    physical = node.physical_type
    lt, ct = node.logical_type, node.converted_type
    if lt is not None:
        return _logical_order(lt, physical, node.element.type_length)
    if ct is not None:
        order, physicals = _CONVERTED_ORDER.get(ct, (UNKNOWN, ()))
        return order if physical in physicals else UNKNOWN
    return _PHYSICAL_ORDER.get(physical, UNKNOWN)


def _logical_order(lt, physical, type_length):
    if any(getattr(lt, name) is not None for name in TEXT_LOGICAL + ("BSON",)):
        return UNSIGNED if physical in _BYTES else UNKNOWN
    if lt.UUID is not None:
        return UNSIGNED if physical == Type.FIXED_LEN_BYTE_ARRAY else UNKNOWN
    if lt.INTEGER is not None:
        if physical not in _INTS:
            return UNKNOWN
        return SIGNED if lt.INTEGER.isSigned else UNSIGNED
    if lt.DATE is not None or lt.TIME is not None or lt.TIMESTAMP is not None:
        return SIGNED if physical in _INTS else UNKNOWN
    if lt.DECIMAL is not None:
        return SIGNED if physical in _INTS + _BYTES else UNKNOWN
    if lt.FLOAT16 is not None:
        return SIGNED if physical == Type.FIXED_LEN_BYTE_ARRAY and type_length == 2 \
            else UNKNOWN
    # NullType (UNKNOWN), LIST, MAP, VARIANT, GEOMETRY, GEOGRAPHY, FILE and members this
    # version does not know: the spec defines no order, so readers ignore min/max.
    return UNKNOWN


def is_unsigned(node):
    """Whether an INT32/INT64 leaf holds unsigned integers (INTEGER(unsigned), UINT_*):
    its values and bounds are the stored bits read as unsigned."""
    return node.physical_type in _INTS and sort_order(node) == UNSIGNED


def bound_kind(node, order):
    """How bounds of a leaf under sort ``order`` compare: ``bool``, ``int``, ``uint``,
    ``float``, ``float16``, ``decimal`` or ``bytes``; None for the UNKNOWN order."""
    physical = node.physical_type
    if order == UNKNOWN:
        return None
    if physical == Type.BOOLEAN:
        return "bool"
    if physical in _INTS:
        return "int" if order == SIGNED else "uint"
    if physical in (Type.FLOAT, Type.DOUBLE):
        return "float"
    if order == UNSIGNED:
        return "bytes"
    lt = node.logical_type
    return "float16" if lt is not None and lt.FLOAT16 is not None else "decimal"


def bound_width(physical_type):
    """Bytes of a statistics bound of a BOOLEAN, numeric or INT96 column, None for the
    byte-array types (whose bounds have any length)."""
    return 1 if physical_type == Type.BOOLEAN else PLAIN_WIDTH.get(physical_type)


def legacy_bound(raw, node):
    """A deprecated ``min`` / ``max`` where it can be trusted, else None: those fields
    were written under the signed order, so only signed numeric and boolean columns'
    bounds mean what they say."""
    if raw is None or Type(node.physical_type) not in (Type.INT32, Type.INT64, Type.FLOAT,
                                                       Type.DOUBLE, Type.BOOLEAN):
        return None
    return None if is_unsigned(node) else raw


def is_text(node):
    """Whether a leaf (SchemaNode) holds text: STRING, ENUM or JSON, or their old
    converted types."""
    lt = node.logical_type
    if lt is not None:
        return any(getattr(lt, n) is not None for n in TEXT_LOGICAL)
    return node.converted_type in TEXT_CONVERTED


def _decimal_scale(node):
    lt = node.logical_type
    if lt is not None and lt.DECIMAL is not None:
        return lt.DECIMAL.scale
    if node.converted_type == CT.DECIMAL:
        return node.element.scale or 0
    return None


def _scaled(unscaled, scale):
    """The decimal ``unscaled * 10**-scale`` as text. Built from its digits and exponent,
    which is exact for any scale a file may claim (``scaleb`` works in the default
    context and fails beyond an exponent of about 10**6)."""
    sign, digits = (1 if unscaled < 0 else 0), tuple(int(d) for d in str(abs(unscaled)))
    return str(decimal.Decimal((sign, digits, -scale)))


def decode_stat_value(node, raw):
    """Turn one PLAIN-encoded bound into a JSON-friendly Python value.

    Parameters
    ----------
    node : pqkit.SchemaNode
        The leaf column the bound belongs to.
    raw : bytes
        The stored bound.

    Returns
    -------
    int, float, bool, str or None
        Text columns give str; other binary values give a hex string; a bound
        whose size does not fit its type gives None (the caller shows raw bytes).
    """
    if raw is None:
        return None
    ptype = node.physical_type
    scale = _decimal_scale(node)
    code = struct_format(ptype, is_unsigned(node))
    if code is not None:
        if len(raw) != PLAIN_WIDTH[ptype]:
            return None
        value = struct.unpack(code, raw)[0]
        if scale is not None:
            return _scaled(value, scale)
        return _with_date(node, value)
    if ptype == Type.BOOLEAN:
        return bool(raw[0]) if len(raw) == 1 else None
    if ptype == Type.FIXED_LEN_BYTE_ARRAY and node.logical_type is not None \
            and node.logical_type.FLOAT16 is not None:
        return float(np.frombuffer(raw, "<f2")[0]) if len(raw) == 2 else None
    if scale is not None and ptype in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY) and raw:
        return _scaled(int.from_bytes(raw, "big", signed=True), scale)
    if is_text(node):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.hex()
    return raw.hex()


def _with_date(node, value):
    lt = node.logical_type
    if (lt is not None and lt.DATE is not None) or node.converted_type == CT.DATE:
        try:
            return (datetime.date(1970, 1, 1) + datetime.timedelta(days=value)).isoformat()
        except OverflowError:
            return value
    return value


def statistics_to_dict(node, stats):
    """A JSON-ready view of a Thrift Statistics struct for leaf `node` (bounds as
    :func:`display_stat_value` spells them)."""
    if stats is None:
        return None
    d = {}
    for name in ("null_count", "distinct_count", "nan_count"):
        if getattr(stats, name) is not None:
            d[name] = getattr(stats, name)
    for name in ("min_value", "max_value", "min", "max"):
        raw = getattr(stats, name)
        if raw is not None:
            d[name] = display_stat_value(node, raw)
            d[name + "_raw"] = raw.hex()
    for name in ("is_min_value_exact", "is_max_value_exact"):
        if getattr(stats, name) is not None:
            d[name] = getattr(stats, name)
    return d


def display_stat_value(node, raw):
    """One bound as JSON spells the value the Python API gives
    (:func:`logical_stat_value`): dates, times and timestamps as ISO-8601 text (a UTC
    timestamp ends in ``Z``), decimals as their exact text, numbers and booleans as
    they are, text as str, other bytes as hex; None when the bound does not fit its
    type. A value with no Python form (a nanosecond timestamp that is not a whole
    microsecond, a year beyond 9999) stays the stored number."""
    if raw is None or (node.physical_type == Type.FIXED_LEN_BYTE_ARRAY
                       and node.logical_type is not None
                       and node.logical_type.FLOAT16 is not None):
        return decode_stat_value(node, raw)
    value = logical_stat_value(node, raw)
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, (datetime.date, datetime.time, decimal.Decimal)):
        return value.isoformat() if not isinstance(value, decimal.Decimal) else str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return value


# --- bounds as Python values under the column's logical type ---------------------------------
_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
_PER_US = {"MILLIS": 1000, "MICROS": 1, "NANOS": None}     # stored units -> microseconds
_CONVERTED_TEMPORAL = {CT.TIMESTAMP_MILLIS: ("timestamp", "MILLIS", True),
                       CT.TIMESTAMP_MICROS: ("timestamp", "MICROS", True),
                       CT.TIME_MILLIS: ("time", "MILLIS", True),
                       CT.TIME_MICROS: ("time", "MICROS", True)}


def physical_stat_value(node, raw):
    """One PLAIN-encoded bound as its physical type's Python value.

    bool, int (signed, as the physical type is), float, or bytes for INT96 and the
    byte-array types; None when the bound's size does not fit the type.
    """
    if raw is None:
        return None
    ptype = node.physical_type
    code = struct_format(ptype)
    if code is not None:
        if len(raw) != PLAIN_WIDTH[ptype]:
            return None
        return struct.unpack(code, raw)[0]
    if ptype == Type.BOOLEAN:
        return bool(raw[0]) if len(raw) == 1 else None
    return bytes(raw)


def _temporal(node):
    """("timestamp" | "time", unit name, adjusted to UTC) of a temporal leaf, else None."""
    lt = node.logical_type
    if lt is not None:
        for kind, part in (("timestamp", lt.TIMESTAMP), ("time", lt.TIME)):
            if part is not None:
                unit = next((n for n in ("MILLIS", "MICROS", "NANOS")
                             if getattr(part.unit, n, None) is not None), None)
                return (kind, unit, bool(part.isAdjustedToUTC)) if unit else None
        return None
    return _CONVERTED_TEMPORAL.get(node.converted_type)


def _microseconds(value, unit):
    """``value`` in microseconds, or None when a nanosecond value is not a whole
    number of microseconds (a datetime cannot hold it)."""
    if unit == "NANOS":
        return value // 1000 if value % 1000 == 0 else None
    return value * _PER_US[unit]


def _temporal_value(kind, unit, utc, value):
    # A time of day drops sub-microsecond digits (as pyarrow's as_py does); a
    # timestamp keeps them by staying an int.
    us = value // 1000 if kind == "time" and unit == "NANOS" else _microseconds(value, unit)
    if us is None:
        return value
    try:
        if kind == "timestamp":
            moment = _EPOCH + datetime.timedelta(microseconds=us)
            return moment.replace(tzinfo=datetime.timezone.utc) if utc else moment
        if not 0 <= us < 86_400_000_000:
            return value
        return (_EPOCH + datetime.timedelta(microseconds=us)).time()
    except OverflowError:
        return value


def _number_decoder(ptype):
    unpack, width = struct.Struct(struct_format(ptype)).unpack, PLAIN_WIDTH[ptype]

    def number(raw):
        return None if raw is None or len(raw) != width else unpack(raw)[0]
    return number


def _text_bound(raw):
    if raw is None:
        return None
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return bytes(raw)


# Shared by every leaf they fit: a planner walking many files makes no closure per leaf.
_NUMBER_DECODERS = {t: _number_decoder(t) for t in (Type.INT32, Type.INT64, Type.FLOAT,
                                                    Type.DOUBLE)}


def logical_stat_decoder(node):
    """A function ``raw -> value`` equal to ``logical_stat_value(node, raw)``, with the
    leaf's type looked at once: numbers without annotations and text then cost one
    unpack or decode per bound, which matters when a planner reads the bounds of
    every chunk of a wide footer."""
    ptype = node.physical_type
    if node.logical_type is None and node.converted_type is None \
            and ptype in _NUMBER_DECODERS:
        return _NUMBER_DECODERS[ptype]
    if ptype == Type.BYTE_ARRAY and is_text(node) and _decimal_scale(node) is None:
        return _text_bound
    return functools.partial(logical_stat_value, node)     # picklable, unlike a lambda


def logical_stat_value(node, raw):
    """One PLAIN-encoded bound as a Python value under the leaf's logical type.

    The values pyarrow's ``Statistics.min``/``max`` give: ``datetime.date`` for
    dates, ``datetime.datetime`` for timestamps (UTC-aware when adjusted to UTC),
    ``datetime.time``, ``decimal.Decimal`` for decimals, ``str`` for text, ``bytes``
    for other binary values (FLOAT16 and UUID included), else the physical value.
    A value that has no such Python form (a date beyond year 9999, a nanosecond
    timestamp that is not a whole microsecond, text that is not UTF-8) stays
    physical; a nanosecond time of day is cut to microseconds.

    Parameters
    ----------
    node : pqkit.SchemaNode
        The leaf column the bound belongs to.
    raw : bytes or None
        The stored bound.
    """
    value = physical_stat_value(node, raw)
    if value is None or node.physical_type in (Type.BOOLEAN, Type.FLOAT, Type.DOUBLE):
        return value
    if isinstance(value, int) and value < 0 and is_unsigned(node):
        value += 1 << (32 if node.physical_type == Type.INT32 else 64)
    scale = _decimal_scale(node)
    if scale is not None:
        if isinstance(value, bytes):
            if not value:
                return value
            value = int.from_bytes(value, "big", signed=True)
        return decimal.Decimal(_scaled(value, scale))
    if isinstance(value, bytes):
        if node.physical_type == Type.BYTE_ARRAY and is_text(node):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                return value
        return value
    lt = node.logical_type
    if (lt is not None and lt.DATE is not None) or \
            (lt is None and node.converted_type == CT.DATE):
        try:
            return _EPOCH_DATE + datetime.timedelta(days=value)
        except OverflowError:
            return value
    temporal = _temporal(node)
    if temporal is not None:
        return _temporal_value(*temporal, value)
    return value
