"""Writing and repairing RFC-style single-manifest datasets (DATASET.md §3.13).

``pqkit.dataset.write(root, data, layout="manifest")`` writes the layout of
:mod:`pqkit.dataset.rfc0008.manifest` in the RFC's order -- parts, then the manifest, then
``_SUCCESS`` -- so that a reader checking ``_SUCCESS`` never sees a half
write. In detail, holding ``flock(<key>/_manifest.lock)`` for the whole write:

1. write every new part to a hidden temporary ``.<part name>.<txn>.tmp``
   (fsynced), with its size, row count, sha256 and bounds;
2. delete ``_SUCCESS``: from here on readers get ``DatasetIncomplete``;
3. replace the manifest atomically (temporary file + ``os.replace``);
4. rename each temporary part to its name (``data.parquet`` for a single
   part, else ``part-NNNNN.parquet``);
5. delete the parts the new manifest no longer lists (overwrite);
6. create an empty ``_SUCCESS`` (Spark's and Hadoop's marker is empty too).

A crash leaves no ``_SUCCESS``. :func:`repair` then rolls the write forward
when the manifest's parts are all present (renaming temporary parts whose
sha256 matches into place) and rolls it back when only the previous
manifest's parts are (step 2 ran, step 3 did not); otherwise it reports the
parts it cannot find and leaves ``_SUCCESS`` absent.
"""
import hashlib
import io
import json
import os
import re

from pqkit.columnar.table import Table
from pqkit.convert import table_from_data
from pqkit.dataset.core import (
    DEFAULT_PROPERTIES,
    META_DIR,
    FileLock,
    HashingSink,
    as_table,
    cast_to_fields,
    crash_point,
    durable,
    file_statistics,
    fsync_dir,
    makedirs,
    new_txn,
    new_writer,
    plain_table,
    read_facts,
    remove_if_exists,
    utc_now_text,
    write_file,
)
from pqkit.dataset.rfc0008.manifest import (
    MANIFEST_NAMES,
    SUCCESS,
    check_part,
    manifest_path,
    read_manifest,
)
from pqkit.dataset.rfc0008.schema_hash import file_schema_hash, hash_matches
from pqkit.errors import DatasetError, DatasetExists, ManifestCorrupted, SchemaError

MODES = ("create", "overwrite", "append")
LOCK_NAME = "_manifest.lock"
_TMP_RE = re.compile(r"\.(.+)\.([0-9a-f]{32})\.tmp")
_PQDS_ONLY = ("partition_by", "scope", "blind", "evolve_schema", "empty_string_as_null",
              "properties")


def write(root, data, *, mode="create", run_id=None, dataset_key=None, metadata=None,
          schema=None, max_rows_per_file=None, manifest_name="manifest.json",
          stats_columns=32, **options):
    """Write ``data`` as an RFC-style single-manifest dataset at ``root``.

    Called as ``pqkit.dataset.write(root, data, layout="manifest", ...)``.

    Parameters
    ----------
    root : path
        The dataset's directory ``<store>/<dataset key>`` (created if needed).
    data : pqkit.Table, dict of columns or pandas.DataFrame
    mode : {"create", "overwrite", "append"}
        ``create`` refuses an existing dataset (DatasetExists); ``overwrite``
        replaces it; ``append`` adds parts (the schema hash must not change).
    run_id, dataset_key, metadata
        Recorded in the manifest; ``dataset_key`` defaults to the directory name.
    schema : list of pqkit.Field, optional
        Types of ``data``, as for ``pqkit.write_table``.
    max_rows_per_file : int, optional
        Split the rows into parts of at most this many rows.
    manifest_name : {"manifest.json", "_manifest.json"}
        The RFC name, or the hidden one, which keeps the directory readable by
        ``spark.read.parquet`` and ``pyarrow.dataset`` (they try to read every
        visible file as Parquet).
    stats_columns : int, default 32
        Bounds in each part's ``stats`` for the first this-many flat columns.
    **options
        Passed to :class:`pqkit.ParquetWriter` (compression default ``zstd``).

    Returns
    -------
    dict
        The manifest as written.
    """
    check_arguments(mode, manifest_name, options)
    root = os.path.abspath(os.fspath(root))
    _refuse_other_layouts(root)
    makedirs(root)
    with FileLock(os.path.join(root, LOCK_NAME)):
        return _write_locked(root, data, mode, run_id, dataset_key, metadata, schema,
                             max_rows_per_file, manifest_name, stats_columns, options)


