"""Where a PQDS/1 dataset's versions and files come from: a file system or an object store.

:class:`ManifestSource` reads the version files of a local (or mounted) root and
finds each data file at its visible path or its hidden copy.

:class:`ObjectManifestSource` reads a dataset on an object store by key, never by
listing. On S3 a listing costs a request per 1,000 keys, so the read side names every
object it needs: opening the latest version is

1. GET ``_pqkit/_latest`` (the hint ``h``),
2. GET ``_pqkit/versions/_<h>.json`` (the snapshot: partitions, per-file bounds),
3. GET ``_pqkit/versions/_<h+1>.json`` -> 404: ``h`` is the latest (a 200 means a
   newer version, read the same way),

three requests whatever the number of files; planning a query then prunes by
partition values and per-file bounds from the snapshot alone. When the hint announces
a planning index (``{"version": h, "planning": true}``, written by publish for versions
of ``planning.index.min_files`` files or more), the version file is not downloaded:
the index's footer gives the version without its file list, a HEAD of the version file
proves (by its ETag) that the index was derived from it, and a partition query reads
the index's matching pages instead of the whole JSON file list. Data files are
read by ranged requests (:class:`pqkit.read.fetch.remote.RangeSource`) at the visible
path the published version gives them, their size taken from the snapshot (no
HEAD). Only when the hint is missing are the version keys listed. A file that a
later version retired (overwrite, delete, compact) was copied to its shadow key;
an older version reading it finds it there after the visible key's 404.
"""
import os

from pqkit.dataset.core import (
    FileSource,
    ObjectStorage,
    check_inside,
    check_relative_path,
    real_root,
)
from pqkit.dataset.pqds import file_list
from pqkit.dataset.pqds.paths import RootPaths, parse_version_file_name
from pqkit.dataset.pqds.version_schema import (
    checked_entries,
    checked_manifest,
    load_manifest,
    pointer_document,
)
from pqkit.errors import DatasetIncomplete, DatasetNotFound, ManifestCorrupted
from pqkit.filesystems import url_filesystem
from pqkit.read.file import ParquetFile
from pqkit.read.fetch.remote import RangeSource

__all__ = ["ManifestSource", "ObjectManifestSource"]


def planned_head(paths, version):
    """The Manifest head (no file list) of ``version`` from its current planning index,
    else None."""
    head = file_list.load_head(paths, version)
    return None if head is None else checked_manifest(
        head, f"planning index of version {version}", head=True)


