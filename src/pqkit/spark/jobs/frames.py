"""Executor side of a write: a transported pandas frame -> pqkit Table and partition dirs.

``frame_to_table`` rebuilds exact columns from the transport projection that
:func:`pqkit.spark.jobs.write_plan.plan_columns` set up (numbers plus null flags,
timestamps as micros, variants as ``VariantVal``s); ``partition_texts`` and ``partition_dir`` give each row's
Hive directory as Spark names it (session-zone wall time for timestamps).
"""
import datetime

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.spark.conversion.variant_bytes import variant_from_objects
from pqkit.spark.jobs.write_plan import HIVE_NULL, escape_partition_text


# --- executor helpers shared with spark_write_task ------------------------------------------------
def frame_to_table(frame, config):
    """The data columns of a transport frame as a pqkit Table."""
    cols = []
    for c in config.data:
        if c.transport == "value":
            values = frame[c.name]
            if _has_nested_instant(c.type) and config.timezone != "UTC":
                values = values.map(lambda v, t=c.type: _localize(v, t, config.timezone))
            col = column_from_values(values, c.type)
        elif c.transport == "variant":
            col = variant_from_objects(frame[c.name], c.name)
        else:
            col = _transported(frame, c)
        cols.append(col)
    return Table(cols, [c.field for c in config.data])


def _transported(frame, c):
    values = frame[c.name].to_numpy()
    validity = None if c.flag is None else ~frame[c.flag].to_numpy(dtype=bool)
    if validity is not None and validity.all():
        validity = None
    return PrimitiveColumn(c.type, values.astype(c.type.numpy_dtype, copy=False), validity)


def _has_nested_instant(t):
    if isinstance(t, T.TimestampType):
        return False                      # top level: travels as micros
    stack = list(t.fields)
    while stack:
        f = stack.pop()
        if isinstance(f.type, T.TimestampType) and f.type.tz is not None:
            return True
        stack.extend(f.type.fields)
    return False


def _localize(value, t, timezone):
    """Nested session-zone wall times (how pyspark hands them over) -> aware datetimes."""
    from zoneinfo import ZoneInfo
    if value is None:
        return None
    if isinstance(t, T.TimestampType):
        if t.tz is not None and isinstance(value, datetime.datetime) and value.tzinfo is None:
            return value.replace(tzinfo=ZoneInfo(timezone))
        return value
    if isinstance(t, T.ListType):
        return [_localize(v, t.value_type, timezone) for v in value]
    if isinstance(t, T.MapType):
        return {k: _localize(v, t.item_type, timezone) for k, v in value.items()}
    if isinstance(t, T.StructType) and isinstance(value, dict):
        return {f.name: _localize(value.get(f.name), f.type, timezone) for f in t.fields}
    return value


def partition_texts(frame, c, timezone):
    """Directory texts of partition column ``c`` for every row (None for null)."""
    values = frame[c.name]
    null = values.isna().to_numpy() if c.flag is None else frame[c.flag].to_numpy(dtype=bool)
    raw = values.to_numpy()
    if c.transport == "micros":
        texts = _micros_texts(raw, timezone)
    elif c.type == T.timestamp("us"):
        texts = [str(v).replace("T", " ") for v in values.astype("datetime64[us]")]
        texts = [_trim_fraction(t) for t in texts]
    elif isinstance(c.type, T.BooleanType):
        texts = ["true" if v else "false" for v in raw]
    elif isinstance(c.type, T.FloatingType):
        texts = [repr(float(v)) for v in raw]
    elif isinstance(c.type, T.DecimalType):
        texts = [None if v is None else format(v, "f") for v in raw]
    elif isinstance(c.type, T.Date32Type):
        texts = [None if v is None else v.isoformat() for v in raw]
    elif isinstance(c.type, T.IntegerType):
        texts = [str(int(v)) for v in raw]
    else:
        texts = [None if v is None else str(v) for v in raw]
    return [None if n or t is None or t == "" else t for n, t in zip(null, texts)]


def _micros_texts(micros, timezone):
    from zoneinfo import ZoneInfo
    zone = ZoneInfo(timezone)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    out = []
    for v in np.asarray(micros, np.int64).tolist():
        local = (epoch + datetime.timedelta(microseconds=v)).astimezone(zone)
        out.append(_trim_fraction(local.replace(tzinfo=None).isoformat(sep=" ")))
    return out


def _trim_fraction(text):
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def partition_dir(parts, texts):
    """``name=value/...`` for the partition columns and their texts."""
    return "/".join(f"{escape_partition_text(c.name)}="
                    f"{HIVE_NULL if t is None else escape_partition_text(t)}"
                    for c, t in zip(parts, texts))
