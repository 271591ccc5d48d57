"""INT96 timestamps in a chosen unit (pyarrow's coerce_int96_timestamp_unit)."""
import datetime
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqkit

WHEN = [datetime.datetime(1000, 3, 1, 12, 30, 45, 123456), datetime.datetime(1970, 1, 1),
        None, datetime.datetime(2999, 12, 31, 23, 59, 59, 999999)]


@pytest.fixture(scope="module")
def int96_file():
    buf = io.BytesIO()
    table = pa.table({"t": pa.array(WHEN, pa.timestamp("us"))})
    pq.write_table(table, buf, use_deprecated_int96_timestamps=True, store_schema=False)
    return buf.getvalue()


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_coarser_units_keep_every_year(int96_file, unit):
    ours = pqkit.read_table(int96_file, coerce_int96_timestamp_unit=unit)
    theirs = pq.read_table(io.BytesIO(int96_file), coerce_int96_timestamp_unit=unit)
    assert str(ours.schema[0].type) == f"timestamp[{unit}]"
    assert ours.to_pydict() == theirs.to_pydict()
    if unit == "us":
        assert ours.to_pydict()["t"] == WHEN


def test_nanoseconds_wrap_as_pyarrow_does(int96_file):
    ours = pqkit.ParquetFile(int96_file).read().column("t")
    theirs = pq.read_table(io.BytesIO(int96_file)).column("t").combine_chunks()
    assert ours.values[ours.valid_mask()].tolist() == \
        theirs.drop_null().cast(pa.int64()).to_pylist()


def test_unknown_unit_is_refused(int96_file):
    with pytest.raises(ValueError, match="coerce_int96_timestamp_unit"):
        pqkit.read_table(int96_file, coerce_int96_timestamp_unit="fortnights")
