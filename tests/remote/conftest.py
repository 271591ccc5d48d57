"""The object-store tests: marked ``remote``; their S3 server fixtures (``s3``,
``s3fs_options``, ``s3_fs``) are in tests/conftest.py, shared with tests/spark."""
import os

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/remote/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.remote)
