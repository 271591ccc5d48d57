"""Where a dataset's files live: the store behind the commit's put-if-absent.

PQDS/1 commits a version by creating ``_pqkit/versions/_<n>.json`` only if it
does not exist (§3.6). The two stores give that in different ways:

* :class:`LocalStorage` (POSIX, NFS, Windows): write a temporary file, fsync,
  then hard-link it to the version name (:func:`pqkit.dataset.core.fsops.publish_if_absent`);
* :class:`ObjectStorage` (S3 and S3-compatible stores through fsspec): one PUT
  with ``If-None-Match: *`` (fsspec's ``pipe_file(..., mode="create")``). The
  store answers 412 Precondition Failed when the key exists, which s3fs raises
  as FileExistsError: the commit was lost to another writer. An object PUT is
  atomic, so no temporary file is needed and a torn version file cannot occur.

A store that ignores the condition would let two writers both "win" the same
version, so :meth:`ObjectStorage.check_conditional_put` probes the store once
(create a fresh key twice; the second must fail) before the first commit, and
refuses writing otherwise; reading needs no such guarantee.

Every other file operation of the dataset layer goes through the same two
classes (exists, read, replace, remove, move, list, lock), so the layers above
never call ``os`` for dataset state. The one difference in protocol: an object
store has no rename, so a data file is written straight to its final, visible
key (its name is unique: ``part-NNNNN-<txn>.parquet``) instead of to
``_pqkit/shadow/`` first (:meth:`staged_path`); an uncommitted one is an orphan
that ``repair``/``vacuum`` delete after the grace period.
"""
import contextlib
import os
import uuid

from pqkit.dataset.core import fsops
from pqkit.errors import UnsupportedFeature

__all__ = ["LocalStorage", "ObjectStorage"]

_PROBED = {}        # (file system, root) -> None (conditional puts work) or the refusal


class LocalStorage:
    """A dataset root on a local or network file system."""

    remote = False
    fs = None           # the fsspec file system readers take (None: local paths)

    def check_writable(self, root):
        """Nothing to check: hard links give put-if-absent (fsops falls back otherwise)."""

    def staged_path(self, paths, relpath):
        """Where a new data file is written: its hidden shadow copy."""
        return paths.shadow(relpath)

    def staged_copies(self, paths, relpath):
        return (paths.shadow(relpath),)

    def exists(self, path):
        return os.path.exists(path)

    def read(self, path):
        """The bytes of ``path``; FileNotFoundError when it is missing."""
        with open(path, "rb") as f:
            return f.read()

    def identity(self, path):
        """What changes when ``path`` is replaced (for caches); FileNotFoundError if missing."""
        st = os.stat(path)
        return (path, st.st_ino, st.st_size, st.st_mtime_ns)

    def signature(self, path):
        """What a file derived from ``path`` records to detect that ``path`` was replaced
        (a JSON dict); FileNotFoundError when it is missing."""
        st = os.stat(path)
        return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino}

    def mtime(self, path):
        """Modification time in seconds, or None when ``path`` is gone."""
        try:
            return os.stat(path).st_mtime
        except FileNotFoundError:
            return None

    @contextlib.contextmanager
    def create(self, path):
        """A binary file to write new file ``path`` through (fails if it exists), made durable."""
        fsops.makedirs(os.path.dirname(path))
        with open(path, "xb") as f:
            yield f
            f.flush()
            if fsops.durable():
                os.fsync(f.fileno())
        fsops.fsync_dir(os.path.dirname(path))

    def replace(self, path, data):
        fsops.atomic_replace(path, data)

    def put_new(self, path, data, crash_step=None):
        """Create ``path`` (a name no one else writes) with ``data``, durable;
        ``crash_step``: a crash point halfway through the bytes."""
        fsops.write_file(path, data, crash_step=crash_step)

    def remove(self, path):
        """Delete ``path``; False when it was already gone."""
        return fsops.remove_if_exists(path)

    def move(self, src, dst):
        """Move ``src`` to ``dst``; False when ``src`` is gone (already moved)."""
        return fsops.rename_if_present(src, dst)

    def listdir(self, path):
        """Names directly under ``path``; FileNotFoundError when there is none."""
        return os.listdir(path)

    def list_files(self, top):
        """Relative POSIX paths of every file below ``top`` (empty when it is missing)."""
        out = []
        for dirpath, _, filenames in os.walk(top):
            rel = os.path.relpath(dirpath, top).replace(os.sep, "/")
            out.extend(n if rel == "." else f"{rel}/{n}" for n in filenames)
        return out

    def sizes(self, top):
        """Relative POSIX path -> size of every file below ``top`` (empty when missing)."""
        return {rel: os.path.getsize(os.path.join(top, *rel.split("/")))
                for rel in self.list_files(top)}

    def sync_dir(self, path):
        fsops.fsync_dir(path)

    def lock(self, path):
        """The publish lock: flock on ``path``."""
        return fsops.FileLock(path)

    def create_version(self, paths, tmp, dst, data):
        """Create version file ``dst`` with ``data`` unless it exists; True when created.
        ``tmp`` is the staging name the link is made from."""
        fsops.write_file(tmp, data, crash_step="commit.tmp_partial")
        fsops.crash_point("commit.tmp_written")
        try:
            return fsops.publish_if_absent(tmp, dst)
        except BaseException:
            fsops.remove_if_exists(tmp)
            raise


