"""Datasets written with older file names under ``_pqkit/`` still work.

Two renames happened: hidden data copies got the ``.shadow`` suffix, then every
file pqkit keeps for itself got the ``_`` prefix (docs/DATASET.md).
:func:`legacy_names.to_legacy_names` turns a root written today into one with
the old names; open, time travel, tags, index pruning, append, restore, publish
and vacuum must all work on it, new files get the new names, and a commit never
forks a version that exists under its old name.
"""
import importlib
import json
import os

import polars as pl
import pytest
from dshelpers import pyarrow_rows, row_set

import pqkit.dataset as pds
from dataset_states import unprefixed_files
from legacy_names import prefixed_files, to_legacy_names
from pqkit.dataset.pqds.index_segments import check_segments_present, manifest_indices, read_segment
from pqkit.dataset.pqds.paths import Layout

commit = importlib.import_module("pqkit.dataset.pqds.commit")


def _legacy_dataset(root, shadow_suffix=True):
    """Versions 0-3 (create, append, index, overwrite of p=b) renamed to the old names."""
    pds.write(root, {"p": ["a", "b"], "x": [1, 2]}, partition_by=["p"], mode="create",
              properties={"planning.index.min_files": "0"})
    pds.write(root, {"p": ["a"], "x": [3]})
    pds.build_index(root, "x")
    pds.tag(root, "first", 0)
    pds.delete(root, [("x", "==", 2)])
    old = to_legacy_names(root, shadow_suffix)
    assert prefixed_files(root) == []
    assert {"_pqkit/versions/00000000000000000003.json", "_pqkit/tags/first.json",
            "_pqkit/publish.lock"} <= set(old)
    assert any(p.startswith("_pqkit/shadow/") for p in old)
    assert any(p.startswith("_pqkit/indices/x/") for p in old)
    assert any(p.startswith("_pqkit/planning/") for p in old)
    return old


@pytest.mark.parametrize("shadow_suffix", [True, False])
def test_old_names_open_read_append_and_vacuum(tmp_path, shadow_suffix):
    root = str(tmp_path / "ds")
    _legacy_dataset(root, shadow_suffix)
    ds = pds.open(root)
    assert ds.version == 3 and row_set(ds.read()) == row_set({"p": ["a", "a"], "x": [1, 3]})
    assert row_set(pds.open(root, version=0).read()) == row_set({"p": ["a", "b"], "x": [1, 2]})
    assert pds.open(root, tag="first").version == 0
    assert pds.open(root, version=0).verify("size").ok
    segments = [seg["path"] for ix in manifest_indices(ds.manifest) for seg in ix["segments"]]
    assert segments and all(os.path.basename(p)[0] != "_" for p in segments)
    check_segments_present(Layout(root), [{"path": p} for p in segments])
    assert all(read_segment(Layout(root), p) is not None for p in segments)

    os.remove(Layout(root).latest_hint)          # latest found by listing the old names
    assert pds.open(root).version == 3
    assert pds.write(root, {"p": ["c"], "x": [4]}) == 4
    layout = Layout(root)
    assert os.path.exists(layout.version_path(4))
    assert not os.path.exists(layout.version_paths(4)[1])
    assert row_set(pds.open(root).read()) == row_set({"p": ["a", "a", "c"], "x": [1, 3, 4]})
    assert pyarrow_rows(root, ["p", "x"]) == row_set({"p": ["a", "a", "c"], "x": [1, 3, 4]},
                                                     ["p", "x"])
    assert pds.open(root).count([("x", "==", 4)]) == 1           # the index covers new files

    assert pds.vacuum(root, grace=0)["files_deleted"] == ["_pqkit/publish.lock"]
    plans = os.listdir(os.path.join(layout.meta, "planning"))
    assert plans and all(n.startswith("_") for n in plans)      # old-named ones deleted
    out = pds.vacuum(root, retention=0, keep_last=1, grace=0)
    assert out["versions_deleted"] == [1, 2, 3]                  # tagged version 0 is kept
    assert not any(os.path.exists(p) for v in (1, 2, 3) for p in layout.version_paths(v))
    assert row_set(pds.open(root, tag="first").read()) == \
        row_set({"p": ["a", "b"], "x": [1, 2]})
    pds.untag(root, "first")
    assert not any(map(os.path.exists, layout.tag_paths("first")))
    assert pds.vacuum(root, retention=0, keep_last=1, grace=0)["versions_deleted"] == [0]
    live = row_set({"p": ["a", "a", "c"], "x": [1, 3, 4]})
    assert row_set(pds.open(root).read()) == live
    # the old segment is live until optimize_index rewrites the column's segments;
    # then vacuum leaves no old name, and polars' directory scan reads the root
    assert any(not n.startswith("_") for n in os.listdir(os.path.join(layout.indices_dir, "x")))
    assert pds.optimize_index(root, "x") == 5
    pds.vacuum(root, retention=0, keep_last=1, grace=0)
    assert unprefixed_files(root) == []
    frame = pl.scan_parquet(root, hive_partitioning=True, hidden_file_prefix=["_", "."])
    assert row_set(frame.collect().to_dict(as_series=False)) == live


