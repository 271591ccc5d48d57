"""pyarrow's ``version`` option: which Parquet logical types a written file may use.

The format grew new annotations over its releases; a file meant for old readers
keeps to the older set. pyarrow names the sets after format versions, and so
does ``write_table(..., version=...)``:

======  =====================================================================
"1.0"   the 1.x annotations: ``uint32`` has no UINT_32-compatible form and is
        written (and read back) as ``int64``; nanosecond timestamps become
        microseconds; the footer says format version 1
"2.4"   ``uint32`` as INT32 annotated unsigned; nanosecond timestamps still
        become microseconds
"2.6"   (the default) nanosecond timestamps are stored as TIMESTAMP(NANOS)
======  =====================================================================

A timestamp coerced to microseconds must lose nothing: ``1970-01-01
00:00:00.000001001`` refuses to be written under "2.4", as in pyarrow. Compression
codecs and the data page version are separate options.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
)
from pqkit.errors import SchemaError

VERSIONS = ("1.0", "2.4", "2.6")


def check_version(version):
    """``version`` as one of :data:`VERSIONS`, or SchemaError (a ValueError)."""
    if version not in VERSIONS:
        raise SchemaError(f"unsupported Parquet format version {version!r}; expected one of "
                          f"{', '.join(VERSIONS)}")
    return version


def footer_version(version):
    """The FileMetaData ``version`` field pyarrow writes for a ``version`` option."""
    return 1 if version == "1.0" else 2


def adapt_type(type_, version):
    """The type a column of ``type_`` is written as under ``version``."""
    if version == "2.6":
        return type_
    if isinstance(type_, T.TimestampType) and type_.unit == "ns":
        return T.TimestampType("us", type_.tz)
    if version == "1.0" and type_ == T.uint32():
        return T.int64()
    if isinstance(type_, T.DictionaryType):
        return T.DictionaryType(type_.index_type, adapt_type(type_.value_type, version),
                                type_.ordered)
    if isinstance(type_, T.ListType):
        return T.ListType(adapt_field(type_.value_field, version), type_.large)
    if isinstance(type_, T.FixedSizeListType):
        return T.FixedSizeListType(adapt_field(type_.value_field, version), type_.list_size)
    if isinstance(type_, T.MapType):
        return T.MapType(adapt_field(type_.key_field, version),
                         adapt_field(type_.item_field, version), type_.keys_sorted)
    if isinstance(type_, T.StructType):
        return T.struct([adapt_field(f, version) for f in type_.fields])
    return type_


def adapt_field(field, version):
    """``field`` with its type as written under ``version``."""
    type_ = adapt_type(field.type, version)
    if type_ == field.type:
        return field
    return T.Field(field.name, type_, field.nullable, field.metadata)


def adapt_column(col, field, version):
    """``col`` (of ``field``) with its values in the type :func:`adapt_type` gives."""
    target = adapt_type(col.type, version)
    if target == col.type:
        return col
    return _convert(col, target, field.name)


def _convert(col, target, where):
    if isinstance(col, PrimitiveColumn):
        return PrimitiveColumn(target, _values(col, target, where), col.validity)
    if isinstance(col, DictionaryColumn):
        return DictionaryColumn(target, col.indices,
                                _convert(col.dictionary, target.value_type, where),
                                col.validity)
    if isinstance(col, ListColumn):
        return ListColumn(target, col.offsets, _convert(col.child, target.value_type, where),
                          col.validity)
    if isinstance(col, FixedSizeListColumn):
        return FixedSizeListColumn(target, _convert(col.child, target.value_type, where),
                                   col.validity, length=len(col))
    if isinstance(col, MapColumn):
        return MapColumn(target, col.offsets,
                         _convert(col.keys, target.key_field.type, where),
                         _convert(col.items, target.item_field.type, where), col.validity)
    if isinstance(col, StructColumn):
        children = [_convert(c, f.type, where) if c.type != f.type else c
                    for c, f in zip(col.children, target.fields)]
        return StructColumn(target, children, col.validity, length=len(col))
    raise SchemaError(f"column {where!r}: cannot write a {col.type} column as {target}")


def _values(col, target, where):
    if isinstance(target, T.TimestampType):
        values = col.values
        lost = values % 1000 != 0
        if col.validity is not None:
            lost &= col.validity
        if lost.any():
            bad = int(values[np.flatnonzero(lost)[0]])
            raise SchemaError(f"column {where!r}: timestamp {bad} ns would lose its "
                              "nanoseconds as microseconds; write with version='2.6'")
        return values // 1000
    return col.values.astype(target.numpy_dtype)
