"""Writer statistics (pqkit.write.stats) against pyarrow, parquet-rs, parquet-mr and the spec.

The main check writes values with pyarrow, reads its footer and page headers
with pqkit, and feeds the same values (in physical layout) page by page to a
StatisticsAccumulator: every Statistics field must match byte for byte, except
``nan_count`` (pyarrow does not write it; we do, as the spec's 2.13 wording and
parquet-mr 1.18 do) and where pyarrow does not follow the spec (no truncation
of long byte arrays, no statistics at all for INT96), which are tested
against the spec instead.
"""
import decimal
import io
import math
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit import format as fmt
from pqkit.format import ConvertedType as CT
from pqkit.format import Type
from pqkit.page import PageWalker
from pqkit.schema.tree import Schema
from pqkit.statistics import SIGNED, UNKNOWN, UNSIGNED, sort_order
from pqkit.write.stats import StatisticsAccumulator, column_order, truncate_max, truncate_min

D = decimal.Decimal


# -- helpers ----------------------------------------------------------------------------------
def make_node(physical, type_length=None, logical=None, converted=None):
    root = fmt.SchemaElement(name="root", num_children=1)
    leaf = fmt.SchemaElement(name="c", type=physical, type_length=type_length,
                             logicalType=logical, converted_type=converted,
                             repetition_type=fmt.FieldRepetitionType.OPTIONAL)
    return Schema([root, leaf]).columns[0]


def pyarrow_file(arr, **options):
    options.setdefault("use_dictionary", False)
    buf = io.BytesIO()
    pq.write_table(pa.table({"c": arr}), buf, row_group_size=1 << 30, **options)
    return buf.getvalue()


def footer_stats(data):
    md = pqkit.read_metadata(data)
    return md.schema.columns[0], md.raw.row_groups[0].columns[0].meta_data


def page_stats(data, meta):
    """[(num_values, Statistics)] of each data page of column 0, row group 0."""
    start = meta.dictionary_page_offset or meta.data_page_offset
    walker = PageWalker(data[start:start + meta.total_compressed_size], start, meta.num_values,
                        "c")
    out = []
    for page in walker:
        h = page.header.data_page_header or page.header.data_page_header_v2
        if h is not None:
            out.append((h.num_values, h.statistics))
    return out


def unscaled(arr):
    scale = arr.type.scale
    return [int(v.scaleb(scale)) for v in arr.to_pylist()]


def physical_values(arr, node):
    """The dense non-null values of a pyarrow array as the accumulator takes them."""
    arr = arr.drop_null()
    if isinstance(arr, pa.ExtensionArray):
        arr = arr.storage
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    p = node.physical_type
    if p == Type.BOOLEAN:
        return np.asarray(arr.to_numpy(zero_copy_only=False), bool)
    if p in (Type.FLOAT, Type.DOUBLE):
        return arr.to_numpy(zero_copy_only=False)
    if p in (Type.INT32, Type.INT64):
        dtype = np.int32 if p == Type.INT32 else np.int64
        if pa.types.is_decimal(arr.type):
            return np.array(unscaled(arr), np.int64).astype(dtype)
        if pa.types.is_temporal(arr.type):
            arr = arr.view(pa.int32() if arr.type.bit_width == 32 else pa.int64())
        # Unsigned values keep their bits: uint32 3e9 is stored as a negative int32.
        return arr.to_numpy().astype(dtype)
    if p == Type.FIXED_LEN_BYTE_ARRAY:
        width = node.element.type_length
        if pa.types.is_float16(arr.type):
            return arr.to_numpy().view(np.uint8).reshape(-1, 2)
        if pa.types.is_decimal(arr.type):
            raw = b"".join(v.to_bytes(width, "big", signed=True) for v in unscaled(arr))
        else:
            raw = arr.buffers()[1].to_pybytes()[arr.offset * width:(arr.offset + len(arr)) * width]
        return np.frombuffer(raw, np.uint8).reshape(-1, width)
    return byte_array(arr.cast(pa.large_binary()).to_pylist())


