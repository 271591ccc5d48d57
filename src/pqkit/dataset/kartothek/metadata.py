"""Kartothek v4 dataset metadata: finding it in a store and checking its shape.

A Kartothek store is a directory that may hold several datasets. One dataset
``<uuid>`` is one metadata file beside a directory of the same name::

    <store>/<uuid>.by-dataset-metadata.json           (or .msgpack.zstd)
    <store>/<uuid>/<table>/_common_metadata            (schema of the table, partition columns included)
    <store>/<uuid>/<table>/<col>=<value>/<leaf>.parquet
    <store>/<uuid>/indices/<col>/<timestamp>.by-dataset-index.parquet

The metadata document (JSON, or msgpack compressed with zstd) is::

    {"dataset_metadata_version": 4,
     "dataset_uuid": "<uuid>",
     "partitions": {"k=1/4a5b": {"files": {"core": "<uuid>/core/k=1/4a5b.parquet",
                                            "aux": "<uuid>/aux/k=1/4a5b.parquet"}}, ...},
     "partition_keys": ["k"],                      (optional: else read from the first key)
     "indices": {"c": "<uuid>/indices/c/<ts>.by-dataset-index.parquet"},   (optional)
     "metadata": {...}}                            (optional)

A partition *label* is the ``col=value`` segments of its files plus the file's
leaf name without ``.parquet``; the keys and values in paths are URL-quoted
(everything but ``A-Za-z0-9_.-~`` as ``%XX`` of the UTF-8 bytes), and the value
is the text of the typed value (``2024-01-31`` for a date, ``True`` for a bool).
Every partition has one file per table. The listed partitions are the whole
dataset: other files in the store are not part of it.

An index value may also be embedded as ``{value: [labels]}`` instead of a key.
"""
import os

from pqkit.dataset.core import (
    anything,
    either,
    list_of,
    loads_finite,
    map_of,
    optional,
    record,
    relative_path_problem,
    rule,
    text,
    validate,
)
from pqkit.errors import (
    DatasetError,
    DatasetNotFound,
    ManifestCorrupted,
    UnsupportedFeature,
    require,
)

METADATA_INFIX = ".by-dataset-metadata"
FORMATS = (".json", ".msgpack.zstd")        # Kartothek tries JSON first, then msgpack
INDEX_SUFFIX = ".by-dataset-index.parquet"
COMMON_METADATA = "_common_metadata"
SUPPORTED_VERSION = 4
# A metadata file lists every partition; a cap keeps a hostile zstd frame bounded.
MAX_METADATA_BYTES = 1 << 30


# --- the document's schema, checked once where it is loaded -----------------------------------
# Besides the types, a table name must be one plain directory name: it becomes a directory
# under ``<store>/<uuid>/``, so ``..`` or a ``/`` in it would move the table's root out of
# the dataset.
def check_table_name(name):
    """ValueError unless ``name`` is one directory name that stays inside the dataset."""
    problem = relative_path_problem(name)
    if problem:
        raise ValueError(problem)
    if "/" in name:
        raise ValueError(f"table name {name!r} holds a '/'")


#: A partition: the key of its file for each table.
PARTITION = record(required={"files": map_of(text(), rule(check_table_name, "a table name"))},
                   other=anything())

#: A metadata document (JSON, or msgpack).
DOCUMENT = record(
    required={"dataset_metadata_version": anything(), "dataset_uuid": text(),
              "partitions": map_of(PARTITION)},
    optional={"partition_keys": optional(list_of(text())),
              "indices": optional(map_of(either("the key of an index file, or an embedded "
                                                "index", text(), map_of(anything())))),
              "metadata": optional(map_of(anything()))},
    other=anything())


def metadata_path(store, uuid):
    """(path, format) of dataset ``uuid``'s metadata file in ``store``, or None."""
    for suffix in FORMATS:
        path = os.path.join(store, uuid + METADATA_INFIX + suffix)
        if os.path.isfile(path):
            return path, suffix
    return None


def dataset_uuids(store):
    """Sorted uuids of the datasets whose metadata files lie directly in ``store``."""
    try:
        names = os.listdir(store)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return uuids_among(names)


def uuids_among(names):
    """Sorted uuids of the metadata files among the file names ``names``."""
    out = set()
    for name in names:
        for suffix in FORMATS:
            tail = METADATA_INFIX + suffix
            if name.endswith(tail) and len(name) > len(tail):
                out.add(name[:-len(tail)])
    return sorted(out)


def choose_uuid(store, uuid, found=None):
    """``uuid``, or the only dataset of ``store`` (whose uuids are ``found`` when given)
    when it is None."""
    if uuid is not None:
        return uuid
    found = dataset_uuids(store) if found is None else found
    if not found:
        raise DatasetNotFound(f"{store} holds no Kartothek dataset (no "
                              f"*{METADATA_INFIX}.json or .msgpack.zstd file)")
    if len(found) > 1:
        raise DatasetError(f"{store} holds {len(found)} Kartothek datasets "
                           f"({', '.join(found)}); name one with uuid=")
    return found[0]


