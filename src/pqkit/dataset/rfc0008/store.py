"""RFC-0008's API, a thin front over pqkit's single-manifest layout.

RFC-0008 (remote-store's "Parquet Dataset Storage Extension") names the
operations on a store of datasets, each dataset a directory ``<key>/`` with its
parts, ``manifest.json`` and ``_SUCCESS``::

    store = ParquetDatasetStore("/data/lake", compression="zstd", max_rows_per_file=100_000)
    m = store.write_dataset(table, "silver/orders", run_id="dagster-abc123")
    store.dataset_exists("silver/orders")            # True: _SUCCESS is there
    store.read_dataset("silver/orders", columns=["id"])
    store.read_manifest("silver/orders").row_count
    store.delete_dataset("silver/orders")

The store is a local directory or a URL of any fsspec file system
(``s3://bucket/lake``, ``memory://lake``; ``storage_options`` configure it). On a
directory, writing goes through :func:`pqkit.dataset.rfc0008.writing.write` (parts,
then the manifest, then ``_SUCCESS``, under a lock, with crash repair); on a store
through :func:`pqkit.dataset.rfc0008.object_writing.write_to_store` (the same order,
one PUT at a time, without a lock: one writer per key). Reading requires
``_SUCCESS`` and checks every part on both. ``table`` may be any Arrow PyCapsule producer
(pyarrow, polars, DuckDB), a pandas DataFrame, a dict of columns or a
:class:`pqkit.Table`; reads return a :class:`pqkit.Table`, which pyarrow, polars and
pandas take without a copy.
"""
import dataclasses
import json
import os
import shutil

from pqkit.dataset.core import check_relative_path, loads_finite
from pqkit.dataset.pqds import open_snapshot
from pqkit.dataset.rfc0008 import writing
from pqkit.dataset.rfc0008.manifest import SUCCESS, RfcManifestSource, check_shape, manifest_path
from pqkit.dataset.rfc0008.object_source import ObjectRfcSource, StoreDataset
from pqkit.dataset.rfc0008.object_writing import delete_from_store, write_to_store
from pqkit.errors import AlreadyExists, DatasetError, DatasetNotFound, ManifestCorrupted
from pqkit.filesystems import is_url, url_filesystem

REQUIRED = ("dataset_key", "parts", "row_count", "schema_hash", "compression",
            "created_at_utc")
_TYPES = {"dataset_key": str, "schema_hash": str, "compression": str, "created_at_utc": str}


@dataclasses.dataclass(frozen=True)
class DatasetManifest:
    """RFC-0008's manifest record (pqkit's ``part_facts`` are not part of it)."""

    dataset_key: str
    parts: list
    row_count: int
    schema_hash: str
    compression: str
    created_at_utc: str
    run_id: str = None
    metadata: dict = None

    def to_json(self):
        """The RFC's serialisation: sorted keys, two-space indent, absent options left out."""
        data = {k: v for k, v in dataclasses.asdict(self).items() if v is not None}
        return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text, where="manifest"):
        """Parse a manifest; ManifestCorrupted names the field that is missing or mistyped."""
        try:
            data = loads_finite(text)
        except (TypeError, ValueError) as exc:
            raise ManifestCorrupted(f"{where}: not valid JSON: {exc}") from None
        return cls.from_dict(data, where)

    @classmethod
    def from_dict(cls, data, where="manifest"):
        if not isinstance(data, dict):
            raise ManifestCorrupted(f"{where}: a manifest is a JSON object")
        missing = [k for k in REQUIRED if k not in data]
        if missing:
            raise ManifestCorrupted(f"{where}: missing {', '.join(missing)}")
        for key, kind in _TYPES.items():
            if not isinstance(data[key], kind):
                raise ManifestCorrupted(f"{where}: {key} {data[key]!r} is not a string")
        if not isinstance(data["parts"], list) or \
                not all(isinstance(p, str) for p in data["parts"]):
            raise ManifestCorrupted(f"{where}: parts is not a list of file names")
        if not isinstance(data["row_count"], int) or isinstance(data["row_count"], bool):
            raise ManifestCorrupted(f"{where}: row_count {data['row_count']!r} is not an "
                                    "integer")
        check_shape(data, where)
        return cls(data["dataset_key"], list(data["parts"]), data["row_count"],
                   data["schema_hash"], data["compression"], data["created_at_utc"],
                   data.get("run_id"), data.get("metadata"))


