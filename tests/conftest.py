"""Shared fixtures: the parquet-testing corpus lookup."""
import os

import pytest

from corpus_location import corpus_root


@pytest.fixture(scope="session")
def corpus():
    root = corpus_root()
    if root is None:
        if os.environ.get("CI"):
            pytest.fail("parquet-testing corpus not found (set PARQUET_TEST_DATA)")
        pytest.skip("parquet-testing corpus not found (set PARQUET_TEST_DATA)")
    return root
