"""Operations, the conflict table, and building the next snapshot (§3.9).

Isolation is snapshot isolation with write-write validation. An operation
read version ``r``; before committing version ``n + 1`` it is validated against
every version ``r+1 .. n`` committed in between. Rows are the committing
operation, columns the intervening one; ✓ rebases, R raises
``CommitConflict(retryable=True)``:

=================  ======  =========  ==============  ==============  ==========  =====  =======
committing ↓       append  overwrite  replace (S′)    rewrite (F′)    schema chg  index  restore
=================  ======  =========  ==============  ==============  ==========  =====  =======
append             ✓       R          ✓               ✓               ✓ if compat ✓      R
overwrite/restore  ✓       ✓          ✓               ✓               ✓           ✓      ✓
replace (S)        R [1]   R          R if S∩S′≠∅     R if F′ in S    R           ✓      R
delete             ✓       R          R if F removed  R if F∩F′≠∅     R           ✓      R
update (merge)     ✓       R          R if F removed  R if F∩F′≠∅     R           ✓      R
compact (F)        ✓       R          R if F removed  R if F∩F′≠∅     ✓ [6]       ✓      R
schema change      ✓       R          ✓               ✓               R           ✓      R
index build        ✓ [2]   R          ✓ [3]           ✓ [3]           R [4]       ✓ [5]  R
=================  ======  =========  ==============  ==============  ==========  =====  =======

[1] if the append added files inside S; never with ``blind=True``. "rewrite" is any
delete, update or compact; "F removed" means the intervening operation removed a file
this one rewrites. An update (``merge``) also adds rows, but a concurrent append still
rebases: the result is the serial order merge, then append (the append's rows are
neither updated nor deduplicated, as if it had committed later).
[2] the appended files stay unindexed (always candidates). [3] removed files become
dead keys, which readers filter out. [4] only if the indexed column is gone. [5] the
segments are merged into the column's list; an ``optimize_index`` replaces only the
segments it read. [6] R when the intervening version is a ``schema_change`` (a rename or
drop, pqds/maintenance.py): the compacted files' entries name the old columns.

An append that also evolves the schema is checked against both the append and
the schema-change rows. A version whose operation type is unknown conflicts
with everything except overwrite (not retryable).
"""
from pqkit import datatypes as T
from pqkit._version import __version__
from pqkit.dataset.core import (
    DEFAULT_PROPERTIES,
    FORMAT,
    FORMAT_VERSION,
    ColumnMapping,
    PartitionColumn,
    Partitioning,
    TableSchema,
    check_relative_path,
    deleted_count,
    field_from_json,
    field_id,
    field_to_json,
    live_rows,
    max_field_id,
    type_from_json,
    utc_now_text,
    widens,
    with_field_ids,
)
from pqkit.dataset.core.deletion_file import FEATURE as DELETION_FEATURE
from pqkit.dataset.pqds.index_segments import manifest_indices, next_indices
from pqkit.dataset.pqds.paths import data_file_name
from pqkit.errors import CommitConflict, DatasetExists, SchemaError

ENGINE = f"pqkit {__version__}"
APPEND_LIKE = ("append", "create")
REWRITES = ("delete", "update", "compact", "rewrite")
KNOWN_TYPES = APPEND_LIKE + REWRITES + ("overwrite", "replace_partitions", "restore", "index",
                                        "schema_change")
STAGING_KEYS = ("schema", "partition_types")


# --- scopes -------------------------------------------------------------------------------------
def scope_matches(scope, partition):
    """Whether a file's partition texts fall inside a scope (a list of partial partitions)."""
    return any(all(partition.get(k) == v for k, v in entry.items()) for entry in scope)


def scopes_intersect(a, b):
    return any(all(x[k] == y[k] for k in x.keys() & y.keys()) for x in a for y in b)


