"""Version files (§3.3): fields, schema hash, feature flags, validation, per-file statistics."""
import hashlib
import json
import os

import pytest

import pqkit
import pqkit.dataset as pds
import pqkit.datatypes as T
from pqkit import DatasetNotFound, ManifestCorrupted, UnsupportedFeature
from pqkit.dataset.pqds.paths import RootPaths, _cache


def _version_json(root, v):
    with open(RootPaths(root).version_path(v)) as f:
        return json.load(f)


def _rewrite_version(root, v, change):
    path = RootPaths(root).version_path(v)
    data = _version_json(root, v)
    change(data)
    with open(path, "w") as f:
        json.dump(data, f)
    _cache.clear()


@pytest.fixture
def ds_root(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"year": [2024, 2024, 2025], "id": [1, 2, 3], "amount": [1.5, None, 2.5]},
              partition_by=["year"], run_id="etl:7", properties={"owner.team": "x"},
              metadata={"owner": "team-x"}, dataset_key="sales/daily")
    return root


def test_version_file_has_every_field_of_the_design(ds_root):
    m = _version_json(ds_root, 0)
    assert m["format"] == "pqds" and m["format_version"] == 1
    assert m["reader_features"] == [] and m["writer_features"] == []
    assert len(m["dataset_id"]) == 32 and m["dataset_key"] == "sales/daily"
    assert m["version"] == 0 and m["parent_version"] is None
    assert m["committed_at_utc"].endswith("Z")
    op = m["operation"]
    assert op["type"] == "append" and op["run_id"] == "etl:7" and op["read_version"] == -1
    assert len(op["added"]) == 2 and op["removed"] == [] and op["engine"].startswith("pqkit")
    assert op["metrics"]["rows_added"] == 3
    assert m["app_txns"] == {"etl": 7}
    assert m["partitioning"] == {"style": "hive", "columns": [{"name": "year", "type": "int64"}],
                                 "null_token": "__HIVE_DEFAULT_PARTITION__"}
    assert m["properties"]["owner.team"] == "x" and m["properties"]["stats.columns"] == "32"
    assert m["metadata"] == {"owner": "team-x"}
    assert m["row_count"] == 3 and m["file_count"] == 2
    assert m["total_bytes"] == sum(f["size"] for f in m["files"])
    f = m["files"][0]
    assert set(f) >= {"key", "path", "partition", "size", "row_count", "row_groups", "schema_id",
                      "codec", "added_version", "stats", "sha256"}
    assert f["codec"] == "zstd" and f["path"].startswith("year=2024/part-00000-")
    assert f["key"] == f["path"].split("-", 2)[-1][:-8] + "-00000"


def test_schema_hash_is_sha256_of_canonical_fields(ds_root):
    schema = _version_json(ds_root, 0)["schema"]
    canonical = json.dumps(schema["fields"], sort_keys=True, separators=(",", ":"))
    assert schema["sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert schema["fields"] == [{"id": 1, "name": "id", "type": "int64", "nullable": True},
                                {"id": 2, "name": "amount", "type": "float64",
                                 "nullable": True}]


def test_data_files_carry_field_ids_and_no_partition_columns(ds_root):
    ds = pds.open(ds_root)
    md = pqkit.read_metadata(ds.files()[0].location)
    assert [c.path for c in md.schema.columns] == [("id",), ("amount",)]
    assert [e.field_id for e in md.raw.schema[1:]] == [1, 2]


def test_stats_are_folded_from_row_groups(tmp_path):
    root = str(tmp_path / "s")
    long = "é" * 40                                                    # 80 bytes
    pds.write(root, {"i": [5, -3, None, 7], "f": [-0.0, float("nan"), 0.0, None],
                     "s": [long, "a", None, "b"], "n": [None] * 4,
                     "d": [pqkit.datatypes and __import__("decimal").Decimal("-1.25")] * 4,
                     "l": [[1], [2], None, []]},
              schema=[T.field("i", T.int64()), T.field("f", T.float64()),
                      T.field("s", T.string()), T.field("n", T.int32()),
                      T.field("d", T.decimal(9, 2)), T.field("l", T.list_(T.int32()))],
              row_group_size=2)
    stats = pds.open(root).files()[0].stats
    assert stats["i"] == {"min": "-3", "max": "7", "nulls": 1}
    assert stats["f"] == {"min": "-0.0", "max": "0.0", "nulls": 1, "nans": 1}
    assert stats["s"]["min"] == "a" and stats["s"]["min_exact"] is True
    assert stats["s"]["max"] != long and stats["s"]["max"] > long
    assert len(stats["s"]["max"].encode()) <= 64 and stats["s"]["max_exact"] is False
    assert stats["n"] == {"nulls": 4}
    assert stats["d"] == {"min": "-1.25", "max": "-1.25", "nulls": 0}
    assert "l" not in stats                                            # repeated: no stats


