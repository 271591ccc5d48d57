"""The public operations of every layout: open, write, commit, repair, convert, verify.

Which layout a root holds, and what each allows, is decided in
:mod:`pqkit.dataset.detect`; this module dispatches each operation to the
PQDS/1 layer or to the RFC-manifest writer accordingly.

``open(root)`` (:func:`open_dataset`) of a PQDS/1 root costs one hint read, about two
stats and one JSON read; no directory is listed. The returned
:class:`~pqkit.dataset.pqds.reader.Dataset` is pinned to its version: later commits do
not change what it reads, and files retired by later versions are still found in
``_pqkit/shadow`` (§3.8).
"""
import os

from pqkit.dataset.core import new_txn, with_field_ids
from pqkit.dataset.detect import (
    detect_layout,
    layout_of,
    open_source,
    pqds_only,
    refuse_foreign_root,
)
from pqkit.dataset.pqds import (
    ObjectManifestSource,
    RootPaths,
    VerifyReport,
    discard_staged,
    open_snapshot,
    published_version,
    repair as repair_pqds,
    stage_file,
    write as pqds_write,
)
from pqkit.dataset.rfc0008 import SUCCESS, repair as repair_rfc, write as write_rfc
from pqkit.errors import DatasetError, SchemaError
from pqkit.filesystems import is_url

__all__ = ["open_dataset", "write", "commit", "repair", "convert", "verify", "publish_state",
           "detect_layout", "layout_of", "open_source", "pqds_only", "refuse_foreign_root"]


def open_dataset(root, version=None, as_of=None, tag=None, *, publish=False, source=None,
                 layout="auto", require_success=None, storage_options=None, footer_key=None,
                 column_keys=None, key_retriever=None, aad_prefix=None, kms_client=None):
    """Open a dataset at its latest version, or at ``version``, ``as_of`` or ``tag``.

    Besides PQDS/1, this reads (read-only) plain Hive-partitioned directories and
    RFC-style single-manifest datasets as one version, 0 (see :mod:`pqkit.dataset.detect`).

    Parameters
    ----------
    root : path or URL
        A URL (``s3://bucket/table``) opens a published PQDS/1 dataset on an object
        store for reading, with no listing (:mod:`pqkit.dataset.pqds.sources`).
    version : int, optional
        Open exactly this version.
    as_of : datetime.datetime or ISO-8601 str, optional
        The newest retained version committed at or before this instant (naive
        datetimes are taken as UTC).
    tag : str, optional
        A version named by :func:`pqkit.dataset.tag`.
    publish : bool, default False
        Finish a crashed publish first (read-only readers never publish).
    source : FileSource, optional
        Where versions and files come from; default chosen by ``layout``.
    layout : {"auto", "pqds", "hive", "manifest"}, default "auto"
        ``auto``: PQDS/1 when ``root/_pqkit`` holds a version, else the RFC layout when a
        ``manifest.json`` (or ``_manifest.json``) exists, else a plain Hive directory
        when ``root`` holds visible files (listed once, every footer read once).
    require_success : bool, optional
        Raise DatasetIncomplete when ``root/_SUCCESS`` is missing. Default: only for
        the RFC layout, whose contract requires it (and which also checks every part's
        existence, size, row count and schema hash on open).
    storage_options : dict, optional
        fsspec options of a URL ``root``.
    footer_key, column_keys, key_retriever, aad_prefix, kms_client : optional
        The keys of encrypted data files, as :class:`pqkit.ParquetFile` takes them;
        every data file is read with them (a plain Hive directory's footers already
        when it is opened).

    Raises
    ------
    DatasetNotFound
        No version exists under ``root``.
    DatasetIncomplete
        The requested version was never committed or has been vacuumed; or
        ``_SUCCESS`` is required and missing; or a file of a legacy layout is missing.
    ManifestCorrupted, UnsupportedFeature
        The version file is unreadable or needs features this pqkit lacks.
    """
    if source is None and is_url(root):
        source = ObjectManifestSource(root, storage_options)
    keys = {name: value for name, value in (
        ("footer_key", footer_key), ("column_keys", column_keys),
        ("key_retriever", key_retriever), ("aad_prefix", aad_prefix),
        ("kms_client", kms_client)) if value is not None}
    if source is None:
        source = open_source(root, layout, require_success, file_keys=keys)
    if keys:
        source.file_keys = keys
    return open_snapshot(source, version, as_of, tag, publish=publish)



