"""Definition levels -> validity and placed values in one pass, against the unfused path.

Kernel level: :func:`pqkit._native.place.place_values` (values from a separate
buffer, or in place from the tail of the rows) and ``count_present`` must give
what the unfused steps give -- the levels decoded by ``decode_hybrid``, their
mask, and the dense values scattered by :func:`pqkit.levels.expand_values` --
for RLE and bit-packed runs (runs longer than the entries wanted included), and
-1 for corrupt levels or too few values.

Chunk level: a flat numeric, FIXED_LEN_BYTE_ARRAY or dictionary-encoded string
column read through :mod:`pqkit.read.decode.placed` (``RowGroupReader.decode_leaf``, the
default) must equal the general path's read of the same file, for random null
patterns, pages of a few rows (page boundaries anywhere), PLAIN and dictionary
pages, v1 and v2 pages and each codec.
"""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.reference import rle_ref as ref

import pqkit
from pqkit.read.batches import concat_row_groups
from pqkit import datatypes as T
from pqkit._native.place import count_present, place_values
from pqkit.encodings.rle import decode_hybrid
from pqkit.format import Encoding, PageType
from pqkit.levels import expand_values

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = [np.int32, np.int64, np.float32, np.float64]


@st.composite
def levels_pages(draw):
    """(hybrid-encoded 0/1 levels, entries wanted): RLE and bit-packed runs at width 1."""
    body, total = b"", 0
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            n = draw(st.integers(1, 300))
            body += ref.rle_run(draw(st.integers(0, 1)), n, 1)
        else:
            values = draw(st.lists(st.integers(0, 1), min_size=1, max_size=300))
            n = len(values)
            body += ref.packed_run(values, 1)
        total += n
    return body, draw(st.integers(0, total))


def unfused(levels, count, dense):
    """(rows, validity) the unfused way: decode, mask, scatter."""
    decoded = np.empty(count, np.int16)
    decode_hybrid(levels, 0, len(levels), 1, count, decoded, 0)
    mask = decoded == 1
    return expand_values(dense[:int(mask.sum())], mask), mask


@FAST
@given(page=levels_pages(), dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_place_equals_unfused(page, dtype, seed):
    levels, count = page
    rng = np.random.default_rng(seed)
    want_rows, want_valid = unfused(levels, count, rng.integers(1, 100, count).astype(dtype))
    present = int(want_valid.sum())
    dense = np.asarray(want_rows[want_valid], dtype)
    width = np.dtype(dtype).itemsize
    assert count_present(levels, 0, len(levels), 1, count) == present
    # From a separate buffer, into rows 3.. of a larger output.
    out = np.full(count + 5, -1, dtype)
    valid = np.full(count + 5, 7, np.uint8)
    got = place_values(levels, 0, len(levels), 1, count, out.view(np.uint8), 3 * width, width,
                       dense.view(np.uint8), 0, present * width, valid, 3)
    assert got == present
    np.testing.assert_array_equal(out[3:3 + count], want_rows)
    assert valid[3:3 + count].tolist() == want_valid.astype(np.uint8).tolist()
    assert out[:3].tolist() == [-1] * 3 and out[3 + count:].tolist() == [-1, -1]
    # In place: the dense values stored at the tail of the page's rows.
    rows = np.full(count, -1, dtype)
    rows[count - present:] = dense
    valid = np.empty(count, np.uint8)
    got = place_values(levels, 0, len(levels), 1, count, rows.view(np.uint8), 0, width,
                       None, (count - present) * width, present * width, valid, 0)
    assert got == present
    np.testing.assert_array_equal(rows, want_rows)
    assert valid.astype(bool).tolist() == want_valid.tolist()


@FAST
@given(page=levels_pages())
def test_too_few_values_is_a_fault(page):
    levels, count = page
    present = count_present(levels, 0, len(levels), 1, count)
    if present == 0:
        return
    out = np.zeros(count, np.int64)
    valid = np.zeros(count, np.uint8)
    short = np.zeros(present - 1, np.int64).view(np.uint8)
    assert place_values(levels, 0, len(levels), 1, count, out.view(np.uint8), 0, 8, short, 0,
                        len(short), valid, 0) == -1


def test_docstring_example():
    levels = bytes.fromhex("02010305")
    out = np.zeros(5, np.int64)
    valid = np.zeros(5, np.uint8)
    src = np.array([7, 8, 9], np.int64).view(np.uint8)
    assert count_present(levels, 0, 4, 1, 5) == 3
    assert place_values(levels, 0, 4, 1, 5, out.view(np.uint8), 0, 8, src, 0, 24, valid, 0) == 3
    assert out.tolist() == [7, 8, 0, 9, 0]
    assert valid.tolist() == [1, 1, 0, 1, 0]


@pytest.mark.parametrize("levels, why", [
    (bytes.fromhex("0402"), "an RLE level above max_def 1"),
    (bytes.fromhex("0a"), "an RLE run without its value byte"),
    (bytes.fromhex("03"), "a bit-packed group without its byte"),
    (bytes.fromhex("020103"), "a run of 1, then a bit-packed group without its byte"),
    (bytes.fromhex("00"), "an empty run"),
    (b"", "no levels for 4 entries"),
])
def test_corrupt_levels_are_faults(levels, why):
    out = np.zeros(4, np.int64)
    valid = np.zeros(4, np.uint8)
    src = np.zeros(4, np.int64).view(np.uint8)
    assert count_present(levels, 0, len(levels), 1, 4) == -1, why
    assert place_values(levels, 0, len(levels), 1, 4, out.view(np.uint8), 0, 8, src, 0, 32,
                        valid, 0) == -1, why


def test_in_place_values_before_their_rows_are_refused():
    levels = ref.rle_run(1, 4, 1)
    rows = np.arange(8, dtype=np.int64)
    valid = np.zeros(4, np.uint8)
    # Four values starting one row before the page's first row: refused, nothing moved.
    assert place_values(levels, 0, len(levels), 1, 4, rows.view(np.uint8), 16, 8, None, 8,
                        32, valid, 0) == -1
    assert rows.tolist() == list(range(8))


# --- whole chunks: placed read == general read -------------------------------------------
TYPES = {np.int32: T.int32(), np.int64: T.int64(), np.float32: T.float32(),
         np.float64: T.float64()}


def _all_dictionary(chunk):
    stats = chunk.thrift.meta_data.encoding_stats
    assert stats, "the writer records encoding_stats"
    return all(s.encoding in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)
               for s in stats if s.page_type != PageType.DICTIONARY_PAGE)


