"""Committing the next version (§3.6, §3.8); finding the latest one is
:meth:`~pqkit.dataset.pqds.paths.RootPaths.latest`.

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

from pqkit.dataset.core import crash_point, dump_json, new_txn
from pqkit.dataset.pqds.index_segments import check_segments_present
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
        base = paths.latest()
    except DatasetNotFound:
        base = -1
    if op.read_version is None:
        op.read_version = base
    checked = op.read_version
    if checked >= 0:
        try:
            op.prepare(paths.load(checked))
        except DatasetIncomplete:
            raise CommitConflict(f"version {checked} this operation read is gone (vacuumed)",
                                 retryable=True, conflicting_version=checked,
                                 reason="vacuumed") from None
    attempt = 0
    while attempt < max_attempts or time.monotonic() - started < patience:
        attempt += 1
        cur = paths.latest(base) if base >= 0 else _latest_or_none(paths)
        parent = paths.load(cur) if cur >= 0 else None
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
        return paths.latest()
    except DatasetNotFound:
        return -1


def _created_by(paths, txn):
    try:
        return paths.load(0).operation.get("txn") == txn
    except (DatasetIncomplete, ManifestCorrupted):
        return False


def _validate_range(paths, op, after, upto):
    """Check ``op`` against every version committed after it read ``after``."""
    prev = None
    for v in range(after + 1, upto + 1):
        try:
            m = paths.load(v)
            if prev is None and v > 0:
                prev = paths.load(v - 1)
        except DatasetIncomplete:
            raise CommitConflict(f"version {v} committed since this operation read version "
                                 f"{after} is gone (vacuumed); re-run the operation",
                                 retryable=True, conflicting_version=v,
                                 reason="vacuumed") from None
        op.validate(prev, m)
        prev = m

