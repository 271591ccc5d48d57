"""pqkit.variant: the Variant binary encoding, shredded reassembly, hostile inputs."""
import datetime as dt
import io
import random
import struct
import uuid
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit import format as F
from pqkit.columnar.column import concat_columns
from pqkit.columnar.fixed import DecimalColumn
from pqkit.columnar.nested import StructColumn
from pqkit.convert.build import build_column
from pqkit.variant import (
    VariantColumn,
    VariantMetadata,
    decode,
    decode_column,
    decode_table,
    unshred,
)
from pqkit.variant.binary import MAX_DEPTH, value_size
from pqkit.variant.encode import encode_array, encode_object, string

EMPTY = b"\x01\x00\x00"          # version 1, no names


def meta(*names, offset_size=1, sorted_strings=False):
    """Metadata bytes for ``names`` with ``offset_size``-byte sizes and offsets."""
    data = [n.encode() for n in names]
    offsets = [0]
    for d in data:
        offsets.append(offsets[-1] + len(d))
    header = 1 | (0x10 if sorted_strings else 0) | (offset_size - 1) << 6
    return bytes([header]) + b"".join(
        x.to_bytes(offset_size, "little") for x in [len(names)] + offsets) + b"".join(data)


def prim(type_id, payload=b""):
    return bytes([type_id << 2]) + payload


def int8(v):
    return prim(3, v.to_bytes(1, "little", signed=True))


def obj(fields, id_size=1, offset_size=1, large=False, order=None):
    """An object from (field id, encoded value) pairs listed as given; the values are laid
    out in ``order`` (indices into ``fields``), so offsets need not increase."""
    order = list(range(len(fields))) if order is None else order
    starts, body = {}, b""
    for i in order:
        starts[i] = len(body)
        body += fields[i][1]
    offsets = [starts[i] for i in range(len(fields))] + [len(body)]
    header = (large << 4 | (id_size - 1) << 2 | (offset_size - 1)) << 2 | 2
    count = len(fields).to_bytes(4 if large else 1, "little")
    return (bytes([header]) + count + b"".join(f[0].to_bytes(id_size, "little") for f in fields)
            + b"".join(o.to_bytes(offset_size, "little") for o in offsets) + body)


def arr(values, offset_size=1, large=False):
    offsets, at = [], 0
    for v in values:
        offsets.append(at)
        at += len(v)
    offsets.append(at)
    header = (large << 2 | (offset_size - 1)) << 2 | 3
    return (bytes([header]) + len(values).to_bytes(4 if large else 1, "little")
            + b"".join(o.to_bytes(offset_size, "little") for o in offsets) + b"".join(values))


# --- metadata ----------------------------------------------------------------------------
def test_metadata_docstring_example():
    m = VariantMetadata(bytes.fromhex("1102000103616263"))
    assert m.names == ["a", "bc"] and m.sorted_strings and m.nbytes == 8


@pytest.mark.parametrize("offset_size", [1, 2, 3, 4])
def test_metadata_offset_sizes(offset_size):
    raw = meta("x", "yy", "zzz", offset_size=offset_size)
    m = VariantMetadata(raw + b"trailing")
    assert m.names == ["x", "yy", "zzz"]
    assert m.nbytes == len(raw)
    assert m.field_id("yy") == 1 and m.field_id("nope") is None


@pytest.mark.parametrize("raw, fragment", [
    (b"", "empty"),
    (b"\x02\x00\x00", "version 2"),
    (b"\x01", "dictionary_size at byte 1"),
    (b"\x01\x02\x00\x01", "dictionary_size 2 needs 5 bytes"),
    (b"\x01\x01\x01\x01a", "offset 0 is 1"),
    (b"\x01\x02\x00\x02\x01ab", "offset 2 is 1"),
    (b"\x01\x01\x00\x05ab", "names span only 2 bytes"),
    (b"\x01\x01\x00\x01\xff", "not UTF-8"),
    (b"\xc1\xff\xff\xff\xff", "dictionary_size 4294967295 needs"),
])
def test_metadata_errors(raw, fragment):
    with pytest.raises(pqkit.VariantError, match=fragment):
        VariantMetadata(raw)


def test_variant_error_is_a_corrupt_file_error():
    assert issubclass(pqkit.VariantError, pqkit.CorruptFileError)


