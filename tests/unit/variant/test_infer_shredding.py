"""The "auto" shredding rule: the dominant kind per level, widest ints, fields by frequency."""
from decimal import Decimal

from pqkit import datatypes as T
from pqkit.variant.infer_shredding import MAX_DEPTH, infer_schema


def test_integers_take_the_widest_width_seen():
    assert infer_schema([("int8", 1), ("int32", 70000), None, ("null", None)]) == T.int32()


def test_a_kind_under_half_of_the_values_is_not_shredded():
    assert infer_schema([("int8", 1), ("string", "a"), ("double", 1.0)]) is None
    assert infer_schema([("int8", 1), ("int8", 2), ("string", "a")]) == T.int8()


def test_nothing_but_nulls_infers_nothing():
    assert infer_schema([None, ("null", None)]) is None


def test_objects_shred_their_fields_each_by_its_own_values():
    rows = [{"a": ("int8", 1), "b": ("string", "x")}, {"a": ("int16", 300)},
            {"b": ("null", None), "c": ("null", None)}]
    assert infer_schema(rows) == T.struct([("a", T.int16()), ("b", T.string())])


def test_arrays_shred_their_elements():
    rows = [[("string", "a")], [("string", "b"), ("int8", 1)], [("string", "c")]]
    assert infer_schema(rows) == T.list_(T.string())


def test_decimals_get_enough_scale_and_digits():
    rows = [("decimal4", Decimal("1.25")), ("decimal8", Decimal("123456.5"))]
    assert infer_schema(rows) == T.decimal(8, 2)


def _chain(objects):
    value = ("int8", 1)
    for _ in range(objects):
        value = {"a": value}
    return value


def test_nesting_stops_at_max_depth():
    spec = infer_schema([_chain(MAX_DEPTH)])
    for _ in range(MAX_DEPTH):
        assert spec.names == ["a"]
        spec = spec.fields[0].type
    assert spec == T.int8()
    # one level more: the innermost object is not shredded, so no field of any level is
    assert infer_schema([_chain(MAX_DEPTH + 1)]) is None
