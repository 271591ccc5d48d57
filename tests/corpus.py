"""Helpers for tests over the apache/parquet-testing corpus (see conftest.corpus_root)."""
import os

import pytest

from corpus_location import corpus_manifest, corpus_root

MANIFEST = corpus_manifest()
ROOT = corpus_root()


def entries(predicate=lambda e: True):
    """pytest params for manifest entries matching `predicate`, with readable ids.

    Without the corpus: one placeholder marked ``corpus``, so the test reports the
    missing corpus (conftest's setup hook) instead of pytest's "got empty parameter set".
    """
    if ROOT is None:
        return [pytest.param(None, id="no-corpus", marks=pytest.mark.corpus)]
    return [pytest.param(e, id=e["path"]) for e in MANIFEST if predicate(e)]


def path_of(entry):
    return os.path.join(ROOT, entry["path"])


def readable(e):
    return e["readable"]


def parquet_files_on_disk():
    """Every *.parquet* file under the corpus root, relative paths."""
    out = []
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith((".parquet", ".parquet.encrypted")):
                out.append(os.path.relpath(os.path.join(dirpath, f), ROOT))
    return sorted(out)
