"""pqkit.spark.read against spark.read.parquet on files Spark wrote, and on files it rejects."""
import datetime
import decimal
import os
import uuid

import numpy as np
import pytest
from spark_data import all_types
from spark_helpers import canonical_values, same_rows

import pqkit
import pqkit.convert
import pqkit.spark
from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.table import Table

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]

# (name, DataFrameWriter options, session confs): every codec Spark writes (parquet-java
# has no brotli, LZO needs a Hadoop jar), v1 and v2 pages, dictionary on and off, INT96
# and micros timestamps, the legacy (Spark 1.4) list and decimal layout, many row groups.
VARIANTS = [
    ("snappy_v1_dict", {"compression": "snappy"}, {}),
    ("gzip_v2", {"compression": "gzip", "parquet.writer.version": "v2"}, {}),
    ("zstd_plain", {"compression": "zstd", "parquet.enable.dictionary": "false"}, {}),
    ("lz4", {"compression": "lz4"}, {}),
    ("lz4_raw_v2", {"compression": "lz4_raw", "parquet.writer.version": "v2",
                    "parquet.enable.dictionary": "false"}, {}),
    ("uncompressed_int96", {"compression": "none"},
     {"spark.sql.parquet.outputTimestampType": "INT96"}),
    ("legacy_layout", {"compression": "snappy"}, {"spark.sql.parquet.writeLegacyFormat": "true"}),
    ("small_row_groups", {"compression": "snappy", "parquet.block.row.count.limit": "30",
                          "parquet.page.row.count.limit": "10"}, {}),
]


@pytest.fixture(scope="module")
def spark_written(spark, tmp_path_factory):
    """{variant: directory} of Spark-written copies of the all-types DataFrame."""
    base = tmp_path_factory.mktemp("spark_written")
    df = all_types(spark)
    out = {}
    for name, options, confs in VARIANTS:
        old = {k: spark.conf.get(k, None) for k in confs}
        for k, v in confs.items():
            spark.conf.set(k, v)
        try:
            path = str(base / name)
            df.write.options(**options).parquet(path)
        finally:
            for k, v in old.items():
                spark.conf.unset(k) if v is None else spark.conf.set(k, v)
        out[name] = path
    return out


@pytest.mark.parametrize("variant", [v[0] for v in VARIANTS])
def test_spark_written_files_read_the_same(spark, spark_written, variant):
    path = spark_written[variant]
    expected = spark.read.parquet(path)
    got = pqkit.spark.read(spark, path, engine="arrow" if variant.endswith("2") else "pandas")
    assert got.schema.simpleString() == expected.schema.simpleString()
    assert same_rows(got, expected)


def test_variants_really_differ(spark_written):
    """The variants exercise what they claim: codecs, page versions, INT96, legacy lists."""
    def facts(variant):
        f = next(os.path.join(d, n) for d, _, names in os.walk(spark_written[variant])
                 for n in names if n.endswith(".parquet"))
        md = pqkit.read_metadata(f)
        chunks = [c.meta_data for rg in range(md.num_row_groups)
                  for c in md.row_group(rg).thrift.columns]
        pages = {st.page_type for c in chunks for st in (c.encoding_stats or [])}
        return md, {c.codec for c in chunks}, {e for c in chunks for e in c.encodings}, pages
    from pqkit.format import CompressionCodec, Encoding, PageType, Type
    md, codecs, encodings, pages = facts("lz4_raw_v2")
    assert codecs == {CompressionCodec.LZ4_RAW} and Encoding.RLE_DICTIONARY not in encodings
    assert pages == {PageType.DATA_PAGE_V2}
    md, codecs, encodings, pages = facts("gzip_v2")
    assert codecs == {CompressionCodec.GZIP} and PageType.DATA_PAGE_V2 in pages
    assert PageType.DICTIONARY_PAGE in pages
    md, codecs, encodings, pages = facts("snappy_v1_dict")
    assert pages == {PageType.DATA_PAGE, PageType.DICTIONARY_PAGE}
    _, _, encodings, _ = facts("zstd_plain")
    assert not encodings & {Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY}
    md, codecs, _, _ = facts("uncompressed_int96")
    assert codecs == {CompressionCodec.UNCOMPRESSED}
    assert md.schema.column("ts").physical_type == Type.INT96
    md, _, _, _ = facts("legacy_layout")
    assert md.schema.column("dec5").physical_type == Type.FIXED_LEN_BYTE_ARRAY
    assert [c.dotted_path for c in md.schema.columns if c.path[0] == "ints"] == \
        ["ints.bag.array"]
    md, _, _, _ = facts("small_row_groups")
    assert md.num_row_groups > 1


def test_columns_filters_and_split_by(spark, spark_written):
    path = spark_written["small_row_groups"]
    expected = spark.read.parquet(path).filter("id >= 150 and text is not null") \
        .select("id", "nested", "lookup")
    got = pqkit.spark.read(spark, path, columns=["id", "nested", "lookup"],
                           filters=[("id", ">=", 150), ("text", "!=", "")], split_by="file",
                           batch_size=7)
    assert got.columns == ["id", "nested", "lookup"]
    assert same_rows(got, expected)
    plan = pqkit.spark.plan(path, filters=[("id", ">=", 150)])
    assert 0 < len(plan.splits) < pqkit.spark.plan(path).num_row_groups


def test_dotted_column_selects_struct_fields(spark, spark_written):
    path = spark_written["snappy_v1_dict"]
    got = pqkit.spark.read(spark, path, columns=["nested.b"])
    assert got.schema.simpleString() == "struct<nested:struct<b:struct<c:string>>>"
    expected = spark.read.parquet(path).selectExpr("named_struct('b', nested.b) as nested")
    assert same_rows(got, expected)