def byte_array(values):
    offsets = np.zeros(len(values) + 1, np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    return offsets, np.frombuffer(b"".join(values), np.uint8)


def accumulate(node, arr, page_rows=None, **kw):
    """(page statistics list, chunk statistics) for a pyarrow array split into pages."""
    acc = StatisticsAccumulator(node, **kw)
    page_rows = page_rows or [len(arr)]
    pages, pos = [], 0
    for n in page_rows:
        part = arr.slice(pos, n)
        pages.append(acc.page(physical_values(part, node), part.null_count))
        pos += n
    return pages, acc.chunk()


def without_nan_count(stats):
    return None if stats is None else fmt.Statistics(
        **{f: getattr(stats, f) for f in stats.FIELD_NAMES if f != "nan_count"})


def nan_count(arr):
    arr = arr.drop_null()
    if pa.types.is_floating(arr.type):
        return int(np.isnan(arr.to_numpy().astype(np.float64)).sum())
    return None


def read_back(data):
    """Column 0 as pyarrow reads it: Parquet's own units (seconds became milliseconds...)."""
    return pq.read_table(io.BytesIO(data)).column(0).combine_chunks()


def check_against_pyarrow(arr, **options):
    """Chunk and page statistics equal pyarrow's, one page and small pages."""
    options.setdefault("store_schema", False)
    for page_options in ({"data_page_size": 1 << 30}, {"max_rows_per_page": 3}):
        data = pyarrow_file(arr, **page_options, **options)
        node, meta = footer_stats(data)
        arr = read_back(data)
        theirs = page_stats(data, meta)
        assert len(theirs) == (1 if "data_page_size" in page_options else -(-len(arr) // 3))
        ours_pages, ours_chunk = accumulate(node, arr, [n for n, _ in theirs])
        assert without_nan_count(ours_chunk) == meta.statistics, (arr.type, page_options)
        for (_, their_page), our_page in zip(theirs, ours_pages):
            assert without_nan_count(our_page) == their_page, (arr.type, page_options)
        assert ours_chunk.nan_count == nan_count(arr)
        view = pq.read_metadata(io.BytesIO(data)).row_group(0).column(0).statistics
        has_min_max = ours_chunk.min_value is not None and ours_chunk.max_value is not None
        assert view.has_min_max == has_min_max
        assert view.null_count == ours_chunk.null_count == arr.null_count
        if has_min_max and isinstance(view.min_raw, bytes):
            assert (view.min_raw, view.max_raw) == (ours_chunk.min_value, ours_chunk.max_value)


# -- against pyarrow ----------------------------------------------------------------------------
NAN, INF = float("nan"), float("inf")

CASES = {
    "int8": pa.array([5, -128, None, 127, 0, -1, 3], pa.int8()),
    "int16": pa.array([None, -32768, 32767, 12, -7], pa.int16()),
    "int32": pa.array([2**31 - 1, None, -2**31, 0, 42, None, -5], pa.int32()),
    "int64": pa.array([2**63 - 1, -2**63, None, 0, 17, -17], pa.int64()),
    "uint8": pa.array([0, 255, None, 128, 7], pa.uint8()),
    "uint16": pa.array([65535, 1, None, 32768], pa.uint16()),
    "uint32": pa.array([2**32 - 1, 2**31, None, 1, 2**31 - 1, 0], pa.uint32()),
    "uint64": pa.array([2**64 - 1, 2**63, None, 5, 2**63 - 1, 3], pa.uint64()),
    "uint64_low": pa.array([3, None, 9, 2**62], pa.uint64()),
    "float32": pa.array([1.5, NAN, -0.0, None, 0.0, -3.25, INF], pa.float32()),
    "float64": pa.array([NAN, 2.0, -INF, None, 0.5, NAN, -0.0, 7.0], pa.float64()),
    "float64_nan_first_only_pos_zero": pa.array([NAN, 0.0, 0.0, None, 0.0], pa.float64()),
    "float64_neg_zero_only": pa.array([-0.0, None, -0.0, NAN], pa.float64()),
    "float64_all_nan": pa.array([NAN, None, NAN, NAN, NAN], pa.float64()),
    "float32_all_nan": pa.array([NAN, NAN, NAN, NAN], pa.float32()),
    "float64_negative_only": pa.array([-1.0, -INF, -2.5, None, -0.0], pa.float64()),
    "float16": pa.array(np.array([1.0, -0.0, NAN, 0.0, -2.5, 65504, NAN], np.float16),
                        pa.float16()),
    "float16_all_nan": pa.array(np.array([NAN, NAN, NAN, NAN], np.float16), pa.float16()),
    "float16_with_nulls": pa.array([None, np.float16(0.0), None, np.float16(-INF),
                                    np.float16(3.0)], pa.float16()),
    "string": pa.array(["b", "", None, "é", "a", "zz", "日本", "a\x00"]),
    "large_string": pa.array(["x", "xy", None, "w", "ÿ"], pa.large_string()),
    "string_64_bytes": pa.array(["a" * 64, "b" * 63 + "c", None, "é" * 32]),
    "binary": pa.array([b"\xff\xfe", b"", b"\x00", None, b"\xff", b"\xff\xff\xff", b"\x7f"]),
    "fixed_size_binary": pa.array([b"ab\xff", b"\xff\x00\x00", None, b"\x00\x00\x00",
                                   b"ab\xfe"], pa.binary(3)),
    "fixed_size_binary_16": pa.array([bytes(range(i, i + 16)) for i in (9, 0, 200, 3)] +
                                     [b"\x00" * 15 + b"\x01", None], pa.binary(16)),
    "decimal_p5": pa.array([D("-1.50"), D("2.25"), None, D("-300.00"), D("0.01")],
                           pa.decimal128(5, 2)),
    "decimal_p10": pa.array([D("-0.01"), D("-99999999.99"), None, D("12.00"), D("0")],
                            pa.decimal128(10, 2)),
    "decimal_p30_negative_only": pa.array([D("-1"), D("-2"), None, D("-10")] * 2,
                                          pa.decimal128(30, 0)),
    "decimal_p38": pa.array([D(10**37), D(-10**37), D(1), None, D(-1), D(0)],
                            pa.decimal128(38, 0)),
    "decimal256": pa.array([D(10**60), D(-3), None, D(-10**60), D(255)], pa.decimal256(70, 0)),
    "date32": pa.array([18262, -3653, None, 0, 19000], pa.date32()),
    "timestamp_s_utc": pa.array([-86400, 0, None, 1700000000], pa.timestamp("s", "UTC")),
    "timestamp_ms": pa.array([-1, 5, None, 2**40], pa.timestamp("ms")),
    "timestamp_us": pa.array([-2**50, 3, None, 2**50], pa.timestamp("us")),
    "timestamp_ns": pa.array([-2**62, 3, None, 2**62], pa.timestamp("ns")),
    "time32_ms": pa.array([1000, None, 0, 86399999], pa.time32("ms")),
    "time64_ns": pa.array([10**12, None, 0, 5], pa.time64("ns")),
    "duration_s": pa.array([-5, 3, None, 0], pa.duration("s")),
    "bool_mixed": pa.array([True, None, False, True]),
    "bool_true": pa.array([True, True, None]),
    "bool_false": pa.array([False, None, False]),
    "all_null_int64": pa.array([None, None, None], pa.int64()),
    "all_null_string": pa.array([None, None], pa.string()),
    "all_null_float": pa.array([None, None, None, None], pa.float64()),
    "all_null_bool": pa.array([None, None], pa.bool_()),
    "all_null_fixed": pa.array([None, None], pa.binary(4)),
    "empty_strings_only": pa.array(["", "", None]),
}
if hasattr(pa, "uuid"):
    CASES["uuid"] = pa.array([bytes([255] * 16), bytes(16), None, bytes(range(16))], pa.uuid())
if hasattr(pa, "json_"):
    CASES["json"] = pa.array(['{"b":1}', None, '{"a":2}', "[]"], pa.json_())


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pyarrow(name):
    check_against_pyarrow(CASES[name])


@pytest.mark.parametrize("name", ["decimal_p10", "decimal_p5"])
def test_decimal_stored_as_integer_matches_pyarrow(name):
    check_against_pyarrow(CASES[name], store_decimal_as_integer=True)


def test_dictionary_encoded_strings_match_pyarrow():
    arr = pa.array(["q", "b", None, "q", "a", "ζ", "b"] * 3)
    for page_options in ({}, {"max_rows_per_page": 4}):
        data = pyarrow_file(arr, use_dictionary=True, **page_options)
        node, meta = footer_stats(data)
        theirs = page_stats(data, meta)
        ours_pages, ours_chunk = accumulate(node, arr, [n for n, _ in theirs])
        assert ours_chunk == meta.statistics
        assert ours_pages == [s for _, s in theirs]


def test_deprecated_min_max_follow_arrow_for_signed_orders():
    """Arrow C++ fills min/max for every SIGNED order, FLBA decimals and FLOAT16 included
    (the case table above asserts the bytes); never for unsigned or byte-wise orders."""
    for name, expect in [("int64", True), ("float16", True), ("decimal_p10", True),
                         ("bool_mixed", True), ("uint32", False), ("string", False),
                         ("fixed_size_binary", False)]:
        node, meta = footer_stats(pyarrow_file(CASES[name]))
        _, ours = accumulate(node, CASES[name])
        assert (ours.min is not None) == (meta.statistics.min is not None) == expect, name


def test_int96_has_null_count_only():
    """INT96 has no defined order (PARQUET-840): no bounds. pyarrow writes no Statistics at
    all; the spec asks writers for null_count always, so we keep that."""
    arr = pa.array([0, None, 86400 * 10**9, -1], pa.timestamp("ns"))
    data = pyarrow_file(arr, use_deprecated_int96_timestamps=True)
    node, meta = footer_stats(data)
    assert node.physical_type == Type.INT96 and meta.statistics is None
    acc = StatisticsAccumulator(node)
    rows = np.zeros((3, 12), np.uint8)
    assert acc.page(rows, 1) == fmt.Statistics(null_count=1)
    assert acc.chunk() == fmt.Statistics(null_count=1)


def test_null_type_column_has_null_count_only():
    data = pyarrow_file(pa.array([None, None, None], pa.null()))
    node, meta = footer_stats(data)
    assert meta.statistics is None and sort_order(node) == UNKNOWN
    acc = StatisticsAccumulator(node)
    acc.page(np.zeros(0, np.int32), 3)
    assert acc.chunk() == fmt.Statistics(null_count=3)


def test_long_strings_are_truncated_where_pyarrow_keeps_them_whole():
    """Arrow C++ never truncates (it drops a bound above 4 KiB instead); the spec (2.10,
    PARQUET-2352) allows truncated row-group bounds and parquet-java truncates the page index at
    64 bytes, so we truncate at ``truncate_length`` and flag the bounds inexact."""
    lo_value = "a" * 63 + "é" + "tail"         # byte 64 would split "é"
    hi_value = "m" * 70
    arr = pa.array([hi_value, None, lo_value, "b" * 64])
    node, meta = footer_stats(pyarrow_file(arr))
    assert (meta.statistics.min_value, meta.statistics.max_value) == \
        (lo_value.encode(), hi_value.encode())
    _, ours = accumulate(node, arr)
    assert ours.min_value == b"a" * 63 and ours.is_min_value_exact is False
    assert ours.max_value == b"m" * 63 + b"n" and ours.is_max_value_exact is False
    assert ours.min_value <= meta.statistics.min_value
    assert ours.max_value > meta.statistics.max_value
    assert ours.null_count == meta.statistics.null_count == 1


def test_long_binary_max_all_0xff_is_kept_whole_and_exact():
    """No short upper bound exists for 100 bytes of 0xFF: the max is written whole, as
    pyarrow does, so that the chunk keeps a max and a column index (pruning)."""
    arr = pa.array([b"\xff" * 100, b"\x00" * 80, b"\x10"])
    node, meta = footer_stats(pyarrow_file(arr))
    pages, ours = accumulate(node, arr)
    assert ours.min_value == b"\x00" * 64 and ours.is_min_value_exact is False
    assert ours.max_value == b"\xff" * 100 and ours.is_max_value_exact is True
    assert pages[0].max_value == b"\xff" * 100 and pages[0].is_max_value_exact is True
    assert meta.statistics.max_value == b"\xff" * 100       # pyarrow: whole
    text = pa.array(["\U0010ffff" * 30, "a"])
    node, _ = footer_stats(pyarrow_file(text))
    _, ours = accumulate(node, text)
    assert (ours.max_value, ours.is_max_value_exact) == (("\U0010ffff" * 30).encode(), True)


def test_untruncatable_max_keeps_column_index():
    """The file as a whole: the chunk has its exact max and a column index, which
    pyarrow reads back, and pqinspect verify finds nothing to complain about."""
    from pqkit.inspect.verify import INFO, verify_file
    buf = io.BytesIO()
    values = [b"\xff" * 100, None, b"\x01" * 70]
    pqkit.write_table({"c": pa.array(values).to_pylist()}, buf, compression="none")
    data = buf.getvalue()
    chunk = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    assert chunk.statistics.max == b"\xff" * 100 and chunk.has_column_index
    ci = pqkit.read_metadata(data).raw.row_groups[0].columns[0]
    assert ci.column_index_offset is not None
    assert [f.rule for f in verify_file(data, deep=True).findings if f.severity != INFO] == []


# -- against other writers' files in the parquet-testing corpus ---------------------------------
def corpus_file(corpus, name):
    data = (corpus / "data" / name).read_bytes()
    return pqkit.read_metadata(data), pq.read_table(io.BytesIO(data))


def test_parquet_rs_truncated_min_max(corpus):
    """parquet-rs 55.1.0 wrote these with a 2-byte truncation length. Where it cannot round the
    max up (every prefix byte 0xFF, or a 4-byte character in 2 bytes) it keeps the whole value,
    as Arrow C++ and we do."""
    md, table = corpus_file(corpus, "binary_truncated_min_max.parquet")
    for i, node in enumerate(md.schema.columns):
        theirs = md.raw.row_groups[0].columns[i].meta_data.statistics
        acc = StatisticsAccumulator(node, truncate_length=2)
        arr = table.column(i).combine_chunks()
        acc.page(physical_values(arr, node), arr.null_count)
        ours = acc.chunk()
        if node.name.endswith("partial_truncation"):
            assert theirs.is_max_value_exact and len(theirs.max_value) > 2
        assert ours == theirs, node.name


@pytest.mark.parametrize("name", ["float16_zeros_and_nans.parquet",
                                  "float16_nonzeros_and_nans.parquet"])
def test_arrow_float16_files(corpus, name):
    """Arrow 15 wrote these without exactness flags; the bounds must agree."""
    md, table = corpus_file(corpus, name)
    node = md.schema.columns[0]
    theirs = md.raw.row_groups[0].columns[0].meta_data.statistics
    arr = table.column(0).combine_chunks()
    acc = StatisticsAccumulator(node)
    acc.page(physical_values(arr, node), arr.null_count)
    ours = acc.chunk()
    for field in ("min", "max", "min_value", "max_value", "null_count"):
        assert getattr(ours, field) == getattr(theirs, field), field


def decoded(node, raw):
    dtype = {Type.FLOAT: "<f4", Type.DOUBLE: "<f8"}.get(node.physical_type, "<f2")
    return float(np.frombuffer(raw, dtype)[0])


def test_parquet_mr_type_order_nan_counts(corpus):
    """parquet-mr 1.18 writes nan_count under TYPE_ORDER too (2.13 rules): all-NaN row groups
    keep only the counts, zero bounds are normalized to -0.0 / +0.0. For a row group mixing NaN
    and numbers parquet-mr drops the bounds altogether (its older, conservative PARQUET-1246
    rule); the spec and Arrow C++ bound the non-NaN values, and so do we."""
    md, table = corpus_file(corpus, "floating_orders_nan_count.parquet")
    rows = 0
    for g, group in enumerate(md.raw.row_groups):
        for i, node in enumerate(md.schema.columns):
            if not node.name.endswith("_typedef"):
                continue
            theirs = group.columns[i].meta_data.statistics
            arr = table.column(i).slice(rows, group.num_rows).combine_chunks()
            acc = StatisticsAccumulator(node)
            acc.page(physical_values(arr, node), arr.null_count)
            ours = acc.chunk()
            fields = ["null_count", "nan_count"]
            if 0 < theirs.nan_count < group.num_rows:
                assert theirs.min_value is None
                finite = [v for v in arr.to_pylist() if not math.isnan(v)]
                assert decoded(node, ours.min_value) == min(finite)
                assert decoded(node, ours.max_value) == max(finite)
            else:
                fields += ["min", "max", "min_value", "max_value"]
            for field in fields:
                assert getattr(ours, field) == getattr(theirs, field), (g, node.name, field)
        rows += group.num_rows


# -- sort orders ----------------------------------------------------------------------------------
LT = fmt.LogicalType
SORT_ORDERS = [
    (make_node(Type.BOOLEAN), SIGNED),
    (make_node(Type.INT32), SIGNED),
    (make_node(Type.INT64), SIGNED),
    (make_node(Type.FLOAT), SIGNED),
    (make_node(Type.DOUBLE), SIGNED),
    (make_node(Type.INT96), UNKNOWN),
    (make_node(Type.BYTE_ARRAY), UNSIGNED),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 4), UNSIGNED),
    (make_node(Type.INT32, converted=CT.INT_8), SIGNED),
    (make_node(Type.INT32, converted=CT.UINT_8), UNSIGNED),
    (make_node(Type.INT64, converted=CT.UINT_64), UNSIGNED),
    (make_node(Type.INT32, converted=CT.DATE), SIGNED),
    (make_node(Type.INT64, converted=CT.TIMESTAMP_MICROS), SIGNED),
    (make_node(Type.INT32, converted=CT.DECIMAL), SIGNED),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 5, converted=CT.DECIMAL), SIGNED),
    (make_node(Type.BYTE_ARRAY, converted=CT.DECIMAL), SIGNED),
    (make_node(Type.BYTE_ARRAY, converted=CT.UTF8), UNSIGNED),
    (make_node(Type.BYTE_ARRAY, converted=CT.BSON), UNSIGNED),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 12, converted=CT.INTERVAL), UNKNOWN),
    (make_node(Type.BYTE_ARRAY, converted=CT.INT_32), UNKNOWN),
    (make_node(Type.INT32, logical=LT(INTEGER=fmt.IntType(bitWidth=16, isSigned=False)),
               converted=CT.UINT_16), UNSIGNED),
    (make_node(Type.INT32, logical=LT(INTEGER=fmt.IntType(bitWidth=32, isSigned=True)),
               converted=CT.UINT_32), SIGNED),        # the LogicalType wins
    (make_node(Type.BYTE_ARRAY, logical=LT(STRING=fmt.StringType())), UNSIGNED),
    (make_node(Type.BYTE_ARRAY, logical=LT(ENUM=fmt.EnumType())), UNSIGNED),
    (make_node(Type.BYTE_ARRAY, logical=LT(JSON=fmt.JsonType())), UNSIGNED),
    (make_node(Type.BYTE_ARRAY, logical=LT(BSON=fmt.BsonType())), UNSIGNED),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 16, logical=LT(UUID=fmt.UUIDType())), UNSIGNED),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 2, logical=LT(FLOAT16=fmt.Float16Type())), SIGNED),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 4, logical=LT(FLOAT16=fmt.Float16Type())), UNKNOWN),
    (make_node(Type.FIXED_LEN_BYTE_ARRAY, 9,
               logical=LT(DECIMAL=fmt.DecimalType(scale=2, precision=20))), SIGNED),
    (make_node(Type.INT32, logical=LT(DATE=fmt.DateType())), SIGNED),
    (make_node(Type.INT64, logical=LT(TIMESTAMP=fmt.TimestampType(
        isAdjustedToUTC=True, unit=fmt.TimeUnit(NANOS=fmt.NanoSeconds())))), SIGNED),
    (make_node(Type.INT32, logical=LT(UNKNOWN=fmt.NullType())), UNKNOWN),
    (make_node(Type.BYTE_ARRAY, logical=LT(GEOMETRY=fmt.GeometryType())), UNKNOWN),
    (make_node(Type.BYTE_ARRAY, logical=LT()), UNKNOWN),          # a member we do not know
]


