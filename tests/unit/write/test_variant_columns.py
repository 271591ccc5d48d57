"""Writing VARIANT columns: the annotation, unshredded and shredded layouts, their
statistics, bad input, and random values through every layout (hypothesis)."""
import datetime as dt
import io
import uuid
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit import datatypes as T
from pqkit.columnar.nested import StructColumn
from pqkit.variant import (
    VariantColumn,
    decode,
    decode_column,
    variant_column,
    variant_column_from_bytes,
    variant_field,
)
from pqkit.variant.binary import MAX_DEPTH
from pqkit.variant.column import binary_column
from pqkit.variant.from_values import encode_variant

VALUES = [{"a": 1, "b": "x", "c": [1, 2]}, None, 5, {"a": 300, "d": Decimal("1.5")},
          [1, "x"], "str", {"b": None}]


def _write(data, **settings):
    buf = io.BytesIO()
    pqkit.write_table(data, buf, **settings)
    return buf.getvalue()


def _variant_node(data, name="v"):
    f = pqkit.ParquetFile(io.BytesIO(data))
    return next(n for n in f.schema.root.children if n.name == name)


def _read(data, name="v", types=False):
    column = pqkit.read_table(io.BytesIO(data)).column(name)
    return decode_column(column, name, types=types)


def test_a_variant_column_is_written_unshredded_with_the_annotation():
    data = _write({"v": variant_column(VALUES)})
    node = _variant_node(data)
    assert node.element.logicalType.VARIANT.specification_version == 1
    assert [(c.name, c.repetition) for c in node.children] == [("metadata", 0), ("value", 0)]
    assert _read(data) == VALUES


def test_a_table_read_back_keeps_the_annotation_and_the_bytes():
    first = _write({"v": variant_column(VALUES)}, shredding={"v": T.struct([("a", T.int64())])})
    table = pqkit.read_table(io.BytesIO(first))
    again = _write(table)
    assert _variant_node(again).element.logicalType.VARIANT is not None
    assert pqkit.read_table(io.BytesIO(again)).column("v").to_pylist() == \
        table.column("v").to_pylist()                 # same physical rows: not reshredded


def test_bytes_pairs_make_a_column():
    pairs = [encode_variant({"k": [1, 2]}), None]
    column = variant_column_from_bytes(pairs)
    assert isinstance(column, VariantColumn) and column.to_pylist() == [{"k": [1, 2]}, None]
    assert _read(_write({"v": column})) == [{"k": [1, 2]}, None]


def test_explicit_shredding_writes_typed_columns_with_statistics():
    spec = T.struct([("a", T.int64()), ("c", T.list_(T.int64()))])
    data = _write({"v": variant_column(VALUES)}, shredding={"v": spec})
    assert _read(data) == VALUES
    meta = pqkit.read_metadata(io.BytesIO(data)).row_group(0)
    by_path = {meta.column(i).path_in_schema: meta.column(i) for i in range(meta.num_columns)}
    a = by_path["v.typed_value.a.typed_value"].statistics
    assert (a.min, a.max) == (1, 300)
    c = by_path["v.typed_value.c.typed_value.list.element.typed_value"].statistics
    assert (c.min, c.max) == (1, 2)
    # the fallback value of "a" is null everywhere: pruning on its typed column is sound
    assert by_path["v.typed_value.a.value"].statistics.null_count == len(VALUES)


def test_auto_shredding_follows_the_first_row_group():
    values = [{"n": i, "s": f"x{i}"} for i in range(10)] + [{"n": "text", "s": 5}] * 10
    data = _write({"v": variant_column(values)}, shredding="auto", row_group_size=10)
    node = _variant_node(data)
    typed = next(c for c in node.children if c.name == "typed_value")
    assert [c.name for c in typed.children] == ["n", "s"]
    assert _read(data) == values                # the second row group's misfits in value


def test_auto_shredding_of_no_rows_writes_unshredded():
    data = _write({"v": variant_column([])}, shredding="auto")
    assert [c.name for c in _variant_node(data).children] == ["metadata", "value"]


