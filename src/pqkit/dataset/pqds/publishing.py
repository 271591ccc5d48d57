"""The publish step (§3.7): make the plain Hive view equal the latest version.

Manifest readers never need it; it exists for readers that only list
directories (Spark, Hive, pyarrow, DuckDB, polars). Under ``flock(_pqkit/_publish.lock)``
the publisher takes the versions after the last published one
(``_SUCCESS.version``, else the ``_latest`` hint) up to the latest, and:

1. deletes ``_SUCCESS`` and ``_metadata``: the visible view is now "not yet
   consistent", and a stale ``_metadata`` is never trusted;
2. renames every added file ``shadow -> visible`` and every removed one
   ``visible -> shadow``; a missing source means "already done", so a crashed
   publish is simply run again;
3. atomically replaces the derived files: ``_common_metadata`` (footer-only
   Parquet with the data schema and field ids, KV ``pqds.dataset``), the
   optional ``_metadata`` summary, ``_SUCCESS`` (JSON) and ``_pqkit/_latest``.

So when ``_SUCCESS`` exists, the visible data files are exactly the snapshot of
``_SUCCESS.version``; removed files stay in ``shadow/`` for time travel.
"""
import io
import json
import os
import struct

from pqkit import format as fmt
from pqkit.dataset.core import ColumnMapping, crash_point, dump_json
from pqkit.dataset.pqds import file_list
from pqkit.dataset.pqds.paths import DATA_FILE_RE
from pqkit.errors import DatasetIncomplete, EncryptedFileError, ManifestCorrupted
from pqkit.read.fetch.footer import read_metadata
from pqkit.write.file import ParquetWriter, created_by


def published_version(paths):
    """The last version whose publish completed (-1 when none is known)."""
    try:
        marker = paths.read_pointer(paths.success)
        if marker.get("format") == "pqds":
            return marker["version"]
    except (OSError, ValueError):               # ManifestCorrupted is a ValueError too
        pass
    hint = paths.hint()
    return -1 if hint is None else hint


def publish(paths):
    """Publish every committed version not yet visible; returns the version now published.

    Idempotent and crash-safe: safe to run at any time, by any number of processes.
    """
    store = paths.storage
    with store.lock(paths.publish_lock):
        crash_point("publish.locked")
        latest, target = paths.load_latest()
        done = published_version(paths)
        if done >= latest and store.exists(paths.success):
            _write_hint(paths, latest, _write_index(paths, target))
            return latest
        store.remove(paths.success)
        store.remove(paths.summary_metadata)
        store.sync_dir(paths.root)
        crash_point("publish.success_removed")
        to_visible, to_shadow = _moves(paths, done, latest, target)
        _apply_moves(paths, to_visible, to_shadow)
        crash_point("publish.moved_all")
        _write_derived(paths, target)
        return latest


def _moves(paths, done, latest, target):
    """(paths to make visible, paths to retire) taking ``done`` to ``latest``."""
    live = {f["path"] for f in target.files}
    if done < 0 or done > latest:
        return sorted(live), sorted(set(visible_data_files(paths)) - live)
    added, removed = set(), set()
    prev = None
    for v in range(done + 1, latest + 1):
        try:
            m = paths.load(v)
            if prev is None and v > 0:
                prev = paths.load(v - 1)
        except (DatasetIncomplete, ManifestCorrupted):
            # A version in the range is gone or torn: reconcile against a listing instead.
            return sorted(live), sorted(set(visible_data_files(paths)) - live)
        files = m.by_key()
        added.update(files[k]["path"] for k in m.operation.get("added", []) if k in files)
        if prev is not None:
            before = prev.by_key()
            removed.update(before[k]["path"] for k in m.operation.get("removed", [])
                           if k in before)
        prev = m
    return sorted(added & live), sorted(removed - live)


def unhide(paths, path):
    """Move the hidden copy of ``path`` to its visible place; False if there is none."""
    return paths.storage.move(paths.shadow(path), paths.visible(path))


def _apply_moves(paths, to_visible, to_shadow):
    for i, path in enumerate(to_visible):
        unhide(paths, path)
        if i == 0:
            crash_point("publish.moved_one")
    for path in to_shadow:
        paths.storage.move(paths.visible(path), paths.shadow(path))
    for d in {os.path.dirname(paths.visible(p)) for p in to_visible + to_shadow}:
        paths.storage.sync_dir(d)


def visible_data_files(paths):
    """Relative paths of pqkit-named data files in the visible tree (a listing)."""
    out = []
    for rel in paths.storage.list_files(paths.root):
        *dirs, name = rel.split("/")
        if DATA_FILE_RE.fullmatch(name) and not any(d.startswith(("_", ".")) for d in dirs):
            out.append(rel)
    return out


