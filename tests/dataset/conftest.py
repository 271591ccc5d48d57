"""Dataset tests run without fsync: they simulate process crashes (SIGKILL), not power loss,
and fsync only matters for the latter. test_commit.py checks the durable path explicitly."""
import pytest

from store_roots import Root


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch):
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.remote)])
def store(request, tmp_path):
    """A fresh dataset root (a :class:`store_roots.Root`): local, then on the S3 server."""
    s3 = request.getfixturevalue("s3") if request.param == "s3" else None
    return Root(request.param, tmp_path, s3)