class ObjectStorage:
    """A dataset root on an object store, through an fsspec file system.

    Parameters
    ----------
    fs : fsspec.AbstractFileSystem
        Its ``pipe_file(path, data, mode="create")`` must be a conditional PUT.
    """

    remote = True

    def __init__(self, fs):
        self.fs = fs

    def check_writable(self, root):
        self.check_conditional_put(root)

    def staged_path(self, paths, relpath):
        """Where a new data file is written: its final key (no rename on a store)."""
        return paths.visible(relpath)

    def staged_copies(self, paths, relpath):
        return (paths.visible(relpath),)

    def _fresh(self, path):
        # s3fs caches listings; another writer may have added keys since
        self.fs.invalidate_cache(path)

    def exists(self, path):
        # a one-byte ranged GET: one request either way, where s3fs's exists() follows
        # the HEAD of a missing key with a listing (is it a "directory"?)
        try:
            self.fs.cat_file(path, start=0, end=1)
            return True
        except FileNotFoundError:
            return False
        except OSError:                # an empty object has no byte 0 to range over
            self._fresh(path)
            return self.fs.exists(path)

    def read(self, path):
        # a ranged GET from 0: one request (a whole-object read is HEAD + GET)
        return self.fs.cat_file(path, start=0)

    def identity(self, path):
        # version files are written once and never replaced, so the key is enough
        if not self.exists(path):
            raise FileNotFoundError(path)
        return (id(self.fs), path)

    def signature(self, path):
        """The object's size and ETag (a new PUT changes the ETag); FileNotFoundError
        when it is missing."""
        self._fresh(path)
        info = self.fs.info(path)
        return {"size": int(info["size"]), "etag": str(info.get("ETag") or
                                                       info.get("etag") or "")}

    def mtime(self, path):
        try:
            modified = self.fs.modified(path)
        except (FileNotFoundError, NotImplementedError):
            return None
        return modified.timestamp()

    @contextlib.contextmanager
    def create(self, path):
        """A binary file writing ``path`` (an upload, visible when closed); an error
        inside discards it, so no partial object appears."""
        f = self.fs.open(path, "wb")
        try:
            yield f
        except BaseException:
            # closing would upload what was buffered: abort the upload instead
            if hasattr(f, "discard"):
                f.discard()
                f.closed = True
            else:
                f.close()
            self.remove(path)
            raise
        f.close()

    def replace(self, path, data):
        self.fs.pipe_file(path, data)

    def put_new(self, path, data, crash_step=None):
        """One PUT of a new object (atomic: a crash leaves no partial object)."""
        if crash_step is not None:
            fsops.crash_point(crash_step)
        self.fs.pipe_file(path, data)

    def remove(self, path):
        try:
            self.fs.rm_file(path)
        except FileNotFoundError:
            return False
        return True

    def move(self, src, dst):
        """Server-side copy then delete: a store has no rename."""
        if not self.exists(src):
            return False
        self.fs.cp_file(src, dst)          # one CopyObject (copy() lists both sides first)
        self.fs.rm_file(src)
        return True

    def listdir(self, path):
        self._fresh(path)
        names = self.fs.ls(path, detail=False)
        return [n.rstrip("/").rsplit("/", 1)[-1] for n in names]

    def list_files(self, top):
        return sorted(self.sizes(top))

    def sizes(self, top):
        """Relative POSIX path -> size of every object below ``top`` (one listing)."""
        self._fresh(top)
        # some file systems (memory://) answer with a leading "/" that ``top`` had not
        prefix = top.strip("/") + "/"
        return {p.lstrip("/")[len(prefix):]: int(info["size"])
                for p, info in self.fs.find(top, detail=True).items()
                if p.lstrip("/").startswith(prefix)}

    def sync_dir(self, path):
        """Nothing to do: a PUT is durable when it returns."""

    def lock(self, path):
        # publishing is idempotent and every step a single PUT or copy, so concurrent
        # publishers are harmless; a store offers no lock to take
        return contextlib.nullcontext()

    def check_conditional_put(self, root):
        """Refuse writing to ``root`` unless its store honours ``If-None-Match: *``.

        Raises
        ------
        pqkit.dataset.UnsupportedFeature
            The store overwrote an existing key on a conditional PUT, or the file
            system cannot ask for one.
        """
        key = (id(self.fs), root)
        if key not in _PROBED:
            _PROBED[key] = self._probe(root)
        if _PROBED[key] is not None:
            raise UnsupportedFeature(_PROBED[key])

    def _probe(self, root):
        probe = f"{root}/_pqkit/tmp/_conditional-put-{uuid.uuid4().hex}"
        try:
            self.fs.pipe_file(probe, b"1", mode="create")
            try:
                self.fs.pipe_file(probe, b"2", mode="create")
            except FileExistsError:
                return None
            return (f"the store of {root} overwrote an existing object on a conditional PUT "
                    "(If-None-Match: *); without put-if-absent two writers could commit the "
                    "same version, so pqkit refuses to write there (reading works)")
        except TypeError:
            return (f"the file system of {root} ({type(self.fs).__name__}) cannot make a "
                    "conditional PUT (pipe_file mode='create'); pqkit refuses to write "
                    "there (reading works)")
        finally:
            try:
                self.fs.rm_file(probe)
            except OSError:
                pass

    def create_version(self, paths, tmp, dst, data):
        """Create version file ``dst`` with one conditional PUT; True when created.
        ``tmp`` is unused: a PUT is atomic."""
        self.check_conditional_put(paths.root)
        try:
            self.fs.pipe_file(dst, data, mode="create")
        except FileExistsError:
            return False
        return True
