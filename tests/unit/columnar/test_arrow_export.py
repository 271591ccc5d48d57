"""The Arrow PyCapsule interface: format strings, capsules, release callbacks, bad input.

pqkit is producer and consumer here (``Table.from_arrow(table)`` goes through
the C structures both ways); pyarrow builds the malformed arrays that must be
refused and checks buffer addresses. The consumers of the ecosystem are in
tests/interop/test_arrow_exchange.py.
"""
import gc
import io
import subprocess
import sys
import textwrap
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

import pqkit
from arrow_bridge import type_to_arrow
from leak_check import traced_growth
from pqkit import datatypes as T
from pqkit._native import arrow_c
from pqkit.columnar import arrow_types as AT
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import DictionaryColumn, ListColumn, MapColumn, StructColumn, nulls
from pqkit.errors import SchemaError, UnsupportedFeatureError

FORMATS = [
    (T.null(), "n"), (T.bool_(), "b"), (T.int8(), "c"), (T.uint8(), "C"), (T.int16(), "s"),
    (T.uint16(), "S"), (T.int32(), "i"), (T.uint32(), "I"), (T.int64(), "l"),
    (T.uint64(), "L"), (T.float16(), "e"), (T.float32(), "f"), (T.float64(), "g"),
    (T.string(), "u"), (T.large_string(), "U"), (T.binary(), "z"), (T.large_binary(), "Z"),
    (T.fixed_size_binary(5), "w:5"), (T.decimal(9, 2), "d:9,2"),
    (T.decimal(60, 3), "d:60,3,256"), (T.date32(), "tdD"), (T.date64(), "tdm"),
    (T.time32("s"), "tts"), (T.time32("ms"), "ttm"), (T.time64("us"), "ttu"),
    (T.time64("ns"), "ttn"), (T.timestamp("s"), "tss:"), (T.timestamp("ms", "UTC"), "tsm:UTC"),
    (T.timestamp("ns", "+05:30"), "tsn:+05:30"), (T.duration("us"), "tDu"),
    (T.month_day_nano_interval(), "tin"), (T.uuid(), "w:16"), (T.interval(), "w:12"),
    (T.list_(T.int32()), "+l"), (T.large_list(T.int32()), "+L"),
    (T.fixed_size_list(T.int8(), 3), "+w:3"), (T.struct([("a", T.int8())]), "+s"),
    (T.map_(T.string(), T.int8()), "+m"), (T.dictionary(T.int32(), T.string()), "i"),
]


@pytest.mark.parametrize("type_,fmt", FORMATS, ids=[f for _, f in FORMATS])
def test_format_string_of_each_type(type_, fmt):
    assert AT.format_of(type_) == fmt


@pytest.mark.parametrize("type_,fmt", FORMATS, ids=[f for _, f in FORMATS])
def test_schema_round_trip_through_pyarrow(type_, fmt):
    field = T.Field("x", type_, nullable=not isinstance(type_, T.MapType))
    t = pqkit.Table([nulls(type_, 0)._with_validity(None)], [field])
    schema = pa.schema(t)
    assert schema.field("x").type == type_to_arrow(type_)
    assert schema.field("x").nullable == field.nullable
    assert pqkit.Table.from_arrow(pa.table(t)).schema == [field]


def test_metadata_bytes_round_trip():
    pairs = {"k": "v", "ключ": "значение", "raw": b"\xff\x00"}
    data = AT.encode_metadata(pairs)
    assert data[:4] == (3).to_bytes(4, sys.byteorder)
    assert AT.decode_metadata(data) == pairs
    assert AT.encode_metadata({}) is None and AT.decode_metadata(None) is None


def test_field_metadata_and_table_metadata_cross():
    col = PrimitiveColumn(T.int64(), np.arange(3))
    t = pqkit.Table([col], [T.Field("a", T.int64(), False, {"unit": "m"})],
                    metadata={"origin": "test"})
    p = pa.table(t)
    assert p.schema.metadata == {b"origin": b"test"}
    assert p.schema.field("a").metadata == {b"unit": b"m"}
    assert not p.schema.field("a").nullable
    back = pqkit.Table.from_arrow(p)
    assert back.equals(t, check_metadata=True)


