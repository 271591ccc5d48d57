"""The writers matrix: Parquet files written at test time by the installed writers.

Each :class:`Case` names a writer and an option set, and writes one small file
(or, for a partitioned write, one directory) into a temporary directory when
asked. Nothing generated is committed: the files come from whichever
fastparquet, polars, DuckDB and pyarrow are installed, so a new release of a
writer is tested as soon as it is installed.

Every file is compared with pyarrow's ``read_table(...).to_pydict()``, except
where pyarrow cannot read it: then ``reference`` is the writer's own read-back
as the values pyarrow would give, or ``refused`` says the file is broken (a
writer bug) and pqkit must refuse it with a ParquetError as pyarrow does.
``batches`` marks the cases also read with ``ParquetFile.iter_batches``;
``filters`` the cases also read with a filter (compared with pyarrow's
filtered read).
"""
import datetime
import decimal
import os
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

N = 240
FILTER = [("i", ">=", 150)]
FILTER_TEXT = [[("i", "<", 40), ("s", ">=", "v")], [("s", "<", "b")]]


@dataclass(frozen=True)
class Case:
    writer: str
    name: str
    write: Callable[[str], str] = field(repr=False)
    batches: bool = False
    filters: Optional[list] = None
    reference: Optional[Callable[[str], dict]] = field(default=None, repr=False)
    refused: bool = False

    @property
    def id(self):
        return f"{self.writer}-{self.name}"


def _nulls(values, every=7):
    return [None if i % every == 3 else v for i, v in enumerate(values)]


def _rng():
    return np.random.default_rng(14)


# ---------------------------------------------------------------- fastparquet

def _pandas_frame():
    rng = _rng()
    words = [f"w{i}-{'é' * (i % 3)}" for i in range(17)]
    base = pd.Timestamp("2024-03-01 12:00:00")
    return pd.DataFrame({
        "i": np.arange(N, dtype=np.int64),
        "i32": rng.integers(-2**31, 2**31, N).astype(np.int32),
        "u8": rng.integers(0, 256, N).astype(np.uint8),
        "f": np.where(np.arange(N) % 9 == 4, np.nan, rng.standard_normal(N)),
        "f32": rng.standard_normal(N).astype(np.float32),
        "b": rng.integers(0, 2, N).astype(bool),
        "s": _nulls([words[k] for k in rng.integers(0, 17, N)]),
        "ts": [base + pd.Timedelta(seconds=int(k)) for k in rng.integers(0, 10**7, N)],
        "dt_ns": pd.to_datetime(rng.integers(0, 2 * 10**18, N)),
    })


def _nullable_frame():
    rng = _rng()
    mask = np.arange(N) % 5 == 2
    return pd.DataFrame({
        "i": np.arange(N, dtype=np.int64),
        "i64": pd.array(np.where(mask, 0, rng.integers(-10**12, 10**12, N)), "Int64"),
        "i32": pd.array(np.where(mask, 0, rng.integers(-10**6, 10**6, N)), "Int32"),
        "u8": pd.array(np.where(mask, 0, rng.integers(0, 256, N)), "UInt8"),
        "flag": pd.array(rng.integers(0, 2, N).astype(bool), "boolean"),
    }).mask(pd.DataFrame({"i": False, "i64": mask, "i32": mask, "u8": mask,
                          "flag": mask[::-1].copy()}))


def _fastparquet(name, frame=_pandas_frame, batches=False, filters=None, v2=False,
                 reference=None, refused=False, page_size=None, appends=0, **options):
    def write(root):
        import fastparquet
        import fastparquet.writer as fw
        path = os.path.join(root, "fp.parquet")
        saved = fw.DATAPAGE_VERSION, fw.MAX_PAGE_SIZE
        fw.DATAPAGE_VERSION = 2 if v2 else 1
        fw.MAX_PAGE_SIZE = page_size or fw.MAX_PAGE_SIZE
        try:
            fastparquet.write(path, frame(), **options)
            for _ in range(appends):
                fastparquet.write(path, frame(), append=True, **options)
        finally:
            fw.DATAPAGE_VERSION, fw.MAX_PAGE_SIZE = saved
        return path
    return Case("fastparquet", name, write, batches, filters, reference, refused)