# --- the operation being committed ----------------------------------------------------------------
class Operation:
    """What a writer wants to commit; :meth:`build` turns a parent snapshot into the next one.

    Parameters
    ----------
    type : str
        create, append, overwrite, replace_partitions, delete, update, compact or restore.
    entries : list of dict
        New file entries (from staging).
    removed : iterable of str
        File keys the operation removes (delete, update, compact).
    scope : list of dict, optional
        replace_partitions: partial partitions (column -> canonical text) it replaces.
    """

    def __init__(self, type, txn, *, entries=(), removed=(), scope=None, blind=False,
                 run_id=None, read_version=None, partition_by=None, schema=None,
                 evolve_schema=False, properties=None, metadata=None, restore_from=None,
                 dataset_key=None, partitioning=None, index_segments=(),
                 replaced_segments=(), index_column=None, schema_edit=None,
                 physical_added=None, deletions=None):
        self.type = type
        self.txn = txn
        self.entries = list(entries)
        self.removed = set(removed)
        self.scope = scope
        self.blind = bool(blind)
        self.run_id = run_id
        self.read_version = read_version
        self.partition_by = None if partition_by is None else list(partition_by)
        self.schema = schema
        self.evolve_schema = bool(evolve_schema)
        self.properties = dict(properties or {})
        self.metadata = metadata
        self.restore_from = restore_from
        self.dataset_key = dataset_key
        self.partitioning = partitioning    # known up front by write(); else from the entries
        self.schema_change = False          # set by build() when the schema evolved
        # Index segments written with the operation: (column, {"path", "covers"}) pairs,
        # and the segment paths an optimize_index replaces (§3.4).
        self.index_segments = list(index_segments)
        self.replaced_segments = list(replaced_segments)
        self.index_column = index_column
        # schema_change: ("rename", old, new) or ("drop", name), metadata only (§3.3
        # column_mapping); physical_added: physical names the staged files gave new columns
        self.schema_edit = schema_edit
        self.physical_added = dict(physical_added or {})
        # delete with deletion files: file key -> the record of its new deletion file
        # (core/deletion_file.py); the file stays, its entry gains the record
        self.deletions = dict(deletions or {})

    @property
    def rewritten(self):
        """Keys of the parent's files this operation removes or gives a deletion file."""
        return self.removed | set(self.deletions)

    def prepare(self, read_manifest):
        """Decide, against the version the operation read, whether it changes the schema."""
        if self.type != "append" or not self.evolve_schema or read_manifest is None:
            return
        target = list(self.schema) if self.schema is not None else \
            _merged_entry_fields(self.entries, read_manifest.schema)
        fields = evolve(read_manifest.schema.fields, target, True)
        self.schema_change = not TableSchema(fields, read_manifest.schema.id) \
            .same_as(read_manifest.schema)

    # --- idempotency ------------------------------------------------------------------------
    def app_txn(self):
        """(app id, run) of the run id: ``"app:run"`` splits at the last colon."""
        if not self.run_id:
            return None
        app, sep, run = str(self.run_id).rpartition(":")
        if not sep:
            return str(self.run_id), 0
        return app, int(run) if run.isdigit() else run

    def already_applied(self, parent):
        txn = self.app_txn()
        if txn is None or parent is None:
            return False
        app, run = txn
        done = parent.app_txns.get(app)
        if done is None:
            return False
        if isinstance(run, int) and isinstance(done, int):
            return run <= done
        return done == run

    # --- validation -------------------------------------------------------------------------
    def validate(self, prev, manifest):
        """Raise CommitConflict if version ``manifest`` (parent ``prev``) conflicts with us."""
        if self.type in ("overwrite", "restore"):
            return
        other = manifest.operation
        kind = other.get("type")
        v = manifest.version
        if kind not in KNOWN_TYPES:
            raise CommitConflict(f"version {v} was made by an unknown operation {kind!r}",
                                 retryable=False, conflicting_version=v, reason="unknown")
        if kind == "index":
            return
        schema_changed = prev is not None and not prev.schema.same_as(manifest.schema)
        rows = ["schema_change"] if self.type == "schema_change" else [self.type]
        if self.type == "append" and self.schema_change:
            rows.append("schema_change")
        for row in rows:
            rule = _RULES.get(row, _rule_unknown_row)
            reason = rule(self, kind, other, prev, manifest, schema_changed)
            if reason:
                raise CommitConflict(f"{self.type} conflicts with the {kind} committed as "
                                     f"version {v}: {reason}", retryable=True,
                                     conflicting_version=v, reason=reason)

    # --- building the next snapshot ---------------------------------------------------------
    def build(self, parent, version, attempt, dataset_id):
        """The JSON document of version ``version`` applying this operation to ``parent``."""
        if self.type == "create" and parent is not None:
            raise DatasetExists(f"a dataset already exists (version {parent.version})")
        partitioning = self._partitioning(parent)
        schema = self._schema(parent)
        live, removed = self._live_files(parent, partitioning)
        added = []
        for i, entry in enumerate(self.entries):
            added.append(_final_entry(entry, partitioning, schema, version, i))
        files = live + added
        if len({f["key"] for f in files}) != len(files):
            raise SchemaError("the commit lists a file key twice")
        if len({f["path"] for f in files}) != len(files):
            raise SchemaError("the commit lists a file path twice")
        app_txns = dict(parent.app_txns) if parent is not None and \
            self.type not in ("create",) else {}
        if self.app_txn() is not None:
            app, run = self.app_txn()
            app_txns[app] = run
        props = {**(parent.data.get("properties", {}) if parent is not None
                    else DEFAULT_PROPERTIES), **self.properties}
        metadata = self.metadata if self.metadata is not None else \
            (parent.data.get("metadata", {}) if parent is not None else {})
        mapping = self._column_mapping(parent, schema)
        features = mapping.features()
        if any(f.get("deletions") for f in files):
            features.append(DELETION_FEATURE)
        rows_added = sum(live_rows(f) for f in added)
        rows_removed = sum(live_rows(parent.by_key()[k]) for k in removed) \
            if parent is not None else 0
        before = parent.by_key() if self.deletions else {}
        rows_removed += sum(int(self.deletions[k]["rows"]) - deleted_count(before[k])
                            for k in self.deletions)
        op = {"type": self.type,
              "txn": self.txn, "read_version": self.read_version, "attempt": attempt,
              "run_id": self.run_id, "added": [f["key"] for f in added],
              "removed": sorted(removed), "scope": self.scope, "blind": self.blind,
              "schema_change": self.schema_change, "engine": ENGINE,
              "metrics": {"rows_added": rows_added, "rows_removed": rows_removed,
                          "files_added": len(added), "files_removed": len(removed)}}
        if self.deletions:
            op["deletions"] = sorted(self.deletions)
        if self.restore_from is not None:
            op["restored_version"] = self.restore_from.version
        if self.type == "index":
            op["column"] = self.index_column
        if self.index_segments or self.replaced_segments:
            op["index_segments"] = [{"column": c, "path": s["path"]}
                                    for c, s in self.index_segments]
            op["replaced_segments"] = sorted(self.replaced_segments)
        doc = {
            "format": FORMAT, "format_version": FORMAT_VERSION,
            "reader_features": features, "writer_features": list(features),
            "dataset_id": dataset_id,
            "dataset_key": self.dataset_key if self.dataset_key is not None else
            (parent.data.get("dataset_key") if parent is not None else None),
            "version": version, "parent_version": parent.version if parent is not None else None,
            "committed_at_utc": utc_now_text(parent.committed_at_utc if parent else None),
            "operation": op, "app_txns": app_txns,
            "schema": schema.to_json(), "partitioning": partitioning.to_json(),
            "properties": props, "metadata": metadata,
            "row_count": sum(live_rows(f) for f in files), "file_count": len(files),
            "total_bytes": sum(int(f["size"]) for f in files),
            "files": files, "indices": self._indices(parent),
        }
        if mapping.enabled:
            doc["column_mapping"] = mapping.to_json()
        return doc

    def _column_mapping(self, parent, schema):
        """The next version's column mapping: none after a create or overwrite (their
        files use the names), the restored version's, else the parent's carried to
        ``schema``; a schema change turns it on."""
        if parent is None or self.type in ("create", "overwrite"):
            return ColumnMapping()
        if self.type == "restore":
            return ColumnMapping.of(self.restore_from.data, self.restore_from.where)
        base = ColumnMapping.of(parent.data, parent.where)
        if self.type == "schema_change" and not base.enabled:
            base = ColumnMapping.turned_on(parent.schema)
        return base.following(schema, self.physical_added)

    def _indices(self, parent):
        """The next version's index segments (§3.4): the parent's plus ours."""
        if self.type == "restore":
            base = manifest_indices(self.restore_from)
        elif self.type in ("overwrite", "create") or parent is None:
            base = []
        else:
            base = manifest_indices(parent)
        if self.schema_edit is not None:
            base = _edited_indices(base, self.schema_edit)
        return next_indices(base, self.index_segments, self.replaced_segments)

    def _live_files(self, parent, partitioning):
        """(parent files kept, keys removed)."""
        if parent is None:
            return [], set()
        if self.type in ("overwrite", "create"):
            return [], set(parent.by_key())
        if self.type == "restore":
            # the restored version's entries: a file's deletion file may differ from the parent's
            keep = self.restore_from.by_key()
            return [keep[f["key"]] for f in parent.files if f["key"] in keep], \
                set(parent.by_key()) - set(keep)
        if self.type == "replace_partitions":
            gone = {f["key"] for f in parent.files if scope_matches(self.scope, f["partition"])}
        else:
            gone = set(self.removed)
            missing = self.rewritten - set(parent.by_key())
            if missing:
                raise CommitConflict(f"files {sorted(missing)[:3]} to remove are no longer in "
                                     f"version {parent.version}", retryable=True,
                                     conflicting_version=parent.version, reason="removed")
        return [_with_deletions(f, self.deletions.get(f["key"])) for f in parent.files
                if f["key"] not in gone], gone

    def _partitioning(self, parent):
        current = parent.partitioning if parent is not None else None
        if self.type == "restore":
            return self.restore_from.partitioning
        staged = self.partitioning if self.partitioning is not None else \
            _staged_partitioning(self.entries, self.partition_by)
        keep = current is not None and self.type not in ("overwrite", "create")
        if keep:
            if self.partition_by is not None and self.partition_by != current.names:
                raise SchemaError(f"the dataset is partitioned by {current.names}, not "
                                  f"{self.partition_by}")
            if staged is not None and staged.names != current.names:
                raise SchemaError(f"the files are partitioned by {staged.names} but the "
                                  f"dataset by {current.names}")
            return current
        if staged is not None:
            return staged
        if self.partition_by:
            if current is not None and current.names == self.partition_by:
                return current
            raise SchemaError(f"partition_by {self.partition_by} but no file says the types of "
                              "the partition columns")
        if current is not None and self.partition_by is None:
            return current
        return Partitioning()

    def _schema(self, parent):
        """The table schema of the next version (evolution checked, ids kept)."""
        if self.type == "restore":
            return self.restore_from.schema
        if self.type == "schema_change":
            self.schema_change = True
            return edited_schema(parent.schema, self.schema_edit)
        base = parent.schema if parent is not None and self.type not in ("overwrite", "create") \
            else None
        if self.schema is not None:
            target = list(self.schema)
        else:
            target = _merged_entry_fields(self.entries, base)
        if base is None:
            known = {f.name: f for f in parent.schema.fields} if parent is not None else {}
            start = max([0] + [_fid(f) for f in known.values()]) + 1
            fields, _ = with_field_ids(target, start, known, keep_own=True)
            schema_id = (parent.schema.id + 1) if parent is not None and \
                not parent.schema.same_as(TableSchema(fields)) else \
                (parent.schema.id if parent is not None else 0)
            return TableSchema(fields, schema_id)
        fields = evolve(base.fields, target, self.evolve_schema)
        candidate = TableSchema(fields, base.id)
        if candidate.same_as(base):
            return base
        self.schema_change = True
        return TableSchema(fields, base.id + 1)


