"""pqinspect schema and meta on every corpus file: JSON, human view and exit codes."""
import json

import pyarrow.parquet as pq
import pytest
from cli_run import run

from corpus import entries, path_of
from pqkit.cli.main import main

pytestmark = pytest.mark.corpus


@pytest.mark.parametrize("entry", entries())
@pytest.mark.parametrize("command", ["schema", "meta"])
def test_every_corpus_file(capsys, entry, command):
    path = path_of(entry)
    code, out, err = run(capsys, command, path, "--json")
    if code == 0:
        doc = json.loads(out)
        assert doc["file"] if command == "meta" else doc["schema"]
        code2, human, _ = run(capsys, command, path)
        assert code2 == 0 and human.strip()
    else:
        assert code == 2
        assert "Traceback" not in err and "offset" in err or "encrypted" in err or "type" in err
        assert not out


@pytest.mark.parametrize("entry", entries(lambda e: e["readable"]))
def test_meta_json_agrees_with_pyarrow(capsys, entry):
    code, out, _ = run(capsys, "meta", path_of(entry), "--json")
    assert code == 0
    doc = json.loads(out)
    theirs = pq.read_metadata(path_of(entry))
    assert doc["file"]["num_rows"] == theirs.num_rows
    assert doc["file"]["num_columns"] == theirs.num_columns
    assert len(doc["row_groups"]) == theirs.num_row_groups
    for rg, r in zip(doc["row_groups"], range(theirs.num_row_groups)):
        assert rg["num_rows"] == theirs.row_group(r).num_rows
        for c, chunk in enumerate(rg["columns"]):
            ref = theirs.row_group(r).column(c)
            assert chunk["path"] == ref.path_in_schema
            assert chunk["data_page_offset"] == ref.data_page_offset
            assert chunk["total_compressed_size"] == ref.total_compressed_size
            assert chunk["num_values"] == ref.num_values
            if ref.is_stats_set and ref.statistics.has_null_count and chunk["statistics"]:
                assert chunk["statistics"].get("null_count") == ref.statistics.null_count


def test_filters_and_bad_arguments(capsys, request):
    sample = str(request.config.rootpath / "fixtures" / "sample.parquet")
    code, out, _ = run(capsys, "meta", sample, "--row-group", "1", "--column", "city", "--json")
    doc = json.loads(out)
    assert code == 0 and [rg["index"] for rg in doc["row_groups"]] == [1]
    assert [c["path"] for c in doc["row_groups"][0]["columns"]] == ["city"]
    assert run(capsys, "meta", sample, "--row-group", "9")[0] == 2
    assert run(capsys, "meta", sample, "--column", "nope")[0] == 2
    code, _, err = run(capsys, "schema", "/nonexistent.parquet")
    assert code == 2 and "No such file" in err


def test_help_has_examples(capsys):
    for command in ("schema", "meta"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out, _ = capsys.readouterr()
        assert "example" in out.lower()
