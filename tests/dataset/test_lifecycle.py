"""A dataset's whole life on a local root and on an ``s3://`` root, with the same assertions.

The steps are :func:`dataset_states.lifecycle_steps` (create, append, build_index, an
indexed append, delete, merge, overwrite, a small append, compact, a writer killed after
staging, a run id and its rerun) followed by tag, restore and untag. After each step the
dataset is published and must read equal to an oracle kept in plain Python: through
pqkit (the manifest), through pyarrow.dataset and polars (the published Hive view), and
by tag, and the visible data files must be exactly the live ones. At the end every
version reads its oracle again (time travel), and vacuum keeps the latest and the tagged
version. The s3 root lives on the local moto server (the ``store`` fixture, conftest.py).
"""
import pytest

import pqkit.dataset as pds
from dataset_states import lifecycle_steps, rows
from pqkit.dataset.pqds.publishing import visible_data_files


def _oracle_after(step, table):
    """The rows ``{k: (p, v)}`` after ``step``, from those before (``table``)."""
    def batch(keys, part):
        return {k: (part, k / 2) for k in keys}
    changes = {
        "create": lambda t: batch(range(6), "a"),
        "append": lambda t: {**t, **batch(range(6, 9), "b")},
        "append_indexed": lambda t: {**t, **batch(range(9, 12), "c")},
        "delete": lambda t: {k: r for k, r in t.items() if k not in (1, 7)},
        "merge": lambda t: {**t, 2: ("b", -2.0), 8: ("b", -8.0), 40: ("c", -40.0)},
        "overwrite": lambda t: batch(range(20, 24), "a"),
        "append_small": lambda t: {**t, **batch(range(24, 26), "a")},
        "run_id": lambda t: {**t, **batch(range(30, 32), "d")},
    }
    return changes.get(step, dict)(table)


def _as_rows(table):
    return sorted((k, p, float(v)) for k, (p, v) in table.items())


def test_lifecycle_reads_equal_the_oracle_on_every_store(store):
    root, o = store.root, store.options
    # "stage.written" is reached on both stores (an object store stages no version file)
    steps = lifecycle_steps(root, o, crash_step="stage.written",
                            properties={"summary.metadata": "always"})
    steps += [
        ("tag", lambda: pds.tag(root, "kept", storage_options=o)),
        ("restore", lambda: pds.restore(root, at["merge"], storage_options=o)),
        ("untag_missing", lambda: pds.untag(root, "never-set", storage_options=o)),
    ]
    table, at, expected = {}, {}, {}
    for name, step in steps:
        result = step()
        if name == "killed_writer":
            # the writer died after staging: its files are orphans; repair retires them
            pds.repair(root, grace=0, storage_options=o)
        elif name == "untag_missing":
            assert result is False
        pds.publish(root, storage_options=o)
        table = _oracle_after(name, table) if name != "restore" else dict(oracle_at_merge)
        if name == "merge":
            oracle_at_merge = dict(table)
        ds = store.open()
        at[name] = ds.version
        expected[ds.version] = _as_rows(table)
        assert rows(ds.read().to_pydict()) == _as_rows(table), name
        assert store.pyarrow_rows() == _as_rows(table), name
        assert store.polars_rows() == _as_rows(table), name
        paths = store.paths()
        live = {f["path"] for f in ds.manifest.files}
        assert set(visible_data_files(paths)) == live, name
        if ds.indices:                                   # the index answers point lookups
            assert rows(ds.read(filters=[("k", "==", 3)]).to_pydict()) == \
                [r for r in _as_rows(table) if r[0] == 3], name

    # every commit made one version; the no-ops (killed writer, rerun, tag) made none
    assert [at[n] for n, _ in steps] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 9, 10, 10]
    ds = store.open()
    assert [v["version"] for v in ds.versions()] == list(range(11))
    assert ds.operation["type"] == "restore"
    assert rows(store.open(tag="kept").read().to_pydict()) == expected[9]
    for version, want in expected.items():                   # time travel
        assert rows(store.open(version=version).read().to_pydict()) == want, version
    # vacuum keeps the latest and the tagged version, and their files
    out = pds.vacuum(root, grace=0, retention=0, keep_last=1, storage_options=o)
    assert out["versions_deleted"] == [v for v in range(10) if v != 9]
    assert rows(store.open(tag="kept").read().to_pydict()) == expected[9]
    assert rows(store.open().read().to_pydict()) == expected[10]
    assert pds.untag(root, "kept", storage_options=o) is True
    with pytest.raises(pds.DatasetError, match="no tag 'kept'"):
        store.open(tag="kept")


def test_derived_files_are_written_on_every_store(store):
    """_metadata (summary.metadata=always) and the planning index of every version
    (planning.index.min_files=0) exist on both stores, a reader plans from the index, and
    vacuum removes the indices of the versions it expires."""
    root, o = store.root, store.options
    for _, step in lifecycle_steps(root, o, properties={"summary.metadata": "always"})[:4]:
        step()
    paths = store.paths()
    ds = store.open()
    assert ds._manifest is None                  # opened from the planning index's head
    assert rows(ds.read(filters=[("p", "==", "c")]).to_pydict()) == \
        [(k, "c", k / 2) for k in range(9, 12)]
    listed = paths.storage.list_files(paths.meta)
    assert {f"planning/_{v:020d}.pqplan" for v in range(4)} <= set(listed)
    from pqkit.read.fetch.footer import read_metadata
    summary = read_metadata(paths.summary_metadata, filesystem=paths.storage.fs)
    assert summary.num_rows == ds.row_count == 12
    # the planning indices are derived files: vacuum deletes those of expired versions
    pds.vacuum(root, grace=0, retention=0, keep_last=1, storage_options=o)
    listed = paths.storage.list_files(paths.meta)
    assert sorted(p for p in listed if p.startswith("planning/")) == \
        [f"planning/_{3:020d}.pqplan"]
    assert rows(store.open().read(filters=[("p", "==", "c")]).to_pydict()) == \
        [(k, "c", k / 2) for k in range(9, 12)]
