"""pqkit.datatypes: spellings match pyarrow, value semantics, validation."""
import copy
import doctest
import pickle

import numpy as np
import pyarrow as pa
import pytest

import pqkit.datatypes as T
from pqkit.errors import SchemaError

PAIRS = [
    (T.null(), pa.null()),
    (T.bool_(), pa.bool_()),
    (T.int8(), pa.int8()), (T.int16(), pa.int16()), (T.int32(), pa.int32()),
    (T.int64(), pa.int64()), (T.uint8(), pa.uint8()), (T.uint16(), pa.uint16()),
    (T.uint32(), pa.uint32()), (T.uint64(), pa.uint64()),
    (T.float16(), pa.float16()), (T.float32(), pa.float32()), (T.float64(), pa.float64()),
    (T.string(), pa.string()), (T.large_string(), pa.large_string()),
    (T.binary(), pa.binary()), (T.large_binary(), pa.large_binary()),
    (T.fixed_size_binary(12), pa.binary(12)), (T.fixed_size_binary(0), pa.binary(0)),
    (T.decimal(1, 0), pa.decimal128(1, 0)), (T.decimal(38, 10), pa.decimal128(38, 10)),
    (T.decimal(39, 2), pa.decimal256(39, 2)), (T.decimal(76, 76), pa.decimal256(76, 76)),
    (T.decimal(5, -2), pa.decimal128(5, -2)),
    (T.date32(), pa.date32()), (T.date64(), pa.date64()),
    (T.time32("s"), pa.time32("s")), (T.time32("ms"), pa.time32("ms")),
    (T.time64("us"), pa.time64("us")), (T.time64("ns"), pa.time64("ns")),
    (T.timestamp("s"), pa.timestamp("s")), (T.timestamp("ns"), pa.timestamp("ns")),
    (T.timestamp("ms", "UTC"), pa.timestamp("ms", "UTC")),
    (T.timestamp("us", "Europe/Paris"), pa.timestamp("us", "Europe/Paris")),
    (T.timestamp("us", "+05:30"), pa.timestamp("us", "+05:30")),
    (T.duration("s"), pa.duration("s")), (T.duration("ns"), pa.duration("ns")),
    (T.month_day_nano_interval(), pa.month_day_nano_interval()),
    (T.uuid(), pa.uuid()),
    (T.list_(T.int32()), pa.list_(pa.int32())),
    (T.list_(T.field("element", T.string(), nullable=False)),
     pa.list_(pa.field("element", pa.string(), nullable=False))),
    (T.large_list(T.list_(T.int8())), pa.large_list(pa.list_(pa.int8()))),
    (T.fixed_size_list(T.float32(), 3), pa.list_(pa.float32(), 3)),
    (T.struct([("a", T.int8()), T.field("b", T.string(), nullable=False)]),
     pa.struct([("a", pa.int8()), pa.field("b", pa.string(), nullable=False)])),
    (T.struct([]), pa.struct([])),
    (T.map_(T.string(), T.int32()), pa.map_(pa.string(), pa.int32())),
    (T.map_(T.string(), T.list_(T.int64()), keys_sorted=True),
     pa.map_(pa.string(), pa.list_(pa.int64()), keys_sorted=True)),
    (T.map_(T.field("k", T.string()), T.field("v", T.int32())),
     pa.map_(pa.field("k", pa.string(), nullable=False), pa.field("v", pa.int32()))),
    (T.dictionary(T.int32(), T.string()), pa.dictionary(pa.int32(), pa.string())),
    (T.dictionary(T.int8(), T.int64(), ordered=True),
     pa.dictionary(pa.int8(), pa.int64(), ordered=True)),
    (T.list_(T.struct({"x": T.map_(T.int32(), T.timestamp("ms", "UTC"))})),
     pa.list_(pa.struct({"x": pa.map_(pa.int32(), pa.timestamp("ms", "UTC"))}))),
]


@pytest.mark.parametrize("ours,theirs", PAIRS, ids=[str(p[1]) for p in PAIRS])
def test_str_matches_pyarrow(ours, theirs):
    assert str(ours) == str(theirs)


def test_interval_is_twelve_byte_extension():
    t = T.interval()
    assert str(t) == "extension<parquet.interval>"
    assert t.storage_type == T.fixed_size_binary(12)
    assert t != T.fixed_size_binary(12) and t != T.uuid()
    assert T.uuid().storage_type == T.fixed_size_binary(16)


@pytest.mark.parametrize("ours", [p[0] for p in PAIRS] + [T.interval()], ids=str)
def test_equal_hash_pickle_copy(ours):
    again = pickle.loads(pickle.dumps(ours))
    assert again == ours and hash(again) == hash(ours)
    assert copy.deepcopy(ours) == ours
    assert repr(ours) == f"pqkit.DataType<{ours}>"


def test_distinct_types_differ():
    types = [p[0] for p in PAIRS] + [T.interval()]
    for i, a in enumerate(types):
        for b in types[i + 1:]:
            assert a != b, (a, b)
    assert len({hash(t) for t in types}) > len(types) - 3