def write(root, data, *, layout="pqds", **options):
    """Write ``data`` to the dataset at ``root``: PQDS/1, or an RFC-style single manifest.

    Parameters
    ----------
    root : path
    data : pqkit.Table, dict of columns or pandas.DataFrame
    layout : {"pqds", "manifest"}, default "pqds"
        ``"pqds"``: a new version of a PQDS/1 dataset (see ``pqkit/dataset/pqds/write.py``:
        ``partition_by``, ``mode`` = create/append/overwrite/replace_partitions,
        ``run_id``, ``scope``, ``schema``, ``evolve_schema``, ...). A root holding a
        plain Hive directory or an RFC dataset is refused (DatasetError; see
        :func:`convert`).
        ``"manifest"``: ``<root>/data.parquet`` or ``part-NNNNN.parquet`` plus
        ``manifest.json`` and ``_SUCCESS`` (see :func:`pqkit.dataset.rfc0008.writing.write`:
        ``mode`` = create/overwrite/append, ``run_id``, ``dataset_key``,
        ``metadata``, ``max_rows_per_file``, ``manifest_name``).
    **options
        The options of the chosen layout, then :class:`pqkit.ParquetWriter` options.

    Returns
    -------
    int or dict
        PQDS/1: the committed version. Manifest layout: the manifest as written.
    """
    if layout == "manifest":
        return write_rfc(root, data, **options)
    if layout != "pqds":
        raise SchemaError(f"layout {layout!r}: write supports 'pqds' (PQDS/1) and 'manifest' "
                          "(RFC-style single manifest)")
    refuse_foreign_root(root)
    return pqds_write.write(root, data, **options)


def commit(root, file_entries, **options):
    """:func:`pqkit.dataset.pqds.write.commit` (staged files -> one version), refusing
    foreign roots.

    See ``pqkit/dataset/pqds/write.py`` for the parameters (``mode``, ``partition_by``,
    ``run_id``, ``schema``, ``scope``, ``blind``, ``evolve_schema``, ``read_version``).
    """
    refuse_foreign_root(root)
    return pqds_write.commit(root, file_entries, **options)


def repair(root, *, grace=None, storage_options=None):
    """Bring a dataset back to a clean state after crashes, in its layout's way.

    PQDS/1: :func:`pqkit.dataset.pqds.vacuuming.repair` (torn version set aside, visible tree
    and derived files reconciled, old orphans deleted). RFC single manifest:
    :func:`pqkit.dataset.rfc0008.writing.repair` (a crashed write rolled forward or back,
    ``_SUCCESS`` restored). A plain Hive directory has no pqkit state: DatasetError.
    A URL root is a PQDS/1 dataset on an object store (``storage_options``: fsspec's).

    Returns
    -------
    dict
        What was done (the keys depend on the layout; see the functions above).
    """
    if is_url(root):
        return repair_pqds(root, grace=grace, storage_options=storage_options)
    kind = detect_layout(root)
    if kind == "manifest":
        return repair_rfc(root)
    if kind in ("hive", "kartothek"):
        what = "a plain Hive directory" if kind == "hive" else "(in) a Kartothek dataset"
        raise DatasetError(f"{os.path.abspath(root)} is {what}: pqkit keeps no state there, "
                           "so there is nothing to repair")
    return repair_pqds(root, grace=grace)


def convert(source, target, *, layout="auto", require_success=None, run_id=None,
            empty_string_as_null=False, **writer_options):
    """Copy a dataset of any layout into a new PQDS/1 dataset at ``target`` (version 0).

    Files are read and written one at a time, so memory stays at one file; every
    file becomes one data file of the same partition. Partition columns keep the
    types the source has (inferred for plain Hive directories).

    Parameters
    ----------
    source, target : path
        ``target`` must not exist as a dataset and must lie outside ``source``.
    layout, require_success
        How to open ``source`` (see :func:`pqkit.dataset.open`).
    run_id : str, optional
        Idempotency key of the commit.
    empty_string_as_null : bool, default False
        Store ``""`` partition values (pyarrow's ``k=``) as null instead of refusing them.
    **writer_options
        Passed to :class:`pqkit.ParquetWriter` (compression, row_group_size, ...).

    Returns
    -------
    int
        The committed version (0).
    """
    src = open_dataset(source, layout=layout, require_success=require_success)
    target_root = os.path.abspath(os.fspath(target))
    if os.path.commonpath([target_root, src.root]) == src.root:
        raise DatasetError(f"convert target {target_root} lies inside the source {src.root}; "
                           "pick a directory outside it")
    if detect_layout(target_root) is not None:
        raise DatasetError(f"convert target {target_root} already holds data")
    fields = with_field_ids(src.table_schema.fields, 1)[0]
    types = {c.name: c.type for c in src.partitioning.columns}
    names = src.table_schema.names
    entries, txn = [], new_txn()
    try:
        for data_file in src.files():
            if len(entries) and len(entries) % 100_000 == 0:
                txn = new_txn()           # file sequence numbers stop at 99999 per txn
            table = src.read_entry(data_file.entry, names)
            entries.append(stage_file(target_root, table, data_file.partition_values, txn=txn,
                                      seq=len(entries) % 100_000, schema=fields,
                                      partition_types=types,
                                      empty_string_as_null=empty_string_as_null,
                                      **writer_options))
        return pqds_write.commit(target_root, entries, mode="create",
                           partition_by=src.partition_by, run_id=run_id, schema=fields)
    except BaseException:
        discard_staged(RootPaths(target_root), entries)
        raise