def _sample_table(n=1000):
    rng = np.random.default_rng(3)
    valid = rng.random(n) > 0.2
    words = [f"w{i}" for i in range(n)]
    data = "".join(words).encode()
    offsets = np.concatenate([[0], np.cumsum([len(w) for w in words])])
    strings = BinaryColumn(T.string(), offsets, data, valid)
    ints = PrimitiveColumn(T.int64(), rng.integers(0, 100, n), valid)
    lists = ListColumn(T.list_(T.int64()), np.arange(n + 1), ints, valid)
    dicts = DictionaryColumn(T.dictionary(T.int32(), T.string()),
                             rng.integers(0, 3, n).astype(np.int32),
                             BinaryColumn(T.string(), [0, 1, 2, 3], b"abc"), valid)
    return pqkit.Table({"i": ints, "s": strings, "l": lists, "d": dicts})


def test_own_round_trip_shares_buffers():
    t = _sample_table()
    back = pqkit.Table.from_arrow(t)
    assert back.equals(t)
    # int64 values travel as the same memory; int32 string offsets are a copy, the data not.
    assert back.column("i").values.ctypes.data == t.column("i").values.ctypes.data
    assert back.column("s").data.ctypes.data == t.column("s").data.ctypes.data
    assert back.column("d").indices.ctypes.data == t.column("d").indices.ctypes.data


def test_large_offsets_are_shared_both_ways():
    col = BinaryColumn(T.large_string(), [0, 2, 2, 5], b"abcde")
    p = pa.array(col)
    assert p.type == pa.large_string()
    assert p.buffers()[1].address == col.offsets.ctypes.data
    assert p.buffers()[2].address == col.data.ctypes.data
    back = pqkit.Table.from_arrow(pa.table({"x": p})).column("x")
    assert back.offsets.ctypes.data == col.offsets.ctypes.data
    assert back.to_pylist() == ["ab", "", "cde"]


def test_record_batches_are_zero_copy_slices():
    t = _sample_table(10)
    batches = t.to_batches(max_chunksize=4)
    assert [len(b) for b in batches] == [4, 4, 2]
    arrow = [pa.record_batch(b) for b in batches]
    assert pa.Table.from_batches(arrow).to_pydict() == t.to_pydict()
    assert arrow[1].column(0).buffers()[1].address == t.column("i").values[4:].ctypes.data


def test_slices_export_their_rows():
    t = _sample_table(50).slice(7, 19)
    p = pa.table(t)
    p.validate(full=True)
    assert p.to_pydict() == t.to_pydict()


def test_string_slice_far_into_its_data_is_rebased():
    big = BinaryColumn(T.string(), [0, 3, 6], b"abcdef")
    col = big.slice(1, 2)
    arr = pa.array(col)
    assert arr.to_pylist() == ["def"]
    assert arr.buffers()[1].to_pybytes() == np.array([3, 6], np.int32).tobytes()


def test_each_kind_round_trips_through_the_capsules():
    be = np.array([[0, 0x7B], [0xFF, 0xFF], [0, 0]], np.uint8)
    t = pqkit.Table({
        "dec_be": DecimalColumn(T.decimal(4, 2), be, np.array([True, True, False])),
        "dec_int": DecimalColumn(T.decimal(9, 2), np.array([123, -1, 7], np.int32)),
        "dec_wide": DecimalColumn(T.decimal(40, 0), np.repeat(be, 1, 0)),
        "uuid": FixedSizeBinaryColumn(T.uuid(), np.arange(48, dtype=np.uint8).reshape(3, 16)),
        "map": MapColumn(T.map_(T.string(), T.int8()), [0, 1, 1, 2],
                         BinaryColumn(T.string(), [0, 1, 2], b"ab"),
                         PrimitiveColumn(T.int8(), np.array([5, 6], np.int8)),
                         np.array([True, False, True])),
        "struct": StructColumn(T.struct([("b", T.bool_())]),
                               [PrimitiveColumn(T.bool_(), np.array([True, False, True]))],
                               np.array([False, True, True])),
    })
    p = pa.table(t)
    p.validate(full=True)
    assert p.to_pydict() == t.to_pydict()
    assert p.schema.field("uuid").type == pa.uuid()
    back = pqkit.Table.from_arrow(p)
    assert back.to_pydict() == t.to_pydict()
    assert [f.type for f in back.schema] == [f.type for f in t.schema]