# --- primitives ----------------------------------------------------------------------------
PRIMITIVE_CASES = [
    (prim(0), "null", None),
    (prim(1), "boolean", True),
    (prim(2), "boolean", False),
    (int8(-5), "int8", -5),
    (prim(4, (-1234).to_bytes(2, "little", signed=True)), "int16", -1234),
    (prim(5, (2**31 - 1).to_bytes(4, "little")), "int32", 2**31 - 1),
    (prim(6, (-2**63).to_bytes(8, "little", signed=True)), "int64", -2**63),
    (prim(7, struct.pack("<d", -0.5)), "double", -0.5),
    (prim(14, struct.pack("<f", 1.5)), "float", 1.5),
    (prim(8, b"\x02" + (-1234).to_bytes(4, "little", signed=True)), "decimal4",
     Decimal("-12.34")),
    (prim(9, b"\x00" + (10**17).to_bytes(8, "little")), "decimal8", Decimal(10**17)),
    (prim(10, b"\x26" + (-(10**38 - 1)).to_bytes(16, "little", signed=True)), "decimal16",
     Decimal(f"-{'9' * 38}E-38")),
    (prim(11, (-1).to_bytes(4, "little", signed=True)), "date", dt.date(1969, 12, 31)),
    (prim(12, (1_000_001).to_bytes(8, "little")), "timestamp",
     dt.datetime(1970, 1, 1, 0, 0, 1, 1, tzinfo=dt.timezone.utc)),
    (prim(13, (86_400_000_000).to_bytes(8, "little")), "timestamp_ntz",
     dt.datetime(1970, 1, 2)),
    (prim(17, (3_723_000_004).to_bytes(8, "little")), "time", dt.time(1, 2, 3, 4)),
    (prim(18, (1_000_000_001).to_bytes(8, "little")), "timestamp_nanos",
     pd.Timestamp(1_000_000_001, tz="UTC")),
    (prim(19, (-1).to_bytes(8, "little", signed=True)), "timestamp_ntz_nanos",
     pd.Timestamp(-1)),
    (prim(20, bytes(range(16))), "uuid", uuid.UUID(bytes=bytes(range(16)))),
    (prim(15, b"\x03\x00\x00\x00\x00\xff\x01"), "binary", b"\x00\xff\x01"),
    (prim(16, b"\x02\x00\x00\x00\xc3\xa9"), "string", "é"),
    (bytes([3 << 2 | 1]) + b"abc", "string", "abc"),
    (b"\x01", "string", ""),
]


@pytest.mark.parametrize("value, name, expected", PRIMITIVE_CASES)
def test_primitives(value, name, expected):
    got = decode(EMPTY, value)
    assert got == expected and type(got) is type(expected)
    assert decode(EMPTY, value, types=True) == (name, expected)
    assert value_size(memoryview(value), 0, len(value)) == len(value)


def test_decimal_keeps_its_scale():
    got = decode(EMPTY, prim(8, b"\x03" + (1200).to_bytes(4, "little")))
    assert str(got) == "1.200"


def test_timestamp_is_utc_aware_and_ntz_naive():
    aware = decode(EMPTY, prim(12, (0).to_bytes(8, "little")))
    naive = decode(EMPTY, prim(13, (0).to_bytes(8, "little")))
    assert aware.utcoffset() == dt.timedelta(0) and naive.tzinfo is None


@pytest.mark.parametrize("value, fragment", [
    (prim(21), "unknown variant primitive type id 21"),
    (prim(8, b"\x27\x00\x00\x00\x00"), "scale 39"),
    (prim(6, b"\x01\x02"), "int64 at byte 1 needs 8 bytes, only 2 remain"),
    (prim(16, b"\xff\xff\xff\xffab"), "string at byte 5 needs 4294967295 bytes"),
    (prim(15, b"\x01\x00"), "binary length at byte 1 needs 4 bytes"),
    (bytes([5 << 2 | 1]) + b"abc", "short string at byte 1 needs 5 bytes"),
    (bytes([2 << 2 | 1]) + b"\xc3\x28", "string at byte 1 is not UTF-8"),
    (b"", "variant value at byte 0 needs 1 bytes"),
])
def test_primitive_errors(value, fragment):
    with pytest.raises(pqkit.VariantError, match=fragment):
        decode(EMPTY, value)