def _with_deletions(entry, record):
    """``entry`` with the deletion file ``record`` (None: unchanged)."""
    return entry if record is None else {**entry, "deletions": dict(record)}


def _fid(f):
    return field_id(f) or 0


def edited_schema(schema, edit):
    """``schema`` after a rename ``("rename", old, new)`` or a drop ``("drop", name)``;
    the fields keep their ids."""
    kind, name = edit[0], edit[1]
    if name not in schema.by_name:
        raise SchemaError(f"no column {name!r} to {kind} (columns: {schema.names})")
    if kind == "rename":
        fields = [T.Field(edit[2], f.type, f.nullable, f.metadata) if f.name == name else f
                  for f in schema.fields]
    else:
        fields = [f for f in schema.fields if f.name != name]
    return TableSchema(fields, schema.id + 1)


def _edited_indices(indices, edit):
    """The inverted indices after a rename (the index follows its column) or a drop (the
    index goes with it)."""
    if edit[0] == "drop":
        return [ix for ix in indices if ix.get("column") != edit[1]]
    return [{**ix, "column": edit[2]} if ix.get("column") == edit[1] else ix
            for ix in indices]


def _staged_partitioning(entries, partition_by):
    """The partitioning the staged entries were written with (None without entries)."""
    if not entries:
        return None
    first = entries[0]
    names = list(first.get("partition", {}))
    types = first.get("partition_types")
    if types is None:
        return None
    if partition_by is not None and names != partition_by:
        raise SchemaError(f"partition_by {partition_by} but the files are partitioned by "
                          f"{names}")
    return Partitioning([PartitionColumn(n, type_from_json(types[n], "partition_types"))
                         for n in names])


