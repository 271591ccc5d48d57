"""Paths from dataset metadata stay inside the root, in every layout (issue 31 classes 5, 6).

Each test builds a dataset and, beside its root, a *sentinel*: a Parquet file (or
index segment) outside the root holding rows no dataset file holds. Metadata
pointing at the sentinel (``..``, an absolute path, an encoded ``..``, a
symbolic link out of the root) must fail with ``ManifestCorrupted`` naming the
metadata file and the field, and the sentinel must never be opened: an audit
hook records every file this process opens while the dataset is opened and read.
"""
import json
import os
import shutil
import sys

import fsspec
import pytest
from kartothek_build import UUID, build, encode

import pqkit.dataset as pds
from pqkit import write_table
from pqkit.dataset import ManifestCorrupted
from pqkit.dataset.pqds.paths import RootPaths, _cache
from pqkit.dataset.pqds.sources import ManifestSource, ObjectManifestSource

SENTINEL_ID = 666_666

_opened = []
_recording = [False]


def _audit(event, args):
    if _recording[0] and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@pytest.fixture
def opened():
    """The paths this process opens while the test runs."""
    _opened.clear()
    _recording[0] = True
    yield _opened
    _recording[0] = False


def _move_out(path, dest):
    """Move directory ``path`` to ``dest`` (outside the root) and link it back."""
    shutil.copytree(path, dest)
    shutil.rmtree(path)
    os.symlink(dest, path)


def _never_opened(opened, outside):
    outside = os.path.realpath(str(outside))
    touched = [p for p in opened if os.path.realpath(p).startswith(outside + os.sep)]
    assert touched == [], f"files outside the root were opened: {touched}"


@pytest.fixture
def outside(tmp_path):
    """A directory beside the dataset with a sentinel data file and segment."""
    out = tmp_path / "outside"
    out.mkdir()
    write_table({"id": [SENTINEL_ID], "name": ["secret"]}, str(out / "sentinel.parquet"))
    return out


# --- PQDS/1 ---------------------------------------------------------------------------
@pytest.fixture
def pqds(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"year": [2024, 2024, 2025], "id": [1, 2, 3], "name": ["a", "b", "c"]},
              partition_by=["year"])
    pds.build_index(root, "id")                       # version 1 lists an index segment
    return root


def _rewrite(root, change, version=1):
    path = RootPaths(root).version_path(version)
    with open(path) as f:
        doc = json.load(f)
    change(doc)
    with open(path, "w") as f:
        json.dump(doc, f)
    _cache.clear()
    return os.path.basename(path)


@pytest.mark.parametrize("path", [
    "../outside/sentinel.parquet",
    "year=2024/../../outside/sentinel.parquet",
    "%2e%2e/outside/sentinel.parquet",
    "year=2024/..%2F..%2Foutside/sentinel.parquet",
    "year=2024\\..\\..\\outside\\sentinel.parquet",
    "year=2024//sentinel.parquet",
    "ABSOLUTE",
])
def test_pqds_data_path_outside_the_root_fails_the_open(pqds, outside, opened, path):
    if path == "ABSOLUTE":
        path = str(outside / "sentinel.parquet")
    name = _rewrite(pqds, lambda d: d["files"][0].update(path=path))
    with pytest.raises(ManifestCorrupted) as info:
        pds.open(pqds)
    message = str(info.value)
    assert name in message and "malformed files[0].path" in message
    _never_opened(opened, outside)


