"""Secondary (inverted) index segments (§3.4) and index pruning (§3.10 step 4).

A segment is a Parquet file ``_pqkit/indices/<escaped column>/_<uuid>.pqindex``
(found by the path its version records) written with pqkit's own writer::

    value: <column type>      files: list<string>      (file keys)
    null                      ["<txn>-00003"]          # explicit null row, always first
    7                         ["<txn>-00000", "<txn>-00003"]
    9                         ["<txn>-00001"]

one row per distinct value, sorted by ``value``, row groups of 64k values
(so a point lookup reads one row group: pqkit's filtered reader skips the
others by their min/max), key/value ``pqds.index`` =
``{"column", "dataset_id", "created_version"}``. The version file lists the
segments per indexed column, each with the file keys it ``covers``::

    "indices": [{"column": "customer_id", "kind": "inverted",
                 "segments": [{"path": "_pqkit/indices/customer_id/_9a….pqindex",
                               "covers": ["3b1f…-00000"]}]}]

Segments are immutable. ``build_index`` writes one segment for the live files
no segment covers yet; an append writes one segment for its own new files in
the same commit; removals never touch segments (readers filter by the live
key set); ``optimize_index`` merges a column's segments into one and drops dead
keys. A live file that no segment of the column covers is *unindexed* and is
always a candidate.

Pruning is an optimization and must never drop a matching row, so whenever
the index cannot answer exactly (a null or NaN operand, an unreadable segment,
an operand the value column cannot be compared with) the term is not used.
NaN values are left out of segments: ``== NaN`` matches no row, and lookups of
NaN are never made. ``-0.0`` and ``0.0`` share a row, as they compare equal.
"""
import io
import json
import math
import os

from pqkit import datatypes as T
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.dataset.core import check_relative_path, crash_point, resolve_inside
from pqkit.errors import DatasetIncomplete, ParquetError, SchemaError
from pqkit.read.file import read_table
from pqkit.write.file import ParquetWriter

KV_KEY = "pqds.index"
KIND = "inverted"
ROW_GROUP_VALUES = 65536
_INDEXABLE = (T.BooleanType, T.IntegerType, T.FloatingType, T.StringType,
              T.FixedSizeBinaryType, T.DecimalType, T.Date32Type, T.Date64Type,
              T.TimestampType)


# --- the version file's "indices" ------------------------------------------------------------
def manifest_indices(manifest):
    """The ``indices`` list of a version file (or head); [] when it has none."""
    data = getattr(manifest, "data", None) or {}
    return list(data.get("indices") or [])


def column_index(indices, column):
    for ix in indices:
        if ix.get("column") == column:
            return ix
    return None


def covered_keys(ix):
    return {k for seg in ix.get("segments", []) for k in seg.get("covers", [])}


def next_indices(parent_indices, added=(), replaced=()):
    """The ``indices`` of the next version: the parent's, minus the segment paths in
    ``replaced``, plus ``added`` ((column, segment) pairs)."""
    replaced = set(replaced)
    out = []
    for ix in parent_indices:
        segs = [dict(s) for s in ix.get("segments", []) if s.get("path") not in replaced]
        out.append({"column": ix["column"], "kind": ix.get("kind", KIND), "segments": segs})
    for column, seg in added:
        ix = column_index(out, column)
        if ix is None:
            ix = {"column": column, "kind": KIND, "segments": []}
            out.append(ix)
        ix["segments"].append({"path": seg["path"], "covers": sorted(seg["covers"])})
    return out


def indexed_field(schema, partitioning, column):
    """The table-schema field of an indexable column; SchemaError otherwise."""
    if column in partitioning.by_name:
        raise SchemaError(f"column {column!r} is a partition column: partition pruning is "
                          "already exact, it needs no index")
    field = schema.by_name.get(column)
    if field is None:
        raise SchemaError(f"no column {column!r} in the dataset (columns: {schema.names})")
    if not isinstance(field.type, _INDEXABLE):
        raise SchemaError(f"column {column!r} is {field.type}; an inverted index needs a flat "
                          "boolean, integer, floating, string, binary, decimal, date or "
                          "timestamp column")
    return field


# --- writing segments --------------------------------------------------------------------------
class ValueMap:
    """Distinct value -> file keys, built file by file."""

    def __init__(self):
        self.keys = {}
        self.null_keys = set()

    def add(self, key, values):
        for v in values:
            if v is None:
                self.null_keys.add(key)
            elif isinstance(v, float) and math.isnan(v):
                continue                       # == NaN matches nothing (module docstring)
            else:
                self.keys.setdefault(v, set()).add(key)

    def add_keys(self, value, keys):
        if value is None:
            self.null_keys.update(keys)
        elif not (isinstance(value, float) and math.isnan(value)):
            self.keys.setdefault(value, set()).update(keys)


def segment_bytes(field, values, meta):
    """A segment's Parquet bytes for ``values`` (a ValueMap) of column ``field``."""
    ordered = sorted(values.keys)
    value_col = column_from_values([None] + ordered, field.type)
    files = [sorted(values.null_keys)] + [sorted(values.keys[v]) for v in ordered]
    files_col = column_from_values(files, T.list_(T.string()))
    fields = [T.Field("value", field.type, True), T.Field("files", T.list_(T.string()))]
    buf = io.BytesIO()
    with ParquetWriter(buf, fields, row_group_size=ROW_GROUP_VALUES,
                       key_value_metadata={KV_KEY: json.dumps(meta, sort_keys=True)},
                       write_checksums=False) as w:
        w.write(Table([value_col, files_col], fields))
    return buf.getvalue()


