"""Spark's pushed filters (``pyspark.sql.datasource.Filter``) as pqkit filter terms.

Spark hands the reader a list of filters that must all hold. Each one the
translation understands becomes one or two pqkit terms ``(path, op, value)`` of
a single conjunction; these prune partitions, row groups and pages, and the
executors keep only the matching rows. A filter is *exact* when pqkit's answer
equals Spark's for every row, nulls included; only exact filters are taken off
Spark's hands, the others are pushed for pruning and returned, so Spark checks
them again.

=============================  ====================================  =====
Spark filter                   pqkit terms                           exact
=============================  ====================================  =====
EqualTo(a, v)                  (a, ==, v)                            yes
EqualNullSafe(a, v), v given   (a, ==, v)                            yes
GreaterThan(OrEqual)(a, v)     (a, >, v) / (a, >=, v)                yes
LessThan(OrEqual)(a, v)        (a, <, v) / (a, <=, v)                yes
In(a, vs), no null in vs       (a, in, vs)                           yes
Not(EqualTo(a, v))             (a, !=, v)                            yes
Not(In(a, vs))                 (a, not in, vs)                       no: pqkit keeps nulls
StringStartsWith(a, p)         (a, >=, p), (a, <, p with last + 1)   no
IsNotNull(a)                   none: every term above drops nulls    when a has a term
IsNull(a), others              not pushed                            no
=============================  ====================================  =====

Only columns of integer, string, date and decimal types are pushed, where pqkit's
comparisons equal Spark's: floating-point columns are left to Spark, since
Spark orders NaN above every number and pqkit's filters never match NaN;
timestamps, binary and boolean are left to Spark too.
"""
from pyspark.sql import types as S
from pyspark.sql.datasource import (
    EqualNullSafe,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNotNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringStartsWith,
)

__all__ = ["translate"]

_PUSHED_TYPES = (S.ByteType, S.ShortType, S.IntegerType, S.LongType, S.StringType,
                 S.DateType, S.DecimalType)
_COMPARISONS = {EqualTo: "==", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<",
                LessThanOrEqual: "<="}
_MAX_CODE_POINT = 0x10FFFF


def _column_type(schema, path):
    """The Spark type at ``path`` (a tuple of names) in ``schema``, None if absent or under
    an array or map."""
    t = schema
    for name in path:
        if not isinstance(t, S.StructType) or name not in t.names:
            return None
        t = t[name].dataType
    return t


def _pushable(schema, path):
    # pqkit names a struct field by its dotted path: a name holding a dot stays with Spark
    return isinstance(_column_type(schema, path), _PUSHED_TYPES) and \
        not any("." in name for name in path)


def _terms(f, schema):
    """(pqkit terms, exact) for one filter; terms is [] when it cannot be pushed."""
    if isinstance(f, Not):
        inner = f.child
        if isinstance(inner, EqualTo) and inner.value is not None and \
                _pushable(schema, inner.attribute):
            return [(inner.attribute, "!=", inner.value)], True
        if isinstance(inner, In) and None not in inner.value and \
                _pushable(schema, inner.attribute):
            return [(inner.attribute, "not in", list(inner.value))], False
        return [], False
    path = getattr(f, "attribute", None)
    if path is None or not _pushable(schema, path):
        return [], False
    kind = type(f)
    if kind in _COMPARISONS and f.value is not None:
        return [(path, _COMPARISONS[kind], f.value)], True
    if kind is EqualNullSafe and f.value is not None:
        return [(path, "==", f.value)], True
    if kind is In and f.value and None not in f.value:
        return [(path, "in", list(f.value))], True
    if kind is StringStartsWith and f.value and ord(f.value[-1]) < _MAX_CODE_POINT:
        upper = f.value[:-1] + chr(ord(f.value[-1]) + 1)
        return [(path, ">=", f.value), (path, "<", upper)], False
    return [], False


def translate(filters, schema):
    """(pqkit conjunction, filters Spark must still check) for Spark's pushed ``filters``
    over a source of Spark schema ``schema``. Terms name columns by dotted path; the
    returned filters are the input objects themselves, as Spark requires."""
    conj, left, exact_paths, not_null = [], [], set(), []
    for f in filters:
        if isinstance(f, IsNotNull):
            not_null.append(f)
            continue
        terms, exact = _terms(f, schema)
        conj.extend(terms)
        if terms and exact:
            exact_paths.add(tuple(f.attribute if not isinstance(f, Not)
                                  else f.child.attribute))
        else:
            left.append(f)
    # IS NOT NULL is implied by any exact comparison on the same column
    left.extend(f for f in not_null if tuple(f.attribute) not in exact_paths)
    return [(".".join(p), op, v) for p, op, v in conj], left
