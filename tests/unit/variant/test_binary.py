"""pqkit.variant's binary encoding (binary.py, metadata.py, encode.py): metadata,
primitives, objects and arrays, hostile inputs. Shredded reassembly is tested in
test_shredded.py, VariantColumn and decode_table in test_column.py."""
import datetime as dt
import random
import struct
import uuid
from decimal import Decimal

import pandas as pd
import pytest

import pqkit
from pqkit.variant import VariantMetadata, decode
from pqkit.variant.binary import MAX_DEPTH, value_size
from pqkit.variant.encode import encode_array, encode_object, string
from unit.variant.builders import EMPTY, arr, int8, meta, obj, prim


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