def _fastparquet_values(path):
    """fastparquet's read-back (for UTF8 on FIXED_LEN_BYTE_ARRAY, which pyarrow refuses)."""
    import fastparquet
    df = fastparquet.ParquetFile(path).to_pandas()
    return {name: df[name].tolist() for name in df.columns}


def _categorical_frame():
    df = _pandas_frame()[["i", "s"]]
    df["cat"] = pd.Categorical(df["s"])
    df["icat"] = pd.Categorical(df["i"] % 4)
    return df


def _tz_frame():
    df = _pandas_frame()[["i", "ts"]]
    df["utc"] = df["ts"].dt.tz_localize("UTC")
    df["paris"] = df["ts"].dt.tz_localize("Europe/Paris")
    df["plus5"] = df["ts"].dt.tz_localize(datetime.timezone(datetime.timedelta(hours=5)))
    return df


def _object_frame():
    rng = _rng()
    return pd.DataFrame({
        "i": np.arange(N, dtype=np.int64),
        "txt": _nulls([f"t{k}" for k in rng.integers(0, 30, N)]),
        "raw": _nulls([bytes([k % 256]) * (k % 5) for k in range(N)]),
        "js": _nulls([{"k": int(k), "v": [1, 2]} for k in rng.integers(0, 9, N)]),
        "oint": pd.Series([int(k) for k in rng.integers(-99, 99, N)], dtype=object),
        "ofloat": pd.Series([float(k) / 4 for k in range(N)], dtype=object),
        "obool": pd.Series([bool(k % 3) for k in range(N)], dtype=object),
    })


def _hive_frame():
    df = _pandas_frame()[["i", "f", "s"]]
    df["region"] = np.array(["north", "south", "east"])[np.arange(N) % 3]
    df["year"] = 2020 + np.arange(N) % 2
    return df


def _fastparquet_hive():
    def write(root):
        import fastparquet
        path = os.path.join(root, "hive")
        fastparquet.write(path, _hive_frame(), file_scheme="hive",
                          partition_on=["region", "year"], row_group_offsets=60)
        return path
    return Case("fastparquet", "hive-partition_on", write)


def fastparquet_cases():
    import fastparquet.compression as fc
    cases = [_fastparquet(f"compression-{codec}", compression=codec)
             for codec in sorted(fc.compressions)]
    cases += [
        _fastparquet("per-column-compression",
                     compression={"s": "ZSTD", "f": "GZIP", "_default": "SNAPPY"}),
        _fastparquet("object_encoding-infer", _object_frame, object_encoding="infer"),
        _fastparquet("object_encoding-explicit", _object_frame, object_encoding={
            "txt": "utf8", "raw": "bytes", "js": "json", "oint": "int",
            "ofloat": "float", "obool": "bool"}),
        _fastparquet("object_encoding-bytes", lambda: _object_frame()[["i", "txt"]],
                     object_encoding="bytes"),
        _fastparquet("times-int96", times="int96", batches=True),
        _fastparquet("data-page-v2", v2=True, compression="SNAPPY", batches=True,
                     filters=FILTER),
        _fastparquet("data-page-v2-nullable", _nullable_frame, v2=True),
        _fastparquet("has_nulls-false", lambda: _pandas_frame().drop(columns="s"),
                     has_nulls=False),
        _fastparquet("has_nulls-true-all-columns", has_nulls=True),
        _fastparquet("has_nulls-infer", lambda: _pandas_frame().drop(columns="s"),
                     has_nulls="infer"),
        # fastparquet writes a pandas str column holding None as REQUIRED with
        # has_nulls="infer", and its values section is then short.
        _fastparquet("has_nulls-infer-str-with-nulls", lambda: _pandas_frame()[["i", "s"]],
                     has_nulls="infer", refused=True),
        _fastparquet("stats-off", stats=False, filters=FILTER),
        _fastparquet("stats-some", stats=["i", "s"], filters=FILTER_TEXT),
        _fastparquet("row_group_offsets-int", row_group_offsets=50, batches=True,
                     filters=FILTER),
        _fastparquet("row_group_offsets-list", row_group_offsets=[0, 7, 100, 101]),
        _fastparquet("categorical", _categorical_frame, batches=True),
        _fastparquet("nullable-ints", _nullable_frame, filters=FILTER),
        _fastparquet("tz-timestamps", _tz_frame),
        _fastparquet("fixed_text", lambda: pd.DataFrame(
            {"i": np.arange(N), "code": [f"{k:04d}" for k in range(N)]}),
            fixed_text={"code": 4}, reference=_fastparquet_values),
        _fastparquet("write_index", lambda: _pandas_frame().set_index("s"),
                     write_index=True),
        _fastparquet("small-pages", page_size=200, batches=True, filters=FILTER),
        _fastparquet("small-pages-v2-nullable", _nullable_frame, v2=True, page_size=100),
        _fastparquet("append", appends=2, compression="ZSTD", batches=True),
        _fastparquet("timedelta", lambda: pd.DataFrame({
            "i": np.arange(N), "td": pd.to_timedelta(np.arange(N) * 10**9 + 7)})),
        _fastparquet_hive(),
    ]
    return cases


