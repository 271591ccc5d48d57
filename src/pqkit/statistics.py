"""Statistics values: decoding the PLAIN-encoded bounds for display and comparison.

Bounds are stored PLAIN encoded without the byte-array length prefix, e.g. an
INT32 min of 5 is ``05 00 00 00`` and a STRING max of "ab" is ``61 62``.
"""
import datetime
import decimal
import struct

import numpy as np

from pqkit.format import ConvertedType, Type

_FIXED = {Type.INT32: "<i", Type.INT64: "<q", Type.FLOAT: "<f", Type.DOUBLE: "<d"}
_UNSIGNED_CT = {ConvertedType.UINT_8, ConvertedType.UINT_16, ConvertedType.UINT_32,
                ConvertedType.UINT_64}
# Annotations that make BYTE_ARRAY values text (ordered bytewise, shown as str).
TEXT_LOGICAL = ("STRING", "ENUM", "JSON")
TEXT_CONVERTED = (ConvertedType.UTF8, ConvertedType.ENUM, ConvertedType.JSON)


def _is_unsigned(node):
    lt = node.logical_type
    if lt is not None and lt.INTEGER is not None:
        return not lt.INTEGER.isSigned
    return node.converted_type in _UNSIGNED_CT


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
    if node.converted_type == ConvertedType.DECIMAL:
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
    if ptype in _FIXED:
        fmt = _FIXED[ptype]
        if len(raw) != struct.calcsize(fmt):
            return None
        if _is_unsigned(node):
            fmt = fmt.upper()
        value = struct.unpack(fmt, raw)[0]
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
    if (lt is not None and lt.DATE is not None) or node.converted_type == ConvertedType.DATE:
        try:
            return (datetime.date(1970, 1, 1) + datetime.timedelta(days=value)).isoformat()
        except OverflowError:
            return value
    return value


def statistics_to_dict(node, stats):
    """A JSON-ready view of a Thrift Statistics struct for leaf `node`."""
    if stats is None:
        return None
    d = {}
    for name in ("null_count", "distinct_count", "nan_count"):
        if getattr(stats, name) is not None:
            d[name] = getattr(stats, name)
    for name in ("min_value", "max_value", "min", "max"):
        raw = getattr(stats, name)
        if raw is not None:
            d[name] = decode_stat_value(node, raw)
            d[name + "_raw"] = raw.hex()
    for name in ("is_min_value_exact", "is_max_value_exact"):
        if getattr(stats, name) is not None:
            d[name] = getattr(stats, name)
    return d