def check_arguments(mode, manifest_name, options):
    """SchemaError for a mode, manifest name or PQDS/1-only option the layout has not
    (the PQDS/1 options are taken out of ``options``)."""
    given = [k for k in _PQDS_ONLY if options.pop(k, None) not in (None, False)]
    if given:
        raise SchemaError(f"{given[0]} is not supported by the single-manifest layout (its "
                          "parts are unpartitioned files beside one manifest)")
    if mode not in MODES:
        raise SchemaError(f"mode {mode!r}: the single-manifest layout supports "
                          f"{', '.join(MODES)}")
    if manifest_name not in MANIFEST_NAMES:
        raise SchemaError(f"manifest_name {manifest_name!r}: use one of "
                          f"{', '.join(MANIFEST_NAMES)}")


def _refuse_other_layouts(root):
    if os.path.isdir(os.path.join(root, META_DIR)):
        raise DatasetError(f"{root} is a PQDS/1 dataset; write to it without "
                           "layout='manifest'")
    if os.path.isdir(root) and manifest_path(root) is None:
        visible = [n for n in os.listdir(root) if not n.startswith(("_", "."))]
        if visible:
            raise DatasetError(f"{root} holds {visible[0]!r} but no manifest: it is not a "
                               "single-manifest dataset, and writing one there would mix "
                               "its files with foreign ones")


def _write_locked(root, data, mode, run_id, dataset_key, metadata, schema, max_rows,
                  manifest_name, stats_columns, options):
    current_path = manifest_path(root)
    current = None
    if current_path is not None:
        if mode == "create":
            raise DatasetExists(f"{root} already holds a single-manifest dataset "
                                f"({os.path.basename(current_path)})")
        if mode == "append":
            current = read_manifest(current_path)
    table, fields = prepare(data, schema, current,
                            lambda rel: read_facts(os.path.join(root, *rel.split("/"))))
    keep = [dict(p) for p in current["parts"]] if current is not None else []
    names = part_names(len(pieces(table, max_rows)), keep)
    txn = new_txn()
    compression = options.setdefault("compression", DEFAULT_PROPERTIES["compression"])
    written = []
    try:
        for name, piece in zip(names, pieces(table, max_rows)):
            written.append(_write_part(root, name, txn, piece, fields, stats_columns, options))
        schema_hash = one_hash(written, current)
        parts = keep + [w["part"] for w in written]
        doc = rfc_document(
            dataset_key if dataset_key is not None else
            (current.get("dataset_key") if current else os.path.basename(root)),
            parts, schema_hash, str(compression).lower(),
            current.get("created_at_utc") if current else utc_now_text(), run_id,
            metadata if metadata is not None else (current or {}).get("metadata"))
        crash_point("rfc.parts_written")
        _replace(root, doc, manifest_name, current_path,
                 [(w["part"]["path"], w["tmp"]) for w in written])
    except BaseException:
        for w in written:
            remove_if_exists(w["tmp"])
        raise
    return doc


def _typed(data, schema):
    return table_from_data(data, schema)


def prepare(data, schema, current, part_facts):
    """(table, the parts' fields) of the data to write; ``part_facts(name)`` gives the
    FileFacts of a current part (an append takes the fields of the first)."""
    table = plain_table(as_table(data) if schema is None else _typed(data, schema))
    fields = _fields(table, current, part_facts)
    return cast_to_fields(table, fields), fields


def _fields(table, current, part_facts):
    """The parts' fields: the table's with field ids, or the current parts' for an append."""
    if not table.num_columns:
        raise SchemaError("the data has no columns")
    if current is None or not current["parts"]:
        # No field ids: the parts' Arrow schema is the caller's, which schema_hash names.
        return list(table.schema)
    facts = part_facts(current["parts"][0]["path"])
    by_name = {f.name: f for f in facts.fields}
    if sorted(by_name) != sorted(table.column_names):
        raise SchemaError(f"append: the data's columns {table.column_names} differ from the "
                          f"dataset's {list(by_name)}")
    return [by_name[name] for name in [f.name for f in facts.fields]]


def pieces(table, max_rows):
    if not max_rows or table.num_rows <= max_rows:
        return [table]
    return [table.slice(i, i + int(max_rows)) for i in range(0, table.num_rows, int(max_rows))]


