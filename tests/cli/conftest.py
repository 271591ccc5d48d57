"""CLI test fixtures: a wide terminal so rich tables are not folded."""
import pytest


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