def test_a_shredded_column_can_be_written_unshredded():
    shredded = _write({"v": variant_column(VALUES)}, shredding="auto")
    table = pqkit.read_table(io.BytesIO(shredded))
    data = _write(table, shredding={"v": None})
    assert [c.name for c in _variant_node(data).children] == ["metadata", "value"]
    assert _read(data) == VALUES


def test_bytes_that_lie_about_sizes_raise_variant_error_and_leave_no_file_to_read(tmp_path):
    with pytest.raises(pqkit.VariantError, match="row 1"):
        variant_column_from_bytes([encode_variant(1), (b"\x01\x00\x00", b"\x02\x05\x00")])
    good = variant_column([1, 2])
    lying = binary_column([good.children[1].to_pylist()[0], b"\x03\x09\x00"])
    broken = StructColumn(good.type, [good.children[0], lying])
    table = pqkit.Table([broken], [variant_field("v", good.type)])
    path = tmp_path / "out.parquet"
    with pytest.raises(pqkit.VariantError, match="variant column 'v', row 1"):
        pqkit.write_table(table, str(path))
    with pytest.raises(pqkit.ParquetError):          # no footer was written
        pqkit.read_table(str(path))


def test_a_shredding_schema_that_does_not_fit_is_a_schema_error():
    column = variant_column([1])
    with pytest.raises(pqkit.SchemaError, match="not a type the Variant shredding"):
        _write({"v": column}, shredding={"v": T.uint64()})
    with pytest.raises(pqkit.SchemaError, match="not a VARIANT"):
        _write({"v": column, "i": [1]}, shredding={"i": T.int64()})
    with pytest.raises(pqkit.SchemaError, match="names no column"):
        _write({"v": column}, shredding={"w": T.int64()})
    with pytest.raises(pqkit.ArgumentError, match="shredding must be"):
        pqkit.WriteOptions(shredding=["v"])


# --- random values through every layout ---------------------------------------------------

KEYS = st.sampled_from(["a", "b", "c", "é", "key", "a longer key name"])
PRIMITIVES = st.one_of(
    st.just(("null", None)), st.builds(lambda b: ("boolean", b), st.booleans()),
    st.builds(lambda i: ("int8", i), st.integers(-128, 127)),
    st.builds(lambda i: ("int16", i), st.integers(-2 ** 15, 2 ** 15 - 1)),
    st.builds(lambda i: ("int32", i), st.integers(-2 ** 31, 2 ** 31 - 1)),
    st.builds(lambda i: ("int64", i), st.integers(-2 ** 63, 2 ** 63 - 1)),
    st.builds(lambda f: ("double", f), st.floats(allow_nan=False)),
    st.builds(lambda f: ("float", f), st.floats(width=32, allow_nan=False)),
    st.builds(lambda d: ("decimal4", d), st.decimals(places=2, min_value=-9999999,
                                                     max_value=9999999)),
    st.builds(lambda d: ("decimal16", d), st.decimals(places=10, allow_nan=False,
                                                      allow_infinity=False,
                                                      min_value=-10 ** 20, max_value=10 ** 20)),
    st.builds(lambda s: ("string", s), st.text(max_size=80)),
    st.builds(lambda b: ("binary", b), st.binary(max_size=20)),
    st.builds(lambda d: ("date", d), st.dates()),
    st.builds(lambda t: ("time", t), st.times()),
    st.builds(lambda d: ("timestamp_ntz", d), st.datetimes()),
    st.builds(lambda d: ("timestamp", d.replace(tzinfo=dt.timezone.utc)),
              st.datetimes(min_value=dt.datetime(1900, 1, 1))),
    st.builds(lambda u: ("uuid", u), st.uuids()),
    st.builds(lambda d: ("timestamp_ntz_nanos", d),
              st.datetimes(min_value=dt.datetime(1700, 1, 1), max_value=dt.datetime(2200, 1, 1))),
    st.builds(lambda d: ("timestamp_nanos", d.replace(tzinfo=dt.timezone.utc)),
              st.datetimes(min_value=dt.datetime(1700, 1, 1), max_value=dt.datetime(2200, 1, 1))),
    st.builds(lambda d: ("decimal8", d), st.decimals(places=4, min_value=-10 ** 13,
                                                     max_value=10 ** 13)),
)
VARIANTS = st.recursive(
    PRIMITIVES,
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(KEYS, children, max_size=5)),
    max_leaves=25)
