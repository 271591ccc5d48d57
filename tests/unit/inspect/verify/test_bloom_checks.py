"""pqkit.inspect.verify: bloom filters (PQ-BLOOM-*) and SizeStatistics (PQ-SIZE-*).

Files written by pqkit, pyarrow and the corpus's writers verify clean with
--deep while every value is probed in its filter and every level and byte
counted; then one thing is broken -- a bitset zeroed in place, a filter built
from the wrong bytes, a header, a histogram count or a byte count re-encoded --
and the rule that names it fires at the place broken, and nothing else does.
"""
import decimal
import random
import re
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from verify_files import (
    N,
    assert_clean,
    chunk_meta,
    edit_index,
    findings,
    move_count,
    pages,
    patch,
    rewrite_footer,
    rules,
    size_statistics_edit,
)
from verify_files import write_base as _write_base

import pqkit
from pqkit import format as fmt
from pqkit._native.hashing import xxh64
from pqkit.bloom import SplitBlockBloomFilter, read_bloom_filter_header
from pqkit.format import PageType
from pqkit.inspect.verify import RULES, verify_file

X, S = 0, 2                               # columns of write_base: x int64, f double, s string
NON_NULL = 3 * N - N // 10
S_BYTES = 5 * (N - N // 10)               # "v0001" ...: 5 bytes each, every tenth null


def write_base(path, **options):
    return _write_base(path, bloom_filter_columns=["x", "f", "s"], **options)


@pytest.fixture
def base(tmp_path):
    return write_base(tmp_path / "base.parquet")


def bloom_of(path, column, row_group=0):
    """(offset, header size, numBytes) of a chunk's bloom filter."""
    cmd = pqkit.read_metadata(path).row_group(row_group).thrift.columns[column].meta_data
    header, size = read_bloom_filter_header(open(path, "rb").read(), cmd.bloom_filter_offset)
    return cmd.bloom_filter_offset, size, header.numBytes


def data_pages(path, column, row_group=0):
    return [p for p in pages(path, row_group, column) if p.type != PageType.DICTIONARY_PAGE]


def chunk_start(path, column, row_group=0):
    cmd = pqkit.read_metadata(path).row_group(row_group).thrift.columns[column].meta_data
    return min(o for o in (cmd.dictionary_page_offset, cmd.data_page_offset) if o)


def new_rules(report, prefixes=("PQ-BLOOM-", "PQ-SIZE-")):
    return {f.rule for f in report.findings if f.rule.startswith(prefixes)}


# -- clean files: every value probed, every count compared ---------------------------------
@pytest.mark.parametrize("options", [{}, {"data_page_version": "2.0"},
                                     {"use_dictionary": False, "compression": "zstd"}])
def test_pqkit_files_probe_every_value_clean(tmp_path, options):
    path = write_base(tmp_path / "ok.parquet", **options)
    ss = pqkit.read_metadata(path).row_group(0).thrift.columns[S].meta_data.size_statistics
    assert ss.unencoded_byte_array_data_bytes == S_BYTES
    assert ss.definition_level_histogram == [N // 10, N - N // 10]
    shallow = verify_file(path)
    assert_clean(shallow)
    assert shallow.counters["bloom_filters"] == 3 and shallow.counters["bloom_values_probed"] == 0
    report = verify_file(path, deep=True)
    assert_clean(report)
    assert report.counters["bloom_values_probed"] == report.counters["values_checked"] == NON_NULL


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_pyarrow_file_of_many_types_probes_clean(tmp_path, version):
    n = 3000
    table = pa.table({
        "i32": pa.array([None if i % 13 == 0 else i * 7 % 1000 for i in range(n)], pa.int32()),
        "i64": pa.array([i * 2654435761 for i in range(n)], pa.int64()),
        "u16": pa.array([i % 60000 for i in range(n)], pa.uint16()),
        "f32": pa.array([(i % 97) / 3 for i in range(n)], pa.float32()),
        "f64": [float("nan") if i % 50 == 0 else -0.0 if i % 7 == 0 else i / 9 for i in range(n)],
        "s": [None if i % 10 == 0 else f"v{i % 300:04d}" for i in range(n)],
        "b": pa.array([bytes([i % 256, i % 7]) * (i % 4) for i in range(n)], pa.binary()),
        "fx": pa.array([bytes([i % 256, 1, 2]) for i in range(n)], pa.binary(3)),
        "dec": pa.array([decimal.Decimal(i - 1500).scaleb(-2) for i in range(n)],
                        pa.decimal128(20, 2)),
        "d": pa.array(list(range(n)), pa.int32()).cast(pa.date32()),
        "ts": pa.array([i * 1000 for i in range(n)], pa.timestamp("us", tz="UTC")),
        "l": pa.array([None if i % 11 == 0 else [f"e{j}" for j in range(i % 4)]
                       for i in range(n)]),
        "st": pa.array([{"a": i, "b": None if i % 3 else str(i)} for i in range(n)]),
    })
    leaves = ["i32", "i64", "u16", "f32", "f64", "s", "b", "fx", "dec", "d", "ts",
              "l.list.element", "st.a", "st.b"]
    path = str(tmp_path / "types.parquet")
    pq.write_table(table, path, write_page_index=True, data_page_size=2000, row_group_size=1200,
                   data_page_version=version,
                   bloom_filter_options={c: {"ndv": 1200, "fpp": 0.05} for c in leaves})
    md = pqkit.read_metadata(path)
    listed = md.row_group(0).thrift.columns[11].meta_data.size_statistics
    assert listed.repetition_level_histogram and listed.unencoded_byte_array_data_bytes
    assert md.row_group(0).thrift.columns[0].meta_data.size_statistics.repetition_level_histogram == []
    report = verify_file(path, deep=True)
    assert_clean(report)
    assert report.counters["bloom_filters"] == 3 * len(leaves)
    assert report.counters["bloom_values_probed"] == report.counters["values_checked"] > 30000


# -- bloom filter contents (--deep) ---------------------------------------------------------
@pytest.mark.parametrize("use_dictionary", [True, False])
def test_zeroed_bitset_is_found_by_deep_only(tmp_path, use_dictionary):
    path = write_base(tmp_path / "b.parquet", use_dictionary=use_dictionary)
    offset, size, n = bloom_of(path, S)
    bad = patch(path, tmp_path / "zero.parquet", offset + size, bytes(n))
    assert_clean(verify_file(bad))                # header and placement are intact
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-BLOOM-007")
    first = data_pages(bad, S)[0]
    assert (f.column, f.row_group, f.offset, f.page_offset, f.severity) == \
        ("s", 0, offset, first.offset, "error")
    assert f"{N - N // 10} of the {N - N // 10} non-null values" in f.message
    assert "'v0001'" in f.message and f"bloom filter at offset {offset}" in f.message
    assert rules(report) == {"PQ-BLOOM-007"} and report.exit_code == 1


def _refill(path, dst, column, hashes):
    """The chunk's filter bitset rebuilt, same size, from ``hashes``."""
    offset, size, n = bloom_of(path, column)
    wrong = SplitBlockBloomFilter(num_bytes=n)
    wrong.insert_hashes(np.array(hashes, np.uint64))
    assert wrong.num_bytes == n
    return patch(path, dst, offset + size, wrong.bitset)


@pytest.mark.parametrize("column, name, wrong_bytes", [
    # byte arrays hashed with their PLAIN length prefix
    (S, "s", lambda v: len(v.encode()).to_bytes(4, "little") + v.encode()),
    # int64 hashed big-endian
    (X, "x", lambda v: int(v).to_bytes(8, "big", signed=True)),
])
def test_filter_built_from_the_wrong_representation(base, tmp_path, column, name, wrong_bytes):
    values = [v for v in pqkit.read_table(base).to_pydict()[name] if v is not None]
    bad = _refill(base, tmp_path / "wrong.parquet", column, [xxh64(wrong_bytes(v))
                                                             for v in values])
    assert_clean(verify_file(bad))
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-BLOOM-007")
    missing = int(re.search(rf"(\d+) of the {len(values)} non-null values", f.message).group(1))
    assert missing > 0.95 * len(values)           # the few left are false positives
    assert f.column == name and f.page_offset == data_pages(bad, column)[0].offset
    right = _refill(base, tmp_path / "right.parquet", column,
                    [xxh64(v.encode() if isinstance(v, str) else int(v).to_bytes(8, "little"))
                     for v in values])
    assert_clean(verify_file(right, deep=True))   # the same filter from the right bytes


# -- bloom filter placement and header --------------------------------------------------------
def _moved(src, dst, column, blob, with_length=True, offset=None):
    """src with the chunk's bloom filter pointing at ``blob``, stored before the footer."""
    def edit(raw, at):
        cmd = chunk_meta(raw, 0, column)
        cmd.bloom_filter_offset = at if offset is None else offset
        cmd.bloom_filter_length = len(blob) if with_length else None
    return rewrite_footer(src, dst, edit, blob)


def _header(path, column, **fields):
    offset, size, n = bloom_of(path, column)
    data = open(path, "rb").read()
    header, _ = read_bloom_filter_header(data, offset)
    for k, v in fields.items():
        setattr(header, k, v)
    return fmt.encode(header), data[offset + size:offset + size + n]


@pytest.mark.parametrize("case, rule, text", [
    ("numbytes", "PQ-BLOOM-004", "numBytes 1000, not a positive multiple of 32"),
    ("no_hash", "PQ-BLOOM-002", "lacks the required field hash"),
    ("empty_algorithm", "PQ-BLOOM-003", "algorithm of no member the format defines"),
    ("garbage", "PQ-BLOOM-002", "does not decode"),
    ("long_length", "PQ-BLOOM-005", "bloom_filter_length says"),
    ("bitset_past_data", "PQ-BLOOM-001", "past the data's end"),
    ("offset_past_footer", "PQ-BLOOM-001", "lies outside the data"),
])
def test_bloom_filter_headers_and_ranges(base, tmp_path, case, rule, text):
    header, bits = _header(base, S)
    with_length, offset = True, None
    if case == "numbytes":
        header, _ = _header(base, S, numBytes=1000)
        blob = header + bits[:1000]
    elif case == "no_hash":
        blob = _header(base, S, hash=None)[0] + bits
    elif case == "empty_algorithm":
        blob = _header(base, S, algorithm=fmt.BloomFilterAlgorithm())[0] + bits
    elif case == "garbage":
        blob = b"\xff" * 16 + bits
    elif case == "long_length":
        blob = header + bits + bytes(8)
    elif case == "bitset_past_data":
        blob = _header(base, S, numBytes=1 << 20)[0] + bits
        with_length = False                       # the header alone says where it ends
    else:
        blob, offset = b"", 10**9
    bad = _moved(base, tmp_path / "hdr.parquet", S, blob, with_length, offset)
    at = chunk_meta(pqkit.read_metadata(bad).raw, 0, S).bloom_filter_offset
    for deep in (False, True):
        report = verify_file(bad, deep=deep)
        (f,) = findings(report, rule)
        assert (f.column, f.row_group, f.offset, f.severity) == ("s", 0, at, "error")
        assert text in f.message and f"offset {at}" in f.message, f.message
        assert rules(report) == {rule} and report.exit_code == 1


def test_bloom_filters_sharing_bytes(base, tmp_path):
    def share(raw, _):
        s, x = chunk_meta(raw, 0, S), chunk_meta(raw, 0, X)
        x.bloom_filter_offset, x.bloom_filter_length = s.bloom_filter_offset, \
            s.bloom_filter_length

    bad = rewrite_footer(base, tmp_path / "shared.parquet", share)
    report = verify_file(bad)
    hits = {f.column: f for f in findings(report, "PQ-BLOOM-006")}
    assert set(hits) == {"x", "s"} and rules(report) == {"PQ-BLOOM-006"}
    assert "overlaps the bloom filter of column s, row group 0" in hits["x"].message
    deep = verify_file(bad, deep=True)
    assert [f.column for f in findings(deep, "PQ-BLOOM-007")] == ["x"]   # x's values miss


def test_bloom_filter_over_data_pages(base, tmp_path):
    page = data_pages(base, X)[1]

    def into_pages(raw, _):
        chunk_meta(raw, 0, S).bloom_filter_offset = page.offset

    report = verify_file(rewrite_footer(base, tmp_path / "over.parquet", into_pages))
    (f,) = findings(report, "PQ-BLOOM-006")
    assert f.column == "s" and f.offset == page.offset
    assert f"bloom filter at offset {page.offset}" in f.message
    assert "overlaps the pages of column x, row group 0" in f.message


def test_broken_filters_and_sizes_give_findings_never_exceptions(base, tmp_path):
    rng = random.Random(11)
    offset, size, _ = bloom_of(base, S)
    data = open(base, "rb").read()
    fields = [("bloom_filter_offset", None), ("bloom_filter_length", None),
              ("size_statistics", "unencoded_byte_array_data_bytes"),
              ("size_statistics", "definition_level_histogram")]
    for i in range(40):
        if i % 2:                          # a bit of the header or the bitset's start flipped
            pos = offset + rng.randrange(size + 8)
            bad = patch(base, tmp_path / f"m{i}.parquet", pos,
                        bytes([data[pos] ^ (1 << rng.randrange(8))]))
        else:
            def edit(raw, _):
                cmd = chunk_meta(raw, 0, rng.choice([X, S]))
                name, inner = rng.choice(fields)
                value = rng.choice([None, -1, 0, 3, 31, 2**31 - 1])
                if inner is None:
                    setattr(cmd, name, value)
                elif inner.endswith("histogram"):
                    setattr(cmd.size_statistics, inner,
                            None if value is None else [value] * rng.choice([0, 1, 2, 3]))
                else:
                    setattr(cmd.size_statistics, inner, value)
            bad = rewrite_footer(base, tmp_path / f"m{i}.parquet", edit)
        report = verify_file(bad, deep=True)
        assert report.exit_code in (0, 1, 2)
        for f in report.findings:
            assert f.rule in RULES and "offset" in f.message, f.message


# -- SizeStatistics: the chunk's -----------------------------------------------------------------
def test_chunk_byte_count_off_by_one(base, tmp_path):
    def more(ss):
        ss.unencoded_byte_array_data_bytes += 1

    bad = rewrite_footer(base, tmp_path / "bytes.parquet", size_statistics_edit(S, more))
    at = pqkit.read_metadata(bad).row_group(0).thrift.columns[S].offset_index_offset
    shallow = verify_file(bad)
    (f,) = findings(shallow, "PQ-SIZE-005")
    assert (f.column, f.row_group, f.offset) == ("s", 0, at)
    assert f"add up to {S_BYTES}, the chunk's SizeStatistics say {S_BYTES + 1}" in f.message
    assert rules(shallow, "warning") == {"PQ-SIZE-005"} and shallow.exit_code == 0
    deep = verify_file(bad, deep=True)
    (g,) = findings(deep, "PQ-SIZE-006")
    assert (g.column, g.row_group, g.offset, g.page_offset) == ("s", 0, chunk_start(bad, S), None)
    assert f"holds {S_BYTES} bytes" in g.message and f"says {S_BYTES + 1}" in g.message
    assert rules(deep, "warning") == {"PQ-SIZE-005", "PQ-SIZE-006"} and not rules(deep)


def test_chunk_histogram_that_adds_up_but_is_wrong(base, tmp_path):
    bad = rewrite_footer(base, tmp_path / "hist.parquet", size_statistics_edit(
        S, lambda ss: move_count(ss.definition_level_histogram, 1, 0)))
    at = pqkit.read_metadata(bad).row_group(0).thrift.columns[S].column_index_offset
    shallow = verify_file(bad)
    (f,) = findings(shallow, "PQ-SIZE-004")           # the pages add up to something else
    assert (f.column, f.offset, f.page_offset) == ("s", at, None)
    assert f"add up to [{N // 10}, {N - N // 10}]" in f.message
    assert rules(shallow, "warning") == {"PQ-SIZE-004"} and shallow.exit_code == 0
    deep = verify_file(bad, deep=True)
    (g,) = findings(deep, "PQ-SIZE-007")
    assert (g.column, g.offset) == ("s", chunk_start(bad, S))
    assert f"holds definition levels [{N // 10}, {N - N // 10}]" in g.message
    assert f"says [{N // 10 + 1}, {N - N // 10 - 1}]" in g.message


@pytest.mark.parametrize("column, change, rule, severity, text", [
    (S, lambda ss: ss.definition_level_histogram.__setitem__(0, N // 10 + 1), "PQ-SIZE-003",
     "warning", f"counts {N + 1} level entries, num_values is {N}"),
    (S, lambda ss: ss.definition_level_histogram.append(0), "PQ-SIZE-001", "error",
     "has 3 entries; a max level of 1 needs 2"),
    (S, lambda ss: ss.definition_level_histogram.__setitem__(0, -1), "PQ-SIZE-001", "error",
     "negative count (-1)"),
    (X, lambda ss: setattr(ss, "unencoded_byte_array_data_bytes", 8 * N), "PQ-SIZE-002",
     "warning", "for a INT64 column; only BYTE_ARRAY"),
])
def test_impossible_chunk_size_statistics(base, tmp_path, column, change, rule, severity, text):
    bad = rewrite_footer(base, tmp_path / "ss.parquet", size_statistics_edit(column, change))
    for deep in (False, True):
        report = verify_file(bad, deep=deep)
        (f,) = findings(report, rule)
        assert (f.column, f.row_group, f.severity) == (["x", "f", "s"][column], 0, severity)
        assert text in f.message and "footer at offset" in f.message, f.message
        assert new_rules(report) == {rule}           # reported once, never compared again


# -- SizeStatistics: the page index's ----------------------------------------------------------
def test_page_histograms_wrong_per_page_only(base, tmp_path):
    def swap(ci):                # entries 2 and 3: one null moved, totals unchanged
        move_count(ci.definition_level_histograms, 2 * 2 + 1, 2 * 2)
        move_count(ci.definition_level_histograms, 3 * 2, 3 * 2 + 1)

    bad = edit_index(base, tmp_path / "ci.parquet", S, "column_index", swap)
    assert_clean(verify_file(bad))
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-SIZE-007")
    page = data_pages(bad, S)[2]
    assert (f.column, f.offset, f.page_offset) == ("s", page.offset, page.offset)
    assert "entry 2" in f.message and "2 of the 6 pages disagree" in f.message
    assert rules(report, "warning") == {"PQ-SIZE-007"} and report.exit_code == 0


def test_page_histogram_that_miscounts_its_page(base, tmp_path):
    def extra(ci):
        ci.definition_level_histograms[1 * 2 + 1] += 1

    bad = edit_index(base, tmp_path / "ci.parquet", S, "column_index", extra)
    page = data_pages(bad, S)[1]
    report = verify_file(bad)
    hits = findings(report, "PQ-SIZE-004")
    assert sorted((f.page_offset or 0) for f in hits) == [0, page.offset]
    by_page = next(f for f in hits if f.page_offset)
    assert f"the page at offset {page.offset} holds" in by_page.message
    assert "1 of the 6 pages disagrees" in by_page.message


def test_page_byte_counts_wrong_per_page_only(base, tmp_path):
    def swap(oi):
        oi.unencoded_byte_array_data_bytes[1] += 3
        oi.unencoded_byte_array_data_bytes[2] -= 3

    bad = edit_index(base, tmp_path / "oi.parquet", S, "offset_index", swap)
    assert_clean(verify_file(bad))
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-SIZE-006")
    page = data_pages(bad, S)[1]
    sizes = pqkit.read.fetch.page_index.read_page_index(base, 0, S).offset_index \
        .unencoded_byte_array_data_bytes
    assert (f.column, f.page_offset) == ("s", page.offset)
    assert f"holds {sizes[1]} bytes of values" in f.message and f"says {sizes[1] + 3}" in \
        f.message and "2 of the 6 pages disagree" in f.message


def _lists(tmp_path, n=2000):
    path = str(tmp_path / "lists.parquet")
    data = {"l": [None if i % 11 == 0 else [f"e{j}" for j in range(i % 4)] for i in range(n)]}
    pqkit.write_table(data, path, bloom_filter_columns=["l"], data_page_size=1024,
                      compression="none")
    return path


def test_repetition_histograms_of_a_list_column(tmp_path):
    path = _lists(tmp_path)
    ss = pqkit.read_metadata(path).row_group(0).thrift.columns[0].meta_data.size_statistics
    assert ss.repetition_level_histogram[0] == 2000 and len(ss.definition_level_histogram) == 4
    report = verify_file(path, deep=True)
    assert_clean(report)
    assert report.counters["bloom_values_probed"] > 2000

    bad = rewrite_footer(path, tmp_path / "rows.parquet", size_statistics_edit(
        0, lambda ss: move_count(ss.repetition_level_histogram, 0, 1)))
    (f,) = findings(verify_file(bad, deep=True), "PQ-SIZE-003")
    assert f.column == "l.list.element" and "starts 1999 rows" in f.message

    def swap(ci):
        move_count(ci.repetition_level_histograms, 0, 1)
        move_count(ci.repetition_level_histograms, 3, 2)

    bad = edit_index(path, tmp_path / "ci.parquet", 0, "column_index", swap)
    assert_clean(verify_file(bad))
    (f,) = findings(verify_file(bad, deep=True), "PQ-SIZE-007")
    assert f.page_offset == data_pages(bad, 0)[0].offset
    assert "repetition level histogram" in f.message


@pytest.mark.parametrize("change, rule", [
    (lambda ss: move_count(ss.definition_level_histogram, 3, 2), "PQ-SIZE-007"),
    (lambda ss: setattr(ss, "unencoded_byte_array_data_bytes",
                        ss.unencoded_byte_array_data_bytes - 5), "PQ-SIZE-006"),
])
def test_pyarrow_size_statistics_broken(tmp_path, change, rule):
    path = str(tmp_path / "pa.parquet")
    table = pa.table({"k": pa.array(range(1000), pa.int32()),
                      "l": [None if i % 7 == 0 else [f"a{j}" for j in range(i % 3)]
                            for i in range(1000)]})
    pq.write_table(table, path, write_page_index=True, data_page_size=500)
    assert_clean(verify_file(path, deep=True))
    bad = rewrite_footer(path, tmp_path / "bad.parquet", size_statistics_edit(1, change))
    report = verify_file(bad, deep=True)
    (f,) = findings(report, rule)
    assert f.column == "l.list.element" and f.offset == chunk_start(bad, 1)


# -- the corpus's writers -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["data_index_bloom_encoding_stats.parquet",
                                  "data_index_bloom_encoding_with_length.parquet"])
def test_corpus_bloom_filters(corpus, tmp_path, name):
    """parquet-mr's and parquet-rs's filters hold every value; zeroed, they hold none."""
    path = str(corpus / "data" / name)
    report = verify_file(path, deep=True)
    assert not new_rules(report) and report.counters["bloom_filters"] == 1
    assert report.counters["bloom_values_probed"] == report.counters["values_checked"] > 0
    column = next(i for i, c in enumerate(pqkit.read_metadata(path).row_group(0).thrift.columns)
                  if c.meta_data.bloom_filter_offset)
    offset, size, n = bloom_of(path, column)
    bad = patch(path, tmp_path / name, offset + size, bytes(n))
    (f,) = findings(verify_file(bad, deep=True), "PQ-BLOOM-007")
    assert f.offset == offset and f.page_offset == data_pages(bad, column)[0].offset


@pytest.mark.parametrize("name, column, change, rule", [
    # parquet-mr 1.16
    ("shredded_variant/case-001.parquet", 4, "bytes", "PQ-SIZE-006"),
    # parquet-mr 1.14
    ("data/old_list_structure.parquet", 0, (2, 1), "PQ-SIZE-007"),
    # parquet-rs 55 and 53
    ("data/binary_truncated_min_max.parquet", 0, "bytes", "PQ-SIZE-006"),
    ("data/repeated_primitive_no_list.parquet", 0, (1, 0), "PQ-SIZE-007"),
    # datafusion 52
    ("data/geospatial/geography-lines.parquet", 1, "bytes", "PQ-SIZE-006"),
    # Arrow C++ 20
    ("data/geospatial/crs-default.parquet", 0, "bytes", "PQ-SIZE-006"),
])
def test_corpus_size_statistics(corpus, tmp_path, name, column, change, rule):
    """Other writers' SizeStatistics match the decoded chunks; one count off is found."""
    src = str(tmp_path / "copy.parquet")
    shutil.copyfile(corpus / name, src)
    assert not new_rules(verify_file(src, deep=True))

    def broken(ss):
        if change == "bytes":
            ss.unencoded_byte_array_data_bytes += 1
        else:
            move_count(ss.definition_level_histogram, *change)

    bad = rewrite_footer(src, tmp_path / "bad.parquet", size_statistics_edit(column, broken))
    report = verify_file(bad, deep=True)
    (f,) = findings(report, rule)
    assert (f.row_group, f.offset) == (0, chunk_start(bad, column))
    assert f.column == pqkit.read_metadata(bad).schema.columns[column].dotted_path