def _merged_entry_fields(entries, base):
    """Union of the staged files' fields (same name: same type; missing: nullable)."""
    if not entries:
        return list(base.fields) if base is not None else []
    merged, seen_in = {}, {}
    for e in entries:
        if "schema" not in e:
            if base is None:
                raise SchemaError(f"file entry {e.get('key')!r} carries no schema and the "
                                  "dataset has none")
            continue
        for fj in e["schema"]:
            f = field_from_json(fj)
            old = merged.get(f.name)
            if old is not None and old.type != f.type:
                raise SchemaError(f"column {f.name!r} is {old.type} in one file and {f.type} "
                                  "in another")
            if old is None or (f.nullable and not old.nullable):
                merged[f.name] = f
            seen_in[f.name] = seen_in.get(f.name, 0) + 1
    with_schema = sum(1 for e in entries if "schema" in e)
    return [f if seen_in[f.name] == with_schema else T.Field(f.name, f.type, True, f.metadata)
            for f in merged.values()]


def evolve(base_fields, target_fields, allowed):
    """The schema after writing files with ``target_fields`` into a dataset of ``base_fields``.

    Columns the files lack stay (read as null, so they must be nullable). New
    columns are appended as nullable; a type may only widen; required may become
    optional. Any change needs ``allowed`` (``evolve_schema=True``).
    """
    base = {f.name: f for f in base_fields}
    out = []
    target = {f.name: f for f in target_fields}
    for f in base_fields:
        t = target.get(f.name)
        if t is None:
            if not f.nullable:
                raise SchemaError(f"the data lacks column {f.name!r}, which the dataset "
                                  "declares not nullable")
            out.append(f)
            continue
        new = f
        if t.type != f.type and not widens(t.type, f.type):
            if not widens(f.type, t.type):
                raise SchemaError(f"column {f.name!r} is {t.type} in the data but {f.type} in "
                                  "the dataset; only widening (int32->int64, float->double, "
                                  "decimal precision up) is allowed")
            new = T.Field(f.name, t.type, f.nullable or t.nullable, f.metadata)
        elif t.nullable and not f.nullable:
            new = T.Field(f.name, f.type, True, f.metadata)
        if new != f and not allowed:
            raise SchemaError(f"column {f.name!r} changes from {f} to {new}; pass "
                              "evolve_schema=True to evolve the dataset's schema")
        out.append(new)
    extra = [f for f in target_fields if f.name not in base]
    if extra and not allowed:
        raise SchemaError(f"column {extra[0].name!r} is not in the dataset (columns "
                          f"{[f.name for f in base_fields]}); pass evolve_schema=True to add it")
    added, _ = with_field_ids([T.Field(f.name, f.type, True, f.metadata) for f in extra],
                              max_field_id(base_fields) + 1, {}, keep_own=True)
    return out + added