@pytest.mark.parametrize("path", [
    "../outside/sentinel.pqindex",
    "_pqkit/indices/../../outside/sentinel.pqindex",
    "_pqkit/indices/%2e%2e/%2e%2e/../outside/sentinel.pqindex",
    "year=2024/sentinel.pqindex",
    "ABSOLUTE",
])
def test_pqds_index_segment_outside_the_root_fails_the_open(pqds, outside, opened, path):
    """Class 5: a version file's index segment path naming a file outside the root."""
    shutil.copy(_segment_file(pqds), outside / "sentinel.pqindex")
    if path == "ABSOLUTE":
        path = str(outside / "sentinel.pqindex")
    name = _rewrite(pqds, lambda d: d["indices"][0]["segments"][0].update(path=path))
    opened.clear()                                    # setup done: record from here
    with pytest.raises(ManifestCorrupted) as info:
        pds.open(pqds).read(filters=[("id", "==", 1)])
    message = str(info.value)
    assert name in message and "malformed indices[0].segments[0].path" in message
    _never_opened(opened, outside)


def _segment_file(root):
    ds = pds.open(root)
    rel = ds.indices[0]["segments"][0]["path"]
    return os.path.join(root, *rel.split("/"))


def test_pqds_index_directory_linked_out_of_the_root_is_refused_at_read(pqds, outside, opened):
    segment = _segment_file(pqds)
    _move_out(os.path.dirname(segment), outside / "indices")
    opened.clear()
    ds = pds.open(pqds)
    assert ds.read().num_rows == 3                  # no index needed: nothing outside read
    with pytest.raises(ManifestCorrupted, match="index segment path .* outside the dataset"):
        ds.read(filters=[("id", "==", 1)])
    _never_opened(opened, outside)


def test_pqds_data_file_linked_out_of_the_root_is_refused_at_read(pqds, outside, opened):
    ds = pds.open(pqds)
    victim = ds.files()[0]
    os.remove(victim.location)
    shutil.copy(outside / "sentinel.parquet", outside / "copy.parquet")
    os.symlink(outside / "copy.parquet", victim.location)
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="outside the dataset root") as info:
        pds.open(pqds).read()
    assert victim.path in str(info.value)
    _never_opened(opened, outside)


def test_pqds_partition_directory_linked_out_of_the_root(pqds, outside, opened):
    _move_out(os.path.join(pqds, "year=2025"), outside / "year=2025")
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="outside the dataset root"):
        pds.open(pqds).read()
    assert pds.open(pqds).read(filters=[("year", "==", 2024)]).num_rows == 2
    _never_opened(opened, outside)


def test_pqds_resolve_checks_entries_that_bypassed_the_version_file(pqds):
    """Entries may come from the planning index: resolve checks the path itself."""
    with pytest.raises(ManifestCorrupted, match="relative POSIX path"):
        ManifestSource(pqds).resolve({"key": "k", "path": "../outside/x.parquet", "size": 1})


# --- PQDS/1 on an object store --------------------------------------------------------
@pytest.fixture
def bucket(pqds, outside):
    """The dataset uploaded to an in-memory store, with the sentinel beside it."""
    fs = fsspec.filesystem("memory")
    prefix = f"/b{os.getpid()}-{id(pqds)}"
    for dirpath, _, names in os.walk(pqds):
        for n in names:
            p = os.path.join(dirpath, n)
            fs.pipe_file(f"{prefix}/ds/{os.path.relpath(p, pqds)}", open(p, "rb").read())
    fs.pipe_file(f"{prefix}/outside/sentinel.parquet",
                 (outside / "sentinel.parquet").read_bytes())
    yield fs, prefix
    fs.rm(prefix, recursive=True)


@pytest.mark.parametrize("path", [
    "../outside/sentinel.parquet", "%2e%2e/outside/sentinel.parquet",
    "%252e%252e/outside/sentinel.parquet", "/outside/sentinel.parquet",
    "year=2024\\..\\..\\outside\\sentinel.parquet", "year=2024//../outside/sentinel.parquet",
])
def test_url_data_path_outside_the_root_fails_the_open(bucket, path):
    fs, prefix = bucket
    key = f"{prefix}/ds/_pqkit/versions/_{1:020d}.json"
    doc = json.loads(fs.cat_file(key))
    doc["files"][0]["path"] = path
    fs.pipe_file(key, json.dumps(doc).encode())
    with pytest.raises(ManifestCorrupted, match=r"malformed files\[0\]\.path") as info:
        pds.open(f"memory://{prefix}/ds").read()
    assert f"_{1:020d}.json" in str(info.value)


