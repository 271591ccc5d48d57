"""The readers matrix: what pqkit writes, every reader reads.

pqkit writes one representative table (``readers_matrix.SOURCE``: integers of every
width, floats with NaN and -0.0, booleans, strings, binary, fixed-size binary,
decimals of 4/8/16 bytes, date, times, timestamps of each unit with and without a time
zone, durations, lists, nested lists, structs, maps, nulls in every column) under each
of its options (``readers_matrix.variants()``: every codec x v1/v2 pages x dictionary
on/off, each explicit encoding on v1 and v2 pages, bloom filters, tiny pages,
statistics off). pyarrow (page checksums verified), DuckDB, polars and fastparquet read
each file, and each column must equal what was written.

A column a reader gets wrong must be listed in LIMITATIONS, and then the same table
written by pyarrow with the same options (the twin) must fail in that reader too: the
reader cannot read it at all. A failure not listed, or listed while the twin reads
fine, fails the test; so does a listed limitation that no longer fails.
"""
import pytest
import readers_matrix as M

# One worker builds the matrix's files and reads them with every reader (about a
# minute); spread over two workers, each would build and read all of it.
pytestmark = [pytest.mark.interop, pytest.mark.xdist_group("readers_matrix")]

VARIANTS = M.variants()
NAMES = M.SOURCE.column_names

INTS = ("iint8", "iint16", "iint32", "iint64", "iuint8", "iuint16", "iuint32", "iuint64")
WIDE_INTS = ("iint32", "iint64", "iuint32", "iuint64")
NAIVE_TIMESTAMPS = ("ts_s", "ts_ms", "ts_us", "ts_ns")
ZONED_TIMESTAMPS = ("ts_s_utc", "ts_ms_utc", "ts_us_paris", "ts_ns_utc")
DURATIONS = ("dur_s", "dur_ms", "dur_us", "dur_ns")
TIMES = ("time_ms", "time_us", "time_ns")
DECIMALS = ("dec4", "dec8", "dec16")
BYTE_ARRAYS = ("str", "str_unique", "bin", "bin_ff")


def always(options):
    return True


def v2(options):
    return options.get("data_page_version") == "2.0"


def encoded(*encodings):
    """Variants whose explicit column encoding is one of ``encodings``."""
    def when(options):
        return any(e in encodings for e in options.get("column_encoding", {}).values())
    return when


def both(*whens):
    return lambda options: all(w(options) for w in whens)


def no_dictionary(options):
    return not options.get("use_dictionary", True)


def rle_booleans(options):
    """Booleans RLE-encoded: asked for, or by default on v2 pages."""
    asked = options.get("column_encoding", {}).get("bool")
    return asked == "RLE" or (asked is None and v2(options))


def named(*names):
    return lambda options: any(options == VARIANTS[n] for n in names)


# (reader, columns, variants it applies to, why the reader cannot read them). Each entry
# is checked: the pyarrow-written twin must fail in the same cells.
LIMITATIONS = [
    ("duckdb", DURATIONS, always,
     ("Parquet has no duration type; DuckDB reads the INT64 as BIGINT (only the "
     "ARROW:schema entry says duration, and DuckDB does not use it)")),
    ("duckdb", ("fixed",) + DECIMALS, encoded("BYTE_STREAM_SPLIT"),
     ("DuckDB reads BYTE_STREAM_SPLIT only for FLOAT, DOUBLE, INT32 and INT64, not "
     "FIXED_LEN_BYTE_ARRAY")),
    ("polars", ("fixed",) + DECIMALS, encoded("DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"),
     ("polars: 'Decoding FixedLenByteArray DeltaByteArray/ByteStreamSplit-encoded optional "
     "pages not yet supported'")),
    # fastparquet returns pandas frames: what pandas cannot hold, or fastparquet does not
    # restore without pandas metadata, differs whatever the encoding.
    ("fastparquet", ("date",), always, "DATE is read as datetime64[ns], not as dates"),
    ("fastparquet", DECIMALS, always, "decimals are read as float64"),
    ("fastparquet", DURATIONS, always,
     "Parquet has no duration type; the INT64 is read as int (ARROW:schema not used)"),
    ("fastparquet", ("f32", "f64"), always,
     "pandas float columns hold a null as NaN: null and NaN cannot be told apart"),
    ("fastparquet", ("fixed",), always,
     "FIXED_LEN_BYTE_ARRAY becomes a numpy bytes dtype, which drops trailing NUL bytes"),
    ("fastparquet", TIMES, always, "TIME is read as plain integers"),
    ("fastparquet", ZONED_TIMESTAMPS, always,
     ("isAdjustedToUTC timestamps come back naive (fastparquet takes time zones only from "
     "pandas metadata)")),
    ("fastparquet", ("struct", "list_struct", "map", "nested_list"), always,
     ("nested types beyond a list of primitives are not assembled: struct columns are "
     "missing, maps come back as dicts, lists of lists or structs as None")),
    ("fastparquet", ("list_str",), no_dictionary,
     "a list<string> column with PLAIN values is read as all None"),
    ("fastparquet", ("list",), both(v2, no_dictionary),
     "a list column on v2 pages with PLAIN values fails ('boolean index did not match')"),
    ("fastparquet", ("bool",), rle_booleans,
     ("RLE-encoded booleans with nulls are misread or fail ('cannot assign 120 input "
     "values to the 103 output values')")),
    ("fastparquet", INTS + ("bool", "list"), named("tiny-pages-v2"),
     ("several v2 data pages with nulls in one chunk fail ('operands could not be "
     "broadcast together')")),
    ("fastparquet", INTS + NAIVE_TIMESTAMPS, encoded("BYTE_STREAM_SPLIT"),
     "BYTE_STREAM_SPLIT is implemented for floats only ('NotImplementedError: Encoding 9')"),
    ("fastparquet", INTS + NAIVE_TIMESTAMPS, both(v2, encoded("DELTA_BINARY_PACKED")),
     "DELTA_BINARY_PACKED on v2 pages with nulls: 'null delta-int not implemented'"),
    ("fastparquet", WIDE_INTS + NAIVE_TIMESTAMPS, encoded("DELTA_BINARY_PACKED"),
     ("DELTA_BINARY_PACKED with deltas wider than 32 bits: wrong values, and a SIGSEGV for "
     "INT64 (run in a child process for that reason)")),
    ("fastparquet", BYTE_ARRAYS, encoded("DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"),
     "DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY are not implemented ('Encoding 6/7')"),
]


