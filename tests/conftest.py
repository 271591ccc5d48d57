"""Shared fixtures: the parquet-testing corpus lookup."""
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def corpus_root():
    """The corpus: $PARQUET_TEST_DATA, else fixtures/parquet-testing, else ../shared/parquet-testing."""
    env = os.environ.get("PARQUET_TEST_DATA")
    candidates = [Path(env)] if env else []
    candidates += [ROOT / "fixtures" / "parquet-testing", ROOT.parent / "shared" / "parquet-testing"]
    for c in candidates:
        if (c / "manifest.json").is_file():
            return c
    return None


def corpus_manifest():
    root = corpus_root()
    if root is None:
        return []
    return json.loads((root / "manifest.json").read_text())


@pytest.fixture(scope="session")
def corpus():
    root = corpus_root()
    if root is None:
        if os.environ.get("CI"):
            pytest.fail("parquet-testing corpus not found (set PARQUET_TEST_DATA)")
        pytest.skip("parquet-testing corpus not found (set PARQUET_TEST_DATA)")
    return root
