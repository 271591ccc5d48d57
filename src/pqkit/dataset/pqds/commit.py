"""Finding the latest version and committing the next one (§3.6, §3.8).

**Latest version.** Read the ``_pqkit/_latest`` hint ``h``, check that version
``h`` exists, then check versions ``h+1, h+2, …`` until one is missing (through
``paths.storage``: stats locally, HEADs on an object store): one small read and
typically two checks, never a listing. Only when the hint
is missing (a crash before the first publish) or stale beyond repair is
``_pqkit/versions/`` listed.

**Commit** (any operation)::

    base <- latest()
    loop (10 attempts, and more while less than 30 s have passed; jittered
          exponential backoff up to 1 s):
        cur <- latest(), probing from base
        validate the operation against every version read_version+1 .. cur
        (conflict table, operations.py); run id already applied -> no-op
        M <- the next snapshot: cur's files + the operation
        check the staged files still exist (vacuum-grace guard)
        create versions/_<cur+1>.json if absent -> committed
          (paths.storage: tmp file + link on a file system, a conditional PUT
          on an object store; see storage.py)
        else base <- cur
    publish()   (best effort)
"""
import os
import random
import time
from collections import OrderedDict

from pqkit.dataset.core import crash_point, dump_json, new_txn
from pqkit.dataset.pqds.index_segments import check_segments_present
from pqkit.dataset.pqds.paths import parse_version_file_name
from pqkit.dataset.pqds.version_schema import load_manifest, pointer_version
from pqkit.errors import (
    CommitConflict,
    DatasetError,
    DatasetExists,
    DatasetIncomplete,
    DatasetNotFound,
    ManifestCorrupted,
)

MAX_ATTEMPTS = 10
# A writer on a loaded machine can lose ten races in a row to faster peers; it keeps
# trying for this long before reporting contention, so slowness alone never fails it.
COMMIT_PATIENCE_S = 30.0
_CACHE_SIZE = 8
_cache = OrderedDict()


def read_hint(paths):
    """The version in ``_pqkit/_latest``, or None when it is missing or unreadable."""
    try:
        return pointer_version(paths.storage.read(paths.latest_hint), paths.latest_hint)
    except (OSError, ManifestCorrupted):
        return None


def _probe(paths, version):
    """The newest version after ``version`` (which exists) that follows it without a gap."""
    while paths.storage.exists(paths.version_path(version + 1)):
        version += 1
    return version


def _version_names(paths):
    try:
        return paths.storage.listdir(paths.versions_dir)
    except FileNotFoundError:
        return []


def list_versions(paths):
    """Every version number present in ``_pqkit/versions`` (a listing)."""
    return sorted({v for v in map(parse_version_file_name, _version_names(paths))
                   if v is not None})


def find_latest(paths, start=None):
    """The newest committed version number; DatasetNotFound when there is none.

    ``start`` is a version known to exist (a writer's base); otherwise the hint is used.
    """
    if start is not None and start >= 0:
        return _probe(paths, start)
    hint = read_hint(paths)
    if hint is not None and paths.storage.exists(paths.version_path(hint)):
        return _probe(paths, hint)
    # Without a usable hint, counting up from 0 could stop at a gap that vacuum left
    # (a tagged version 0 kept, later ones removed), so list the versions instead.
    found = list_versions(paths)
    if not found:
        raise DatasetNotFound(f"{paths.root} holds no PQDS/1 dataset (no version files in "
                              f"{paths.versions_dir})")
    return _probe(paths, found[-1])


def load_version(paths, version):
    """The validated Manifest of ``version`` (cached: version files never change)."""
    path = paths.version_path(version)
    try:
        key = paths.storage.identity(path)
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
        raw = paths.storage.read(path)
    except FileNotFoundError:
        raise DatasetIncomplete(f"version {version} of {paths.root} does not exist (never "
                                "committed, or removed by vacuum)") from None
    manifest = load_manifest(raw, path, expected_version=version)
    _cache[key] = manifest
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return manifest


def load_latest(paths, *, for_writing=False):
    """(version, Manifest) of the newest readable version.

    A torn newest version file (possible only where hard links are unsupported)
    reads as "commit in progress": readers use the version before it, writers stop
    with ManifestCorrupted until ``repair`` removes it. A complete document with bad
    fields is no torn write: it raises ManifestCorrupted for readers too.
    """
    return load_readable(paths, find_latest(paths), for_writing=for_writing)


def load_readable(paths, latest, *, for_writing=False):
    """(version, Manifest) of ``latest``, or of the version before a torn ``latest``."""
    try:
        return latest, load_version(paths, latest)
    except ManifestCorrupted as exc:
        if for_writing or latest == 0 or not getattr(exc, "unparsable", False):
            raise
        return latest - 1, load_version(paths, latest - 1)


def _backoff(attempt):
    time.sleep(random.uniform(0, min(1.0, 0.005 * (2 ** min(attempt, 10)))))


def staged_file_present(paths, entry):
    path = entry["path"]
    # the visible place first: on an object store that is where a staged file is
    return paths.storage.exists(paths.visible(path)) or paths.find_shadow(path) is not None