def test_date_out_of_range_is_a_parquet_error():
    with pytest.raises(pqkit.ParquetError, match="range"):
        decode(EMPTY, prim(11, (2**31 - 1).to_bytes(4, "little")))


# --- objects and arrays ---------------------------------------------------------------------
def test_binary_module_example():
    assert decode(b"\x01\x01\x00\x01a", bytes.fromhex("02010000020c07")) == {"a": 7}


@pytest.mark.parametrize("id_size", [1, 2, 3, 4])
@pytest.mark.parametrize("offset_size", [1, 2, 3, 4])
def test_object_id_and_offset_sizes(id_size, offset_size):
    m = meta("a", "b", "c")
    # listed in name order, values laid out c, a, b: offsets do not increase
    value = obj([(0, int8(1)), (1, string(b"two")), (2, prim(0))], id_size, offset_size,
                order=[2, 0, 1])
    got = decode(m, value)
    assert got == {"a": 1, "b": "two", "c": None}
    assert list(got) == ["a", "b", "c"]


def test_object_is_large_with_few_fields():
    assert decode(meta("k"), obj([(0, int8(3))], large=True)) == {"k": 3}


def test_object_with_more_than_255_fields():
    names = [f"f{i:03d}" for i in range(300)]
    value = encode_object([(n, i, int8(i % 100)) for i, n in enumerate(names)])
    assert value[0] >> 2 & 0x10          # is_large
    assert decode(meta(*names, offset_size=2), value) == {n: i % 100
                                                         for i, n in enumerate(names)}


@pytest.mark.parametrize("offset_size", [1, 2, 3, 4])
def test_array_offset_sizes(offset_size):
    value = arr([int8(1), arr([]), obj([]), string(b"x" * 70)], offset_size)
    assert decode(EMPTY, value) == [1, [], {}, "x" * 70]


def test_array_is_large():
    assert decode(EMPTY, arr([prim(1)] * 3, large=True)) == [True, True, True]


def test_nested_values():
    m = meta("id", "tags", "inner")
    inner = obj([(0, int8(7))])
    value = obj([(0, int8(1)), (2, inner), (1, arr([string(b"a"), prim(0)]))])
    assert decode(m, value) == {"id": 1, "inner": {"id": 7}, "tags": ["a", None]}


def test_encode_object_example_and_round_trip():
    value = encode_object([("b", 1, b"\x0c\x02"), ("a", 0, b"\x0c\x01")])
    assert value == bytes.fromhex("0202000100020 40c010c02".replace(" ", ""))
    assert decode(meta("a", "b"), value) == {"a": 1, "b": 2}
    big = encode_array([string(b"y" * 300)] * 300)       # 2-byte offsets... then 3
    assert decode(EMPTY, big) == ["y" * 300] * 300


@pytest.mark.parametrize("value, fragment", [
    (obj([(5, int8(1))]), "field id 5 .* outside the metadata dictionary of 1 names"),
    (bytes([2, 1, 0, 0, 9, 12, 1]), "claims 9 bytes of values"),
    (bytes([2, 1, 0, 2, 2, 12, 1]), "element 0 .* has offset 2, past its 2 bytes"),
    (bytes([2 | 0x40, 0xff, 0xff, 0xff, 0xff]), "object at byte 0 with 4294967295 elements"),
    (bytes([3 | 0x10, 0xff, 0xff, 0xff, 0xff]), "array at byte 0 with 4294967295 elements"),
    (bytes([3, 2, 0, 1]), ("array at byte 0 with 2 elements needs 5 bytes of ids and offsets, "
                           "only 4 remain")),
])
def test_container_errors(value, fragment):
    with pytest.raises(pqkit.VariantError, match=fragment):
        decode(meta("a"), value)


def test_duplicate_field_name_is_refused():
    m = meta("a", "a")                  # unsorted dictionaries may repeat a name
    with pytest.raises(pqkit.VariantError, match="field 'a' twice"):
        decode(m, obj([(0, int8(1)), (1, int8(2))]))


def test_nesting_deeper_than_the_limit_is_refused():
    value = prim(0)
    for _ in range(MAX_DEPTH + 1):
        value = arr([value], offset_size=4)
    with pytest.raises(pqkit.VariantError, match=f"deeper than {MAX_DEPTH}"):
        decode(EMPTY, value)
    ok = prim(0)
    for _ in range(MAX_DEPTH):
        ok = arr([ok], offset_size=4)
    assert decode(EMPTY, ok) is not None


