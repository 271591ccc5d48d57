"""Spark VARIANT columns written by pqkit's Spark writers (``df.write.format("pqkit")`` and
:func:`pqkit.spark.write`), unshredded and shredded: Spark reads them back as the variants it
wrote (compared as ``to_json`` renders them), pqkit and pyarrow as the same values."""
import glob
import json

import pyarrow.parquet as pq
import pytest
from variant_samples import as_json

import pqkit
import pqkit.dataset as pds
import pqkit.spark
from pqkit.errors import SchemaError
from pqkit.variant import decode, decode_column

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]

# JSON documents (None: a SQL null row); "null" is a Variant null inside a non-null row
DOCS = ['{"a": 1, "b": {"c": [1, 2, {"d": null}], "e": "x"}}', '[1, "x", null, [true, false]]',
        '"text"', "null", None, '{"n": 1.25, "big": 12345678901234, "s": "\u00e9t\u00e9"}',
        "{}", "[]", '{"a": 2, "b": {"c": [], "e": null}}', '{"a": -3.5e10}']
EXPECTED = {i: None if d is None else json.loads(d) for i, d in enumerate(DOCS)}


def _frame(spark):
    rows = [(i, d) for i, d in enumerate(DOCS)]
    return spark.createDataFrame(rows, "i int, d string") \
        .selectExpr("i", "parse_json(d) AS v").repartition(2)


def _write(spark, how, path, shredding):
    df = _frame(spark)
    if how == "format":
        pqkit.spark.register(spark)
        writer = df.write.format("pqkit").mode("overwrite")
        if shredding:
            writer = writer.option("variantShredding", shredding)
        writer.save(path)
    else:
        pqkit.spark.write(df, path, mode="overwrite",
                          **({"shredding": shredding} if shredding else {}))


def _files(path):
    return sorted(glob.glob(f"{path}/*.parquet"))


@pytest.mark.parametrize("shredding", [None, "auto"], ids=["unshredded", "shredded"])
@pytest.mark.parametrize("how", ["format", "function"])
def test_variant_column_reads_back_in_spark_pqkit_and_pyarrow(any_spark, tmp_path, how,
                                                              shredding):
    path = str(tmp_path / "out")
    _write(any_spark, how, path, shredding)

    back = any_spark.read.parquet(path)
    assert back.schema["v"].dataType.typeName() == "variant"
    rows = back.selectExpr("i", "to_json(v)").collect()
    assert {r[0]: None if r[1] is None else json.loads(r[1]) for r in rows} == EXPECTED

    files = _files(path)
    assert files
    ours, arrow = {}, {}
    for f in files:
        table = pqkit.read_table(f)
        assert ("typed_value" in table.column("v").type.names) == (shredding == "auto")
        decoded = decode_column(table.column("v"), "v")
        ours.update(zip(table.column("i").to_pylist(), (as_json(v) for v in decoded)))
        if shredding is None:
            read = pq.read_table(f).to_pylist()
            arrow.update((r["i"], None if r["v"] is None else
                          as_json(decode(r["v"]["metadata"], r["v"]["value"]))) for r in read)
    assert ours == EXPECTED
    if shredding is None:
        assert arrow == EXPECTED
    # pqkit's own Spark readers, shredded part files too (each inferred its own schema)
    pqkit.spark.register(any_spark)
    for again in (any_spark.read.format("pqkit").load(path), pqkit.spark.read(any_spark, path)):
        assert again.schema["v"].dataType.typeName() == "variant"
        rows = again.selectExpr("i", "to_json(v)").collect()
        assert {r[0]: None if r[1] is None else json.loads(r[1]) for r in rows} == EXPECTED


def test_files_shredded_by_different_schemas_read_as_one_variant_column(spark, tmp_path):
    """Two appends whose values infer different shredding schemas ($.a a double in one,
    a string beside an object $.b in the other): pqkit's Spark readers rebuild each file's
    variants instead of merging the typed columns."""
    path = str(tmp_path / "out")
    batches = [['{"a": 1.5}', '{"a": 2.5}'], ['{"a": "x", "b": {"c": 1}}', '{"b": {"c": 2}}']]
    for n, docs in enumerate(batches):
        rows = [(10 * n + i, d) for i, d in enumerate(docs)]
        frame = spark.createDataFrame(rows, "i int, d string").selectExpr("i", "parse_json(d) AS v")
        pqkit.spark.write(frame.coalesce(1), path, mode="append", shredding="auto")
    layouts = {str(pqkit.read_table(f).column("v").type) for f in _files(path)}
    assert len(layouts) == 2 and all("typed_value" in t for t in layouts)
    want = {10 * n + i: json.loads(d) for n, docs in enumerate(batches)
            for i, d in enumerate(docs)}
    pqkit.spark.register(spark)
    frames = [spark.read.format("pqkit").load(path)] + \
        [pqkit.spark.read(spark, path, engine=engine) for engine in ("arrow", "pandas")]
    for df in frames:
        assert df.schema["v"].dataType.typeName() == "variant"
        got = {r[0]: json.loads(r[1]) for r in df.selectExpr("i", "to_json(v)").collect()}
        assert got == want


