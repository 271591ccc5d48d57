"""Typed dataset metadata (issue 31 class 11): every field of every metadata document,
given the wrong type, is a ParquetError where the document is loaded, never an
AttributeError, KeyError, TypeError, OverflowError or RecursionError later.

Each test writes a real dataset, then rewrites one field at a time of its version
file, tag, ``_latest`` hint, ``_SUCCESS`` marker, RFC-0008 manifest or Kartothek
document (JSON and msgpack) to null, a list, an object, a boolean, a string, a
negative or huge integer, ``1e999``, ``NaN``, or removes it, and opens and reads the
dataset: each step must succeed or raise a :class:`pqkit.ParquetError`.
"""
import argparse
import json
import os
import types

import pytest
from kartothek_build import build, encode

import pqkit.dataset as pds
from pqkit import ParquetError
from pqkit.cli.dataset.dataset_cmd import build_info
from pqkit.cli.main import main
from pqkit.dataset import ManifestCorrupted
from pqkit.dataset.pqds import file_list
from pqkit.dataset.pqds.paths import RootPaths, _cache

HUGE, NAN = "__1e999__", "__NaN__"
WRONG = [None, [], {}, True, "x", -1, 2 ** 64, HUGE, NAN, "<removed>"]


def _dumps(doc):
    """JSON text of ``doc`` with the placeholders as the literals no encoder writes."""
    return json.dumps(doc).replace(f'"{HUGE}"', "1e999").replace(f'"{NAN}"', "NaN")


