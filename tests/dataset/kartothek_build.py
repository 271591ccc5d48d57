"""Kartothek v4 datasets built by hand from the Kartothek specification (test helper).

The ``kartothek`` package does not install on this Python 3.11: it requires
pyarrow < 7, which has no wheel here, and building pyarrow 6.0.1 from source
pins numpy 1.21.3, which has none either. So the layout is written here with
pyarrow, following the specification's storage layout and metadata attributes:

* ``<uuid>.by-dataset-metadata.json`` or ``.msgpack.zstd`` (msgpack, then zstd) with
  ``dataset_metadata_version`` 4, ``dataset_uuid``, ``partitions`` (label ->
  ``{"files": {table: key}}``), ``partition_keys``, ``indices`` (column -> key of
  the index file) and ``metadata``;
* ``<uuid>/<table>/_common_metadata``: an empty Parquet file with the table's full
  schema, partition columns included;
* ``<uuid>/<table>/<col>=<value>/.../<leaf>.parquet``: the data without the partition
  columns; column and value are URL-quoted text of the value (``str()``); the label
  is the quoted segments plus the leaf without ``.parquet``;
* ``<uuid>/indices/<col>/<quoted ISO timestamp>.by-dataset-index.parquet``: columns
  ``<col>`` (typed) and ``partition`` (list of labels holding the value).
"""
import datetime
import hashlib
import json
import os
import urllib.parse

import pyarrow as pa
import pyarrow.parquet as pq

UUID = "d3a1c0de-7b2f-4e55-9c1a-000000000042"
TABLES = ("core", "aux")
PARTITION_TYPES = [("p_int", pa.int64()), ("p_str", pa.string()), ("p_date", pa.date32())]
CORE_SCHEMA = [("c_id", pa.int64()), ("value", pa.float64()), ("name", pa.string())]
AUX_SCHEMA = [("c_id", pa.int64()), ("flag", pa.bool_())]
INDEX_COLUMN = "c_id"
# (p_int, p_str, p_date) of each partition; values need quoting in paths
PARTITIONS = [
    (1, "a b", datetime.date(2024, 1, 31)),
    (1, "x/y", datetime.date(2024, 2, 1)),
    (2, "é%", datetime.date(2024, 1, 31)),
    (3, "plain", datetime.date(2023, 12, 24)),
]


def quote(text):
    """Kartothek's quoting: every byte but ``A-Za-z0-9_.-~`` as ``%XX`` of UTF-8."""
    return urllib.parse.quote(str(text), safe="")


def _rows(i):
    """Deterministic rows of partition ``i``. The c_id values interleave across partitions
    (i, i+4, i+8), so per-file bounds cannot tell the partitions apart: only the index can."""
    ids = [i + 4 * k for k in range(3)]
    core = {"c_id": ids, "value": [i + k / 4 for k in range(3)],
            "name": [f"n{i}-{k}" for k in range(3)]}
    aux = {"c_id": ids, "flag": [k % 2 == 0 for k in range(3)]}
    return {"core": core, "aux": aux}


def build(store, fmt="json", *, uuid=UUID, stray=True, index=True,
          partition_types=PARTITION_TYPES, partitions=PARTITIONS):
    """Write the dataset into ``store``; returns a dict describing what was written.

    Returns
    -------
    dict
        ``labels`` (partition labels in order), ``files`` (table -> [path]),
        ``metadata_path``, ``index_path``, ``rows`` (table -> rows per label),
        ``partitions`` (the typed values of each label), ``partition_types``.
    """
    os.makedirs(store, exist_ok=True)
    schemas = {"core": CORE_SCHEMA, "aux": AUX_SCHEMA}
    listed, labels, files, rows = {}, [], {t: [] for t in TABLES}, {t: {} for t in TABLES}
    index_map = {}
    for i, values in enumerate(partitions):
        pairs = [f"{quote(name)}={quote(v)}" for (name, _), v in zip(partition_types, values)]
        leaf = f"{i:04d}" + "f" * 28
        label = "/".join(pairs + [leaf])
        labels.append(label)
        entry = {}
        data = _rows(i)
        for table in TABLES:
            key = f"{uuid}/{table}/{label}.parquet"
            path = os.path.join(store, *key.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            pq.write_table(pa.table(data[table], schema=pa.schema(schemas[table])), path)
            entry[table] = key
            files[table].append(path)
            rows[table][label] = data[table]
        listed[label] = {"files": entry}
        for v in data["core"][INDEX_COLUMN]:
            index_map.setdefault(v, []).append(label)
    for table in TABLES:
        full = pa.schema(schemas[table] + list(partition_types))
        os.makedirs(os.path.join(store, uuid, table), exist_ok=True)
        pq.write_metadata(full, os.path.join(store, uuid, table, "_common_metadata"))
    doc = {"dataset_metadata_version": 4, "dataset_uuid": uuid,
           "metadata": {"creator": "kartothek_build"},
           "partitions": listed, "partition_keys": [n for n, _ in partition_types]}
    index_path = None
    if index:
        stamp = quote(datetime.datetime(2024, 3, 1, 12, 0, 0, 123456).isoformat())
        key = f"{uuid}/indices/{INDEX_COLUMN}/{stamp}.by-dataset-index.parquet"
        index_path = os.path.join(store, *key.split("/"))
        os.makedirs(os.path.dirname(index_path), exist_ok=True)
        ordered = sorted(index_map)
        pq.write_table(pa.table({INDEX_COLUMN: pa.array(ordered, pa.int64()),
                                 "partition": pa.array([index_map[v] for v in ordered],
                                                       pa.list_(pa.string()))}), index_path)
        doc["indices"] = {INDEX_COLUMN: key}
    if stray:
        # Beside a listed file but in no partition: not part of the dataset.
        stray_path = os.path.join(os.path.dirname(files["core"][0]), "stray.parquet")
        pq.write_table(pa.table(_rows(99)["core"], schema=pa.schema(CORE_SCHEMA)), stray_path)
    metadata_path = os.path.join(store, f"{uuid}.by-dataset-metadata"
                                 + (".json" if fmt == "json" else ".msgpack.zstd"))
    with open(metadata_path, "wb") as f:
        f.write(encode(doc, fmt))
    return {"labels": labels, "files": files, "metadata_path": metadata_path,
            "index_path": index_path, "rows": rows, "index_map": index_map,
            "partitions": partitions, "partition_types": partition_types}


def encode(doc, fmt):
    if fmt == "json":
        return json.dumps(doc).encode("utf-8")
    import msgpack
    import zstandard
    return zstandard.ZstdCompressor(write_content_size=True).compress(msgpack.packb(doc))


def expected_rows(built, table, columns):
    """Row tuples of ``table``: pyarrow reading each listed file plus typed partitions."""
    out = []
    names = [n for n, _ in built["partition_types"]]
    for path, values in zip(built["files"][table], built["partitions"]):
        data = pq.read_table(path).to_pydict()
        parts = dict(zip(names, values))
        n = len(next(iter(data.values())))
        for r in range(n):
            row = {**{k: v[r] for k, v in data.items()}, **parts}
            out.append(tuple(row[c] for c in columns))
    return sorted(out, key=repr)


def tree_checksums(root):
    """relative path -> sha256 of every file under ``root`` (a directory snapshot)."""
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return out
