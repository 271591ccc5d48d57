"""Helpers of the readers matrix: the table pqkit writes, the writer options it is written
with, the four readers, and one comparable form of what each reader returns.

Every reader's result is turned into an Arrow table (DuckDB and polars return one;
fastparquet's pandas frame is converted column by column), and every column into
``(type tag, values)`` by :func:`canonical`: the tag names the kind of values
(``int``, ``ts_tz``, ``list<struct<a:int,b:str>>``, ...) and the values are plain Python
values of a single unit (timestamps, times and durations as int nanoseconds, floats
as ``float.hex`` so NaN and -0.0 compare, decimals normalized). Two readings agree when
both are equal: a timestamp read back as a plain int, a TIME WITH TIME ZONE or a
float instead of a decimal does not.
"""
import decimal
import io
import os
import pickle
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import pqkit
from arrow_bridge import from_arrow
from interop.test_read_pyarrow_files import TABLE as SHARED
from pqkit.columnar.table import Table

N = 120
RNG = np.random.default_rng(14)
_WIDE = decimal.Context(prec=60)


def _nulls(values, every=7, phase=3):
    return [None if i % every == phase else v for i, v in enumerate(values)]


def _ints(dtype):
    info = np.iinfo(dtype)
    arr = RNG.integers(info.min, info.max, N, dtype=dtype, endpoint=True)
    arr[:2] = [info.min, info.max]
    return pa.array(_nulls(arr.tolist()), pa.from_numpy_dtype(dtype))


def _floats(dtype):
    arr = RNG.standard_normal(N).astype(dtype)
    arr[:6] = [np.nan, -0.0, 0.0, np.inf, -np.inf, np.nan]
    return pa.array(_nulls(arr.tolist()), pa.from_numpy_dtype(dtype))


def _decimals(precision, scale):
    top = 10 ** min(precision, 18) - 1
    ints = RNG.integers(-top, top, N, endpoint=True).tolist()
    ints[:2] = [-(10 ** precision - 1), 10 ** precision - 1]
    return pa.array(_nulls([decimal.Decimal(v).scaleb(-scale, _WIDE) for v in ints]),
                    pa.decimal128(precision, scale))


def source_table():
    """The representative pyarrow table: every kind of column, each with nulls."""
    secs = RNG.integers(-2 * 10**9, 2 * 10**9, N)
    day = secs % 86400
    words = [f"w{i % 9}-{'é' * (i % 3)}" for i in range(N)]
    cols = {
        **{f"i{np.dtype(d).name}": _ints(d) for d in
           (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)},
        "f32": _floats(np.float32), "f64": _floats(np.float64),
        "bool": pa.array(_nulls((RNG.integers(0, 2, N) == 1).tolist())),
        "str": pa.array(_nulls(words)),
        "str_unique": pa.array(_nulls([f"row {i} " + "x" * (i % 80) for i in range(N)])),
        "bin": pa.array(_nulls([bytes(RNG.integers(0, 256, i % 9, dtype=np.uint8))
                                for i in range(N)]), pa.binary()),
        # A max of 0xFF bytes longer than the statistics limit: no short upper bound.
        "bin_ff": pa.array(_nulls([b"\xff" * 100 if i % 5 == 0 else bytes([i % 256]) * 70
                                   for i in range(N)]), pa.binary()),
        "fixed": pa.array(_nulls([bytes([i % 256] * 5) for i in range(N)]), pa.binary(5)),
        "dec4": _decimals(9, 2), "dec8": _decimals(18, 5), "dec16": _decimals(38, 10),
        "date": pa.array(_nulls((secs // 86400).tolist()), pa.int32()).cast(pa.date32()),
        "time_ms": pa.array(_nulls((day * 1000 + 7).tolist()), pa.time32("ms")),
        "time_us": pa.array(_nulls((day * 10**6 + 7).tolist()), pa.time64("us")),
        "time_ns": pa.array(_nulls((day * 10**9 + 7).tolist()), pa.time64("ns")),
        "ts_s": pa.array(_nulls(secs.tolist()), pa.timestamp("s")),
        "ts_ms": pa.array(_nulls((secs * 1000 + 1).tolist()), pa.timestamp("ms")),
        "ts_us": pa.array(_nulls((secs * 10**6 + 1).tolist()), pa.timestamp("us")),
        "ts_ns": pa.array(_nulls((secs * 10**9 + 1).tolist()), pa.timestamp("ns")),
        "ts_s_utc": pa.array(_nulls(secs.tolist()), pa.timestamp("s", "UTC")),
        "ts_ms_utc": pa.array(_nulls((secs * 1000 + 1).tolist()), pa.timestamp("ms", "UTC")),
        "ts_us_paris": pa.array(_nulls((secs * 10**6 + 1).tolist()),
                                pa.timestamp("us", "Europe/Paris")),
        "ts_ns_utc": pa.array(_nulls((secs * 10**9 + 1).tolist()), pa.timestamp("ns", "UTC")),
        "dur_s": pa.array(_nulls(secs.tolist()), pa.duration("s")),
        "dur_ms": pa.array(_nulls(secs.tolist()), pa.duration("ms")),
        "dur_us": pa.array(_nulls(secs.tolist()), pa.duration("us")),
        "dur_ns": pa.array(_nulls(secs.tolist()), pa.duration("ns")),
        "list": pa.array(_nulls([list(range(i % 5)) if i % 11 else [] for i in range(N)]),
                         pa.list_(pa.int64())),
        "list_str": pa.array(_nulls([[None if j == 2 else f"s{j}" for j in range(i % 4)]
                                     for i in range(N)]), pa.list_(pa.string())),
        "nested_list": pa.array(_nulls([[[j, None][: 1 + j % 2] for j in range(i % 3)]
                                        if i % 13 else [None] for i in range(N)]),
                                pa.list_(pa.list_(pa.int32()))),
        # the struct and map columns of the reader tests, cut to N rows
        "struct": SHARED["struct"].slice(0, N), "map": SHARED["map"].slice(0, N),
        "list_struct": pa.array(_nulls([[{"x": j, "y": None if j % 2 else "y"}
                                         for j in range(i % 3)] for i in range(N)]),
                                pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())]))),
        "all_null": pa.nulls(N, pa.int64()),
        "all_null_str": pa.nulls(N, pa.string()),
    }
    return pa.table(cols)


