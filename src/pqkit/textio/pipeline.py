"""One streaming conversion between CSV, JSON Lines and Parquet (any direction).

The input is read batch by batch (CSV/JSON Lines: ``batch_size`` records;
Parquet: one row group decoded at a time, sliced into batches) and each batch
is handed to the output writer before the next is read, so memory holds one
batch plus, for Parquet output, one row group (``row_group_size`` rows) -- never
the whole input. A file destination is written under a temporary name beside
it and renamed when complete, so a failed conversion leaves no partial file.

Formats come from the file names unless given: ``.csv``, ``.tsv`` (tab
delimiter), ``.jsonl``, ``.ndjson``, ``.parquet``, ``.pq``, ``.parq``; text
files may end in ``.gz``, ``.bz2`` or ``.xz`` to be (de)compressed on the fly.
"""
import bz2
import gzip
import lzma
import os
import time
import zlib
from contextlib import ExitStack
from functools import partial

from pqkit import datatypes as T
from pqkit.filesystems import file_size, is_url, open_binary, url_filesystem
from pqkit.read.file import ParquetFile
from pqkit.textio.errors import ConversionError, TextFormatError
from pqkit.textio.readers import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_INFER_ROWS,
    DEFAULT_MAX_LINE_BYTES,
    CsvReader,
    JsonLinesReader,
)
from pqkit.textio.schema_spec import load_schema, schema_from_spec, schema_to_spec
from pqkit.textio.writers import CsvWriter, JsonLinesWriter
from pqkit.write.file import ParquetWriter

FORMATS = ("csv", "jsonl", "parquet")
_EXTENSIONS = {".csv": "csv", ".tsv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
               ".parquet": "parquet", ".pq": "parquet", ".parq": "parquet"}
_CODECS = {".gz": lambda f, mode: gzip.GzipFile(fileobj=f, mode=mode), ".bz2": bz2.BZ2File,
           ".xz": lzma.LZMAFile}        # each: (binary file object, "rb" or "wb") -> stream


def _split_name(path):
    """(format or None, text codec suffix or None, is TSV) from a file name."""
    name = os.fspath(path).lower() if isinstance(path, (str, os.PathLike)) else ""
    root, ext = os.path.splitext(name)
    codec = ext if ext in _CODECS else None
    if codec:
        root, ext = os.path.splitext(root)
    return _EXTENSIONS.get(ext), codec, ext == ".tsv"


def format_of(path, given=None, role="input"):
    """The format ("csv", "jsonl" or "parquet") given, or else named by ``path``'s suffix."""
    if given is not None:
        if given not in FORMATS:
            raise ConversionError(f"unknown {role} format {given!r}: expected one of "
                                  f"{', '.join(FORMATS)}")
        return given
    fmt = _split_name(path)[0]
    if fmt is None:
        shown = os.fspath(path) if isinstance(path, (str, os.PathLike)) else "a stream"
        raise ConversionError(f"cannot tell the {role} format of {shown}: name it with a "
                              f".csv, .tsv, .jsonl, .ndjson or .parquet suffix, or give it")
    return fmt


class _Counting:
    """A binary sink that counts the bytes written through it."""

    def __init__(self, stream):
        self.stream, self.count = stream, 0

    def write(self, data):
        self.count += len(data)
        return self.stream.write(data)

    def flush(self):
        self.stream.flush()


class _Decompressing:
    """A compressed text input: corrupt or truncated data becomes a TextFormatError that
    names the offset in the compressed file."""

    def __init__(self, stream, raw, codec):
        self.stream, self.raw, self.codec = stream, raw, codec

    def readline(self, limit):
        try:
            return self.stream.readline(limit)
        except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            raise TextFormatError(f"unreadable {self.codec} data near compressed byte offset "
                                  f"{self.raw.tell()}: {exc}") from None


def _schema_fields(schema):
    if schema is None:
        return None
    if isinstance(schema, (str, os.PathLike)):
        return load_schema(schema)
    if isinstance(schema, dict) or (isinstance(schema, list) and schema
                                    and isinstance(schema[0], dict)):
        return schema_from_spec(schema)
    return [f if isinstance(f, T.Field) else T.field(*f) for f in schema]


def _plain(fields):
    """Fields with dictionary types replaced by their value types (text holds values)."""
    return [f.with_type(f.type.value_type) if isinstance(f.type, T.DictionaryType) else f
            for f in fields]


