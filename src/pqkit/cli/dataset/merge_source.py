"""The source table of ``pqinspect dataset merge --from FILE``: Parquet, CSV or JSON Lines.

The format comes from ``--format`` or the file's suffix (as for ``pqinspect
convert``: .parquet/.pq/.parq, .csv/.tsv, .jsonl/.ndjson, text also compressed
as .gz, .bz2 or .xz). A text file's columns
are the ones its header (CSV) or first records (JSON Lines) name; each one the
dataset has is read with the dataset's type, so ``007`` stays the string a string
key holds and a date column is not guessed. Columns the dataset lacks keep their
inferred type, and merge rejects them by name.
"""
import bz2
import gzip
import lzma
import os

from pqkit.columnar.table import Table, concat_tables
from pqkit.convert import column_from_values
from pqkit.read.file import read_table
from pqkit.textio import CsvReader, JsonLinesReader, format_of

FORMATS = ("parquet", "csv", "jsonl")


def read_source(path, dataset_fields, fmt=None):
    """The rows of ``path`` as a pqkit Table.

    Parameters
    ----------
    path : str
    dataset_fields : list of Field
        The dataset's columns (partition columns included): they type the text columns.
    fmt : {"parquet", "csv", "jsonl"}, optional
        Default: from the suffix.

    Raises
    ------
    ConversionError
        The format is neither given nor told by the suffix.
    TextFormatError, TextValueError
        A text file is malformed or a value does not fit its column; the message names
        the line.
    """
    fmt = format_of(path, fmt)
    if fmt == "parquet":
        return read_table(path)
    reader = _TEXT[fmt]
    name = str(path).lower()
    ext = os.path.splitext(name)[1]
    opener = _OPENERS.get(ext, open)
    stem = name[:-len(ext)] if ext in _OPENERS else name
    options = {"delimiter": "\t"} if fmt == "csv" and stem.endswith(".tsv") else {}
    known = {f.name: f for f in dataset_fields}
    with opener(path, "rb") as f:
        schema = [known.get(g.name, g) for g in reader(f, **options).fields]
        f.seek(0)
        tables = list(reader(f, schema=schema, **options).batches())
    if not tables:
        return Table([column_from_values([], g.type) for g in schema], schema)
    return concat_tables(tables) if len(tables) > 1 else tables[0]


_TEXT = {"csv": CsvReader, "jsonl": JsonLinesReader}
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