def test_shredded_files_keep_spark_readable_paths(spark, tmp_path):
    """A path of the inferred shredding schema answers variant_get as Spark's own file."""
    path = str(tmp_path / "out")
    _write(spark, "format", path, "auto")
    got = spark.read.parquet(path).selectExpr("i", "variant_get(v, '$.a', 'double') AS a") \
        .collect()
    assert {r.i: r.a for r in got if r.a is not None} == {0: 1.0, 8: 2.0, 9: -3.5e10}


def test_variant_option_and_nesting_refused_before_any_task(spark, tmp_path):
    pqkit.spark.register(spark)
    out = tmp_path / "refused"
    with pytest.raises(Exception, match="variantShredding must be auto or none") as failed:
        _frame(spark).write.format("pqkit").option("variantShredding", "yes") \
            .mode("append").save(str(out))
    assert "SchemaError" in str(failed.value)
    nested = spark.sql("select named_struct('x', parse_json('1')) AS s")
    with pytest.raises(Exception, match="column s.x: .*VARIANT only as a top-level"):
        nested.write.format("pqkit").mode("append").save(str(out))
    with pytest.raises(SchemaError, match="column s.x: .*VARIANT only as a top-level"):
        pqkit.spark.write(nested, str(out))
    with pytest.raises(SchemaError, match="partition by atomic"):
        pqkit.spark.write(_frame(spark), str(out), partition_by=["v"])
    assert not out.exists()


def test_variant_column_beside_partitions(spark, tmp_path):
    """Rows split across partition directories keep their variants."""
    path = str(tmp_path / "parts")
    pqkit.spark.register(spark)
    _frame(spark).selectExpr("i", "i % 2 AS p", "v").write.format("pqkit") \
        .option("partition_by", "p").mode("overwrite").save(path)
    rows = spark.read.parquet(path).selectExpr("i", "p", "to_json(v)").collect()
    assert {r[0]: None if r[2] is None else json.loads(r[2]) for r in rows} == EXPECTED
    assert all(r[1] == r[0] % 2 for r in rows)


def test_dataset_targets_refuse_variants_before_any_task(spark, tmp_path):
    """A PQDS/1 schema does not record VARIANT yet: each writer says so instead of making
    a dataset that reads back as plain structs."""
    from pyspark.sql import types as S

    from pqkit.spark.datasource.stream_sink import DatasetStreamWriter
    pqkit.spark.register(spark)
    root = str(tmp_path / "ds")
    pqkit.spark.write(spark.range(2), root, dataset=True)
    with pytest.raises(Exception, match="column 'v' is a VARIANT.*PQDS/1") as failed:
        _frame(spark).write.format("pqkit").mode("append").save(root)
    assert "SchemaError" in str(failed.value)
    with pytest.raises(SchemaError, match="column 'v' is a VARIANT.*PQDS/1"):
        pqkit.spark.write(_frame(spark), str(tmp_path / "new"), dataset=True)
    assert not (tmp_path / "new" / "_pqkit").exists()
    checkpoint = tmp_path / "ck"
    checkpoint.mkdir()
    (checkpoint / "metadata").write_text('{"id":"q"}\n')
    schema = S.StructType([S.StructField("i", S.LongType()), S.StructField("v", S.VariantType())])
    with pytest.raises(SchemaError, match="column 'v' is a VARIANT.*PQDS/1"):
        DatasetStreamWriter({"path": str(tmp_path / "stream"),
                             "checkpointLocation": str(checkpoint)}, schema, False)
    assert len(pds.open(root).versions()) == 1


@pytest.mark.parametrize("binary", ["binary", "large_binary"])
def test_spark_arrow_pair_becomes_the_variant_group(binary):
    """Spark's struct<value, metadata> (large binaries too, as with useLargeVarTypes) ->
    the unshredded group pqkit writes; anything else is named as not Spark's pair."""
    import pyarrow as pa

    from pqkit import Table
    from pqkit.spark.conversion.variant_bytes import variant_group
    from pqkit.variant.column import UNSHREDDED
    kind = getattr(pa, binary)()
    pair = pa.struct([pa.field("value", kind, False), pa.field("metadata", kind, False)])
    rows = [{"value": b"\x0c\x03", "metadata": b"\x01\x00\x00"}, None]
    table = Table.from_arrow(pa.table({"v": pa.array(rows, pair)}))
    group = variant_group(table.column("v"), "v")
    assert group.type == UNSHREDDED
    assert decode_column(group, "v") == [3, None]
    bad = Table.from_arrow(pa.table({"v": pa.array([{"x": b""}])}))
    with pytest.raises(SchemaError, match="variant column 'v' arrived as"):
        variant_group(bad.column("v"), "v")
