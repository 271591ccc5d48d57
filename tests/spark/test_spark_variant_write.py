"""VARIANT files pqkit writes, read by ``spark.read.parquet``; Spark-written variants read
by pqkit and written back, read again by Spark. Values are compared as Spark renders them
(``to_json``)."""
import glob
import json

import pytest
from variant_samples import VALUES, as_json

import pqkit
from pqkit import datatypes as T
from pqkit.variant import decode_column, variant_column

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]


def _spark_json(spark, path):
    rows = spark.read.parquet(path).orderBy("i").selectExpr("to_json(v)").collect()
    return [None if r[0] is None else json.loads(r[0]) for r in rows]


@pytest.mark.parametrize("shredding", [None, "auto",
                                       {"v": T.struct([("a", T.int64()), ("b", T.string())])}],
                         ids=["unshredded", "auto", "explicit"])
def test_spark_reads_pqkit_variants(spark, tmp_path, shredding):
    path = str(tmp_path / "v.parquet")
    pqkit.write_table({"i": list(range(len(VALUES))), "v": variant_column(VALUES)}, path,
                      shredding=shredding)
    assert spark.read.parquet(path).schema["v"].dataType.typeName() == "variant"
    assert _spark_json(spark, path) == [as_json(v) for v in VALUES]


@pytest.mark.parametrize("shred", [False, True], ids=["spark_unshredded", "spark_shredded"])
def test_spark_variants_written_back_by_pqkit_read_equal_in_spark(spark, tmp_path, shred):
    docs = ['{"a": 1, "b": "x"}', '{"a": 2, "c": [1, 2]}', '"text"', "null", '{"a": 3.5}']
    out = str(tmp_path / "spark")
    # Spark shreds small writes only with its test setting naming the schema.
    confs = {"spark.sql.variant.writeShredding.enabled": "true",
             "spark.sql.variant.forceShreddingSchemaForTest": "a int, b string"} if shred else {}
    for key, value in confs.items():
        spark.conf.set(key, value)
    try:
        frame = spark.createDataFrame([(i, d) for i, d in enumerate(docs)], "i int, d string")
        frame.selectExpr("i", "parse_json(d) AS v").coalesce(1).write.parquet(out)
    finally:
        for key in confs:
            spark.conf.unset(key)
    source = glob.glob(f"{out}/*.parquet")[0]
    table = pqkit.read_table(source)
    assert ("typed_value" in table.column("v").type.names) == shred
    again = str(tmp_path / "again.parquet")
    pqkit.write_table(table, again)
    assert pqkit.read_table(again).column("v").type == table.column("v").type
    assert _spark_json(spark, again) == _spark_json(spark, out)
    decoded = decode_column(pqkit.read_table(again).column("v"), "v")
    assert sorted(json.dumps(as_json(v)) for v in decoded) == sorted(
        json.dumps(json.loads(d)) for d in docs)
