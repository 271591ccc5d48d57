"""A PQDS/1 dataset taken through its whole life, as snapshots for other engines to read.

``lifecycle_steps(root)`` lists create, append, build_index, delete, merge,
overwrite, compact, a killed writer and a rerun, on a local root or a URL;
``lifecycle_states(base)`` runs create, append, build_index, delete, merge,
overwrite, compact, a writer killed after staging, and a no-op rerun of an
applied ``run_id`` on one dataset, publishes after each step and copies the
root to ``base/<step>``. Each state comes with the rows pqkit's manifest read
returns, so a test can check that an engine reading the copy sees exactly
those rows and nothing pqkit keeps for itself (staged, retired and index
files, planning indices, version files).
"""
import os
import shutil
import subprocess
import sys

import pqkit.dataset as pds

COLUMNS = ["k", "p", "v"]


def rows(columns):
    """Sorted (k, p, v) tuples of a column dict (types normalised across engines)."""
    return sorted(zip((int(k) for k in columns["k"]), (str(p) for p in columns["p"]),
                      (float(v) for v in columns["v"])))


def _batch(keys, part):
    return {"k": list(keys), "p": [part] * len(keys), "v": [k / 2 for k in keys]}


def _killed_writer(root, storage_options=None, step="commit.tmp_written"):
    """Run an append in a child that SIGKILLs itself at ``step`` (by default once its
    files are staged and its version file written to ``_pqkit/tmp``, before the link)."""
    code = ("import pqkit.dataset as pds; "
            f"pds.write({root!r}, {_batch(range(900, 903), 'a')!r}, "
            f"storage_options={storage_options!r})")
    env = dict(os.environ, PQKIT_DATASET_CRASH_AT=step, PQKIT_DATASET_FSYNC="0")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          check=False)
    if done.returncode != -9:
        raise AssertionError(f"the writer was not killed: {done.returncode} {done.stderr!r}")


def lifecycle_steps(root, storage_options=None, crash_step="commit.tmp_written",
                    properties=None):
    """[(step name, function)]: the life of the dataset at ``root`` (a path or a URL
    read with ``storage_options``); ``crash_step`` is where the killed writer dies."""
    o = {"storage_options": storage_options}
    props = {"planning.index.min_files": "0", **(properties or {})}
    return [
        ("create", lambda: pds.write(root, _batch(range(6), "a"), partition_by=["p"],
                                     mode="create", properties=props, **o)),
        ("append", lambda: pds.write(root, _batch(range(6, 9), "b"), **o)),
        ("build_index", lambda: pds.build_index(root, "k", **o)),
        ("append_indexed", lambda: pds.write(root, _batch(range(9, 12), "c"), **o)),
        ("delete", lambda: pds.delete(root, [("k", "in", [1, 7])], **o)),
        ("merge", lambda: pds.merge(root, {"k": [2, 8, 40], "p": ["b", "b", "c"],
                                           "v": [-2.0, -8.0, -40.0]}, on=["k"], **o)),
        ("overwrite", lambda: pds.write(root, _batch(range(20, 24), "a"), mode="overwrite",
                                        **o)),
        ("append_small", lambda: pds.write(root, _batch(range(24, 26), "a"), **o)),
        ("compact", lambda: pds.compact(root, **o)),
        ("killed_writer", lambda: _killed_writer(root, storage_options, crash_step)),
        ("run_id", lambda: pds.write(root, _batch(range(30, 32), "d"), run_id="job:1", **o)),
        ("run_id_again", lambda: pds.write(root, _batch(range(30, 32), "d"), run_id="job:1",
                                           **o)),
    ]


def lifecycle_states(base):
    """[(step, copied root, manifest rows)] after each step of a dataset's life."""
    root = os.path.join(str(base), "live")
    states = []
    for name, step in lifecycle_steps(root):
        step()
        pds.publish(root)
        copy = os.path.join(str(base), name)
        shutil.copytree(root, copy)
        states.append((name, copy, rows(pds.open(copy).read().to_pydict())))
    return states


def parquet_files_under(root, top):
    """Relative paths of files named ``*.parquet`` below ``root/top``."""
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        out += [os.path.relpath(os.path.join(dirpath, n), root) for n in names
                if n.endswith(".parquet")]
    return out


def unprefixed_files(root):
    """Relative paths of files under ``root/_pqkit`` whose name starts with neither
    ``_`` nor ``.`` (what a polars directory scan with ``hidden_file_prefix`` reads)."""
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, "_pqkit")):
        out += [os.path.relpath(os.path.join(dirpath, n), root) for n in names
                if not n.startswith(("_", "."))]
    return sorted(out)
