"""The column writer's fast paths: constant levels, levels counted while encoded, page
bounds without a per-entry value count, the shredder's no-null path, and files written
through them read back by pyarrow with every page CRC checked."""
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
from arrow_bridge import from_arrow
from pqkit._native.hybrid_encode import encode_levels_counted
from pqkit.columnar.table import Table
from pqkit.encodings.rle import encode_levels
from pqkit.levels import shred
from pqkit.page import PageWalker
from pqkit.write import chunk as cw
from pqkit.write.file import ParquetWriter
from pqkit.write.shred import leaf_columns, shred_leaf


@pytest.mark.parametrize("level", [1, 2, 3, 7, 8, 255, 256, 32767])
@pytest.mark.parametrize("count", [0, 1, 8, 63, 64, 127, 128, 20_000, 2**21 + 3])
def test_constant_levels_equal_the_hybrid_encoder(level, count):
    for prefixed in (True, False):
        assert cw.constant_levels(count, level, prefixed) == \
            encode_levels(np.full(count, level, np.int16), level, prefixed=prefixed)


@settings(max_examples=200, deadline=None)
@given(max_level=st.integers(1, 40), data=st.data())
def test_counted_levels_equal_encoder_and_bincount(max_level, data):
    levels = np.array(data.draw(st.lists(st.integers(0, max_level), max_size=300)), np.int16)
    if data.draw(st.booleans()):
        levels = np.repeat(levels, data.draw(st.integers(1, 12)))
    for prefixed in (True, False):
        encoded, counts = encode_levels_counted(levels, max_level, prefixed)
        assert encoded == encode_levels(levels, max_level, prefixed=prefixed)
        assert counts.tolist() == np.bincount(levels, minlength=max_level + 1).tolist()


def test_counted_levels_reject_levels_out_of_range():
    with pytest.raises(ValueError, match="level 3 at entry 1"):
        encode_levels_counted(np.array([0, 3], np.int16), 2, True)
    with pytest.raises(ValueError, match="level -1 at entry 0"):
        encode_levels_counted(np.array([-1], np.int16), 2, False)



@pytest.mark.parametrize("max_level", [1, 7, 8, 40])   # counted by passes up to 7, else per entry
def test_counted_levels_name_the_first_level_out_of_range(max_level):
    levels = np.full(100, max_level, np.int16)
    levels[[37, 60]] = max_level + 1
    with pytest.raises(ValueError, match=f"level {max_level + 1} at entry 37 "):
        encode_levels_counted(levels, max_level, True)
    levels[12] = -2
    with pytest.raises(ValueError, match="level -2 at entry 12 "):
        encode_levels_counted(levels, max_level, False)


def test_a_string_leaf_under_null_parents_keeps_the_values_of_valid_slots_only():
    # Struct nulls hide child strings that are set: the leaf's values drop them (the
    # run-by-run copy), the child's own nulls add no value, the rest keep their order.
    child = pa.array(["a", "bb", None, "ccc", "dd", "e", ""] * 50)
    mask = pa.array([False, True, False, False, True, False, False] * 50)
    arr = pa.StructArray.from_arrays([child], ["s"], mask=mask)
    leaf, _ = _leaf_and_writer(arr)
    offsets, data = leaf.values
    got = [data[a:b].tobytes() for a, b in zip(offsets[:-1], offsets[1:])]
    assert got == [b"a", b"ccc", b"e", b""] * 50
    assert leaf.num_values == 200 and offsets[0] == 0

# --- page bounds ------------------------------------------------------------------------------
def _leaf_and_writer(arr, **options):
    table = Table({"c": from_arrow(arr)})
    w = ParquetWriter(io.BytesIO(), table.schema, **options)
    (layouts, col), = leaf_columns(table.column(0), table.schema[0])
    leaf = shred_leaf(layouts, col, w.specs[0], "c")
    return leaf, cw.ColumnChunkWriter(w.schema.columns[0], w.options[0])


def _reference_bounds(writer, leaf):
    """The page bounds as computed with a full per-entry value count, and that count."""
    n = leaf.num_entries
    vcum = np.zeros(n + 1, np.int64)
    if n == 0:
        return [(0, 0)], vcum
    if leaf.def_levels is None:
        vcum[1:] = np.arange(1, n + 1)
    else:
        np.cumsum(np.asarray(leaf.def_levels) == writer.max_def, out=vcum[1:])
    starts = np.flatnonzero(leaf.rep_levels == 0) if leaf.rep_levels is not None else None
    per_page = max(1, int(writer.opt.data_page_size //
                          max(writer._value_size(leaf.values, int(vcum[-1])), 1e-9)))
    bounds, e0 = [], 0
    while e0 < n:
        e1 = max(int(np.searchsorted(vcum, vcum[e0] + per_page, side="left")), e0 + 1)
        if starts is None:
            e1 = min(e1, e0 + cw.MAX_ROWS_PER_PAGE, n)
        else:
            k0 = int(np.searchsorted(starts, e0, side="right"))
            k1 = int(np.searchsorted(starts, e1, side="left"))
            k1 = min(max(k1, k0), k0 + cw.MAX_ROWS_PER_PAGE - 1)
            e1 = int(starts[k1]) if k1 < len(starts) else n
        bounds.append((e0, e1))
        e0 = e1
    return bounds, vcum


