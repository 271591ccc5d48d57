"""Column mapping (PQDS/1 feature ``column_mapping``): a column's name, its field id, and
the name its values have inside the data files.

Without the feature a data file's columns are named like the dataset's columns. The
first rename or drop turns it on, and from then on the version file carries::

    "reader_features": ["column_mapping"], "writer_features": ["column_mapping"],
    "column_mapping": {"physical": {"1": "id", "2": "amount"}, "retired": {"3": "note"}}

``physical`` gives, per field id of a top-level column of the schema, the name of that
column inside every data file: its name when the feature was turned on (or when it was
added). It never changes, so renaming a column changes the schema only and no file is
rewritten; files written after a rename use the physical name too, so a plain Hive reader
(pyarrow, DuckDB, Spark's own Parquet reader) always sees one column, under its physical
name. ``retired`` keeps the field ids and physical names of dropped columns: neither is
ever given to another column, so a column added later under a dropped name gets a new id
and another physical name (:meth:`ColumnMapping.new_physical`), and never shows the
dropped values. Per-file statistics are keyed by physical name, as they
are computed from the file; inverted indices are keyed by the (current) column name.
"""
from pqkit import datatypes as T
from pqkit.dataset.core.canonical import field_id
from pqkit.dataset.core.snapshot import TableSchema, max_field_id
from pqkit.errors import ManifestCorrupted, SchemaError

FEATURE = "column_mapping"


class ColumnMapping:
    """The physical name of each column of one version (identity when the feature is off).

    Parameters
    ----------
    physical : dict of int -> str, or None
        Field id -> physical name; None: the feature is off.
    retired : dict of int -> str
        Field ids and physical names of dropped columns, never given to another column.
    """

    def __init__(self, physical=None, retired=None):
        self.physical = None if physical is None else dict(physical)
        self.retired = dict(retired or {})

    @property
    def enabled(self):
        return self.physical is not None

    def features(self):
        """The reader (and writer) features a version with this mapping declares."""
        return [FEATURE] if self.enabled else []

    @classmethod
    def of(cls, data, where="version file"):
        """The mapping a version file's JSON ``data`` declares; ManifestCorrupted when it
        is malformed or its feature flag is missing."""
        spec = data.get("column_mapping")
        if spec is None:
            return cls()
        try:
            physical = {int(k): str(v) for k, v in spec["physical"].items()}
            retired = {int(k): str(v) for k, v in (spec.get("retired") or {}).items()}
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ManifestCorrupted(f"{where}: bad column_mapping: {exc!r}") from None
        if FEATURE not in (data.get("reader_features") or []):
            raise ManifestCorrupted(f"{where}: column_mapping without the {FEATURE!r} "
                                    "reader feature")
        if len(set(physical.values())) != len(physical):
            raise ManifestCorrupted(f"{where}: column_mapping gives two columns one "
                                    "physical name")
        return cls(physical, retired)

    @classmethod
    def turned_on(cls, schema):
        """The mapping that turns the feature on for ``schema``: every column keeps its name."""
        return cls({_id(f): f.name for f in schema.fields})

    def to_json(self):
        return {"physical": {str(k): v for k, v in sorted(self.physical.items())},
                "retired": {str(k): v for k, v in sorted(self.retired.items())}}

    @property
    def max_id(self):
        """The largest field id the dataset ever gave a column (0 when off): new columns
        are numbered after it."""
        return max([0, *(self.physical or {}), *self.retired])

    def name_of(self, field):
        """The physical name of a top-level field of the schema."""
        if self.physical is None:
            return field.name
        return self.physical.get(field_id(field), field.name)

    def names(self, schema):
        """{column name: physical name} of the schema's columns."""
        return {f.name: self.name_of(f) for f in schema.fields}

    def physical_schema(self, schema):
        """``schema`` with each column under its physical name (same ids and types)."""
        if self.physical is None:
            return schema
        return TableSchema([T.Field(self.name_of(f), f.type, f.nullable, f.metadata)
                            for f in schema.fields], schema.id)

    def new_physical(self, name, taken=()):
        """The physical name for a column added as ``name``: ``name`` unless a live or
        dropped column uses it, else ``name`` with the first free ``~<n>`` suffix."""
        used = set(self.physical.values() if self.physical else ()) | \
            set(self.retired.values()) | set(taken)
        if name not in used:
            return name
        n = 1
        while f"{name}~{n}" in used:
            n += 1
        return f"{name}~{n}"

    def following(self, schema, added=None):
        """The mapping of the next version, whose schema is ``schema``: ids it keeps keep
        their physical name, a dropped id's name is retired, new ids take ``added[name]``
        (or a fresh name)."""
        if self.physical is None:
            return self
        ids = {_id(f): f for f in schema.fields}
        physical = {i: n for i, n in self.physical.items() if i in ids}
        retired = {**self.retired, **{i: n for i, n in self.physical.items() if i not in ids}}
        reused = sorted(set(ids) & set(retired))
        if reused:
            raise SchemaError(f"column {ids[reused[0]].name!r} has field id {reused[0]}, "
                              "which belonged to a dropped column; a new column needs a "
                              "new id")
        out = ColumnMapping(physical, retired)
        for i, f in ids.items():
            if i not in physical:
                chosen = (added or {}).get(f.name) or out.new_physical(f.name)
                out.physical[i] = chosen
        return out


def next_field_id(manifest):
    """The id a column added to the version ``manifest`` (or None) starts at: after every
    id its schema uses and every id a dropped column used."""
    if manifest is None:
        return 1
    mapping = ColumnMapping.of(manifest.data, manifest.where)
    return max(max_field_id(manifest.schema.fields), mapping.max_id) + 1


def _id(field):
    fid = field_id(field)
    if fid is None:
        raise ManifestCorrupted(f"column {field.name!r} has no field id; column mapping "
                                "needs one on every column")
    return fid


def rename_dnf(dnf, names):
    """A DNF filter with each term's column (the first part of a dotted path) renamed by
    ``names``; None stays None."""
    if dnf is None:
        return None
    out = []
    for conj in dnf:
        terms = []
        for col, op, value in conj:
            head, dot, rest = col.partition(".")
            terms.append((names.get(head, head) + dot + rest, op, value))
        out.append(terms)
    return out


__all__ = ["FEATURE", "ColumnMapping", "next_field_id", "rename_dnf"]