def test_empty_result_keeps_schema(spark, spark_written):
    got = pqkit.spark.read(spark, spark_written["zstd_plain"], filters=[("id", "<", -1)])
    assert got.count() == 0 and "ts" in got.columns


# --- files Spark rejects ------------------------------------------------------------------
def _expected_value(value, t):
    """A pqkit value as Spark shows it after the mapping of pqkit.spark.conversion.schema."""
    if value is None:
        return None
    if isinstance(t, T.DictionaryType):
        return _expected_value(value, t.value_type)
    if isinstance(t, T.MapType):
        return {_expected_value(k, t.key_type): _expected_value(v, t.item_type)
                for k, v in value}
    if isinstance(t, (T.ListType, T.FixedSizeListType)):
        return [_expected_value(v, t.value_type) for v in value]
    if isinstance(t, T.StructType):
        return {f.name: _expected_value(value[f.name], f.type) for f in t.fields}
    if isinstance(t, T.IntegerType) and t.bit_width == 64 and not t.signed:
        return decimal.Decimal(value)
    if isinstance(t, T.FloatingType) and t.bit_width == 16:
        return float(value)
    if isinstance(t, T.UuidType):
        return str(value)
    if isinstance(t, T.TimestampType):
        if t.unit == "ns":                # floored to microseconds
            value = datetime.datetime(1970, 1, 1) + \
                datetime.timedelta(microseconds=value.value // 1000)
            if t.tz is not None:
                value = value.replace(tzinfo=datetime.timezone.utc)
        return value if t.tz is None else value.astimezone(datetime.timezone.utc)
    return value


def _expected_rows(table):
    rows = []
    for row in table.to_pylist():
        rows.append({f.name: _expected_value(row[f.name], f.type) for f in table.schema})
    return rows


def _actual_rows(df):
    """Collected rows as dicts; TIMESTAMP values (naive local times in pyspark) made UTC."""
    instants = {f.name for f in df.schema.fields if f.dataType.typeName() == "timestamp"}
    out = []
    for r in df.collect():
        d = r.asDict(recursive=True)
        out.append({k: v.astimezone(datetime.timezone.utc) if k in instants and v is not None
                    else v for k, v in d.items()})
    return out


# Spark fails on each: FLOAT16, a MAP without values, an unknown logical type, a
# geospatial CRS it does not know, non-Hadoop LZ4 frames, a malformed dictionary page,
# BYTE_ARRAY decimals.
REJECTED = ["float16_nonzeros_and_nans.parquet", "byte_stream_split_extended.gzip.parquet",
            "map_no_value.parquet", "unknown-logical-type.parquet", "geospatial/crs-srid.parquet",
            "non_hadoop_lz4_compressed.parquet", "nation.dict-malformed.parquet",
            "byte_array_decimal.parquet"]


@pytest.mark.parametrize("name", REJECTED)
def test_corpus_files_spark_rejects(spark, corpus, name):
    path = os.path.join(corpus, "data", name)
    with pytest.raises(Exception):
        spark.read.parquet(path).collect()
    got = pqkit.spark.read(spark, path)
    expected = _expected_rows(pqkit.read_table(path))
    assert canonical_values(_actual_rows(got)) == canonical_values(expected)


def test_pqkit_only_types(spark, tmp_path):
    """Nanosecond timestamps, unsigned ints, float16, UUID, fixed-size lists: Spark's reader
    refuses the file; pqkit.spark.read maps every column."""
    n = 50
    ns = np.arange(n, dtype=np.int64) * 1_000_001_001 - 10_000_000_500
    cols = {
        "ts_ns": PrimitiveColumn(T.timestamp("ns", "UTC"), ns),
        "local_ns": PrimitiveColumn(T.timestamp("ns"), ns[::-1].copy()),
        "u8": PrimitiveColumn(T.uint8(), np.arange(n, dtype=np.uint8) + 200),
        "u32": PrimitiveColumn(T.uint32(), np.arange(n, dtype=np.uint32) + 4_294_967_000),
        "u64": PrimitiveColumn(T.uint64(),
                               np.arange(n, dtype=np.uint64) + np.uint64(2**64 - 100)),
        "half": PrimitiveColumn(T.float16(), np.linspace(-2, 2, n).astype(np.float16)),
    }
    table = Table(cols)
    extra = pqkit.convert.table_from_data(
        {"id": [uuid.UUID(int=i * 7919) for i in range(n)],
         "vec": [[i, i + 1] for i in range(n)]},
        schema=[T.field("id", T.uuid()), T.field("vec", T.fixed_size_list(T.int16(), 2))])
    for f, c in zip(extra.schema, extra.columns):
        table = table.append_column(f, c)
    path = str(tmp_path / "pqkit_only.parquet")
    pqkit.write_table(table, path, column_encoding={"u32": "BYTE_STREAM_SPLIT"})
    with pytest.raises(Exception):
        spark.read.parquet(path).collect()
    for engine in ("pandas", "arrow"):
        got = pqkit.spark.read(spark, path, engine=engine)
        assert got.schema.simpleString() == (
            "struct<ts_ns:timestamp,local_ns:timestamp_ntz,u8:smallint,u32:bigint,"
            "u64:decimal(20,0),half:float,id:string,vec:array<smallint>>")
        assert canonical_values(_actual_rows(got)) == \
            canonical_values(_expected_rows(pqkit.read_table(path)))
