"""Datasets written before hidden copies got their ``.shadow`` suffix still work.

Such a dataset keeps retired and unpublished data files under
``_pqkit/shadow/<path>`` with the plain ``.parquet`` name; time travel reads
them, publish (after a restore) moves them back into view, and vacuum keeps
them while a retained version lists them.
"""
import os

from dshelpers import pyarrow_rows, row_set

import pqkit.dataset as pds
from pqkit.dataset.layout import SHADOW_SUFFIX, Layout


def _to_legacy_names(root):
    moved = []
    for dirpath, _, names in os.walk(Layout(root).shadow_dir):
        for n in names:
            if n.endswith(SHADOW_SUFFIX):
                src = os.path.join(dirpath, n)
                os.rename(src, src[:-len(SHADOW_SUFFIX)])
                moved.append(n)
    return moved


def test_old_shadow_names_read_restore_and_vacuum(tmp_path):
    root = str(tmp_path / "ds")
    first = {"p": ["a", "b"], "x": [1, 2]}
    pds.write(root, first, partition_by=["p"], mode="create")
    pds.write(root, {"p": ["c"], "x": [3]}, mode="overwrite")
    assert len(_to_legacy_names(root)) == 2          # both files of version 0 are retired

    assert row_set(pds.open(root, version=0).read()) == row_set(first)
    assert pds.open(root, version=0).verify("size").ok
    assert pds.vacuum(root, grace=0)["files_deleted"] == []

    pds.restore(root, 0)
    pds.publish(root)
    assert pyarrow_rows(root, ["p", "x"]) == row_set(first, ["p", "x"])
    assert row_set(pds.open(root).read()) == row_set(first)
    layout = Layout(root)
    assert all(os.path.exists(layout.visible(f["path"])) for f in pds.open(root).manifest.files)
