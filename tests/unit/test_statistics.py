"""pqkit.statistics: the one home of sort order and signedness, and bound decoding."""
import struct

import pytest

from pqkit import format as fmt
from pqkit.encodings.physical import PLAIN_WIDTH, struct_format
from pqkit.format import ConvertedType as CT
from pqkit.format import Type
from pqkit.read.prune.filters import bound_decoder, chunk_statistics
from pqkit.schema.tree import Schema
from pqkit.statistics import (bound_width, decode_stat_value, is_unsigned, legacy_bound,
                              logical_stat_decoder, logical_stat_value)
from pqkit.write.page_index import sort_key

LT = fmt.LogicalType


def leaf(physical, logical=None, converted=None):
    root = fmt.SchemaElement(name="root", num_children=1)
    el = fmt.SchemaElement(name="c", type=physical, logicalType=logical,
                           converted_type=converted,
                           repetition_type=fmt.FieldRepetitionType.OPTIONAL)
    return Schema([root, el]).columns[0]


UNSIGNED_32 = [leaf(Type.INT32, converted=CT.UINT_32),
               leaf(Type.INT32, logical=LT(INTEGER=fmt.IntType(bitWidth=32, isSigned=False)))]


@pytest.mark.parametrize("node", UNSIGNED_32, ids=["UINT_32", "INTEGER(32,unsigned)"])
def test_reader_writer_and_display_agree_on_an_unsigned_bound(node):
    raw = b"\xff\xff\xff\xff"
    assert is_unsigned(node)
    assert bound_decoder(node)(raw) == 4294967295          # pruning
    assert sort_key(node)(raw) == 4294967295               # page index
    assert logical_stat_value(node, raw) == 4294967295     # metadata views
    assert decode_stat_value(node, raw) == 4294967295      # pqinspect


@pytest.mark.parametrize("node, unsigned", [
    (leaf(Type.INT64), False),
    (leaf(Type.INT64, converted=CT.UINT_64), True),
    (leaf(Type.INT32, converted=CT.INT_8), False),
    # the logical type wins over a contradicting converted type
    (leaf(Type.INT32, logical=LT(INTEGER=fmt.IntType(bitWidth=32, isSigned=True)),
          converted=CT.UINT_32), False),
    # an unsigned annotation on a type it cannot annotate makes nothing unsigned
    (leaf(Type.FLOAT, converted=CT.UINT_32), False),
    (leaf(Type.BYTE_ARRAY, converted=CT.UINT_8), False),
], ids=["int64", "UINT_64", "INT_8", "signed logical over UINT_32", "float UINT_32",
        "byte array UINT_8"])
def test_is_unsigned(node, unsigned):
    assert is_unsigned(node) is unsigned


def test_a_misannotated_float_bound_decodes_as_a_float():
    # Used to build the struct format "<F" and fail with struct.error.
    node = leaf(Type.FLOAT, converted=CT.UINT_32)
    assert decode_stat_value(node, struct.pack("<f", 1.5)) == 1.5


def test_deprecated_bounds_are_trusted_only_under_the_signed_order():
    signed, unsigned = leaf(Type.INT32), UNSIGNED_32[0]
    assert legacy_bound(b"\x01\x00\x00\x00", signed) == b"\x01\x00\x00\x00"
    assert legacy_bound(b"\x01\x00\x00\x00", unsigned) is None
    assert legacy_bound(b"ab", leaf(Type.BYTE_ARRAY)) is None
    chunk = fmt.ColumnChunk(meta_data=fmt.ColumnMetaData(
        num_values=3, statistics=fmt.Statistics(min=b"\x01\x00\x00\x00",
                                                max=b"\x02\x00\x00\x00", null_count=0)))
    for ordered in (False, True):       # with or without a declared column order
        assert chunk_statistics(chunk, unsigned, ordered)[:2] == (None, None)
        assert chunk_statistics(chunk, signed, ordered)[:2] == (b"\x01\x00\x00\x00",
                                                              b"\x02\x00\x00\x00")


def test_widths_and_struct_formats_are_one_table():
    for physical in (Type.INT32, Type.INT64, Type.FLOAT, Type.DOUBLE):
        assert struct.calcsize(struct_format(physical)) == PLAIN_WIDTH[physical]
        assert bound_width(physical) == PLAIN_WIDTH[physical]
    assert struct_format(Type.INT32, unsigned=True) == "<I"
    assert struct_format(Type.DOUBLE, unsigned=True) == "<d"
    assert struct_format(Type.BYTE_ARRAY) is None
    assert bound_width(Type.BOOLEAN) == 1 and bound_width(Type.INT96) == 12
    assert bound_width(Type.FIXED_LEN_BYTE_ARRAY) is None


DECODED_LEAVES = {
    "int32": leaf(Type.INT32), "int64": leaf(Type.INT64), "float": leaf(Type.FLOAT),
    "double": leaf(Type.DOUBLE), "boolean": leaf(Type.BOOLEAN),
    "uint32": leaf(Type.INT32, converted=CT.UINT_32),
    "date": leaf(Type.INT32, logical=LT(DATE=fmt.DateType())),
    "string": leaf(Type.BYTE_ARRAY, logical=LT(STRING=fmt.StringType())),
    "utf8": leaf(Type.BYTE_ARRAY, converted=CT.UTF8),
    "binary": leaf(Type.BYTE_ARRAY),
    "decimal": leaf(Type.BYTE_ARRAY, logical=LT(DECIMAL=fmt.DecimalType(scale=2, precision=9))),
}
RAW_BOUNDS = [None, b"", b"\x01", b"\xff\xff\xff\xff", b"\x00\x00\x80\x3f",
              b"\x01\x02\x03\x04\x05\x06\x07\x08", b"abc", "é".encode(), b"\xff\xfe", b"\x00"]


@pytest.mark.parametrize("name", sorted(DECODED_LEAVES))
def test_the_per_leaf_decoder_gives_what_logical_stat_value_gives(name):
    node = DECODED_LEAVES[name]
    decode = logical_stat_decoder(node)
    for raw in RAW_BOUNDS:
        expected = logical_stat_value(node, raw)
        got = decode(raw)
        same = got == expected or (got != got and expected != expected)     # NaN
        assert type(got) is type(expected) and same, (name, raw)
