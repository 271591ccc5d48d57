"""What the reader makes of other writers' files: the defects the writers matrix found."""
import numpy as np

from pqkit import datatypes as T
from pqkit import format as fmt
from pqkit.columnar.column import PrimitiveColumn
from pqkit.format import ConvertedType, Type
from pqkit.format import FieldRepetitionType as R
from pqkit.read.decode import values as V
from pqkit.read.decode.arrow_restore import ArrowTypes
from pqkit.read.decode.leaf import leaf_column
from pqkit.schema.logical import leaf_type
from pqkit.schema.tree import Schema


def _leaf(**kw):
    root = fmt.SchemaElement(name="root", num_children=1)
    leaf = fmt.SchemaElement(name="code", repetition_type=R.OPTIONAL, **kw)
    return Schema([root, leaf]).columns[0]


def test_text_on_fixed_len_byte_array_reads_as_string():
    # fastparquet's fixed_text writes UTF8 on FIXED_LEN_BYTE_ARRAY(4).
    converted = _leaf(type=Type.FIXED_LEN_BYTE_ARRAY, type_length=4,
                      converted_type=ConvertedType.UTF8)
    logical = _leaf(type=Type.FIXED_LEN_BYTE_ARRAY, type_length=4,
                    logicalType=fmt.LogicalType(STRING=fmt.StringType()))
    assert leaf_type(converted) == T.string() and leaf_type(logical) == T.string()
    # Other annotations on FIXED_LEN_BYTE_ARRAY are unchanged.
    assert leaf_type(_leaf(type=Type.FIXED_LEN_BYTE_ARRAY, type_length=4)) == \
        T.fixed_size_binary(4)


def test_fixed_len_text_values_with_nulls_and_a_dictionary():
    raw = np.frombuffer("0001aé!".encode(), np.uint8).reshape(2, 4)
    mask = np.array([True, False, True])
    col = leaf_column(T.string(), Type.FIXED_LEN_BYTE_ARRAY, V.FixedValues(raw), mask,
                      mask, 3)
    assert col.type == T.string()
    assert col.to_pylist() == ["0001", None, "aé!"]
    dictionary = V.DictionaryValues(np.array([1, 1, 0], np.int32), V.FixedValues(raw))
    col = leaf_column(T.string(), Type.FIXED_LEN_BYTE_ARRAY, dictionary, None, None, 3)
    assert col.to_pylist() == ["aé!", "aé!", "0001"]


def _restored(stored, recorded):
    col = PrimitiveColumn(stored, np.array([1_000, 2_500], np.int64), None)
    field, col = ArrowTypes({"t": T.Field("t", recorded)}).restore(T.Field("t", stored), col)
    assert field.type == col.type
    return col


def test_recorded_timestamp_unit_is_not_applied():
    # pyarrow keeps the unit the file stores: coerce_timestamps="ms" of a
    # timestamp[ns] column, or timestamp[s] (stored as ms), read back as ms.
    col = _restored(T.timestamp("ms"), T.timestamp("ns"))
    assert col.type == T.timestamp("ms") and col.values.tolist() == [1_000, 2_500]
    col = _restored(T.timestamp("ms", "UTC"), T.timestamp("s", "Asia/Tokyo"))
    assert col.type == T.timestamp("ms", "Asia/Tokyo")
    assert col.values.tolist() == [1_000, 2_500]


def test_recorded_time_zone_needs_a_utc_adjusted_column():
    # An INT96 (or not UTC-adjusted) column stays naive, whatever was recorded.
    col = _restored(T.timestamp("ns"), T.timestamp("us", "America/New_York"))
    assert col.type == T.timestamp("ns")
    col = _restored(T.timestamp("us", "UTC"), T.timestamp("us", "America/New_York"))
    assert col.type == T.timestamp("us", "America/New_York")
