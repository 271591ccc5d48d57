"""The writer against pyarrow: every type, codec, encoding and page version; CRCs, page
index, bloom filters and footer fields; random tables by hypothesis."""
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from arrow_bridge import same_values
from corpus import entries, path_of
from interop.test_read_pyarrow_files import ENCODED, TABLE, _write, tables
from pqkit.format import Type
from pqkit.page import PageWalker

pytestmark = pytest.mark.interop

SOURCE = pqkit.read_table(_write(TABLE))        # every type, as a pqkit Table
EXPECTED = SOURCE.to_pydict()


def _ours(table=SOURCE, **options):
    buf = io.BytesIO()
    pqkit.write_table(table, buf, **options)
    return buf.getvalue()


def _check_both_readers(data, expected=EXPECTED):
    same_values(pqkit.read_table(data).to_pydict(), expected)
    same_values(pq.read_table(io.BytesIO(data)).to_pydict(), expected)


@pytest.mark.parametrize("compression", ["none", "snappy", "gzip", "zstd", "lz4_raw", "brotli"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("use_dictionary", [True, False])
def test_every_type_codec_page_version_and_dictionary(compression, version, use_dictionary):
    _check_both_readers(_ours(compression=compression, data_page_version=version,
                              use_dictionary=use_dictionary, data_page_size=700,
                              row_group_size=110))


def test_dictionary_falls_back_to_plain_mid_chunk():
    data = _ours(dictionary_page_size_limit=1000, data_page_size=100, row_group_size=1000)
    md = pq.read_metadata(io.BytesIO(data))
    col = next(md.row_group(0).column(i) for i in range(md.num_columns)
               if md.row_group(0).column(i).path_in_schema == "str_high")
    assert {"RLE_DICTIONARY", "PLAIN"} <= set(col.encodings)
    _check_both_readers(data)


@pytest.mark.parametrize("encoding", sorted(ENCODED))
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_column_encodings(encoding, version):
    cols = ENCODED[encoding]
    table = SOURCE.select(cols)
    data = _ours(table, column_encoding={c: encoding for c in cols}, data_page_version=version,
                 data_page_size=500)
    md = pq.read_metadata(io.BytesIO(data))
    for i in range(md.num_columns):
        assert encoding in md.row_group(0).column(i).encodings
    _check_both_readers(data, table.to_pydict())


def test_bad_encoding_requests_are_refused():
    with pytest.raises(pqkit.SchemaError, match="DELTA_BINARY_PACKED cannot encode DOUBLE"):
        _ours(SOURCE.select(["f64"]), column_encoding={"f64": "DELTA_BINARY_PACKED"})
    with pytest.raises(pqkit.SchemaError, match="unknown compression"):
        _ours(SOURCE.select(["f64"]), compression="zip")


def _chunk_pages(data, md):
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            chunk = md.row_group(g).thrift.columns[c]
            m = chunk.meta_data
            start = m.dictionary_page_offset or m.data_page_offset
            walker = PageWalker(data[start:start + m.total_compressed_size], start,
                                m.num_values, f"column {c}", verify_checksums=False)
            yield g, c, list(walker)


def test_checksums_verified_by_pyarrow_and_every_flipped_page_is_caught():
    data = _ours(SOURCE.select(["iint64", "str_low", "list", "struct"]), data_page_size=400,
                 row_group_size=150)
    pq.ParquetFile(io.BytesIO(data), page_checksum_verification=True).read()
    md = pqkit.read_metadata(data)
    pages = [p for _, _, ps in _chunk_pages(data, md) for p in ps]
    assert len(pages) > 10 and all(p.header.crc is not None for p in pages)
    for page in pages[::3]:
        raw = bytearray(data)
        raw[page.payload_offset + len(page.payload) // 2] ^= 0x5A
        with pytest.raises(pqkit.ChecksumError, match=f"page at offset {page.offset} "):
            pqkit.read_table(bytes(raw))


def test_page_index_matches_written_pages_and_pyarrow_sees_it():
    data = _ours(SOURCE.select(["iint64", "str_high", "list"]), data_page_size=300,
                 row_group_size=200)
    theirs = pq.read_metadata(io.BytesIO(data))
    ours = pqkit.read_metadata(data)
    for g, c, pages in _chunk_pages(data, ours):
        assert theirs.row_group(g).column(c).has_offset_index
        assert theirs.row_group(g).column(c).has_column_index
        chunk = ours.row_group(g).thrift.columns[c]
        from pqkit import format as fmt
        raw = data[chunk.offset_index_offset:chunk.offset_index_offset + chunk.offset_index_length]
        oi, _ = fmt.decode(fmt.OffsetIndex, raw, 0, len(raw), chunk.offset_index_offset)
        data_pages = [p for p in pages if p.type != 2]
        assert [(loc.offset, loc.compressed_page_size) for loc in oi.page_locations] == \
            [(p.offset, p.header_size + len(p.payload)) for p in data_pages]
        assert oi.page_locations[0].first_row_index == 0
        firsts = [loc.first_row_index for loc in oi.page_locations]
        assert firsts == sorted(firsts)


def test_bloom_filters_find_every_written_value():
    cols = ["iint64", "str_high", "fixed", "f64", "dec18"]
    data = _ours(SOURCE.select(cols), bloom_filter_columns=cols, row_group_size=120)
    f = pqkit.ParquetFile(data)
    for g in range(f.num_row_groups):
        part = f.read_row_group(g)
        for name in cols:
            bloom = f.bloom_filter(name, g)
            assert bloom is not None
            node = f.schema.column(name)
            col = part.column(name)
            for v in _physical_python_values(col, node):
                assert bloom.might_contain(v, node.physical_type, node.element.type_length)
    misses = sum(f.might_contain("str_high", 0, f"absent-{i}") for i in range(2000))
    assert misses < 100         # fpp 0.01


def _physical_python_values(col, node):
    from pqkit.schema.from_table import parquet_schema
    from pqkit.write.shred import physical_values
    spec = parquet_schema([pqkit.datatypes.field(node.name, col.type)])[1][0]
    dense = col.take(np.flatnonzero(col.valid_mask()))
    vals = physical_values(dense, spec, "")
    if node.physical_type == Type.BYTE_ARRAY:
        offsets, blob = vals
        return [bytes(blob[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)]
    if vals.ndim == 2:
        return [bytes(r) for r in vals]
    return vals.tolist()


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["readable"] and e["has_bloom_filter"]))
def test_bloom_filters_written_by_others_find_their_values(entry):
    path = path_of(entry)
    with pqkit.ParquetFile(path) as f:
        checked = 0
        for g in range(f.num_row_groups):
            part = f.read_row_group(g)
            for node in f.schema.columns:
                if len(node.path) != 1 or f.bloom_filter(node.dotted_path, g) is None:
                    continue
                bloom = f.bloom_filter(node.dotted_path, g)
                for v in _physical_python_values(part.column(node.name), node):
                    assert bloom.might_contain(v, node.physical_type, node.element.type_length)
                    checked += 1
        assert checked


def test_footer_fields():
    data = _ours(SOURCE.select(["iint64", "str_low"]), row_group_size=100,
                 key_value_metadata={"origin": "test"}, sorting_columns=[("iint64", "descending")])
    md = pq.read_metadata(io.BytesIO(data))
    assert md.created_by.startswith("pqkit version ")
    assert md.metadata[b"origin"] == b"test"
    assert b"ARROW:schema" in md.metadata
    assert md.num_row_groups == 3
    ours = pqkit.read_metadata(data)
    for i in range(3):
        rg = ours.row_group(i).thrift
        assert rg.ordinal == i
        assert rg.sorting_columns[0].column_idx == 0 and rg.sorting_columns[0].descending
        first = rg.columns[0].meta_data
        assert rg.file_offset == (first.dictionary_page_offset or first.data_page_offset)
        for chunk in rg.columns:
            m = chunk.meta_data
            assert chunk.file_offset == (m.dictionary_page_offset or m.data_page_offset)
    assert [c.TYPE_ORDER is not None for c in ours.raw.column_orders] == [True, True]


def test_streaming_writer_bounds_row_groups():
    buf = io.BytesIO()
    with pqkit.ParquetWriter(buf, SOURCE.schema, row_group_size=128) as w:
        for start in range(0, SOURCE.num_rows, 50):
            w.write(SOURCE.slice(start, start + 50))
    md = pq.read_metadata(io.BytesIO(buf.getvalue()))
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [128, 128, 44]
    _check_both_readers(buf.getvalue())


def test_empty_table():
    data = _ours(SOURCE.slice(0, 0))
    assert pq.read_table(io.BytesIO(data)).num_rows == 0
    assert pqkit.read_table(data).num_rows == 0


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(),
       compression=st.sampled_from(["none", "snappy", "zstd", "gzip", "lz4_raw"]),
       version=st.sampled_from(["1.0", "2.0"]),
       dictionary=st.booleans(),
       page_size=st.sampled_from([32, 256, 1 << 20]),
       row_group_size=st.integers(1, 50))
def test_random_tables_round_trip_through_pyarrow(table, compression, version, dictionary,
                                                 page_size, row_group_size):
    source = pqkit.read_table(_write(table))
    data = _ours(source, compression=compression, data_page_version=version,
                 use_dictionary=dictionary, data_page_size=page_size,
                 row_group_size=row_group_size)
    _check_both_readers(data, table.to_pydict())



FLAT = [n for n in TABLE.column_names if n not in ("list", "list_nulls", "large_list", "fsl",
                                                  "struct", "map", "deep", "dict")]


def _stats(data):
    md = pq.read_metadata(io.BytesIO(data))
    out = {}
    for i in range(md.num_columns):
        col = md.row_group(0).column(i)
        st = col.statistics
        out[col.path_in_schema] = None if st is None else (
            st.has_min_max, st.min if st.has_min_max else None,
            st.max if st.has_min_max else None, st.null_count)
    return out


def _same_stat(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and np.signbit(a) == np.signbit(b))
    return a == b


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_statistics_equal_what_pyarrow_computes(version):
    table = TABLE.select(FLAT)
    theirs = _stats(_write(table, data_page_version=version))
    ours = _stats(_ours(SOURCE.select(FLAT), data_page_version=version, row_group_size=10**6))
    assert set(ours) == set(theirs)
    for name in theirs:
        assert all(_same_stat(a, b) for a, b in zip(ours[name], theirs[name])), \
            (name, ours[name], theirs[name])


@pytest.mark.parametrize("values,expected", [
    ([float("nan"), float("nan")], (False, None, None)),
    ([0.0, 0.0, None], (True, -0.0, 0.0)),
    ([-0.0, 1.5], (True, -0.0, 1.5)),
    ([-2.0, -0.0, float("nan")], (True, -2.0, 0.0)),
])
def test_float_statistics_rules(values, expected):
    data = _ours(pqkit.read_table(_write(pa.table({"x": pa.array(values, pa.float64())}))))
    st = pq.read_metadata(io.BytesIO(data)).row_group(0).column(0).statistics
    got = (st.has_min_max, st.min if st.has_min_max else None,
           st.max if st.has_min_max else None)
    assert all(_same_stat(a, b) for a, b in zip(got, expected)), got


def test_long_binary_bounds_are_truncated_and_flagged():
    long_max = "z" * 100 + "a"
    source = pqkit.read_table(_write(pa.table({"s": ["a" * 80, long_max, "b"]})))
    data = _ours(source, statistics_truncate_length=16)
    md = pqkit.read_metadata(data)
    st = md.row_group(0).thrift.columns[0].meta_data.statistics
    assert st.min_value == b"a" * 16 and st.is_min_value_exact is False
    assert st.max_value == b"z" * 15 + b"{" and st.is_max_value_exact is False
    f = pqkit.ParquetFile(data)
    assert pqkit.read_table(data).to_pydict()["s"] == ["a" * 80, long_max, "b"]
    assert f.metadata.num_rows == 3


def test_python_and_pandas_data():
    import datetime as dt

    import pandas as pd
    data = {"id": [1, None, 3], "name": ["a", None, "é"], "tags": [["x"], [], None],
            "when": [dt.datetime(2020, 1, 1), None, dt.datetime(1999, 12, 31, 23, 59)],
            "point": [{"x": 1.5, "y": None}, None, {"x": None, "y": 2.0}]}
    buf = io.BytesIO()
    pqkit.write_table(data, buf)
    same_values(pq.read_table(io.BytesIO(buf.getvalue())).to_pydict(),
                pa.table(data).to_pydict())
    df = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": ["u", "v"],
                       "c": pd.Categorical(["p", None])})
    buf = io.BytesIO()
    pqkit.write_table(df, buf)
    theirs = pq.read_table(io.BytesIO(buf.getvalue()))
    same_values(theirs.to_pydict(), pa.Table.from_pandas(df, preserve_index=False).to_pydict())
    assert str(theirs.schema.field("c").type).startswith("dictionary")