def part_names(count, keep, avoid=()):
    """``data.parquet`` for a lone part of a new dataset, else ``part-NNNNN`` names that
    neither the kept parts nor ``avoid`` use."""
    taken = {p["path"] for p in keep} | set(avoid)
    if not keep and count == 1 and "data.parquet" not in taken:
        return ["data.parquet"]
    names, seq = [], len(keep)
    while len(names) < count:
        name = f"part-{seq:05d}.parquet"
        if name not in taken:
            names.append(name)
        seq += 1
        if seq > 99_999:
            raise DatasetError("a single-manifest dataset holds at most 100000 parts")
    return names


def _write_part(root, name, txn, table, fields, stats_columns, options):
    """Write one part to its hidden temporary name; returns its manifest entry and paths."""
    tmp = os.path.join(root, f".{name}.{txn}.tmp")
    with open(tmp, "xb") as f:
        sink = HashingSink(f)
        writer = _write_rows(sink, table, fields, options)
        f.flush()
        if durable():
            os.fsync(f.fileno())
    part = _part_entry(name, read_facts(tmp, stats_columns), sink, writer, fields,
                       stats_columns)
    return {"part": part, "tmp": tmp, "hash": file_schema_hash(tmp)}


def encode_part(name, table, fields, stats_columns, options):
    """One part in memory (for an object store): its bytes, manifest entry and schema
    hash, as :func:`_write_part` gives them."""
    buffer = io.BytesIO()
    sink = HashingSink(buffer)
    writer = _write_rows(sink, table, fields, options)
    data = buffer.getvalue()
    facts = read_facts(io.BytesIO(data), stats_columns, size=len(data))
    part = _part_entry(name, facts, sink, writer, fields, stats_columns)
    return {"part": part, "data": data, "hash": file_schema_hash(io.BytesIO(data))}


def _write_rows(sink, table, fields, options):
    writer = new_writer(sink, fields, options)
    writer.write(Table(table.columns, fields))
    writer.close()
    return writer


def _part_entry(name, facts, sink, writer, fields, stats_columns):
    return {"path": name, "size": facts.size, "row_count": facts.row_count,
            "sha256": sink.hash.hexdigest(),
            "stats": file_statistics(fields, writer.schema, writer.row_groups, stats_columns)}


def one_hash(written, current):
    hashes = {w["hash"] for w in written}
    if len(hashes) != 1:
        raise SchemaError("the parts of one write came out with different schemas")
    schema_hash = hashes.pop()
    if current is not None and current["parts"]:
        if not hash_matches(current["schema_hash"], schema_hash):
            raise SchemaError(f"append: the new parts' schema hash {schema_hash} differs from "
                              f"the dataset's {current['schema_hash']}")
        return current["schema_hash"]          # the form the manifest already states
    return schema_hash


def _replace(root, doc, manifest_name, current_path, moves):
    """Steps 2-6: drop _SUCCESS, switch the manifest, move parts in, clean up, _SUCCESS."""
    old_parts = set()
    if current_path is not None:
        try:
            old_parts = {p["path"] for p in read_manifest(current_path)["parts"]}
        except (ManifestCorrupted, DatasetError):
            old_parts = set()             # an unreadable manifest being overwritten
    remove_if_exists(os.path.join(root, SUCCESS))
    fsync_dir(root)
    crash_point("rfc.success_removed")
    _write_manifest(root, doc, manifest_name)
    if current_path is not None and os.path.basename(current_path) != manifest_name:
        remove_if_exists(current_path)
    crash_point("rfc.manifest_written")
    for name, tmp in moves:
        os.replace(tmp, os.path.join(root, name))
        crash_point("rfc.part_renamed")
    fsync_dir(root)
    live = set(doc["parts"])
    for rel in sorted(old_parts - live):
        remove_if_exists(os.path.join(root, *rel.split("/")))
    write_file(os.path.join(root, SUCCESS), b"")
    fsync_dir(root)