def common_metadata_bytes(manifest):
    """A footer-only Parquet file: the data files' schema (no partition columns, columns
    under their physical names when the dataset maps them), field ids, KV."""
    kv = {"pqds.dataset": json.dumps({"dataset_id": manifest.dataset_id,
                                      "version": manifest.version,
                                      "partitioning": manifest.partitioning.to_json()})}
    fields = ColumnMapping.of(manifest.data, manifest.where) \
        .physical_schema(manifest.schema).fields
    buf = io.BytesIO()
    ParquetWriter(buf, fields, key_value_metadata=kv).close()
    return buf.getvalue()


def summary_metadata_bytes(paths, manifest):
    """``_metadata``: every row group of every live file with ``file_path`` set, or None
    when the live files do not share one Parquet schema or one is encrypted (its column
    metadata is bound to its own keys and file AAD, which one summary footer cannot
    carry for several files)."""
    metas, store = [], paths.storage
    for f in manifest.files:
        path = paths.visible(f["path"])
        if not store.exists(path):
            path = paths.find_shadow(f["path"]) or path
        try:
            raw = read_metadata(path, filesystem=store.fs).raw
        except EncryptedFileError:          # an encrypted footer
            return None
        if raw.encryption_algorithm is not None:    # a plaintext footer of encrypted columns
            return None
        metas.append((f["path"], raw))
    if not metas:
        return None
    first = metas[0][1]
    schema_bytes = [fmt.encode(e) for e in first.schema]
    row_groups, rows = [], 0
    for relpath, raw in metas:
        if [fmt.encode(e) for e in raw.schema] != schema_bytes:
            return None
        for rg in raw.row_groups:
            for chunk in rg.columns:
                chunk.file_path = relpath
            row_groups.append(rg)
        rows += raw.num_rows
    meta = fmt.FileMetaData(version=2, schema=first.schema, num_rows=rows,
                            row_groups=row_groups, key_value_metadata=first.key_value_metadata,
                            created_by=created_by(), column_orders=first.column_orders)
    footer = fmt.encode(meta)
    return b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"


def _write_derived(paths, manifest):
    # An imported Kartothek table keeps its own _common_metadata (pqkit never rewrites it).
    store = paths.storage
    if manifest.properties.get("common_metadata") != "foreign":
        store.replace(paths.common_metadata, common_metadata_bytes(manifest))
    crash_point("publish.common_metadata")
    planned = _write_index(paths, manifest)
    # the summary reads every footer (on an object store a ranged GET per file): opt-in
    if manifest.properties.get("summary.metadata", "never") == "always":
        summary = summary_metadata_bytes(paths, manifest)
        if summary is not None:
            store.replace(paths.summary_metadata, summary)
    op = manifest.operation
    marker = {"format": "pqds", "dataset_id": manifest.dataset_id, "version": manifest.version,
              "committed_at_utc": manifest.committed_at_utc, "row_count": manifest.row_count,
              "file_count": manifest.file_count, "run_id": op.get("run_id"),
              "schema_hash": manifest.schema.sha256(),
              "manifest": paths.relpath(paths.version_path(manifest.version))}
    store.replace(paths.success, dump_json(marker))
    crash_point("publish.success_written")
    _write_hint(paths, manifest.version, planned)


def _write_hint(paths, version, planned=False):
    """Raise the ``_latest`` hint to ``version`` (never lower it). ``planned``: a planning
    index of ``version`` exists, which the hint says (``"planning": true``) so that a
    reader on an object store asks for the index only then (no 404 on small datasets)."""
    current = None
    try:
        hint = paths.read_pointer(paths.latest_hint)
        current = (hint["version"], hint.get("planning") is True)
    except (OSError, ManifestCorrupted):
        pass
    if current is None or current < (version, bool(planned)):
        value = {"version": version, "planning": True} if planned else {"version": version}
        paths.storage.replace(paths.latest_hint, dump_json(value))


def _write_index(paths, manifest):
    """Write the planning index of ``manifest`` (file_list.py) when it is large enough;
    whether a current one exists."""
    return file_list.write_index(paths, manifest)


def try_publish(paths):
    """Publish, but never let a publishing problem fail a commit that already succeeded."""
    try:
        return publish(paths)
    except (OSError, DatasetIncomplete, ManifestCorrupted):
        return None


__all__ = ["publish", "try_publish", "published_version", "visible_data_files",
           "common_metadata_bytes"]