def _fields(doc, prefix=()):
    """The key paths of every value in ``doc`` (of the first item of each list)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield prefix + (k,)
            yield from _fields(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:1]):
            yield prefix + (i,)
            yield from _fields(v, prefix + (i,))


def _mutants(doc):
    """(description, mutated copy) for every field and wrong value."""
    for path in _fields(doc):
        for wrong in WRONG:
            copy = json.loads(json.dumps(doc))
            parent = copy
            for step in path[:-1]:
                parent = parent[step]
            if wrong == "<removed>":
                if not isinstance(parent, dict):
                    continue
                del parent[path[-1]]
            else:
                parent[path[-1]] = wrong
            yield f"{'.'.join(map(str, path))} = {wrong!r}", copy


def _escapes(steps):
    """The steps (name, function) that raise anything but a ParquetError. The first step
    opens: when it raises a ParquetError, the steps that open again are not run."""
    out = []
    for i, (name, step) in enumerate(steps):
        try:
            step()
        except ParquetError:
            if i == 0:
                break
        except Exception as exc:  # noqa: BLE001 - what the test looks for
            out.append(f"{name}: {type(exc).__name__}: {exc}"[:300])
    return out


def _pqds(root):
    pds.write(root, {"year": [2024, 2024, 2025], "id": [1, 2, 3], "name": ["a", "b", None],
                     "x": [1.5, None, 2.5]}, partition_by=["year"], run_id="etl:7",
              properties={"owner.team": "x"}, metadata={"owner": "team-x"})
    pds.build_index(root, "id")
    pds.tag(root, "release")
    return RootPaths(root)


def _changed_version(root, change):
    """Write the dataset at ``root``, apply ``change`` to its version 1; returns the path
    of the version file."""
    path = _pqds(root).version_path(1)
    with open(path) as f:
        doc = json.load(f)
    change(doc)
    with open(path, "w") as f:
        f.write(_dumps(doc))
    _cache.clear()
    return path


def _reads(root, **pin):
    def info():                     # the document of `pqinspect dataset info`, not printed
        build_info(argparse.Namespace(root=root, layout="auto", version=None, as_of=None,
                                      tag=pin.get("tag"), require_success=None))
    return [
        ("open", lambda: pds.open(root, **pin)),
        ("read", lambda: pds.open(root, **pin).read()),
        ("files", lambda: pds.open(root, **pin).files([("x", ">", 2.0), ("year", "==", 2024)])),
        ("indexed read", lambda: pds.open(root, **pin).read(filters=[("id", "in", [1, 3])])),
        ("count", lambda: pds.open(root, **pin).count([("name", "==", "a")])),
        ("versions", lambda: pds.open(root, **pin).versions()),
        ("as_of", lambda: pds.open(root, as_of="2999-01-01T00:00:00Z")),
        ("publish_state", lambda: pds.publish_state(root)),
        ("info", info),
    ]


def test_every_version_file_field_of_the_wrong_type(tmp_path, capsys):
    root = str(tmp_path / "ds")
    paths = _pqds(root)
    path = paths.version_path(1)
    with open(path) as f:
        original = json.load(f)
    problems = []
    for what, doc in _mutants(original):
        with open(path, "w") as f:
            f.write(_dumps(doc))
        _cache.clear()
        problems += [f"{what}: {p}" for p in _escapes(_reads(root))]
    capsys.readouterr()
    assert problems == []


@pytest.mark.parametrize("change, field", [
    (lambda d: d["files"][0].update(path=None), r"files\[0\]\.path"),
    (lambda d: d["files"][1].pop("partition"), r"files\[1\]\.partition: missing"),
    (lambda d: d["files"][0].update(stats=[]), r"files\[0\]\.stats: expected an object"),
    (lambda d: d.update(partitioning=True), "partitioning: expected an object"),
    (lambda d: d["files"][0]["partition"].update(year="x"), r"files\[0\]\.partition"),
    (lambda d: d["files"][0]["partition"].update(year=[]), r"files\[0\]\.partition\.year"),
    (lambda d: d.update(committed_at_utc="yesterday"), "committed_at_utc: not an instant"),
    (lambda d: d["indices"][0]["segments"][0].update(covers=None), "covers"),
    (lambda d: d["files"][0].update(size=HUGE), "1e999 is not finite"),
])
def test_the_issues_examples_fail_the_open_naming_file_and_field(tmp_path, change, field):
    root = str(tmp_path / "ds")
    path = _changed_version(root, change)
    with pytest.raises(ManifestCorrupted, match=field) as info:
        pds.open(root, version=1)
    assert str(info.value).startswith(path)


def test_an_unreadable_bound_is_manifest_corrupted_at_planning(tmp_path):
    """Bounds are typed at load; whether their text parses is checked where planning
    parses it, naming the file entry."""
    root = str(tmp_path / "ds")
    path = _changed_version(root, lambda d: d["files"][0]["stats"]["x"].update(min="1.5x"))
    ds = pds.open(root)
    key = ds.manifest.files[0]["key"]
    with pytest.raises(ManifestCorrupted, match=f"file '{key}': stats of column 'x': bound"):
        ds.read(filters=[("x", ">", 2.0)])


def test_a_complete_but_malformed_newest_version_is_no_torn_write(tmp_path):
    """A torn newest version (unparsable) reads as the version before it; one that parses
    but has bad fields is corrupt, and the open says so instead of hiding it."""
    root = str(tmp_path / "ds")
    _changed_version(root, lambda d: d["files"][0].update(size="big"))
    with pytest.raises(ManifestCorrupted, match=r"files\[0\]\.size"):
        pds.open(root)


@pytest.mark.parametrize("pointer", ["tag", "hint", "success"])
def test_tags_hints_and_markers_of_the_wrong_type(tmp_path, pointer):
    root = str(tmp_path / "ds")
    paths = _pqds(root)
    path = {"tag": paths.tag_path("release"), "hint": paths.latest_hint,
            "success": paths.success}[pointer]
    with open(path) as f:
        original = json.load(f)
    problems = []
    for what, doc in list(_mutants(original)) + [("not an object", w) for w in WRONG]:
        with open(path, "w") as f:
            f.write(_dumps(doc))
        _cache.clear()
        problems += [f"{what}: {p}" for p in _escapes(_reads(root, tag="release") + [
            ("latest", lambda: pds.open(root))])]
        if pointer == "tag" and doc != original:
            with pytest.raises(ManifestCorrupted, match=os.path.basename(path)):
                pds.open(root, tag="release")
        if pointer == "hint":
            assert pds.open(root).version == 1         # a bad hint is ignored, not fatal
    assert problems == []


def test_hint_of_1e999_is_ignored(tmp_path):
    root = str(tmp_path / "ds")
    paths = _pqds(root)
    with open(paths.latest_hint, "w") as f:
        f.write('{"version": 1e999}')
    assert pds.open(root).version == 1
    assert pds.publish_state(root)["latest_version"] == 1


def test_every_rfc_manifest_field_of_the_wrong_type(tmp_path):
    root = str(tmp_path / "store" / "k")
    pds.write(root, {"id": [1, 2, 3], "name": ["a", None, "c"]}, layout="manifest",
              run_id="r1", metadata={"owner": "x"}, dataset_key="k")
    path = os.path.join(root, "manifest.json")
    with open(path) as f:
        original = json.load(f)
    store = pds.ParquetDatasetStore(str(tmp_path / "store"))
    problems = []
    for what, doc in _mutants(original):
        with open(path, "w") as f:
            f.write(_dumps(doc))
        problems += [f"{what}: {p}" for p in _escapes([
            ("open", lambda: pds.open(root)),
            ("read", lambda: pds.open(root).read()),
            ("as_of", lambda: pds.open(root, as_of="2999-01-01T00:00:00Z")),
            ("verify", lambda: pds.verify(root, "sha256")),
            ("read_manifest", lambda: store.read_manifest("k")),
            ("read_dataset", lambda: store.read_dataset("k"))])]
    assert problems == []


def _kartothek_metadata(path, fmt):
    with open(path, "rb") as f:
        data = f.read()
    if fmt == "json":
        return json.loads(data)
    import msgpack
    import zstandard
    return msgpack.unpackb(zstandard.ZstdDecompressor().decompress(data))


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_every_kartothek_field_of_the_wrong_type(tmp_path, fmt):
    store = str(tmp_path / "store")
    built = build(store, fmt)
    path = built["metadata_path"]
    original = _kartothek_metadata(path, fmt)
    problems = []
    for what, doc in _mutants(original):
        if fmt == "json":
            data = _dumps(doc).encode()
        else:
            doc = json.loads(_dumps(doc).replace("1e999", '"inf"').replace("NaN", '"nan"'),
                             parse_constant=float)
            data = encode(_as_floats(doc), fmt)
        with open(path, "wb") as f:
            f.write(data)
        problems += [f"{what}: {p}" for p in _escapes([
            ("open", lambda: pds.open_kartothek(store, table="core")),
            ("read", lambda: pds.open_kartothek(store, table="core").read(
                filters=[("c_id", "==", 1)])),
            ("auto", lambda: pds.open(store).read()),
            ("as_of", lambda: pds.open(store, as_of="2999-01-01T00:00:00Z"))])]
    assert problems == []


def _as_floats(value):
    """msgpack carries real infinities and NaNs: the placeholders as floats (and 2 ** 64,
    past msgpack's integers, as its largest)."""
    if value in ("inf", "nan"):
        return float(value)
    if type(value) is int and value >= 2 ** 64:
        return 2 ** 64 - 1
    if isinstance(value, dict):
        return {k: _as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_floats(v) for v in value]
    return value


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
@pytest.mark.parametrize("depth", [100, 5000])
def test_deeply_nested_kartothek_metadata_is_manifest_corrupted(tmp_path, fmt, depth):
    store = str(tmp_path / "store")
    built = build(store, fmt)
    doc = _kartothek_metadata(built["metadata_path"], fmt)
    doc.pop("metadata")
    with open(built["metadata_path"], "wb") as f:
        f.write(_nested_metadata(doc, depth, fmt))
    with pytest.raises(ManifestCorrupted, match="nested"):
        pds.open_kartothek(store, table="core")


def _nested_metadata(doc, depth, fmt):
    """The document with ``"metadata": {"a": {"a": ... {}}}`` nested ``depth`` deep,
    spelled directly (the encoders refuse to nest that deep)."""
    if fmt == "json":
        return ('{"metadata": ' + '{"a": ' * depth + "{}" + "}" * depth + ", "
                + json.dumps(doc)[1:]).encode()
    import msgpack
    import zstandard
    body = b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in doc.items())
    nested = msgpack.packb("metadata") + b"\x81\xa1a" * depth + b"\x80"
    return zstandard.ZstdCompressor(write_content_size=True).compress(
        bytes([0x80 | (len(doc) + 1)]) + body + nested)


