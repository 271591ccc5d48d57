"""Version files ("manifests", §3.3): one full JSON snapshot per version.

A version file names the format and its feature flags, the operation that
made the version, the table schema (fields with ids and a sha256 of their
canonical JSON), the partitioning, the properties, the totals and every live
data file with its partition values and per-file statistics::

    {"format": "pqds", "format_version": 1, "reader_features": [], "writer_features": [],
     "dataset_id": "0d6d…", "dataset_key": null, "version": 7, "parent_version": 6,
     "committed_at_utc": "2025-01-31T12:00:00.123456Z",
     "operation": {"type": "append", "txn": "3b1f…", "read_version": 5, "attempt": 2, …},
     "app_txns": {"airflow:sales_daily": 41},
     "schema": {"id": 2, "fields": [{"id": 1, "name": "id", "type": "int64", …}], "sha256": "…"},
     "partitioning": {"style": "hive", "columns": [{"name": "year", "type": "int32"}], …},
     "properties": {…}, "metadata": {…},
     "row_count": 1234567, "file_count": 12, "total_bytes": 987654321,
     "files": [{"key": "3b1f…-00000", "path": "year=2024/part-00000-3b1f….parquet", …}],
     "indices": []}

This module checks their consistency (:class:`Manifest`: totals, schema hash,
partitioning) and spells the table schema (:class:`TableSchema`); the loader
of version files, which first checks every field's type, is
:func:`pqkit.dataset.pqds.version_schema.load_manifest`.
"""
import datetime
import hashlib
import json

from pqkit import datatypes as T
from pqkit.dataset.core.canonical import field_from_json, field_id, field_to_json
from pqkit.dataset.core.partitioning import Partitioning
from pqkit.errors import ManifestCorrupted, SchemaError, UnsupportedFeature

FORMAT = "pqds"
FORMAT_VERSION = 1
#: Features this implementation reads and writes (core/column_mapping.py,
#: core/deletion_file.py).
SUPPORTED_READER_FEATURES = frozenset({"column_mapping", "deletion_vectors"})
SUPPORTED_WRITER_FEATURES = frozenset({"column_mapping", "deletion_vectors"})
RESERVED_FEATURES = ("deletion_vectors", "column_mapping", "file_segments")
DEFAULT_PROPERTIES = {"compression": "zstd", "stats.columns": "32", "vacuum.retention": "7d",
                      "vacuum.grace": "7d", "vacuum.keep_last": "10",
                      "summary.metadata": "never"}


def utc_now_text(not_before=None):
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ`` now, but never before ``not_before`` (same format)."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return max(now, not_before) if not_before else now


