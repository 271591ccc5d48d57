"""pqinspect dataset import-kartothek STORE: checked through --json; --dry-run changes
nothing under the store (checksum of every name and content), the real run registers
version 0 and leaves the Kartothek files as they were."""
import json
import os

import pytest
from dshelpers import row_set
from kartothek_build import UUID, build, tree_checksums

import pqkit.dataset as pds
from pqkit.cli.main import main


def doc_of(capsys, *argv, code=0):
    got = main(["dataset", "import-kartothek", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert got == code, err
    doc = json.loads(out) if out else None
    if doc is not None:
        assert doc["command"] == "dataset import-kartothek" and doc["schema_version"] == 1
    return doc, err


@pytest.fixture
def store(tmp_path):
    path = str(tmp_path / "store")
    return path, build(path)


def test_dry_run_reports_and_changes_nothing(capsys, store):
    path, _ = store
    before = tree_checksums(path)
    doc, _ = doc_of(capsys, path, "--table", "core", "--dry-run")
    assert tree_checksums(path) == before
    assert doc["dry_run"] is True and doc["version"] is None and doc["layout"] == "kartothek"
    assert doc["root"] == os.path.join(os.path.abspath(path), UUID, "core")
    assert (doc["uuid"], doc["table"], doc["files"], doc["rows"]) == (UUID, "core", 4, 12)
    assert doc["partition_by"] == ["p_int", "p_str", "p_date"]
    assert doc["indices"] == ["c_id"]


def test_import_registers_version_zero_in_place(capsys, store):
    path, _ = store
    before = tree_checksums(path)
    doc, _ = doc_of(capsys, path, "--uuid", UUID, "--table", "aux")
    assert doc["dry_run"] is False and doc["version"] == 0 and doc["layout"] == "pqds"
    assert (doc["table"], doc["files"], doc["rows"]) == ("aux", 4, 12)
    ds = pds.open(doc["root"])
    assert ds.version == 0 and ds.manifest.data["operation"]["type"] == "import-kartothek"
    columns = ["c_id", "flag", "p_int"]
    assert row_set(ds.read(columns), columns) == \
        row_set(pds.open_kartothek(path, UUID, "aux").read(columns), columns)
    after = tree_checksums(path)
    assert {k: after[k] for k in before} == before      # every Kartothek file untouched
    assert all(k.startswith(os.path.join(UUID, "aux", "")) for k in set(after) - set(before))
    # a second import is refused with the reason, and changes nothing
    before = tree_checksums(path)
    _, err = doc_of(capsys, path, "--table", "aux", code=2)
    assert "imported before" in err and tree_checksums(path) == before


def test_unknown_table_is_named(capsys, store):
    path, _ = store
    _, err = doc_of(capsys, path, "--table", "nope", "--dry-run", code=2)
    assert "nope" in err