# ---------------------------------------------------------------- polars

def _polars_frame():
    import polars as pl
    rng = _rng()
    words = ["alpha", "beta", "gamma", "δέλτα", None]
    return pl.DataFrame({
        "i": np.arange(N, dtype=np.int64),
        "i16": rng.integers(-3000, 3000, N).astype(np.int16),
        "u32": rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32),
        "f": rng.standard_normal(N),
        "s": [words[k] for k in rng.integers(0, 5, N)],
        "b": _nulls([bool(k) for k in rng.integers(0, 2, N)]),
        "d": [datetime.date(2000, 1, 1) + datetime.timedelta(days=int(k))
              for k in rng.integers(-10**5, 10**5, N)],
        "ts": pl.Series([datetime.datetime(2024, 1, 1) + datetime.timedelta(
            microseconds=int(k)) for k in rng.integers(0, 10**12, N)]),
    })


def _polars_nested():
    import polars as pl
    rng = _rng()
    df = _polars_frame().select("i", "s")
    lists = [None if k % 11 == 5 else [int(x) for x in rng.integers(0, 9, k % 4)]
             for k in range(N)]
    return df.with_columns(
        pl.Series("lst", lists, dtype=pl.List(pl.Int64)),
        pl.Series("strs", [None if v is None else [str(x) for x in v] for v in lists],
                  dtype=pl.List(pl.String)),
        pl.struct(pl.col("i").alias("a"), pl.col("s").alias("b")).alias("st"),
        pl.Series("arr", [[k, k + 1, k + 2] for k in range(N)],
                  dtype=pl.Array(pl.Int32, 3)),
        pl.Series("lst_st", [[{"x": k, "y": str(k)}] * (k % 3) for k in range(N)]),
    )


def _polars_deep():
    import polars as pl
    rows = [None if k % 13 == 4 else {
        "a": [[k, None], [], None][: k % 4],
        "b": None if k % 5 == 0 else {"c": str(k), "d": [float(k)] * (k % 3)},
    } for k in range(N)]
    return pl.DataFrame({"i": np.arange(N, dtype=np.int64), "deep": rows})


def _polars_categorical():
    import polars as pl
    df = _polars_frame().select("i", "s")
    return df.with_columns(pl.col("s").cast(pl.Categorical).alias("cat"),
                           pl.col("s").cast(pl.Enum(["alpha", "beta", "gamma", "δέλτα"]))
                           .alias("enum"))


def _polars_types():
    import polars as pl
    rng = _rng()
    return pl.DataFrame({
        "i": np.arange(N, dtype=np.int64),
        "dec": pl.Series([decimal.Decimal(int(k)) / 100 for k in rng.integers(-10**8, 10**8, N)],
                         dtype=pl.Decimal(12, 2)),
        "tz": pl.Series([datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)
                         + datetime.timedelta(seconds=int(k)) for k in range(N)]
                        ).dt.convert_time_zone("Asia/Tokyo"),
        "ms": pl.Series([datetime.datetime(2024, 5, 1) + datetime.timedelta(milliseconds=k)
                         for k in range(N)]).cast(pl.Datetime("ms")),
        "t": pl.Series([datetime.time(k % 24, k % 60, k % 60, k) for k in range(N)]),
        "dur": pl.Series([datetime.timedelta(microseconds=k * 999) for k in range(N)]),
        "bin": [bytes([k % 256]) * (k % 6) for k in range(N)],
    })