@pytest.mark.parametrize("node,expected", SORT_ORDERS,
                         ids=[f"{n.type_str()}-{n.annotation_str()}" for n, _ in SORT_ORDERS])
def test_sort_order(node, expected):
    assert sort_order(node) == expected
    assert column_order(node) == fmt.ColumnOrder(TYPE_ORDER=fmt.TypeDefinedOrder())


def test_unknown_order_never_writes_bounds():
    node = make_node(Type.FIXED_LEN_BYTE_ARRAY, 12, converted=CT.INTERVAL)
    acc = StatisticsAccumulator(node)
    assert acc.page(np.arange(24, dtype=np.uint8).reshape(2, 12), 0) == \
        fmt.Statistics(null_count=0)


# -- named edge cases -----------------------------------------------------------------------------
def test_chunk_folds_pages_and_skips_empty_ones():
    acc = StatisticsAccumulator(make_node(Type.INT64))
    acc.page(np.array([5, 9], np.int64), 1)
    assert acc.page(np.zeros(0, np.int64), 4) == fmt.Statistics(null_count=4)
    acc.page(np.array([-3], np.int64), 0)
    chunk = acc.chunk()
    assert chunk.null_count == 5 and chunk.distinct_count is None
    assert struct.unpack("<q", chunk.min_value)[0] == -3
    assert struct.unpack("<q", chunk.max_value)[0] == 9
    assert acc.chunk() == chunk                 # chunk() does not consume state


