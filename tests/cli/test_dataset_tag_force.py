"""pqinspect dataset tag never moves an existing tag to another version without --force."""
import pytest
from cli_run import dataset_doc, run

import pqkit.dataset as pds


@pytest.fixture
def sales(tmp_path, monkeypatch):
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")
    root = str(tmp_path / "sales")
    for i in range(3):
        pds.write(root, {"id": [i], "v": [i * 10]})
    return root


def test_moving_a_tag_needs_force(sales, capsys):
    doc = dataset_doc(capsys, "tag", sales, "release", "--version", "1")
    assert (doc["version"], doc["moved_from"]) == (1, None)
    code, out, err = run(capsys, "dataset", "tag", sales, "release")
    assert code == 2 and out == ""
    assert "tag 'release' already names version 1; --force moves it to version 2" in err
    assert pds.open(sales, tag="release").version == 1
    doc = dataset_doc(capsys, "tag", sales, "release", "--force")
    assert (doc["version"], doc["moved_from"]) == (2, 1)
    assert pds.open(sales, tag="release").version == 2


def test_tagging_the_same_version_again_is_no_move(sales, capsys):
    dataset_doc(capsys, "tag", sales, "release", "--version", "0")
    doc = dataset_doc(capsys, "tag", sales, "release", "--version", "0")
    assert (doc["version"], doc["moved_from"]) == (0, None)


def test_a_deleted_tag_can_be_set_again_without_force(sales, capsys):
    dataset_doc(capsys, "tag", sales, "release", "--version", "0")
    dataset_doc(capsys, "tag", sales, "release", "--delete")
    doc = dataset_doc(capsys, "tag", sales, "release")
    assert (doc["version"], doc["moved_from"]) == (2, None)