def _polars_int128():
    import polars as pl
    return pl.DataFrame({"i": np.arange(N, dtype=np.int64),
                         "i128": pl.Series([(k - 9) * 10**20 for k in range(N)],
                                           dtype=pl.Int128)})


def _polars_int128_values(path):
    """polars' read-back of INT(128): pqkit (like pyarrow, which refuses the file) has
    no 128-bit integer and reads the FIXED_LEN_BYTE_ARRAY(16), little-endian as
    polars writes it."""
    import polars as pl
    df = pl.read_parquet(path)
    return {"i": df["i"].to_list(),
            "i128": [v.to_bytes(16, "little", signed=True) for v in df["i128"].to_list()]}


def _polars(name, frame=_polars_frame, batches=False, filters=None, reference=None,
            **options):
    def write(root):
        path = os.path.join(root, "pl.parquet")
        frame().write_parquet(path, **options)
        return path
    return Case("polars", name, write, batches, filters, reference)


def polars_cases():
    cases = [_polars(f"compression-{codec}", compression=codec)
             for codec in ("uncompressed", "snappy", "gzip", "lz4", "zstd", "brotli")]
    cases += [
        _polars("statistics-off", statistics=False, filters=FILTER),
        _polars("statistics-full", statistics="full", filters=FILTER_TEXT),
        _polars("data_page_size-small", data_page_size=256, batches=True, filters=FILTER),
        _polars("row_group_size-small", row_group_size=40, batches=True, filters=FILTER),
        _polars("nested", _polars_nested, batches=True),
        _polars("nested-small-pages", _polars_nested, data_page_size=128, row_group_size=70),
        _polars("categorical-enum", _polars_categorical),
        _polars("types", _polars_types),
        _polars("int128", _polars_int128, reference=_polars_int128_values),
        _polars("use_pyarrow", use_pyarrow=True),
        _polars("compression_level", compression="zstd", compression_level=22),
        _polars("deep-nested", _polars_deep),
    ]
    return cases


# ---------------------------------------------------------------- DuckDB

DUCKDB_SELECT = f"""
SELECT i::BIGINT AS i,
       (i * 7919 % 65536 - 32768)::INTEGER AS i32,
       CASE WHEN i % 7 = 3 THEN NULL ELSE 'v' || (i % 13)::VARCHAR END AS s,
       (i / 8.0)::DOUBLE AS f,
       (i % 3 = 0) AS b,
       DATE '2000-01-01' + (i * 37)::INTEGER AS d,
       TIMESTAMP '2024-01-01 00:00:00' + to_microseconds(i * 123456789) AS ts
FROM range({N}) t(i)
"""

DUCKDB_TYPES = f"""
SELECT i::BIGINT AS i,
       ((i * 31 % 9999) - 5000)::DECIMAL(4, 0) / 10 AS dec4,
       (((i * 1234567) % 999999 - 500000) / 1000.0)::DECIMAL(9, 3) AS dec9,
       (((i * 98765432101) % 999999999999 - 500000000000) / 1000000.0)::DECIMAL(18, 6) AS dec18,
       ((i - 100)::HUGEINT * 123456789012345678901)::DECIMAL(38, 10) AS dec38,
       CASE WHEN i % 5 = 1 THEN NULL
            ELSE ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID END AS id,
       to_months(i % 30) + to_days(i % 40) + to_microseconds(i * 1000003) AS iv,
       TIMESTAMPTZ '2024-06-01 00:00:00+00' + to_seconds(i * 3607) AS tstz,
       TIMESTAMP_NS '2024-06-01 00:00:00' + to_microseconds(i) AS tsns,
       TIMESTAMP_MS '2024-06-01 00:00:00' + to_milliseconds(i) AS tsms,
       TIMESTAMP_S '2024-06-01 00:00:00' + to_seconds(i) AS tss,
       TIME '01:02:03' + to_microseconds(i * 999) AS t,
       (i * 100 % 256)::UTINYINT AS ut,
       (i * 1000 % 65536)::USMALLINT AS us,
       (i * 1000003)::UINTEGER AS ui,
       (i * 10000000019)::UBIGINT AS ub,
       (i * 3 % 256 - 128)::TINYINT AS ti,
       (i * 1000 % 65536 - 32768)::SMALLINT AS si,
       (i - 100)::HUGEINT * 100000000000000000000 AS hi,
       (i / 3)::FLOAT AS fl,
       ('blob' || i::VARCHAR)::BLOB AS bl,
       ['a', 'b', 'c'][1 + i % 3]::ENUM_T AS en
FROM range({N}) t(i)
"""