def read_both(buf, dictionary_only=False):
    fused = pqkit.ParquetFile(io.BytesIO(buf))
    # The placed path is taken for every chunk (a fallback would compare the general
    # path with itself); with dictionary_only, for every chunk of dictionary pages only.
    node = fused.schema.columns[0]
    for g in range(fused.metadata.num_row_groups):
        group = fused.metadata.row_group(g)
        if group.num_rows:
            placed = fused.row_group_reader.read_placed(g, node)
            if dictionary_only:
                assert (placed is not None) == _all_dictionary(group.column(0))
            else:
                assert placed is not None
    return fused.read(use_threads=False), general_read(pqkit.ParquetFile(io.BytesIO(buf)))


def general_read(f):
    """The file decoded by the general path only (levels, values, assembly): the
    reference the placed path must equal."""
    reader = f.row_group_reader
    tops = reader.schema.root.children
    tables = [reader.group_table(g, tops, {
        node.path: reader.leaf(node, reader.read_chunk(g, node), f"row group {g}")
        for node in reader.schema.columns}) for g in range(f.num_row_groups)]
    return concat_row_groups(tables) if tables else f.read().slice(0, 0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dtype=st.sampled_from(DTYPES), n=st.integers(0, 400),
       null_rate=st.sampled_from([0.0, 0.05, 0.5, 0.95, 1.0]),
       distinct=st.sampled_from([3, 1000]), page_size=st.sampled_from([64, 512, 1 << 20]),
       dictionary=st.booleans(), version=st.sampled_from(["1.0", "2.0"]),
       codec=st.sampled_from([None, "snappy", "zstd", "gzip"]), nullable=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_placed_chunk_equals_general_path(dtype, n, null_rate, distinct, page_size, dictionary,
                                          version, codec, nullable, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(-distinct, distinct, n).astype(dtype)
    nulls = rng.random(n) < null_rate if nullable else np.zeros(n, bool)
    column = [None if z else v.item() for v, z in zip(values, nulls)]
    schema = [T.Field("c", TYPES[dtype], nullable=nullable)]
    sink = io.BytesIO()
    pqkit.write_table({"c": column}, sink, schema=schema, compression=codec,
                      use_dictionary=dictionary, data_page_size=page_size,
                      data_page_version=version, row_group_size=max(n // 2, 1))
    fused, general = read_both(sink.getvalue())
    assert fused.to_pydict() == general.to_pydict() == {"c": column}
    a, b = fused.column(0), general.column(0)
    assert a.values.dtype == b.values.dtype == np.dtype(dtype)
    assert a.null_count == b.null_count == int(nulls.sum())
    present = ~nulls
    np.testing.assert_array_equal(a.values[present], b.values[present])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["decimal9", "decimal18", "decimal38", "fixed3", "string"]),
       n=st.integers(1, 400), null_rate=st.sampled_from([0.0, 0.05, 0.5, 0.95, 1.0]),
       distinct=st.sampled_from([3, 300]), page_size=st.sampled_from([64, 512, 1 << 20]),
       dictionary=st.booleans(), version=st.sampled_from(["1.0", "2.0"]),
       codec=st.sampled_from([None, "snappy", "zstd"]), nullable=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_placed_fixed_bytes_and_dictionary_strings(kind, n, null_rate, distinct, page_size,
                                                    dictionary, version, codec, nullable, seed):
    """FIXED_LEN_BYTE_ARRAY rows (decimals of 4, 8 and 16 bytes, fixed_size_binary) and
    dictionary-encoded strings (int32 indices in the rows) equal the general path."""
    import decimal
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, distinct, n)
    if kind.startswith("decimal"):
        precision = int(kind[7:])
        type_ = T.decimal(precision, 2)
        scale = 10 ** min(precision, 30)
        pool = [decimal.Decimal(int(rng.integers(-2**62, 2**62)) * scale // 2**62).scaleb(-2)
                for _ in range(distinct)]
    elif kind == "fixed3":
        type_ = T.fixed_size_binary(3)
        pool = [bytes(rng.integers(0, 256, 3, dtype=np.uint8)) for _ in range(distinct)]
    else:
        type_ = T.string()
        pool = ["s" * int(rng.integers(0, 20)) + str(i) for i in range(distinct)]
        dictionary = True
    nulls = rng.random(n) < null_rate if nullable else np.zeros(n, bool)
    column = [None if z else pool[k] for k, z in zip(keys, nulls)]
    sink = io.BytesIO()
    pqkit.write_table({"c": column}, sink, schema=[T.Field("c", type_, nullable=nullable)],
                      compression=codec, use_dictionary=dictionary, data_page_size=page_size,
                      data_page_version=version, row_group_size=max(n // 2, 1))
    fused, general = read_both(sink.getvalue(), dictionary_only=kind == "string")
    assert fused.to_pydict() == general.to_pydict() == {"c": column}
    assert fused.column(0).type == general.column(0).type
    assert fused.column(0).null_count == general.column(0).null_count == int(nulls.sum())


def test_plain_strings_take_the_general_path():
    """A PLAIN page of strings has no fixed-width rows: the chunk falls back, whole."""
    sink = io.BytesIO()
    pqkit.write_table({"c": ["a", None, "bc"] * 10}, sink, use_dictionary=False)
    f = pqkit.ParquetFile(io.BytesIO(sink.getvalue()))
    assert f.row_group_reader.read_placed(0, f.schema.columns[0]) is None
    assert f.read().to_pydict() == {"c": ["a", None, "bc"] * 10}


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("nullable", [False, True])
def test_uncompressed_plain_pages_are_checked_while_placed(version, nullable, monkeypatch):
    """An uncompressed PLAIN page is copied into its rows with its CRC computed in the
    same pass: a flipped value byte in any page is a ChecksumError naming that page,
    and no page's CRC is computed twice on a clean read."""
    import pqkit.page
    from pqkit.errors import ChecksumError
    values = list(range(3000))
    column = [None if nullable and v % 7 == 0 else v for v in values]
    sink = io.BytesIO()
    pqkit.write_table({"c": column}, sink,
                      schema=[T.Field("c", T.int64(), nullable=nullable)],
                      compression=None, use_dictionary=False, data_page_size=4096,
                      data_page_version=version)
    buf = sink.getvalue()
    calls = []
    real = pqkit.page.crc32_signed
    monkeypatch.setattr(pqkit.page, "crc32_signed", lambda d: calls.append(1) or real(d))
    f = pqkit.ParquetFile(io.BytesIO(buf))
    assert f.row_group_reader.read_placed(0, f.schema.columns[0]) is not None
    assert f.read().to_pydict() == {"c": column}
    assert calls == []                           # every page checked by the copying pass
    from pqkit.page import walk_pages
    md = f.metadata.row_group(0).column(0).thrift.meta_data
    start = md.data_page_offset
    data_pages, _, err = walk_pages(memoryview(buf)[start:start + md.total_compressed_size],
                                    start, md.num_values, "c")
    assert err is None and len(data_pages) > 3
    for page in (data_pages[0], data_pages[len(data_pages) // 2], data_pages[-1]):
        bad = bytearray(buf)
        bad[page.payload_offset + len(page.payload) - 3] ^= 0x10
        with pytest.raises(ChecksumError, match=f"page at offset {page.offset} "):
            pqkit.read_table(io.BytesIO(bytes(bad)))
