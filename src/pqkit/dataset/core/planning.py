"""Planning a read from the manifest alone (§3.10): which files, and what is left to check.

The input is a DNF predicate as pyarrow and Kartothek write it: a list of
``(column, op, value)`` terms that must all hold, or a list of such lists of
which one must hold. Operators: ``== = != < <= > >= in not in is_null
is_not_null`` (the value of the last two is ignored). Comparisons with null
are false, except that a null satisfies ``not in`` (as in pyarrow and in
:mod:`pqkit.read.prune.filters`); NaN never satisfies a range operator.

Per file and per AND group:

1. partition terms are evaluated *exactly* on the file's typed partition values,
   so a group is either dropped or loses its partition terms;
2. the remaining terms are checked against the per-file bounds, three-valued
   (unknown keeps the file); a file is skipped for a term when, e.g.,
   ``== v`` and ``v < min or v > max``; ``!= v`` and ``min == max == v`` exactly
   with no nulls or NaNs; ``is_null`` and ``nulls == 0``; ``is_not_null`` and
   ``nulls == row_count``; ``< v`` and ``min >= v``; ``== NaN`` and ``nans == 0``;
3. what survives is the file's *residual* predicate, handed to the file reader
   (row-group statistics, page index, bloom filters, then the exact row filter).

A file whose groups all lost every term needs no row filter at all. Pruning
never drops a matching row: bounds are compared as exact keys (integers for
int64/uint64 and timestamps, Decimal, str, bytes), never through float64.
"""
import math

from pqkit import datatypes as T
from pqkit.dataset.core.canonical import codec_for
from pqkit.errors import ManifestCorrupted, SchemaError

OPS = ("==", "!=", "<", "<=", ">", ">=", "in", "not in", "is_null", "is_not_null")
PQKIT_OPS = ("==", "!=", "<", "<=", ">", ">=", "in", "not in")


def normalize_filters(filters):
    """DNF as a list of lists of ``(column, op, value)``; None when there is no filter."""
    if filters is None or (isinstance(filters, (list, tuple)) and not filters):
        return None
    if not isinstance(filters, (list, tuple)):
        raise SchemaError(f"filters must be a list of (column, op, value) tuples or a list of "
                          f"such lists, not {type(filters).__name__}")
    if _is_term(filters[0]):
        filters = [filters]
    out = []
    for conj in filters:
        if not isinstance(conj, (list, tuple)) or not conj:
            raise SchemaError(f"filter group {conj!r}: expected a non-empty list of terms")
        terms = []
        for term in conj:
            if not _is_term(term):
                raise SchemaError(f"filter {term!r}: expected (column, op, value)")
            col, op, value = term
            op = op.lower().strip() if isinstance(op, str) else op
            op = {"=": "==", "notin": "not in", "not_in": "not in"}.get(op, op)
            if op not in OPS:
                raise SchemaError(f"filter {term!r}: unknown operator {op!r}; use one of "
                                  f"{', '.join(OPS)}")
            if op in ("in", "not in"):
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise SchemaError(f"filter {term!r}: {op!r} needs a list of values")
                value = list(value)
            terms.append((str(col), op, value))
        out.append(terms)
    return out


def _is_term(x):
    return isinstance(x, tuple) or (isinstance(x, list) and len(x) == 3 and isinstance(x[0], str)
                                    and isinstance(x[1], str) and not isinstance(x[2], tuple))


def filter_columns(dnf):
    return {t[0] for conj in (dnf or []) for t in conj}


# --- exact evaluation on Python values (partition values) -----------------------------------------
def term_holds(value, op, operand, where="filter"):
    """Exact truth of ``value op operand`` with pqkit's semantics, which are pyarrow's:
    a null matches ``is_null`` and ``not in`` only."""
    if op == "is_null":
        return value is None
    if op == "is_not_null":
        return value is not None
    if value is None:
        return op == "not in"
    try:
        if op == "==":
            return bool(value == operand)
        if op == "!=":
            return bool(value != operand)
        if op == "<":
            return bool(value < operand)
        if op == "<=":
            return bool(value <= operand)
        if op == ">":
            return bool(value > operand)
        if op == ">=":
            return bool(value >= operand)
        if op == "in":
            return value in operand
        return value not in operand
    except TypeError:
        raise SchemaError(f"{where}: value {operand!r} cannot be compared with "
                          f"{type(value).__name__} values") from None