def test_duckdb_finds_every_value_in_our_bloom_filters(tmp_path):
    import duckdb
    path = str(tmp_path / "bloom.parquet")
    values = [f"value-{i}" for i in range(600)]
    pqkit.write_table({"s": values, "x": list(range(600))}, path,
                      bloom_filter_columns=["s", "x"], row_group_size=200)
    con = duckdb.connect()

    def excluded(column, value):
        rows = con.execute("select row_group_id, bloom_filter_excludes "
                           "from parquet_bloom_probe(?, ?, ?)", [path, column, value]).fetchall()
        return dict(rows)

    for i in range(0, 600, 7):
        assert excluded("s", values[i])[i // 200] is False
        assert excluded("x", i)[i // 200] is False
    assert all(excluded("s", "absent")[g] for g in range(3))


def test_size_statistics_equal_pyarrows():
    data = {"s": ["a", None, "ccc", ""] * 50, "l": [[1, None], None, [], [4]] * 50,
            "m": [{"k": "v"}, None, {}, {"x": "yy"}] * 50, "i": list(range(200))}
    table = pa.table(data, schema=pa.schema([("s", pa.string()), ("l", pa.list_(pa.int64())),
                                             ("m", pa.map_(pa.string(), pa.string())),
                                             ("i", pa.int64())]))
    theirs = pqkit.read_metadata(_write(table, write_page_index=True, data_page_size=64))
    ours_data = _ours(pqkit.read_table(_write(table)), data_page_size=64)
    ours = pqkit.read_metadata(ours_data)

    def norm(ss):
        return (ss.unencoded_byte_array_data_bytes, ss.repetition_level_histogram or None,
                ss.definition_level_histogram or None)
    for a, b in zip(ours.row_group(0).thrift.columns, theirs.row_group(0).thrift.columns):
        assert norm(a.meta_data.size_statistics) == norm(b.meta_data.size_statistics), \
            a.meta_data.path_in_schema
    from pqkit import format as fmt
    chunk = ours.row_group(0).thrift.columns[1]       # l.list.element: both histograms per page
    raw = ours_data[chunk.column_index_offset:chunk.column_index_offset +
                    chunk.column_index_length]
    ci, _ = fmt.decode(fmt.ColumnIndex, raw, 0, len(raw), chunk.column_index_offset)
    pages = len(ci.null_pages)
    assert len(ci.definition_level_histograms) == pages * 4
    assert len(ci.repetition_level_histograms) == pages * 2
    assert sum(ci.definition_level_histograms) == chunk.meta_data.num_values
