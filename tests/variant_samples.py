"""Variant values the interop tests write, and how JSON-rendering engines show them."""
import datetime as dt
from decimal import Decimal

VALUES = [{"a": 1, "b": "x", "c": [1, 2.5, None]}, None, 5, {"a": 300, "d": Decimal("1.5")},
          [1, "x", {"e": True}], "str", {"b": None}, {"t": dt.date(2024, 1, 2)}]


def as_json(value):
    """``value`` as DuckDB's and Spark's JSON renderings parse back: decimals as numbers,
    dates as ISO text."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value
