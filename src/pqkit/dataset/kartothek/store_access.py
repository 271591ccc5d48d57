"""The keys of a Kartothek store, on a local directory or an object store, for writing.

Kartothek addresses everything by a key relative to the store
(``<uuid>/<table>/k=1/<leaf>.parquet``); :class:`KartothekStore` maps such keys to
pqkit's storage interface (:mod:`pqkit.dataset.core.storage`): a local directory
through :class:`~pqkit.dataset.core.storage.LocalStorage`, a URL (``s3://bucket/store``)
through :class:`~pqkit.dataset.core.storage.ObjectStorage` on its fsspec file system.

Kartothek itself has no commit protocol beyond "write the metadata file last", so
two writers of one dataset silently lose each other's partitions. pqkit refuses a
second writer instead: :meth:`KartothekStore.writer_lock` creates
``<uuid>.pqkit-writer.lock`` only if it does not exist (``O_EXCL`` locally, a PUT
with ``If-None-Match: *`` on an object store, whose support is probed first) and
deletes it when the operation ends. A writer that crashed leaves the lock behind;
the error names the file to delete once no writer is running. Kartothek's own
writers do not know this lock.
"""
import contextlib
import json
import os
import socket

from pqkit.dataset.core import LocalStorage, ObjectStorage, utc_now_text
from pqkit.errors import CommitConflict
from pqkit.filesystems import is_url, url_filesystem

LOCK_SUFFIX = ".pqkit-writer.lock"


class KartothekStore:
    """A Kartothek store for writing: a local directory or a URL.

    Parameters
    ----------
    store : path or str
        A directory, or a URL such as ``s3://bucket/prefix``.
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    """

    def __init__(self, store, storage_options=None):
        if is_url(store):
            fs, path = url_filesystem(store, storage_options)
            self.storage = ObjectStorage(fs)
            self.root = path.rstrip("/")
        else:
            self.storage = LocalStorage()
            self.root = os.path.abspath(os.fspath(store))
        self.name = os.fspath(store)

    def path(self, key):
        """The storage path of ``key`` (a ``/``-separated key relative to the store)."""
        if self.storage.remote:
            return f"{self.root}/{key}"
        return os.path.join(self.root, *key.split("/"))

    def get(self, key):
        """The bytes of ``key``, or None when there is no such file."""
        try:
            return self.storage.read(self.path(key))
        except FileNotFoundError:
            return None

    def exists(self, key):
        return self.storage.exists(self.path(key))

    def put_new(self, key, data):
        """Write a file no one else writes (a fresh leaf name), durably."""
        self.storage.put_new(self.path(key), data)

    def replace(self, key, data):
        """Replace ``key`` atomically: readers see the old or the new bytes."""
        self.storage.replace(self.path(key), data)

    def remove(self, key):
        self.storage.remove(self.path(key))

    def names(self):
        """Names directly in the store (empty when there is none)."""
        try:
            return self.storage.listdir(self.root)
        except FileNotFoundError:
            return []

    def sizes(self, prefix):
        """key -> size of every file below key ``prefix`` (one listing)."""
        return {f"{prefix}/{rel}": size
                for rel, size in self.storage.sizes(self.path(prefix)).items()}

    @contextlib.contextmanager
    def writer_lock(self, uuid):
        """Hold the one-writer lock of dataset ``uuid`` (module doc).

        Raises
        ------
        pqkit.dataset.CommitConflict
            Another writer holds it (or a crashed one left it).
        """
        key = uuid + LOCK_SUFFIX
        path = self.path(key)
        body = json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                           "since": utc_now_text()}).encode()
        try:
            if self.storage.remote:
                self.storage.check_conditional_put(self.root)
                self.storage.fs.pipe_file(path, body, mode="create")
            else:
                self.storage.put_new(path, body)
        except FileExistsError:
            raise CommitConflict(f"another writer is changing Kartothek dataset {uuid!r} in "
                                 f"{self.name} (its lock {key} exists); if no writer is "
                                 "running, a crashed one left it: delete it",
                                 retryable=True, reason="kartothek writer lock") from None
        try:
            yield
        finally:
            self.remove(key)


__all__ = ["LOCK_SUFFIX", "KartothekStore"]
