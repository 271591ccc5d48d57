"""Other engines read exactly the live rows of a published PQDS/1 root (issue 17 item 3).

DuckDB (``**/*.parquet`` and ``*/*.parquet`` with Hive partitioning), polars
(the ``**/*.parquet`` glob, and the directory scan ``scan_parquet(root)`` with
``hidden_file_prefix=["_", "."]``) and pyarrow.dataset (directory discovery)
each read a copy of the dataset after every step of
:func:`dataset_states.lifecycle_states` and must see the manifest's rows: none
from staged, retired or index files. polars' directory scan lists every file
below the root, hidden directories included, and refuses files of mixed
extensions; its ``hidden_file_prefix`` looks at file names only, which is why
every file pqkit keeps for itself has a ``_``-prefixed name (docs/DATASET.md).
"""
import os
import shutil

import duckdb
import polars as pl
import pyarrow.dataset as pa_ds
import pytest

import pqkit.dataset as pds
from dataset_states import lifecycle_states, parquet_files_under, rows, unprefixed_files
from pqkit.dataset.pqds.paths import RootPaths

pytestmark = pytest.mark.interop

STEPS = ["create", "append", "build_index", "append_indexed", "delete", "merge", "overwrite",
         "append_small", "compact", "killed_writer", "run_id", "run_id_again"]


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    return {name: (root, expected) for name, root, expected in
            lifecycle_states(tmp_path_factory.mktemp("engines"))}


def _duckdb(glob):
    def read(root):
        rel = duckdb.sql(f"SELECT k, p, v FROM read_parquet('{root}/{glob}', "
                         "hive_partitioning = true)")
        return rows(rel.df().to_dict("list"))
    return read


def _polars_glob(root):
    return rows(pl.scan_parquet(f"{root}/**/*.parquet", hive_partitioning=True)
                .collect().to_dict(as_series=False))


def _polars_dir(root):
    return rows(pl.scan_parquet(root, hive_partitioning=True, hidden_file_prefix=["_", "."])
                .collect().to_dict(as_series=False))


def _pyarrow(root):
    return rows(pa_ds.dataset(root, partitioning="hive", format="parquet")
                .to_table().to_pydict())


ENGINES = {"duckdb **": _duckdb("**/*.parquet"), "duckdb */*": _duckdb("*/*.parquet"),
           "polars **": _polars_glob, "polars dir": _polars_dir, "pyarrow.dataset": _pyarrow}


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("step", STEPS)
def test_engine_reads_the_manifest_rows(states, step, engine):
    root, expected = states[step]
    assert expected, "every state holds rows"
    assert ENGINES[engine](root) == expected


def test_states_hold_what_the_engines_must_skip(states):
    """The scenario really leaves staged, retired and index files beside the data."""
    root, expected = states["run_id_again"]
    layout = RootPaths(root)
    hidden = [n for _, _, names in os.walk(layout.shadow_dir) for n in names]
    assert hidden and all(n.startswith("_") and n.endswith(".parquet.shadow") for n in hidden)
    assert parquet_files_under(root, "_pqkit") == []
    ds = pds.open(root)
    assert ds.version == 9 and len(expected) == ds.count()
    assert {k for k, _, _ in expected} >= {30, 31}


def test_a_rerun_of_an_applied_run_id_leaves_no_staged_file(states):
    before, _ = states["run_id"]
    after, _ = states["run_id_again"]

    def staged(root):
        layout = RootPaths(root)
        out = set()
        for dirpath, _, names in os.walk(layout.shadow_dir):
            out.update(layout.shadow_relpath(f"{dirpath}/{n}") for n in names)
        return out
    assert pds.open(after).version == pds.open(before).version
    assert staged(after) == staged(before)


def test_every_file_pqkit_keeps_for_itself_has_a_hidden_name(states, tmp_path):
    """After the whole lifecycle (index, planning indices, tags, a killed writer's
    staged files and tmp version file, retired copies), no file under ``_pqkit/``
    and no file at the root but live data has a name without a ``_``/``.`` prefix."""
    root = str(tmp_path / "copy")
    shutil.copytree(states["run_id_again"][0], root)
    pds.tag(root, "kept")
    assert _polars_dir(root) == states["run_id_again"][1]
    layout = RootPaths(root)
    kinds = {p.split("/")[0] for p in layout.storage.list_files(layout.meta) if "/" in p}
    assert {"versions", "tmp", "shadow", "indices", "planning", "tags"} <= kinds
    assert unprefixed_files(root) == []
    live = {f["path"] for f in pds.open(root).manifest.files}
    visible = {layout.relpath(os.path.join(d, n)) for d, dirs, names in os.walk(root)
               for n in names if not layout.relpath(d).startswith("_pqkit")}
    assert {p for p in visible if not os.path.basename(p).startswith(("_", "."))} == live