def test_stats_columns_limit_and_missing_statistics(tmp_path):
    root = str(tmp_path / "s")
    pds.write(root, {f"c{i}": [i] for i in range(5)}, stats_columns=2)
    assert sorted(pds.open(root).files()[0].stats) == ["c0", "c1"]
    root2 = str(tmp_path / "s2")
    pds.write(root2, {"x": [1]}, write_statistics=False)
    assert pds.open(root2).files()[0].stats == {}


def test_unknown_reader_feature_is_refused(ds_root):
    # deletion_vectors is implemented now (core/deletion_file.py); file_segments is not
    _rewrite_version(ds_root, 0, lambda d: d.update(reader_features=["file_segments"]))
    with pytest.raises(UnsupportedFeature, match="file_segments"):
        pds.open(ds_root)


def test_unknown_writer_feature_allows_reading_but_not_writing(ds_root):
    _rewrite_version(ds_root, 0, lambda d: d.update(writer_features=["file_segments"]))
    assert pds.open(ds_root).count() == 3
    with pytest.raises(UnsupportedFeature, match="file_segments"):
        pds.write(ds_root, {"year": [2024], "id": [9], "amount": [0.0]})


@pytest.mark.parametrize("features", [4, "deletion_vectors", [1, "a"], [["x"]], {"a": 1}])
@pytest.mark.parametrize("key", ["reader_features", "writer_features"])
def test_feature_lists_of_the_wrong_shape_are_manifest_corrupted(ds_root, key, features):
    """A fuzzed version file with ``"reader_features": 4`` raised a raw TypeError from
    the loader; a feature list must be a list of names."""
    _rewrite_version(ds_root, 0, lambda d: d.update({key: features}))
    with pytest.raises(ManifestCorrupted, match=f"{key} must be a list of feature names"):
        pds.open(ds_root)


def test_schema_fields_that_are_not_objects_are_manifest_corrupted(ds_root):
    """A fuzzed version file listing a schema field as a string raised a raw
    AttributeError from the field parser."""
    _rewrite_version(ds_root, 0, lambda d: d["schema"]["fields"].append("amount"))
    with pytest.raises(ManifestCorrupted, match="bad schema: a field is an object"):
        pds.open(ds_root)


def test_json_nested_past_the_recursion_limit_is_manifest_corrupted(ds_root):
    path = RootPaths(ds_root).version_path(0)
    with open(path, "w") as f:
        f.write("[" * 5000 + "]" * 5000)
    _cache.clear()
    with pytest.raises(ManifestCorrupted, match="nested too deeply"):
        pds.open(ds_root)


@pytest.mark.parametrize("change, match", [
    (lambda d: d.update(row_count=99), "row_count"),
    (lambda d: d.update(file_count=7), "file_count"),
    (lambda d: d["schema"].update(sha256="0" * 64), "sha256"),
    (lambda d: d.update(format="delta"), "format"),
    (lambda d: d.update(version=5), "version 5"),
    (lambda d: d["files"][0].pop("size"), "malformed"),
    (lambda d: d["schema"]["fields"][0].update(type="int128"), "bad schema"),
])
def test_inconsistent_version_files_are_manifest_corrupted(ds_root, change, match):
    _rewrite_version(ds_root, 0, change)
    with pytest.raises(ManifestCorrupted, match=match):
        pds.open(ds_root)


def test_format_version_two_is_unsupported(ds_root):
    _rewrite_version(ds_root, 0, lambda d: d.update(format_version=2))
    with pytest.raises(UnsupportedFeature, match="format_version"):
        pds.open(ds_root)


def test_a_path_escaping_the_root_is_refused_when_resolved(ds_root):
    _rewrite_version(ds_root, 0, lambda d: d["files"][0].update(path="../outside.parquet"))
    with pytest.raises(ManifestCorrupted, match="relative POSIX path"):
        pds.open(ds_root).read()


def test_unparsable_json_is_manifest_corrupted(ds_root):
    pds.write(ds_root, {"year": [2024], "id": [4], "amount": [0.5]})
    with open(RootPaths(ds_root).version_path(0), "w") as f:
        f.write("{not json")
    _cache.clear()
    with pytest.raises(ManifestCorrupted, match="not valid JSON"):
        pds.open(ds_root, version=0)


def test_torn_newest_version_reads_as_in_progress_until_repair(ds_root):
    pds.write(ds_root, {"year": [2024], "id": [4], "amount": [0.5]})
    torn = RootPaths(ds_root).version_path(2)
    with open(torn, "w") as f:
        f.write('{"format": "pqds", "vers')                   # a crash in O_EXCL mode
    _cache.clear()
    assert pds.open(ds_root).version == 1                     # readers use N-1
    with pytest.raises(ManifestCorrupted):
        pds.write(ds_root, {"year": [2024], "id": [5], "amount": [0.5]})
    assert pds.repair(ds_root, grace=0)["torn_version"] == 2
    assert not os.path.exists(torn)
    assert pds.write(ds_root, {"year": [2024], "id": [5], "amount": [0.5]}) == 2


def test_no_dataset(tmp_path):
    with pytest.raises(DatasetNotFound):
        pds.open(str(tmp_path))
    with pytest.raises(DatasetNotFound):
        pds.open(str(tmp_path / "missing"), version=0)