def test_aliased_subtrees_are_refused():
    # every element of every level points at the same child: 64**4 values from ~300 bytes
    value = prim(0)
    for _ in range(4):
        value = bytes([3, 64]) + bytes(64) + bytes([len(value)]) + value
    with pytest.raises(pqkit.VariantError, match="overlap"):
        decode(EMPTY, value)


def test_every_truncation_raises_a_variant_error():
    m = meta("a", "b")
    value = obj([(0, arr([int8(1), string(b"x" * 80)])), (1, prim(9, b"\x02" + bytes(8)))])
    assert decode(m, value) == {"a": [1, "x" * 80], "b": Decimal("0.00")}
    for cut in range(len(value)):
        with pytest.raises(pqkit.VariantError):
            decode(m, value[:cut])


def test_random_corruption_never_escapes_parquet_error():
    rng = random.Random(1234)
    m = meta("a", "b", "c")
    good = obj([(0, arr([int8(1), prim(12, bytes(8)), string(b"hello")])),
                (1, obj([(2, prim(16, b"\x03\x00\x00\x00abc"))])), (2, prim(20, bytes(16)))])
    outcomes = {"ok": 0, "error": 0}
    for _ in range(3000):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            decode(m, bytes(data))
            outcomes["ok"] += 1
        except pqkit.ParquetError:
            outcomes["error"] += 1
    assert outcomes["ok"] and outcomes["error"]


# --- shredded reassembly over in-memory columns -----------------------------------------------
def group(typed_type=None, value=True):
    fields = [T.Field("metadata", T.binary(), False)]
    if value:
        fields.append(T.Field("value", T.binary()))
    if typed_type is not None:
        fields.append(T.Field("typed_value", typed_type))
    return T.StructType(fields)


def field_group(typed_type=None, value=True):
    fields = [T.Field("value", T.binary())] if value else []
    if typed_type is not None:
        fields.append(T.Field("typed_value", typed_type))
    return T.StructType(fields)


def typed_rows(column):
    out = []
    for pair in unshred(column, "v"):
        out.append(None if pair is None else decode(pair[0], pair[1], types=True))
    return out


@pytest.mark.parametrize("typed_type, typed, expected", [
    (T.int8(), -3, ("int8", -3)),
    (T.int16(), 300, ("int16", 300)),
    (T.int32(), 7, ("int32", 7)),
    (T.int64(), 2**40, ("int64", 2**40)),
    (T.bool_(), False, ("boolean", False)),
    (T.float32(), 0.25, ("float", 0.25)),
    (T.float64(), -0.0, ("double", -0.0)),
    (T.DecimalType(9, 2), Decimal("1.25"), ("decimal4", Decimal("1.25"))),
    (T.DecimalType(18, 3), Decimal("-1.250"), ("decimal8", Decimal("-1.250"))),
    (T.date32(), dt.date(2024, 2, 29), ("date", dt.date(2024, 2, 29))),
    (T.Time64Type("us"), dt.time(23, 59, 59, 999999), ("time", dt.time(23, 59, 59, 999999))),
    (T.TimestampType("us", "UTC"), dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc),
     ("timestamp", dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc))),
    (T.TimestampType("us"), dt.datetime(2020, 1, 1, 1), ("timestamp_ntz",
                                                         dt.datetime(2020, 1, 1, 1))),
    (T.string(), "x" * 100, ("string", "x" * 100)),
    (T.binary(), b"\x00\x01", ("binary", b"\x00\x01")),
    (T.uuid(), uuid.UUID(int=5), ("uuid", uuid.UUID(int=5))),
])
def test_shredded_primitives(typed_type, typed, expected):
    col = build_column([{"metadata": EMPTY, "value": None, "typed_value": typed},
                        {"metadata": EMPTY, "value": string(b"n/a"), "typed_value": None},
                        {"metadata": EMPTY, "value": None, "typed_value": None},
                        None], group(typed_type))
    assert typed_rows(col) == [expected, ("string", "n/a"), ("null", None), None]


def test_shredded_nanosecond_timestamps_keep_nanoseconds():
    t = T.TimestampType("ns")
    col = build_column([{"metadata": EMPTY, "typed_value": pd.Timestamp(5)}], group(t, False))
    assert unshred(col) == [(EMPTY, prim(19, (5).to_bytes(8, "little")))]