def test_zero_bounds_across_pages():
    """A page holding +0.0 and another holding -0.0: the chunk min is -0.0, the max +0.0."""
    acc = StatisticsAccumulator(make_node(Type.FLOAT))
    acc.page(np.array([0.0], np.float32), 0)
    acc.page(np.array([-0.0, np.nan], np.float32), 0)
    chunk = acc.chunk()
    assert chunk.min_value == struct.pack("<f", -0.0)
    assert chunk.max_value == struct.pack("<f", 0.0)
    assert chunk.nan_count == 1


def test_text_truncation_keeps_utf8():
    node = make_node(Type.BYTE_ARRAY, logical=LT(STRING=fmt.StringType()))
    acc = StatisticsAccumulator(node, truncate_length=4)
    st = acc.page(byte_array(["日本語".encode()]), 0)
    assert st.min_value.decode() == "日" and st.max_value.decode() == "旦"
    # U+D7FF + 1 would be a surrogate, which is not a character: jump to U+E000.
    assert truncate_max("\ud7ffxyz".encode(), 3, text=True) == ("\ue000".encode(), False)
    # U+10FFFF cannot grow: the previous character does.
    assert truncate_max("a\U0010ffffz".encode(), 5, text=True) == (b"b", False)
    assert truncate_max(("\U0010ffff" * 2).encode(), 5, text=True) == (None, None)
    # U+007F grows to two bytes: allowed only while the bound fits the limit.
    assert truncate_max(b"\x7f\x7f\x7f", 2, text=True) == ("\x80".encode(), False)
    # Invalid UTF-8 in a STRING column falls back to the bytewise rule.
    assert truncate_max(b"\xff\xfeab", 2, text=True) == (b"\xff\xff", False)


