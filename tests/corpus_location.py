"""Where the parquet-testing corpus is: one lookup for conftest.py and the test modules.

Test modules import this module, never ``conftest``: tests/dataset and tests/spark
have conftest.py files of their own, so ``import conftest`` is ambiguous.
"""
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MISSING_CORPUS = (
    "apache/parquet-testing corpus not found: set PARQUET_TEST_DATA to a checkout with "
    "manifest.json, or see fixtures/parquet-testing/README.md")


def corpus_root():
    """The corpus: $PARQUET_TEST_DATA, else fixtures/parquet-testing, else ../shared/parquet-testing.

    A set PARQUET_TEST_DATA is the only place looked at (``PARQUET_TEST_DATA=/none``
    hides the corpus, as .ci/run does to check that the suite skips without it).
    """
    env = os.environ.get("PARQUET_TEST_DATA")
    if env is not None:
        candidates = [Path(env)]
    else:
        candidates = [ROOT / "fixtures" / "parquet-testing",
                      ROOT.parent / "shared" / "parquet-testing"]
    for c in candidates:
        if (c / "manifest.json").is_file():
            return c
    return None


def corpus_manifest():
    root = corpus_root()
    if root is None:
        return []
    return json.loads((root / "manifest.json").read_text())
