"""pqkit.inspect.verify.ordering: the sort keys statistics are compared by, per type and
column order."""
import math
import struct

import numpy as np

import pqkit
from pqkit import format as fmt
from pqkit.inspect.verify.ordering import Ordering


def _leaf(physical, logical=None, converted=None, length=None):
    schema = pqkit.Schema([fmt.SchemaElement(name="r", num_children=1),
                           fmt.SchemaElement(name="c", type=physical, logicalType=logical,
                                             converted_type=converted, type_length=length,
                                             repetition_type=1)])
    return schema.columns[0]


def test_ordering_keys():
    uint = Ordering(_leaf(fmt.Type.INT32, converted=fmt.ConvertedType.UINT_32))
    assert uint.key(b"\xff\xff\xff\xff") > uint.key(b"\x01\x00\x00\x00")
    dec = Ordering(_leaf(fmt.Type.FIXED_LEN_BYTE_ARRAY, converted=fmt.ConvertedType.DECIMAL,
                         length=2))
    assert dec.key(b"\xff\xfe") == -2 < dec.key(b"\x00\x01")
    text = Ordering(_leaf(fmt.Type.BYTE_ARRAY, converted=fmt.ConvertedType.UTF8))
    assert text.key(b"\xc3\xa9") > text.key(b"z") and text.truncatable
    total = Ordering(_leaf(fmt.Type.DOUBLE), "IEEE_754_TOTAL_ORDER")
    keys = [total.key(struct.pack("<d", v)) for v in (-math.inf, -0.0, 0.0, math.inf)]
    assert keys == sorted(keys) and len(set(keys)) == 4
    assert total.key(struct.pack("<d", math.nan)) > keys[-1]
    half = Ordering(_leaf(fmt.Type.FIXED_LEN_BYTE_ARRAY, fmt.LogicalType(FLOAT16=fmt.Float16Type()),
                          length=2))
    assert half.key(np.float16(-1.5).tobytes()) < half.key(np.float16(0.25).tobytes())
    assert Ordering(_leaf(fmt.Type.INT96)).kind is None
    assert Ordering(_leaf(fmt.Type.INT96), "INT96_TIMESTAMP_ORDER").kind == "int96"
