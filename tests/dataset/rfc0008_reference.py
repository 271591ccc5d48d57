"""An RFC-0008 dataset writer and reader written from the RFC text alone (no pqkit).

RFC-0008 ("Parquet Dataset Storage Extension", remote-store) lays a dataset out as
``<key>/data.parquet`` (or ``part-00000.parquet``, ... when ``max_rows_per_file`` is
set), ``<key>/manifest.json`` and ``<key>/_SUCCESS``, written in that order. The
manifest is a JSON object with sorted keys and two-space indent::

    dataset_key     str        the dataset's key
    parts           [str]      relative file names
    row_count       int        rows over all parts
    schema_hash     str        SHA-256 of table.schema.to_string() (the reference
                               implementation keeps the first 16 hex digits)
    compression     str
    created_at_utc  str        ISO 8601
    run_id          str        optional, left out when None
    metadata        {str: str} optional, left out when None

Reading checks ``_SUCCESS`` (else incomplete), parses the manifest (required fields
and their types, else corrupted), checks every part exists before reading any, and
concatenates the parts. :func:`validate` also checks what a reader can recompute:
row counts, and the schema hash of the table each part was written from -- the Arrow
schema the writer stored in the file (``ARROW:schema``); pyarrow's read-back schema
is not it for nested columns (a list's child comes back named ``element``).
"""
import base64
import datetime
import hashlib
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

REQUIRED = {"dataset_key": str, "parts": list, "row_count": int, "schema_hash": str,
            "compression": str, "created_at_utc": str}


class Incomplete(Exception):
    pass


class Corrupted(Exception):
    pass


def schema_hash(schema, digits=64):
    return hashlib.sha256(schema.to_string().encode("utf-8")).hexdigest()[:digits]


def write(store, key, table, *, max_rows_per_file=None, compression="zstd", run_id=None,
          metadata=None, digits=64):
    root = os.path.join(store, *key.split("/"))
    os.makedirs(root, exist_ok=True)
    if max_rows_per_file:
        pieces = [table.slice(i, max_rows_per_file)
                  for i in range(0, max(table.num_rows, 1), max_rows_per_file)]
        names = [f"part-{i:05d}.parquet" for i in range(len(pieces))]
    else:
        pieces, names = [table], ["data.parquet"]
    for name, piece in zip(names, pieces):
        pq.write_table(piece, os.path.join(root, name), compression=compression)
    manifest = {"dataset_key": key, "parts": names, "row_count": table.num_rows,
                "schema_hash": schema_hash(table.schema, digits), "compression": compression,
                "created_at_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "run_id": run_id, "metadata": metadata}
    manifest = {k: v for k, v in manifest.items() if v is not None}
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, sort_keys=True, indent=2))
    open(os.path.join(root, "_SUCCESS"), "wb").close()
    return manifest


def read_manifest(store, key):
    path = os.path.join(store, *key.split("/"), "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError as exc:
        raise Corrupted(f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Corrupted("not an object")
    for field, kind in REQUIRED.items():
        if field not in data:
            raise Corrupted(f"missing {field}")
        if not isinstance(data[field], kind) or isinstance(data[field], bool):
            raise Corrupted(f"{field} is not {kind.__name__}")
    if not all(isinstance(p, str) for p in data["parts"]):
        raise Corrupted("parts must be list[str]")
    return data


def read(store, key, columns=None):
    root = os.path.join(store, *key.split("/"))
    if not os.path.exists(os.path.join(root, "_SUCCESS")):
        raise Incomplete("_SUCCESS marker missing")
    manifest = read_manifest(store, key)
    missing = [p for p in manifest["parts"] if not os.path.exists(os.path.join(root, p))]
    if missing:
        raise Incomplete(f"missing parts {missing}")
    return pa.concat_tables([pq.read_table(os.path.join(root, p), columns=columns)
                             for p in manifest["parts"]])


def written_schema(path):
    stored = (pq.ParquetFile(path).metadata.metadata or {}).get(b"ARROW:schema")
    if stored is None:
        return pq.read_schema(path)
    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(stored)))


def validate(store, key):
    """The manifest, after checking row counts and each part's schema hash."""
    root = os.path.join(store, *key.split("/"))
    manifest = read_manifest(store, key)
    rows = 0
    stated = manifest["schema_hash"]
    for part in manifest["parts"]:
        path = os.path.join(root, part)
        rows += pq.ParquetFile(path).metadata.num_rows
        if schema_hash(written_schema(path))[:len(stated)] != stated:
            raise Corrupted(f"part {part}: schema hash differs")
    if rows != manifest["row_count"]:
        raise Corrupted(f"row_count {manifest['row_count']} but the parts hold {rows}")
    return manifest