def test_old_shadow_names_read_restore_and_vacuum(tmp_path):
    root = str(tmp_path / "ds")
    first = {"p": ["a", "b"], "x": [1, 2]}
    pds.write(root, first, partition_by=["p"], mode="create")
    pds.write(root, {"p": ["c"], "x": [3]}, mode="overwrite")
    shadows = [p for p in to_legacy_names(root, shadow_suffix=False)
               if p.startswith("_pqkit/shadow/")]
    assert len(shadows) == 2 and all(p.endswith(".parquet") for p in shadows)

    assert row_set(pds.open(root, version=0).read()) == row_set(first)
    assert pds.open(root, version=0).verify("size").ok
    assert pds.vacuum(root, grace=0)["files_deleted"] == ["_pqkit/publish.lock"]

    pds.restore(root, 0)
    pds.publish(root)
    assert pyarrow_rows(root, ["p", "x"]) == row_set(first, ["p", "x"])
    assert row_set(pds.open(root).read()) == row_set(first)
    layout = Layout(root)
    assert all(os.path.exists(layout.visible(f["path"])) for f in pds.open(root).manifest.files)


def test_a_tag_rewritten_today_replaces_its_old_name(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    pds.write(root, {"x": [2]})
    pds.tag(root, "t", 0)
    to_legacy_names(root)
    layout = Layout(root)
    assert pds.open(root, tag="t").version == 0
    pds.tag(root, "t", 1)
    assert [os.path.exists(p) for p in layout.tag_paths("t")] == [True, False]
    assert pds.open(root, tag="t").version == 1


def test_a_commit_never_takes_a_version_that_exists_under_its_old_name(tmp_path, monkeypatch):
    """An old writer links ``versions/1.json`` just after a new writer looked for the
    latest version: the new writer must lose that race, not fork version 1."""
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    pds.write(root, {"x": [2]})                     # the old writer's version 1 ...
    layout = Layout(root)
    current, old = layout.version_paths(1)
    os.rename(current, old)                         # ... under the name it writes
    with open(old, "rb") as f:
        theirs = f.read()
    real, stale = commit.find_latest, []

    def find_latest(layout, start=None):
        latest = real(layout, start)
        if start is not None and not stale:         # this look missed the old writer
            stale.append(latest)
            return latest - 1
        return latest
    monkeypatch.setattr(commit, "find_latest", find_latest)
    assert pds.write(root, {"x": [3]}) == 2
    assert stale == [1]
    assert not os.path.exists(current)
    with open(old, "rb") as f:
        assert f.read() == theirs
    assert json.loads(theirs)["version"] == 1
    assert row_set(pds.open(root).read()) == row_set({"x": [1, 2, 3]})