def test_parameters_take_part_in_equality():
    assert T.int32() == T.IntegerType(32, True)
    assert T.int32() != T.uint32()
    assert T.string() != T.binary() and T.string() != T.large_string()
    assert T.timestamp("ms") != T.timestamp("ms", "UTC")
    assert T.decimal(10, 2) != T.decimal(10, 3)
    assert T.list_(T.int32()) != T.large_list(T.int32())
    assert T.list_(T.int32()) != T.list_(T.field("element", T.int32()))
    assert T.list_(T.int32()) != T.list_(T.field("item", T.int32(), nullable=False))
    assert T.map_(T.string(), T.int32()) != T.map_(T.string(), T.int32(), keys_sorted=True)
    assert T.dictionary(T.int32(), T.string()) != T.dictionary(T.int16(), T.string())


def test_child_field_metadata_ignored_by_type_equality():
    plain = T.list_(T.field("item", T.int32()))
    with_md = T.list_(T.field("item", T.int32(), metadata={"k": "v"}))
    assert plain == with_md and hash(plain) == hash(with_md)
    assert plain.value_field != with_md.value_field
    assert with_md.value_field.metadata == {"k": "v"}


def test_types_and_fields_are_immutable():
    t = T.int32()
    with pytest.raises(AttributeError):
        t.bit_width = 64
    f = T.field("a", t, metadata={"k": "v"})
    with pytest.raises(AttributeError):
        f.name = "b"
    with pytest.raises(TypeError):
        f.metadata["x"] = "y"


def test_field_basics():
    f = T.field("a", T.int64(), nullable=False, metadata={b"k": b"v"})
    assert str(f) == "a: int64 not null"
    assert repr(T.field("b", T.string())) == "pqkit.Field<b: string>"
    assert f.with_name("z").name == "z" and f.with_name("z").nullable is False
    assert f.with_type(T.int8()).type == T.int8()
    assert pickle.loads(pickle.dumps(f)) == f
    assert f != T.field("a", T.int64(), nullable=False)
    assert hash(f) == hash(T.field("a", T.int64(), nullable=False))


def test_nested_accessors():
    lt = T.list_(T.int16())
    assert lt.value_type == T.int16() and lt.value_field.name == "item" and lt.is_nested
    mt = T.map_(T.string(), T.float64())
    assert mt.key_field == T.field("key", T.string(), nullable=False)
    assert mt.item_field == T.field("value", T.float64())
    assert mt.key_type == T.string() and mt.item_type == T.float64()
    st = T.struct({"a": T.int8(), "b": T.bool_()})
    assert st.names == ["a", "b"] and [f.type for f in st.fields] == [T.int8(), T.bool_()]
    assert T.fixed_size_list(T.int8(), 4).list_size == 4
    assert not T.int8().is_nested and T.int8().fields == ()


def test_numpy_dtypes():
    assert T.int16().numpy_dtype == np.int16 and T.uint64().numpy_dtype == np.uint64
    assert T.float16().numpy_dtype == np.float16 and T.bool_().numpy_dtype == np.bool_
    assert T.date32().numpy_dtype == np.int32 and T.date64().numpy_dtype == np.int64
    assert T.time32("ms").numpy_dtype == np.int32 and T.time64("ns").numpy_dtype == np.int64
    assert T.timestamp("us", "UTC").numpy_dtype == np.int64
    assert T.duration("s").numpy_dtype == np.int64
    mdn = T.month_day_nano_interval().numpy_dtype
    assert mdn.itemsize == 16 and mdn.names == ("months", "days", "nanoseconds")
    for t in (T.string(), T.decimal(5, 2), T.list_(T.int8()), T.null(), T.uuid()):
        assert t.numpy_dtype is None
    assert T.decimal(38, 0).bit_width == 128 and T.decimal(39, 0).bit_width == 256


@pytest.mark.parametrize("make", [
    lambda: T.IntegerType(12),
    lambda: T.FloatingType(8),
    lambda: T.fixed_size_binary(-1),
    lambda: T.decimal(0, 0),
    lambda: T.decimal(77, 0),
    lambda: T.decimal(10, 1.5),
    lambda: T.time32("us"),
    lambda: T.time64("s"),
    lambda: T.timestamp("m"),
    lambda: T.timestamp("ms", tz=5),
    lambda: T.duration("days"),
    lambda: T.fixed_size_list(T.int8(), -1),
    lambda: T.struct([("a",)]),
    lambda: T.struct(["a"]),
    lambda: T.list_("int32"),
    lambda: T.dictionary(T.string(), T.string()),
    lambda: T.dictionary(T.int32(), "x"),
    lambda: T.field(1, T.int8()),
    lambda: T.field("a", int),
])
def test_invalid_parameters_raise_schema_error(make):
    with pytest.raises(SchemaError):
        make()


def test_map_key_is_never_nullable():
    mt = T.map_(T.field("k", T.string(), nullable=True), T.int32())
    assert mt.key_field.nullable is False


def test_month_day_nano_is_a_tuple():
    v = T.MonthDayNano(1, 2, 3)
    assert v == (1, 2, 3) and v.months == 1 and v.nanoseconds == 3
    assert v == pa.array([(1, 2, 3)], pa.month_day_nano_interval()).to_pylist()[0]


def test_module_docstring_example():
    failures, _ = doctest.testmod(T)
    assert failures == 0