def expected_failures(reader, options):
    """{column: reasons} of the listed limitations of ``reader`` for a variant."""
    out = {}
    for who, columns, when, reason in LIMITATIONS:
        if who == reader and when(options):
            for c in columns:
                out.setdefault(c, []).append(reason)
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """{variant: (pqkit's file, pyarrow's twin)}."""
    root = tmp_path_factory.mktemp("readers_matrix")
    out = {}
    for name, options in VARIANTS.items():
        ours, twin = root / f"{name}.parquet", root / f"{name}.twin.parquet"
        M.write_pqkit(ours, options)
        M.write_twin(twin, options)
        out[name] = (ours, twin)
    return out


@pytest.fixture(scope="module")
def cells(files):
    """{(reader, path): {column: cell}}; fastparquet runs in child processes."""
    out = {}
    paths = [p for pair in files.values() for p in pair]
    for reader in ("pyarrow", "duckdb", "polars"):
        for path in paths:
            out[(reader, path)] = M.read_columns(reader, path, NAMES)
    fp = M.read_in_children("fastparquet", [(p, NAMES) for p in paths])
    for path in paths:
        out[("fastparquet", path)] = {c: fp[(str(path), c)] for c in NAMES}
    return out


@pytest.mark.parametrize("reader", list(M.READERS))
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_reader_reads_what_pqkit_wrote(variant, reader, files, cells):
    ours, twin = files[variant]
    got, twin_got = cells[(reader, ours)], cells[(reader, twin)]
    failing = {c: M.first_difference(got[c], name=c) for c in NAMES}
    failing = {c: d for c, d in failing.items() if d}
    listed = expected_failures(reader, VARIANTS[variant])
    problems = []
    for c, diff in failing.items():
        twin_diff = M.first_difference(twin_got[c], name=c)
        if twin_diff is None:
            problems.append(f"{c}: pqkit's defect, pyarrow's twin reads fine; ours: {diff}")
        elif c not in listed:
            problems.append(f"{c}: reader limitation not listed (twin fails too): {diff}")
    problems += [f"{c}: listed as a limitation ({listed[c][0][:60]}...) but reads fine"
                 for c in listed if c not in failing]
    assert problems == []


def test_matrix_covers_every_option():
    """The variants include every codec, both page versions, dictionary on and off,
    each explicit encoding, bloom filters, tiny pages and statistics off."""
    codecs = {o.get("compression") for o in VARIANTS.values()}
    assert codecs == set(M.CODECS)
    encodings = {e for o in VARIANTS.values() for e in o.get("column_encoding", {}).values()}
    assert encodings == set(M.ENCODINGS)
    assert all(M.encoded_columns(e) for e in M.ENCODINGS)
    assert any("bloom_filter_columns" in o for o in VARIANTS.values())
    assert any(o.get("data_page_size", 1 << 20) < 100 for o in VARIANTS.values())
    assert any(o.get("write_statistics") is False for o in VARIANTS.values())
    assert len(VARIANTS) == 40


@pytest.mark.parametrize("variant", ["snappy-v1-dict", "zstd-v2-nodict", "tiny-pages-v1"])
def test_statistics_and_page_index_wherever_pyarrow_has_them(variant, files):
    """Pruning works on our files wherever it works on pyarrow's: each chunk has min/max
    statistics and a column index where the twin has them (a byte-array max with no
    short upper bound, ``bin_ff``, included)."""
    import pyarrow.parquet as pq
    ours, twin = (pq.ParquetFile(p).metadata for p in files[variant])
    missing = []
    for i in range(ours.num_columns):
        a, b = ours.row_group(0).column(i), twin.row_group(0).column(i)
        if b.statistics is not None and b.statistics.has_min_max and \
                not (a.statistics is not None and a.statistics.has_min_max):
            missing.append(f"{a.path_in_schema}: statistics")
        if b.has_column_index and not a.has_column_index:
            missing.append(f"{a.path_in_schema}: column index")
    assert missing == []
    bin_ff = next(ours.row_group(0).column(i) for i in range(ours.num_columns)
                  if ours.row_group(0).column(i).path_in_schema == "bin_ff")
    assert bin_ff.statistics.max == b"\xff" * 100 and bin_ff.has_column_index
