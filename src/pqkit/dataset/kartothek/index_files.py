"""Kartothek's secondary index files: ``<uuid>/indices/<col>/<ts>.by-dataset-index.parquet``.

One file per indexed column maps each value the column holds to the labels of
the partitions holding it: a Parquet file of two columns, ``<col>`` (the
column's type, one row per distinct non-null value, ascending) and
``partition`` (``list<string>``: the labels, sorted). A new version of the index
is a new file under a new timestamp (the metadata names the current one), so a
reader holding the previous metadata still finds the index it names.
"""
import datetime
import io
import urllib.parse

from pqkit import datatypes as T
from pqkit.convert import table_from_data
from pqkit.dataset.core import new_writer
from pqkit.dataset.kartothek.metadata import INDEX_SUFFIX
from pqkit.dataset.kartothek.source import KEYS_COLUMN
from pqkit.errors import ManifestCorrupted, ParquetError
from pqkit.read.file import read_table


def index_key(uuid, column, taken=()):
    """A fresh key for a new index file of ``column`` (the quoted UTC time; never one of
    ``taken``)."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    while True:
        stamp = urllib.parse.quote(now.isoformat(), safe="")
        key = (f"{uuid}/indices/{urllib.parse.quote(column, safe='')}/{stamp}"
               f"{INDEX_SUFFIX}")
        if key not in taken:
            return key
        now += datetime.timedelta(microseconds=1)


def encode_index(column, field_type, mapping):
    """The Parquet bytes of an index: ``mapping`` is value -> iterable of labels."""
    values = sorted(v for v, labels in mapping.items() if labels)
    table = table_from_data({column: values,
                             KEYS_COLUMN: [sorted(set(mapping[v])) for v in values]},
                            [T.Field(column, field_type),
                             T.Field(KEYS_COLUMN, T.list_(T.string()))])
    sink = io.BytesIO()
    writer = new_writer(sink, list(table.schema), {})
    writer.write(table)
    writer.close()
    return sink.getvalue()


def decode_index(data, column, where):
    """value -> set of labels of an index file's bytes."""
    try:
        table = read_table(io.BytesIO(data), columns=[column, KEYS_COLUMN])
    except ParquetError as exc:
        raise ManifestCorrupted(f"{where}: not an index file of {column!r}: {exc}") from None
    out = {}
    columns = table.to_pydict()
    for value, labels in zip(columns[column], columns[KEYS_COLUMN]):
        out.setdefault(value, set()).update(labels or ())
    return out


__all__ = ["decode_index", "encode_index", "index_key"]
