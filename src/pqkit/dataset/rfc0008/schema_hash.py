"""RFC-0008's ``schema_hash``: SHA-256 of the Arrow schema's text form.

RFC-0008 (remote-store's Parquet dataset storage) defines ``schema_hash`` as
the SHA-256 hex digest of ``table.schema.to_string()``, the text Arrow prints
for a schema with its defaults (metadata shown, long values truncated); its
reference implementation keeps the first 16 hex digits. pqkit writes the
full digest, as the RFC text says, and accepts either on reading.

The text, one line per top-level field, a worked example::

    id: int64 not null
      -- field metadata --
      unit: 'cm'
    tags: list<item: string>
      child 0, item: string
    -- schema metadata --
    pandas: '{"index_columns": [{"kind": "range", "name": null, "start": 0, "' + 471

* a field is ``name: type``, `` not null`` when it is not nullable; type names are
  Arrow's (``int64``, ``large_string``, ``timestamp[us, tz=UTC]``,
  ``decimal128(18, 2)``, ``struct<a: int32, b: double not null>``, ...), which
  :class:`pqkit.Field` already prints;
* each child of a nested type follows on its own line, ``child i, <field>``,
  indented 2 spaces at the first level and 4 more per level below; a map has one
  child, ``entries: struct<key: K not null, value: V> not null``;
* key/value metadata prints as ``key: 'value'``; a value longer than
  ``70 - indent - len(key)`` characters is cut to that length and followed by
  ``' + <characters left>``.
"""
import hashlib

from pqkit import datatypes as T
from pqkit.read.file import ParquetFile
from pqkit.schema.arrow_read import decode_arrow_schema

METADATA_WIDTH = 70
ARROW_SCHEMA_KEY = "ARROW:schema"


def schema_text(fields, metadata=None):
    """Arrow's text form of a schema of ``fields`` with schema-level ``metadata``."""
    lines = []
    for f in fields:
        lines.append(str(f))
        _metadata_lines(lines, f.metadata, "  ", "-- field metadata --")
        _child_lines(lines, f.type, 1)
    _metadata_lines(lines, metadata, "", "-- schema metadata --")
    return "\n".join(lines)


def schema_hash(fields, metadata=None):
    """The full SHA-256 hex digest of :func:`schema_text` (RFC-0008's ``schema_hash``)."""
    return hashlib.sha256(schema_text(fields, metadata).encode("utf-8")).hexdigest()


def hash_matches(stated, computed):
    """Whether a manifest's ``schema_hash`` names ``computed``: the full digest or the
    16-digit prefix the RFC's reference implementation writes."""
    return isinstance(stated, str) and len(stated) in (16, 64) and \
        computed.startswith(stated.lower())


def _children(t):
    if isinstance(t, (T.ListType, T.FixedSizeListType)):
        return [t.value_field]
    if isinstance(t, T.StructType):
        return list(t.fields)
    if isinstance(t, T.MapType):
        return [T.Field("entries", T.struct([t.key_field, t.item_field]), False)]
    return []


def _child_lines(lines, t, depth):
    indent = " " * (2 + 4 * (depth - 1))
    for i, child in enumerate(_children(t)):
        lines.append(f"{indent}child {i}, {child}")
        _child_lines(lines, child.type, depth + 1)


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) \
        else str(value)


def _metadata_lines(lines, metadata, indent, title):
    if not metadata:
        return
    lines.append(indent + title)
    for key, value in metadata.items():
        key, value = _text(key), _text(value)
        room = METADATA_WIDTH - len(indent) - len(key)
        if len(value) > room:
            lines.append(f"{indent}{key}: '{value[:room]}' + {len(value) - room}")
        else:
            lines.append(f"{indent}{key}: '{value}'")


def file_schema_hash(path):
    """:func:`schema_hash` of the schema a Parquet file was written from.

    That is the ``ARROW:schema`` entry of its key/value metadata (Arrow writers
    store the table's schema there, metadata included), else the columns as pqkit
    reads them with the file's key/value metadata.
    """
    with ParquetFile(path, verify_checksums=False) as pf:
        pairs = [(e.key, e.value) for e in pf.metadata.raw.key_value_metadata or ()]
        stored = dict(pairs).get(ARROW_SCHEMA_KEY)
        if stored is not None:
            arrow = decode_arrow_schema(stored)
            return schema_hash(arrow.fields, arrow.metadata)
        fields = list(pf.read(row_groups=[]).schema)
    return schema_hash(fields, {k: v or "" for k, v in pairs})
