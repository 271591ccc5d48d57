"""Appending to and editing an existing file (write/existing.py): SIGKILL at every step of
append and edit_metadata leaves the old file or the new one, the next append settles an
interrupted one, and a schema that differs is refused with its first difference named."""
import os
import signal
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit.write.existing import KILL_ENV, STEPS, journal_path

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "..", "src")
OLD = {"id": list(range(50)), "name": [f"n{i}" for i in range(50)]}
NEW = {"id": list(range(50, 80)), "name": [f"n{i}" for i in range(50, 80)]}

# What a reader finds after a kill at each step, once the journal is settled.
COMMITTED = {"journal": False, "partial": False, "body": False, "footer": False,
             "tail": True, "done": True}

APPEND = """
import pqkit
pqkit.append({path!r}, {new!r}, row_group_size=10)
"""
EDIT = """
import pqkit
pqkit.edit_metadata({path!r}, key_value_metadata={{"owner": "test"}}, created_by="editor")
"""


def _run_killed(script, step):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC), **{KILL_ENV: step})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode


@pytest.mark.parametrize("step", STEPS)
def test_append_killed_at_each_step_leaves_old_or_new_file(tmp_path, step):
    path = str(tmp_path / "f.parquet")
    pqkit.write_table(OLD, path, row_group_size=20)
    old_bytes = open(path, "rb").read()
    code = _run_killed(APPEND.format(path=path, new=NEW), step)
    assert code == -signal.SIGKILL
    if step in ("partial", "body", "footer"):
        # The file ends in new bytes but no tail: readers refuse it, none misreads it.
        with pytest.raises(Exception):
            pq.read_table(path)
        with pytest.raises(pqkit.CorruptFileError):
            pqkit.read_table(path)
    settled = pqkit.finish_interrupted(path)
    assert settled == ("clean" if step == "done" else
                       "committed" if COMMITTED[step] else "rolled back")
    assert not os.path.exists(journal_path(path))
    ids = pq.read_table(path).column("id").to_pylist()
    if COMMITTED[step]:
        assert ids == OLD["id"] + NEW["id"]
        assert pqkit.read_table(path).column("name").to_pylist() == OLD["name"] + NEW["name"]
    else:
        assert open(path, "rb").read() == old_bytes
        assert ids == OLD["id"]


@pytest.mark.parametrize("step", STEPS)
def test_edit_killed_at_each_step_leaves_old_or_new_footer(tmp_path, step):
    path = str(tmp_path / "f.parquet")
    pqkit.write_table(OLD, path)
    old_bytes = open(path, "rb").read()
    assert _run_killed(EDIT.format(path=path), step) == -signal.SIGKILL
    pqkit.finish_interrupted(path)
    md = pq.ParquetFile(path).metadata
    assert pq.read_table(path).column("id").to_pylist() == OLD["id"]
    if COMMITTED[step]:
        assert (md.created_by, md.metadata[b"owner"]) == ("editor", b"test")
    else:
        assert open(path, "rb").read() == old_bytes


def test_the_next_append_settles_an_interrupted_one(tmp_path):
    path = str(tmp_path / "f.parquet")
    pqkit.write_table(OLD, path)
    _run_killed(APPEND.format(path=path, new=NEW), "body")
    assert pqkit.append(path, NEW) == 80
    assert pq.read_table(path).column("id").to_pylist() == OLD["id"] + NEW["id"]


def test_append_with_another_schema_names_the_difference_and_changes_nothing(tmp_path):
    path = str(tmp_path / "f.parquet")
    pqkit.write_table(OLD, path)
    before = open(path, "rb").read()
    with pytest.raises(pqkit.SchemaError, match=r"schema element 2 \('name'\)"):
        with pqkit.ParquetWriter(path, [pqkit.datatypes.Field("id", pqkit.datatypes.int64()),
                                        pqkit.datatypes.Field("name", pqkit.datatypes.int32())],
                                 append=True):
            pass
    with pytest.raises(pqkit.SchemaError, match="column 'id': value 1.5 .* does not fit int64"):
        pqkit.append(path, {"id": [1.5], "name": ["x"]})
    assert open(path, "rb").read() == before
    assert not os.path.exists(journal_path(path))


def test_append_through_the_streaming_writer(tmp_path):
    path = str(tmp_path / "f.parquet")
    pqkit.write_table(OLD, path)
    schema = pqkit.read_table(path).schema
    with pqkit.ParquetWriter(path, schema, append=True, row_group_size=8) as w:
        w.write(NEW)
        w.write(NEW)
    md = pq.ParquetFile(path).metadata
    assert md.num_rows == 110 and md.num_row_groups == 1 + 8
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == \
        [50] + [8] * 7 + [4]


@pytest.mark.parametrize("footer", ["encrypted", "plaintext"])
@pytest.mark.parametrize("operation", ["append", "writer-append", "edit", "concat-first",
                                       "concat-second", "recover"])
def test_file_surgery_refuses_encrypted_files_and_changes_nothing(tmp_path, footer,
                                                                  operation):
    """Issue 32: rewriting an encrypted file would break its footer's signature and the
    AADs that bind its modules to their row groups, so surgery refuses it by name."""
    key = b"0123456789012345"
    path, plain = tmp_path / "enc.parquet", tmp_path / "plain.parquet"
    pqkit.write_table({"a": [1, 2]}, path, encryption=pqkit.EncryptionProperties(
        key, plaintext_footer=footer == "plaintext"))
    pqkit.write_table({"a": [3]}, plain)
    before = path.read_bytes()
    calls = {
        "append": lambda: pqkit.append(path, {"a": [5]}),
        "writer-append": lambda: pqkit.ParquetWriter(path, [("a", pqkit.datatypes.int64())],
                                                     append=True),
        "edit": lambda: pqkit.edit_metadata(path, key_value_metadata={"k": "v"}),
        "concat-first": lambda: pqkit.concat([path, plain], tmp_path / "out.parquet"),
        "concat-second": lambda: pqkit.concat([plain, path], tmp_path / "out.parquet"),
        "recover": lambda: pqkit.recover(path, tmp_path / "out.parquet"),
    }
    with pytest.raises(pqkit.EncryptedFileError, match="encrypted"):
        calls[operation]()
    assert path.read_bytes() == before
    assert pqkit.read_table(path, footer_key=key).to_pydict() == {"a": [1, 2]}