class _Input:
    """The opened input: ``fields``, ``batches()``, ``done()``/``total`` for progress."""

    def __init__(self, stack, source, fmt, options):
        self.fmt, self.row_groups, self.inferred = fmt, None, False
        codec = _split_name(source)[1]
        if isinstance(source, (str, os.PathLike)):
            raw = stack.enter_context(open_binary(os.fspath(source)))
            self.size = file_size(os.fspath(source))
        else:
            raw, self.size = source, None
        if fmt == "parquet":
            self._parquet(stack, raw, codec, options)
            return
        stream = raw
        if codec:
            stream = _Decompressing(stack.enter_context(_CODECS[codec](raw, "rb")), raw, codec)
        common = dict(schema=options["schema"], infer_rows=options["infer_rows"],
                      batch_size=options["batch_size"],
                      max_line_bytes=options["max_line_bytes"])
        if fmt == "csv":
            reader = CsvReader(stream, delimiter=options["delimiter"], header=options["header"],
                               null_text=options["null_text"], **common)
        else:
            reader = JsonLinesReader(stream, **common)
        self.fields, self.inferred, self.batches = reader.fields, reader.inferred, reader.batches
        self.total = self.size
        self.done = raw.tell if self.size is not None else (lambda: reader.bytes_read)

    def _parquet(self, stack, raw, codec, options):
        if codec or options["schema"] is not None:
            raise ConversionError("Parquet input takes neither a compression suffix nor a "
                                  "schema (its own schema is used)")
        if not raw.seekable():
            raise ConversionError("Parquet input must be a file (its footer is at the end), "
                                  "not a pipe")
        pf = stack.enter_context(ParquetFile(raw))
        self.fields = pf.read(row_groups=[]).schema
        self.row_groups = pf.num_row_groups
        self.total, rows = pf.num_rows, [0]
        self.done = lambda: rows[0]

        def batches():
            for table in pf.iter_batches(batch_size=options["batch_size"]):
                rows[0] += table.num_rows
                yield table
        self.batches = batches


def _open_output(stack, destination, fmt, fields, options):
    """(writer, byte-counting sink, the sink the writer writes to, commit function or None)
    for the destination."""
    codec = _split_name(destination)[1]
    if codec and fmt == "parquet":
        raise ConversionError("a Parquet output is compressed with --compression, not with a "
                              f"{codec} suffix")
    if is_url(destination):
        # the object appears only when committed: a failed conversion leaves no partial one
        fs, path = url_filesystem(destination)
        raw = fs.open(path, "wb", autocommit=False)
        stack.callback(_discard_object, raw)
        commit = partial(_commit_object, raw)
    elif isinstance(destination, (str, os.PathLike)):
        final = os.fspath(destination)
        temp = os.path.join(os.path.dirname(final) or ".",
                            f".{os.path.basename(final)}.{os.getpid()}.partial")
        raw = open(temp, "wb")
        stack.callback(_discard, raw, temp)
        commit = partial(_commit, raw, temp, final)
    else:
        raw, commit = destination, None
    counted = _Counting(raw)
    sink = stack.enter_context(_CODECS[codec](counted, "wb")) if codec else counted
    if fmt == "parquet":
        extra = {k: options[k] for k in ("row_group_size", "data_page_size")
                 if options[k] is not None}
        writer = ParquetWriter(sink, _plain(fields), compression=options["compression"], **extra)
    elif fmt == "csv":
        writer = CsvWriter(sink, fields, delimiter=options["delimiter"],
                           header=options["header"], null_text=options["null_text"])
    else:
        writer = JsonLinesWriter(sink, fields)
    return writer, counted, sink, commit


def _commit(raw, temp, final):
    raw.close()
    os.replace(temp, final)


def _commit_object(raw):
    raw.close()
    raw.commit()
    raw.pqkit_committed = True


def _discard_object(raw):
    """Exit path of a URL destination: the upload is dropped unless committed."""
    if not getattr(raw, "pqkit_committed", False):
        raw.discard()


def _discard(raw, temp):
    """Exit path of a file destination: remove the temporary file unless committed."""
    if not raw.closed:
        raw.close()
    if os.path.exists(temp):
        os.remove(temp)