SOURCE = source_table()
FLAT = [f.name for f in SOURCE.schema if not pa.types.is_nested(f.type)]


def pqkit_table(table=SOURCE):
    """The same table as pqkit columns over the same buffers."""
    return Table([from_arrow(c.combine_chunks()) for c in table.columns], table.column_names)


# -- writer options ---------------------------------------------------------------------------
def _kinds(field):
    """Which explicit encodings apply to a flat column, by its Parquet physical type."""
    t = field.type
    if pa.types.is_boolean(t):
        return {"PLAIN", "RLE"}
    if pa.types.is_integer(t) or pa.types.is_temporal(t):
        return {"PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"}
    if pa.types.is_floating(t):
        return {"PLAIN", "BYTE_STREAM_SPLIT"}
    if pa.types.is_fixed_size_binary(t) or pa.types.is_decimal(t):
        return {"PLAIN", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"}
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return {"PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"}
    return set()


ENCODINGS = ["PLAIN", "RLE", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
             "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"]
CODECS = ["none", "snappy", "gzip", "zstd", "lz4", "brotli"]


def encoded_columns(encoding):
    return [f.name for f in SOURCE.schema
            if f.name in FLAT and encoding in _kinds(f) and not f.name.startswith("all_null")]


def variants():
    """{name: pqkit write_table options}: the matrix's rows."""
    out = {}
    for codec in CODECS:
        for version in ("1.0", "2.0"):
            for dictionary in (True, False):
                name = f"{codec}-v{version[0]}-{'dict' if dictionary else 'nodict'}"
                out[name] = {"compression": codec, "data_page_version": version,
                             "use_dictionary": dictionary}
    for encoding in ENCODINGS:
        for version in ("1.0", "2.0"):
            out[f"{encoding.lower()}-v{version[0]}"] = {
                "compression": "snappy", "data_page_version": version, "use_dictionary": False,
                "column_encoding": {c: encoding for c in encoded_columns(encoding)}}
    bloom = [c for c in FLAT if c != "bool"]
    out["bloom"] = {"compression": "zstd", "bloom_filter_columns": bloom}
    for version in ("1.0", "2.0"):
        out[f"tiny-pages-v{version[0]}"] = {"compression": "snappy", "data_page_size": 64,
                                            "data_page_version": version}
    out["no-statistics"] = {"compression": "snappy", "write_statistics": False}
    return out


def pyarrow_options(options):
    """The pyarrow ``write_table`` options of the twin written with ``options``."""
    out = {"compression": options.get("compression", "zstd"),
           "data_page_version": options.get("data_page_version", "1.0"),
           "use_dictionary": options.get("use_dictionary", True),
           "write_statistics": options.get("write_statistics", True),
           "write_page_index": True, "write_page_checksum": True}
    if "column_encoding" in options:
        out["column_encoding"] = options["column_encoding"]
        out["use_dictionary"] = False
    if "bloom_filter_columns" in options:
        out["bloom_filter_options"] = {c: {"ndv": N, "fpp": 0.01}
                                       for c in options["bloom_filter_columns"]}
    if "data_page_size" in options:
        out["data_page_size"] = options["data_page_size"]
        out["write_batch_size"] = 4
    return out


def write_pqkit(path, options):
    pqkit.write_table(pqkit_table(), path, **options)


def write_twin(path, options):
    pq.write_table(SOURCE, path, **pyarrow_options(options))


# -- readers ----------------------------------------------------------------------------------
def read_pyarrow(path, columns=None):
    return pq.read_table(path, columns=columns, page_checksum_verification=True)


def read_duckdb(path, columns=None):
    import duckdb
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        select = "*" if columns is None else ", ".join(f'"{c}"' for c in columns)
        return con.sql(f"SELECT {select} FROM read_parquet('{path}')").fetch_arrow_table()
    finally:
        con.close()


def read_polars(path, columns=None):
    import polars as pl
    return pl.read_parquet(path, columns=columns).to_arrow()


def read_fastparquet(path, columns=None):
    import fastparquet
    df = fastparquet.ParquetFile(str(path)).to_pandas(columns=columns)
    return {name: df[name] for name in df.columns}


READERS = {"pyarrow": read_pyarrow, "duckdb": read_duckdb, "polars": read_polars,
           "fastparquet": read_fastparquet}


def _as_arrow(column):
    """An Arrow array from a reader's column (pandas Series for fastparquet)."""
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        return column
    return pa.Array.from_pandas(column)


def read_columns(reader, path, names, whole_file=True):
    """{column: ("ok", canonical form) or ("error", message)} as ``reader`` reads ``path``.

    The whole file is read once; when that fails, each column is read by itself, so
    one column the reader cannot read does not hide the others.
    """
    read = READERS[reader]
    try:
        if not whole_file:
            raise LookupError("column by column")
        result = read(path)
        columns = {name: result[name] for name in names}
    except Exception:       # noqa: BLE001 -- any reader failure is a matrix cell
        columns = {}
        for name in names:
            try:
                columns[name] = read(path, [name])[name]
            except Exception as exc:     # noqa: BLE001
                columns[name] = exc
    out = {}
    for name, column in columns.items():
        if isinstance(column, Exception):
            out[name] = ("error", f"{type(column).__name__}: {str(column)[:200]}")
            continue
        try:
            out[name] = ("ok", canonical(_as_arrow(column)))
        except Exception as exc:         # noqa: BLE001 -- values no Arrow type holds
            out[name] = ("error", f"unconvertible: {type(exc).__name__}: {str(exc)[:200]}")
    return out


def read_in_children(reader, jobs):
    """{(path, column): cell} for ``jobs`` [(path, [column, ...])], each column read by
    itself in a child process, so that a reader that crashes (fastparquet dies of
    SIGSEGV on some DELTA_BINARY_PACKED INT64 pages) fails only its own cells. The
    child announces each cell before reading it; after a crash, a new child takes up
    the cells after the one it died on."""
    todo = [(str(path), name) for path, names in jobs for name in names]
    out = {}
    while todo:
        proc = subprocess.run(
            [sys.executable, __file__, reader], input=pickle.dumps(todo),
            capture_output=True, check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        stream = io.BytesIO(proc.stdout)
        started = None
        while True:
            try:
                kind, key, cell = pickle.load(stream)
            except EOFError:
                break
            if kind == "start":
                started = key
            else:
                out[key] = cell
        done = todo.index(started) + 1 if started is not None else 0
        if started is not None and started not in out:
            out[started] = ("error", (f"crash: the reader's process died "
                                     f"(exit status {proc.returncode})"))
        if proc.returncode != 0 and started is None:
            raise RuntimeError(f"reader child failed: {proc.stderr.decode()[-2000:]}")
        todo = todo[done:]
    return out


def _child(reader):
    """The child of :func:`read_in_children`: pickled (path, column) pairs on stdin, a
    pickled ("start", key, None) then ("cell", key, cell) for each on stdout."""
    todo = pickle.loads(sys.stdin.buffer.read())
    sink = sys.stdout.buffer
    for key in todo:
        pickle.dump(("start", key, None), sink)
        sink.flush()
        cell = read_columns(reader, key[0], [key[1]], whole_file=False)[key[1]]
        pickle.dump(("cell", key, cell), sink)
        sink.flush()


# -- one comparable form ----------------------------------------------------------------------
def _float(x):
    return None if x is None else float(x).hex()


def _decimal(x):
    if x is None:
        return None
    return x.normalize() if x else decimal.Decimal(0)


def _ints_of(arr, target):
    return arr.cast(target).cast(pa.int64()).to_pylist()


def canonical(arr):
    """(type tag, list of plain values) of an Arrow array; see the module docstring."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if isinstance(t, pa.ExtensionType):
        return canonical(arr.storage)
    if pa.types.is_dictionary(t):
        return canonical(arr.dictionary_decode())
    if pa.types.is_null(t):
        return "null", [None] * len(arr)
    if pa.types.is_boolean(t):
        return "bool", arr.to_pylist()
    if pa.types.is_integer(t):
        return "int", arr.to_pylist()
    if pa.types.is_floating(t):
        return "float", [_float(x) for x in arr.to_pylist()]
    if pa.types.is_decimal(t):
        return "decimal", [_decimal(x) for x in arr.to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "str", arr.to_pylist()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t) \
            or pa.types.is_fixed_size_binary(t):
        return "bytes", arr.to_pylist()
    if pa.types.is_date(t):
        return "date", _ints_of(arr.cast(pa.date32()), pa.int32())
    if pa.types.is_time(t):
        return "time", _ints_of(arr, pa.time64("ns"))
    if pa.types.is_timestamp(t):
        tag = "timestamp" if t.tz is None else "timestamp_tz"
        return tag, _ints_of(arr, pa.timestamp("ns", t.tz))
    if pa.types.is_duration(t):
        return "duration", _ints_of(arr, pa.duration("ns"))
    if pa.types.is_map(t):
        return _canonical_map(arr)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) \
            or pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return _canonical_list(arr)
    if pa.types.is_struct(t):
        return _canonical_struct(arr)
    raise TypeError(f"no canonical form for {t}")


def _split(values, arr):
    """Rows of a list-like ``arr`` from its flattened child values."""
    lengths = pc.list_value_length(arr).to_pylist()
    rows, pos = [], 0
    for n in lengths:
        if n is None:
            rows.append(None)
        else:
            rows.append(values[pos:pos + n])
            pos += n
    return rows


def _canonical_list(arr):
    tag, values = canonical(arr.flatten())
    return f"list<{tag}>", _split(values, arr)


def _canonical_map(arr):
    entries = pa.ListArray.from_arrays(arr.offsets, arr.values, mask=arr.is_null())
    tag, rows = _canonical_list(entries)
    return "map" + tag[len("list"):], rows


def _canonical_struct(arr):
    names = [arr.type.field(i).name for i in range(arr.type.num_fields)]
    children = [canonical(child) for child in arr.flatten()]
    tag = "struct<" + ",".join(f"{n}:{c[0]}" for n, c in zip(names, children)) + ">"
    valid = arr.is_valid().to_pylist()
    rows = [tuple(c[1][i] for c in children) if ok else None for i, ok in enumerate(valid)]
    return tag, rows


EXPECTED = {name: canonical(SOURCE[name]) for name in SOURCE.column_names}


def first_difference(got, expected=None, name=None):
    """A short description of how ``got`` (a read_columns cell) differs from ``expected``."""
    expected = EXPECTED[name] if expected is None else expected
    status, value = got
    if status == "error":
        return value
    if value[0] != expected[0]:
        return f"read as {value[0]}, written as {expected[0]}"
    if len(value[1]) != len(expected[1]):
        return f"{len(value[1])} rows, expected {len(expected[1])}"
    for i, (a, b) in enumerate(zip(value[1], expected[1])):
        if a != b:
            return f"row {i}: {str(a)[:80]} != {str(b)[:80]}"
    return None


if __name__ == "__main__":
    _child(sys.argv[1])
