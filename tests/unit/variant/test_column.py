"""pqkit.variant.column: VariantColumn, the reader's variant option and decode_table."""
import io

import numpy as np
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit import format as F
from pqkit.columnar.column import concat_columns
from pqkit.convert.build import build_column
from pqkit.variant import VariantColumn, decode_column, decode_table
from unit.variant.builders import EMPTY, group, int8


def test_variant_column_slices_takes_and_concatenates():
    col = build_column([{"metadata": EMPTY, "value": int8(i)} for i in range(5)], group())
    vc = VariantColumn(col, decode_column(col))
    assert vc.to_pylist() == [0, 1, 2, 3, 4]
    assert vc.slice(1, 3).to_pylist() == [1, 2]
    assert vc.take(np.array([4, 0])).to_pylist() == [4, 0]
    assert vc[2] == 2
    both = concat_columns([vc.slice(0, 2), vc.slice(3)])
    assert isinstance(both, VariantColumn) and both.to_pylist() == [0, 1, 3, 4]
    assert vc.to_pandas().tolist() == [0, 1, 2, 3, 4]
    assert vc.equals(col)                   # the physical struct is unchanged


def test_read_table_rejects_an_unknown_variant_option(tmp_path):
    p = tmp_path / "x.parquet"
    pqkit.write_table({"a": [1]}, str(p))
    with pytest.raises(ValueError, match="variant must be"):
        pqkit.read_table(str(p), variant="json")
    assert pqkit.read_table(str(p), variant="decode").to_pydict() == {"a": [1]}


def test_decode_table_finds_variants_nested_in_structs():
    """A VARIANT inside a plain struct is decoded; rows under a null parent are not read."""
    vt = T.StructType([T.Field("metadata", T.binary()), T.Field("value", T.binary())])
    outer = T.StructType([T.Field("v", vt), T.Field("n", T.int32())])
    col = build_column([{"v": {"metadata": EMPTY, "value": int8(5)}, "n": 1}, None,
                        {"v": None, "n": 2}], outer)
    buf = io.BytesIO()
    pqkit.write_table(pqkit.Table([col], ["outer"]), buf)
    f = pqkit.ParquetFile(buf.getvalue())
    elements = f.schema.elements        # pqkit writes no VARIANT annotation: add one
    next(e for e in elements if e.name == "v").logicalType = F.LogicalType(
        VARIANT=F.VariantType())
    table = decode_table(f.read(), pqkit.Schema(elements))
    assert isinstance(table.column("outer").field("v"), VariantColumn)
    assert table.to_pylist() == [{"outer": {"v": 5, "n": 1}}, {"outer": None},
                                 {"outer": {"v": None, "n": 2}}]
    assert decode_table(f.read(), f.schema).column("outer").equals(f.read().column("outer"))