def test_truncation_rules_bytewise():
    assert truncate_min(b"abc", 3) == (b"abc", True)
    assert truncate_min(b"abcd", 3) == (b"abc", False)
    assert truncate_max(b"abcd", 3) == (b"abd", False)
    assert truncate_max(b"ab\xff\xffz", 4) == (b"ac", False)
    assert truncate_max(b"\xff\xff\x01\x02", 2) == (None, None)
    assert truncate_max(b"\xff\xff\x01", 3) == (b"\xff\xff\x01", True)


def test_fixed_len_truncation():
    node = make_node(Type.FIXED_LEN_BYTE_ARRAY, 80)
    rows = np.full((2, 80), 0x41, np.uint8)
    rows[1, 70] = 0x42
    st = StatisticsAccumulator(node).page(rows, 0)
    assert st.min_value == b"A" * 64 and st.is_min_value_exact is False
    assert st.max_value == b"A" * 63 + b"B" and st.is_max_value_exact is False
    assert StatisticsAccumulator(node, truncate_length=None).page(rows, 0).max_value == \
        rows[1].tobytes()


def test_decimals_are_never_truncated():
    node = make_node(Type.FIXED_LEN_BYTE_ARRAY, 70, converted=CT.DECIMAL)
    rows = np.zeros((2, 70), np.uint8)
    rows[0, 0] = 0x80
    st = StatisticsAccumulator(node).page(rows, 0)
    assert st.min_value == rows[0].tobytes() and st.max_value == bytes(70)
    assert st.is_min_value_exact and st.is_max_value_exact


