"""Adding rows to an existing Parquet file: ``pqkit.append``.

The old file's bytes stay where they are; the new row groups, their page
indexes and bloom filters and a new footer that lists the old and new row
groups go after the old footer, which the switch of
:mod:`pqkit.write.existing` makes the file's tail last (the crash guarantee is
stated there). The values are converted to the file's own types: those of its
``ARROW:schema`` entry when it has one, else those inferred from ``data``.
"""
from pqkit.columnar.table import Table
from pqkit.convert import table_from_data
from pqkit.schema.arrow_read import decode_arrow_schema
from pqkit.write.existing import finish_interrupted, read_existing
from pqkit.write.file import ParquetWriter

ARROW_KEY = "ARROW:schema"


def append(path, data, *, options=None, **settings):
    """Append ``data`` as new row groups to the Parquet file at ``path``.

    Parameters
    ----------
    path : str or os.PathLike
    data : pqkit.Table, dict of columns, pandas.DataFrame or Arrow PyCapsule producer
    options : pqkit.WriteOptions, optional
        How the new row groups are written (``compression``, ``row_group_size``, ...).
    **settings
        Fields of :class:`pqkit.WriteOptions` by name, as :func:`pqkit.write_table`.

    Returns
    -------
    int
        The number of rows the file holds afterwards.

    Raises
    ------
    SchemaError
        ``data``'s Parquet schema differs from the file's (named in the message).
    CorruptFileError
        The file has no readable footer (``pqkit.recover`` may help).
    """
    finish_interrupted(path)
    existing = read_existing(path)
    schema = _file_fields(existing)
    if schema is None:
        table = data if isinstance(data, Table) else table_from_data(data)
        schema = table.schema
    with ParquetWriter(path, schema, append=True, options=options, **settings) as writer:
        writer.write(data)
    return existing.meta.num_rows + writer.num_rows


def _file_fields(existing):
    for kv in existing.meta.key_value_metadata or []:
        if kv.key == ARROW_KEY and kv.value:
            return decode_arrow_schema(kv.value).fields
    return None


__all__ = ["append"]
