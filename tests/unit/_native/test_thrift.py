"""The Cython compact-protocol codec against the thrift package's TCompactProtocol."""
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit import format as fmt
from pqkit.format import STRUCT_CLASSES, STRUCTS
from reference.thrift_ref import plain, ref_decode, ref_encode, to_ref

I_RANGES = {"i8": 7, "i16": 15, "i32": 31, "i64": 63}


def _value(t, draw_depth=0):
    kind = t[0]
    if kind == "bool":
        return st.booleans()
    if kind in I_RANGES:
        b = I_RANGES[kind]
        return st.integers(-(1 << b), (1 << b) - 1)
    if kind == "enum":
        return st.integers(-(1 << 31), (1 << 31) - 1)
    if kind == "double":
        return st.floats(allow_nan=False)
    if kind == "string":
        return st.text(max_size=20)
    if kind == "binary":
        return st.binary(max_size=20)
    if kind == "struct":
        return st.deferred(lambda: struct_strategy(t[1]))
    if kind == "list":
        return st.lists(_value(t[1]), max_size=18)   # crosses the 15-element short form
    raise AssertionError(kind)


def struct_strategy(name):
    is_union, fields = STRUCTS[name]
    cls = STRUCT_CLASSES[name]
    if is_union:
        if not fields:
            return st.just(cls())
        return st.one_of([_value(f[3]).map(lambda v, n=f[1]: cls(**{n: v})) for f in fields])
    parts = {}
    for fid, fname, required, ftype, default in fields:
        v = _value(ftype)
        parts[fname] = v if (required or default is not None) else st.none() | v
    return st.fixed_dictionaries(parts).map(lambda kw: cls(**kw))


ALL = sorted(STRUCTS)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_matches_reference_codec(name, data):
    obj = data.draw(struct_strategy(name))
    ours = fmt.encode(obj)
    assert ours == ref_encode(to_ref(obj)), "byte-identical to TCompactProtocol"
    back, used = fmt.decode(type(obj), ours)
    assert used == len(ours)
    assert back == obj
    assert plain(back) == plain(ref_decode(name, ours))


def test_long_form_field_header_and_extension_field():
    # LogicalType.VARIANT (id 16) is the first field: delta 16 needs the long form.
    lt = fmt.LogicalType(VARIANT=fmt.VariantType(specification_version=1))
    data = fmt.encode(lt)
    assert data[0] == 0x0C and data[1] == 32   # type STRUCT, zigzag(16)
    assert fmt.decode(fmt.LogicalType, data)[0] == lt
    # An unknown extension field 32767 of type binary is skipped (forward compatibility).
    ext = bytes([0x08, 0xFE, 0xFF, 0x03, 0x02, 0xAB, 0xCD])
    stats = fmt.encode(fmt.Statistics(null_count=5))
    decoded, used = fmt.decode(fmt.Statistics, stats[:-1] + ext + b"\x00")
    assert decoded == fmt.Statistics(null_count=5)


def test_unknown_fields_of_every_type_are_skipped():
    # SortingColumn has fields 1..3; fields 4..10 are unknown and must be skipped.
    known = fmt.encode(fmt.SortingColumn(column_idx=3, descending=True, nulls_first=False))[:-1]
    unknown = (
        bytes([0x13, 0x7F])                                   # 4: i8
        + bytes([0x14, 0x02])                                 # 5: i16
        + bytes([0x17]) + struct.pack("<d", 1.5)              # 6: double
        + bytes([0x1B, 0x02, 0x57])                           # 7: map<i32, double>, 2 entries
        + bytes([0x02]) + struct.pack("<d", 2.0)
        + bytes([0x04]) + struct.pack("<d", 3.0)
        + bytes([0x1A, 0x25, 0x02, 0x04])                     # 8: set<i32> {1, 2}
        + bytes([0x19, 0x11, 0x01])                           # 9: list<bool> [true]
        + bytes([0x1C, 0x15, 0x02, 0x00])                     # 10: struct {1: i32 = 1}
    )
    obj, used = fmt.decode(fmt.SortingColumn, known + unknown + b"\x00")
    assert obj == fmt.SortingColumn(column_idx=3, descending=True, nulls_first=False)
    assert used == len(known + unknown) + 1


