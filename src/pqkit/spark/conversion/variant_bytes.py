"""VARIANT columns for Spark: a (possibly shredded) variant group <-> value and metadata bytes.

Spark takes a variant as its two binaries (pyspark's ``VariantVal(value, metadata)``,
an Arrow ``struct<value, metadata>`` for ``mapInArrow``). A column that is not
shredded already holds them and is passed on without copying; a shredded one
(Spark 4 writes them so by default) is rebuilt into unshredded bytes by
:func:`pqkit.variant.unshred`, which follows the Parquet variant shredding spec.
Writing goes the other way: :func:`variant_group` takes Spark's Arrow pair to the
unshredded group pqkit writes, :func:`variant_from_objects` pyspark's ``VariantVal``s.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn
from pqkit.columnar.nested import StructColumn
from pqkit.errors import SchemaError
from pqkit.variant import unshred as unshred_rows
from pqkit.variant import variant_column_from_bytes
from pqkit.variant.column import UNSHREDDED

__all__ = ["VARIANT_TYPE", "unshred", "variant_from_objects", "variant_group",
           "variant_values"]

# What the executors hand Spark for a variant: the field order pyspark's Arrow type uses.
VARIANT_TYPE = T.struct([T.field("value", T.binary()), T.field("metadata", T.binary())])


def unshred(col, where):
    """A variant group column -> a :data:`VARIANT_TYPE` column (value, metadata)."""
    names = col.type.names
    if "metadata" not in names:
        raise SchemaError(f"variant column {where} has no metadata field")
    metadata = col.field("metadata")
    valid = col.validity
    if "typed_value" not in names:
        value = col.field("value")
        if value.null_count == 0 or (valid is not None and
                                     not (value.validity is not None and
                                          (valid & ~value.validity).any())):
            return StructColumn(VARIANT_TYPE, [value, metadata], valid, len(col))
    rows = unshred_rows(col, name=where)
    values = [None if row is None else row[1] for row in rows]
    return StructColumn(VARIANT_TYPE, [_binary(values), metadata], valid, len(col))


def _binary(values):
    lengths = np.array([0 if v is None else len(v) for v in values], np.int64)
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(b"".join(v for v in values if v is not None), np.uint8)
    validity = np.array([v is not None for v in values], np.bool_)
    return BinaryColumn(T.binary(), offsets, data, None if validity.all() else validity)


def variant_values(col):
    """A variant column's rows as ``(value, metadata)`` byte pairs (None for null)."""
    value, metadata = col.field("value").to_pylist(), col.field("metadata").to_pylist()
    valid = col.validity
    return [None if (valid is not None and not valid[i]) else (value[i], metadata[i])
            for i in range(len(col))]


def variant_group(col, where):
    """Spark's Arrow ``struct<value, metadata>`` of a VARIANT column -> the unshredded
    variant group (``metadata``, ``value``) without copying; the writer checks every
    row's bytes before it writes them."""
    names = col.type.names if isinstance(col, StructColumn) else ()
    if sorted(names) != ["metadata", "value"] or \
            not all(isinstance(c, BinaryColumn) for c in col.children):
        raise SchemaError(f"variant column {where!r} arrived as {col.type}, not Spark's "
                          f"struct of value and metadata binaries")
    value, metadata = col.field("value"), col.field("metadata")
    if value.type != T.binary() or metadata.type != T.binary():
        # large binaries: rebuilt as the pairs they hold
        return variant_column_from_bytes(_pairs(col), where)
    return StructColumn(UNSHREDDED, [metadata, value], col.validity, len(col))


def _pairs(col):
    valid = col.valid_mask()
    return [(m, v) if ok else None for ok, m, v in
            zip(valid.tolist(), col.field("metadata").to_pylist(), col.field("value").to_pylist())]


def variant_from_objects(values, where):
    """pyspark's ``VariantVal``s (None for null; how ``mapInPandas`` hands a VARIANT
    over) -> a VARIANT column."""
    pairs = []
    for row, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v):
            pairs.append(None)
        elif hasattr(v, "metadata") and hasattr(v, "value"):
            pairs.append((v.metadata, v.value))
        else:
            raise SchemaError(f"variant column {where!r}, row {row}: expected a VariantVal, "
                              f"got {type(v).__name__}")
    return variant_column_from_bytes(pairs, where)