def _page_case(n, null_rate, nested, page_size, seed):
    """(leaf, column writer) of n random int64s, some null, maybe in lists."""
    rng = np.random.default_rng(seed)
    values = pa.array(rng.integers(0, 100, n), mask=rng.random(n) < null_rate)
    if nested:
        offsets = np.concatenate([[0], np.sort(rng.integers(0, n + 1, n // 3)), [n]])
        values = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)
    return _leaf_and_writer(values, data_page_size=page_size)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 3000), null_rate=st.sampled_from([0, 0.1, 0.9, 1]),
       nested=st.booleans(), page_size=st.sampled_from([8, 100, 1000, 1 << 20]),
       seed=st.integers(0, 2**16))
def test_page_bounds_equal_full_count_reference(n, null_rate, nested, page_size, seed):
    leaf, writer = _page_case(n, null_rate, nested, page_size, seed)
    expected, vcum = _reference_bounds(writer, leaf)
    assert writer._page_bounds(leaf, leaf.values) == \
        [(e0, e1, int(vcum[e0]), int(vcum[e1])) for e0, e1 in expected]


@pytest.mark.parametrize("null_rate", [0, 0.2])
@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("page_size", [1000, 200_000, 1 << 20])
def test_page_bounds_past_the_row_limit(null_rate, nested, page_size):
    test_page_bounds_equal_full_count_reference.hypothesis.inner_test(
        n=45_000, null_rate=null_rate, nested=nested, page_size=page_size, seed=1)


def test_no_null_leaf_has_constant_levels_equal_to_shred():
    arr = pa.array([{"a": 1, "b": 2.5}, {"a": 2, "b": 3.5}],
                   pa.struct([("a", pa.int64()), ("b", pa.float64())]))
    table = Table({"s": from_arrow(arr)})
    for layouts, col in leaf_columns(table.column(0), table.schema[0]):
        leaf = shred_leaf(layouts, col, ParquetWriter(io.BytesIO(), table.schema).specs[0], "")
        full = shred(layouts)
        assert np.array_equal(leaf.def_levels, full.def_levels)
        assert leaf.rep_levels is None and leaf.num_values == full.num_values == 2


# --- written files --------------------------------------------------------------------------
def _table():
    rng = np.random.default_rng(5)
    n = 50_000
    lengths = rng.integers(0, 4, n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return pa.table({
        "no_nulls": pa.array(rng.integers(-9, 9, n)),
        "nulls": pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.3),
        "all_null": pa.nulls(n, pa.int32()),
        "text": pa.array([f"t{i % 300}" for i in range(n)]),
        "lists": pa.ListArray.from_arrays(pa.array(offsets),
                                          pa.array(rng.integers(0, 5, int(offsets[-1])))),
        "struct": pa.StructArray.from_arrays(
            [pa.array(rng.integers(0, 3, n)), pa.array(rng.random(n), mask=rng.random(n) < .5)],
            ["x", "y"]),
    })


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("compression", ["none", "snappy"])
@pytest.mark.parametrize("use_dictionary", [True, False])
def test_files_read_back_with_page_crcs(version, compression, use_dictionary):
    source = _table()
    ours = pqkit.read_table(pq_bytes(source))
    buf = io.BytesIO()
    pqkit.write_table(ours, buf, compression=compression, data_page_version=version,
                      use_dictionary=use_dictionary, data_page_size=64 << 10)
    data = buf.getvalue()
    assert pq.read_table(io.BytesIO(data)).equals(source)
    assert pqkit.read_table(data, verify_checksums=True).equals(ours)
    pages = 0
    for chunk in pqkit.ParquetFile(data).metadata.row_group(0).thrift.columns:
        md = chunk.meta_data
        start = md.dictionary_page_offset or md.data_page_offset
        body = data[start:start + md.total_compressed_size]
        for page in PageWalker(body, start, md.num_values, "test", verify_checksums=True):
            assert page.header.crc is not None
            pages += 1
    assert pages > 12


def test_no_null_optional_column_histogram_and_levels():
    table = pa.table({"c": pa.array(np.arange(45_000))})
    buf = io.BytesIO()
    pqkit.write_table(pqkit.read_table(pq_bytes(table)), buf, compression=None)
    f = pqkit.ParquetFile(buf.getvalue())
    chunk = f.metadata.row_group(0).thrift.columns[0].meta_data
    assert chunk.size_statistics.definition_level_histogram == [0, 45_000]
    assert f.read().column(0).to_pylist() == list(range(45_000))


def pq_bytes(table):
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


# --- when the dictionary is given up -----------------------------------------------------------
def _chunk_encodings(table, **options):
    buf = io.BytesIO()
    pqkit.write_table(pqkit.read_table(pq_bytes(table)), buf, **options)
    md = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata
    assert pq.read_table(io.BytesIO(buf.getvalue())).equals(table)
    return [md.row_group(0).column(i).encodings for i in range(md.num_columns)], md


def test_dictionary_dropped_when_the_first_page_does_not_shrink():
    rng = np.random.default_rng(9)
    n = 60_000
    table = pa.table({"ids": pa.array(rng.integers(0, 2**62, n)),
                      "text": pa.array([f"user-{i:09d}" for i in rng.permutation(n)]),
                      "few": pa.array(rng.integers(0, 30, n)),
                      "words": pa.array([f"w{i % 40}" for i in range(n)])})
    encodings, md = _chunk_encodings(table, compression=None)
    assert "RLE_DICTIONARY" not in encodings[0] and "RLE_DICTIONARY" not in encodings[1]
    assert "RLE_DICTIONARY" in encodings[2] and "RLE_DICTIONARY" in encodings[3]
    assert not md.row_group(0).column(0).has_dictionary_page


def test_small_first_pages_keep_the_dictionary_with_fallback():
    table = pa.table({"ids": pa.array(np.arange(3000) * 7919 % 100_003)})
    encodings, _ = _chunk_encodings(table, compression=None, dictionary_page_size_limit=4000,
                                    data_page_size=800)
    assert {"RLE_DICTIONARY", "PLAIN"} <= set(encodings[0])       # fell back mid-chunk


def test_no_dictionary_page_when_it_cannot_hold_the_first_page():
    table = pa.table({"ids": pa.array(np.arange(5000))})
    encodings, md = _chunk_encodings(table, compression=None, dictionary_page_size_limit=64,
                                     data_page_size=4000)
    assert "RLE_DICTIONARY" not in encodings[0]
    assert not md.row_group(0).column(0).has_dictionary_page


@pytest.mark.parametrize("codec", ["snappy", "zstd", "gzip"])
def test_v2_page_without_values_is_flagged_uncompressed(codec):
    """A v2 page of only nulls has no value bytes; it says is_compressed=false (as Arrow
    C++ writes it) so that no reader hands 0 bytes to the codec; pages with values
    stay compressed."""
    values = [None] * 30 + list(range(30))
    buf = io.BytesIO()
    pqkit.write_table({"c": values}, buf, compression=codec, data_page_version="2.0",
                      use_dictionary=False, row_group_size=30)
    data = buf.getvalue()
    flags = []
    for rg in pqkit.read_metadata(data).raw.row_groups:
        md = rg.columns[0].meta_data
        body = data[md.data_page_offset:md.data_page_offset + md.total_compressed_size]
        for p in PageWalker(body, md.data_page_offset, md.num_values, "c",
                            verify_checksums=True):
            h = p.header.data_page_header_v2
            flags.append((h.num_nulls, h.is_compressed, p.header.compressed_page_size))
    assert [f[:2] for f in flags] == [(30, False), (0, True)]
    assert flags[0][2] == 2          # the definition levels: one RLE run of 30 zeros
    assert pq.read_table(io.BytesIO(data)).column("c").to_pylist() == values
    assert pqkit.read_table(data).column("c").to_pylist() == values


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 3000), null_rate=st.sampled_from([0, 0.3]), nested=st.booleans(),
       page_size=st.sampled_from([8, 100, 1 << 20]), seed=st.integers(0, 2**16))
def test_page_rows_are_the_record_starts_of_each_page(n, null_rate, nested, page_size, seed):
    leaf, writer = _page_case(n, null_rate, nested, page_size, seed)
    bounds, rows = writer._page_layout(leaf, leaf.values)
    reps = leaf.rep_levels
    assert rows == [e1 - e0 if reps is None else int(np.count_nonzero(reps[e0:e1] == 0))
                    for e0, e1, _, _ in bounds]


def test_page_bounds_kernel_refuses_levels_of_the_wrong_length():
    from pqkit._native.page_bounds import page_bounds
    with pytest.raises(ValueError, match="3 repetition levels for 4 entries"):
        page_bounds(np.zeros(3, np.int16), None, 4, 1, 10, 10)
    with pytest.raises(ValueError, match="invalid page bounds"):
        page_bounds(None, None, 4, 1, 0, 10)
    assert page_bounds(np.array([0, 1, 0, 0, 1], np.int16), None, 5, 0, 2, 100).tolist() == \
        [[0, 2, 0, 2, 1], [2, 5, 2, 5, 2]]