@pytest.mark.parametrize("precision", [38, 60])
@pytest.mark.parametrize("storage", ["be1", "be3", "be8", "be12", "be16", "int32", "int64"])
def test_decimal_storage_exports_its_values(storage, precision):
    width = int(storage[2:]) if storage.startswith("be") else int(storage[3:]) // 8
    most = min(2 ** (8 * width - 1) - 1, 10 ** precision - 1)   # the extremes that fit
    values = [0, 1, -1, most, -most - (most < 10 ** precision - 1), 77]
    if storage.startswith("be"):
        stored = np.array([list(v.to_bytes(width, "big", signed=True)) for v in values],
                          np.uint8)
    else:
        stored = np.array(values, np.dtype(storage))
    col = DecimalColumn(T.decimal(precision, 0), stored, np.array([True] * 5 + [False]))
    arr = pa.array(col)
    arr.validate(full=True)
    assert arr.to_pylist() == [Decimal(v) for v in values[:5]] + [None]


def test_null_slots_of_dictionary_indices_are_made_safe():
    col = DictionaryColumn(T.dictionary(T.int8(), T.string()), np.array([0, 99], np.int8),
                           BinaryColumn(T.string(), [0, 1], b"a"), np.array([True, False]))
    arr = pa.array(col)
    arr.validate(full=True)
    assert arr.to_pylist() == ["a", None]


def test_schema_capsule_of_a_writer_schema(tmp_path):
    schema = pa.schema([("a", pa.int32()), ("b", pa.list_(pa.string()))])
    with pqkit.ParquetWriter(tmp_path / "w.parquet", schema) as w:
        assert [str(f) for f in w.fields] == ["a: int32", "b: list<item: string>"]
        w.write_table(pa.table({"a": pa.array([1], pa.int32()), "b": [["x"]]}))
    assert pqkit.read_table(tmp_path / "w.parquet").to_pydict() == {"a": [1], "b": [["x"]]}


# --- release callbacks ---------------------------------------------------------------------

def test_release_drops_every_reference():
    t = _sample_table()
    values = t.column("i").values
    data = t.column("s").data
    before = sys.getrefcount(values), sys.getrefcount(data)
    capsule = t.__arrow_c_stream__()
    reader = pa.RecordBatchReader._import_from_c_capsule(capsule)
    batch = reader.read_next_batch()
    assert sys.getrefcount(values) > before[0]
    del batch, reader, capsule
    gc.collect()
    assert (sys.getrefcount(values), sys.getrefcount(data)) == before


def test_unconsumed_capsules_release_on_drop():
    t = _sample_table()
    values = t.column("i").values
    before = sys.getrefcount(values)
    capsules = [t.to_batches()[0].__arrow_c_array__(), t.column("i").__arrow_c_array__(), t.__arrow_c_stream__()]
    del capsules
    assert sys.getrefcount(values) == before


def test_no_leak_over_a_thousand_exports():
    t = _sample_table(5000)

    def exports():
        pa.table(t)
        pqkit.Table.from_arrow(t)
        t.column("s").__arrow_c_array__()
    grown = traced_growth(exports)
    # One export converts ~11 KB (bitmaps, int32 offsets): a leak would be > 10 MB.
    assert grown < 200_000, grown


def test_consumer_outlives_the_table():
    t = _sample_table()
    expected = t.to_pydict()
    address = t.column("i").values.ctypes.data
    p = pa.table(t)
    ours = pqkit.Table.from_arrow(t)
    del t
    gc.collect()
    junk = [np.full(1000, -1, np.int64) for _ in range(1000)]     # reuse freed memory
    assert p.column("i").chunk(0).buffers()[1].address == address
    assert p.to_pydict() == expected
    assert ours.to_pydict() == expected
    del junk


def test_imported_table_outlives_the_producer():
    p = pa.table({"x": pa.array(np.arange(10_000)), "s": pa.array(["ab", None] * 5000)})
    expected = p.to_pydict()
    ours = pqkit.Table.from_arrow(p)
    assert ours.column("x").values.ctypes.data == p.column("x").chunk(0).buffers()[1].address
    del p
    gc.collect()
    junk = [np.full(1000, -1, np.int64) for _ in range(1000)]
    assert ours.to_pydict() == expected
    del junk