def verify(root, level="size", *, layout="auto", require_success=None, storage_options=None):
    """Check a dataset of any layout; the problems of the layout itself come first.

    Parameters
    ----------
    root : path or URL
        A URL is a published PQDS/1 dataset on an object store; each file is looked up
        (its visible key, else its retired copy), and read at the deeper levels.
    level : {"exists", "size", "footer", "sha256"}
        As :meth:`Dataset.verify`; RFC parts are always checked for size, row count
        and schema hash, and plain Hive files always have their footer read.
    layout : {"auto", "pqds", "hive", "manifest"}
    require_success : bool or None
        Report a missing ``_SUCCESS`` as a problem (None: only for the manifest layout).

    Returns
    -------
    VerifyReport
        With ``problems`` from the layout (missing ``_SUCCESS``, unreadable or
        inconsistent files, manifest totals) followed by those of every file.
    storage_options : dict, optional
        For a URL: its fsspec file system's options.
    """
    if is_url(root):
        source = ObjectManifestSource(root, storage_options)
        problems = [] if not require_success or source.paths.storage.exists(
            source.paths.success) else [dict(_NO_SUCCESS)]
        report = open_dataset(root, source=source).verify(level)
        return VerifyReport(report.version, report.level, report.files_checked,
                            problems + report.problems)
    kind = detect_layout(root) if layout == "auto" else layout
    source = open_source(root, kind or "pqds", require_success=False, strict=False)
    problems = list(getattr(source, "problems", []))
    wants_success = require_success if require_success is not None else kind == "manifest"
    if wants_success and not any(p["path"] == SUCCESS for p in problems):
        success = os.path.join(os.path.abspath(os.fspath(root)), SUCCESS)
        if not os.path.exists(success):
            problems.insert(0, dict(_NO_SUCCESS))
    report = open_dataset(root, source=source).verify(level)
    bad_files = sum(1 for p in problems if p["key"] is not None)
    return VerifyReport(report.version, report.level, report.files_checked + bad_files,
                        problems + report.problems)


_NO_SUCCESS = {"key": None, "path": SUCCESS,
               "problem": "_SUCCESS is missing: the write did not finish"}


def publish_state(root, storage_options=None):
    """How the plain-reader view of ``root`` (a path, or the URL of a PQDS/1 dataset on an
    object store) stands.

    Returns
    -------
    dict
        ``layout``; ``success`` (``_SUCCESS`` exists); for PQDS/1 also
        ``latest_version`` and ``published_version``; ``state``: ``"published"``
        (plain readers see the latest version), ``"pending"`` (a publish is due:
        ``repair`` or the next writer finishes it), ``"complete"`` /
        ``"incomplete"`` (legacy layouts with / without ``_SUCCESS``; a Kartothek
        table is always ``"complete"``: its metadata file is the commit) or
        ``"no marker"`` (a Hive directory without ``_SUCCESS``, which is allowed).
    """
    if is_url(root):
        source = ObjectManifestSource(root, storage_options)
        paths = source.paths
        return _pqds_state(paths, paths.storage.exists(paths.success), source.latest())
    root = os.path.abspath(os.fspath(root))
    kind = detect_layout(root)
    success = os.path.exists(os.path.join(root, SUCCESS))
    if kind == "manifest":
        return {"layout": kind, "success": success,
                "state": "complete" if success else "incomplete"}
    if kind == "hive":
        return {"layout": kind, "success": success,
                "state": "complete" if success else "no marker"}
    if kind == "kartothek":                # its metadata file is its commit
        return {"layout": kind, "success": success, "state": "complete"}
    paths = RootPaths(root)
    return _pqds_state(paths, success, paths.latest())


def _pqds_state(paths, success, latest):
    done = published_version(paths) if success else None
    return {"layout": "pqds", "success": success, "latest_version": latest,
            "published_version": done,
            "state": "published" if success and done == latest else "pending"}