class ParquetDatasetStore:
    """RFC-0008's ``ParquetDatasetStore`` over a local directory or an object store.

    Parameters
    ----------
    store : path or str
        The directory that holds the datasets (created on the first write), or a URL
        (``s3://bucket/lake``, ``memory://lake``).
    compression : str, default "zstd"
    row_group_size : int, optional
        Rows per row group (pqkit's default when None).
    max_rows_per_file : int, optional
        Split a write into ``part-NNNNN.parquet`` files of at most this many rows;
        None writes one ``data.parquet``.
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    """

    def __init__(self, store, *, compression="zstd", row_group_size=None,
                 max_rows_per_file=None, storage_options=None):
        self.remote = is_url(store)
        if self.remote:
            self.store = store.rstrip("/")
            self._fs = url_filesystem(self.store, storage_options)[0]
        else:
            self.store = os.path.abspath(os.fspath(store))
        self.compression = compression
        self.row_group_size = row_group_size
        self.max_rows_per_file = max_rows_per_file

    def _key(self, key):
        if not isinstance(key, str):
            raise DatasetError(f"dataset key {key!r} is not a string")
        check_relative_path(key.strip("/"), "dataset key", "key", error=DatasetError)
        return key.strip("/").split("/")

    def _root(self, key):
        return os.path.join(self.store, *self._key(key))

    def _where(self, key):
        """The :class:`StoreDataset` of ``key`` on an object store."""
        return StoreDataset("/".join([self.store, *self._key(key)]), fs=self._fs)

    def write_dataset(self, table, key, *, overwrite=False, run_id=None, metadata=None):
        """Write ``table`` as the dataset ``key``; returns its :class:`DatasetManifest`.

        Raises
        ------
        AlreadyExists
            The dataset exists (has ``_SUCCESS``) and ``overwrite`` is False.
        """
        if self.dataset_exists(key) and not overwrite:
            raise AlreadyExists(f"dataset {key!r} already exists in {self.store}; pass "
                                "overwrite=True to replace it")
        options = {"compression": self.compression}
        if self.row_group_size is not None:
            options["row_group_size"] = self.row_group_size
        common = dict(run_id=run_id, dataset_key=key, metadata=metadata,
                      max_rows_per_file=self.max_rows_per_file, **options)
        # A manifest without _SUCCESS is a crashed write: replaced like an existing one.
        if self.remote:
            where = self._where(key)
            mode = "overwrite" if where.manifest() is not None else "create"
            doc = write_to_store(where, table, mode=mode, **common)
        else:
            root = self._root(key)
            mode = "overwrite" if manifest_path(root) is not None else "create"
            doc = writing.write(root, table, mode=mode, **common)
        return DatasetManifest.from_dict(doc)

    def _source(self, key):
        if self.remote:
            return ObjectRfcSource(self._where(key).url, fs=self._fs)
        return RfcManifestSource(self._root(key), require_success=True)

    def read_dataset(self, key, *, columns=None):
        """The rows of dataset ``key`` (DatasetIncomplete without ``_SUCCESS`` or with a
        part missing; ManifestCorrupted when a part disagrees with the manifest)."""
        return open_snapshot(self._source(key)).read(columns=columns)

    def read_manifest(self, key):
        """The :class:`DatasetManifest` of ``key`` (DatasetNotFound without a manifest)."""
        if self.remote:
            where = self._where(key)
            found = where.manifest()
            if found is None:
                raise DatasetNotFound(f"dataset {key!r} has no manifest.json in {self.store}")
            return DatasetManifest.from_json(found[1], where.url_of(found[0]))
        path = manifest_path(self._root(key))
        if path is None:
            raise DatasetNotFound(f"dataset {key!r} has no manifest.json in {self.store}")
        with open(path, encoding="utf-8") as f:
            return DatasetManifest.from_json(f.read(), path)

    def dataset_exists(self, key):
        """Whether ``key`` holds a completed dataset (its ``_SUCCESS`` exists)."""
        if self.remote:
            return self._where(key).has_success()
        return os.path.isfile(os.path.join(self._root(key), SUCCESS))

    def delete_dataset(self, key):
        """Remove the directory of ``key`` with everything in it, ``_SUCCESS`` first on an
        object store (DatasetNotFound if none)."""
        if self.remote:
            delete_from_store(self._where(key))
            return
        root = self._root(key)
        if not os.path.isdir(root):
            raise DatasetNotFound(f"no dataset {key!r} in {self.store}")
        shutil.rmtree(root)


def dataset_exists(store, key, storage_options=None):
    """RFC-0008's ``dataset_exists`` as a function of a store directory or URL."""
    return ParquetDatasetStore(store, storage_options=storage_options).dataset_exists(key)


def delete_dataset(store, key, storage_options=None):
    """RFC-0008's ``delete_dataset`` as a function of a store directory or URL."""
    ParquetDatasetStore(store, storage_options=storage_options).delete_dataset(key)


__all__ = ["DatasetManifest", "ParquetDatasetStore", "dataset_exists", "delete_dataset"]