def test_bool_list_accepts_both_element_type_nibbles():
    # ColumnIndex.null_pages written with element type 2 (as arrow-go does).
    ci = fmt.ColumnIndex(null_pages=[True, False], min_values=[b"", b"a"],
                         max_values=[b"", b"b"], boundary_order=0)
    data = bytearray(fmt.encode(ci))
    assert data[1] == 0x21
    data[1] = 0x22
    assert fmt.decode(fmt.ColumnIndex, bytes(data))[0] == ci


def _footer_bytes():
    md = fmt.FileMetaData(
        version=1, num_rows=3, created_by="pqkit test",
        schema=[fmt.SchemaElement(name="root", num_children=1),
                fmt.SchemaElement(name="a", type=1, repetition_type=1)],
        row_groups=[fmt.RowGroup(num_rows=3, total_byte_size=10, columns=[fmt.ColumnChunk(
            file_offset=0, meta_data=fmt.ColumnMetaData(
                type=1, encodings=[0, 3], path_in_schema=["a"], codec=0, num_values=3,
                total_uncompressed_size=10, total_compressed_size=10, data_page_offset=4,
                statistics=fmt.Statistics(min_value=b"\x01\x00\x00\x00", null_count=0)))])])
    return fmt.encode(md)


def test_every_truncation_raises_thrift_decode_error():
    data = _footer_bytes()
    for n in range(len(data)):
        with pytest.raises(pqkit.ThriftDecodeError, match="offset"):
            fmt.decode(fmt.FileMetaData, data[:n])


@pytest.mark.parametrize("data, message", [
    (b"\x15" + b"\xff" * 11, "varint"),                     # overlong varint
    (b"\x1e\x00", "invalid compact type id 14"),            # bad type id
    (b"\x1d" + b"\x00" * 15, "truncated uuid"),            # uuid needs 16 bytes
    (b"\x19\x10\x00", "invalid compact element type id 0"),  # type 0 with elements
    (b"\x19\x0e\x00", "invalid compact element type id 14"),  # empty, but type 14
    (b"\x0f\x02", "invalid compact type id 15"),
    (b"\x18\xff\xff\xff\xff\x0f", "binary length"),         # length beyond the buffer
    (b"\x19\xf5\xff\xff\xff\xff\x0f", "list claims"),       # list larger than the input
    (b"\x19\x95\x02", "remain"),                            # 9 elements, 1 byte left
    (b"\x15\x80\x80\x80\x80\x20\x00", "i32 value"),         # i32 out of range
])
def test_malformed_inputs(data, message):
    with pytest.raises(pqkit.ThriftDecodeError, match=message):
        fmt.decode(fmt.SortingColumn, data)