def test_decimal16_from_wide_decimals():
    col = build_column([{"metadata": EMPTY, "typed_value": Decimal("-1" + "0" * 30)}],
                       group(T.DecimalType(38, 0), False))
    assert typed_rows(col) == [("decimal16", Decimal(-10**30))]


def test_decimal_slots_under_nulls_are_not_encoded():
    typed = DecimalColumn(T.DecimalType(9, 2), np.array([2**40, 125], np.int64),
                          np.array([False, True]))
    meta_col = build_column([EMPTY, EMPTY], T.binary())
    col = StructColumn(group(T.DecimalType(9, 2), False), [meta_col, typed])
    assert typed_rows(col) == [("null", None), ("decimal4", Decimal("1.25"))]


@pytest.mark.parametrize("typed_type", [T.uint32(), T.float16(), T.date64(),
                                        T.TimestampType("ms"), T.FixedSizeBinaryType(4)])
def test_types_outside_the_shredding_table_are_refused(typed_type):
    col = build_column([{"metadata": EMPTY, "typed_value": None}], group(typed_type, False))
    with pytest.raises(pqkit.VariantError, match="not a type the Variant shredding spec"):
        unshred(col, "v")


def test_value_and_typed_value_both_set_is_refused():
    col = build_column([{"metadata": EMPTY, "value": int8(1), "typed_value": 1}],
                       group(T.int32()))
    with pytest.raises(pqkit.VariantError,
                       match=r"'v', row 0: value and typed_value are both set"):
        unshred(col, "v")


OBJ_TYPE = T.StructType([T.Field("a", field_group(T.int32()), False),
                         T.Field("b", field_group(T.string()), False)])


def test_partially_shredded_object():
    m = meta("a", "b", "c")
    rows = [
        {"metadata": m, "value": obj([(2, string(b"rest"))]),             # partial
         "typed_value": {"a": {"value": None, "typed_value": 1},
                         "b": {"value": None, "typed_value": "x"}}},
        {"metadata": m, "value": None,                                   # a missing, b null
         "typed_value": {"a": {"value": None, "typed_value": None},
                         "b": {"value": prim(0), "typed_value": None}}},
        {"metadata": m, "value": string(b"not an object"), "typed_value": None},
        {"metadata": m, "value": None,                                   # empty object
         "typed_value": {"a": {"value": None, "typed_value": None},
                         "b": {"value": None, "typed_value": None}}},
        {"metadata": m, "value": obj([(0, int8(9))]),                     # conflict: typed wins
         "typed_value": {"a": {"value": None, "typed_value": 2},
                         "b": {"value": None, "typed_value": None}}},
    ]
    col = build_column(rows, group(OBJ_TYPE))
    assert decode_column(col, "v") == [{"a": 1, "b": "x", "c": "rest"}, {"b": None},
                                       "not an object", {}, {"a": 2}]


def test_non_object_value_beside_shredded_fields_is_refused():
    col = build_column([{"metadata": meta("a", "b"), "value": int8(1),
                         "typed_value": {"a": {"value": None, "typed_value": None},
                                         "b": {"value": None, "typed_value": None}}}],
                       group(OBJ_TYPE))
    with pytest.raises(pqkit.VariantError, match="must be an object"):
        unshred(col, "v")


def test_shredded_field_missing_from_metadata_is_refused():
    col = build_column([{"metadata": meta("b"), "value": None,
                         "typed_value": {"a": {"value": None, "typed_value": 1},
                                         "b": {"value": None, "typed_value": None}}}],
                       group(OBJ_TYPE))
    with pytest.raises(pqkit.VariantError, match="'a' is not in the row's metadata"):
        unshred(col, "v")


ARRAY_TYPE = T.list_(T.Field("element", field_group(T.string()), False))


def test_shredded_arrays():
    rows = [
        {"metadata": EMPTY, "value": None,
         "typed_value": [{"value": None, "typed_value": "a"},
                         {"value": prim(0), "typed_value": None},
                         {"value": None, "typed_value": None}]},        # missing -> null
        {"metadata": EMPTY, "value": prim(0), "typed_value": None},
        {"metadata": EMPTY, "value": None, "typed_value": []},
    ]
    col = build_column(rows, group(ARRAY_TYPE))
    assert decode_column(col, "v") == [["a", None, None], None, []]
    # rows of a slice still find their elements
    assert decode_column(col.slice(1), "v") == [None, []]


