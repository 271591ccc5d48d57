"""One table of a Kartothek v4 dataset on an object store (``s3://bucket/store``, any
fsspec URL), read as :class:`~pqkit.dataset.kartothek.source.KartothekSource` reads a
local one: the metadata file is the source of truth, exactly its listed files are read
(their existence and sizes checked with one listing of the table's prefix), each
file's footer is read once by ranged GETs, and the ``by-dataset-index`` files prune
``==``/``in`` filters. A store has no links, so the containment checks are the keys'
text alone.
"""
import io

from pqkit.dataset.core import check_relative_path, read_facts
from pqkit.dataset.kartothek.metadata import (
    COMMON_METADATA,
    choose_table,
    choose_uuid,
    load_document,
    tables_of,
    uuids_among,
)
from pqkit.dataset.kartothek.source import KartothekSource, declared_types, listed_files
from pqkit.dataset.kartothek.store_access import KartothekStore
from pqkit.errors import DatasetIncomplete, DatasetNotFound
from pqkit.read.fetch.remote import RangeSource
from pqkit.read.file import ParquetFile


class ObjectKartothekSource(KartothekSource):
    """One table of a Kartothek v4 dataset at a URL, as a read-only version 0.

    Parameters
    ----------
    store : str
        The store's URL (holding ``<uuid>.by-dataset-metadata.*``).
    uuid, table : str, optional
        As for :class:`~pqkit.dataset.kartothek.source.KartothekSource`.
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    """

    def __init__(self, store, uuid=None, table=None, *, storage_options=None):
        self.keys = KartothekStore(store, storage_options)
        self.store = store.rstrip("/")
        self._protocol = self.store.split("://", 1)[0]
        self.uuid = choose_uuid(self.store, uuid, uuids_among(self.keys.names()))
        self.problems = []
        self._resolved = {}              # URL -> size in the snapshot
        found = load_document(self.keys.get, self.uuid, self.store)
        if found is None:
            raise DatasetNotFound(f"{self.store} has no {self.uuid}.by-dataset-metadata.json "
                                  "or .msgpack.zstd")
        self.document, _, self._metadata_name = found
        self.metadata_file = f"{self.store}/{self._metadata_name}"
        self.dataset_dir = f"{self.store}/{self.uuid}"
        listed = tables_of(self.document, None) if self.document["partitions"] else \
            ([table] if table is not None and
             self.keys.exists(f"{self.uuid}/{table}/{COMMON_METADATA}") else [])
        self.table = choose_table(self.document, None, table, self.metadata_file, listed)
        self.root = f"{self.dataset_dir}/{self.table}"
        self.files = listed_files(self.document, self.uuid, self.table, self.metadata_file)
        self._sizes = self.keys.sizes(f"{self.uuid}/{self.table}")
        self._manifest = self._build()

    def _key(self, relpath):
        return f"{self.uuid}/{self.table}/{relpath}"

    def declared(self):
        key = self._key(COMMON_METADATA)
        data = self.keys.get(key)
        if data is None:
            raise DatasetIncomplete(f"{self.store}/{key} is missing: Kartothek keeps each "
                                    "table's schema there")
        return declared_types(io.BytesIO(data))

    def missing(self):
        return [f.relpath for f in self.files if self._key(f.relpath) not in self._sizes]

    def facts(self, f):
        key = self._key(f.relpath)
        size = self._sizes[key]
        source = RangeSource(self.keys.storage.fs, self.keys.path(key), size=size,
                             name=f"{self.store}/{key}")
        return read_facts(source, size=size), 0.0

    def metadata_mtime(self):
        return self.keys.storage.mtime(self.keys.path(self._metadata_name)) or 0.0

    @property
    def index_filesystem(self):
        return self.keys.storage.fs

    def index_file(self, relpath):
        """The object key of an index file (relative to the dataset's directory)."""
        check_relative_path(relpath, self.metadata_file, "index file", reserved=False)
        return self.keys.path(f"{self.uuid}/{relpath}")

    def index_exists(self, relpath):
        return self.keys.storage.exists(self.index_file(relpath))

    def resolve(self, entry):
        """(URL, size from the snapshot) of a listed file."""
        rel = check_relative_path(entry["path"], self.metadata_file, "file")
        url = f"{self._protocol}://{self.keys.path(self._key(rel))}"
        self._resolved[url] = int(entry["size"])
        return url, self._resolved[url]

    def open_file(self, path):
        """A ParquetFile of a resolved URL, its size known: no HEAD before the tail GET."""
        return ParquetFile(RangeSource(self.keys.storage.fs, path.split("://", 1)[1],
                                       size=self._resolved.get(path), name=path),
                           **self.file_keys)


__all__ = ["ObjectKartothekSource"]