def test_byte_array_decimals_sign_extend():
    node = make_node(Type.BYTE_ARRAY, logical=LT(DECIMAL=fmt.DecimalType(scale=0, precision=40)))
    values = [b"\xff", b"\x00\x80", b"", b"\x80\x00", b"\x7f", b"\xff\xff\xff\xfe"]
    st = StatisticsAccumulator(node).page(byte_array(values), 0)
    assert (st.min_value, st.max_value) == (b"\x80\x00", b"\x00\x80")      # -32768, 128
    assert (st.min, st.max) == (st.min_value, st.max_value)


def test_rejects_values_of_the_wrong_width():
    with pytest.raises(TypeError):
        StatisticsAccumulator(make_node(Type.INT32)).page(np.array([1], np.int64), 0)
    with pytest.raises(TypeError):
        StatisticsAccumulator(make_node(Type.FLOAT)).page(np.array([1.0]), 0)
    with pytest.raises(ValueError):
        StatisticsAccumulator(make_node(Type.FIXED_LEN_BYTE_ARRAY, 4)).page(
            np.zeros((2, 3), np.uint8), 0)
    with pytest.raises(ValueError):
        StatisticsAccumulator(make_node(Type.INT32), truncate_length=0)


# -- properties -----------------------------------------------------------------------------------
def page_splits(n, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    bounds = [0] + cuts + [n]
    return [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]


def run_pages(node, values, to_physical, data, **kw):
    acc = StatisticsAccumulator(node, **kw)
    pages = [acc.page(to_physical(values[a:b]), 0) for a, b in page_splits(len(values), data)]
    return pages, acc.chunk()


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1), st.data())
def test_property_int64(values, data):
    _, chunk = run_pages(make_node(Type.INT64), values, lambda v: np.array(v, np.int64), data)
    assert struct.unpack("<q", chunk.min_value)[0] == min(values)
    assert struct.unpack("<q", chunk.max_value)[0] == max(values)