def decode_document(data, suffix, where):
    """The metadata object of a file's bytes (JSON, or zstd-compressed msgpack)."""
    if suffix == ".json":
        try:
            return loads_finite(data)
        except ValueError as exc:
            raise ManifestCorrupted(f"{where}: not JSON: {exc}") from None
    msgpack = require("msgpack", "kartothek", f"{where}: reading msgpack metadata")
    import zstandard
    try:
        raw = zstandard.ZstdDecompressor().decompress(data, max_output_size=MAX_METADATA_BYTES)
    except zstandard.ZstdError as exc:
        raise ManifestCorrupted(f"{where}: not a zstd frame of at most "
                                f"{MAX_METADATA_BYTES} bytes: {exc}") from None
    try:
        return msgpack.unpackb(raw, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # TypeError: a map or array used as a map key (unhashable in Python)
        raise ManifestCorrupted(f"{where}: not msgpack: {exc}") from None


def read_document(store, uuid):
    """The checked metadata document of dataset ``uuid`` and the file it came from."""
    found = metadata_path(store, uuid)
    if found is None:
        raise DatasetNotFound(f"{store} has no {uuid}{METADATA_INFIX}.json or .msgpack.zstd")
    path, suffix = found
    with open(path, "rb") as f:
        data = f.read(MAX_METADATA_BYTES + 1)
    if len(data) > MAX_METADATA_BYTES:
        raise ManifestCorrupted(f"{path}: larger than {MAX_METADATA_BYTES} bytes")
    doc = decode_document(data, suffix, path)
    check_document(doc, uuid, path)
    return doc, path


def load_document(get, uuid, where):
    """(document, format suffix, file name) of dataset ``uuid``, read with ``get(name)``
    (the bytes of a file of the store, or None when it is missing) and checked; None
    when the store has no metadata file of ``uuid``. ``where`` names the store."""
    for suffix in FORMATS:
        name = uuid + METADATA_INFIX + suffix
        data = get(name)
        if data is None:
            continue
        if len(data) > MAX_METADATA_BYTES:
            raise ManifestCorrupted(f"{where}/{name}: larger than {MAX_METADATA_BYTES} bytes")
        doc = decode_document(data, suffix, f"{where}/{name}")
        check_document(doc, uuid, f"{where}/{name}")
        return doc, suffix, name
    return None


def check_document(doc, uuid, where):
    """ManifestCorrupted/UnsupportedFeature unless ``doc`` has the v4 shape (module doc)."""
    if not isinstance(doc, dict):
        raise ManifestCorrupted(f"{where}: the metadata is not a map")
    version = doc.get("dataset_metadata_version")
    if version != SUPPORTED_VERSION:
        raise UnsupportedFeature(f"{where}: dataset_metadata_version {version!r}; pqkit reads "
                                 f"Kartothek version {SUPPORTED_VERSION}")
    if doc.get("dataset_uuid") != uuid:
        raise ManifestCorrupted(f"{where}: dataset_uuid is {doc.get('dataset_uuid')!r}, the "
                                f"file name says {uuid!r}")
    partitions = doc.get("partitions")
    if not isinstance(partitions, dict):
        raise ManifestCorrupted(f"{where}: 'partitions' is missing or not a map (pqkit does not "
                                "list the store to guess them)")
    for label, part in partitions.items():
        files = part.get("files") if isinstance(part, dict) else None
        if not isinstance(label, str) or not isinstance(files, dict) or \
                not all(isinstance(t, str) and isinstance(k, str) for t, k in files.items()):
            raise ManifestCorrupted(f"{where}: partition {label!r} is not "
                                    "{'files': {table: key}}")
    for key in ("indices", "metadata"):
        if doc.get(key) is not None and not isinstance(doc[key], dict):
            raise ManifestCorrupted(f"{where}: {key!r} is not a map")
    keys = doc.get("partition_keys")
    if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str)
                                                                 for k in keys)):
        raise ManifestCorrupted(f"{where}: partition_keys {keys!r} is not a list of names")
    validate(doc, DOCUMENT, where)


def tables_of(doc, dataset_dir):
    """Table names of a dataset: those its partitions name, else the directories that
    hold a ``_common_metadata`` (a dataset without partitions)."""
    names = []
    for part in doc["partitions"].values():
        for table in part["files"]:
            if table not in names:
                names.append(table)
    if names:
        return names
    try:
        return sorted(d for d in os.listdir(dataset_dir)
                      if os.path.isfile(os.path.join(dataset_dir, d, COMMON_METADATA)))
    except FileNotFoundError:
        return []


def choose_table(doc, dataset_dir, table, where, tables=None):
    """``table``, or the only table of the dataset; ``tables`` (default: found by
    :func:`tables_of`) are the dataset's tables."""
    tables = tables_of(doc, dataset_dir) if tables is None else tables
    if table is None:
        if len(tables) == 1:
            return tables[0]
        raise DatasetError(f"{where}: the dataset has tables {tables}; choose one with table=")
    if table not in tables:
        raise DatasetError(f"{where}: no table {table!r}; the dataset has {tables}")
    return table


def locate(root):
    """(store, uuid, table) when ``root`` is a Kartothek store, dataset or table directory
    (uuid or table None when not implied by the path); None otherwise."""
    root = os.path.abspath(os.fspath(root))
    if dataset_uuids(root):
        return root, None, None
    parent, name = os.path.split(root)
    if name and metadata_path(parent, name) is not None:
        return parent, name, None
    grand, uuid = os.path.split(parent)
    if uuid and name and metadata_path(grand, uuid) is not None:
        return grand, uuid, name
    return None