LEAF_SPECS = st.sampled_from([
    T.bool_(), T.int8(), T.int16(), T.int32(), T.int64(), T.float32(), T.float64(),
    T.decimal(9, 2), T.decimal(18, 4), T.decimal(38, 10), T.string(), T.binary(), T.date32(),
    T.time64("us"), T.timestamp("us"), T.timestamp("us", "UTC"), T.timestamp("ns"),
    T.timestamp("ns", "UTC"), T.uuid()])
SPECS = st.recursive(
    LEAF_SPECS,
    lambda children: st.one_of(
        st.builds(T.list_, children),
        st.dictionaries(KEYS, children, min_size=1, max_size=4).map(
            lambda d: T.struct(list(d.items())))),
    max_leaves=8)


def _expected(values, types):
    """What a reader gives back: each value through the encoder and the decoder."""
    return [None if v is None else decode(*encode_variant(v, True), types=types)
            for v in values]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.none(), VARIANTS), min_size=1, max_size=8), SPECS)
def test_random_variants_survive_every_layout(values, spec):
    column = variant_column(values, types=True)
    unshredded = _write({"v": column})
    assert _read(unshredded, types=True) == _expected(values, True)
    for shredding in ({"v": spec}, "auto"):
        data = _write({"v": column}, shredding=shredding)
        assert _read(data) == _expected(values, False)


def test_objects_with_many_keys_and_deep_nesting_survive():
    wide = {f"k{i:04d}": ("int16", i) for i in range(300)}      # is_large, 2-byte ids
    deep = ("string", "bottom")
    for i in range(MAX_DEPTH - 1):
        deep = [deep] if i % 2 else {"d": deep}
    values = [wide, deep, {"a": [wide, {"a": wide}]}]
    column = variant_column(values, types=True)
    for shredding in (None, "auto"):
        data = _write({"v": column}, shredding=shredding)
        assert _read(data, types=shredding is None) == _expected(values, shredding is None)


def test_values_of_every_python_type_survive_auto_shredding():
    values = [{"t": dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), "u": uuid.UUID(int=1),
               "d": dt.date(2020, 1, 2), "b": b"\x00", "f": 1.5, "x": Decimal("2.50")}] * 3
    data = _write({"v": variant_column(values)}, shredding="auto")
    assert _read(data) == values


@pytest.mark.parametrize("precision, physical", [(9, "INT32"), (18, "INT64"),
                                                 (19, "FIXED_LEN_BYTE_ARRAY")])
def test_shredded_decimals_use_the_spec_physical_types(precision, physical):
    values = [{"d": Decimal("1.5")}, {"d": Decimal("-3.25")}, {"d": "not a number"}]
    spec = T.struct([("d", T.decimal(precision, 2))])
    data = _write({"v": variant_column(values)}, shredding={"v": spec})
    f = pqkit.ParquetFile(io.BytesIO(data))
    leaf = next(c for c in f.schema.columns if c.dotted_path == "v.typed_value.d.typed_value")
    assert pqkit.format.Type(leaf.physical_type).name == physical
    assert _read(data) == values
    stats = f.metadata.row_group(0).column(leaf.column_index).statistics
    assert (stats.min, stats.max) == (Decimal("-3.25"), Decimal("1.50"))


def test_decimals_outside_a_variant_stay_fixed_width():
    data = _write({"d": [Decimal("1.5")]})
    assert pqkit.ParquetFile(io.BytesIO(data)).schema.columns[0].physical_type == \
        pqkit.format.Type.FIXED_LEN_BYTE_ARRAY
