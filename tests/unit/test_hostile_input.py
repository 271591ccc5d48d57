"""Hostile inputs: each failure class of issues 19 and 31, from a hand-made file of a few
hundred bytes (or, for the bombs of issue 31, a few kilobytes).

The promise under test is "a result or a ParquetError, nothing else": no raw
Python exception, no hang and no allocation in step with a size the file merely
claims. Each file is written by pqkit and then broken by re-encoding its footer
or a page header with the Thrift codec. Inputs that could make a broken reader
allocate gigabytes are read in a child process under an address-space limit
(``RLIMIT_AS``), so that a regression fails the test instead of the machine.
"""
import decimal
import io
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.format import PageType

BIG = (1 << 31) - 1
# A child process may map at most this much more than it has mapped once pqkit is
# imported: reading a file of a few hundred bytes needs far less.
CHILD_EXTRA = 64 << 20


def _small_file(data, **options):
    out = io.BytesIO()
    pqkit.write_table(data, out, **{"compression": "none", "write_statistics": True,
                                    "store_schema": False, **options})
    return out.getvalue()


def _with_footer(data, edit):
    """``data`` with edit(FileMetaData) applied to its footer."""
    md = pqkit.read_metadata(data)
    edit(md.raw)
    footer = fmt.encode(md.raw)
    return data[:md.footer_offset] + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def _one_page_chunk(data, edit_header):
    """A file with one column of one data page, its page header re-encoded after
    edit_header(PageHeader) and the chunk's metadata moved to match."""
    md = pqkit.read_metadata(data)
    meta = md.row_group(0).thrift.columns[0].meta_data
    assert meta.dictionary_page_offset is None
    start = meta.data_page_offset
    header, used = fmt.decode(fmt.PageHeader, data, start, len(data) - start)
    assert header.type == PageType.DATA_PAGE
    payload = data[start + used:start + used + header.compressed_page_size]
    edit_header(header)
    new_header = fmt.encode(header)
    body = b"PAR1" + new_header + payload
    meta.data_page_offset = 4
    meta.total_compressed_size = len(new_header) + len(payload)
    md.raw.row_groups[0].columns[0].file_offset = 4
    footer = fmt.encode(md.raw)
    return body + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def _read_in_child(data, code, tmp_path):
    """Run ``code`` (with ``path`` bound to the file of ``data``) in a child process whose
    address space is capped; returns the JSON the child prints."""
    path = tmp_path / "hostile.parquet"
    path.write_bytes(data)
    script = textwrap.dedent(f"""
        import json, resource, sys
        import pqkit
        from pqkit.cli.main import main as pqinspect
        path = {str(path)!r}
        # The limit is taken after the imports, on what is mapped now.
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize"))
        limit = vm + {CHILD_EXTRA}
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            {textwrap.indent(code, ' ' * 12).strip()}
            print(json.dumps({{"error": None}}))
        except pqkit.ParquetError as exc:
            print(json.dumps({{"error": type(exc).__name__, "message": str(exc)}}))
        except MemoryError as exc:
            print(json.dumps({{"error": "MemoryError", "message": str(exc)}}))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- allocation before checking ----------------------------------------------------------

def _refused_in_child(bad, tmp_path, place, error="CorruptFileError",
                      read="pqkit.read_table(path)"):
    """Read ``bad`` under the address-space cap; the error must name ``place`` and 2**31-1."""
    assert len(bad) < 600
    got = _read_in_child(bad, read, tmp_path)
    assert got["error"] == error, got
    assert place in got["message"] and str(BIG) in got["message"], got["message"]
    return got["message"]


def test_huge_uncompressed_page_size_is_refused_without_allocating_it(tmp_path):
    data = _small_file({"x": np.arange(40, dtype=np.int64)}, compression="zstd",
                       use_dictionary=False)
    bad = _one_page_chunk(data, lambda h: setattr(h, "uncompressed_page_size", BIG))
    place = "page at offset 4 in column x, row group 0"
    message = _refused_in_child(bad, tmp_path, place, "AllocationLimitError")
    assert "exceed ReadOptions.max_page_size = 1073741824" in message
    assert "pqkit.ReadOptions(max_page_size=...)" in message
    # With the page limit raised, the read's budget refuses the claim (2 GiB from a
    # file of a few hundred bytes) ...
    message = _refused_in_child(bad, tmp_path, "column x, row group 0", "AllocationLimitError",
                                read=("pqkit.read_table(path, options=pqkit.ReadOptions("
                                      "max_page_size=1 << 31))"))
    assert "ReadOptions.budget_floor = 1073741824" in message
    # ... and with both raised, the codec finds the lie without allocating the claim.
    message = _refused_in_child(bad, tmp_path, place, read=(
        "pqkit.read_table(path, options=pqkit.ReadOptions(max_page_size=1 << 31, "
        "budget_floor=1 << 33))"))
    assert message.startswith("ZSTD: ")


def test_page_that_decompresses_past_its_declared_size_is_cut_and_reported():
    data = _small_file({"x": np.zeros(4000, dtype=np.int64)}, compression="zstd",
                       use_dictionary=False)
    bomb = _one_page_chunk(data, lambda h: setattr(h, "uncompressed_page_size", 1000))
    assert len(bomb) < 600           # 32,000 bytes of zeros compress to a few dozen
    with pytest.raises(pqkit.CorruptFileError,
                       match=r"ZSTD: .*more than 1000 bytes.*page at offset 4 in column x"):
        pqkit.read_table(bomb)


@pytest.mark.parametrize("options, limit, claim", [
    (pqkit.ReadOptions(max_dictionary_size=10), "max_dictionary_size", "decompressed bytes"),
    (pqkit.ReadOptions(max_page_size=10), "max_page_size", "decompressed bytes"),
    (pqkit.ReadOptions(max_chunk_bytes=1000), "max_chunk_bytes",
     "bytes of levels and values for 400 entries"),
])
def test_each_read_limit_names_itself(options, limit, claim):
    data = _small_file({"s": [None, "a", "bb", "a"] * 100})
    with pytest.raises(pqkit.AllocationLimitError,
                       match=rf"column s, row group 0: \d+ {claim} exceed "
                             rf"ReadOptions\.{limit} = \d+; read with "
                             rf"pqkit\.ReadOptions\({limit}=\.\.\.\)"):
        pqkit.read_table(data, options=options)
    assert pqkit.read_table(data).column("s").to_pylist()[:4] == [None, "a", "bb", "a"]


@pytest.mark.parametrize("data", [
    {"x": np.arange(20, dtype=np.int64)},      # required, PLAIN
    {"s": ["a", None, "b", "a"] * 10},         # optional, dictionary-encoded
], ids=["plain", "dictionary"])
def test_huge_num_values_is_refused_without_allocating_for_it(data, tmp_path):
    def edit(raw):
        raw.row_groups[0].columns[0].meta_data.num_values = BIG
    bad = _with_footer(_small_file(data, use_dictionary="s" in data), edit)
    _refused_in_child(bad, tmp_path, f"column {next(iter(data))}, row group 0")


# --- a hang in verify --------------------------------------------------------------------

def _flba_decimal(type_length):
    data = _small_file({"d": [decimal.Decimal("1.25"), decimal.Decimal("-3.50")]})
    md = pqkit.read_metadata(data)
    leaf = md.raw.schema[1]
    assert leaf.type == fmt.Type.FIXED_LEN_BYTE_ARRAY, leaf

    def edit(raw):
        raw.schema[1].type_length = type_length
    return _with_footer(data, edit)


def test_verify_deep_on_a_huge_decimal_width_returns(tmp_path):
    bad = _flba_decimal(BIG)
    assert len(bad) < 1000
    code = ("from pqkit.inspect.verify import verify_file\n"
            "report = verify_file(path, deep=True)\n"
            "print(json.dumps({'rules': sorted({f.rule for f in report.findings})}))")
    # Under the address-space cap: 2**(8*width-1) would need gigabytes.
    got = _read_in_child(bad, code, tmp_path)
    assert got["error"] is None, got
    path = tmp_path / "hostile.parquet"
    proc = subprocess.run([sys.executable, "-m", "pqkit.cli.main", "verify", "--deep",
                           "--json", str(path)], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 1, proc.stderr[-2000:]
    findings = json.loads(proc.stdout)["files"][0]["findings"]
    deep = [f for f in findings if f["rule"] == "PQ-DEEP-001"]
    assert len(deep) == 1
    # Two values of 2**31-1 bytes: refused on the page headers, before decoding.
    assert ("4294967298 bytes of levels and values for 2 entries exceed "
            "ReadOptions.max_chunk_bytes") in deep[0]["message"]


# --- raw Python exceptions ---------------------------------------------------------------

def test_chunk_without_data_page_offset():
    data = _small_file({"x": np.arange(10, dtype=np.int32)}, use_dictionary=False)

    def edit(raw):
        raw.row_groups[0].columns[0].meta_data.data_page_offset = None
    with pytest.raises(pqkit.CorruptFileError,
                       match=r"row_groups\[0\]\.columns\[0\]\.meta_data\.data_page_offset"):
        pqkit.read_table(_with_footer(data, edit))


def test_row_group_without_columns():
    data = _small_file({"x": np.arange(10, dtype=np.int32)})

    def edit(raw):
        raw.row_groups[0].columns = None
    with pytest.raises(pqkit.CorruptFileError, match=r"row_groups\[0\]\.columns"):
        pqkit.read_table(_with_footer(data, edit))


def test_statistics_of_a_decimal_with_a_huge_scale(tmp_path):
    data = _small_file({"d": [decimal.Decimal("1.25"), decimal.Decimal("-3.50")]})

    def edit(raw):
        raw.schema[1].scale = BIG
        if raw.schema[1].logicalType is not None:
            raw.schema[1].logicalType.DECIMAL.scale = BIG
    path = tmp_path / "scale.parquet"
    path.write_bytes(_with_footer(data, edit))
    proc = subprocess.run([sys.executable, "-m", "pqkit.cli.main", "pages", "--json",
                           str(path)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = json.loads(proc.stdout)["chunks"][0]["pages"][1]
    # 125 * 10**-(2**31 - 1), written with its first digit before the point.
    assert page["statistics"]["min"] == "-3.50E-2147483645"
    assert page["statistics"]["max"] == "1.25E-2147483645"


def test_fixed_len_byte_array_of_width_zero():
    bad = _flba_decimal(0)
    with pytest.raises(pqkit.CorruptFileError,
                       match=r"schema\[1\]\.type_length is 0: column 'd' is FIXED_LEN_BYTE"):
        pqkit.read_table(bad)
    with pytest.raises(pqkit.CorruptFileError, match=r"schema\[1\]\.type_length is 0"):
        pqkit.read_metadata(bad)


@pytest.mark.parametrize("edit, path, value", [
    (lambda c: setattr(c.meta_data, "num_values", -1),
     r"row_groups\[0\]\.columns\[1\]\.meta_data\.num_values", "is -1"),
    (lambda c: setattr(c.meta_data, "codec", None),
     r"row_groups\[0\]\.columns\[1\]\.meta_data\.codec", "is missing"),
    (lambda c: setattr(c, "meta_data", None),
     r"row_groups\[0\]\.columns\[1\]\.meta_data", "is missing"),
])
def test_chunk_metadata_is_checked_once_with_its_path(edit, path, value):
    data = _small_file({"x": np.arange(10, dtype=np.int32), "y": np.arange(10.0)})
    bad = _with_footer(data, lambda raw: edit(raw.row_groups[0].columns[1]))
    with pytest.raises(pqkit.CorruptFileError, match=path + " " + value):
        pqkit.read_table(bad)
    # Only the reading of the row group checks it: the footer still opens for inspection.
    assert pqkit.read_metadata(bad).num_rows == 10


def test_row_group_with_fewer_chunks_than_leaves():
    data = _small_file({"x": np.arange(10, dtype=np.int32), "y": np.arange(10.0)})

    def edit(raw):
        del raw.row_groups[0].columns[1]
    with pytest.raises(pqkit.CorruptFileError,
                       match=r"row_groups\[0\]\.columns holds 1 column chunks, the schema "
                             r"has 2 leaf columns"):
        pqkit.read_table(_with_footer(data, edit), columns=["x"])


@pytest.mark.parametrize("annotation", [
    fmt.LogicalType(INTEGER=fmt.IntType(bitWidth=64, isSigned=True)),
    fmt.LogicalType(DECIMAL=fmt.DecimalType(scale=2, precision=20))])
def test_int96_with_an_annotation_reads_as_timestamps(annotation):
    """A fuzzer's file: an INT96 column annotated INT(64) raised a raw AttributeError
    (the INT96 conversion wanted a timestamp unit). No annotation applies to INT96."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    out = io.BytesIO()
    pq.write_table(pa.table({"t": pa.array([0, 1], pa.timestamp("ns"))}), out,
                   use_deprecated_int96_timestamps=True, store_schema=False)
    good = out.getvalue()

    def annotate(md):
        md.schema[1].logicalType = annotation
    table = pqkit.read_table(_with_footer(good, annotate))
    assert str(table.column(0).type) == str(pqkit.read_table(good).column(0).type)
    assert table.to_pydict() == pqkit.read_table(good).to_pydict()


def test_integer_annotation_on_a_byte_array_is_refused():
    good = _small_file({"s": ["a", "b"]})

    def annotate(md):
        md.schema[1].logicalType = fmt.LogicalType(INTEGER=fmt.IntType(bitWidth=64,
                                                                        isSigned=True))
        md.schema[1].converted_type = None
    with pytest.raises(pqkit.SchemaError, match="cannot annotate BYTE_ARRAY"):
        pqkit.read_table(_with_footer(good, annotate))


# --- text that is not UTF-8 (issue 31, class 3) --------------------------------------------

BAD_TEXT = b"\xed\xa0\x80"          # an encoded surrogate: well-formed-looking, not UTF-8


def _text_file(data, annotation="STRING", **options):
    """A file of ``data`` (bytes values, any nesting) whose BYTE_ARRAY leaves are then
    annotated as text (``annotation``: STRING, JSON or ENUM), so that they hold bytes
    that are not UTF-8 the way a broken writer leaves them."""
    raw = _small_file(data, **options)

    def edit(md):
        for element in md.schema:
            if element.type == fmt.Type.BYTE_ARRAY:
                kind = getattr(fmt, {"STRING": "StringType", "JSON": "JsonType",
                                     "ENUM": "EnumType"}[annotation])
                element.logicalType = fmt.LogicalType(**{annotation: kind()})
                element.converted_type = getattr(fmt.ConvertedType,
                                                 "UTF8" if annotation == "STRING"
                                                 else annotation)
    return _with_footer(raw, edit)


def _flat_text(**options):
    rows = [None if i % 5 == 0 else f"v{i}".encode() for i in range(200)]
    rows[137] = b"ab" + BAD_TEXT
    return _text_file({"i": np.arange(200, dtype=np.int64), "s": rows}, **options)


TEXT_ROADS = {
    "read_table": lambda b: pqkit.read_table(b),
    "ParquetFile.read": lambda b: pqkit.ParquetFile(b).read(),
    "iter_batches": lambda b: list(pqkit.ParquetFile(b).iter_batches(batch_size=50)),
    "take": lambda b: pqkit.ParquetFile(b).take([3, 137, 150]),
    "filtered": lambda b: pqkit.read_table(b, filters=[("i", ">=", 130)]),
    "read_pandas": lambda b: pqkit.read_pandas(b),
}


@pytest.mark.parametrize("road", TEXT_ROADS)
@pytest.mark.parametrize("dictionary", [True, False], ids=["dictionary", "plain"])
def test_text_that_is_not_utf8_fails_every_road_naming_its_row(road, dictionary):
    data = _flat_text(use_dictionary=dictionary, data_page_size=64)
    with pytest.raises(pqkit.InvalidStringError,
                       match=r"column s, row group 0, row 137: b'ab\\xed\\xa0\\x80' is not "
                             r"valid UTF-8; read with pqkit\.ReadOptions\("
                             r"strings_as_binary=True\)"):
        TEXT_ROADS[road](data)


def test_a_take_of_other_pages_does_not_meet_the_bad_value():
    data = _flat_text(use_dictionary=False, data_page_size=64)
    got = pqkit.ParquetFile(data).take([1, 2, 199], columns=["s"])
    assert got.column("s").to_pylist() == ["v1", "v2", "v199"]


@pytest.mark.parametrize("shape", ["struct", "list", "map"])
def test_nested_text_that_is_not_utf8_is_refused(shape):
    rows = [[b"a", b"b"], [], [b"c", b"x" + BAD_TEXT]]
    data = {"struct": {"t": [{"s": b"a"}, {"s": None}, {"s": BAD_TEXT}]},
            "list": {"t": rows},
            "map": {"t": [[(b"k", 1)], [(b"k" + BAD_TEXT, 2)]]}}[shape]
    if shape == "map":
        from pqkit import datatypes as T
        from pqkit.convert import table_from_data
        bad = _text_file(table_from_data(data, [T.Field("t", T.map_(T.binary(),
                                                                    T.int64()))]))
        row = 1
    else:
        bad = _text_file(data)
        row = 2
    with pytest.raises(pqkit.InvalidStringError, match=rf", row group 0, row {row}: "):
        pqkit.read_table(bad)


@pytest.mark.parametrize("annotation", ["JSON", "ENUM"])
def test_json_and_enum_text_is_checked_too(annotation):
    bad = _text_file({"s": [b"{}", BAD_TEXT]}, annotation)
    with pytest.raises(pqkit.InvalidStringError, match="column s, row group 0, row 1"):
        pqkit.read_table(bad)


def test_a_bad_dictionary_value_no_row_read_uses_is_refused_saying_so():
    # Pages of a few rows each: taking row 0 decodes its page and the dictionary page,
    # which hands out the bad value too (a dictionary-typed read exports it).
    data = _text_file({"s": [b"a"] * 100 + [BAD_TEXT]}, data_page_size=64)
    with pytest.raises(pqkit.InvalidStringError,
                       match=r"column s, row group 0: dictionary value 1, "
                             r"b'\\xed\\xa0\\x80', is not valid UTF-8 \(no row read uses it\)"):
        pqkit.ParquetFile(data).take([0])


def test_strings_as_binary_reads_text_that_is_not_utf8_as_bytes():
    data = _flat_text(data_page_size=64)
    options = pqkit.ReadOptions(strings_as_binary=True)
    t = pqkit.read_table(data, options=options)
    assert str(t.schema[1].type) == "binary"
    assert t.column("s").to_pylist()[137] == b"ab" + BAD_TEXT
    f = pqkit.ParquetFile(data, options=options)
    assert f.take([137]).column("s").to_pylist() == [b"ab" + BAD_TEXT]
    assert [str(b.schema[1].type) for b in f.iter_batches(batch_size=100)] == ["binary"] * 2


def test_valid_text_reads_as_before_and_exports_valid_arrow():
    pa = pytest.importorskip("pyarrow")
    rows = ["é", "", None, "€uro", "\U0001F600", "ascii-only"] * 10
    data = _small_file({"s": rows})
    t = pqkit.read_table(data)
    assert t.column("s").to_pylist() == rows
    pa.table(t).validate(full=True)


# --- row counts that disagree (issue 31, class 7) ---------------------------------------

def _rows_file(edit, **options):
    data = _small_file({"x": np.arange(10, dtype=np.int64),
                        "s": [f"v{i}" for i in range(10)]}, **options)
    return _with_footer(data, edit)


def test_take_past_the_row_groups_rows_is_corrupt_not_an_index_error():
    def more_file_rows(md):
        md.num_rows = 20
    bad = _rows_file(more_file_rows)
    for rows in ([19], [0, 19], list(range(20))):
        with pytest.raises(pqkit.CorruptFileError,
                           match="the file declares 20 rows but its row groups hold 10: "
                                 "row 19 is in none"):
            pqkit.ParquetFile(bad).take(rows)
    assert pqkit.ParquetFile(bad).take([9]).column("x").to_pylist() == [9]


@pytest.mark.parametrize("declared", [5, 20])
@pytest.mark.parametrize("road", ["take_all", "filtered", "filtered_batches"])
def test_a_row_group_declaring_other_rows_than_its_columns_hold_is_corrupt(declared, road):
    """Without a page index, take of every row and filtered reads decode whole chunks;
    a row group whose num_rows disagrees with them raised IndexError or ValueError."""
    def rows(md):
        md.num_rows = declared
        md.row_groups[0].num_rows = declared
    bad = _rows_file(rows, write_page_index=False)
    read = {"take_all": lambda: pqkit.ParquetFile(bad).take(list(range(declared))),
            "filtered": lambda: pqkit.read_table(bad, filters=[("x", ">=", 3)]),
            "filtered_batches": lambda: list(pqkit.ParquetFile(bad).iter_batches(
                batch_size=3, filters=[("x", ">=", 3)]))}[road]
    with pytest.raises(pqkit.CorruptFileError,
                       match=f"row group 0 declares {declared} rows but column x holds 10"):
        read()


# --- a read's total allocation (issue 31, class 12) ----------------------------------------

def _varint(v):
    out = bytearray()
    while True:
        low, v = v & 0x7F, v >> 7
        out.append(low | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _dictionary_repeat_file(rows, size):
    """A few hundred bytes: a dictionary of one ``size``-byte string (zstd packs it into
    a few dozen) and one data page whose RLE runs define every row and repeat index 0
    ``rows`` times -- ``rows * size`` bytes of text once decoded."""
    from pqkit.compression import CompressionCodec, compress
    data = _small_file({"s": ["a" * size]}, compression="zstd", write_statistics=False,
                       write_page_index=False, write_checksums=False)
    md = pqkit.read_metadata(data)
    meta = md.raw.row_groups[0].columns[0].meta_data
    start = meta.data_page_offset
    header, _ = fmt.decode(fmt.PageHeader, data, start, len(data) - start)
    run = _varint(rows << 1)
    levels = run + b"\x01"
    body = len(levels).to_bytes(4, "little") + levels + b"\x01" + run + b"\x00"
    packed = bytes(compress(CompressionCodec.ZSTD, body))
    header.uncompressed_page_size, header.compressed_page_size = len(body), len(packed)
    header.data_page_header.num_values = rows
    chunk = data[:start] + fmt.encode(header) + packed
    meta.num_values = rows
    meta.total_compressed_size = meta.total_uncompressed_size = \
        len(chunk) - meta.dictionary_page_offset
    md.raw.num_rows = md.raw.row_groups[0].num_rows = rows
    footer = fmt.encode(md.raw)
    return chunk + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def _zstd_zeros(size, block=128 << 10):
    """A zstd frame of ``size`` zero bytes made of RLE blocks, 4 bytes per 128 KiB."""
    out = bytearray(b"\x28\xb5\x2f\xfd\xe0") + size.to_bytes(8, "little")
    left = size
    while left:
        n = min(block, left)
        left -= n
        out += ((n << 3) | (1 << 1) | (left == 0)).to_bytes(3, "little") + b"\x00"
    return bytes(out)


def _zstd_page_file(rows):
    """One required int64 column whose one zstd page holds ``rows`` zeros: a valid file
    of 8 * rows bytes of data in about rows / 4096 bytes."""
    from pqkit import datatypes as T
    from pqkit.convert import table_from_data
    table = table_from_data({"x": np.zeros(4, np.int64)},
                            [T.Field("x", T.int64(), nullable=False)])
    data = _small_file(table, compression="zstd", use_dictionary=False,
                       write_statistics=False, write_page_index=False, write_checksums=False)
    md = pqkit.read_metadata(data)
    meta = md.raw.row_groups[0].columns[0].meta_data
    start = meta.data_page_offset
    header, _ = fmt.decode(fmt.PageHeader, data, start, len(data) - start)
    packed = _zstd_zeros(rows * 8)
    header.uncompressed_page_size, header.compressed_page_size = rows * 8, len(packed)
    header.data_page_header.num_values = rows
    chunk = data[:start] + fmt.encode(header) + packed
    meta.num_values = rows
    meta.total_compressed_size, meta.total_uncompressed_size = len(chunk) - start, rows * 8
    md.raw.num_rows = md.raw.row_groups[0].num_rows = rows
    footer = fmt.encode(md.raw)
    return chunk + footer + len(footer).to_bytes(4, "little") + b"PAR1"


_BUDGET = (r"over its budget of 1073741824: the larger of ReadOptions\.budget_floor = "
           r"1073741824 and ReadOptions\.budget_ratio = 1000 times the \d+ bytes it read "
           r"from the file; read with pqkit\.ReadOptions\(budget_ratio=\.\.\.\)")


def test_small_copies_of_the_bombs_read_correctly():
    small = _dictionary_repeat_file(1000, 100)
    assert pqkit.read_pandas(small)["s"].tolist() == ["a" * 100] * 1000
    assert pqkit.ParquetFile(_zstd_page_file(5000)).take([4999]).column("x").to_pylist() == [0]


def test_a_dictionary_repeated_into_gigabytes_of_text_is_over_budget_for_read_pandas(tmp_path):
    import re
    bomb = _dictionary_repeat_file(200_000, 16384)        # 3.2 GB of text
    assert len(bomb) < 700
    # The Table holds each row by reference to the one value: reading it costs nothing.
    got = _read_in_child(bomb, "t = pqkit.read_table(path)\nassert t.num_rows == 200000",
                         tmp_path)
    assert got["error"] is None, got
    got = _read_in_child(bomb, "pqkit.read_pandas(path)", tmp_path)
    assert got["error"] == "AllocationLimitError", got
    assert re.search(r"^read_pandas: giving pandas 3276800000 bytes of text would bring "
                     r"what this read allocates to \d+ bytes, " + _BUDGET, got["message"])
    assert not issubclass(pqkit.AllocationLimitError, pqkit.CorruptFileError)


@pytest.mark.parametrize("read", ["pqkit.ParquetFile(path).take([0])",
                                  "pqkit.read_table(path)",
                                  "list(pqkit.ParquetFile(path).iter_batches())"])
def test_a_32_kib_page_of_1_gib_is_over_budget_before_it_is_decompressed(tmp_path, read):
    bomb = _zstd_page_file(1 << 27)                     # 1 GiB of int64 zeros
    assert len(bomb) < 33_000
    got = _read_in_child(bomb, read, tmp_path)
    assert got["error"] == "AllocationLimitError", got
    assert got["message"].startswith(
        "column x, row group 0: decompressing 1 pages (1073741824 bytes) and decoding "
        "134217728 entries (1073741824 bytes) would bring what this read allocates to "
        "2147483648 bytes, over its budget"), got["message"]


def _empty_pages_file(n_empty):
    """A required int64 chunk whose one page of 4 values follows ``n_empty`` data page
    headers of no value (17 bytes each, no body)."""
    from pqkit import datatypes as T
    from pqkit.convert import table_from_data
    table = table_from_data({"x": np.arange(4, dtype=np.int64)},
                            [T.Field("x", T.int64(), nullable=False)])
    data = _small_file(table, use_dictionary=False, write_statistics=False,
                       write_page_index=False, write_checksums=False)
    md = pqkit.read_metadata(data)
    meta = md.raw.row_groups[0].columns[0].meta_data
    start, end = meta.data_page_offset, meta.data_page_offset + meta.total_compressed_size
    empty = fmt.encode(fmt.PageHeader(
        type=PageType.DATA_PAGE, uncompressed_page_size=0, compressed_page_size=0,
        data_page_header=fmt.DataPageHeader(num_values=0, encoding=fmt.Encoding.PLAIN,
                                            definition_level_encoding=fmt.Encoding.RLE,
                                            repetition_level_encoding=fmt.Encoding.RLE)))
    meta.total_compressed_size += len(empty) * n_empty
    footer = fmt.encode(md.raw)
    return (data[:start] + empty * n_empty + data[start:end] + footer +
            len(footer).to_bytes(4, "little") + b"PAR1")


def test_a_chunk_of_200k_empty_pages_is_refused_without_walking_them():
    import time
    assert pqkit.read_table(_empty_pages_file(64)).column("x").to_pylist() == [0, 1, 2, 3]
    bomb = _empty_pages_file(200_000)                   # 3.4 MB of page headers
    started = time.perf_counter()
    for read in (lambda: pqkit.read_table(bomb), lambda: pqkit.ParquetFile(bomb).take([3])):
        with pytest.raises(pqkit.CorruptFileError,
                           match=r"column x, row group 0: 65 of the first 65 pages \(up to "
                                 r"offset \d+\) are data pages of no value, more than 64 "
                                 r"beyond the other pages"):
            read()
    assert time.perf_counter() - started < 5          # walking them all took 13 s
