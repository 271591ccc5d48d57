"""pqinspect concat / append / edit / recover: their --json documents and the files made."""
import json

import pyarrow.parquet as pq

import pqkit
from cli_run import run

ROWS = {"id": list(range(40)), "city": [["Oslo", "Bergen"][i % 2] for i in range(40)]}


def _file(path, rows=ROWS, **options):
    pqkit.write_table(rows, path, row_group_size=10, **options)
    return path


def test_concat_json(tmp_path, capsys):
    a, b = _file(tmp_path / "a.parquet"), _file(tmp_path / "b.parquet")
    code, out, _ = run(capsys, "concat", a, b, "-o", tmp_path / "all.parquet", "--json")
    doc = json.loads(out)
    assert code == 0
    assert (doc["num_rows"], doc["row_groups_in"], doc["row_groups_out"]) == (80, 8, 8)
    assert pq.read_table(tmp_path / "all.parquet").column("id").to_pylist() == \
        ROWS["id"] * 2


def test_concat_of_other_schemas_is_unusable_input(tmp_path, capsys):
    a = _file(tmp_path / "a.parquet")
    b = _file(tmp_path / "b.parquet", {"id": [1.5], "city": ["Oslo"]})
    code, out, err = run(capsys, "concat", a, b, "-o", tmp_path / "all.parquet")
    assert code == 2 and out == ""
    assert "SchemaError" in err and "schema element 1 ('id') has type" in err


def test_append_json(tmp_path, capsys):
    a, b = _file(tmp_path / "a.parquet"), _file(tmp_path / "b.parquet")
    code, out, _ = run(capsys, "append", a, b, "--json")
    assert code == 0
    assert json.loads(out) == {"command": "append", "schema_version": 1, "file": str(a),
                               "rows_added": 40, "num_rows": 80}
    assert pq.read_table(a).num_rows == 80


def test_edit_json_in_place_and_to_a_new_file(tmp_path, capsys):
    a = _file(tmp_path / "a.parquet")
    code, out, _ = run(capsys, "edit", a, "--set", "owner=ops", "--unset", "ARROW:schema",
                       "--created-by", "someone", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["key_value_metadata"] == ["owner"]
    assert pq.ParquetFile(a).metadata.created_by == "someone"
    code, out, _ = run(capsys, "edit", a, "--clear", "-o", tmp_path / "b.parquet", "--json")
    assert json.loads(out)["key_value_metadata"] == []
    assert pq.ParquetFile(a).metadata.metadata == {b"owner": b"ops"}
    assert pq.read_table(tmp_path / "b.parquet").column("id").to_pylist() == ROWS["id"]


def test_recover_json(tmp_path, capsys):
    a = _file(tmp_path / "a.parquet")
    md = pq.ParquetFile(a).metadata
    second = md.row_group(2).column(0)
    cut = second.dictionary_page_offset        # row groups 0 and 1 are whole before it
    (tmp_path / "cut.parquet").write_bytes(a.read_bytes()[:cut + 5])
    code, out, _ = run(capsys, "recover", tmp_path / "cut.parquet", "-o",
                       tmp_path / "saved.parquet", "--schema-from", a, "--json")
    doc = json.loads(out)
    assert code == 0
    assert (doc["row_groups"], doc["num_rows"], doc["row_group_rows"]) == (2, 20, [10, 10])
    assert doc["bytes_lost"] == 5
    assert pq.read_table(tmp_path / "saved.parquet").column("id").to_pylist() == \
        list(range(20))


def test_human_views_print_the_results(tmp_path, capsys):
    a = _file(tmp_path / "a.parquet")
    code, out, _ = run(capsys, "recover", a, "-o", tmp_path / "r.parquet")
    assert code == 0 and "rows saved" in out and "40" in out


def test_edit_refuses_a_set_without_value(tmp_path, capsys):
    a = _file(tmp_path / "a.parquet")
    before = a.read_bytes()
    code, out, err = run(capsys, "edit", a, "--set", "owner")
    assert (code, out) == (2, "") and "--set needs KEY=VALUE, got 'owner'" in err
    assert a.read_bytes() == before
