"""File surgery in the write road: SIGKILL at every step of append and edit_metadata,
schema checks with the first difference named, row-group merging in concat."""
import os
import signal
import struct
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.inspect.verify import verify_file
from pqkit.write.existing import KILL_ENV, STEPS, journal_path, read_existing

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


def test_concat_names_the_first_schema_difference(tmp_path):
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    pqkit.write_table(OLD, a)
    pqkit.write_table({"id": OLD["id"], "label": OLD["name"]}, b)
    with pytest.raises(pqkit.SchemaError, match=r"schema element 2 \('name'\) has name "
                                                r"'name' in the first, 'label' in the second"):
        pqkit.concat([a, b], str(tmp_path / "out.parquet"))
    assert not os.path.exists(tmp_path / "out.parquet")


def test_concat_merges_row_groups_only_without_dictionary_pages(tmp_path):
    plain = [str(tmp_path / f"p{i}.parquet") for i in range(3)]
    for i, p in enumerate(plain):
        pqkit.write_table({"id": list(range(i * 10, i * 10 + 10))}, p, row_group_size=5,
                          use_dictionary=False, bloom_filter_columns=["id"])
    result = pqkit.concat(plain, str(tmp_path / "m.parquet"), row_group_size=12)
    md = pq.ParquetFile(tmp_path / "m.parquet").metadata
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [10, 10, 10]
    assert (result.row_groups_in, result.row_groups_out) == (6, 3)
    stats = md.row_group(1).column(0).statistics
    assert (stats.min, stats.max, stats.null_count) == (10, 19, 0)
    assert pq.read_table(tmp_path / "m.parquet").column("id").to_pylist() == list(range(30))
    assert verify_file(str(tmp_path / "m.parquet"), deep=True).exit_code == 0

    dicts = [str(tmp_path / f"d{i}.parquet") for i in range(2)]
    for p in dicts:
        pqkit.write_table({"id": list(range(10))}, p, row_group_size=5)
    result = pqkit.concat(dicts, str(tmp_path / "n.parquet"), row_group_size=100)
    assert result.row_groups_out == 4
    assert all("dictionary page" in r for r in result.merges_refused)


def _rewrite_chunks(path, change, created_by=None):
    """Apply ``change(ColumnMetaData)`` to every chunk of ``path`` and rewrite its footer
    (with ``created_by`` when given)."""
    data = open(path, "rb").read()
    existing = read_existing(path)
    for rg in existing.meta.row_groups:
        for chunk in rg.columns:
            change(chunk.meta_data)
    if created_by is not None:
        existing.meta.created_by = created_by
    footer = fmt.encode(existing.meta)
    open(path, "wb").write(data[:existing.footer_offset] + footer +
                           struct.pack("<I", len(footer)) + b"PAR1")


def _as_parquet_816(path):
    """Rewrite the footer of ``path`` as parquet-mr 1.2.8 wrote it: the dictionary page
    header left out of each chunk's sizes. Returns the header sizes taken off."""
    data = open(path, "rb").read()
    removed = []

    def shorten(meta):
        if meta.dictionary_page_offset is not None:
            _, used = fmt.decode(fmt.PageHeader, data, meta.dictionary_page_offset, 100, 0)
            meta.total_compressed_size -= used
            meta.total_uncompressed_size -= used
            removed.append(used)

    _rewrite_chunks(path, shorten, created_by="parquet-mr version 1.2.8")
    return removed


def test_concat_copies_parquet_816_chunks_with_their_dictionary_headers(tmp_path):
    new, old = str(tmp_path / "new.parquet"), str(tmp_path / "old.parquet")
    table = {"id": list(range(40)), "name": [f"n{i % 4}" for i in range(40)]}
    pqkit.write_table(table, new, row_group_size=20)
    pqkit.write_table(table, old, row_group_size=20)
    assert len(_as_parquet_816(old)) == 4
    assert pq.read_table(old).to_pydict() == table      # readers pad such chunks

    # The output's footer names pqkit, so no reader pads: the copied chunks' sizes must
    # count the headers, and their bytes must be there.
    pqkit.concat([new, old], str(tmp_path / "out.parquet"))
    out = pq.ParquetFile(tmp_path / "out.parquet")
    assert out.read().to_pydict() == {k: v + v for k, v in table.items()}
    sizes = [out.metadata.row_group(g).column(c).total_compressed_size
             for g in range(4) for c in range(2)]
    assert sizes[:4] == sizes[4:]
    assert verify_file(str(tmp_path / "out.parquet"), deep=True).exit_code == 0


def test_concat_sees_dictionary_pages_without_dictionary_page_offset(tmp_path):
    # parquet-mr before 1.15.0 often pointed data_page_offset at the dictionary page and
    # left dictionary_page_offset unset (PARQUET-1850): merging such a chunk after
    # another would put a dictionary page in the middle of a chunk.
    def as_parquet_1850(meta):
        meta.data_page_offset = meta.dictionary_page_offset
        meta.dictionary_page_offset = None

    sources = [str(tmp_path / f"d{i}.parquet") for i in range(2)]
    for i, p in enumerate(sources):
        pqkit.write_table({"id": [i * 10 + k % 3 for k in range(10)]}, p, row_group_size=5)
        _rewrite_chunks(p, as_parquet_1850)
    result = pqkit.concat(sources, str(tmp_path / "out.parquet"), row_group_size=100)
    assert result.row_groups_out == 4
    assert len(result.merges_refused) == 3
    assert all("dictionary page" in r for r in result.merges_refused)
    assert pq.read_table(tmp_path / "out.parquet").column("id").to_pylist() == \
        [k % 3 for k in range(10)] + [10 + k % 3 for k in range(10)]


def test_recover_of_garbage_saves_nothing_and_says_where_it_stopped(tmp_path):
    import random
    rng = random.Random(7)
    for i in range(30):
        path = tmp_path / f"g{i}.parquet"
        path.write_bytes(b"PAR1" + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 400))))
        result = pqkit.recover(path, tmp_path / "out.parquet",
                               schema=[pqkit.datatypes.Field("id", pqkit.datatypes.int64())])
        assert (result.row_groups, result.num_rows) == (0, 0)
        assert result.stop_reason
        assert pq.read_table(tmp_path / "out.parquet").num_rows == 0


def test_recover_refuses_a_file_without_leading_magic_and_a_missing_schema(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_bytes(b"NOPE" + bytes(100))
    with pytest.raises(pqkit.CorruptFileError, match="does not start with b'PAR1'"):
        pqkit.recover(path, tmp_path / "out.parquet",
                      schema=[pqkit.datatypes.Field("id", pqkit.datatypes.int64())])
    path.write_bytes(b"PAR1" + bytes(100))
    with pytest.raises(pqkit.SchemaError, match="recover needs a schema"):
        pqkit.recover(path, tmp_path / "out.parquet")


def test_recover_with_a_pqkit_schema_of_fields(tmp_path):
    path = tmp_path / "f.parquet"
    pqkit.write_table(OLD, path, row_group_size=10)
    fourth = pq.ParquetFile(path).metadata.row_group(3).column(1)
    cut = fourth.dictionary_page_offset + 3             # inside row group 3's second chunk
    (tmp_path / "cut.parquet").write_bytes(path.read_bytes()[:cut])
    schema = pqkit.read_table(path).schema
    result = pqkit.recover(tmp_path / "cut.parquet", tmp_path / "out.parquet", schema=schema)
    assert (result.row_groups, result.num_rows, result.pages_lost) == (3, 30, 2)
    assert pq.read_table(tmp_path / "out.parquet").column("id").to_pylist() == OLD["id"][:30]