def _final_entry(entry, partitioning, schema, version, i):
    """A staged entry checked against the snapshot and stripped of staging keys."""
    where = f"file entry {i} ({entry.get('key')!r})"
    for k in ("key", "path", "size", "row_count"):
        if k not in entry:
            raise SchemaError(f"{where} lacks {k!r}")
    path = check_relative_path(entry["path"], where)
    texts = dict(entry.get("partition") or {})
    partitioning.check_texts(texts, where)
    directory = partitioning.directory(texts)
    expected = (directory + "/" if directory else "") + path.rsplit("/", 1)[-1]
    if path != expected:
        raise SchemaError(f"{where}: path {path!r} does not match its partition (expected "
                          f"{expected!r})")
    name = path.rsplit("/", 1)[-1]
    txn, seq = entry["key"][:32], entry["key"][33:]
    if not seq.isdigit() or name != data_file_name(int(seq), txn):
        raise SchemaError(f"{where}: key {entry['key']!r} does not match file name {name!r}")
    if "schema" in entry:
        _check_file_fields(entry["schema"], schema, where)
    out = {k: v for k, v in entry.items() if k not in STAGING_KEYS}
    out["partition"] = texts
    out["schema_id"] = schema.id
    out.setdefault("added_version", version)
    return out


def _check_file_fields(fields_json, schema, where):
    for fj in fields_json:
        f = field_from_json(fj)
        target = schema.by_name.get(f.name)
        if target is None:
            raise SchemaError(f"{where}: column {f.name!r} is not in the dataset schema")
        if f.type != target.type and not widens(f.type, target.type):
            raise SchemaError(f"{where}: column {f.name!r} is {f.type}, the dataset says "
                              f"{target.type}")
        if fj.get("id") is not None and field_to_json(target).get("id") != fj["id"]:
            raise SchemaError(f"{where}: column {f.name!r} has field id {fj['id']}, the "
                              f"dataset's is {field_to_json(target).get('id')}")


