"""Plain Hive directories (no _pqkit/): listing, typed partitions, pruning, read-only.

pqkit.dataset.open on a directory written by pyarrow (or by hand, as Spark and
Hive lay them out) must return what pyarrow.dataset returns, prune by partition
values and by trustworthy footer bounds, skip ``_``/``.`` names, and refuse
writes (convert() copies into a new PQDS/1 dataset instead).
"""
import decimal
import json
import os
import shutil

import pyarrow as pa
import pyarrow.dataset as pa_ds
import pyarrow.parquet as pq
import pytest
from dshelpers import row_set

import pqkit
import pqkit.dataset as pds
from pqkit import CorruptFileError, SchemaError
from pqkit.dataset import DatasetError, DatasetIncomplete, DatasetNotFound
from pqkit.dataset.core.footer_snapshot import read_facts
from pqkit.dataset.hive.source import HiveSource

SPECIAL = ["a/b", "k=v", "50%", "12:30", "why?", "#1", "two words", "é", "a+b", None, ""]


def put(root, relpath, table, **options):
    path = os.path.join(root, *relpath.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(pa.table(table) if isinstance(table, dict) else table, path, **options)
    return path


def typed_arrow_rows(root, partition_schema, columns):
    part = pa_ds.partitioning(pa.schema(partition_schema), flavor="hive")
    return row_set(pa_ds.dataset(root, partitioning=part, format="parquet").to_table()
                   .to_pydict(), columns)


def test_pyarrow_written_directory_reads_like_pyarrow(tmp_path):
    root = str(tmp_path / "hive")
    n = len(SPECIAL)
    table = pa.table({"k": SPECIAL, "n": [i * (1 << 33) if i % 3 else None for i in range(n)],
                      "v": list(range(n)), "s": [f"s{i}" if i % 2 else None for i in range(n)]})
    pq.write_to_dataset(table, root, partition_cols=["k", "n"])
    ds = pds.open(root)
    assert ds.partition_by == ["k", "n"]
    assert [(f.name, str(f.type)) for f in ds.schema] == [
        ("v", "int64"), ("s", "string"), ("k", "string"), ("n", "int64")]
    cols = ["k", "n", "s", "v"]
    ours = row_set(ds.read(), cols)
    assert ours == row_set(table.to_pydict(), cols)
    assert ours == typed_arrow_rows(root, [("k", pa.string()), ("n", pa.int64())], cols)
    assert ds.count() == n and ds.file_count == n and ds.version == 0
    for value in SPECIAL:
        term = ("k", "==", value) if value is not None else ("k", "is_null", None)
        assert ds.read(filters=[term]).to_pydict()["k"] == [value]
        assert len(ds.files([term])) == 1


@pytest.mark.parametrize("dirs, expected", [
    (["a=1", "a=-2", "a=3000000000"], ("int64", [-2, 1, 3000000000])),
    (["a=007", "a=__HIVE_DEFAULT_PARTITION__"], ("int64", [None, 7])),
    (["a=1", "a=x"], ("string", ["1", "x"])),
    (["a=1", "a=99999999999999999999"], ("string", ["1", "99999999999999999999"])),
    (["a=__HIVE_DEFAULT_PARTITION__"], ("string", [None])),
    (["a=1.5", "a=2"], ("string", ["1.5", "2"])),
    (["a=%C3%A9t%C3%A9", "a=x%2Fy", "a=%zz"], ("string", ["%zz", "x/y", "été"])),
])
def test_partition_types_are_inferred(tmp_path, dirs, expected):
    for i, d in enumerate(dirs):
        put(str(tmp_path), f"{d}/part-{i}.parquet", {"v": [i]})
    ds = pds.open(tmp_path)
    assert str(ds.schema[-1].type) == expected[0]
    got = ds.read(columns=["a"]).to_pydict()["a"]
    assert sorted(got, key=lambda x: (x is not None, x)) == expected[1]


def test_hidden_names_are_skipped(tmp_path):
    root = str(tmp_path)
    put(root, "d=1/part-0.parquet", {"v": [1, 2]})
    for hidden in ("_temporary/0/d=1/part-9.parquet", ".staging/d=1/x.parquet",
                   "d=1/_part-8.parquet", "d=1/.part-0.parquet.crc", "_common_metadata_x"):
        path = os.path.join(root, *hidden.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"not parquet")
    with open(os.path.join(root, "_SUCCESS"), "wb"):
        pass
    ds = pds.open(root)
    assert [f.path for f in ds.files()] == ["d=1/part-0.parquet"]
    assert ds.read().to_pydict() == {"v": [1, 2], "d": [1, 1]}


def test_partition_and_bound_pruning_open_only_candidate_files(tmp_path):
    root = str(tmp_path)
    for year in (2023, 2024, 2025):
        for half in range(2):
            ids = list(range(year * 100 + half * 50, year * 100 + half * 50 + 50))
            put(root, f"year={year}/part-{half}.parquet", {"id": ids, "x": [i % 7 for i in ids]})
    ds = pds.open(root)
    assert ds.row_count == 300 and ds.file_count == 6
    assert {f.path for f in ds.files([("year", ">=", 2024), ("id", "<", 202450)])} == \
        {"year=2024/part-0.parquet"}
    assert [f.filters for f in ds.files([("year", "==", 2024)])] == [None, None]
    filters = [("year", "==", 2025), ("id", ">=", 202520)]
    expected = pa_ds.dataset(root, partitioning="hive").to_table(
        filter=(pa_ds.field("year") == 2025) & (pa_ds.field("id") >= 202520)).to_pydict()
    # Pruned files are never opened: deleting them changes nothing.
    for f in ds.files():
        if f.path not in {g.path for g in ds.files(filters)}:
            os.unlink(f.location)
    assert row_set(ds.read(filters=filters)) == row_set(expected)
    assert ds.count([("year", "in", [2023, 2024])]) == 200          # from the footers read
    assert ds.count(filters) == 80


def test_row_groups_are_pruned_inside_a_file(tmp_path):
    root = str(tmp_path)
    path = put(root, "p=a/f.parquet", {"id": list(range(100))}, row_group_size=10,
               write_page_checksum=True, compression="none", use_dictionary=False)
    md = pq.read_metadata(path)
    last = md.row_group(9).column(0)
    with open(path, "r+b") as f:                         # damage the values of group 9
        f.seek(last.data_page_offset + last.total_compressed_size - 8)
        f.write(b"\xff" * 8)
    ds = pds.open(root)
    assert ds.read(filters=[("id", "<", 15)]).to_pydict()["id"] == list(range(15))
    with pytest.raises(pqkit.ChecksumError):
        ds.read()


def test_only_trustworthy_bounds_are_used(tmp_path):
    root = str(tmp_path)
    data = pa.table({"m": pa.array([decimal.Decimal("-1.25"), decimal.Decimal("3.50")],
                                   pa.decimal128(7, 2)),
                     "f": pa.array([decimal.Decimal("-1.25"), decimal.Decimal("3.50")],
                                   pa.decimal128(7, 2)),
                     "i": pa.array([1, 5], pa.int32()), "d": [0.5, 1.5]})
    int_path = put(root, "p=1/f.parquet", data, store_decimal_as_integer=True)
    flba = put(root, "p=2/f.parquet", data)
    stats = read_facts(int_path).stats
    assert "m" not in stats and "d" not in stats              # INT32 decimal; no nan_count
    assert stats["i"] == {"min": "1", "max": "5", "nulls": 0}
    assert read_facts(flba).stats["m"] == {"min": "-1.25", "max": "3.50", "nulls": 0}
    ds = pds.open(root)
    got = ds.read(filters=[("m", "<", decimal.Decimal("0"))]).to_pydict()
    assert got["p"] == [1, 2] and got["i"] == [1, 1]
    assert len(ds.files([("i", ">", 5)])) == 0


def test_footer_without_column_orders_gives_no_bounds(tmp_path):
    from pqkit import format as fmt
    path = put(str(tmp_path), "f.parquet", {"i": [1, 5]})
    md = pqkit.read_metadata(path)
    raw = md.raw
    raw.column_orders = None
    footer = fmt.encode(raw)
    with open(path, "rb") as f:
        body = f.read()[:md.footer_offset]
    with open(path, "wb") as f:
        f.write(body + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    assert read_facts(path).stats == {}
    assert pds.open(tmp_path).read(filters=[("i", ">", 2)]).to_pydict() == {"i": [5]}


def test_columns_are_unioned_across_files(tmp_path):
    root = str(tmp_path)
    put(root, "p=1/a.parquet", pa.table({"v": pa.array([1], pa.int32())}))
    put(root, "p=2/b.parquet", pa.table({"v": pa.array([2], pa.int64()), "w": ["x"],
                                         "p": ["ignored"]}))
    ds = pds.open(root)
    assert [(f.name, str(f.type), f.nullable) for f in ds.schema] == [
        ("v", "int64", True), ("w", "string", True), ("p", "int64", True)]
    assert row_set(ds.read()) == row_set({"v": [1, 2], "w": [None, "x"], "p": [1, 2]})
    put(root, "p=3/c.parquet", {"v": ["text"]})
    with pytest.raises(SchemaError, match="column 'v' is int"):
        pds.open(root)


def test_common_metadata_types_the_partitions(tmp_path):
    root = str(tmp_path)
    put(root, "d=2024-01-31/n=7/f.parquet", {"v": [1]})
    put(root, "d=__HIVE_DEFAULT_PARTITION__/n=8/f.parquet", {"v": [2]})
    pq.write_metadata(pa.schema([("v", pa.int64()), ("d", pa.date32()), ("n", pa.int16())]),
                      os.path.join(root, "_common_metadata"))
    ds = pds.open(root)
    assert [str(f.type) for f in ds.schema] == ["int64", "date32[day]", "int16"]
    import datetime
    assert row_set(ds.read()) == row_set({"v": [1, 2], "d": [datetime.date(2024, 1, 31), None],
                                          "n": [7, 8]})
    with open(os.path.join(root, "_common_metadata"), "wb") as f:
        f.write(b"garbage")
    assert [str(f.type) for f in pds.open(root).schema] == ["int64", "string", "int64"]
    report = pds.verify(root)
    assert [p["path"] for p in report.problems] == ["_common_metadata"]
    assert report.files_checked == 2
    pq.write_metadata(pa.schema([("v", pa.int64()), ("d", pa.date32()), ("n", pa.int16())]),
                      os.path.join(root, "_common_metadata"))
    put(root, "d=yesterday/n=9/f.parquet", {"v": [3]})
    with pytest.raises(SchemaError, match="declared date32"):
        pds.open(root)


def test_inconsistent_directories_and_foreign_files_are_errors(tmp_path):
    root = str(tmp_path)
    put(root, "a=1/f.parquet", {"v": [1]})
    put(root, "b=2/f.parquet", {"v": [2]})
    with pytest.raises(DatasetError, match=r"b=2/f.parquet: has partition columns \['b'\]"):
        pds.open(root)
    shutil.rmtree(os.path.join(root, "b=2"))
    with open(os.path.join(root, "a=1", "README.txt"), "w") as f:
        f.write("notes")
    with pytest.raises(CorruptFileError, match="README.txt"):
        pds.open(root)
    report = pds.verify(root)
    assert not report.ok and [p["path"] for p in report.problems] == ["a=1/README.txt"]


def test_success_marker(tmp_path):
    root = str(tmp_path)
    put(root, "a=1/f.parquet", {"v": [1]})
    with pytest.raises(DatasetIncomplete, match="_SUCCESS"):
        pds.open(root, require_success=True)
    assert pds.open(root).row_count == 1
    with open(os.path.join(root, "_SUCCESS"), "w") as f:         # Hadoop committers: JSON
        json.dump({"name": "org.apache.hadoop.fs.s3a.commit.files.SuccessData"}, f)
    assert pds.open(root, require_success=True).row_count == 1
    assert pds.publish_state(root) == {"layout": "hive", "success": True, "state": "complete"}
    with pytest.raises(DatasetNotFound):
        pds.open(tmp_path / "nothing")


def test_writes_are_refused_and_convert_copies(tmp_path):
    root = str(tmp_path / "hive")
    table = pa.table({"k": ["x", "y", None, "a/b"], "v": [1, 2, 3, 4]})
    pq.write_to_dataset(table, root, partition_cols=["k"])
    before = sorted(os.listdir(root))
    with pytest.raises(DatasetError, match="plain Hive-partitioned directory.*convert"):
        pds.write(root, {"k": ["z"], "v": [5]}, partition_by=["k"])
    from pqkit.dataset.pqds.staging import stage_file
    entry = stage_file(root, {"v": [5]}, {"k": "z"})       # staged below _pqkit/: invisible
    with pytest.raises(DatasetError, match="plain Hive"):
        pds.commit(root, [entry], mode="append")
    for refused in (lambda: pds.stage_file(root, {"v": [5]}, {"k": "z"}),
                    lambda: pds.delete(root, [("v", "==", 1)]), lambda: pds.compact(root),
                    lambda: pds.tag(root, "t"), lambda: pds.vacuum(root),
                    lambda: pds.publish(root)):
        with pytest.raises(DatasetError, match="plain Hive"):
            refused()
    shutil.rmtree(os.path.join(root, "_pqkit"))
    assert sorted(os.listdir(root)) == before
    with pytest.raises(DatasetError, match="nothing to repair"):
        pds.repair(root)
    with pytest.raises(DatasetError, match="inside the source"):
        pds.convert(root, os.path.join(root, "copy"))
    target = str(tmp_path / "pqds")
    assert pds.convert(root, target) == 0
    copy = pds.open(target)
    assert pds.detect_layout(target) == "pqds" and copy.partition_by == ["k"]
    assert row_set(copy.read()) == row_set(table.to_pydict())
    pds.write(target, {"k": ["z"], "v": [5]})
    assert pds.open(target).count() == 5


def test_unreadable_footer_is_reported_with_its_path(tmp_path):
    root = str(tmp_path)
    put(root, "a=1/good.parquet", {"v": [1]})
    bad = put(root, "a=2/bad.parquet", {"v": [2]})
    with open(bad, "r+b") as f:
        f.truncate(os.path.getsize(bad) - 3)
    with pytest.raises(pqkit.ParquetError, match="bad.parquet"):
        pds.open(root)
    source = HiveSource(root, strict=False)
    assert [p["path"] for p in source.problems] == ["a=2/bad.parquet"]
    assert pds.open(root, source=source).read().to_pydict() == {"v": [1], "a": [1]}
