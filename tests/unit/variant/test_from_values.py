"""Python values -> Variant bytes: types chosen, metadata sorted and unique, smallest headers."""
import datetime as dt
import uuid
from decimal import Decimal

import pytest

import pqkit
from pqkit.variant import VariantMetadata, decode
from pqkit.variant.from_values import encode_metadata, encode_variant


@pytest.mark.parametrize("value, type_name", [
    (None, "null"), (True, "boolean"), (False, "boolean"), (5, "int8"), (-129, "int16"),
    (1 << 20, "int32"), (1 << 40, "int64"), (1 << 70, "decimal16"), (1.5, "double"),
    (Decimal("1.25"), "decimal4"), (Decimal("12345678901.5"), "decimal8"),
    (Decimal("1" * 30), "decimal16"), ("hi", "string"), ("x" * 64, "string"),
    (b"\x00\x01", "binary"), (dt.date(2020, 1, 2), "date"), (dt.time(1, 2, 3, 4), "time"),
    (dt.datetime(2020, 1, 2, 3, 4, 5, 6), "timestamp_ntz"),
    (dt.datetime(2020, 1, 2, 3, tzinfo=dt.timezone.utc), "timestamp"),
    (uuid.UUID(int=7), "uuid"),
])
def test_each_python_type_has_its_variant_type(value, type_name):
    metadata, encoded = encode_variant(value)
    got_type, got = decode(metadata, encoded, types=True)
    assert got_type == type_name
    assert got == (int(value) if isinstance(value, int) and type_name == "decimal16" else value)


def test_smallest_headers():
    assert encode_variant(5)[1] == b"\x0c\x05"              # int8: one byte
    assert encode_variant("ab")[1] == b"\x09ab"             # short string
    assert encode_variant("x" * 64)[1][:5] == b"\x40\x40\x00\x00\x00"   # long string
    # an object of one 1-byte id and 1-byte offsets
    assert encode_variant({"a": 7}) == (b"\x11\x01\x00\x01a", b"\x02\x01\x00\x00\x02\x0c\x07")


def test_metadata_keys_are_sorted_unique_and_flagged():
    metadata, encoded = encode_variant({"b": {"a": 1, "c": 2}, "a": [{"b": 3}]})
    meta = VariantMetadata(metadata)
    assert meta.names == ["a", "b", "c"]
    assert meta.sorted_strings
    assert decode(metadata, encoded) == {"a": [{"b": 3}], "b": {"a": 1, "c": 2}}


def test_metadata_keys_sort_by_utf8_bytes():
    names = ["é", "z", "A"]
    meta = VariantMetadata(encode_variant(dict.fromkeys(names, 1))[0])
    assert meta.names == sorted(names, key=lambda n: n.encode())


def test_metadata_offsets_widen_only_when_needed():
    assert encode_metadata(["a" * 255])[0] >> 6 == 0
    assert encode_metadata(["a" * 256])[0] >> 6 == 1        # 2-byte offsets


def test_typed_pairs_keep_the_exact_type():
    value = {"i": ("int32", 5), "f": ("float", 1.5), "d": ("decimal16", Decimal("1.0")),
             "n": ("timestamp_ntz_nanos", dt.datetime(2020, 1, 1))}
    metadata, encoded = encode_variant(value, types=True)
    got = decode(metadata, encoded, types=True)
    assert got["i"] == ("int32", 5) and got["f"] == ("float", 1.5)
    assert got["d"] == ("decimal16", Decimal("1.0"))
    assert got["n"][0] == "timestamp_ntz_nanos"


@pytest.mark.parametrize("value, message", [
    (object(), "no Variant type"),
    ({1: 2}, "object keys must be str"),
    (Decimal("NaN"), "finite"),
    (Decimal("1E-40"), "scale 40"),
    (1 << 200, "precision"),
])
def test_values_without_a_variant_form_raise_schema_error(value, message):
    with pytest.raises(pqkit.SchemaError, match=message):
        encode_variant(value)


@pytest.mark.parametrize("pair, message", [
    (("int8", 300), "out of the range of int8"),
    (("decimal4", Decimal("12345678901")), "does not fit decimal4"),
    (("timestamp", dt.datetime(2020, 1, 1)), "needs an aware datetime"),
    (("nonsense", 1), "not a Variant primitive type"),
])
def test_typed_pairs_that_do_not_fit_raise_schema_error(pair, message):
    with pytest.raises(pqkit.SchemaError, match=message):
        encode_variant(pair, types=True)


def test_too_deep_a_value_is_refused():
    value = 1
    for _ in range(300):
        value = [value]
    with pytest.raises(pqkit.SchemaError, match="nested deeper"):
        encode_variant(value)
