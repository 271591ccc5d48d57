"""File surgery on Spark's files, and Spark reading surgery's results: recover at 100
cuts of a Spark-written file, concat and append read back by Spark."""
import glob
import random

import pyarrow.parquet as pq
import pytest

import pqkit
from interop.test_surgery import complete_row_groups
from spark_helpers import canonical_rows, same_rows

DATA_SQL = """select id, concat('n', id % 97) as name,
                     case when id % 5 = 0 then null else array(id, id + 1) end as tags,
                     named_struct('x', id * 0.5, 'y', cast(id % 3 as int)) as point
              from range(0, {n}, 1, 1)"""


def _spark_file(spark, root, n, **options):
    writer = spark.sql(DATA_SQL.format(n=n)).coalesce(1).write.mode("overwrite")
    for k, v in options.items():
        writer = writer.option(k, v)
    writer.parquet(str(root))
    (path,) = glob.glob(str(root / "*.parquet"))
    return path


@pytest.fixture(scope="module")
def spark_file(spark, tmp_path_factory):
    """About ten row groups: parquet-mr cuts them by the block size."""
    return _spark_file(spark, tmp_path_factory.mktemp("spark_surgery"), 20000,
                       **{"parquet.block.size": "32768", "parquet.page.size": "8192"})


def test_spark_file_has_row_groups_to_lose(spark_file):
    assert pq.ParquetFile(spark_file).metadata.num_row_groups >= 5


def test_recover_spark_file_at_100_random_cuts(spark_file, tmp_path):
    data = open(spark_file, "rb").read()
    whole = pq.read_table(spark_file)
    rng = random.Random(18)
    for cut in sorted(rng.sample(range(4, len(data) + 1), 100)):
        (tmp_path / "cut.parquet").write_bytes(data[:cut])
        result = pqkit.recover(tmp_path / "cut.parquet", tmp_path / "out.parquet",
                               schema_from=spark_file)
        complete = complete_row_groups(spark_file, cut)
        assert (result.row_groups, result.num_rows) == (len(complete), sum(complete)), cut
        assert pq.read_table(tmp_path / "out.parquet").equals(whole.slice(0, sum(complete)))


def test_spark_reads_concat_and_append_of_spark_files(spark, spark_file, tmp_path):
    other = _spark_file(spark, tmp_path / "other", 5000)
    pqkit.concat([spark_file, other], tmp_path / "both.parquet")
    expected = spark.read.parquet(spark_file).union(spark.read.parquet(other))
    assert same_rows(spark.read.parquet(str(tmp_path / "both.parquet")), expected)

    appended = tmp_path / "appended.parquet"
    appended.write_bytes(open(other, "rb").read())
    pqkit.append(appended, pqkit.read_table(other).slice(0, 100))
    got = canonical_rows(spark.read.parquet(str(appended)).where("id < 100").collect())
    want = canonical_rows(spark.read.parquet(other).where("id < 100").collect())
    assert got == sorted(want + want)