def convert(source, destination, *, from_format=None, to_format=None, schema=None,
            infer_rows=DEFAULT_INFER_ROWS, batch_size=DEFAULT_BATCH_SIZE, delimiter=None,
            header=True, null_text="", compression="zstd", row_group_size=None,
            data_page_size=None, max_line_bytes=DEFAULT_MAX_LINE_BYTES, progress=None):
    """Convert between CSV, JSON Lines and Parquet, streaming (see the module docstring).

    Parameters
    ----------
    source, destination : path or binary file object
        A stream needs its format given (``from_format`` / ``to_format``). Parquet input
        needs a seekable file.
    from_format, to_format : {"csv", "jsonl", "parquet"}, optional
        Default: from the file names.
    schema : path of a schema file, its parsed JSON, or a list of pqkit Fields, optional
        The columns of a CSV or JSON Lines input (see :mod:`pqkit.textio.schema_spec`);
        inferred from the first ``infer_rows`` records when omitted.
    infer_rows : int, default 10_000
    batch_size : int, default 10_000
        Records (or Parquet rows) handed to the output at a time.
    delimiter : str, optional
        CSV field delimiter, for input and output; default "," ("\\t" for ``.tsv``).
    header : bool, default True
        CSV has a header line (input) / write one (output). Without one the columns are
        named by the schema, or ``f0``, ``f1``, ...
    null_text : str, default ""
        CSV text of a null. With a non-empty one, empty fields of string columns are
        empty strings (in other columns they are still null).
    compression : str, default "zstd"
        Parquet output codec ("none", "snappy", "gzip", "zstd", "lz4_raw", "brotli").
    row_group_size : int, optional
        Rows per Parquet row group (default: the writer's, 1,048,576).
    data_page_size : int, optional
        Target Parquet data page size in bytes (default 1 MiB).
    max_line_bytes : int, default 64 MiB
        Longest text line accepted (larger ones are an error, not an allocation).
    progress : callable(done, total), optional
        Called after each batch: bytes of input read and the input size (None when
        unknown), or rows and total rows for Parquet input.

    Returns
    -------
    dict
        ``input``, ``output``, ``from``, ``to``, ``rows``, ``row_groups`` (of the Parquet
        side: written, or read; None between text formats), ``input_bytes`` (the file's
        size, or the bytes read from a text stream), ``output_bytes``, ``seconds``,
        ``schema`` (in the schema-file form) and ``schema_inferred``.

    Raises
    ------
    TextFormatError, TextValueError, SchemaError, ConversionError, CorruptFileError
        Unusable input or options; the message names the line, byte offset and column.
    """
    started = time.perf_counter()
    src_fmt = format_of(source, from_format, "input")
    dst_fmt = format_of(destination, to_format, "output")
    if delimiter is None:
        delimiter = "\t" if _split_name(source)[2] or _split_name(destination)[2] else ","
    options = dict(schema=_schema_fields(schema), infer_rows=infer_rows, batch_size=batch_size,
                   max_line_bytes=max_line_bytes, delimiter=delimiter, header=header,
                   null_text=null_text, compression=compression,
                   row_group_size=row_group_size, data_page_size=data_page_size)
    rows = 0
    with ExitStack() as stack:
        src = _Input(stack, source, src_fmt, options)
        writer, counted, sink, commit = _open_output(stack, destination, dst_fmt, src.fields,
                                                     options)
        for table in src.batches():
            writer.write(table)
            rows += table.num_rows
            if progress is not None:
                progress(src.done(), src.total)
        writer.close()
        if sink is not counted:
            sink.close()
        counted.flush()
        row_groups = len(writer.row_groups) if dst_fmt == "parquet" else src.row_groups
        if commit is not None:
            commit()
    return {"input": _name(source), "output": _name(destination), "from": src_fmt,
            "to": dst_fmt, "rows": rows, "row_groups": row_groups,
            "input_bytes": src.size if src.size is not None or src_fmt == "parquet"
            else src.done(), "output_bytes": counted.count,
            "seconds": round(time.perf_counter() - started, 3),
            "schema": schema_to_spec(_plain(src.fields)), "schema_inferred": src.inferred}


def _name(where):
    return os.fspath(where) if isinstance(where, (str, os.PathLike)) else "<stream>"


__all__ = ["convert", "format_of", "FORMATS"]