class ObjectManifestSource(FileSource):
    """Versions and files of a PQDS/1 dataset at a URL (``s3://bucket/table``), read-only.

    Parameters
    ----------
    url : str
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    """

    def __init__(self, url, storage_options=None):
        self.url = url.rstrip("/")
        self.fs, path = url_filesystem(self.url, storage_options)
        self.paths = RootPaths(path.rstrip("/"), ObjectStorage(self.fs))
        self._protocol = url.split("://", 1)[0]
        self._manifests = {}
        self._sizes = {}                 # resolved URL -> size in the snapshot
        self._relpaths = {}              # resolved URL -> the entry's data path
        self._planned = set()            # versions the hint says have a planning index
        self._heads = {}                 # version -> its head from the planning index, or None

    @property
    def root(self):
        return self.url

    def _get(self, path):
        """The bytes of ``path``, or None when there is no such object."""
        try:
            # a ranged GET from 0: s3fs sends a whole-object read as HEAD + GET, and a
            # missing key's HEAD as a listing besides
            return self.fs.cat_file(path, start=0)
        except FileNotFoundError:
            return None

    def _manifest(self, version):
        """The Manifest of ``version``, or None when it was never committed (or vacuumed)."""
        if version not in self._manifests:
            path = self.paths.version_path(version)
            raw = self._get(path)
            if raw is None:
                return None
            self._manifests[version] = load_manifest(raw, f"{self._protocol}://{path}",
                                                     version)
        return self._manifests[version]

    def _hint(self):
        raw = self._get(self.paths.latest_hint)
        if raw is None:
            return None
        try:
            hint = pointer_document(raw, self.paths.latest_hint)
        except ManifestCorrupted:
            return None
        version = hint["version"]
        if hint.get("planning") is True:
            self._planned.add(version)
        return version

    def latest(self):
        start = self._hint()
        # a current planning index proves the hinted version exists without its file list
        if start is None or (self.load_head(start) is None and self._manifest(start) is None):
            listed = self.versions()
            if not listed:
                raise DatasetNotFound(f"{self.url} holds no PQDS/1 dataset (no version files)")
            start = listed[-1]
        while self._manifest(start + 1) is not None:
            start += 1
        return start

    def load(self, version):
        m = self._manifest(int(version))
        if m is None:
            raise DatasetIncomplete(f"version {version} of {self.url} does not exist (never "
                                    "committed, or removed by vacuum)")
        return m

    def load_head(self, version):
        """The version without its file list, from its planning index when the hint
        announced one (else None: no request is spent looking for it)."""
        if version not in self._planned:
            return None
        if version not in self._heads:
            self._heads[version] = planned_head(self.paths, version)
        return self._heads[version]

    def entries(self, version, partitioning, dnf):
        """File entries ``dnf`` may select, read from the planning index (None: unknown)."""
        if version not in self._planned:
            return None
        return file_list.entries(self.paths, version, partitioning, dnf)

    def versions(self):
        """Every version number present (a listing of ``_pqkit/versions/``)."""
        try:
            names = self.fs.ls(self.paths.versions_dir, detail=False)
        except FileNotFoundError:
            return []
        return sorted(v for v in (parse_version_file_name(n.rsplit("/", 1)[-1])
                                  for n in names) if v is not None)

    def _checked(self, entry):
        """The entry's data path, checked to stay below the root (an object store has
        no links: the text is the whole check)."""
        return check_relative_path(entry["path"], f"{self.url}: version file",
                                   f"path of file {entry.get('key')!r}")

    @property
    def index_filesystem(self):
        return self.fs

    def index_file(self, relpath):
        """The object key of an index segment (read on :attr:`index_filesystem`)."""
        check_relative_path(relpath, f"the indices of {self.url}", "index segment path",
                            reserved=False)
        return self.paths.visible(relpath)

    def resolve(self, entry):
        """(URL, size from the snapshot) of a published file entry."""
        url = f"{self._protocol}://{self.paths.visible(self._checked(entry))}"
        self._sizes[url] = int(entry["size"])
        self._relpaths[url] = entry["path"]
        return url, self._sizes[url]

    def stat(self, entry):
        """(URL, size the store reports) of a published file entry: the visible object, or
        its retired copy under ``_pqkit/shadow/``; DatasetIncomplete when neither exists."""
        rel = self._checked(entry)
        for key in (self.paths.visible(rel), self.paths.shadow(rel)):
            try:
                size = int(self.fs.size(key))
            except FileNotFoundError:
                continue
            url = f"{self._protocol}://{key}"
            self._sizes[url], self._relpaths[url] = size, rel
            return url, size
        raise DatasetIncomplete(f"file {rel} is missing from {self.url}: neither it nor its "
                                "retired copy under _pqkit/shadow/ exists")

    def open_bytes(self, path):
        """A binary file object of a resolved URL."""
        return self.fs.open(path.split("://", 1)[1], "rb")

    def open_file(self, path):
        """A ParquetFile of a resolved URL, its size known: no HEAD before the tail GET."""
        key = path.split("://", 1)[1]
        try:
            return ParquetFile(RangeSource(self.fs, key, size=self._sizes.get(path), name=path),
                               **self.file_keys)
        except FileNotFoundError:
            rel = self._relpaths.get(path)
            if rel is None:
                raise
        hidden = self.paths.shadow(rel)
        try:
            return ParquetFile(RangeSource(self.fs, hidden, size=self._sizes.get(path),
                                           name=f"{self._protocol}://{hidden}"),
                               **self.file_keys)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: neither it nor its retired copy under "
                                    "_pqkit/shadow/ exists (removed by vacuum?)") from None


class ManifestSource(FileSource):
    """File entries from PQDS/1 version files; bytes from the visible or shadow copy."""

    def __init__(self, root):
        self.paths = RootPaths(root)
        self._real_root = None

    @property
    def root(self):
        return self.paths.root

    def latest(self):
        return self.paths.latest()

    def load_latest(self, latest=None):
        """(version, Manifest) of the newest readable version (torn newest: the one before)."""
        if latest is None:
            return self.paths.load_latest()
        return self.paths.load_readable(latest)

    def load(self, version):
        return self.paths.load(version)

    def versions(self):
        return self.paths.versions()

    def load_head(self, version):
        """The version without its file list, from a current planning index (else None)."""
        return planned_head(self.paths, version)

    def entries(self, version, partitioning, dnf):
        """File entries ``dnf`` may select, read from the planning index (None: unknown)."""
        found = file_list.entries(self.paths, version, partitioning, dnf)
        return None if found is None else checked_entries(
            found, partitioning, f"planning index of version {version}")

    def resolve(self, entry):
        """(absolute path, size on disk) of a file entry; DatasetIncomplete when it is gone."""
        rel = entry["path"]
        where = f"{self.root}: version file"
        check_relative_path(rel, where, f"path of file {entry.get('key')!r}")
        if self._real_root is None:
            self._real_root = real_root(self.root)
        paths = self.paths
        for path in (paths.visible(rel), paths.shadow(rel), paths.visible(rel)):
            try:
                size = os.stat(path).st_size
            except FileNotFoundError:
                continue
            check_inside(self.root, path, where, f"file {rel}", real=self._real_root)
            return path, size
        raise DatasetIncomplete(f"file {rel} of version {entry.get('added_version', '?')}+ "
                                f"is missing from {paths.root}: vacuumed or deleted outside "
                                "pqkit")