def test_kartothek_msgpack_with_a_map_as_a_map_key_is_manifest_corrupted(tmp_path):
    # found by the dataset-metadata fuzz harness: msgpack raised TypeError (unhashable)
    import zstandard
    store = str(tmp_path / "store")
    built = build(store, "msgpack")
    with open(built["metadata_path"], "wb") as f:
        f.write(zstandard.ZstdCompressor(write_content_size=True).compress(
            b"\x81\x81\xa1a\x01\x02"))           # {{"a": 1}: 2}
    with pytest.raises(ManifestCorrupted, match="not msgpack"):
        pds.open_kartothek(store, table="core")


def test_kartothek_msgpack_infinity_is_manifest_corrupted(tmp_path):
    store = str(tmp_path / "store")
    built = build(store, "msgpack")
    doc = _kartothek_metadata(built["metadata_path"], "msgpack")
    doc["metadata"] = {"x": float("inf")}
    with open(built["metadata_path"], "wb") as f:
        f.write(encode(doc, "msgpack"))
    with pytest.raises(ManifestCorrupted, match="malformed metadata.x: the number inf"):
        pds.open_kartothek(store, table="core")


@pytest.mark.parametrize("change", [
    lambda d: d.update(partitioning=True),
    lambda d: d["files"][0].update(path=None),
    lambda d: d["files"][0].update(partition=None),
])
def test_dataset_info_prints_one_line_not_a_traceback(tmp_path, capsys, change):
    root = str(tmp_path / "ds")
    path = _changed_version(root, change)
    capsys.readouterr()
    assert main(["dataset", "info", root]) != 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    assert "ManifestCorrupted" in out.err and path in out.err
    assert len(out.err.strip().splitlines()) == 1


