"""pqkit.variant.shredded: shredded variants reassembled over in-memory columns."""
import datetime as dt
import uuid
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.columnar.fixed import DecimalColumn
from pqkit.columnar.nested import StructColumn
from pqkit.convert.build import build_column
from pqkit.variant import decode, decode_column, unshred
from pqkit.variant.encode import string
from unit.variant.builders import EMPTY, field_group, group, int8, meta, obj, prim


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
