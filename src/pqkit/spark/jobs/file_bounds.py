"""Per-file column bounds of a file just written, as canonical text (DATASET.md §3.5).

:func:`pqkit.spark.write` returns, for every file, the bounds of each
non-repeated leaf column, aggregated over the row groups' statistics that the
writer computed: ``{"id": {"min": "1", "max": "500", "nulls": 0}}``. Bounds are
text so that JSON keeps them exactly: integers and decimals in plain decimal,
floats in shortest round-trip form (a zero min is ``-0.0``, a zero max ``0.0``),
dates ``YYYY-MM-DD``, timestamps ISO-8601 at microseconds (``Z`` when
UTC-adjusted), strings as they are, binary in base64. A bound the writer
truncated carries ``"min_exact": false`` / ``"max_exact": false``. A column is
left out when a row group has no statistics for it; ``min``/``max`` are left out
when every value is null.
"""
import base64
import datetime
import decimal
import struct

from pqkit.format import Type
from pqkit.read.prune.filters import bound_decoder

__all__ = ["file_bounds"]

_EPOCH = datetime.datetime(1970, 1, 1)
_PER_SECOND = {"MILLIS": 1000, "MICROS": 10**6, "NANOS": 10**9}


def _timestamp_decoder(node):
    lt = node.logical_type
    if lt is None or lt.TIMESTAMP is None or Type(node.physical_type) != Type.INT64:
        return None
    unit = next(u for u in ("MILLIS", "MICROS", "NANOS") if getattr(lt.TIMESTAMP.unit, u))
    per_second = _PER_SECOND[unit]
    utc = bool(lt.TIMESTAMP.isAdjustedToUTC)

    def decode(raw):
        count = struct.unpack("<q", raw)[0]
        return ("timestamp", count * 10**6 // per_second, utc)
    return decode


def _text(value):
    if isinstance(value, tuple) and value[0] == "timestamp":
        _, micros, utc = value
        stamp = _EPOCH + datetime.timedelta(microseconds=micros)
        return stamp.isoformat(timespec="microseconds") + ("Z" if utc else "")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _zero_signed(text, is_min):
    if text in ("0.0", "-0.0"):
        return "-0.0" if is_min else "0.0"
    return text


def file_bounds(schema, row_groups):
    """{dotted column path: bounds} for a written file's schema and RowGroup list."""
    out = {}
    for node in schema.columns:
        if node.max_repetition_level:
            continue
        decode = bound_decoder(node) or _timestamp_decoder(node)
        entry = _column_bounds(node, row_groups, decode)
        if entry is not None:
            out[node.dotted_path] = entry
    return out


def _column_bounds(node, row_groups, decode):
    nulls, lo, hi = 0, None, None
    lo_exact = hi_exact = True
    is_float = Type(node.physical_type) in (Type.FLOAT, Type.DOUBLE)
    for rg in row_groups:
        md = rg.columns[node.column_index].meta_data
        st = md.statistics if md is not None else None
        if st is None or st.null_count is None:
            return None
        nulls += st.null_count
        if st.min_value is None or st.max_value is None:
            if st.null_count < md.num_values:
                return None               # values without bounds: nothing to promise
            continue
        if decode is None:
            return None                   # no canonical text for this type
        a, b = decode(bytes(st.min_value)), decode(bytes(st.max_value))
        if lo is None or a < lo:
            lo, lo_exact = a, st.is_min_value_exact is not False
        if hi is None or b > hi:
            hi, hi_exact = b, st.is_max_value_exact is not False
    entry = {"nulls": nulls}
    if lo is not None:
        lo_text, hi_text = _text(lo), _text(hi)
        if is_float:
            lo_text, hi_text = _zero_signed(lo_text, True), _zero_signed(hi_text, False)
        entry.update({"min": lo_text, "max": hi_text})
        if not lo_exact:
            entry["min_exact"] = False
        if not hi_exact:
            entry["max_exact"] = False
    return entry
