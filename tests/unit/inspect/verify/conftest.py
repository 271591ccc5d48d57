"""The small file every verify test breaks one thing of (tests/verify_files.py)."""
import pytest
from verify_files import write_base


@pytest.fixture
def base(tmp_path):
    return write_base(tmp_path / "base.parquet")
