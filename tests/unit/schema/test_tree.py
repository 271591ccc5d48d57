"""Schema trees: paths, levels, lookups and malformed element lists."""
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.format import ConvertedType, Type
from pqkit.format import FieldRepetitionType as R


def el(name, type=None, rep=None, n=None, **kw):
    return fmt.SchemaElement(name=name, type=type, repetition_type=rep, num_children=n, **kw)


def dremel_document():
    """The Dremel paper's Document schema."""
    return [
        el("Document", n=3),
        el("DocId", Type.INT64, R.REQUIRED),
        el("Links", rep=R.OPTIONAL, n=2),
        el("Backward", Type.INT64, R.REPEATED),
        el("Forward", Type.INT64, R.REPEATED),
        el("Name", rep=R.REPEATED, n=2),
        el("Language", rep=R.REPEATED, n=2),
        el("Code", Type.BYTE_ARRAY, R.REQUIRED),
        el("Country", Type.BYTE_ARRAY, R.OPTIONAL),
        el("Url", Type.BYTE_ARRAY, R.OPTIONAL),
    ]


def test_dremel_levels():
    s = pqkit.Schema(dremel_document())
    levels = {c.dotted_path: (c.max_repetition_level, c.max_definition_level) for c in s.columns}
    assert levels == {
        "DocId": (0, 0), "Links.Backward": (1, 2), "Links.Forward": (1, 2),
        "Name.Language.Code": (2, 2), "Name.Language.Country": (2, 3), "Name.Url": (1, 2)}
    assert [c.column_index for c in s.columns] == list(range(6))
    assert s.column("Name.Language.Code") is s.columns[3]
    assert s.column(("Name", "Url")) is s.columns[5]
    assert s.names == ["DocId", "Links", "Name"]
    with pytest.raises(KeyError):
        s.column("Name.Nope")


def test_to_dict_and_annotations():
    s = pqkit.Schema([
        el("m", n=2),
        el("d", Type.FIXED_LEN_BYTE_ARRAY, R.OPTIONAL, type_length=16,
           converted_type=ConvertedType.DECIMAL, precision=38, scale=4, field_id=7),
        el("t", Type.INT64, R.REQUIRED, logicalType=fmt.LogicalType(TIMESTAMP=fmt.TimestampType(
            isAdjustedToUTC=True, unit=fmt.TimeUnit(NANOS=fmt.NanoSeconds())))),
    ])
    d = s.to_dict()
    assert d["children"][0]["converted_type"] == "DECIMAL"
    assert d["children"][0]["field_id"] == 7
    assert s.columns[0].annotation_str() == "DECIMAL(38,4)"
    assert d["children"][1]["logical_type"] == "TIMESTAMP(NANOS,UTC)"
    assert s.columns[0].type_str() == "FIXED_LEN_BYTE_ARRAY(16)"


@pytest.mark.parametrize("elements, message", [
    ([], "empty"),
    ([el("m")], "num_children"),
    ([el("m", n=2), el("a", Type.INT32, R.REQUIRED)], "expects more children"),
    ([el("m", n=1), el("a", Type.INT32, R.REQUIRED), el("b", Type.INT32)], "beyond the tree"),
    ([el("m", n=1), el("a", 99, R.REQUIRED)], "invalid physical type 99"),
    ([el("m", n=1), el("a", Type.FIXED_LEN_BYTE_ARRAY, R.REQUIRED)], "type_length"),
    ([el("m", n=1), el(None, Type.INT32, R.REQUIRED)], "no name"),
    ([el("m", n=1), el("g", rep=R.OPTIONAL, n=-1)], "num_children -1"),
    ([el("m", n=1), el("a", Type.INT32, 7)], "repetition type 7"),
])
def test_malformed_schemas(elements, message):
    with pytest.raises(pqkit.SchemaError, match=message):
        pqkit.Schema(elements)


def test_deep_nesting_is_refused():
    elements = [el("m", n=1)] + [el(f"g{i}", rep=R.OPTIONAL, n=1) for i in range(300)]
    elements.append(el("leaf", Type.INT32, R.OPTIONAL))
    with pytest.raises(pqkit.SchemaError, match="deeper"):
        pqkit.Schema(elements)


@pytest.mark.parametrize("unit, physical", [("s", Type.INT32), ("ms", Type.INT32),
                                            ("us", Type.INT64), ("ns", Type.INT64)])
def test_time_columns_are_written_local_without_converted_type(unit, physical):
    """As pyarrow writes them: TIME(isAdjustedToUTC=false) and no TIME_MILLIS/MICROS,
    which would say UTC (DuckDB then reads TIME WITH TIME ZONE)."""
    from pqkit import datatypes as T
    from pqkit.schema.from_table import parquet_schema
    t = T.time32(unit) if unit in ("s", "ms") else T.time64(unit)
    elements, _ = parquet_schema([T.Field("t", t)])
    leaf = elements[1]
    assert leaf.type == physical and leaf.converted_type is None
    assert leaf.logicalType.TIME.isAdjustedToUTC is False
    expected = {"s": "MILLIS", "ms": "MILLIS", "us": "MICROS", "ns": "NANOS"}[unit]
    assert getattr(leaf.logicalType.TIME.unit, expected) is not None
