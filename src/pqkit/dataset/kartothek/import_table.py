"""Opening a Kartothek table, and registering it as a PQDS/1 dataset in place (§3.13).

:func:`import_kartothek` makes ``<store>/<uuid>/<table>`` the root of a PQDS/1
dataset whose version 0 lists exactly the files the Kartothek metadata lists
for that table, where they are: no data file is copied, moved or rewritten.
The file keys are the partition labels; the partition columns keep the types
of ``_common_metadata``; each Kartothek index becomes one PQDS/1 index segment
(value -> labels) covering every imported file. Version 0 carries the
property ``common_metadata = foreign``, so publishing never replaces
Kartothek's ``_common_metadata`` with pqkit's own; the publish step adds only
``_SUCCESS`` and ``_pqkit/``. Later appends write pqkit-named files beside the
Kartothek ones, which Kartothek itself does not see (its metadata is never
touched). The imported entries carry ``"origin": "kartothek"``, and a commit that
would remove one of them (overwrite, delete, compact, replace_partitions) is
refused: publishing it would move a file Kartothek still lists.
"""
import os

from pqkit.dataset.core import (
    TableSchema,
    dump_json,
    new_txn,
    publish_if_absent,
    utc_now_text,
    with_field_ids,
    write_file,
)
from pqkit.dataset.kartothek.object_source import ObjectKartothekSource
from pqkit.dataset.kartothek.source import KartothekSource
from pqkit.dataset.pqds import (
    KIND,
    RootPaths,
    ValueMap,
    checked_manifest,
    indexed_field,
    open_snapshot,
    try_publish,
    write_segment,
)
from pqkit.errors import DatasetExists, DatasetNotFound
from pqkit.filesystems import is_url
from pqkit.read.file import read_table


def open_kartothek(store, uuid=None, table=None, *, storage_options=None):
    """Open one table of a Kartothek v4 dataset (read-only, version 0).

    Parameters
    ----------
    store : path or str
        The store directory (holding ``<uuid>.by-dataset-metadata.json`` or
        ``.msgpack.zstd``), or its URL on an object store (``s3://bucket/store``).
    uuid : str, optional
        Default: the only dataset in ``store``.
    table : str, optional
        Default: the only table of the dataset.
    storage_options : dict, optional
        Options of the URL's fsspec file system.

    Returns
    -------
    pqkit.dataset.Dataset
        Its ``root`` is ``<store>/<uuid>/<table>``.
    """
    if is_url(store):
        return open_snapshot(ObjectKartothekSource(store, uuid, table,
                                                   storage_options=storage_options))
    source = KartothekSource(store, uuid, table)
    return open_snapshot(source)


def import_kartothek(store, uuid=None, table=None, *, run_id=None):
    """Register a Kartothek table as PQDS/1 version 0 at ``<store>/<uuid>/<table>``.

    Parameters
    ----------
    store : path
    uuid, table : str, optional
        As for :func:`open_kartothek`.
    run_id : str, optional
        Recorded in version 0's operation.

    Returns
    -------
    str
        The root of the new PQDS/1 dataset; ``pqkit.dataset.open(root)``,
        ``write(root, ...)`` and the maintenance operations work on it.

    Raises
    ------
    DatasetExists
        The table was imported before.
    DatasetIncomplete, ManifestCorrupted
        As when opening (a listed file or index is missing, the metadata is malformed).
    """
    source = KartothekSource(store, uuid, table)
    paths = RootPaths(source.root)
    try:
        paths.latest()
        raise DatasetExists(f"{paths.root} already holds a PQDS/1 dataset (imported before?)")
    except DatasetNotFound:
        pass
    snap = source.load(0)
    fields, _ = with_field_ids(snap.schema.fields, 1)
    schema = TableSchema(fields)
    txn, dataset_id = new_txn(), new_txn()
    keys = [e["key"] for e in snap.files]
    segments = [(ix["column"], _segment(paths, source, snap, schema, ix, keys, dataset_id))
                for ix in snap.data["indices"]]
    data = dict(snap.data)
    data.update({
        "dataset_id": dataset_id, "committed_at_utc": utc_now_text(),
        "operation": {"type": "import-kartothek", "txn": txn, "read_version": -1,
                      "attempt": 1, "run_id": run_id, "added": keys, "removed": [],
                      "scope": None, "source": {"uuid": source.uuid, "table": source.table,
                                                "metadata": os.path.basename(
                                                    source.metadata_file)}},
        "schema": schema.to_json(),
        "files": [{**e, "schema_id": schema.id, "added_version": 0, "origin": "kartothek"}
                  for e in snap.files],
        "properties": {"common_metadata": "foreign", "kartothek.uuid": source.uuid,
                       "kartothek.table": source.table},
        "indices": [{"column": c, "kind": KIND, "segments": [seg]} for c, seg in segments],
    })
    checked_manifest(data, "imported version 0")          # the same checks a reader makes
    tmp = paths.tmp_path(txn, 1)
    write_file(tmp, dump_json(data))
    if not publish_if_absent(tmp, paths.version_path(0)):
        raise DatasetExists(f"{paths.root}: another process imported it first")
    try_publish(paths)
    return paths.root


def _segment(paths, source, snap, schema, ix, keys, dataset_id):
    """A PQDS/1 segment with the values -> labels of one Kartothek index file."""
    seg = ix["segments"][0]
    field = indexed_field(schema, snap.partitioning, ix["column"])
    table = read_table(source.index_file(seg["path"]),
                       columns=[seg["value_column"], seg["keys_column"]])
    live = set(keys)
    values = ValueMap()
    for value, labels in zip(table.column(seg["value_column"]).to_pylist(),
                             table.column(seg["keys_column"]).to_pylist()):
        values.add_keys(value, [k for k in labels or () if k in live])
    return write_segment(paths, field, values, keys, dataset_id, 0)


__all__ = ["import_kartothek", "open_kartothek"]
