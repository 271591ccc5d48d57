"""Dataset tests run without fsync: they simulate process crashes (SIGKILL), not power loss,
and fsync only matters for the latter. test_commit.py checks the durable path explicitly."""
import pytest


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch):
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")