def write_segment(paths, field, values, covers, dataset_id, created_version):
    """Write a segment under ``_pqkit/indices``; returns ``{"path", "covers"}``."""
    rel = paths.new_segment_path(field.name)
    meta = {"column": field.name, "dataset_id": dataset_id,
            "created_version": created_version}
    paths.storage.put_new(segment_location(paths.root, rel), segment_bytes(field, values, meta),
                          crash_step="index.partial")
    crash_point("index.written")
    return {"path": rel, "covers": sorted(covers)}


def segment_location(root, path):
    """Where the segment with relative path ``path`` lives under ``root`` (on its store)."""
    return os.path.join(root, *path.split("/"))


def contained_segment(paths, path):
    """:func:`segment_location` of a segment path read from a version file, which must
    stay inside the root (symbolic links followed on a local disk): ManifestCorrupted
    otherwise."""
    where = f"the indices of {paths.root}"
    if paths.storage.fs is None:
        return resolve_inside(paths.root, path, where, "index segment path", reserved=False)
    check_relative_path(path, where, "index segment path", reserved=False)
    return segment_location(paths.root, path)


def remove_segments(paths, segments):
    for seg in segments:
        paths.storage.remove(contained_segment(paths, seg["path"]))


def read_segment(paths, path):
    """(values, files) lists of a whole segment."""
    table = read_table(contained_segment(paths, path), filesystem=paths.storage.fs)
    return table.column("value").to_pylist(), table.column("files").to_pylist()


def append_segments(paths, parent, mode, fields, values_by_key, created_version):
    """Segments for the new files of an append or replace_partitions, one per indexed
    column of ``parent``: [(column, segment)]. ``values_by_key``: key -> Table."""
    if parent is None or mode not in ("append", "replace_partitions") or not values_by_key:
        return []
    by_name = {f.name: f for f in fields}
    out = []
    try:
        for ix in manifest_indices(parent):
            field = by_name.get(ix["column"])
            if field is None:
                continue                       # files without the column stay unindexed
            values = ValueMap()
            for key, table in values_by_key.items():
                values.add(key, table.column(field.name).to_pylist())
            out.append((field.name, write_segment(paths, field, values, values_by_key,
                                                  parent.dataset_id, created_version)))
    except BaseException:
        remove_segments(paths, [seg for _, seg in out])
        raise
    return out


# --- pruning -------------------------------------------------------------------------------------
def _usable_operand(v):
    return v is not None and not (isinstance(v, float) and math.isnan(v))


class IndexPruner:
    """Index pruning of one snapshot for one DNF (§3.10 step 4).

    ``locate`` maps a segment path of the snapshot to the path to read (on
    ``filesystem`` for a root on a store), and refuses one that would leave the root
    (:meth:`pqkit.dataset.core.scan.FileSource.index_file`).

    For an ``==`` / ``in`` term on an indexed column the candidates are the keys the
    segments list under the operand values, plus the live files no segment of the
    column covers. Terms of an AND group intersect, groups union; a group without
    such a term keeps every file, and then the index is not read at all.
    """

    def __init__(self, locate, indices, dnf, filesystem=None):
        self.locate = locate                   # segment path -> where to read it
        self.filesystem = filesystem           # fsspec file system of a root on a store
        self.groups = None
        self.lookups = 0                       # segments read (for tests and diagnostics)
        by_col = {ix["column"]: ix for ix in indices or [] if ix.get("segments")}
        if not dnf or not by_col:
            return
        plans = []
        for conj in dnf:
            terms = [(col, [value] if op == "==" else list(value)) for col, op, value in conj
                     if op in ("==", "in") and col in by_col]
            terms = [(c, vs) for c, vs in terms if all(_usable_operand(v) for v in vs)]
            if not terms:
                return                         # this group keeps every file
            plans.append(terms)
        groups = []
        for terms in plans:
            tests = []
            for col, vs in terms:
                listed = self._listed(by_col[col], vs)
                if listed is not None:
                    tests.append((covered_keys(by_col[col]), listed))
            if not tests:
                return
            groups.append(tests)
        self.groups = groups

    def _listed(self, ix, values):
        """Keys listed under ``values`` in the column's segments; None if unanswerable."""
        if not values:
            return set()
        out = set()
        for seg in ix["segments"]:
            path = self.locate(seg["path"])    # ManifestCorrupted: it leaves the root
            # A foreign index (Kartothek's) names its own value and key columns.
            keys_col = seg.get("keys_column", "files")
            try:
                table = read_table(path, columns=[keys_col], filesystem=self.filesystem,
                                   filters=[(seg.get("value_column", "value"), "in",
                                             list(values))])
            except (OSError, ParquetError, TypeError, ValueError):
                return None                    # missing or incomparable: do not prune
            self.lookups += 1
            for keys in table.column(keys_col).to_pylist():
                out.update(keys or ())
        return out

    def keeps(self, key):
        """Whether the file ``key`` may hold a row matching the predicate."""
        if self.groups is None:
            return True
        return any(all(key in listed or key not in covered for covered, listed in tests)
                   for tests in self.groups)


def check_segments_present(paths, segments):
    missing = [s["path"] for s in segments
               if not paths.storage.exists(contained_segment(paths, s["path"]))]
    if missing:
        raise DatasetIncomplete(f"index segment {missing[0]!r} is gone (removed by vacuum after "
                           "its grace period?); build it again")
