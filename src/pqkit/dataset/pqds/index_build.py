"""Index operations: ``build_index`` and ``optimize_index`` (§3.4, §3.9 row "index build").

Both commit an ``index`` operation. It adds no data file and removes none, so it
rebases over concurrent appends (their files stay unindexed), deletes and
compactions (their removed files become dead keys) and other index builds
(segments merge); it conflicts (retryably) with an overwrite or restore and with
a schema change that dropped the column.
"""
from pqkit.dataset.pqds.index_segments import (
    ValueMap,
    column_index,
    covered_keys,
    indexed_field,
    manifest_indices,
    read_segment,
    remove_segments,
    write_segment,
)
from pqkit.dataset.pqds.staging import Change


def _file_values(ds, field, entries, values):
    for entry in entries:
        table = ds.read_entry(entry, [field.name])
        values.add(entry["key"], table.column(field.name).to_pylist())


def _commit(change, ds, column, segment, replaced=()):
    try:
        return change.commit("index", read_version=ds.version, index_column=column,
                             index_segments=[(column, segment)], replaced_segments=replaced)
    except BaseException:
        remove_segments(change.paths, [segment])
        raise


def build_index(root, column, *, storage_options=None):
    """Index ``column``: one segment for every live file no segment covers yet.

    Later appends index their own files in the same commit. Returns the new version,
    or the current one when every live file is already covered. A URL ``root`` is a
    dataset on an object store (``storage_options``: its fsspec options).

    Raises
    ------
    SchemaError
        ``column`` is unknown, a partition column, or of a type that cannot be indexed.
    CommitConflict
        An overwrite or restore, or a schema change dropping ``column``, was committed
        meanwhile (retryable).
    """
    change = Change(root, storage_options)
    ds = change.open()
    field = indexed_field(ds.table_schema, ds.partitioning, column)
    current = column_index(manifest_indices(ds.manifest), column)
    covered = covered_keys(current) if current is not None else set()
    todo = [e for e in ds.manifest.files if e["key"] not in covered]
    if current is not None and not todo:
        return ds.version
    values = ValueMap()
    _file_values(ds, field, todo, values)
    segment = write_segment(change.paths, field, values, [e["key"] for e in todo],
                            ds.manifest.dataset_id, ds.version + 1)
    return _commit(change, ds, column, segment)


def optimize_index(root, column, *, storage_options=None):
    """Merge the segments of ``column`` into one, dropping dead keys and indexing the
    live files no segment covered. Returns the new version (the current one when the
    index already is a single segment covering exactly the live files)."""
    change = Change(root, storage_options)
    ds = change.open()
    field = indexed_field(ds.table_schema, ds.partitioning, column)
    current = column_index(manifest_indices(ds.manifest), column)
    if current is None:
        return build_index(root, column, storage_options=storage_options)
    live = ds.manifest.keys()
    segments = current.get("segments", [])
    if len(segments) == 1 and set(segments[0]["covers"]) == live:
        return ds.version
    values = ValueMap()
    for seg in segments:
        for value, keys in zip(*read_segment(change.paths, seg["path"])):
            values.add_keys(value, [k for k in keys or () if k in live])
    covered = covered_keys(current)
    _file_values(ds, field, [e for e in ds.manifest.files if e["key"] not in covered], values)
    segment = write_segment(change.paths, field, values, live, ds.manifest.dataset_id,
                            ds.version + 1)
    return _commit(change, ds, column, segment, [s["path"] for s in segments])
