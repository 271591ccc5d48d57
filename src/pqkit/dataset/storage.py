"""Where a dataset's files live: the store behind the commit's put-if-absent.

PQDS/1 commits a version by creating ``_pqkit/versions/<n>.json`` only if it
does not exist (§3.6). The two stores give that in different ways:

* :class:`LocalStorage` (POSIX, NFS, Windows): write a temporary file, fsync,
  then hard-link it to the version name (:func:`pqkit.dataset.fsops.publish_if_absent`);
* :class:`ObjectStorage` (S3 and S3-compatible stores through fsspec): one PUT
  with ``If-None-Match: *`` (fsspec's ``pipe_file(..., mode="create")``). The
  store answers 412 Precondition Failed when the key exists, which s3fs raises
  as FileExistsError: the commit was lost to another writer. An object PUT is
  atomic, so no temporary file is needed and a torn version file cannot occur.

A store that ignores the condition would let two writers both "win" the same
version, so :meth:`ObjectStorage.check_conditional_put` probes the store once
(create a fresh key twice; the second must fail) before the first commit, and
refuses writing otherwise; reading needs no such guarantee.
"""
import uuid

from pqkit.dataset import fsops
from pqkit.errors import UnsupportedFeature

__all__ = ["LocalStorage", "ObjectStorage"]

_PROBED = {}        # (file system, root) -> None (conditional puts work) or the refusal


class LocalStorage:
    """A dataset root on a local or network file system."""

    remote = False

    def create_version(self, layout, tmp, dst, data):
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
        probe = f"{root}/_pqkit/tmp/conditional-put-{uuid.uuid4().hex}"
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

    def create_version(self, layout, tmp, dst, data):
        """Create version file ``dst`` with one conditional PUT; True when created.
        ``tmp`` is unused: a PUT is atomic."""
        self.check_conditional_put(layout.root)
        try:
            self.fs.pipe_file(dst, data, mode="create")
        except FileExistsError:
            return False
        return True