DUCKDB_NESTED = f"""
SELECT i::BIGINT AS i,
       CASE WHEN i % 9 = 2 THEN NULL ELSE range(i % 4) END AS lst,
       [CASE WHEN i % 2 = 0 THEN NULL ELSE 'x' || i::VARCHAR END, 'y'] AS strs,
       {{'a': i, 'b': CASE WHEN i % 6 = 1 THEN NULL ELSE i::VARCHAR END}} AS st,
       CASE WHEN i % 10 = 0 THEN NULL
            ELSE MAP(['k' || (i % 3)::VARCHAR, 'z'], [i, NULL]) END AS mp,
       [{{'x': i, 'y': [i, i + 1]}}] AS lst_st,
       [[i], [], NULL] AS lst_lst,
       [i, i + 1, i + 2]::INTEGER[3] AS arr
FROM range({N}) t(i)
"""


DUCKDB_MORE = f"""
SELECT i::BIGINT AS i,
       json_object('k', i, 'v', [i, 2]) AS js,
       MAP {{'a': {{'x': i, 'y': [i]}}, 'b': NULL}} AS mp_st,
       CASE WHEN i % 4 = 0 THEN NULL ELSE [MAP {{i: 'v'}}] END AS lst_mp,
       NULL::INTEGER AS all_null,
       [] :: INTEGER[] AS empty_lst,
       {{'only': NULL::VARCHAR}} AS st_null
FROM range({N}) t(i)
"""


def _duckdb(name, select=DUCKDB_SELECT, batches=False, filters=None, **options):
    def write(root):
        import duckdb
        path = os.path.join(root, "duck.parquet")
        opts = ", ".join(["FORMAT parquet"] + [f"{k} {v}" for k, v in options.items()])
        con = duckdb.connect()
        try:
            con.execute("SET TimeZone = 'UTC'")
            con.execute("CREATE TYPE ENUM_T AS ENUM ('a', 'b', 'c')")
            con.execute(f"COPY ({select}) TO '{path}' ({opts})")
        finally:
            con.close()
        return path
    return Case("duckdb", name, write, batches, filters)


def duckdb_cases():
    cases = [_duckdb(f"compression-{codec}", COMPRESSION=codec)
             for codec in ("uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4",
                           "lz4_raw")]
    cases += [
        _duckdb("row_group_size", ROW_GROUP_SIZE=50, batches=True, filters=FILTER_TEXT),
        _duckdb("parquet_version-v2", PARQUET_VERSION="v2", batches=True, filters=FILTER),
        _duckdb("parquet_version-v2-types", DUCKDB_TYPES, PARQUET_VERSION="v2"),
        _duckdb("parquet_version-v2-nested", DUCKDB_NESTED, PARQUET_VERSION="v2"),
        _duckdb("dictionary-off", DICTIONARY_SIZE_LIMIT=0),
        _duckdb("dictionary-ratio-0", DICTIONARY_COMPRESSION_RATIO_THRESHOLD=0),
        _duckdb("dictionary-string-page-limit", STRING_DICTIONARY_PAGE_SIZE_LIMIT=1),
        _duckdb("types", DUCKDB_TYPES, filters=FILTER),
        _duckdb("nested", DUCKDB_NESTED, batches=True),
        _duckdb("nested-small-row-groups", DUCKDB_NESTED, ROW_GROUP_SIZE=33),
        _duckdb("compression_level", COMPRESSION="zstd", COMPRESSION_LEVEL=19),
        _duckdb("field_ids-kv_metadata", FIELD_IDS="auto",
                KV_METADATA="{k: 'v', other: 'w'}"),
        _duckdb("empty", DUCKDB_SELECT + " WHERE i < 0"),
        _duckdb("more-types", DUCKDB_MORE),
    ]
    return cases


# ---------------------------------------------------------------- pyarrow

