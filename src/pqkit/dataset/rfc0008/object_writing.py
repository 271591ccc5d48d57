"""Writing and deleting RFC-style single-manifest datasets on an object store.

The RFC's order, one object at a time (an object store has no rename and no
directory to lock):

1. delete ``_SUCCESS``: from here on readers get ``DatasetIncomplete``;
2. PUT every new part, under a name neither the current manifest nor this write
   uses already, so an existing part is never overwritten;
3. PUT the manifest (one atomic PUT; the other manifest name is deleted);
4. delete the parts the new manifest no longer lists (overwrite);
5. PUT an empty ``_SUCCESS``.

A crash leaves no ``_SUCCESS``, and the manifest present names either the old
parts (all still there: steps 2-3 add, they never replace) or the new ones (all
written before it), so the dataset is never read half-written. Deleting a
dataset deletes ``_SUCCESS`` first, then everything else.

Concurrent writers of one key are not serialised (a store offers no lock, and
the RFC asks for none): the last manifest PUT wins, and the loser's parts are
left unlisted. Run one writer per dataset key.
"""
from pqkit.dataset.core import DEFAULT_PROPERTIES, read_facts, utc_now_text
from pqkit.dataset.rfc0008.manifest import SUCCESS, parse_manifest
from pqkit.dataset.rfc0008.writing import (
    check_arguments,
    encode_part,
    manifest_bytes,
    one_hash,
    part_names,
    pieces,
    prepare,
    rfc_document,
)
from pqkit.errors import DatasetExists, DatasetNotFound
from pqkit.read.fetch.remote import RangeSource


def write_to_store(where, data, *, mode="create", run_id=None, dataset_key=None,
                   metadata=None, schema=None, max_rows_per_file=None,
                   manifest_name="manifest.json", stats_columns=32, **options):
    """Write ``data`` as the single-manifest dataset at ``where`` (a
    :class:`~pqkit.dataset.rfc0008.object_source.StoreDataset`); parameters and result
    as for :func:`pqkit.dataset.rfc0008.writing.write`."""
    check_arguments(mode, manifest_name, options)
    found = where.manifest()
    current = None
    if found is not None:
        if mode == "create":
            raise DatasetExists(f"{where.url} already holds a single-manifest dataset "
                                f"({found[0]})")
        current = parse_manifest(found[1], where.url_of(found[0]))
    base = current if mode == "append" else None          # what the write builds on
    keep = [dict(p) for p in base["parts"]] if base else []
    table, fields = prepare(data, schema, base, lambda rel: _facts(where, rel))
    chunks = pieces(table, max_rows_per_file)
    old = [p["path"] for p in current["parts"]] if current else []
    names = part_names(len(chunks), keep, avoid=old)
    compression = options.setdefault("compression", DEFAULT_PROPERTIES["compression"])
    written = [encode_part(name, chunk, fields, stats_columns, options)
               for name, chunk in zip(names, chunks)]
    doc = rfc_document(
        dataset_key if dataset_key is not None else
        (base.get("dataset_key") if base else where.key.rsplit("/", 1)[-1]),
        keep + [w["part"] for w in written], one_hash(written, base),
        str(compression).lower(), base.get("created_at_utc") if base else utc_now_text(),
        run_id, metadata if metadata is not None else (base or {}).get("metadata"))
    storage = where.storage
    storage.remove(where.path(SUCCESS))
    for w in written:
        storage.put_new(where.path(w["part"]["path"]), w["data"])
    storage.replace(where.path(manifest_name), manifest_bytes(doc))
    if found is not None and found[0] != manifest_name:
        storage.remove(where.path(found[0]))
    for rel in sorted(set(old) - set(doc["parts"])):
        storage.remove(where.path(rel))
    storage.put_new(where.path(SUCCESS), b"")
    return doc


def _facts(where, rel):
    size = where.size(rel)
    return read_facts(RangeSource(where.fs, where.path(rel), size=size,
                                  name=where.url_of(rel)), size=size)


def delete_from_store(where):
    """Delete every object of the dataset at ``where``, ``_SUCCESS`` first (DatasetNotFound
    when there is none)."""
    names = where.files()
    if not names:
        raise DatasetNotFound(f"no dataset at {where.url}")
    if SUCCESS in names:
        where.storage.remove(where.path(SUCCESS))
    for name in names:
        if name != SUCCESS:
            where.storage.remove(where.path(name))


__all__ = ["delete_from_store", "write_to_store"]
