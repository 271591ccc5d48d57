"""Where the parquet-testing corpus is: one lookup for conftest.py and the test modules.

Test modules import this module, never ``conftest``: tests/dataset and tests/spark
have conftest.py files of their own, so ``import conftest`` is ambiguous.
"""
import json
import os
from pathlib import Path

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
