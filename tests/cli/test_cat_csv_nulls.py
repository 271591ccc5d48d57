"""pqinspect cat --format csv: by default a null is an empty field (convert's CSV, the
same bytes); --null-text keeps nulls and empty strings apart, quoting a string that
would read as a null."""
import pytest
from cli_run import run

import pqkit
from pqkit.errors import SchemaError
from pqkit.textio.writers import CsvLines


@pytest.fixture
def strings(tmp_path):
    path = tmp_path / "s.parquet"
    pqkit.write_table({"s": ["a", "", None, "NULL", "x,y"], "n": [1, None, 3, 4, 5]}, path)
    return path


def test_default_null_is_an_empty_field_as_convert_writes_it(strings, capsys):
    code, out, err = run(capsys, "cat", strings, "--format", "csv")
    assert code == 0, err
    assert out.splitlines() == ["s,n", "a,1", ",", ",3", "NULL,4", '"x,y",5']


def test_an_empty_null_text_quotes_the_empty_string(strings, capsys):
    code, out, err = run(capsys, "cat", strings, "--format", "csv", "--null-text", "")
    assert code == 0, err
    assert out.splitlines() == ["s,n", "a,1", '"",', ",3", "NULL,4", '"x,y",5']


def test_null_text_spells_nulls_and_quotes_strings_equal_to_it(strings, capsys):
    code, out, err = run(capsys, "cat", strings, "--format", "csv", "--null-text", "NULL")
    assert code == 0, err
    assert out.splitlines() == ["s,n", "a,1", '"",NULL', "NULL,3", '"NULL",4', '"x,y",5']


def test_null_text_that_would_need_quoting_is_refused(strings, capsys):
    code, out, err = run(capsys, "cat", strings, "--format", "csv", "--null-text", "a,b")
    assert code == 2 and out == ""
    assert "CSV null text must be a str without the delimiter" in err


def test_csv_lines_with_and_without_null_text():
    assert CsvLines().text([["", "x"]]) == ",x\n"             # convert's CSV: unchanged
    assert CsvLines(null_text="").text([[None, "", "x"], [""], [None]]) == ',"",x\n""\n\n'
    assert CsvLines(";", null_text="\\N").text([["\\N", None, "a;b"]]) == '"\\N";\\N;"a;b"\n'
    with pytest.raises(SchemaError, match="null text"):
        CsvLines(null_text='"')