# --- bounds -------------------------------------------------------------------------------------
class ColumnBounds:
    """Comparison helpers for one data column's per-file statistics."""

    def __init__(self, type_):
        self.codec = codec_for(type_)
        self.usable = self.codec.bounded
        self.floating = self.codec.kind == "float"
        self._cache = {}

    def key(self, text):
        """The comparison key of a bound's canonical text; ManifestCorrupted when the text
        is not a value of the column's type (the caller names the file)."""
        k = self._cache.get(text)
        if k is None:
            try:
                k = self._cache[text] = self.codec.text_key(text)
            except (ValueError, TypeError, OverflowError, ArithmeticError) as exc:
                raise ManifestCorrupted(f"bound {text!r:.80} is not a {self.codec.kind} "
                                        f"value: {exc}") from None
        return k

    def may_match(self, stats, row_count, op, value):
        """False only when no row of the file can satisfy the term."""
        nulls = stats.get("nulls")
        if nulls is not None and nulls >= row_count:
            return op in ("is_null", "not in")
        if op == "is_null":
            return nulls is None or nulls > 0
        if op == "is_not_null":
            return True
        if not self.usable:
            return True
        nans = stats.get("nans", 0 if not self.floating else None)
        lo = self.key(stats["min"]) if "min" in stats else None
        hi = self.key(stats["max"]) if "max" in stats else None
        if op in ("in", "not in"):
            keys = [self.codec.value_key(v) for v in value]
            if op == "in":
                return any(self._may_equal(k, lo, hi) for k in keys)
            return not self._all_equal(stats, lo, hi, nulls, nans, keys)
        k = self.codec.value_key(value)
        if k is None:
            return True
        if _is_nan(k):
            # NaN equals nothing and orders with nothing; != NaN holds for every value.
            return op == "!="
        if op == "==":
            return self._may_equal(k, lo, hi)
        if op == "!=":
            return not self._all_equal(stats, lo, hi, nulls, nans, [k])
        if op in ("<", "<="):
            return lo is None or (lo < k if op == "<" else lo <= k)
        return hi is None or (hi > k if op == ">" else hi >= k)

    def _may_equal(self, k, lo, hi):
        if k is None:
            return True
        if _is_nan(k):
            return False                     # x == NaN is false for every x, NaN included
        return (lo is None or lo <= k) and (hi is None or k <= hi)

    def _all_equal(self, stats, lo, hi, nulls, nans, keys):
        """Every row equals one of ``keys`` (so != / not in match nothing)."""
        if lo is None or hi is None or nulls != 0 or nans not in (0, None) or \
                (self.floating and nans is None):
            return False
        if not (stats.get("min_exact", True) and stats.get("max_exact", True)):
            return False
        return lo == hi and any(k is not None and not _is_nan(k) and k == lo for k in keys)


def _is_nan(k):
    return isinstance(k, float) and math.isnan(k)


def column_type(schema, col):
    """The type of a filter column: a top-level column, else a struct member's dotted path."""
    if col in schema.by_name:
        return schema.by_name[col].type
    names = col.split(".")
    field = schema.by_name.get(names[0])
    t = field.type if field is not None else None
    for name in names[1:]:
        member = [f for f in t.fields if f.name == name] if isinstance(t, T.StructType) else []
        if not member:
            return None
        t = member[0].type
    return t


class Planner:
    """Prunes the file entries of one snapshot for one DNF predicate.

    Parameters
    ----------
    schema : TableSchema
    partitioning : Partitioning
    dnf : normalized filters (see :func:`normalize_filters`) or None
    where : str
        The snapshot's file (names it when a file entry's bounds are unreadable).
    """

    def __init__(self, schema, partitioning, dnf, where="snapshot"):
        self.where = where
        self.partitioning = partitioning
        self.dnf = dnf
        self.bounds = {}
        self._partition_values = {}
        known = set(schema.names) | set(partitioning.names)
        for col in filter_columns(dnf):
            top = col.split(".")[0]
            if col not in known and top not in schema.names:
                raise SchemaError(f"filter column {col!r} is not a column of the dataset "
                                  f"(columns: {sorted(known)})")
            t = column_type(schema, col)
            if t is not None:
                self.bounds[col] = ColumnBounds(t)

    def _partition_value(self, name, text):
        key = (name, text)
        if key not in self._partition_values:
            self._partition_values[key] = self.partitioning.by_name[name].value(text)
        return self._partition_values[key]

    def residual(self, entry):
        """The file's residual DNF: None = skip the file, [] = every row matches."""
        if self.dnf is None:
            return []
        out = []
        for conj in self.dnf:
            rest = self._conj_residual(entry, conj)
            if rest is None:
                continue
            if not rest:
                return []
            out.append(rest)
        return out or None

    def _conj_residual(self, entry, conj):
        rest = []
        stats = entry.get("stats") or {}
        rows = int(entry["row_count"])
        part = entry.get("partition") or {}
        for col, op, value in conj:
            if col in self.partitioning.by_name:
                v = self._partition_value(col, part.get(col))
                if not term_holds(v, op, value, f"filter on partition column {col!r}"):
                    return None
                continue
            if rows == 0:
                return None
            bounds = self.bounds.get(col)
            col_stats = stats.get(col)
            if bounds is not None and col_stats is not None and \
                    not self._may_match(bounds, entry, col, col_stats, rows, op, value):
                return None
            rest.append((col, op, value))
        return rest

    def _may_match(self, bounds, entry, col, col_stats, rows, op, value):
        try:
            return bounds.may_match(col_stats, rows, op, value)
        except ManifestCorrupted as exc:
            raise ManifestCorrupted(f"{self.where}: file {entry['key']!r}: stats of column "
                                    f"{col!r}: {exc}") from None