def test_array_element_with_value_and_typed_value_is_refused():
    col = build_column([{"metadata": EMPTY, "value": None,
                         "typed_value": [{"value": int8(1), "typed_value": "a"}]}],
                       group(ARRAY_TYPE))
    with pytest.raises(pqkit.VariantError, match=r"row 0 at typed_value\.element"):
        unshred(col, "v")


def test_array_with_value_set_is_refused():
    col = build_column([{"metadata": EMPTY, "value": prim(0), "typed_value": []}],
                       group(ARRAY_TYPE))
    with pytest.raises(pqkit.VariantError, match="both set for an array"):
        unshred(col, "v")


def test_null_metadata_is_refused():
    t = T.StructType([T.Field("metadata", T.binary()), T.Field("value", T.binary())])
    col = build_column([{"metadata": None, "value": prim(0)}], t)
    with pytest.raises(pqkit.VariantError, match="row 0: metadata is null"):
        unshred(col, "v")


@pytest.mark.parametrize("t, fragment", [
    (T.StructType([T.Field("metadata", T.string()), T.Field("value", T.binary())]),
     "'v' metadata is string"),
    (T.StructType([T.Field("metadata", T.binary()), T.Field("value", T.int32())]),
     "'v' at value is int32"),
])
def test_metadata_and_value_must_be_binary(t, fragment):
    col = build_column([None], t)
    with pytest.raises(pqkit.VariantError, match=fragment):
        unshred(col, "v")


def test_bad_value_bytes_name_column_and_row():
    col = build_column([{"metadata": EMPTY, "value": prim(0)},
                        {"metadata": EMPTY, "value": prim(21)}], group())
    with pytest.raises(pqkit.VariantError, match=r"'v', row 1: unknown variant primitive"):
        decode_column(col, "v")


# --- VariantColumn ----------------------------------------------------------------------------
def test_variant_column_slices_takes_and_concatenates():
    col = build_column([{"metadata": EMPTY, "value": int8(i)} for i in range(5)], group())
    vc = VariantColumn(col, decode_column(col))
    assert vc.to_pylist() == [0, 1, 2, 3, 4]
    assert vc.slice(1, 3).to_pylist() == [1, 2]
    assert vc.take(np.array([4, 0])).to_pylist() == [4, 0]
    assert vc[2] == 2
    both = concat_columns([vc.slice(0, 2), vc.slice(3)])
    assert isinstance(both, VariantColumn) and both.to_pylist() == [0, 1, 3, 4]
    assert vc.to_pandas().tolist() == [0, 1, 2, 3, 4]
    assert vc.equals(col)                   # the physical struct is unchanged


def test_read_table_rejects_an_unknown_variant_option(tmp_path):
    p = tmp_path / "x.parquet"
    pqkit.write_table({"a": [1]}, str(p))
    with pytest.raises(ValueError, match="variant must be"):
        pqkit.read_table(str(p), variant="json")
    assert pqkit.read_table(str(p), variant="decode").to_pydict() == {"a": [1]}


def test_decode_table_finds_variants_nested_in_structs():
    """A VARIANT inside a plain struct is decoded; rows under a null parent are not read."""
    vt = T.StructType([T.Field("metadata", T.binary()), T.Field("value", T.binary())])
    outer = T.StructType([T.Field("v", vt), T.Field("n", T.int32())])
    col = build_column([{"v": {"metadata": EMPTY, "value": int8(5)}, "n": 1}, None,
                        {"v": None, "n": 2}], outer)
    buf = io.BytesIO()
    pqkit.write_table(pqkit.Table([col], ["outer"]), buf)
    f = pqkit.ParquetFile(buf.getvalue())
    elements = f.schema.elements        # pqkit writes no VARIANT annotation: add one
    next(e for e in elements if e.name == "v").logicalType = F.LogicalType(
        VARIANT=F.VariantType())
    table = decode_table(f.read(), pqkit.Schema(elements))
    assert isinstance(table.column("outer").field("v"), VariantColumn)
    assert table.to_pylist() == [{"outer": {"v": 5, "n": 1}}, {"outer": None},
                                 {"outer": {"v": None, "n": 2}}]
    assert decode_table(f.read(), f.schema).column("outer").equals(f.read().column("outer"))
