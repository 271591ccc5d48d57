"""Read planning of pqkit.spark (no SparkSession): files, partitions, pruning, schemas."""
import datetime
import os

import pytest

import pqkit
import pqkit.spark
from pqkit import SchemaError
from pqkit import datatypes as T
from pqkit.spark.jobs.plan import Split, pack_tasks

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]


def _write(path, data, **options):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pqkit.write_table(data, path, **options)


@pytest.fixture
def hive(tmp_path):
    """year=2023|2024 / country=DE|FR, one file each; x ascending, 3 row groups of 10."""
    root = tmp_path / "hive"
    for year in (2023, 2024):
        for country in ("DE", "FR"):
            _write(str(root / f"year={year}" / f"country={country}" / "part-0.parquet"),
                   {"x": list(range(30)), "s": [f"{country}{i}" for i in range(30)]},
                   row_group_size=10)
    (root / "_SUCCESS").write_text("")
    (root / "year=2023" / ".part-0.parquet.crc").write_text("junk")
    (root / "_pqkit_staging").mkdir()
    (root / "_pqkit_staging" / "junk.parquet").write_text("junk")
    return str(root)


def test_directory_plan_splits_per_row_group_and_per_file(hive):
    plan = pqkit.spark.plan(hive)
    assert plan.num_files == 4 and plan.num_row_groups == 12
    assert len(plan.splits) == 12 and plan.num_rows == 120
    assert [f.name for f in plan.fields] == ["x", "s"]
    assert plan.partition_fields == [T.field("year", T.int32()), T.field("country", T.string())]
    assert {s.partition for s in plan.splits} == {(2023, "DE"), (2023, "FR"), (2024, "DE"),
                                                  (2024, "FR")}
    assert len(pqkit.spark.plan(hive, split_by="file").splits) == 4


def test_partition_terms_prune_files_and_statistics_prune_row_groups(hive):
    plan = pqkit.spark.plan(hive, filters=[("year", "=", 2024), ("x", ">=", 15)])
    assert len(plan.splits) == 4                     # row groups 1 and 2 of two files
    assert {s.row_groups for s in plan.splits} == {(1,), (2,)}
    assert all(s.partition[0] == 2024 for s in plan.splits)
    assert plan.splits[0].filters == [[(("x",), ">=", 15)]]
    only_partitions = pqkit.spark.plan(hive, filters=[("country", "=", "FR")])
    assert len(only_partitions.splits) == 6 and all(s.filters is None
                                                    for s in only_partitions.splits)


def test_plan_counts_the_row_groups_it_prunes_by_rule(hive):
    plan = pqkit.spark.plan(hive, filters=[("year", "=", 2024), ("x", ">=", 15)])
    # two 2023 files ruled out by their directory, row group 0 of each 2024 file by statistics
    assert plan.row_groups_skipped == {"partition": 6, "statistics": 2}
    assert plan.num_row_groups - sum(plan.row_groups_skipped.values()) == len(plan.splits)
    assert pqkit.spark.plan(hive).row_groups_skipped == {}


def test_dnf_or_of_conjunctions(hive):
    dnf = [[("year", "=", 2023), ("x", "<", 5)], [("country", "in", ["DE"]), ("x", ">", 25)]]
    plan = pqkit.spark.plan(hive, filters=dnf)
    got = sorted((s.partition, s.row_groups) for s in plan.splits)
    assert got == [((2023, "DE"), (0,)), ((2023, "DE"), (2,)), ((2023, "FR"), (0,)),
                   ((2024, "DE"), (2,))]


def test_filter_text_on_typed_partition_is_parsed(hive):
    assert len(pqkit.spark.plan(hive, filters=[("year", "==", "2024")]).splits) == 6
    with pytest.raises(SchemaError, match="not a int32"):
        pqkit.spark.plan(hive, filters=[("year", "==", "twenty")])


def test_partition_types_override(hive):
    plan = pqkit.spark.plan(hive, partition_types={"year": "string"})
    assert plan.partition_fields[0] == T.field("year", T.string())
    assert {s.partition[0] for s in plan.splits} == {"2023", "2024"}
    with pytest.raises(SchemaError, match="not partition columns"):
        pqkit.spark.plan(hive, partition_types={"nope": "int"})


def test_column_selection(hive):
    plan = pqkit.spark.plan(hive, columns=["s", "year"])
    assert plan.names == ["s", "year"]
    with pytest.raises(SchemaError, match="no column 'nope'"):
        pqkit.spark.plan(hive, columns=["nope"])
    with pytest.raises(SchemaError, match="filter column 'nope'"):
        pqkit.spark.plan(hive, filters=[("nope", "=", 1)])


