"""Garbage collection (``vacuum``, §3.12) and recovery (``repair``, §3.11).

Retained versions: the latest, every version younger than ``vacuum.retention``,
the last ``vacuum.keep_last`` versions and every tagged version. ``vacuum``

1. publishes (so the ``_latest`` hint is at the latest version before any
   version file goes away),
2. deletes the version files of expired versions (paths.py),
3. deletes every file that no retained version references, found by *listing*
   ``shadow/``, ``tmp/``, ``indices/`` and the visible tree (pqkit-named data
   files only), skipping anything younger than ``vacuum.grace`` so that files a
   writer is staging right now survive,
4. removes empty partition directories.

Because orphans are found by listing rather than by diffing versions, a crash
between steps 2 and 3 leaks nothing: the next vacuum finds the files.

``repair`` never expires versions: it moves a torn newest version file aside
to ``tmp/_torn-<version>-<time>.json`` (possible only where hard links are
unsupported), reconciles the visible tree with the latest version against a
listing, rewrites the derived files, and
removes orphans older than the grace period.

On an object store (a URL root) the same steps run through the storage
interface: listings are prefix listings, modification times the objects'
LastModified, and a data file a killed writer left at its final key is
unreferenced, so repair retires it to ``shadow/`` (grace permitting, deletes it).
There a torn version file cannot occur (a PUT is atomic).
"""
import os
import re
import time
from itertools import chain

from pqkit.dataset.core import crash_point, fsync_dir, makedirs, parse_utc
from pqkit.dataset.pqds import file_list
from pqkit.dataset.pqds.index_segments import manifest_indices
from pqkit.dataset.pqds.paths import DATA_FILE_RE, RootPaths
from pqkit.dataset.pqds.publishing import _write_derived, publish, unhide, visible_data_files
from pqkit.errors import DatasetError, DatasetIncomplete, ManifestCorrupted

