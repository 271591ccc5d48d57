"""What pqkit writes, Spark reads (issue 14, item 3: the Spark part of the readers matrix).

One table is written by pqkit under each option set below (every codec
parquet-java has, v1/v2 pages, dictionary on/off, each explicit encoding, bloom
filters, tiny pages) and by pyarrow with the same options. ``spark.read.parquet``
reads all files in one job; each file's rows, as Spark renders them
(``cast(col as string)``), must equal those of the table as Spark reads pyarrow's
default file.
"""
import decimal
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqkit

ROWS = 300
OPTIONS = {
    "snappy-v1-dict": {"compression": "snappy"},
    "none-v2-plain": {"compression": "none", "data_page_version": "2.0", "use_dictionary": False},
    "gzip-v2": {"compression": "gzip", "data_page_version": "2.0"},
    "zstd-v1-plain": {"compression": "zstd", "use_dictionary": False},
    "lz4raw-v2": {"compression": "lz4_raw", "data_page_version": "2.0"},
    "delta-v1": {"use_dictionary": False, "column_encoding": {
        "i64": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
        "text": "DELTA_BYTE_ARRAY", "bin": "DELTA_LENGTH_BYTE_ARRAY"}},
    "delta-v2": {"use_dictionary": False, "data_page_version": "2.0", "column_encoding": {
        "i64": "DELTA_BINARY_PACKED", "text": "DELTA_LENGTH_BYTE_ARRAY",
        "bin": "DELTA_BYTE_ARRAY"}},
    "bss": {"use_dictionary": False, "column_encoding": {"f64": "BYTE_STREAM_SPLIT",
                                                       "f32": "BYTE_STREAM_SPLIT"}},
    "bloom": {"bloom_filter_columns": ["i64", "text"]},
    "tiny-pages-v1": {"data_page_size": 64, "row_group_size": 100},
    "tiny-pages-v2": {"data_page_size": 64, "row_group_size": 120, "data_page_version": "2.0",
                          "use_dictionary": False},
}
# pyarrow's spelling of the same options, for the twin that tells our defects from Spark's.
_PYARROW_NAMES = {"data_page_version": "data_page_version", "compression": "compression",
                  "use_dictionary": "use_dictionary", "column_encoding": "column_encoding",
                  "data_page_size": "data_page_size", "row_group_size": "row_group_size"}


def _table():
    ids = list(range(ROWS))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "i32": pa.array([None if i % 9 == 0 else i * 7 - 1000 for i in ids], pa.int32()),
        "i64": pa.array([i * 10**11 - 3 for i in ids], pa.int64()),
        "f32": pa.array([i / 7 for i in ids], pa.float32()),
        "f64": pa.array([None if i % 11 == 0 else i * 1.5 for i in ids], pa.float64()),
        "text": pa.array([None if i % 5 == 0 else f"t{i % 17}-é" for i in ids]),
        "bin": pa.array([bytes([i % 256]) * (i % 5) for i in ids], pa.binary()),
        "dec": pa.array([None if i % 4 == 0 else decimal.Decimal(i * 12345).scaleb(-2)
                         for i in ids], pa.decimal128(18, 2)),
        "day": pa.array([i * 40 - 5000 for i in ids], pa.int32()).cast(pa.date32()),
        "ts": pa.array([i * 86_400_123_457 for i in ids], pa.timestamp("us", "UTC")),
        "ints": pa.array([None if i % 6 == 0 else [i, None, i * 2] for i in ids],
                         pa.list_(pa.int64())),
        "rec": pa.array([{"a": i, "b": None if i % 2 else str(i)} for i in ids],
                        pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "kv": pa.array([None if i % 7 == 0 else [(f"k{i}", i)] for i in ids],
                       pa.map_(pa.string(), pa.int64())),
    })


def _pyarrow_options(options):
    out = {k: v for k, v in options.items() if k in _PYARROW_NAMES}
    if "bloom_filter_columns" in options:
        out["bloom_filter_options"] = {c: {} for c in options["bloom_filter_columns"]}
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("pqkit_for_spark")
    table = _table()
    buf = io.BytesIO()
    pq.write_table(table, buf)
    source = pqkit.read_table(buf.getvalue())
    pq.write_table(table, root / "reference.parquet")
    for name, options in OPTIONS.items():
        pqkit.write_table(source, str(root / f"pqkit-{name}.parquet"), **options)
        try:
            pq.write_table(table, root / f"pyarrow-{name}.parquet", **_pyarrow_options(options))
        except TypeError:
            pq.write_table(table, root / f"pyarrow-{name}.parquet",
                           **{k: v for k, v in _pyarrow_options(options).items()
                              if k != "bloom_filter_options"})
    return root


def _by_file(spark, paths):
    from pyspark.sql import functions as F
    frame = spark.read.parquet(*[str(p) for p in paths])
    cols = [F.col(c).cast("string") for c in frame.columns]
    rows = frame.select(F.input_file_name().alias("_file"), *cols).collect()
    out = {}
    for r in rows:
        out.setdefault(r[0].rsplit("/", 1)[-1], []).append(tuple(r[1:]))
    return {k: sorted(v, key=repr) for k, v in out.items()}


def test_spark_reads_every_pqkit_file(spark, written):
    paths = sorted(written.glob("*.parquet"))
    got = _by_file(spark, paths)
    expected = got["reference.parquet"]
    assert len(expected) == ROWS
    failures = {}
    for name in OPTIONS:
        ours = got.get(f"pqkit-{name}.parquet")
        twin = got.get(f"pyarrow-{name}.parquet")
        assert twin == expected, f"Spark misreads pyarrow's {name} file too"
        if ours != expected:
            failures[name] = (ours or [])[:2]
    assert failures == {}
