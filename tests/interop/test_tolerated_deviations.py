"""Issue 18: a spec deviation every major reader reads through is a verify warning naming
the writers that produce it, not an error -- and pqkit's page-skipping reads cope too.

Both corpus files locate their dictionary pages by ``data_page_offset`` alone
(``dictionary_page_offset`` unset) while an OffsetIndex lists the data pages.
"""
import duckdb
import fastparquet
import polars as pl
import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit.inspect.verify import verify_file

pytestmark = pytest.mark.interop

FILES = ["data/alltypes_tiny_pages.parquet", "bad_data/ARROW-GH-43605.parquet"]


@pytest.mark.parametrize("name", FILES)
def test_every_reader_reads_it_and_verify_only_warns(corpus, name):
    path = str(corpus / name)
    want = pq.read_table(path)
    assert pqkit.read_table(path).to_pydict() == want.to_pydict()
    assert pl.read_parquet(path).to_arrow().cast(want.schema).equals(want)
    assert duckdb.sql(f"select * from '{path}'").to_arrow_table().cast(want.schema).equals(want)
    frame = fastparquet.ParquetFile(path).to_pandas()
    assert frame[want.column_names[0]].tolist() == want.column(0).to_pylist()
    report = verify_file(path)
    assert report.exit_code == 0
    index = [f for f in report.findings if f.rule == "PQ-INDEX-014"]
    assert index and {f.severity for f in index} == {"warning"}
    assert all("parquet-mr before 1.15.0" in f.message and "Polars before 1.39.0" in f.message
               for f in index)


def test_page_skipping_reads_find_the_dictionary(corpus):
    path = str(corpus / "data/alltypes_tiny_pages.parquet")
    full = pq.read_table(path)
    rows = [0, 17, 3650, 7299]
    assert pqkit.ParquetFile(path).take(rows).to_pydict() == full.take(rows).to_pydict()
    filters = [("tinyint_col", "==", 3), ("id", ">", 2000)]
    got = pqkit.read_table(path, filters=filters)
    assert got.num_rows == 530
    assert got.to_pydict() == pq.read_table(path, filters=filters).to_pydict()
