"""The pyarrow-shaped metadata objects: FileMetaData -> RowGroupMetaData ->
ColumnChunkMetaData -> Statistics, over pqkit's own files."""
import datetime
import decimal
import io
import pickle

import numpy as np
import pytest

import pqkit
from pqkit.convert import table_from_data
from pqkit.format import Statistics as ThriftStatistics
from pqkit.read.fetch.metadata import (ColumnChunkMetaData, RowGroupMetaData, SortingColumn,
                                       Statistics)

UTC = datetime.timezone.utc


def _file(**options):
    data = {
        "id": np.array([3, 1, 2, 5], dtype=np.int64),
        "u": np.array([1, 2, 4_000_000_000, 7], dtype=np.uint32),
        "s": ["b", "a", None, "c"],
        "day": [datetime.date(2020, 1, 2), None, datetime.date(1999, 12, 31),
                datetime.date(2001, 5, 6)],
        "ts": [datetime.datetime(2021, 3, 4, 5, 6, 7, tzinfo=UTC), None,
               datetime.datetime(1970, 1, 1, tzinfo=UTC), datetime.datetime(2030, 1, 1, tzinfo=UTC)],
        "dec": [decimal.Decimal("1.25"), decimal.Decimal("-3.50"), None, decimal.Decimal("0.00")],
        "bin": [b"\x00\xff", b"\x01", b"", None],
    }
    buf = io.BytesIO()
    pqkit.write_table(data, buf, **options)
    return buf.getvalue()


@pytest.fixture(scope="module")
def data():
    return _file(compression="snappy", row_group_size=2,
                 key_value_metadata={"origin": "unit"}, sorting_columns=[("id", "descending")])


def _column(md, name, g=0):
    rg = md.row_group(g)
    return next(rg.column(j) for j in range(rg.num_columns) if rg.column(j).path_in_schema == name)


def test_file_level_facts(data):
    md = pqkit.read_metadata(data)
    assert isinstance(md, pqkit.FileMetaData) and pqkit.FileMetaData is pqkit.FileMetadata
    assert (md.num_rows, md.num_row_groups, md.num_columns) == (4, 2, 7)
    assert md.created_by.startswith("pqkit version ")
    assert md.format_version == "2.6"
    assert md.serialized_size == md.footer_length > 100
    assert md.metadata[b"origin"] == b"unit"
    assert md.thrift is md.raw
    d = md.to_dict()
    assert d["num_rows"] == 4 and len(d["row_groups"]) == 2
    assert d["row_groups"][1]["num_rows"] == 2


def test_row_group_and_chunk(data):
    md = pqkit.read_metadata(data)
    rg = md.row_group(-1)
    assert isinstance(rg, RowGroupMetaData)
    assert rg.thrift is md.raw.row_groups[1]
    assert (rg.num_rows, rg.num_columns) == (2, 7)
    assert rg.total_byte_size == md.raw.row_groups[1].total_byte_size > 0
    assert rg.sorting_columns == (SortingColumn(0, descending=True, nulls_first=False),)
    assert rg.to_dict()["sorting_columns"] == [
        {"column_index": 0, "descending": True, "nulls_first": False}]
    chunk = _column(md, "s")
    assert isinstance(chunk, ColumnChunkMetaData)
    assert chunk.physical_type == "BYTE_ARRAY"
    assert chunk.compression == "SNAPPY"
    assert isinstance(chunk.encodings, tuple)
    assert "RLE_DICTIONARY" in chunk.encodings and all(isinstance(e, str) for e in chunk.encodings)
    assert chunk.has_dictionary_page
    assert chunk.dictionary_page_offset == chunk.thrift.meta_data.dictionary_page_offset > 4
    assert chunk.data_page_offset > chunk.dictionary_page_offset
    assert chunk.num_values == 2 and chunk.file_path == ""
    assert chunk.total_compressed_size == chunk.thrift.meta_data.total_compressed_size
    with pytest.raises(IndexError, match="row group index 2 out of range"):
        md.row_group(2)
    with pytest.raises(IndexError, match="column index 7 out of range"):
        rg.column(7)