def _tampered_planning_index(root, change_head=None, change_entry=None):
    """Rewrite the planning index of the latest version with a changed head or first
    entry (the version file, its authority, stays as it is)."""
    paths = RootPaths(root)
    m = pds.open(root).manifest
    data = json.loads(json.dumps(m.data))
    (change_head or (lambda d: None))(data)
    files = json.loads(json.dumps(m.files))
    (change_entry or (lambda e: None))(files[0])
    fake = types.SimpleNamespace(partitioning=m.partitioning, files=files, data=data,
                                 operation=data.get("operation") or {}, version=m.version)
    with open(paths.planning_path(m.version), "wb") as f:
        f.write(file_list.index_bytes(paths, fake))
    _cache.clear()


def _with_planning_index(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"year": [2024, 2025], "id": [1, 2]}, partition_by=["year"],
              properties={"planning.index.min_files": "0"})
    assert os.path.exists(RootPaths(root).planning_path(0))
    return root


@pytest.mark.parametrize("change, field", [
    (lambda e: e.update(path="../outside/x.parquet"), r"files\[0\]\.path"),
    (lambda e: e.update(size="big"), r"files\[0\]\.size"),
    (lambda e: e["partition"].update(month="1"), r"files\[0\].partition"),
])
def test_planning_index_entries_are_checked_like_the_version_file(tmp_path, change, field):
    root = _with_planning_index(tmp_path)
    _tampered_planning_index(root, change_entry=change)
    with pytest.raises(ManifestCorrupted, match=f"^planning index of version 0: .*{field}"):
        pds.open(root).read(filters=[("year", "in", [2024, 2025])])


def test_a_planning_index_head_is_checked_like_the_version_file(tmp_path):
    root = _with_planning_index(tmp_path)
    _tampered_planning_index(root, change_head=lambda d: d.update(row_count=[]))
    with pytest.raises(ManifestCorrupted, match="planning index of version 0: malformed "
                                                "row_count"):
        pds.open(root)


def test_values_users_choose_keep_reading(tmp_path):
    """Fields that carry a caller's values (run ids, dataset keys, metadata) keep the
    types pqkit has always accepted for them."""
    root = str(tmp_path / "ds")
    pds.write(root, {"id": [1]}, run_id="airflow:daily:2025-01-31", dataset_key=7,
              metadata={"nested": {"list": [1, 2.5, None, True]}})
    pds.write(root, {"id": [2]}, run_id=42)
    pds.write(root, {"id": [3]}, run_id="stream:9", properties={"owner.team": 5})
    ds = pds.open(root)
    assert ds.manifest.app_txns == {"airflow:daily": "2025-01-31", "42": 0, "stream": 9}
    assert sorted(ds.read().column("id").to_pylist()) == [1, 2, 3]
    assert [v["run_id"] for v in ds.versions()] == ["airflow:daily:2025-01-31", 42, "stream:9"]


def test_an_rfc_creation_time_must_be_an_instant(tmp_path):
    root = str(tmp_path / "k")
    pds.write(root, {"id": [1]}, layout="manifest")
    path = os.path.join(root, "manifest.json")
    with open(path) as f:
        doc = json.load(f)
    doc["created_at_utc"] = "garbage"
    with open(path, "w") as f:
        json.dump(doc, f)
    with pytest.raises(ManifestCorrupted, match="malformed created_at_utc: .* not an ISO-8601"):
        pds.open(root, as_of="2999-01-01T00:00:00Z")
    del doc["created_at_utc"]                       # optional: as_of cannot place it then
    with open(path, "w") as f:
        json.dump(doc, f)
    assert pds.open(root).read().num_rows == 1
    with pytest.raises(pds.DatasetError, match="records no commit time"):
        pds.open(root, as_of="2999-01-01T00:00:00Z")


@pytest.mark.parametrize("keep_last", [[], "ten", {"n": 1}, True])
def test_a_property_of_the_wrong_type_is_a_dataset_error_where_it_is_used(tmp_path,
                                                                          keep_last):
    """Properties are the caller's free-form values (read as they were written); the
    ones pqkit interprets are checked where they are used."""
    root = str(tmp_path / "ds")
    pds.write(root, {"id": [1]}, properties={"vacuum.keep_last": keep_last,
                                             "planning.index.min_files": keep_last})
    assert pds.open(root).read().num_rows == 1
    with pytest.raises(pds.DatasetError, match="vacuum.keep_last"):
        pds.vacuum(root, retention=0, grace=0)
    assert pds.vacuum(root, retention=0, grace=0, keep_last="2")["versions_deleted"] == []