# --- bad input is refused -------------------------------------------------------------------

def _refused(arr, fragment):
    with pytest.raises(SchemaError, match=fragment):
        pqkit.Table.from_arrow(pa.table({"x": arr}))


def test_decreasing_offsets_are_refused():
    offsets = pa.py_buffer(np.array([0, 4, 2], np.int32).tobytes())
    _refused(pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"abcd")]),
             "decrease")


class _Raw:
    """A producer of hand-made C structures (pyarrow validates what it builds)."""

    def __init__(self, schema_node, array_node):
        self.nodes = schema_node, array_node

    def __arrow_c_array__(self, requested_schema=None):
        return arrow_c.export_schema(self.nodes[0]), arrow_c.export_array(self.nodes[1])


def _int64_node(values):
    return (len(values), 0, 0, (None, np.asarray(values, np.int64)), (), None)


def test_list_offsets_past_the_child_are_refused():
    schema = (b"+l", b"x", None, 2, ((b"l", b"item", None, 2, (), None),), None)
    array = (2, 0, 0, (None, np.array([0, 1, 5], np.int32)), (_int64_node([1, 2]),), None)
    with pytest.raises(SchemaError, match="offset 5 is outside the 2 available values"):
        pqkit.Table.from_arrow(_Raw(schema, array))


def test_struct_child_shorter_than_the_struct_is_refused():
    schema = (b"+s", b"", None, 0, ((b"l", b"a", None, 2, (), None),), None)
    array = (3, 0, 0, (None,), (_int64_node([1]),), None)
    with pytest.raises(SchemaError, match="child has 1 rows, its parent uses 0..3"):
        pqkit.Table.from_arrow(_Raw(schema, array))


def test_missing_buffer_is_refused():
    schema = (b"+s", b"", None, 0, ((b"u", b"s", None, 2, (), None),), None)
    array = (1, 0, 0, (None,), ((1, 0, 0, (None, np.array([0, 3], np.int32)), (), None),),
             None)
    with pytest.raises(SchemaError, match="has 2 buffers, needs at least 3"):
        pqkit.Table.from_arrow(_Raw(schema, array))


def test_nulls_without_a_bitmap_are_refused():
    schema = (b"+s", b"", None, 0, ((b"l", b"a", None, 2, (), None),), None)
    array = (2, 0, 0, (None,), ((2, 1, 0, (None, np.zeros(2, np.int64)), (), None),), None)
    with pytest.raises(SchemaError, match="1 nulls but no validity bitmap"):
        pqkit.Table.from_arrow(_Raw(schema, array))


def test_dictionary_index_outside_the_dictionary_is_refused():
    arr = pa.DictionaryArray.from_buffers(
        pa.dictionary(pa.int32(), pa.string()), 2,
        [None, pa.py_buffer(np.array([0, 7], np.int32).tobytes())], pa.array(["a"]))
    _refused(arr, "dictionary index 7 at row 1")


def test_view_pointing_outside_its_buffer_is_refused():
    view = np.zeros(16, np.uint8)
    view[:4] = np.frombuffer(np.int32(20).tobytes(), np.uint8)       # length 20, out of line
    view[8:12] = np.frombuffer(np.int32(0).tobytes(), np.uint8)      # buffer 0
    view[12:16] = np.frombuffer(np.int32(10).tobytes(), np.uint8)    # at offset 10
    arr = pa.Array.from_buffers(pa.string_view(), 1,
                                [None, pa.py_buffer(view.tobytes()), pa.py_buffer(b"x" * 16)])
    _refused(arr, "points to bytes 10..30 of buffer 0")


def test_views_import_as_strings():
    arr = pa.array(["short", None, "a value longer than twelve bytes"], pa.string_view())
    col = pqkit.Table.from_arrow(pa.table({"x": arr})).column("x")
    assert col.type == T.string()
    assert col.to_pylist() == arr.to_pylist()


def test_unsupported_format_names_the_field():
    arr = pa.array([1, 2]).cast(pa.int64()).to_pylist()
    union = pa.UnionArray.from_sparse(pa.array([0, 0], pa.int8()), [pa.array(arr)])
    with pytest.raises(UnsupportedFeatureError, match=r"'u'.*'\+us:0'"):
        pqkit.Table.from_arrow(pa.table({"u": union}))


