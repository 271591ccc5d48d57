"""pqkit-written VARIANT files read in DuckDB and pyarrow.

DuckDB 2.0 reads the VARIANT annotation (shredded or not) as its VARIANT type; its JSON
rendering is compared with the values pqkit wrote. pyarrow 26 has no VARIANT type in
Python: it reads the group as a struct of binaries, which pqkit's decoder must turn into
the written values (so pyarrow sees the same bytes, shredded columns included).
"""
import json

import pytest
from variant_samples import VALUES, as_json

import pqkit
from pqkit import datatypes as T
from pqkit.variant import decode_column, variant_column

pytestmark = pytest.mark.interop

LAYOUTS = [None, "auto", {"v": T.struct([("a", T.int64()), ("c", T.list_(T.float64()))])}]


@pytest.mark.parametrize("shredding", LAYOUTS, ids=["unshredded", "auto", "explicit"])
def test_duckdb_reads_pqkit_variants(tmp_path, shredding):
    duckdb = pytest.importorskip("duckdb")
    path = str(tmp_path / "v.parquet")
    pqkit.write_table({"i": list(range(len(VALUES))), "v": variant_column(VALUES)}, path,
                      shredding=shredding)
    rows = duckdb.sql(f"SELECT typeof(v), v::JSON FROM '{path}' ORDER BY i").fetchall()
    assert {r[0] for r in rows} == {"VARIANT"}
    got = [None if r[1] is None else json.loads(r[1]) for r in rows]
    assert got == [as_json(v) for v in VALUES]


@pytest.mark.parametrize("shredding", LAYOUTS, ids=["unshredded", "auto", "explicit"])
def test_pyarrow_reads_the_variant_group(tmp_path, shredding):
    pq = pytest.importorskip("pyarrow.parquet")
    path = str(tmp_path / "v.parquet")
    pqkit.write_table({"v": variant_column(VALUES)}, path, shredding=shredding)
    assert "Variant" in str(pq.ParquetFile(path).schema)
    from_arrow = pqkit.Table.from_arrow(pq.read_table(path)).column("v")
    assert decode_column(from_arrow, "v") == VALUES


def test_arrow_fields_marked_with_the_extension_names_are_written_annotated(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from pqkit.variant.from_values import encode_variant
    metadata, value = encode_variant({"a": 1})
    storage = pa.struct([pa.field("metadata", pa.binary(), False),
                         pa.field("value", pa.binary(), False)])
    variant = pa.field("v", storage, metadata={"ARROW:extension:name": "arrow.parquet.variant",
                                               "ARROW:extension:metadata": ""})
    point = b"\x01\x01\x00\x00\x00" + bytes(16)
    geometry = pa.field("g", pa.binary(), metadata={
        "ARROW:extension:name": "geoarrow.wkb", "ARROW:extension:metadata": '{"crs": "srid:3857"}'})
    table = pa.table([pa.array([{"metadata": metadata, "value": value}], storage),
                      pa.array([point])], schema=pa.schema([variant, geometry]))
    path = str(tmp_path / "arrow.parquet")
    pqkit.write_table(table, path)
    schema = pq.ParquetFile(path).schema
    assert "Variant" in str(schema.column(0).logical_type) or "Variant" in str(schema)
    assert str(schema.column(2).logical_type) == "Geometry(crs=srid:3857)"
    assert pqkit.read_table(path, variant="decode").column("v").to_pylist() == [{"a": 1}]