def test_url_index_segment_outside_the_root_fails_the_open(bucket):
    fs, prefix = bucket
    key = f"{prefix}/ds/_pqkit/versions/_{1:020d}.json"
    doc = json.loads(fs.cat_file(key))
    doc["indices"][0]["segments"][0]["path"] = "_pqkit/indices/id/../../../../outside/x"
    fs.pipe_file(key, json.dumps(doc).encode())
    with pytest.raises(ManifestCorrupted, match=r"malformed indices\[0\]\.segments\[0\]\.path"):
        pds.open(f"memory://{prefix}/ds").read(filters=[("id", "==", 1)])


def test_url_source_checks_each_path_it_resolves(bucket):
    fs, prefix = bucket
    source = ObjectManifestSource(f"memory://{prefix}/ds")
    for path in ("../outside/sentinel.parquet", "%2e%2e/outside/sentinel.parquet"):
        entry = {"key": "k", "path": path, "size": 1}
        with pytest.raises(ManifestCorrupted, match="relative POSIX path"):
            source.resolve(entry)
        with pytest.raises(ManifestCorrupted, match="relative POSIX path"):
            source.stat(entry)
        with pytest.raises(ManifestCorrupted, match="index segment path"):
            source.index_file(path)


# --- plain Hive directories ------------------------------------------------------------
def test_hive_file_linked_out_of_the_root(tmp_path, outside, opened):
    root = tmp_path / "hive"
    (root / "year=2024").mkdir(parents=True)
    (root / "year=2025").mkdir()
    write_table({"id": [1], "name": ["a"]}, str(root / "year=2024" / "part-0.parquet"))
    os.symlink(outside / "sentinel.parquet", root / "year=2025" / "part-1.parquet")
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="outside the dataset root") as info:
        pds.open(str(root))
    assert "year=2025/part-1.parquet" in str(info.value)
    report = pds.verify(str(root))
    assert [p["path"] for p in report.problems] == ["year=2025/part-1.parquet"]
    _never_opened(opened, outside)


# --- RFC-0008 single-manifest datasets ------------------------------------------------
def test_rfc_part_linked_out_of_the_root(tmp_path, outside, opened):
    root = str(tmp_path / "rfc")
    pds.write(root, {"id": [1, 2], "name": ["a", "b"]}, layout="manifest")
    os.remove(os.path.join(root, "data.parquet"))
    os.symlink(outside / "sentinel.parquet", os.path.join(root, "data.parquet"))
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="outside the dataset root"):
        pds.open(root)
    _never_opened(opened, outside)


@pytest.mark.parametrize("part", ["%2e%2e/outside/sentinel.parquet", "/etc/passwd",
                                  "a\\..\\..\\x.parquet"])
def test_rfc_part_paths_outside_the_root(tmp_path, outside, opened, part):
    root = str(tmp_path / "rfc")
    pds.write(root, {"id": [1, 2], "name": ["a", "b"]}, layout="manifest")
    path = os.path.join(root, "manifest.json")
    with open(path) as f:
        doc = json.load(f)
    doc["parts"] = [part]
    with open(path, "w") as f:
        json.dump(doc, f)
    with pytest.raises(ManifestCorrupted, match="manifest.json: part 0 .* relative POSIX"):
        pds.open(root)
    _never_opened(opened, outside)


# --- Kartothek --------------------------------------------------------------------------
def _kartothek_doc(built):
    with open(built["metadata_path"]) as f:
        return json.load(f)


