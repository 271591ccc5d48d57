"""edit_metadata keeps the file's key/value entries unless asked to replace them."""
import os
import shutil

import pytest

import pqkit

SAMPLE = os.path.join(os.path.dirname(__file__), *[".."] * 4, "fixtures", "sample.parquet")


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "s.parquet"
    shutil.copy(SAMPLE, path)
    return path


def test_new_entries_are_merged_into_the_existing_ones(sample):
    before = pqkit.read_metadata(sample).key_value_metadata
    assert "ARROW:schema" in before
    pqkit.edit_metadata(sample, key_value_metadata={"owner": "ops"})
    after = pqkit.read_metadata(sample).key_value_metadata
    assert after == {**before, "owner": "ops"}
    assert list(after) == list(before) + ["owner"]
    assert pqkit.read_table(sample).equals(pqkit.read_table(SAMPLE))


def test_a_key_given_again_changes_its_value_in_place(sample):
    pqkit.edit_metadata(sample, key_value_metadata={"owner": "ops", "team": "a"})
    pqkit.edit_metadata(sample, key_value_metadata={"owner": "dev"})
    kv = pqkit.read_metadata(sample).key_value_metadata
    assert (kv["owner"], kv["team"]) == ("dev", "a")
    assert list(kv)[-2:] == ["owner", "team"]


def test_replace_drops_the_entries_not_named(sample, tmp_path):
    pqkit.edit_metadata(sample, key_value_metadata={"owner": "ops"}, replace=True)
    assert pqkit.read_metadata(sample).key_value_metadata == {"owner": "ops"}
    copy = tmp_path / "copy.parquet"
    pqkit.edit_metadata(SAMPLE, key_value_metadata={"a": "1"}, dest=copy)
    assert set(pqkit.read_metadata(copy).key_value_metadata) == {"ARROW:schema", "a"}


def test_none_still_removes_every_entry(sample):
    pqkit.edit_metadata(sample, key_value_metadata=None)
    assert pqkit.read_metadata(sample).key_value_metadata == {}


def test_entries_that_are_not_a_mapping_name_the_argument(sample):
    with pytest.raises(pqkit.ArgumentError, match="key_value_metadata must be a dict") as e:
        pqkit.edit_metadata(sample, key_value_metadata=[("owner", "ops")])
    assert isinstance(e.value, TypeError)