def commit_operation(paths, op, *, max_attempts=None, patience=None):
    """Commit ``op`` (an operations.Operation) as the next version; returns its number.

    Returns the current version without committing when ``op.run_id`` was already
    applied. Raises CommitConflict (conflict table, or races still lost after
    ``max_attempts`` attempts and ``patience`` seconds) and DatasetExists (``create``
    over an existing dataset).
    """
    started = time.monotonic()
    max_attempts = MAX_ATTEMPTS if max_attempts is None else max_attempts
    patience = COMMIT_PATIENCE_S if patience is None else patience
    try:
        base = find_latest(paths)
    except DatasetNotFound:
        base = -1
    if op.read_version is None:
        op.read_version = base
    checked = op.read_version
    if checked >= 0:
        try:
            op.prepare(load_version(paths, checked))
        except DatasetIncomplete:
            raise CommitConflict(f"version {checked} this operation read is gone (vacuumed)",
                                 retryable=True, conflicting_version=checked,
                                 reason="vacuumed") from None
    attempt = 0
    while attempt < max_attempts or time.monotonic() - started < patience:
        attempt += 1
        cur = find_latest(paths, base) if base >= 0 else _latest_or_none(paths)
        parent = load_version(paths, cur) if cur >= 0 else None
        if parent is not None:
            parent.check_writable()
            if op.type == "create":
                if parent.version >= 0 and _created_by(paths, op.txn):
                    return 0
                raise DatasetExists(f"{paths.root} already holds a dataset (version "
                                    f"{parent.version})")
            _validate_range(paths, op, checked, cur)
            checked = cur
            if op.already_applied(parent):
                _discard_unused(paths, op, parent)
                return cur
        dataset_id = parent.dataset_id if parent is not None else new_txn()
        data = op.build(parent, cur + 1, attempt, dataset_id)
        _refuse_moving_foreign(paths, parent, data["operation"].get("removed", ()))
        missing = [e["path"] for e in op.entries if not staged_file_present(paths, e)]
        if missing:
            raise DatasetIncomplete(f"staged file {missing[0]!r} is gone (removed by vacuum "
                                    "after its grace period?); stage it again")
        if op.index_segments:
            check_segments_present(paths, [seg for _, seg in op.index_segments])
        won = _create_version(paths, cur + 1, paths.tmp_path(op.txn, attempt),
                              dump_json(data))
        if won:
            crash_point("commit.committed")
            return cur + 1
        if cur + 1 == 0 and op.type == "create":
            if _created_by(paths, op.txn):
                return 0
            raise DatasetExists(f"{paths.root}: another writer created the dataset first")
        base = cur + 1
        _backoff(attempt)
    raise CommitConflict(f"gave up after {attempt} attempts in "
                         f"{time.monotonic() - started:.0f} s: other writers kept "
                         "committing first", retryable=True, reason="contention")


def _create_version(paths, version, tmp, data):
    """Commit ``data`` as ``version`` unless that version exists."""
    return paths.storage.create_version(paths, tmp, paths.version_path(version), data)


def _discard_unused(paths, op, current):
    """Remove what ``op`` staged for a run that turned out to be applied already.

    Entries the current version lists are kept: a retried ``commit()`` may hand
    in the very files that the first attempt committed.
    """
    live = current.by_key()
    segments = {seg["path"] for ix in (current.data.get("indices") or [])
                for seg in ix.get("segments", [])}
    for e in op.entries:
        if e.get("key") not in live:
            for path in paths.storage.staged_copies(paths, e["path"]):
                paths.storage.remove(path)
    for _, seg in op.index_segments or ():
        if seg["path"] not in segments:
            paths.storage.remove(os.path.join(paths.root, *seg["path"].split("/")))


def _refuse_moving_foreign(paths, parent, removed):
    """Files registered in place from another system (an entry's ``origin``, e.g. an
    imported Kartothek table) stay where that system expects them: an operation that
    would retire one (overwrite, delete, compact, ...) is refused before it commits."""
    if parent is None or not removed:
        return
    files = parent.by_key()
    foreign = [k for k in removed if files.get(k, {}).get("origin")]
    if foreign:
        origin = files[foreign[0]]["origin"]
        raise DatasetError(f"{paths.root}: this operation would remove {len(foreign)} file(s) "
                           f"that {origin} still references (e.g. {files[foreign[0]]['path']}); "
                           f"pqkit never moves files it registered from {origin}. Append "
                           "instead, or convert() the dataset into a new root first")


def _latest_or_none(paths):
    try:
        return find_latest(paths)
    except DatasetNotFound:
        return -1


def _created_by(paths, txn):
    try:
        return load_version(paths, 0).operation.get("txn") == txn
    except (DatasetIncomplete, ManifestCorrupted):
        return False


def _validate_range(paths, op, after, upto):
    """Check ``op`` against every version committed after it read ``after``."""
    prev = None
    for v in range(after + 1, upto + 1):
        try:
            m = load_version(paths, v)
            if prev is None and v > 0:
                prev = load_version(paths, v - 1)
        except DatasetIncomplete:
            raise CommitConflict(f"version {v} committed since this operation read version "
                                 f"{after} is gone (vacuumed); re-run the operation",
                                 retryable=True, conflicting_version=v,
                                 reason="vacuumed") from None
        op.validate(prev, m)
        prev = m