_TMP_RE = re.compile(r".*\.[0-9a-f]{32}\.tmp")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(value, what):
    """Seconds of ``"7d"``, ``"12h"``, ``"30m"``, ``"0s"`` or a number of seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", str(value))
    if not m:
        raise DatasetError(f"{what} {value!r}: use a duration like '7d', '12h' or seconds")
    return float(m.group(1)) * _UNITS[m.group(2) or "s"]


def _count(value, what):
    """``value`` (an int, or its decimal text as properties hold it) as an int."""
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise DatasetError(f"{what} {value!r}: use a number of versions")
    return value


def _tagged_versions(paths):
    out = set()
    try:
        names = paths.storage.listdir(paths.tags_dir)
    except FileNotFoundError:
        return out
    for name in names:
        if name.endswith(".json"):
            path = os.path.join(paths.tags_dir, name)
            try:
                out.add(paths.read_pointer(path)["version"])
            except (OSError, ManifestCorrupted):
                continue
    return out


def retained_versions(paths, latest_manifest, now, retention=None, keep_last=None):
    """The sorted versions vacuum keeps."""
    props = latest_manifest.properties
    retention = parse_duration(retention if retention is not None
                               else props.get("vacuum.retention", "7d"), "vacuum.retention")
    keep_last = _count(keep_last if keep_last is not None else props.get("vacuum.keep_last", 10),
                       "vacuum.keep_last")
    versions = paths.versions()
    latest = latest_manifest.version
    keep = {latest} | set(versions[-keep_last:] if keep_last > 0 else []) | \
        (_tagged_versions(paths) & set(versions))
    for v in versions:
        if v in keep:
            continue
        try:
            committed = parse_utc(paths.load(v).committed_at_utc).timestamp()
        except (DatasetIncomplete, ManifestCorrupted, ValueError, TypeError):
            continue                      # unreadable old versions are expired
        if now - committed < retention:
            keep.add(v)
    return sorted(v for v in keep if v <= latest)


def _referenced(paths, versions):
    """Data paths, index segment paths (``_pqkit/indices/…``) and deletion file paths
    (``_pqkit/deletions/…``) the versions use."""
    used = set()
    for v in versions:
        m = paths.load(v)
        used.update(f["path"] for f in m.files)
        used.update(f["deletions"]["path"] for f in m.files if f.get("deletions"))
        used.update(seg["path"] for ix in manifest_indices(m) for seg in ix.get("segments", []))
    return used


def _old_enough(paths, path, cutoff):
    mtime = paths.storage.mtime(path)
    return mtime is not None and mtime < cutoff


def _walk_files(paths, top):
    for rel in paths.storage.list_files(top):
        yield os.path.join(top, *rel.split("/"))


def _orphans(paths, referenced, cutoff):
    """Absolute paths of unreferenced files older than ``cutoff`` (mtime)."""
    out = []
    for path in _walk_files(paths, paths.shadow_dir):
        if paths.shadow_relpath(path) not in referenced and _old_enough(paths, path, cutoff):
            out.append(path)
    out.extend(p for p in _walk_files(paths, paths.tmp_dir)
               if _old_enough(paths, p, cutoff))
    for path in chain(_walk_files(paths, paths.indices_dir),
                      _walk_files(paths, paths.deletions_dir)):
        rel = os.path.relpath(path, paths.root).replace(os.sep, "/")
        if rel not in referenced and _old_enough(paths, path, cutoff):
            out.append(path)
    for rel in visible_data_files(paths):
        path = paths.visible(rel)
        if rel not in referenced and _old_enough(paths, path, cutoff):
            out.append(path)
    for top in (paths.root, paths.meta, paths.planning_dir):
        try:
            names = paths.storage.listdir(top)
        except FileNotFoundError:
            continue
        out.extend(os.path.join(top, n) for n in names
                   if _TMP_RE.fullmatch(n) and
                   _old_enough(paths, os.path.join(top, n), cutoff))
    return out


def _remove_empty_dirs(paths, cutoff):
    if paths.storage.remote:
        return 0                       # a store has keys, not directories
    removed = 0
    for top, skip_hidden in ((paths.shadow_dir, False), (paths.root, True)):
        for dirpath, dirnames, filenames in os.walk(top, topdown=False):
            if dirpath == top:
                continue
            rel = os.path.relpath(dirpath, paths.root)
            if skip_hidden and rel.split(os.sep)[0].startswith(("_", ".")):
                continue
            if "=" not in os.path.basename(dirpath) and top == paths.root:
                continue                   # only partition directories of the visible tree
            try:
                if not os.listdir(dirpath) and _old_enough(paths, dirpath, cutoff):
                    os.rmdir(dirpath)
                    removed += 1
            except OSError:
                continue
    return removed


def _grace(paths, manifest, grace):
    return parse_duration(grace if grace is not None else
                          manifest.properties.get("vacuum.grace", "7d"), "vacuum.grace")


def vacuum(root, *, retention=None, keep_last=None, grace=None, dry_run=False,
           storage_options=None):
    """Delete expired versions and unreferenced files.

    Parameters
    ----------
    root : path or URL
    retention, grace : duration (``"7d"``, ``"12h"``, seconds), optional
        Default: the dataset's ``vacuum.retention`` / ``vacuum.grace`` properties (7 days).
    keep_last : int, optional
        Always keep this many newest versions (default ``vacuum.keep_last``, 10).
    dry_run : bool, default False
        Report what would be deleted without deleting.
    storage_options : dict, optional
        fsspec options of a URL ``root``.

    Returns
    -------
    dict
        ``versions_deleted``, ``files_deleted`` (paths relative to root) and
        ``dirs_removed``.
    """
    paths = RootPaths.at(root, storage_options)
    if not dry_run:
        publish(paths)
    latest = paths.latest()
    manifest = paths.load(latest)
    now = time.time()
    keep = retained_versions(paths, manifest, now, retention, keep_last)
    expired = [v for v in paths.versions() if v not in set(keep) and v < latest]
    referenced = _referenced(paths, keep)
    cutoff = now - _grace(paths, manifest, grace)
    if not dry_run:
        for v in expired:
            paths.storage.remove(paths.version_path(v))
        paths.storage.sync_dir(paths.versions_dir)
        crash_point("vacuum.versions_deleted")
    orphans = _orphans(paths, referenced, cutoff)
    if not dry_run:
        for path in orphans:
            paths.storage.remove(path)
        file_list.remove_stale(paths, set(keep))
    dirs = 0 if dry_run else _remove_empty_dirs(paths, cutoff)
    return {"versions_deleted": expired,
            "files_deleted": sorted(os.path.relpath(p, paths.root).replace(os.sep, "/")
                                    for p in orphans),
            "dirs_removed": dirs}


def repair(root, *, grace=None, storage_options=None):
    """Bring a dataset back to a clean state after crashes; safe to run at any time.

    Moves a torn newest version file aside, reconciles the visible Hive tree and
    the derived files (``_SUCCESS``, ``_common_metadata``, ``_latest``) with the
    latest version, and deletes orphans (staged files of writers that never
    committed, temporary version files) older than ``grace`` (default: the
    dataset's ``vacuum.grace``). No version is expired. A URL ``root`` is repaired
    on its object store (``storage_options``: its fsspec options).

    Returns
    -------
    dict
        ``version``, ``torn_version`` (moved aside, or None), ``made_visible``,
        ``retired``, ``files_deleted``.
    """
    paths = RootPaths.at(root, storage_options)
    store = paths.storage
    with store.lock(paths.publish_lock):
        torn = None if store.remote else _set_aside_torn(paths)
        latest = paths.latest()
        manifest = paths.load(latest)
        live = {f["path"] for f in manifest.files}
        visible = set(visible_data_files(paths))
        made_visible = sorted(p for p in live - visible
                              if unhide(paths, p))
        retired = sorted(p for p in visible - live
                         if store.move(paths.visible(p), paths.shadow(p)))
        store.remove(paths.summary_metadata)
        _write_derived(paths, manifest)
    cutoff = time.time() - _grace(paths, manifest, grace)
    referenced = _referenced(paths, paths.versions())
    orphans = [p for p in _orphans(paths, referenced, cutoff)
               if not DATA_FILE_RE.fullmatch(os.path.basename(p)) or
               p.startswith(paths.meta + os.sep)]
    for path in orphans:
        store.remove(path)
    return {"version": latest, "torn_version": torn, "made_visible": made_visible,
            "retired": retired,
            "files_deleted": sorted(os.path.relpath(p, paths.root).replace(os.sep, "/")
                                    for p in orphans)}


def _set_aside_torn(paths):
    """Move an unparsable newest version file to ``tmp/`` (a commit that never completed)."""
    versions = paths.versions()
    if not versions:
        return None
    newest = versions[-1]
    try:
        paths.load(newest)
        return None
    except ManifestCorrupted:
        pass
    makedirs(paths.tmp_dir)
    os.replace(paths.version_path(newest),
               os.path.join(paths.tmp_dir, f"_torn-{newest:020d}-{int(time.time())}.json"))
    fsync_dir(paths.versions_dir)
    return newest