def test_statistics_are_typed_values(data):
    md = pqkit.read_metadata(data)
    want = {   # column: (row group 0 min, max, null count)
        "id": (1, 3, 0),
        "u": (1, 2, 0),
        "s": ("a", "b", 0),
        "day": (datetime.date(2020, 1, 2), datetime.date(2020, 1, 2), 1),
        "ts": (datetime.datetime(2021, 3, 4, 5, 6, 7, tzinfo=UTC),) * 2 + (1,),
        "dec": (decimal.Decimal("-3.50"), decimal.Decimal("1.25"), 0),
        "bin": (b"\x00\xff", b"\x01", 0),
    }
    for name, (lo, hi, nulls) in want.items():
        st = _column(md, name).statistics
        assert isinstance(st, Statistics)
        assert st.has_min_max and (st.min, st.max, st.null_count) == (lo, hi, nulls), name
        assert type(st.min) is type(lo)
        assert st.num_values == 2 - nulls
    ts = _column(md, "ts").statistics
    assert ts.min.tzinfo is not None and ts.min_raw == 1614834367000000
    assert ts.physical_type == "INT64" and ts.logical_type.TIMESTAMP is not None
    assert ts.converted_type == "TIMESTAMP_MICROS" or ts.converted_type == "NONE"
    u = _column(md, "u", g=1).statistics
    assert (u.min, u.max) == (7, 4_000_000_000)
    assert u.max_raw == 4_000_000_000 - (1 << 32)       # the physical INT32, as pyarrow
    dec = _column(md, "dec").statistics
    assert dec.to_dict() == {"has_min_max": True, "min": decimal.Decimal("-3.50"),
                             "max": decimal.Decimal("1.25"), "null_count": 0,
                             "distinct_count": None, "num_values": 2,
                             "physical_type": dec.physical_type}


def test_equality_follows_contents(data):
    a, b = pqkit.read_metadata(data), pqkit.read_metadata(io.BytesIO(data))
    assert a == b and a.row_group(0) == b.row_group(0)
    assert a.row_group(0).column(2) == b.row_group(0).column(2)
    assert a.row_group(0).column(2).statistics == b.row_group(0).column(2).statistics
    assert a.row_group(0) != a.row_group(1)
    other = pqkit.read_metadata(_file(compression="none", row_group_size=2))
    assert a != other and a.row_group(0).column(0) != other.row_group(0).column(0)


def test_chunk_without_statistics():
    md = pqkit.read_metadata(_file(write_statistics=False))
    chunk = md.row_group(0).column(0)
    assert chunk.is_stats_set is False and chunk.statistics is None
    assert chunk.to_dict()["statistics"] is None


def _stats(node_file, **fields):
    md = pqkit.read_metadata(node_file)
    rg = md.row_group(0)
    node = md.schema.columns[0]
    return Statistics(ThriftStatistics(**fields), node, rg.column(0).num_values, True)


def test_bad_bounds_give_none_not_a_crash():
    data = _file()
    st = _stats(data, min_value=b"\x01\x02", max_value=b"\x01\x02\x03\x04\x05\x06\x07\x08\x09",
                null_count=0)
    assert st.has_min_max and st.min is None and st.max is None and st.min_raw is None
    missing = _stats(data, min_value=b"\x01" * 8, null_count=1)
    assert not missing.has_min_max and missing.min is None and missing.num_values == 3


def test_read_row_groups_and_schema_arrow(data):
    with pqkit.ParquetFile(data) as f:
        both = f.read_row_groups([1, 0], columns=["id"])
        assert both.column("id").to_pylist() == [2, 5, 3, 1]
        assert f.schema_arrow == f.read().schema
        assert [fl.name for fl in f.schema_arrow] == ["id", "u", "s", "day", "ts", "dec", "bin"]


def test_writer_write_table_round_trip():
    buf = io.BytesIO()
    table = table_from_data({"x": [1, 2, 3]})
    with pqkit.ParquetWriter(buf, table.schema) as w:
        w.write_table(table)
        w.write_table(table.slice(0, 1))
    md = pqkit.read_metadata(buf.getvalue())
    assert md.num_rows == 4 and md.row_group(0).column(0).statistics.max == 3
    assert pqkit.read_table(buf.getvalue()).column("x").to_pylist() == [1, 2, 3, 1]


def test_a_walked_footer_pickles_with_the_decoders_it_worked_out(data):
    # Walking the chunks keeps each leaf's bound decoder on the metadata; planners send
    # metadata to other processes, so every decoder kind (numbers, text, dates, decimals,
    # unsigned) must pickle.
    md = pqkit.read_metadata(data)
    walked = [md.row_group(g).column(c).to_dict() for g in range(md.num_row_groups)
              for c in range(md.num_columns)]
    again = pickle.loads(pickle.dumps(md))
    assert [again.row_group(g).column(c).to_dict() for g in range(again.num_row_groups)
            for c in range(again.num_columns)] == walked