def _arrow_table():
    rng = _rng()
    ts = rng.integers(-10**15, 10**15, N)
    return pa.table({
        "i": pa.array(np.arange(N, dtype=np.int64)),
        "i32": pa.array(_nulls(rng.integers(-2**31, 2**31, N).tolist()), pa.int32()),
        "u64": pa.array(rng.integers(0, 2**64, N, dtype=np.uint64)),
        "f": pa.array(_nulls(rng.standard_normal(N).tolist())),
        "f32": pa.array(rng.standard_normal(N).astype(np.float32)),
        "s": pa.array(_nulls([f"s{k % 23}" for k in rng.integers(0, 1000, N)])),
        "bin": pa.array([bytes([k % 256]) * (k % 7) for k in range(N)], pa.binary()),
        "ts_ns": pa.array(ts * 1000, pa.timestamp("ns")),
        "ts_tz": pa.array(ts, pa.timestamp("us", "America/New_York")),
        "dec": pa.array([decimal.Decimal(int(k)).scaleb(-3) for k in ts % 10**9],
                        pa.decimal128(12, 3)),
        "d": pa.array(_nulls((ts % 10**5).astype(np.int32).tolist()), pa.date32()),
        "b": pa.array(_nulls((ts % 2 == 0).tolist())),
    })


def _arrow_nested():
    lists = [None if k % 9 == 2 else list(range(k % 4)) for k in range(N)]
    return pa.table({
        "i": pa.array(np.arange(N, dtype=np.int64)),
        "lst": pa.array(lists, pa.list_(pa.int32())),
        "st": pa.array([None if k % 8 == 1 else {"a": k, "b": [str(k)] * (k % 2)}
                        for k in range(N)]),
        "mp": pa.array([None if k % 10 == 3 else [(f"k{k % 3}", k), ("z", None)]
                        for k in range(N)], pa.map_(pa.string(), pa.int64())),
        "lst_st": pa.array([[{"x": k}] * (k % 3) for k in range(N)]),
    })


def _arrow_odd():
    return pa.table({
        "i": pa.array(np.arange(N, dtype=np.int64)),
        "null": pa.nulls(N),
        "all_null_int": pa.nulls(N, pa.int32()),
        "mp_st": pa.array([[(str(k), {"x": k, "y": [k] * (k % 2)})] for k in range(N)],
                          pa.map_(pa.string(), pa.struct([("x", pa.int64()),
                                                          ("y", pa.list_(pa.int64()))]))),
        "lst_dict": pa.array([[f"d{k % 3}"] * (k % 3) for k in range(N)],
                             pa.list_(pa.dictionary(pa.int32(), pa.string()))),
        "ll_st": pa.array([[{"a": [k % 100]}] if k % 6 else None for k in range(N)],
                          pa.large_list(pa.struct([("a", pa.list_(pa.int8()))]))),
        "uuid": pa.array([k.to_bytes(16, "big") for k in range(N)], pa.uuid()),
        "empty_struct_list": pa.array([[] for _ in range(N)], pa.list_(pa.int64())),
    })


def _arrow_large():
    t = _arrow_table()
    return pa.table({
        "i": t["i"],
        "ls": t["s"].cast(pa.large_string()),
        "lb": t["bin"].cast(pa.large_binary()),
        "ll": pa.array([[k] * (k % 3) for k in range(N)], pa.large_list(pa.int16())),
        "fsl": pa.array([[k, -k] for k in range(N)], pa.list_(pa.int64(), 2)),
        "fsb": pa.array([k.to_bytes(4, "little") for k in range(N)], pa.binary(4)),
        "view": t["s"].cast(pa.string_view()),
    })


def _arrow_dictionary():
    t = _arrow_table()
    return pa.table({
        "i": t["i"],
        "ds": t["s"].dictionary_encode(),
        "di": pa.array((np.arange(N) % 5).astype(np.int64)).dictionary_encode(),
        "db": t["bin"].dictionary_encode(),
    })


def _arrow_times():
    t = _arrow_table()
    return pa.table({
        "i": t["i"],
        "ts_ns": t["ts_ns"],
        "ts_s": t["ts_ns"].cast(pa.timestamp("s"), safe=False),
        "ts_ms_tz": t["ts_ns"].cast(pa.timestamp("ms", "UTC"), safe=False),
        "t32": pa.array((np.arange(N) * 997).astype(np.int32), pa.time32("ms")),
        "t64": pa.array((np.arange(N) * 99991).astype(np.int64), pa.time64("ns")),
        "dur": pa.array(np.arange(N) * 10**6, pa.duration("us")),
        "f16": pa.array(np.linspace(-2, 2, N).astype(np.float16)),
        "dec256": pa.array([decimal.Decimal(k).scaleb(-2) for k in range(N)],
                           pa.decimal256(50, 2)),
        "d64": pa.array(np.arange(N, dtype=np.int64) * 86_400_000, pa.date64()),
    })


