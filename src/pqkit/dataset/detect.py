"""One entry point for every layout: which one a root holds, and what each allows.

========================  ======================================  ===============================
layout                    recognised by                           pqkit may
========================  ======================================  ===============================
``pqds`` (PQDS/1)         ``_pqkit/`` with a committed version    read, write, repair, vacuum
``manifest`` (RFC-style)  ``manifest.json`` / ``_manifest.json``  read, write (layout="manifest"),
                                                                  repair a crashed write
``kartothek`` (v4)        ``<uuid>.by-dataset-metadata.*`` in     read only (import_kartothek
                          the root, its parent or grandparent     registers it as PQDS/1)
``hive`` (plain)          visible files or a ``_SUCCESS``         read only
========================  ======================================  ===============================

:func:`pqkit.dataset.open` calls :func:`open_source` and so reads all three.
Writing PQDS/1 into a root that holds a plain Hive directory or an RFC
dataset (files but no committed version) is refused with a DatasetError:
plain readers would see the old files and the new ones together while pqkit
saw only the new. The explicit way over is :func:`convert`, which copies
the files one at a time into a new PQDS/1 dataset (memory: one file).
"""
import functools
import os

from pqkit.dataset.hive import HiveSource, hidden
from pqkit.dataset.kartothek import KartothekSource, locate as locate_kartothek
from pqkit.dataset.pqds import ManifestSource, RootPaths
from pqkit.dataset.rfc0008 import SUCCESS, RfcManifestSource, manifest_path
from pqkit.errors import DatasetError, DatasetIncomplete
from pqkit.filesystems import is_url

LAYOUTS = ("auto", "pqds", "hive", "manifest", "kartothek")


def detect_layout(root):
    """``"pqds"``, ``"manifest"``, ``"kartothek"`` or ``"hive"``: the layout at ``root``;
    None when empty/absent.

    A ``_pqkit/`` directory means PQDS/1 once a version is committed; before that
    (only staged files) the visible content decides. Costs a few stats and, for
    legacy layouts, one listing of ``root`` itself (not of its tree).
    """
    root = os.path.abspath(os.fspath(root))
    paths = RootPaths(root)
    pqds = os.path.isdir(paths.meta)
    if pqds and _has_versions(paths):
        return "pqds"
    if manifest_path(root) is not None:
        return "manifest"
    if locate_kartothek(root) is not None:
        return "kartothek"
    try:
        names = os.listdir(root)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if SUCCESS in names or any(not hidden(n) for n in names):
        return "hive"
    return "pqds" if pqds else None


def _has_versions(paths):
    if os.path.exists(paths.latest_hint) or os.path.exists(paths.version_path(0)):
        return True
    return bool(paths.versions())


def open_source(root, layout="auto", require_success=None, *, strict=True, file_keys=None):
    """The :class:`~pqkit.dataset.core.scan.FileSource` for ``root`` in the given (or
    detected) layout.

    Parameters
    ----------
    root : path
    layout : {"auto", "pqds", "hive", "manifest", "kartothek"}
    require_success : bool or None
        A missing ``_SUCCESS`` raises DatasetIncomplete. None: only for the
        ``manifest`` layout, whose contract demands it.
    strict : bool, default True
        False: legacy sources leave bad files out and list them in ``problems``.
    file_keys : dict, optional
        Key keywords of :class:`pqkit.ParquetFile` for encrypted data files.
    """
    if layout not in LAYOUTS:
        raise DatasetError(f"layout {layout!r}: use one of {', '.join(LAYOUTS)}")
    kind = detect_layout(root) if layout == "auto" else layout
    if kind == "kartothek":
        store, uuid, table = locate_kartothek(root) or (root, None, None)
        return KartothekSource(store, uuid, table)
    if kind == "manifest":
        return RfcManifestSource(root, strict=strict,
                                 require_success=True if require_success is None
                                 else bool(require_success))
    if kind == "hive":
        return HiveSource(root, require_success=bool(require_success), strict=strict,
                          file_keys=file_keys)
    source = ManifestSource(root)
    if require_success and not os.path.exists(source.paths.success):
        source.latest()                   # DatasetNotFound first, when there is nothing
        raise DatasetIncomplete(f"{source.root} has no _SUCCESS: the latest version is not "
                                "published yet (run 'pqinspect dataset repair')")
    return source


def layout_of(dataset):
    """The layout name of an opened Dataset: "pqds", "hive", "manifest" or "kartothek"."""
    return getattr(dataset.source, "layout_name", "pqds")


def refuse_foreign_root(root):
    """DatasetError when ``root`` holds data but no PQDS/1 version (a Hive or RFC directory).
    A URL root is only ever written as PQDS/1, so it is not inspected (no listing)."""
    if is_url(root):
        return
    root = os.path.abspath(os.fspath(root))
    kind = detect_layout(root)
    if kind not in ("hive", "manifest", "kartothek"):
        return
    if kind == "kartothek":
        raise DatasetError(f"{root} is (in) a Kartothek dataset, not a PQDS/1 dataset; pqkit "
                           "reads it but does not write into it. Register one of its tables "
                           "with pqkit.dataset.import_kartothek(store, uuid, table=...) first")
    what = "an RFC-style single-manifest dataset" if kind == "manifest" else \
        "a plain Hive-partitioned directory"
    raise DatasetError(f"{root} holds {what}, not a PQDS/1 dataset; pqkit reads it but does "
                       "not write into it (plain readers would mix its files with the new "
                       "ones). Copy it into a new dataset with pqkit.dataset.convert(source, "
                       "target) and write there"
                       + (", or write with layout='manifest'" if kind == "manifest" else ""))


def pqds_only(function):
    """``function(root, ...)`` of the PQDS/1 layer, refusing Hive and RFC roots first.

    Without the check, an operation that opens the dataset (delete, compact, tag,
    staging, publish, vacuum) would read a legacy root through :func:`open_source`
    and then write PQDS/1 state into it.
    """
    @functools.wraps(function)
    def guarded(root, *args, **kwargs):
        refuse_foreign_root(root)
        return function(root, *args, **kwargs)
    return guarded