# --- the conflict table --------------------------------------------------------------------------
def _added_partitions(other, manifest):
    files = manifest.by_key()
    return [files[k]["partition"] for k in other.get("added", []) if k in files]


def _removed_partitions(other, prev):
    if prev is None:
        return []
    files = prev.by_key()
    return [files[k]["partition"] for k in other.get("removed", []) +
            (other.get("deletions") or []) if k in files]


def _rule_append(op, kind, other, prev, manifest, schema_changed):
    if kind in ("overwrite", "restore"):
        return f"an {kind} replaced the files this append was based on"
    if schema_changed and op.entries:
        try:
            for e in op.entries:
                if "schema" in e:
                    _check_file_fields(e["schema"], manifest.schema, "file")
        except SchemaError as exc:
            return f"the schema changed incompatibly: {exc}"
    return None


def _rule_replace(op, kind, other, prev, manifest, schema_changed):
    if kind in ("overwrite", "restore"):
        return f"an {kind} replaced every partition"
    if schema_changed:
        return "the schema changed"
    if kind in APPEND_LIKE:
        if not op.blind and any(scope_matches(op.scope, p)
                                for p in _added_partitions(other, manifest)):
            return "files were added inside the replaced partitions (use blind=True to allow)"
        return None
    if kind == "replace_partitions":
        if scopes_intersect(op.scope, other.get("scope") or [{}]):
            return "it replaced overlapping partitions"
        return None
    touched = _added_partitions(other, manifest) + _removed_partitions(other, prev)
    if any(scope_matches(op.scope, p) for p in touched):
        return f"the {kind} touched files inside the replaced partitions"
    return None


def _rule_rewrite(op, kind, other, prev, manifest, schema_changed):
    """Rows delete/update (schema change: R) and compact (schema change: ✓)."""
    if kind in ("overwrite", "restore"):
        return f"an {kind} replaced the files"
    # a compaction keeps the columns, but not across a rename or drop of one
    if schema_changed and (op.type != "compact" or kind == "schema_change"):
        return "the schema changed"
    if kind in APPEND_LIKE:
        return None
    if op.rewritten & set(other.get("removed", [])):
        return f"the {kind} removed files this {op.type} rewrites"
    if op.rewritten & set(other.get("deletions") or []):
        return f"the {kind} deleted rows of files this {op.type} rewrites"
    return None


def _rule_schema_change(op, kind, other, prev, manifest, schema_changed):
    if kind in ("overwrite", "restore"):
        return f"an {kind} replaced the table"
    if schema_changed:
        return "the schema changed concurrently"
    return None


def _rule_index(op, kind, other, prev, manifest, schema_changed):
    if kind in ("overwrite", "restore"):
        return f"an {kind} replaced the files this index was built from"
    if op.index_column is not None and op.index_column not in manifest.schema.by_name:
        return f"the indexed column {op.index_column!r} is no longer in the schema"
    return None


def _rule_unknown_row(op, kind, other, prev, manifest, schema_changed):
    return f"{op.type} cannot be validated against {kind}"


_RULES = {"append": _rule_append, "create": _rule_append, "replace_partitions": _rule_replace,
          "delete": _rule_rewrite, "update": _rule_rewrite, "compact": _rule_rewrite,
          "schema_change": _rule_schema_change, "index": _rule_index}