def test_consumed_capsule_is_refused():
    _schema, array = PrimitiveColumn(T.int8(), np.zeros(2, np.int8)).__arrow_c_array__()
    arrow_c.array_from_capsule(array)
    with pytest.raises(SchemaError, match="already consumed"):
        arrow_c.array_from_capsule(array)
    with pytest.raises(SchemaError, match="arrow_schema"):
        arrow_c.schema_from_capsule(array)


def test_producer_error_is_reported():
    def broken():
        yield from ()
        raise RuntimeError("disk on fire")

    class Producer:
        def __arrow_c_stream__(self, requested_schema=None):
            return arrow_c.export_stream((b"+s", b"", None, 0, (), None), broken())

    # EIO with the message from get_last_error, which pyarrow raises as OSError.
    with pytest.raises(OSError, match="RuntimeError: disk on fire"):
        pa.RecordBatchReader._import_from_c_capsule(Producer().__arrow_c_stream__()).read_all()
    with pytest.raises(SchemaError, match="failed in get_next: RuntimeError: disk on fire"):
        pqkit.Table.from_arrow(Producer())


def test_object_without_the_protocol_is_a_type_error():
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        pqkit.Table.from_arrow([1, 2])


# --- pqkit does not import pyarrow --------------------------------------------------------

def test_pyarrow_is_not_imported(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import pqkit
        pqkit.write_table({{"a": [1, 2], "s": ["x", None]}}, {str(tmp_path / 'a.parquet')!r})
        t = pqkit.read_table({str(tmp_path / 'a.parquet')!r})
        for capsule in (t.__arrow_c_stream__(), t.__arrow_c_schema__(), t.to_batches()[0].__arrow_c_array__(),
                        t.column(0).__arrow_c_array__()):
            del capsule
        back = pqkit.Table.from_arrow(t)
        assert back.equals(t)
        with pqkit.ParquetFile({str(tmp_path / 'a.parquet')!r}) as f:
            views = pqkit.Table.from_arrow(f.arrow_stream(string_view=True))
        assert views.to_pydict() == t.to_pydict()
        pqkit.write_table(t, {str(tmp_path / 'b.parquet')!r})
        print(sorted(m for m in ("pyarrow", "polars", "duckdb") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


# --- metadata and names that are not UTF-8 (issue 31, class 8) ---------------------------

def _edit_footer(path, edit):
    """Re-encode the footer of the file at ``path`` after edit(FileMetaData)."""
    from pqkit import format as fmt
    data = path.read_bytes()
    md = pqkit.read_metadata(data)
    edit(md.raw)
    footer = fmt.encode(md.raw)
    path.write_bytes(data[:md.footer_offset] + footer + len(footer).to_bytes(4, "little") +
                     b"PAR1")
    return str(path)


def _small_file(tmp_path):
    path = tmp_path / "t.parquet"
    pqkit.write_table({"x": [1, 2]}, str(path), store_schema=False)
    return path


def test_metadata_a_file_holds_exports_as_its_bytes_and_a_missing_value_as_empty(tmp_path):
    from pqkit import format as fmt
    path = _small_file(tmp_path)
    pqkit.edit_metadata(str(path), key_value_metadata={"novalue": None})     # valid Parquet

    def not_utf8(raw):               # as a file with bytes 0xff / 0xfe in an entry reads
        raw.key_value_metadata.append(fmt.KeyValue(key="bad\udcff", value="v\udcfe"))
    path = _edit_footer(path, not_utf8)
    expected = {b"novalue": b"", b"bad\xff": b"v\xfe"}
    for t in (pqkit.read_table(path), pqkit.ParquetFile(path).read()):
        assert pa.table(t).schema.metadata == expected
    batches = pa.RecordBatchReader.from_stream(pqkit.ParquetFile(path).iter_batches())
    assert batches.schema.metadata == expected
    assert pqkit.read_metadata(path).metadata == expected


def test_a_column_name_that_is_not_utf8_is_refused_by_export_naming_it(tmp_path):
    def name(raw):
        raw.schema[1].name = "x\udcff"
    path = _edit_footer(_small_file(tmp_path), name)
    t = pqkit.read_table(path)
    with pytest.raises(SchemaError, match=r"field name 'x\\udcff' is not valid text .* "
                                          r"rename the column"):
        pa.table(t)
    assert pa.table(t.rename_columns(["x"])).column("x").to_pylist() == [1, 2]


def test_decimal_values_beyond_the_precision_are_refused(tmp_path):
    """A file may store any integer its physical type holds in a decimal(4, 2) column;
    exported, pyarrow's full validation failed ("does not fit in precision"). Export
    raises ValueRangeError naming the row; nulls keep whatever their slot holds."""
    from verify_files import rewrite_footer

    path = tmp_path / "wide.parquet"
    pqkit.write_table(pa.table({"d": pa.array([Decimal("1.25"), Decimal("123.45"), None],
                                               pa.decimal128(9, 2))}), str(path))

    def narrow(raw, _):
        element = raw.schema[1]
        element.precision = element.logicalType.DECIMAL.precision = 4

    narrowed = rewrite_footer(str(path), tmp_path / "narrow.parquet", narrow)
    table = pqkit.read_table(narrowed)
    assert str(table.schema[0].type) == "decimal128(4, 2)"
    with pytest.raises(pqkit.ParquetError, match="row 1: the unscaled value 12345 has more "
                                                 "than 4 digits"):
        pa.table(table)
    pa.table(table.slice(0, 1)).validate(full=True)


def test_streamed_decimals_beyond_the_precision_fail_with_pqkits_error(tmp_path):
    """Streamed, the same value reached pyarrow as an OSError (errno EIO) and pqkit's own
    consumer as a SchemaError. A ParquetError in the producer now returns EINVAL, which
    pyarrow raises as ArrowInvalid with pqkit's message, and pqkit re-raises its own
    exception."""
    from pqkit.columnar.pyvalues import ValueRangeError
    from verify_files import rewrite_footer

    path = tmp_path / "wide.parquet"
    pqkit.write_table(pa.table({"d": pa.array([Decimal("123.45")], pa.decimal128(9, 2))}),
                      str(path))

    def narrow(raw, _):
        element = raw.schema[1]
        element.precision = element.logicalType.DECIMAL.precision = 4

    narrowed = rewrite_footer(str(path), tmp_path / "narrow.parquet", narrow)
    message = "ValueRangeError: decimal128\\(4, 2\\) value at row 0: the unscaled value 12345"
    with pqkit.ParquetFile(narrowed) as f:
        producers = [pqkit.read_table(narrowed).arrow_stream(), f, f.arrow_stream(),
                     f.iter_batches()]
        for producer in producers:
            with pytest.raises(pa.ArrowInvalid, match=message):
                pa.RecordBatchReader.from_stream(producer).read_all()
        with pytest.raises(ValueRangeError, match="row 0: the unscaled value 12345"):
            pqkit.Table.from_arrow(f.arrow_stream())


@pytest.mark.parametrize("width, precision", [(2, 3), (8, 18), (12, 20), (16, 38), (32, 60)])
def test_decimal_precision_checked_on_every_storage_width(width, precision):
    type_ = T.DecimalType(precision, 0)
    limit = 10 ** precision
    values = [limit - 1, -limit + 1, limit, -limit, 0]
    rows = np.array([list(v.to_bytes(width, "big", signed=True)) for v in values], np.uint8)
    valid = np.array([True, True, False, False, True])
    column = DecimalColumn(type_, rows, valid)
    column.check_precision()            # the out-of-range values are in null slots
    for i in (2, 3):
        with pytest.raises(pqkit.ParquetError, match=f"row 0: the unscaled value {values[i]}"):
            DecimalColumn(type_, rows[i:i + 1]).check_precision()


def test_a_field_name_with_a_nul_is_refused():
    """The C data interface ends names at a NUL: a column "\\0\\0le_col" (a fuzzed
    alltypes_plain.parquet) reached pyarrow as "" until export refused it by name."""
    def read_back(data):
        out = io.BytesIO()
        pqkit.write_table(data, out)
        return pqkit.read_table(out.getvalue())

    for data in ({"a\0b": [1]}, {"s": [{"x\0": 1}]}):
        with pytest.raises(SchemaError, match="holds a NUL character"):
            pa.table(read_back(data))
    assert pa.table(read_back({"ab": [1]})).column_names == ["ab"]