def rfc_document(dataset_key, parts, schema_hash, compression, created_at_utc, run_id,
                 metadata):
    """The manifest object: RFC-0008's fields (``parts`` = file names; ``run_id`` and
    ``metadata`` left out when absent, as the RFC's writer does), plus ``part_facts``."""
    doc = {"dataset_key": dataset_key, "parts": [p["path"] for p in parts],
           "row_count": sum(p["row_count"] for p in parts), "schema_hash": schema_hash,
           "compression": compression, "created_at_utc": created_at_utc,
           "part_facts": {p["path"]: {k: v for k, v in p.items() if k != "path"}
                          for p in parts}}
    if run_id is not None:
        doc["run_id"] = run_id
    if metadata:
        doc["metadata"] = dict(metadata)
    return doc


def manifest_bytes(doc):
    """The RFC's serialisation of a manifest: sorted keys, two-space indent."""
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True,
                      allow_nan=False).encode("utf-8")


def _write_manifest(root, doc, manifest_name):
    data = manifest_bytes(doc)
    tmp = os.path.join(root, f".{manifest_name}.{new_txn()}.tmp")
    write_file(tmp, data)
    os.replace(tmp, os.path.join(root, manifest_name))
    fsync_dir(root)


# --- repair ------------------------------------------------------------------------------------
def repair(root):
    """Finish or roll back a crashed single-manifest write; safe to run at any time.

    Holding the dataset's lock (so no pqkit writer is running):

    * every manifest part that is missing or differs (size, sha256 when recorded)
      is replaced by a temporary part ``.<name>.<txn>.tmp`` that matches it;
    * when every part then checks out (existence, size, row count, schema hash,
      row total), leftover temporary files are deleted and ``_SUCCESS`` is written;
    * otherwise nothing is deleted and the problems are reported.

    Returns
    -------
    dict
        ``layout`` ("manifest"), ``complete`` (``_SUCCESS`` now present),
        ``success_written``, ``parts_restored``, ``temporaries_deleted`` and
        ``problems`` (what still prevents completion).
    """
    root = os.path.abspath(os.fspath(root))
    with FileLock(os.path.join(root, LOCK_NAME)):
        path = manifest_path(root)
        if path is None:
            raise DatasetError(f"{root} has no manifest.json: nothing to repair")
        doc = read_manifest(path)
        temporaries = _temporaries(root)
        restored = _restore_parts(root, doc, temporaries)
        problems = _part_problems(root, doc)
        deleted, written = [], False
        if not problems:
            for tmp in temporaries:
                if os.path.exists(tmp) and remove_if_exists(tmp):
                    deleted.append(os.path.basename(tmp))
            success = os.path.join(root, SUCCESS)
            if not os.path.exists(success):
                write_file(success, b"")
                fsync_dir(root)
                written = True
        return {"layout": "manifest", "complete": not problems, "success_written": written,
                "parts_restored": restored, "temporaries_deleted": sorted(deleted),
                "problems": problems}


def _part_problems(root, doc):
    """What keeps the manifest's parts from checking out (empty: all good)."""
    problems, total = [], 0
    for part in doc["parts"]:
        check = check_part(root, part, doc["schema_hash"])
        if check.problem:
            problems.append(check.problem)
            continue
        total += check.facts.row_count
        if "sha256" in part and part["sha256"] != _sha256(
                os.path.join(root, *part["path"].split("/"))):
            problems.append(f"part {part['path']}: sha256 differs from the manifest's")
    if not problems and total != doc["row_count"]:
        problems.append(f"manifest row_count is {doc['row_count']} but the parts hold "
                        f"{total} rows")
    return problems


def _temporaries(root):
    return sorted(os.path.join(root, n) for n in os.listdir(root) if _TMP_RE.fullmatch(n))


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _restore_parts(root, doc, temporaries):
    """Move temporary parts into place where the manifest's part is missing or differs."""
    by_name = {}
    for tmp in temporaries:
        m = _TMP_RE.fullmatch(os.path.basename(tmp))
        by_name.setdefault(m.group(1), []).append(tmp)
    restored = []
    for part in doc["parts"]:
        final = os.path.join(root, *part["path"].split("/"))
        if _matches(final, part):
            continue
        for tmp in by_name.get(part["path"], []):
            if _matches(tmp, part):
                os.replace(tmp, final)
                restored.append(part["path"])
                break
    if restored:
        fsync_dir(root)
    return restored


def _matches(path, part):
    """The file at ``path`` is the part the manifest describes (size, then sha256)."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        return False
    if "size" in part and size != part["size"]:
        return False
    if "sha256" in part:
        return _sha256(path) == part["sha256"]
    return "size" in part
