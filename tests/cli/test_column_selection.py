"""One grammar for column selection and row filters across pqinspect's commands.

Every command that selects columns takes ``--column PATH`` (repeatable) and
``--columns A,B`` in any mix (pqkit.cli.common.add_column_arguments); ``head``
and ``cat`` take ``--where`` as ``explain`` does.
"""
import json
import os

import pytest
from cli_run import run

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "sample.parquet")

# command -> arguments after the file (all give one JSON document with --json)
SELECTING = {
    "meta": [],
    "pages": [],
    "index": [],
    "dictionary": [],
    "explain": ["--where", "id > 3"],
    "take": ["0", "5:7"],
    "head": [],
    "cat": [],
}


def _json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return out


@pytest.mark.parametrize("command", sorted(SELECTING))
def test_both_forms_select_the_same_columns(command, capsys):
    extra = SELECTING[command]
    comma = _json(capsys, command, SAMPLE, *extra, "--columns", "id,city")
    repeated = _json(capsys, command, SAMPLE, *extra, "--column", "id", "--column", "city")
    mixed = _json(capsys, command, SAMPLE, *extra, "--columns", "id", "--column", "city")
    assert comma == repeated == mixed
    only_id = _json(capsys, command, SAMPLE, *extra, "--column", "id")
    assert only_id != comma and '"city"' in comma


@pytest.mark.parametrize("command", sorted(SELECTING))
def test_a_comma_list_naming_nothing_is_a_usage_error(command, capsys):
    with pytest.raises(SystemExit) as exc:
        run(capsys, command, SAMPLE, *SELECTING[command], "--columns", " , ")
    assert exc.value.code == 2
    assert "--columns ' , ' names no column" in capsys.readouterr().err


def test_dictionary_still_needs_a_column(capsys):
    with pytest.raises(SystemExit) as exc:
        run(capsys, "dictionary", SAMPLE)
    assert exc.value.code == 2
    assert "give --column PATH or --columns A,B" in capsys.readouterr().err


def test_head_and_take_rows_hold_the_columns_of_both_forms(capsys):
    head = json.loads(_json(capsys, "head", SAMPLE, "--columns", "city", "--column", "id"))
    take = json.loads(_json(capsys, "take", SAMPLE, "3", "--columns", "city", "--column", "id"))
    assert [c["name"] for c in head["columns"]] == ["id", "city"]      # in schema order
    assert head["rows"][3] == take["rows"][0] == {"id": 3, "city": "Nice"}


def test_head_where_keeps_only_matching_rows(capsys):
    doc = json.loads(_json(capsys, "head", SAMPLE, "--where", "id >= 5 and city = 'Nice'",
                           "--columns", "id,city"))
    assert doc["where"] == "id >= 5 and city = 'Nice'"
    assert doc["rows"] == [{"id": 7, "city": "Nice"}, {"id": 11, "city": "Nice"}]
    doc = json.loads(_json(capsys, "head", SAMPLE, "-n", "1", "--where", "id > 8"))
    assert [r["id"] for r in doc["rows"]] == [9]


def test_head_where_in_the_rich_view(capsys):
    code, out, err = run(capsys, "head", SAMPLE, "--where", "id in (1, 2)", "--column", "id")
    assert code == 0, err
    assert "first 2 of 12 rows where id in (1, 2)" in out


@pytest.mark.parametrize("form", ["jsonl", "csv", "table", "json"])
def test_cat_where_in_every_form(form, capsys):
    argv = ["cat", SAMPLE, "--where", "temperature < 0 or id = 0", "--columns", "id"]
    argv += ["--json"] if form == "json" else ["--format", form]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    if form == "json":
        doc = json.loads(out)
        assert doc["where"] == "temperature < 0 or id = 0"
        assert [r["id"] for r in doc["rows"]] == [0, 1, 5, 9]
    elif form == "jsonl":
        assert [json.loads(line)["id"] for line in out.splitlines()] == [0, 1, 5, 9]
    else:
        assert [line.split()[0].strip(",") for line in out.splitlines()[-4:]] == \
            ["0", "1", "5", "9"]


def test_a_bad_where_is_unusable_input_naming_the_position(capsys):
    for command in ("head", "cat"):
        code, out, err = run(capsys, command, SAMPLE, "--where", "id >")
        assert code == 2 and out == ""
        assert f"pqinspect {command}: SchemaError" in err and "at character 4" in err


def test_where_on_a_column_the_file_lacks(capsys):
    code, out, err = run(capsys, "head", SAMPLE, "--where", "nope = 1")
    assert code == 2 and "nope" in err


def test_bloom_takes_either_spelling_for_its_one_column(capsys):
    one = _json(capsys, "bloom", SAMPLE, "--column", "city", "Paris", "Oslo")
    other = _json(capsys, "bloom", SAMPLE, "--columns", "city", "Paris", "Oslo")
    assert one == other and json.loads(one)["column"]["path"] == "city"
    with pytest.raises(SystemExit) as exc:
        run(capsys, "bloom", SAMPLE, "--columns", "city,id", "Paris")
    assert exc.value.code == 2
    assert "bloom probes one column at a time" in capsys.readouterr().err
