"""Filesystem primitives of the commit and publish protocol (§3.6, §3.7).

* :func:`publish_if_absent` links a fully written, fsynced temporary file to
  its final name and fails if that name exists: ``os.link`` on POSIX (atomic
  on ext4/xfs/btrfs/APFS and on the NFS server), a no-replace ``os.rename`` on
  Windows, and ``O_CREAT | O_EXCL`` where hard links are unsupported.
  ``os.rename``/``os.replace`` are never used for commits on POSIX: they
  replace the target silently.
* :func:`atomic_replace` (tmp + ``os.replace``) is for derived files, where
  last-writer-wins is the intent.
* :class:`FileLock` is ``flock`` (``msvcrt.locking`` on Windows); the kernel
  drops it when the process dies, so no lock is ever stale.
* :func:`crash_point` lets tests kill the process at a named step: with
  ``PQKIT_DATASET_CRASH_AT=commit.linked`` (or ``name:k`` for the k-th time the
  step is reached) the process SIGKILLs itself there.
"""
import errno
import json
import os
import signal
import sys
import uuid


CRASH_ENV = "PQKIT_DATASET_CRASH_AT"
_crash_counts = {}


def crash_point(step):
    """Kill this process (SIGKILL, no cleanup) when ``$PQKIT_DATASET_CRASH_AT`` names ``step``."""
    spec = os.environ.get(CRASH_ENV)
    if not spec:
        return
    name, _, nth = spec.partition(":")
    if name != step:
        return
    _crash_counts[step] = _crash_counts.get(step, 0) + 1
    if _crash_counts[step] >= int(nth or 1):
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


def durable():
    """Whether files and directories are fsynced (``PQKIT_DATASET_FSYNC=0`` turns it off)."""
    return os.environ.get("PQKIT_DATASET_FSYNC", "1") != "0"


def fsync_dir(path):
    if not durable() or os.name == "nt":
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass                     # some filesystems refuse fsync on directories
    finally:
        os.close(fd)


def makedirs(path):
    """``mkdir -p``, fsyncing each parent that gained an entry."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    if parent and parent != path:
        makedirs(parent)
    try:
        os.mkdir(path)
    except FileExistsError:
        return
    fsync_dir(parent)


def write_file(path, data, *, crash_step=None):
    """Create ``path`` (which must not exist) with ``data``, fsynced.

    ``crash_step`` names a crash point reached after half the bytes are written.
    """
    makedirs(os.path.dirname(path))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
    try:
        if crash_step is not None:
            os.write(fd, data[:len(data) // 2])
            crash_point(crash_step)
            data = data[len(data) // 2:]
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable():
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_replace(path, data):
    """Replace ``path`` with ``data`` atomically: readers see the old or the new bytes."""
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    write_file(tmp, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        remove_if_exists(tmp)
        raise
    fsync_dir(os.path.dirname(path))


def publish_if_absent(tmp, dst):
    """Make the complete file ``tmp`` appear as ``dst`` unless ``dst`` exists.

    Returns True when this call created ``dst`` (the commit), False when another
    writer got there first. ``tmp`` is removed either way.
    """
    makedirs(os.path.dirname(dst))
    try:
        if os.name == "nt":
            os.rename(tmp, dst)          # no-replace on Windows: raises if dst exists
        else:
            os.link(tmp, dst)
    except FileExistsError:
        remove_if_exists(tmp)
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV,
                             errno.EMLINK, errno.ENOSYS):
            raise
        return _create_exclusive(tmp, dst)
    crash_point("commit.linked")
    remove_if_exists(tmp)
    fsync_dir(os.path.dirname(dst))
    return True


def _create_exclusive(tmp, dst):
    """Fallback without hard links: O_EXCL create, write, fsync (single-writer mode).

    A crash mid-write leaves a torn newest version: readers skip it, writers stop
    until ``repair`` removes it.
    """
    with open(tmp, "rb") as f:
        data = f.read()
    try:
        write_file(dst, data)
    except FileExistsError:
        remove_if_exists(tmp)
        return False
    remove_if_exists(tmp)
    fsync_dir(os.path.dirname(dst))
    return True


def remove_if_exists(path):
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False


def rename_if_present(src, dst):
    """Move ``src`` to ``dst`` (creating parents); a missing ``src`` means already done."""
    if not os.path.exists(src):
        return False
    makedirs(os.path.dirname(dst))
    try:
        os.replace(src, dst)
    except FileNotFoundError:
        return False
    return True


def read_json(path):
    """Parsed JSON of ``path``; FileNotFoundError passes through, bad JSON is ValueError."""
    with open(path, "rb") as f:
        data = f.read()
    return parse_json(data, path)


def parse_json(data, where):
    """Parsed JSON of the bytes ``data`` read from ``where``; bad JSON is ValueError."""
    try:
        return loads_finite(data)
    except ValueError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc})") from None


def loads_finite(data):
    """Parsed JSON of ``data`` (bytes or str); ValueError saying why it is not valid.

    Numbers must be finite: ``1e999``, ``NaN`` and ``Infinity`` are refused here, so no
    reader of a count or version number meets an infinity it cannot make an int of.
    """
    try:
        return json.loads(data.decode("utf-8") if isinstance(data, bytes) else data,
                          parse_float=_finite_float, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(str(exc)) from None
    except _NotFinite as exc:
        raise ValueError(f"the number {exc} is not finite") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply to be a dataset file") from None


class _NotFinite(Exception):
    """A JSON number that does not fit a finite double (raised while parsing)."""


def _finite_float(text):
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _NotFinite(text[:40])
    return value


def _no_constant(name):
    raise _NotFinite(name)


def dump_json(obj):
    """Compact, deterministic JSON bytes (sorted keys are not used: field order is readable)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) \
        .encode("utf-8")


class FileLock:
    """An exclusive advisory lock on a file, released when closed or when the process dies."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def __enter__(self):
        makedirs(os.path.dirname(self.path))
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if os.name == "nt":
                import msvcrt
                msvcrt.locking(self.fd, msvcrt.LK_LOCK, 1)
            else:
                import fcntl
                fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(self.fd)
            self.fd = None
            raise
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            if os.name == "nt":
                import msvcrt
                os.lseek(self.fd, 0, 0)
                msvcrt.locking(self.fd, msvcrt.LK_UNLCK, 1)
            os.close(self.fd)       # closing the descriptor releases flock
            self.fd = None


# The directory under a dataset root that pqkit keeps for itself (PQDS/1 §3.2); no
# format's data path may enter it.
META_DIR = "_pqkit"


def new_txn():
    """A fresh transaction id (uuid4 hex): part of every data file name it writes."""
    return uuid.uuid4().hex
