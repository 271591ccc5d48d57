"""CSV and JSON Lines <-> pqkit Tables and Parquet files, streaming with bounded memory.

The road from text to Parquet::

    bytes -> UTF-8 lines (numbered, byte offsets)  -> records (csv / json)
          -> column types (given, or inferred from the first records)
          -> per batch: values coerced per column -> pqkit columns -> Table
          -> ParquetWriter (one row group per row_group_size rows)

and back: ``ParquetFile.iter_batches`` -> Tables -> rendered values -> text.

>>> import io
>>> from pqkit import textio
>>> reader = textio.CsvReader(io.BytesIO(b"id,when\\n1,2024-01-02T03:04:05Z\\n2,\\n"))
>>> [str(f) for f in reader.fields]
['id: int64', 'when: timestamp[us, tz=UTC]']
>>> next(reader.batches()).to_pydict()["id"]
[1, 2]

Modules: :mod:`~pqkit.textio.readers` (CSV and JSON Lines readers),
:mod:`~pqkit.textio.infer` (type inference), :mod:`~pqkit.textio.values` (text
forms of each type), :mod:`~pqkit.textio.schema_spec` (the schema file and type
strings), :mod:`~pqkit.textio.render` and :mod:`~pqkit.textio.writers` (Tables
to text), :mod:`~pqkit.textio.pipeline` (:func:`convert`, used by
``pqinspect convert``).
"""
from pqkit.textio.errors import ConversionError, TextFormatError, TextValueError
from pqkit.textio.infer import infer_csv_fields, infer_json_fields
from pqkit.textio.pipeline import FORMATS, convert, format_of
from pqkit.textio.readers import CsvReader, JsonLinesReader
from pqkit.textio.render import csv_texts, json_values
from pqkit.textio.schema_spec import (
    load_schema,
    parse_type,
    schema_from_spec,
    schema_to_spec,
    type_to_string,
)
from pqkit.textio.writers import CsvWriter, JsonLinesWriter

__all__ = ["ConversionError", "TextFormatError", "TextValueError", "infer_csv_fields",
           "infer_json_fields", "FORMATS", "convert", "format_of", "CsvReader",
           "JsonLinesReader", "csv_texts", "json_values", "load_schema", "parse_type",
           "schema_from_spec", "schema_to_spec", "type_to_string", "CsvWriter",
           "JsonLinesWriter"]