def test_nesting_deeper_than_64_is_refused():
    # Unknown field 5 of type struct, nested 100 deep.
    data = b"\x5c" * 100 + b"\x00" * 101
    with pytest.raises(pqkit.AllocationLimitError,
                       match="65 levels of nested thrift structures exceed "
                             "ReadOptions.max_thrift_depth = 64"):
        fmt.decode(fmt.SortingColumn, data)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_footers_never_crash(data):
    raw = bytearray(_footer_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    try:
        fmt.decode(fmt.FileMetaData, bytes(raw))
    except pqkit.ThriftDecodeError:
        pass


def test_lazy_row_groups_equal_eager():
    data = _footer_bytes()
    eager = fmt.decode(fmt.FileMetaData, data)[0]
    lazy = fmt.decode(fmt.FileMetaData, data, lazy=True)[0]
    assert type(lazy.row_groups).__name__ == "LazyStructList"
    assert lazy == eager
    assert fmt.encode(lazy) == data


def test_structs_pickle():
    import pickle
    md = fmt.decode(fmt.FileMetaData, _footer_bytes(), lazy=True)[0]
    assert pickle.loads(pickle.dumps(md)) == md


# Bytes that Apache Thrift's C++ TCompactProtocol (pyarrow) and the thrift
# package both accept, though the compact grammar does not produce them.

def _agree(name, data):
    """Decode with our codec and the reference; both must agree and use every byte."""
    ours, used = fmt.decode(STRUCT_CLASSES[name], data)
    assert used == len(data)
    assert plain(ours) == plain(ref_decode(name, data))
    return ours


def test_empty_list_with_element_type_zero():
    # fastparquet 2026.9 writes an empty list as the single byte 0x00.
    kv = fmt.encode(fmt.KeyValue(key="k", value="v"))
    md = bytes([0x15, 0x02,                  # 1: version = 1
                0x19, 0x00,                  # 2: schema = [] (element type 0)
                0x16, 0x06,                  # 3: num_rows = 3
                0x19, 0x00,                  # 4: row_groups = []
                0x19, 0x1C]) + kv + b"\x00"  # 5: key_value_metadata = [kv]
    ours = _agree("FileMetaData", md)
    assert ours.schema == [] and ours.row_groups == []
    assert ours.key_value_metadata == [fmt.KeyValue(key="k", value="v")]
    lazy = fmt.decode(fmt.FileMetaData, md, lazy=True)[0]
    assert list(lazy.row_groups) == []


@pytest.mark.parametrize("name, data, field, want", [
    # list<i64>, list<i32>, list<bool>, list<string>: each empty with type 0.
    ("SizeStatistics", b"\x29\x00\x00", "repetition_level_histogram", []),
    ("GeospatialStatistics", b"\x29\x00\x00", "geospatial_types", []),
    ("ColumnIndex", b"\x19\x00\x19\x00\x19\x00\x15\x00\x00", "null_pages", []),
    ("ColumnMetaData", b"\x15\x00\x19\x00\x19\x00\x00", "path_in_schema", []),
    # An empty long-form header (0xF0, varint 0) with type 0.
    ("SizeStatistics", b"\x29\xf0\x00\x00", "repetition_level_histogram", []),
    # A set where a list is declared is skipped; so is an empty map (unknown field).
    ("SizeStatistics", b"\x2a\x00\x00", "repetition_level_histogram", None),
    ("SizeStatistics", b"\x4b\x00\x00", "repetition_level_histogram", None),
])
def test_empty_containers_of_any_used_type(name, data, field, want):
    assert getattr(_agree(name, data), field) == want


def test_stop_byte_with_a_delta_nibble_ends_the_struct():
    # The references read any byte whose type nibble is 0 as STOP.
    data = fmt.encode(fmt.SortingColumn(column_idx=3, descending=True, nulls_first=False))
    for stop in (0x10, 0xF0):
        ours = _agree("SortingColumn", data[:-1] + bytes([stop]))
        assert ours == fmt.SortingColumn(column_idx=3, descending=True, nulls_first=False)


def test_unknown_uuid_field_is_skipped():
    # Type 13 is UUID (16 raw bytes); in an unknown field, in a list and a map.
    uuid = bytes(range(16))
    known = fmt.encode(fmt.SortingColumn(column_idx=3, descending=True, nulls_first=False))[:-1]
    unknown = (bytes([0x1D]) + uuid                          # 4: uuid
               + bytes([0x19, 0x2D]) + uuid + uuid           # 5: list<uuid>, 2 elements
               + bytes([0x1B, 0x01, 0xD5]) + uuid + b"\x02")  # 6: map<uuid, i32>
    ours = _agree("SortingColumn", known + unknown + b"\x00")
    assert ours == fmt.SortingColumn(column_idx=3, descending=True, nulls_first=False)
