"""VARIANT columns on the write road: the group each is written as, and its rows.

A top-level column is a variant when its field is marked so
(:func:`pqkit.schema.annotations.is_variant_field`: read from a VARIANT file, or made
with :func:`pqkit.variant.column`) or it is a :class:`pqkit.variant.VariantColumn`.
The group written follows the ``shredding`` write option for that column:

    not given      the field's own layout: a group read shredded is written shredded
                   the same way, anything else unshredded
    None/False     unshredded (``metadata``, ``value``)
    "auto"         a schema inferred from the first row group's values
                   (:mod:`pqkit.variant.infer_shredding` states the rule)
    a DataType     that shredding schema (:mod:`pqkit.variant.shredding_schema`)

A column already in the written layout is checked (every row decoded) and
written as it is; any other is unshredded, decoded and shredded again. Values
that break the Variant encoding raise :class:`pqkit.VariantError` and nothing of
the row group is written.
"""
from pqkit import datatypes as T
from pqkit.columnar.nested import StructColumn
from pqkit.convert import column_from_values
from pqkit.errors import SchemaError, VariantError
from pqkit.schema.annotations import is_variant_field, variant_field
from pqkit.variant import VariantColumn, decode_column, unshred
from pqkit.variant.binary import decode_value
from pqkit.variant.column import unshredded_column
from pqkit.variant.infer_shredding import infer_schema
from pqkit.variant.metadata import VariantMetadata
from pqkit.variant.shred import shred_row
from pqkit.variant.shredding_schema import physical_type, schema_of, variant_type

__all__ = ["VariantWrite", "mark_variant_columns", "plan_variants"]

_KEEP = object()


def mark_variant_columns(fields, columns):
    """``fields`` with each VariantColumn's field marked as a VARIANT."""
    out = []
    for f, col in zip(fields, columns):
        if isinstance(col, VariantColumn) and not is_variant_field(f):
            f = variant_field(f.name, f.type, f.nullable)
        out.append(f)
    return out


def plan_variants(fields, shredding):
    """``{column index: VariantWrite}`` for the variant columns among ``fields``."""
    names = {f.name for f in fields}
    if isinstance(shredding, dict):
        unknown = sorted(set(shredding) - names)
        if unknown:
            raise SchemaError(f"shredding names no column: {unknown}")
    plans = {}
    for i, f in enumerate(fields):
        if not is_variant_field(f):
            if isinstance(shredding, dict) and f.name in shredding:
                raise SchemaError(f"shredding names column {f.name!r}, which is not a VARIANT")
            continue
        if isinstance(shredding, dict):
            choice = shredding.get(f.name, _KEEP)
        else:
            choice = _KEEP if shredding is None else shredding
        plans[i] = VariantWrite(f, choice)
    return plans


class VariantWrite:
    """How one VARIANT column is written: its group type (``field``, None until an
    ``"auto"`` schema is inferred) and :meth:`prepare` for each table's column."""

    def __init__(self, field, choice):
        self.name = field.name
        self.source = field
        self.pending = False
        self.unusual = None
        if choice is _KEEP:
            try:
                spec = schema_of(field.type, field.name) \
                    if isinstance(field.type, T.StructType) else None
            except SchemaError as e:
                # A layout this writer does not make (e.g. fields without typed_value):
                # columns already in it are written as they are, others cannot be.
                self.unusual, self.spec, self.field = e, None, field
                return
        elif choice is None or choice is False or choice == "none":
            spec = None
        elif isinstance(choice, str) and choice == "auto":
            self.pending, spec = True, None
        else:
            physical_type(choice, f"shredding of column {field.name!r}")
            spec = choice
        self.field = None if self.pending else self._field(spec)

    def _field(self, spec):
        self.spec = spec
        return variant_field(self.name, variant_type(spec), self.source.nullable)

    def infer(self, column):
        """Fix an ``"auto"`` schema from ``column`` (the first row group's values; None:
        no rows, so unshredded); returns the decoded rows."""
        rows = [] if column is None else _typed_rows(column, self.name)
        self.field = self._field(infer_schema(rows))
        self.pending = False
        return rows

    def prepare(self, column, rows=None):
        """``column`` in the written group's layout."""
        if not isinstance(column, StructColumn):
            raise SchemaError(f"VARIANT column {self.name!r} is {column.type}, not a group "
                              f"of metadata and value")
        if column.type == self.field.type:
            if not isinstance(column, VariantColumn):
                decode_column(column, self.name)        # raises on bad bytes
            return StructColumn(column.type, column.children, column.validity, len(column))
        if self.unusual is not None:
            raise self.unusual
        if self.spec is None:
            pairs = unshred(column, self.name)
            if rows is None:
                _check_pairs(pairs, self.name)
            return unshredded_column(pairs)
        if rows is None:
            rows = _typed_rows(column, self.name)
        shredded = [None if r is None else shred_row(r, self.spec) for r in rows]
        return column_from_values(shredded, self.field.type)


def _check_pairs(pairs, name):
    parsed = {}
    for row, pair in enumerate(pairs):
        if pair is None:
            continue
        try:
            meta = parsed.get(pair[0])
            if meta is None:
                meta = parsed[pair[0]] = VariantMetadata(pair[0])
            decode_value(meta, pair[1])
        except VariantError as e:
            raise VariantError(f"variant column {name!r}, row {row}: {e}") from None


def _typed_rows(column, name):
    """Each row decoded with ``types=True`` (None for a null row)."""
    if not isinstance(column, StructColumn):
        raise SchemaError(f"VARIANT column {name!r} is {column.type}, not a group of "
                          f"metadata and value")
    return decode_column(column, name, types=True)