@PROPS
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1), st.data())
def test_property_uint64(values, data):
    node = make_node(Type.INT64, converted=CT.UINT_64)
    _, chunk = run_pages(node, values,
                         lambda v: np.array(v, np.uint64).view(np.int64), data)
    assert struct.unpack("<Q", chunk.min_value)[0] == min(values)
    assert struct.unpack("<Q", chunk.max_value)[0] == max(values)
    assert chunk.min is None


@PROPS
@given(st.lists(st.floats(width=32) | st.just(-0.0), min_size=1), st.data())
def test_property_float_bounds(values, data):
    pages, chunk = run_pages(make_node(Type.FLOAT), values,
                             lambda v: np.array(v, np.float32), data)
    finite = [v for v in values if not math.isnan(v)]
    assert chunk.nan_count == len(values) - len(finite)
    if not finite:
        assert chunk.min_value is None and chunk.max_value is None
        return
    lo, hi = (struct.unpack("<f", chunk.min_value)[0], struct.unpack("<f", chunk.max_value)[0])
    assert lo == min(finite) and hi == max(finite)
    assert not (math.isnan(lo) or math.isnan(hi))
    if lo == 0:
        assert math.copysign(1, lo) == -1
    if hi == 0:
        assert math.copysign(1, hi) == 1


@PROPS
@given(st.lists(st.integers(0, 0xFFFF), min_size=1), st.data())
def test_property_float16_bounds(bits, data):
    node = make_node(Type.FIXED_LEN_BYTE_ARRAY, 2, logical=LT(FLOAT16=fmt.Float16Type()))
    _, chunk = run_pages(node, bits,
                         lambda v: np.array(v, np.uint16).view(np.uint8).reshape(-1, 2), data)
    floats = np.array(bits, np.uint16).view(np.float16).astype(np.float64)
    finite = floats[~np.isnan(floats)]
    assert chunk.nan_count == len(floats) - len(finite)
    if len(finite) == 0:
        assert chunk.min_value is None
        return
    lo = float(np.frombuffer(chunk.min_value, "<f2")[0])
    hi = float(np.frombuffer(chunk.max_value, "<f2")[0])
    assert lo == finite.min() and hi == finite.max()
    if lo == 0:
        assert chunk.min_value == b"\x00\x80"
    if hi == 0:
        assert chunk.max_value == b"\x00\x00"


@PROPS
@given(st.lists(st.binary(max_size=12), min_size=1), st.integers(1, 8), st.data())
def test_property_truncated_bounds_contain_every_value(values, limit, data):
    pages, chunk = run_pages(make_node(Type.BYTE_ARRAY), values, byte_array, data,
                             truncate_length=limit)
    assert chunk.min_value <= min(values) and len(chunk.min_value) <= limit
    assert chunk.is_min_value_exact == (chunk.min_value == min(values))
    assert all(chunk.max_value >= v for v in values)
    assert chunk.is_max_value_exact == (chunk.max_value == max(values))
    if len(chunk.max_value) > limit:        # no short bound: the exact max, whole
        assert max(values)[:limit] == b"\xff" * limit and chunk.is_max_value_exact
    # A chunk's bounds hold every page's values: each is at most as tight as the pages'.
    for page in pages:
        if page.min_value is not None:
            assert chunk.min_value <= page.min_value
            assert chunk.max_value >= page.max_value


@PROPS
@given(st.lists(st.text(max_size=10), min_size=1), st.integers(1, 12), st.data())
def test_property_text_truncation_stays_utf8(strings, limit, data):
    node = make_node(Type.BYTE_ARRAY, logical=LT(STRING=fmt.StringType()))
    values = [s.encode() for s in strings]
    _, chunk = run_pages(node, values, byte_array, data, truncate_length=limit)
    chunk.min_value.decode("utf-8")
    assert chunk.min_value <= min(values) and len(chunk.min_value) <= limit
    chunk.max_value.decode("utf-8")
    assert all(chunk.max_value >= v for v in values)
    # Longer than the limit only when no short bound exists; then it is the exact max.
    assert len(chunk.max_value) <= limit or \
        (chunk.max_value == max(values) and chunk.is_max_value_exact)


def decimal_key(raw):
    return int.from_bytes(raw, "big", signed=True)


@PROPS
@given(st.lists(st.integers(-2**71, 2**71 - 1), min_size=1), st.data())
def test_property_fixed_decimal(values, data):
    node = make_node(Type.FIXED_LEN_BYTE_ARRAY, 9, converted=CT.DECIMAL)
    raw = [v.to_bytes(9, "big", signed=True) for v in values]
    _, chunk = run_pages(node, raw, lambda v: np.frombuffer(b"".join(v), np.uint8)
                         .reshape(-1, 9), data)
    assert decimal_key(chunk.min_value) == min(values)
    assert decimal_key(chunk.max_value) == max(values)