def parse_utc(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ") \
        .replace(tzinfo=datetime.timezone.utc)


def canonical_json(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


# --- schema ---------------------------------------------------------------------------------
def with_field_ids(fields, next_id=1, known=None, keep_own=False):
    """Fields (nested children too) carrying ``PARQUET:field_id``; returns (fields, next_id).

    A field takes the id of the same-named field in ``known`` (top-level name ->
    Field), else its own id when ``keep_own``, else the next free id.
    """
    known = known or {}
    counter = [max(next_id, max_field_id(known.values()) + 1,
                   (max_field_id(fields) + 1) if keep_own else 0)]

    def assign(f, old):
        fid = field_id(old) if old is not None else None
        if fid is None and keep_own:
            fid = field_id(f)
        if fid is None:
            fid = counter[0]
            counter[0] += 1
        t = _typed_children(f.type, old.type if old is not None else None, assign)
        md = dict(f.metadata or {})
        md.pop(b"PARQUET:field_id", None)
        md["PARQUET:field_id"] = str(fid)
        return T.Field(f.name, t, f.nullable, md)

    out = [assign(f, known.get(f.name)) for f in fields]
    return out, counter[0]


def _typed_children(t, old, assign):
    def child(f, o):
        return assign(f, o if o is not None and o.name == f.name else None)
    if isinstance(t, T.DictionaryType):
        t = t.value_type
    if isinstance(t, T.ListType):
        o = old.value_field if isinstance(old, T.ListType) else None
        return T.ListType(child(t.value_field, o), t.large)
    if isinstance(t, T.FixedSizeListType):
        o = old.value_field if isinstance(old, T.FixedSizeListType) else None
        return T.FixedSizeListType(child(t.value_field, o), t.list_size)
    if isinstance(t, T.StructType):
        olds = {f.name: f for f in old.fields} if isinstance(old, T.StructType) else {}
        return T.StructType([child(f, olds.get(f.name)) for f in t.fields])
    if isinstance(t, T.MapType):
        ok = isinstance(old, T.MapType)
        return T.MapType(child(t.key_field, old.key_field if ok else None),
                         child(t.item_field, old.item_field if ok else None), t.keys_sorted)
    return t


def max_field_id(fields):
    best = 0
    stack = list(fields)
    while stack:
        f = stack.pop()
        best = max(best, field_id(f) or 0)
        stack.extend(f.type.fields)
    return best


class TableSchema:
    """The data columns of a dataset (partition columns excluded), with ids and a hash."""

    def __init__(self, fields, schema_id=0):
        self.fields = list(fields)
        self.id = int(schema_id)
        self.by_name = {f.name: f for f in self.fields}

    @property
    def names(self):
        return [f.name for f in self.fields]

    def fields_json(self):
        return [field_to_json(f) for f in self.fields]

    def sha256(self):
        return hashlib.sha256(canonical_json(self.fields_json()).encode("utf-8")).hexdigest()

    def to_json(self):
        return {"id": self.id, "fields": self.fields_json(), "sha256": self.sha256()}

    @classmethod
    def from_json(cls, spec, where):
        try:
            schema = cls([field_from_json(f) for f in spec["fields"]], spec.get("id", 0))
        except (KeyError, TypeError, ValueError, SchemaError) as exc:
            raise ManifestCorrupted(f"{where}: bad schema: {exc}") from None
        if spec.get("sha256") is not None and spec["sha256"] != schema.sha256():
            raise ManifestCorrupted(f"{where}: schema sha256 {spec['sha256']} does not match "
                                    f"its fields ({schema.sha256()})")
        return schema

    def same_as(self, other):
        return self.fields_json() == other.fields_json()


# --- version files --------------------------------------------------------------------------
class Manifest:
    """A parsed, validated version file.

    Attributes
    ----------
    data : dict
        The JSON document as stored.
    version : int
    schema : TableSchema
    partitioning : Partitioning
    files : list of dict, or None for a *head* (the version file without ``files``,
        as the planning index carries it)
        The file entries (``key``, ``path``, ``partition``, ``size``, ``row_count``, …).
    """

    def __init__(self, data, where="version file", head=False):
        self.data = data
        self.where = where
        check_format(data, where)
        try:
            self.version = int(data["version"])
            self.files = None if head else list(data["files"])
            self.row_count = int(data["row_count"])
            self.file_count = int(data["file_count"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ManifestCorrupted(f"{where}: missing or bad field: {exc}") from None
        self.schema = TableSchema.from_json(data.get("schema") or {"fields": []}, where)
        try:
            self.partitioning = Partitioning.from_json(data.get("partitioning"), where)
        except (KeyError, TypeError, SchemaError) as exc:
            raise ManifestCorrupted(f"{where}: bad partitioning: {exc}") from None
        if not head:
            self._check_totals()
        self._by_key = None

    def _check_totals(self):
        # Kept to O(files) arithmetic: paths are checked when a file is resolved.
        try:
            # a deletion file's rows are not the version's (core/deletion_file.py)
            rows = sum(int(f["row_count"]) - int((f.get("deletions") or {}).get("rows", 0))
                       for f in self.files)
            deletes = any(f.get("deletions") for f in self.files)
            size = sum(int(f["size"]) for f in self.files)
            paths = {f["path"] for f in self.files}
            keys = {f["key"] for f in self.files}
        except (KeyError, TypeError, ValueError) as exc:
            raise ManifestCorrupted(f"{self.where}: a file entry is malformed: {exc!r}") from None
        if deletes and "deletion_vectors" not in (self.data.get("reader_features") or []):
            raise ManifestCorrupted(f"{self.where}: files with deletion files but no "
                                    "'deletion_vectors' reader feature")
        if rows != self.row_count:
            raise ManifestCorrupted(f"{self.where}: row_count {self.row_count} but the files "
                                    f"hold {rows} rows")
        if len(self.files) != self.file_count or len(paths) != len(self.files) or \
                len(keys) != len(self.files):
            raise ManifestCorrupted(f"{self.where}: file_count {self.file_count} but "
                                    f"{len(self.files)} entries with {len(paths)} distinct "
                                    f"paths and {len(keys)} distinct keys")
        total = self.data.get("total_bytes")
        if total is not None and total != size:
            raise ManifestCorrupted(f"{self.where}: total_bytes {total} but the files hold "
                                    f"{size} bytes")

    @classmethod
    def from_data(cls, data, path, expected_version=None):
        """A validated Manifest of parsed version-file JSON ``data`` read from ``path``."""
        if not isinstance(data, dict):
            raise ManifestCorrupted(f"{path}: a version file holds a JSON object")
        m = cls(data, where=path)
        if expected_version is not None and m.version != expected_version:
            raise ManifestCorrupted(f"{path}: holds version {m.version}, its name says "
                                    f"{expected_version}")
        return m

    # --- accessors -------------------------------------------------------------------------
    @property
    def operation(self):
        return self.data.get("operation") or {}

    @property
    def committed_at_utc(self):
        return self.data.get("committed_at_utc")

    @property
    def dataset_id(self):
        return self.data.get("dataset_id")

    @property
    def properties(self):
        return {**DEFAULT_PROPERTIES, **(self.data.get("properties") or {})}

    @property
    def app_txns(self):
        return dict(self.data.get("app_txns") or {})

    @property
    def total_bytes(self):
        total = self.data.get("total_bytes")
        return int(total) if total is not None else sum(int(f["size"]) for f in self.files)

    def by_key(self):
        if self._by_key is None:
            self._by_key = {f["key"]: f for f in self.files}
        return self._by_key

    def keys(self):
        return set(self.by_key())

    def check_writable(self):
        """Writers refuse versions with writer features they do not implement."""
        unknown = _features(self.data, "writer_features", self.where) - \
            SUPPORTED_WRITER_FEATURES
        if unknown:
            raise UnsupportedFeature(f"{self.where}: writing needs the features "
                                     f"{sorted(unknown)}, which this pqkit does not implement")


def check_format(data, where):
    """ManifestCorrupted / UnsupportedFeature unless ``data`` is a PQDS/1 version this
    pqkit reads (format, format version, feature lists)."""
    if data.get("format") != FORMAT:
        raise ManifestCorrupted(f"{where}: format is {data.get('format')!r}, expected "
                                f"{FORMAT!r}")
    if data.get("format_version") != FORMAT_VERSION:
        raise UnsupportedFeature(f"{where}: format_version {data.get('format_version')!r}; "
                                 f"this pqkit reads version {FORMAT_VERSION}")
    unknown = _features(data, "reader_features", where) - SUPPORTED_READER_FEATURES
    if unknown:
        raise UnsupportedFeature(f"{where}: reading needs the features {sorted(unknown)}, "
                                 "which this pqkit does not implement")
    _features(data, "writer_features", where)


def _features(data, key, where):
    """The feature names listed under ``key`` (absent: none), as a set of strings."""
    names = data.get(key)
    if names is None:
        return set()
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ManifestCorrupted(f"{where}: {key} must be a list of feature names, got "
                                f"{names!r:.80}")
    return set(names)


_WIDENINGS = {("int8", "int16"), ("int8", "int32"), ("int8", "int64"), ("int16", "int32"),
              ("int16", "int64"), ("int32", "int64"), ("uint8", "uint16"), ("uint8", "uint32"),
              ("uint8", "uint64"), ("uint16", "uint32"), ("uint16", "uint64"),
              ("uint32", "uint64"), ("float", "double"), ("halffloat", "float"),
              ("halffloat", "double")}


def widens(old, new):
    """Whether type ``new`` is an allowed widening of ``old`` (§3.9)."""
    if (str(old), str(new)) in _WIDENINGS:
        return True
    return isinstance(old, T.DecimalType) and isinstance(new, T.DecimalType) and \
        new.scale == old.scale and new.precision > old.precision