def _escaping_table(store, outside, fmt, table):
    """Rewrite the metadata so that table ``table`` lists the sentinel's directory."""
    built = build(store, fmt)
    doc = _kartothek_doc(built) if fmt == "json" else None
    if doc is None:
        import msgpack
        import zstandard
        with open(built["metadata_path"], "rb") as f:
            doc = msgpack.unpackb(zstandard.ZstdDecompressor().decompress(f.read()))
    write_table({"id": [SENTINEL_ID], "name": ["secret"]}, str(outside / "_common_metadata"))
    doc["partitions"] = {"p": {"files": {table: f"{UUID}/{table}/sentinel.parquet"}}}
    doc["partition_keys"] = []
    doc.pop("indices")
    with open(built["metadata_path"], "wb") as f:
        f.write(encode(doc, fmt))
    return built["metadata_path"]


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
@pytest.mark.parametrize("table", ["../../outside", "..", "core/../../../outside",
                                   "%2e%2e/%2e%2e/outside", "core/sub"])
def test_kartothek_table_name_escaping_the_store_fails_the_open(tmp_path, outside, opened,
                                                                 fmt, table):
    """Class 6: a table name with ``..`` moved the table's root out of the store."""
    store = str(tmp_path / "store")
    metadata = _escaping_table(store, outside, fmt, table)
    opened.clear()
    with pytest.raises(ManifestCorrupted) as info:
        pds.open_kartothek(store, table=table)
    message = str(info.value)
    assert message.startswith(f"{metadata}: malformed partitions.p.files.{table}: a table "
                              "name"), message
    with pytest.raises(ManifestCorrupted):
        pds.open(store)
    _never_opened(opened, outside)


def test_kartothek_table_directory_linked_out_of_the_store(tmp_path, outside, opened):
    store = str(tmp_path / "store")
    build(store, "json")
    _move_out(os.path.join(store, UUID, "aux"), outside / "aux")
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="table 'aux' resolves to .* outside"):
        pds.open_kartothek(store, table="aux")
    assert pds.open_kartothek(store, table="core").read().num_rows == 12
    _never_opened(opened, outside)


def test_kartothek_file_linked_out_of_the_table(tmp_path, outside, opened):
    store = str(tmp_path / "store")
    built = build(store, "json")
    victim = built["files"]["core"][0]
    os.remove(victim)
    os.symlink(outside / "sentinel.parquet", victim)
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="outside the dataset root"):
        pds.open_kartothek(store, table="core")
    _never_opened(opened, outside)


@pytest.mark.parametrize("ref", [f"{UUID}/indices/../../outside/x.by-dataset-index.parquet",
                                 f"{UUID}/indices/%2e%2e/%2e%2e/x.by-dataset-index.parquet"])
def test_kartothek_index_file_outside_the_dataset(tmp_path, outside, opened, ref):
    store = str(tmp_path / "store")
    built = build(store, "json")
    doc = _kartothek_doc(built)
    doc["indices"] = {"c_id": ref}
    with open(built["metadata_path"], "w") as f:
        json.dump(doc, f)
    with pytest.raises(ManifestCorrupted, match="indices.c_id .* relative POSIX"):
        pds.open_kartothek(store, table="core")
    _never_opened(opened, outside)


def test_kartothek_index_directory_linked_out_of_the_dataset(tmp_path, outside, opened):
    store = str(tmp_path / "store")
    built = build(store, "json")
    _move_out(os.path.dirname(built["index_path"]), outside / "c_id")
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="index file .* outside the dataset root"):
        pds.open_kartothek(store, table="core")
    _never_opened(opened, outside)


def test_hive_common_metadata_linked_out_of_the_root(tmp_path, outside, opened):
    root = tmp_path / "hive"
    (root / "year=2024").mkdir(parents=True)
    write_table({"id": [1], "name": ["a"]}, str(root / "year=2024" / "part-0.parquet"))
    os.symlink(outside / "sentinel.parquet", root / "_common_metadata")
    opened.clear()
    with pytest.raises(ManifestCorrupted, match="_common_metadata .* outside the dataset root"):
        pds.open(str(root))
    report = pds.verify(str(root))
    assert [p["path"] for p in report.problems] == ["_common_metadata"]
    _never_opened(opened, outside)