@PROPS
@given(st.lists(st.integers(-2**100, 2**100), min_size=1), st.data())
def test_property_byte_array_decimal(values, data):
    node = make_node(Type.BYTE_ARRAY, logical=LT(DECIMAL=fmt.DecimalType(scale=0, precision=31)))
    # Minimal two's-complement bytes, sometimes padded with extra sign bytes.
    raw = []
    for v in values:
        n = (v + (v < 0)).bit_length() // 8 + 1 + data.draw(st.integers(0, 2))
        raw.append(v.to_bytes(n, "big", signed=True))
    _, chunk = run_pages(node, raw, byte_array, data)
    assert decimal_key(chunk.min_value) == min(values)
    assert decimal_key(chunk.max_value) == max(values)
    assert chunk.min_value in raw and chunk.max_value in raw


@PROPS
@given(st.lists(st.binary(min_size=3, max_size=3), min_size=1), st.data())
def test_property_fixed_unsigned(values, data):
    node = make_node(Type.FIXED_LEN_BYTE_ARRAY, 3)
    _, chunk = run_pages(node, values, lambda v: np.frombuffer(b"".join(v), np.uint8)
                         .reshape(-1, 3), data)
    assert (chunk.min_value, chunk.max_value) == (min(values), max(values))


@PROPS
@given(st.lists(st.booleans(), min_size=1), st.data())
def test_property_boolean(values, data):
    _, chunk = run_pages(make_node(Type.BOOLEAN), values, lambda v: np.array(v, bool), data)
    assert chunk.min_value == bytes([min(values)]) and chunk.max_value == bytes([max(values)])


# -- dictionary-encoded pages ------------------------------------------------------------------
def _binary(values):
    data = np.frombuffer(b"".join(values), np.uint8) if any(values) else np.zeros(0, np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
    return offsets, data


@settings(max_examples=150, deadline=None)
@given(entries=st.lists(st.binary(max_size=20), min_size=1, max_size=12, unique=True),
       picks=st.lists(st.integers(0, 11), max_size=60), truncate=st.sampled_from([None, 3]))
def test_dictionary_page_bounds_equal_the_values_bounds(entries, picks, truncate):
    # A page given as dictionary indices gets the same statistics, byte for byte, as the
    # same values given directly (the writer passes both for dictionary pages).
    indices = np.array([p % len(entries) for p in picks], np.int32)
    page = _binary([entries[i] for i in indices])
    node = make_node(Type.BYTE_ARRAY, logical=fmt.LogicalType(STRING=fmt.StringType()))
    direct = StatisticsAccumulator(node, truncate_length=truncate)
    via = StatisticsAccumulator(node, truncate_length=truncate)
    assert via.page(page, 2, (_binary(entries), indices)) == direct.page(page, 2)
    assert via.chunk() == direct.chunk()


def test_dictionary_min_max_rejects_an_index_outside_the_dictionary():
    from pqkit._native.stats import dictionary_min_max
    offsets, data = _binary([b"a", b"b"])
    assert dictionary_min_max(offsets, data, np.array([1, 0, 1], np.int32)) == (0, 1)
    assert dictionary_min_max(offsets, data, np.zeros(0, np.int32)) is None
    with pytest.raises(ValueError, match="index 2"):
        dictionary_min_max(offsets, data, np.array([0, 2], np.int32))
    with pytest.raises(ValueError, match="index -1"):
        dictionary_min_max(offsets, data, np.array([-1], np.int32))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.binary(max_size=30) | st.sampled_from(
    [b"", b"\x00", b"\xff" * 9, b"abcdefgh", b"abcdefgh\x00", b"abcdefgi", b"\x80" * 17]),
    min_size=1, max_size=40))
def test_binary_min_max_is_the_unsigned_bytewise_order(values):
    # Compared 8 bytes at a time as big-endian words: bytes >= 0x80 and values that
    # share a prefix of 8 or more bytes must order as Python's bytes do.
    from pqkit._native.stats import binary_min_max
    lo, hi = binary_min_max(*_binary(values))
    assert values[lo] == min(values) and values[hi] == max(values)
    assert lo == values.index(min(values)) and hi == values.index(max(values))


@settings(max_examples=150, deadline=None)
@given(width=st.sampled_from([1, 2, 3, 4, 8, 9, 16]), signed=st.booleans(), data=st.data())
def test_fixed_row_extremes_follow_the_byte_and_twos_complement_orders(width, signed, data):
    # Rows of a machine word's width take numpy's argmin/argmax, the others the word
    # passes; both give the first of the smallest and of the largest rows.
    from pqkit.write.stats import _lex_argextremes
    rows = data.draw(st.lists(st.binary(min_size=width, max_size=width) |
                              st.sampled_from([b"\x00" * width, b"\xff" * width,
                                               b"\x80" + b"\x00" * (width - 1)]),
                              min_size=1, max_size=30))
    key = (lambda r: int.from_bytes(r, "big", signed=True)) if signed else (lambda r: r)
    lo, hi = _lex_argextremes(np.frombuffer(b"".join(rows), np.uint8).reshape(-1, width),
                              signed)
    keys = [key(r) for r in rows]
    assert lo == keys.index(min(keys)) and hi == keys.index(max(keys))