def test_null_and_escaped_partition_values(tmp_path):
    root = tmp_path / "t"
    _write(str(root / "k=__HIVE_DEFAULT_PARTITION__" / "a.parquet"), {"v": [1]})
    _write(str(root / "k=a%2Fb%3Dc" / "a.parquet"), {"v": [2]})
    plan = pqkit.spark.plan(str(root))
    assert sorted((s.partition for s in plan.splits), key=repr) == [("a/b=c",), (None,)]
    # Nulls never match, not even "!=", except "not in" (as pyarrow).
    assert [s.partition for s in pqkit.spark.plan(str(root), filters=[("k", "!=", "x")])
            .splits] == [("a/b=c",)]
    assert sorted((s.partition for s in pqkit.spark.plan(
        str(root), filters=[("k", "not in", ["x"])]).splits), key=repr) == \
        [("a/b=c",), (None,)]


def test_timestamp_and_date_partitions(tmp_path):
    root = tmp_path / "t"
    _write(str(root / "d=2024-01-31" / "ts=2024-01-31 12%3A00%3A00" / "a.parquet"), {"v": [1]})
    plan = pqkit.spark.plan(str(root), timezone="Europe/Berlin")
    assert plan.partition_fields == [T.field("d", T.date32()),
                                     T.field("ts", T.timestamp("us", "UTC"))]
    assert plan.splits[0].partition == (
        datetime.date(2024, 1, 31),
        datetime.datetime(2024, 1, 31, 11, tzinfo=datetime.timezone.utc))


def test_bad_layouts(tmp_path):
    root = tmp_path / "mixed"
    _write(str(root / "a=1" / "f.parquet"), {"v": [1]})
    _write(str(root / "b=1" / "f.parquet"), {"v": [1]})
    with pytest.raises(SchemaError, match="one Hive layout"):
        pqkit.spark.plan(str(root))
    other = tmp_path / "plain_dirs"
    _write(str(other / "sub" / "f.parquet"), {"v": [1]})
    with pytest.raises(SchemaError, match="not a partition directory"):
        pqkit.spark.plan(str(other))
    with pytest.raises(SchemaError, match="does not exist"):
        pqkit.spark.plan(str(tmp_path / "missing"))


def test_schemas_merge_across_files(tmp_path):
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    pqkit.write_table({"x": [1], "y": ["a"]}, a, schema=[T.field("x", T.int32()),
                                                       T.field("y", T.string())])
    pqkit.write_table({"x": [2], "z": [1.5]}, b)
    plan = pqkit.spark.plan([a, b])
    assert plan.fields == [T.field("x", T.int64()), T.field("y", T.string()),
                           T.field("z", T.float64())]
    # A file without the filtered column has no matching rows.
    assert [s.path for s in pqkit.spark.plan([a, b], filters=[("z", ">", 0)]).splits] == [b]
    c = str(tmp_path / "c.parquet")
    pqkit.write_table({"x": ["text"]}, c)
    with pytest.raises(SchemaError, match="column x: files disagree"):
        pqkit.spark.plan([a, c])


def test_partition_column_inside_files_comes_from_directory(tmp_path):
    _write(str(tmp_path / "k=1" / "f.parquet"), {"k": [99], "v": [1]})
    plan = pqkit.spark.plan(str(tmp_path))
    assert [f.name for f in plan.fields] == ["v"] and plan.splits[0].partition == (1,)


def test_corrupt_file_error_names_the_path(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not really parquet")
    with pytest.raises(pqkit.ParquetError, match="bad.parquet"):
        pqkit.spark.plan(str(bad))


def test_unsupported_column_type_is_a_clear_error(tmp_path):
    path = str(tmp_path / "t.parquet")
    pqkit.write_table({"t": [datetime.time(1, 2)], "v": [1]}, path)
    with pytest.raises(SchemaError, match="column t: Spark has no type for time64"):
        pqkit.spark.plan(path)
    assert pqkit.spark.plan(path, columns=["v"]).names == ["v"]


def test_pack_tasks_balances_by_bytes():
    splits = [Split("f", (i,), 10, 50 << 20) for i in range(8)]
    tasks = pack_tasks(splits, parallelism=2)
    assert sum(len(t) for t in tasks) == 8 and len(tasks) >= 2
    assert [s.row_groups for t in tasks for s in t] == [(i,) for i in range(8)]
    one_file = [Split("f", (i,), 1, 100) for i in range(100)]
    assert len(pack_tasks(one_file, parallelism=2)) == 1     # one open, 10 kB: one task
    ten_files = [Split(f"f{i // 10}", (i % 10,), 1, 100) for i in range(100)]
    tasks = pack_tasks(ten_files, parallelism=2)
    assert 2 <= len(tasks) <= 3
    files_per_task = [{s.path for s in t} for t in tasks]
    assert sum(len(f) for f in files_per_task) == 10          # no file spans two tasks
