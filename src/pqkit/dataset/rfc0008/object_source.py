"""An RFC-style single-manifest dataset on an object store (``s3://``, ``memory://``, any
fsspec URL), read with the same checks as on a local directory
(:class:`~pqkit.dataset.rfc0008.manifest.RfcManifestSource`): ``_SUCCESS`` first, then
the manifest's shape, then every part's existence, size, footer row count and schema
hash. Parts are read by ranged GETs of their known size.
"""
from pqkit.dataset.core import ObjectStorage, check_relative_path
from pqkit.dataset.rfc0008.manifest import (
    MANIFEST_NAMES,
    SUCCESS,
    PartCheck,
    RfcManifestSource,
    check_part_file,
    parse_manifest,
)
from pqkit.errors import DatasetIncomplete, DatasetNotFound, ManifestCorrupted
from pqkit.filesystems import url_filesystem
from pqkit.read.fetch.remote import RangeSource
from pqkit.read.file import ParquetFile


class StoreDataset:
    """The keys of one dataset directory ``<url>`` on an object store."""

    def __init__(self, url, storage_options=None, fs=None):
        self.url = url.rstrip("/")
        if fs is None:
            fs, path = url_filesystem(self.url, storage_options)
        else:
            path = self.url.split("://", 1)[1]
        self.fs = fs
        self.storage = ObjectStorage(fs)
        self.key = path.rstrip("/")
        self.protocol = self.url.split("://", 1)[0]

    def path(self, name):
        return f"{self.key}/{name}"

    def url_of(self, name):
        return f"{self.protocol}://{self.path(name)}"

    def get(self, name):
        """The bytes of ``name`` below the dataset, or None when there is none."""
        try:
            return self.storage.read(self.path(name))
        except FileNotFoundError:
            return None

    def manifest(self):
        """(name, bytes) of the dataset's manifest, or None when there is none."""
        found = [(n, data) for n in MANIFEST_NAMES for data in [self.get(n)]
                 if data is not None]
        if len(found) > 1:
            raise ManifestCorrupted(f"{self.url} holds both manifest.json and _manifest.json; "
                                    "remove the stale one")
        return found[0] if found else None

    def has_success(self):
        return self.storage.exists(self.path(SUCCESS))

    def size(self, name):
        """The size of object ``name``; FileNotFoundError when it is missing."""
        self.fs.invalidate_cache(self.path(name))       # another writer may have added it
        return int(self.fs.size(self.path(name)))

    def files(self):
        """Names of every object below the dataset (relative, ``/``-separated)."""
        return self.storage.list_files(self.key)


class ObjectRfcSource(RfcManifestSource):
    """An RFC-style single-manifest dataset at a URL, as one version (0).

    Parameters
    ----------
    url : str
        The dataset's directory, e.g. ``s3://bucket/store/sales/daily``.
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    require_success, strict : bool
        As for :class:`~pqkit.dataset.rfc0008.manifest.RfcManifestSource`.
    """

    def __init__(self, url, *, storage_options=None, require_success=True, strict=True,
                 fs=None):
        self.where = StoreDataset(url, storage_options, fs)
        self.root = self.where.url
        self.strict = strict
        self.problems = []
        self._sizes = {}
        found = self.where.manifest()
        if found is None:
            raise DatasetNotFound(f"{self.root} has no manifest.json")
        name, data = found
        self.manifest_file = self.where.url_of(name)
        self._note_success(self.where.has_success(), require_success)
        self.document = parse_manifest(data, self.manifest_file)
        self.checks = []
        self._manifest = self._build()

    def check(self, part):
        rel = part["path"]
        try:
            check_relative_path(rel, f"{self.root}: manifest", "part")
        except ManifestCorrupted as exc:
            return PartCheck(part, problem=str(exc), error=ManifestCorrupted)
        try:
            size = self.where.size(rel)
        except FileNotFoundError:
            return PartCheck(part, problem=f"part {rel} is missing", error=DatasetIncomplete)
        key = self.where.path(rel)
        return check_part_file(part, size, lambda: RangeSource(self.where.fs, key, size=size,
                                                               name=self.where.url_of(rel)),
                               self.document["schema_hash"])

    def resolve(self, entry):
        """(URL, size from the snapshot) of a part."""
        url = self.where.url_of(entry["path"])
        self._sizes[url] = int(entry["size"])
        return url, self._sizes[url]

    def open_file(self, path):
        key = path.split("://", 1)[1]
        return ParquetFile(RangeSource(self.where.fs, key, size=self._sizes.get(path),
                                       name=path), **self.file_keys)

    def open_bytes(self, path):
        return self.where.fs.open(path.split("://", 1)[1], "rb")


__all__ = ["ObjectRfcSource", "StoreDataset"]
