"""pqinspect take: rows by number over ParquetFile.take's page-skipping reader."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run

import pqkit

N = 5000


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("take") / "t.parquet"
    pqkit.write_table({"id": list(range(N)), "name": [f"n{i % 13}" for i in range(N)],
                       "tags": [[str(i)] * (i % 3) for i in range(N)]},
                      p, row_group_size=2000, data_page_size=1024)
    return p


def test_json_rows_and_pages(path, capsys):
    code, out, _ = run(capsys, "take", path, "4999", "7", "7", "2000:2003", "--json")
    assert code == 0
    doc = json.loads(out)
    rows = [4999, 7, 7, 2000, 2001, 2002]
    assert doc["row_numbers"] == rows
    assert doc["rows"] == pq.read_table(path).take(pa.array(rows)).to_pylist()
    assert doc["chunks_read"] == {}
    # 3 row groups touched, the rows of each in one or two pages per leaf
    assert set(doc["pages_read"]) == {"id", "name", "tags.list.element"}
    assert all(3 <= n <= 6 for n in doc["pages_read"].values()), doc["pages_read"]


def test_columns_and_human_view(path, capsys):
    code, out, _ = run(capsys, "take", path, "12", "--column", "name", "--json")
    assert code == 0 and json.loads(out)["rows"] == [{"name": "n12"}]
    code, out, _ = run(capsys, "take", path, "12", "3")
    assert code == 0
    assert "2 of 5,000 rows" in out and "n12" in out and "n3" in out


@pytest.mark.parametrize("argv, message", [
    (["5000"], "row 5000 out of range: the file has 5000 rows"),
    (["-1"], "row -1 out of range"),
    (["x1"], "'x1': not a row number or a:b"),
    (["0:200000"], "range 0:200000 has more than 100,000 rows"),
])
def test_bad_rows_exit_2(path, capsys, argv, message):
    code, out, err = run(capsys, "take", path, *argv)
    assert code == 2 and not out and message in err
