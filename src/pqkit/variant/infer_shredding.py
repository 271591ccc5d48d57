"""A shredding schema inferred from values: ``shredding="auto"``.

The rule, applied to the values of one level (the decoded rows of a column's
first row group, then recursively to object fields and array elements):

1. Variant nulls and absent fields are left out; with no value left, the level
   is not shredded.
2. Each value has a kind: object, array, or its primitive class (all integer
   widths are one class, as are the decimals; the other primitive types, short
   and long strings together, are each their own). The most common kind is
   shredded if it covers at least half of the values (ties: the first seen);
   otherwise the level stays in ``value``.
3. Integers get the widest width seen; decimals the largest scale and enough
   digits for the largest integer part (no more than 38, else not shredded).
4. Objects shred at most ``MAX_FIELDS`` fields, the most frequent first (ties
   by name), each with its own inferred schema; fields that infer nothing stay in
   ``value``. Arrays shred their elements' inferred schema. Nesting stops at
   ``MAX_DEPTH`` levels.

Spark's ``spark.sql.variant.inferShreddingSchema`` is the comparable behaviour.
"""
from collections import Counter

from pqkit import datatypes as T

__all__ = ["MAX_DEPTH", "MAX_FIELDS", "infer_schema"]

MAX_FIELDS = 64
MAX_DEPTH = 8
_INT_TYPES = {"int8": T.int8(), "int16": T.int16(), "int32": T.int32(), "int64": T.int64()}
_LEAVES = {
    "boolean": T.bool_(), "double": T.float64(), "float": T.float32(), "string": T.string(),
    "binary": T.binary(), "date": T.date32(), "time": T.time64("us"), "uuid": T.uuid(),
    "timestamp": T.timestamp("us", "UTC"), "timestamp_ntz": T.timestamp("us"),
    "timestamp_nanos": T.timestamp("ns", "UTC"), "timestamp_ntz_nanos": T.timestamp("ns"),
}


def _kind(value):
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    name = value[0]
    if name in _INT_TYPES:
        return "int"
    if name.startswith("decimal"):
        return "decimal"
    return name


def infer_schema(values, depth=0):
    """The shredding schema of ``values`` (decoded with ``types=True``; None entries are
    skipped), or None when nothing should be shredded."""
    present = [v for v in values if v is not None and v != ("null", None)]
    if not present:
        return None
    kinds = Counter(_kind(v) for v in present)
    kind, count = kinds.most_common(1)[0]
    if 2 * count < len(present):
        return None
    chosen = [v for v in present if _kind(v) == kind]
    if kind == "object":
        return None if depth >= MAX_DEPTH else _object(chosen, depth)
    if kind == "array":
        if depth >= MAX_DEPTH:
            return None
        element = infer_schema([e for v in chosen for e in v], depth + 1)
        return None if element is None else T.list_(element)
    if kind == "int":
        return max((_INT_TYPES[v[0]] for v in chosen), key=lambda t: t.bit_width)
    if kind == "decimal":
        return _decimal([v[1] for v in chosen])
    return _LEAVES.get(kind)


def _object(objects, depth):
    counts = Counter(k for o in objects for k in o)
    names = sorted(counts, key=lambda k: (-counts[k], k))[:MAX_FIELDS]
    fields = []
    for name in sorted(names):
        spec = infer_schema([o.get(name) for o in objects], depth + 1)
        if spec is not None:
            fields.append(T.field(name, spec))
    return T.struct(fields) if fields else None


def _decimal(decimals):
    scale = max(max(0, -d.as_tuple().exponent) for d in decimals)
    integer_digits = max(max(0, len(d.as_tuple().digits) + d.as_tuple().exponent)
                         for d in decimals)
    precision = max(1, integer_digits + scale)
    return None if precision > 38 else T.decimal(precision, scale)