def _pyarrow(name, table=_arrow_table, batches=False, filters=None, **options):
    def write(root):
        path = os.path.join(root, "pa.parquet")
        pq.write_table(table(), path, **options)
        return path
    return Case("pyarrow", name, write, batches, filters)


def _encoded(kind):
    if kind == "DELTA_BINARY_PACKED":
        return {"i": kind, "i32": kind, "u64": kind, "d": kind}
    if kind == "BYTE_STREAM_SPLIT":
        return {"f": kind, "f32": kind, "i32": kind, "dec": kind}
    return {"s": kind, "bin": kind}


def pyarrow_cases():
    cases = [
        _pyarrow("data_page_version-2.0", data_page_version="2.0", batches=True,
                 filters=FILTER),
        _pyarrow("use_dictionary-off", use_dictionary=False),
        _pyarrow("use_dictionary-some", use_dictionary=["s"]),
        _pyarrow("compression-per-column",
                 compression={"i": "zstd", "s": "gzip", "f": "brotli", "bin": "lz4",
                              "dec": "snappy"}),
        _pyarrow("compression_level", compression="zstd", compression_level=15),
        _pyarrow("use_byte_stream_split", use_dictionary=False,
                 use_byte_stream_split=["f", "f32", "i32", "u64", "dec"]),
        _pyarrow("write_statistics-off", write_statistics=False, filters=FILTER),
        _pyarrow("write_statistics-some", write_statistics=["i"], filters=FILTER_TEXT),
        _pyarrow("page-index", write_page_index=True, data_page_size=200,
                 filters=FILTER, batches=True),
        _pyarrow("page-checksum", write_page_checksum=True, data_page_version="2.0"),
        _pyarrow("bloom-filters", bloom_filter_options={"s": {"ndv": 30}, "i": True}),
        _pyarrow("coerce_timestamps-ms", coerce_timestamps="ms",
                 allow_truncated_timestamps=True),
        _pyarrow("int96", use_deprecated_int96_timestamps=True),
        _pyarrow("int96-times", _arrow_times, use_deprecated_int96_timestamps=True),
        _pyarrow("version-1.0", _arrow_times, version="1.0"),
        _pyarrow("times", _arrow_times),
        _pyarrow("use_compliant_nested_type-false", _arrow_nested,
                 use_compliant_nested_type=False, batches=True),
        _pyarrow("nested-v2-small-pages", _arrow_nested, data_page_version="2.0",
                 data_page_size=100, write_batch_size=16, row_group_size=90),
        _pyarrow("large-types", _arrow_large),
        _pyarrow("dictionary-types", _arrow_dictionary, batches=True),
        _pyarrow("store_schema-false", _arrow_large, store_schema=False),
        _pyarrow("store_decimal_as_integer", store_decimal_as_integer=True),
        _pyarrow("sorting_columns", row_group_size=60,
                 sorting_columns=[pq.SortingColumn(0)], filters=FILTER),
        _pyarrow("content-defined-chunking", use_content_defined_chunking=True),
        _pyarrow("dictionary_pagesize_limit", dictionary_pagesize_limit=64),
        _pyarrow("empty-table", lambda: _arrow_table().slice(0, 0)),
        _pyarrow("nulls-and-odd-nesting", _arrow_odd),
        _pyarrow("nulls-and-odd-nesting-v2-no-dictionary", _arrow_odd,
                 data_page_version="2.0", use_dictionary=False, data_page_size=64),
    ]
    cases += [_pyarrow(f"column_encoding-{kind}", use_dictionary=False,
                       column_encoding=_encoded(kind), data_page_version=version)
              for kind in ("DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
                           "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT")
              for version in ("1.0", "2.0")]
    return cases


def all_cases():
    return fastparquet_cases() + polars_cases() + duckdb_cases() + pyarrow_cases()
