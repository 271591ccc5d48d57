"""Decoded values -> shredded rows, per the spec's value/typed_value table."""
from decimal import Decimal

from pqkit import datatypes as T
from pqkit.variant import VariantMetadata, decode
from pqkit.variant.shred import shred_row

SPEC = T.struct([("a", T.int64()), ("b", T.string())])


def test_a_fully_shredded_object_has_no_value():
    row = shred_row({"a": ("int8", 1), "b": ("string", "x")}, SPEC)
    assert row["value"] is None
    assert row["typed_value"] == {"a": {"value": None, "typed_value": 1},
                                  "b": {"value": None, "typed_value": "x"}}


def test_other_fields_stay_in_value_and_the_metadata_names_all():
    row = shred_row({"a": ("int8", 1), "z": ("string", "y")}, SPEC)
    assert VariantMetadata(row["metadata"]).names == ["a", "z"]
    assert decode(row["metadata"], row["value"]) == {"z": "y"}
    assert row["typed_value"]["b"] == {"value": None, "typed_value": None}     # missing


def test_a_null_field_and_a_mistyped_field_go_to_value():
    row = shred_row({"a": ("string", "n/a"), "b": ("null", None)}, SPEC)
    assert decode(row["metadata"], row["typed_value"]["a"]["value"]) == "n/a"
    assert row["typed_value"]["b"]["value"] == b"\x00"


def test_a_non_object_is_all_value():
    row = shred_row(("int8", 3), SPEC)
    assert row["typed_value"] is None and decode(row["metadata"], row["value"]) == 3


def test_arrays_shred_every_element():
    row = shred_row([("string", "a"), ("null", None)], T.list_(T.string()))
    assert row["value"] is None
    assert row["typed_value"] == [{"value": None, "typed_value": "a"},
                                  {"value": b"\x00", "typed_value": None}]


def test_decimals_rescale_only_without_loss():
    spec = T.decimal(5, 2)
    assert shred_row(("decimal4", Decimal("1.5")), spec)["typed_value"] == Decimal("1.50")
    assert shred_row(("decimal4", Decimal("1.125")), spec)["typed_value"] is None
    assert shred_row(("decimal8", Decimal("12345.5")), spec)["typed_value"] is None


def test_decimals_beyond_28_digits_rescale():
    value = Decimal("1000000000000000000.0000000000")        # 29 digits
    assert shred_row(("decimal16", value), T.decimal(38, 10))["typed_value"] == value


def test_narrower_integers_widen_wider_ones_do_not_narrow():
    assert shred_row(("int8", 5), T.int32())["typed_value"] == 5
    assert shred_row(("int64", 5), T.int32())["typed_value"] is None


def test_unshredded_spec_writes_value_only():
    row = shred_row({"a": ("int8", 1)}, None)
    assert set(row) == {"metadata", "value"}
