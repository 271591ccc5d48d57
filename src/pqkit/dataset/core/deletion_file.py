"""Deletion files (PQDS/1 reader feature ``deletion_vectors``): the rows of one data file
that a version deletes without rewriting the file.

A deletion file is a small Parquet file (named ``*.pqdel``, never ``*.parquet``, under
``_pqkit/deletions/``) with one required int64 column ``row``: the 0-based positions,
within its data file, of the deleted rows, sorted and unique, DELTA_BINARY_PACKED and
zstd-compressed (a run of consecutive positions takes a few bytes, 1 % of a file's rows
at random about one byte per position). Deletion files are immutable:
a later delete of more rows of the same data file writes a new deletion file holding the
union, and the version lists it in the data file's entry::

    {"key": "3b1f…-00000", "path": "part-00000-3b1f….parquet", "row_count": 1000, …,
     "deletions": {"path": "_pqkit/deletions/_3b1f…-00000-9c2e….pqdel", "rows": 3,
                   "size": 412}}

``row_count`` stays the file's own row count; the version's ``row_count`` counts the live
rows (``row_count - deletions.rows`` summed over the files). A version with a deletion
file declares the ``deletion_vectors`` reader and writer feature, so a pqkit without the
feature refuses to read it instead of returning the deleted rows.
"""
import io

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.table import Table
from pqkit.errors import ManifestCorrupted, ParquetError
from pqkit.read.file import ParquetFile
from pqkit.write.file import ParquetWriter

FEATURE = "deletion_vectors"
SUFFIX = ".pqdel"
_FIELD = T.Field("row", T.int64(), False)


def deletion_bytes(rows):
    """The deletion file of ``rows`` (sorted, unique positions) as bytes."""
    buf = io.BytesIO()
    with ParquetWriter(buf, [_FIELD], compression="zstd", use_dictionary=False,
                       column_encoding={"row": "DELTA_BINARY_PACKED"}) as w:
        w.write(Table([PrimitiveColumn(T.int64(), np.asarray(rows, np.int64))], [_FIELD]))
    return buf.getvalue()


def read_deletion_file(source, record, row_count, where):
    """The positions of deletion file ``source`` (path, bytes or file object) as a
    sorted int64 array, checked against its entry's ``record`` and the data file's
    ``row_count``; ManifestCorrupted when they disagree."""
    try:
        with ParquetFile(source) as pf:
            rows = np.asarray(pf.read(columns=["row"]).column("row").values, np.int64)
    except (ParquetError, KeyError, AttributeError) as exc:
        raise ManifestCorrupted(f"{where}: deletion file {record['path']} is unreadable: "
                                f"{exc}") from None
    if len(rows) != int(record["rows"]) or (len(rows) and (
            rows[0] < 0 or rows[-1] >= row_count or (np.diff(rows) <= 0).any())):
        raise ManifestCorrupted(f"{where}: deletion file {record['path']} holds {len(rows)} "
                                f"positions, the entry says {record['rows']} sorted unique "
                                f"ones below {row_count}")
    return rows


def deleted_count(entry):
    """The rows of a file entry its deletion file deletes (0 without one)."""
    record = entry.get("deletions")
    return int(record["rows"]) if record else 0


def live_rows(entry):
    """The rows of a file entry a reader sees."""
    return int(entry["row_count"]) - deleted_count(entry)
