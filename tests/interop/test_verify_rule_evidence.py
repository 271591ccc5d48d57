"""Issue 18: each verify error rule held against what readers do with a file that breaks it.

Every case damages one thing of a small pqkit file (footer field, page header, page index
entry), reads the result with pyarrow, DuckDB, polars and pqkit -- whole, and through a
filter that lets them skip row groups and pages by statistics and the page index -- and
compares the rows with those of the undamaged file (see reader_outcomes.py). A rule that
makes some reader fail or misread stays an error; a rule that every reader reads through
right is a warning. The outcomes asserted here are the evidence quoted in the rules'
entries in pqkit.inspect.verify.findings.
"""
import copy
import math
import struct
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from reader_outcomes import READERS, outcomes, read_rows
from verify_files import (
    N,
    dictionary_page,
    edit_index,
    edit_stats,
    hand_built,
    indices_page,
    pages,
    patch,
    plain_page,
    rewrite_footer,
    write_base,
)

import pqkit
from pqkit import format as fmt
from pqkit.format import BoundaryOrder
from pqkit.inspect.verify import RULES, verify_file

pytestmark = pytest.mark.interop
X, F, S = 0, 1, 2                         # write_base's columns: x int64, f double, s string


def _q(v):
    return struct.pack("<q", v)


def _d(v):
    return struct.pack("<d", v)


def _footer(change):
    def damage(src, dst):
        return rewrite_footer(src, dst, lambda raw, _: change(raw))
    return damage


def _meta(raw, column):
    return raw.row_groups[0].columns[column].meta_data


def _set(obj, **fields):
    for name, value in fields.items():
        setattr(obj, name, value)


def _stats(column, **fields):
    return lambda src, dst: rewrite_footer(src, dst, edit_stats(column, **fields))


def _header(column, index, change):
    """Re-encode one page header after ``change``; its size must stay the same."""
    def damage(src, dst):
        page = pages(src, 0, column)[index]
        change(page.header)
        raw = fmt.encode(page.header)
        assert len(raw) == page.header_size
        return patch(src, dst, page.offset, raw)
    return damage


def _index(column, kind, change):
    return lambda src, dst: edit_index(src, dst, column, kind, change)


def _grow(column, delta):
    return _footer(lambda raw: _set(_meta(raw, column), total_compressed_size=_meta(
        raw, column).total_compressed_size + delta))


def _rows(delta):
    def change(raw):
        raw.row_groups[0].num_rows += delta
        raw.num_rows += delta
    return _footer(change)


def _total_order(raw):
    raw.column_orders[X] = fmt.ColumnOrder(IEEE_754_TOTAL_ORDER=fmt.IEEE754TotalOrder())


def _swap_paths(raw):
    _meta(raw, X).path_in_schema, _meta(raw, F).path_in_schema = ["f"], ["x"]


def _flip_value_byte(src, dst):
    page = pages(src, 0, X)[0]                   # x's dictionary: value 100 at byte 800
    return patch(src, dst, page.payload_offset + 800, bytes([page.payload[800] ^ 1]))


def _garbage_index(kind):
    """Point a chunk's index at 20 bytes that are no Thrift struct."""
    blob = b"\x19\xff\xff\xff\xff\x0f" + b"\xff" * 14

    def damage(src, dst):
        def edit(raw, at):
            chunk = raw.row_groups[0].columns[X]
            _set(chunk, **{kind + "_offset": at, kind + "_length": len(blob)})
        return rewrite_footer(src, dst, edit, blob)
    return damage


def _annotate(**fields):
    """Set fields of column x's SchemaElement."""
    return _footer(lambda raw: _set(raw.schema[1], **fields))


def _share_chunk(raw):
    """Column b's chunk becomes a copy of column a's: both read a's bytes."""
    a, b = raw.row_groups[0].columns
    b.meta_data = copy.deepcopy(a.meta_data)
    b.meta_data.path_in_schema = ["b"]
    for name in ("file_offset", "offset_index_offset", "offset_index_length",
                 "column_index_offset", "column_index_length"):
        setattr(b, name, getattr(a, name))


def _bloom_header(src):
    cmd = pqkit.read_metadata(src).raw.row_groups[0].columns[X].meta_data
    at = cmd.bloom_filter_offset
    header, used = fmt.decode(fmt.BloomFilterHeader, Path(src).read_bytes()[at:at + 64])
    return at, header, used


def _bloom_bits_cleared(src, dst):
    at, header, used = _bloom_header(src)
    return patch(src, dst, at + used, bytes(header.numBytes))


def _bloom_unknown_hash(src, dst):
    """The hash union's member becomes field 2, which the format does not define: the
    header is ``15 <numBytes> 1c 1c 00 00 1c 1c 00 00 ...`` and the hash's member is the
    second 1c of the second group."""
    at, header, _ = _bloom_header(src)
    raw = fmt.encode(header)
    member = raw.index(b"\x1c\x1c\x00\x00", raw.index(b"\x1c\x1c\x00\x00") + 4) + 1
    return patch(src, dst, at + member, b"\x2c")


def _bloom_bytes_not_blocks(src, dst):
    at, header, used = _bloom_header(src)
    header.numBytes -= 31
    raw = fmt.encode(header)
    assert len(raw) == used
    return patch(src, dst, at, raw)


def _levels_prefix_broken(src, dst):
    """Column s's first page: its definition levels' 4-byte length claims 4 GiB."""
    page = pages(src, 0, S)[0]
    return patch(src, dst, page.payload_offset, b"\xff" * 4)


def _row_split(src, dst):
    """Page 2 of column l starts with repetition level 1: its first value continues the
    previous page's last row. Its levels open with a bit-packed run (header byte 0x51)
    whose first bit is that level."""
    page = pages(src, 0, 0)[2]
    assert page.payload[0] == 0x51 and page.payload[1] & 1 == 0
    return patch(src, dst, page.payload_offset + 1, bytes([page.payload[1] | 1]))


def _drop_dictionary(src, dst):
    """Column s's chunk declared from its first data page: its dictionary is left out."""
    dictionary, first = pages(src, 0, S)[:2]

    def change(raw):
        cmd = _meta(raw, S)
        cmd.dictionary_page_offset = None
        cmd.total_compressed_size -= first.offset - dictionary.offset
    return _footer(change)(src, dst)


def _bloom(**fields):
    def change(raw):
        cmd = _meta(raw, X)
        _set(cmd, **{k: v(cmd) for k, v in fields.items()})
    return _footer(change)


OK = ("ok",) * 4
# name: (rule, file, damage, filter, pyarrow/DuckDB/polars/pqkit whole, the same filtered)
# Files: "base" (dictionary pages, CRCs, page index), "nocrc" (no CRCs), "v2" (v2 pages),
# "bloom" (base with bloom filters on x and s), "pair" (two equal int64 columns a and b),
# "plain" (base without dictionaries or CRCs), "flba" (a FIXED_LEN_BYTE_ARRAY(4) column b),
# "list-index" (a list<int64> column l in v2 pages); "list" (the same) and "nocrc-v2" (v2
# pages) have no page index, so that a wrong num_rows breaks no OffsetIndex rule as well.
WARNINGS = {
    "path_in_schema swapped": ("PQ-FOOTER-008", "base", _footer(_swap_paths),
                               ("x", "==", 100), OK, OK),
    "total order on an int64": ("PQ-ORDER-002", "base", _footer(_total_order),
                                ("x", "==", 100), OK, OK),
    "nan_count above values": ("PQ-STATS-010", "base", _stats(F, nan_count=N + 1),
                               ("f", ">", 5.0), OK, OK),
    "trailing bytes in chunk": ("PQ-CHUNK-003", "base", _grow(S, 7), ("s", "==", "v0001"),
                                OK, OK),
    "boundary order reversed": ("PQ-INDEX-008", "base", _index(X, "column_index", lambda ci: _set(
        ci, boundary_order=BoundaryOrder.DESCENDING)), ("x", "==", 1100), OK, OK),
    "ColumnIndex null counts": ("PQ-INDEX-011", "base", _index(S, "column_index", lambda ci: (
        ci.null_counts.__setitem__(0, ci.null_counts[0] + 1))), ("s", "==", "v0001"), OK, OK),
    "ColumnIndex histogram length": ("PQ-INDEX-013", "base", _index(
        S, "column_index", lambda ci: ci.definition_level_histograms.append(0)),
        ("s", "==", "v0001"), OK, OK),
    "page max below its values": ("PQ-DEEP-002", "base", _header(X, 1, lambda h: _set(
        h.data_page_header.statistics, max_value=_q(500), max=_q(500))), ("x", "==", 511),
        OK, OK),
    "chunk nan_count wrong": ("PQ-DEEP-008", "base", _stats(F, nan_count=1), ("f", ">", 5.0),
                              OK, OK),
    "chunk max NaN": ("PQ-STATS-002", "base", _stats(F, max_value=_d(math.nan),
                                                     max=_d(math.nan)),
                      ("f", ">", 5.0), OK, OK),
    "chunk min NaN": ("PQ-STATS-002", "base", _stats(F, min_value=_d(math.nan),
                                                     min=_d(math.nan)),
                      ("f", "<", 5.0), OK, OK),
    "null_count above values": ("PQ-STATS-005", "base", _stats(S, null_count=N + 1),
                                ("s", "==", "v0001"), OK, OK),
    "null_count negative": ("PQ-STATS-005", "base", _stats(S, null_count=-5),
                            ("s", "==", "v0001"), OK, OK),
    "two columns share one chunk": ("PQ-CHUNK-010", "pair", _footer(_share_chunk),
                                    ("b", "==", 100), OK, OK),
    "v2 num_rows above num_values": ("PQ-PAGE-003", "nocrc-v2", _header(X, 2, lambda h: _set(
        h.data_page_header_v2, num_rows=h.data_page_header_v2.num_values + 1)),
        ("x", "==", 1100), OK, OK),
    "v2 num_rows one short in a list": ("PQ-DEEP-006", "list", _header(0, 1, lambda h: _set(
        h.data_page_header_v2, num_rows=h.data_page_header_v2.num_rows - 1)), None, OK, None),
}

ERR, WRONG = "error", "wrong"
ERRORS = {
    "head magic PAR2": ("PQ-FILE-002", "base", lambda s, d: patch(s, d, 0, b"PAR2"), None,
                        ("ok", "ok", "ok", ERR), None),
    "a chunk missing": ("PQ-FOOTER-005", "base", _footer(lambda raw: raw.row_groups[0].columns.pop()),
                        None, (ERR,) * 4, None),
    "chunk type FLOAT for DOUBLE": ("PQ-FOOTER-009", "base", _footer(lambda raw: _set(
        _meta(raw, F), type=fmt.Type.FLOAT)), None, (ERR, "ok", "ok", "ok"), None),
    "RowGroup.total_byte_size unset": ("PQ-FOOTER-014", "base", _footer(lambda raw: _set(
        raw.row_groups[0], total_byte_size=None)), None, (ERR, ERR, ERR, "ok"), None),
    "file num_rows 5 more": ("PQ-ROWS-001", "base", _footer(lambda raw: _set(
        raw, num_rows=raw.num_rows + 5)), None, OK, None),
    "chunk num_values one more": ("PQ-CHUNK-005", "base", _footer(lambda raw: _set(
        _meta(raw, X), num_values=_meta(raw, X).num_values + 1)), None,
        ("ok", ERR, "ok", ERR), None),
    "row group one row short": ("PQ-ROWS-002", "base", _rows(-1), None,
                                (WRONG, ERR, WRONG, ERR), None),
    "row group num_rows -1": ("PQ-ROWS-003", "base", _footer(lambda raw: (_set(
        raw.row_groups[0], num_rows=-1), _set(raw, num_rows=0))), None, (ERR,) * 4, None),
    "chunk without meta_data": ("PQ-CHUNK-001", "base", _footer(lambda raw: _set(
        raw.row_groups[0].columns[S], meta_data=None)), None, (ERR,) * 4, None),
    "chunk past the data": ("PQ-CHUNK-002", "base", _footer(lambda raw: _set(
        _meta(raw, S), data_page_offset=10**9, dictionary_page_offset=None)), None,
        (ERR,) * 4, None),
    "chunk 5 bytes short": ("PQ-CHUNK-003", "base", _grow(S, -5), None,
                            (ERR, "ok", ERR, ERR), None),
    "page runs into the next": ("PQ-CHUNK-004", "nocrc", _header(S, 2, lambda h: _set(
        h, compressed_page_size=h.compressed_page_size + 1,
        uncompressed_page_size=h.uncompressed_page_size + 1)), None, (ERR,) * 4, None),
    "uncompressed size +1": ("PQ-PAGE-002", "nocrc", _header(S, 2, lambda h: _set(
        h, uncompressed_page_size=h.uncompressed_page_size + 1)), None,
        ("ok", ERR, "ok", ERR), None),
    "crc field wrong": ("PQ-CRC-001", "base", _header(X, 2, lambda h: _set(h, crc=h.crc ^ 0x10)),
                        None, ("ok", "ok", "ok", ERR), None),
    "value byte flipped": ("PQ-CRC-001", "base", _flip_value_byte, None,
                           (WRONG, WRONG, WRONG, ERR), None),
    "chunk min above max": ("PQ-STATS-001", "base", _stats(X, min_value=_q(10), max_value=_q(5),
                                                           min=_q(10), max=_q(5)),
                            ("x", "==", 100), OK, (WRONG, "ok", WRONG, WRONG)),
    # pq.read_table(filters=...) hangs on this file (pyarrow 26.0.1): no filtered read.
    "3-byte int64 bound": ("PQ-STATS-006", "base", _stats(X, min_value=b"\1\2\3", min=b"\1\2\3"),
                           None, (ERR, ERR, "ok", "ok"), None),
    "chunk max below a page's": ("PQ-STATS-009", "base", _stats(X, max_value=_q(100),
                                                                max=_q(100)),
                                 ("x", "==", 2000), OK, (WRONG,) * 4),
    "OffsetIndex garbage": ("PQ-INDEX-001", "base", _garbage_index("offset_index"), ("x", "==", 2990), OK,
                            ("ok", "ok", "ok", ERR)),
    "OffsetIndex page size": ("PQ-INDEX-002", "base", _index(X, "offset_index", lambda oi: _set(
        oi.page_locations[-1], compressed_page_size=oi.page_locations[-1].compressed_page_size
        - 1)), ("x", "==", 2990), OK, ("ok", "ok", "ok", ERR)),
    "OffsetIndex first rows repeat": ("PQ-INDEX-003", "base", _index(
        X, "offset_index", lambda oi: _set(oi.page_locations[2], first_row_index=oi.page_locations[
            1].first_row_index)), ("x", "==", 1100), OK, ("ok", "ok", "ok", ERR)),
    "OffsetIndex span off by 10": ("PQ-INDEX-004", "base", _index(
        X, "offset_index", lambda oi: _set(oi.page_locations[2], first_row_index=oi.page_locations[
            2].first_row_index + 10)), ("x", "==", 1030), OK, ("ok", ERR, "ok", ERR)),
    "ColumnIndex garbage": ("PQ-INDEX-005", "base", _garbage_index("column_index"), ("x", "==", 2990), OK,
                            ("ok", "ok", "ok", ERR)),
    "null page that is not": ("PQ-INDEX-006", "base", _index(S, "column_index", lambda ci: (
        ci.null_pages.__setitem__(0, True))), ("s", "==", "v0001"), OK,
        ("ok", WRONG, "ok", WRONG)),
    "ColumnIndex min above max": ("PQ-INDEX-009", "base", _index(X, "column_index", lambda ci: (
        ci.min_values.__setitem__(1, _q(2000)))), ("x", "==", 600), OK,
        ("ok", "ok", "ok", WRONG)),
    "chunk max below the values": ("PQ-DEEP-003", "base", _stats(X, max_value=_q(N - 2),
                                                                 max=_q(N - 2)),
                                   ("x", "==", N - 1), OK, (WRONG,) * 4),
    "ColumnIndex min above a page's": ("PQ-DEEP-004", "base", _index(
        X, "column_index", lambda ci: ci.min_values.__setitem__(0, _q(1))), ("x", "==", 0), OK,
        ("ok", WRONG, "ok", WRONG)),
    "chunk null_count says all null": ("PQ-DEEP-005", "base", _stats(S, null_count=N),
                                       ("s", "==", "v0001"), ("ok", WRONG, "ok", "ok"),
                                       (WRONG,) * 4),
    "DATE on an INT64": ("PQ-TYPE-001", "base", _annotate(
        converted_type=fmt.ConvertedType.DATE, logicalType=fmt.LogicalType(DATE=fmt.DateType())),
        None, ("ok", ERR, ERR, "ok"), None),
    "DECIMAL(5, 7) on an INT64": ("PQ-TYPE-002", "base", _annotate(
        converted_type=fmt.ConvertedType.DECIMAL, precision=5, scale=7,
        logicalType=fmt.LogicalType(DECIMAL=fmt.DecimalType(scale=7, precision=5))),
        None, (ERR, ERR, ERR, WRONG), None),
    "INTEGER(32) on an INT64": ("PQ-TYPE-003", "base", _annotate(logicalType=fmt.LogicalType(
        INTEGER=fmt.IntType(bitWidth=32, isSigned=True))), None, ("ok", "ok", ERR, ERR), None),
    "LIST on a leaf": ("PQ-TYPE-008", "base", _annotate(
        converted_type=fmt.ConvertedType.LIST, logicalType=fmt.LogicalType(LIST=fmt.ListType())),
        None, ("ok", ERR, ERR, "ok"), None),
    "bloom filter past the data": ("PQ-BLOOM-001", "bloom", _bloom(
        bloom_filter_offset=lambda cmd: 10**7), ("x", "==", 100), OK, ("ok", "ok", "ok", ERR)),
    "bloom header garbage": ("PQ-BLOOM-002", "bloom", lambda s, d: patch(
        s, d, _bloom_header(s)[0], b"\xff\xff\xff"), ("x", "==", 100), OK,
        ("ok", ERR, "ok", ERR)),
    "bloom hash not XXHASH": ("PQ-BLOOM-003", "bloom", _bloom_unknown_hash, ("x", "==", 100),
                              OK, ("ok", "ok", "ok", ERR)),
    "bloom numBytes not blocks": ("PQ-BLOOM-004", "bloom", _bloom_bytes_not_blocks,
                                  ("x", "==", 100), OK, ("ok", "ok", "ok", ERR)),
    "bloom length one short": ("PQ-BLOOM-005", "bloom", _bloom(
        bloom_filter_length=lambda cmd: cmd.bloom_filter_length - 1), ("x", "==", 100), OK,
        ("ok", "ok", "ok", ERR)),
    "bloom filter over the pages": ("PQ-BLOOM-006", "bloom", _bloom(
        bloom_filter_offset=lambda cmd: cmd.data_page_offset), ("x", "==", 100), OK,
        ("ok", ERR, "ok", ERR)),
    "bloom bits cleared": ("PQ-BLOOM-007", "bloom", _bloom_bits_cleared, ("x", "==", 100), OK,
                           ("ok", WRONG, "ok", WRONG)),    "dictionary left out of the chunk": ("PQ-DICT-003", "base", _drop_dictionary, None,
                                         (ERR,) * 4, None),
    "level length prefix 0xffffffff": ("PQ-DEEP-001", "plain", _levels_prefix_broken, None,
                                       (ERR,) * 4, None),
    "FIXED_LEN_BYTE_ARRAY(0)": ("PQ-TYPE-005", "flba", _footer(lambda raw: _set(
        raw.schema[1], type_length=0)), None, (ERR,) * 4, None),
    "page starting inside a row": ("PQ-PAGE-006", "list-index", _row_split, None,
                                   (ERR, ERR, ERR, ERR), None),
    "v2 levels longer than the page": ("PQ-PAGE-003", "v2", _header(S, 1, lambda h: _set(
        h.data_page_header_v2, definition_levels_byte_length=h.compressed_page_size + 1)),
        None, (ERR,) * 4, None),
}

# name: (rule, the one chunk's pages of a required INT32 column a, its values, outcomes)
HAND_BUILT = {
    "dictionary after a data page": ("PQ-DICT-001", lambda: [
        plain_page(2, struct.pack("<2i", 7, 8)), dictionary_page([5]), indices_page(3)],
        [7, 8, 5, 5, 5], ("ok", "ok", ERR, "ok")),
    "two dictionaries": ("PQ-DICT-002", lambda: [dictionary_page([5]), dictionary_page([6]),
                                                 indices_page(3)],
                         [5, 5, 5], (ERR, WRONG, ERR, ERR)),
    "RLE_DICTIONARY dictionary page": ("PQ-DICT-004", lambda: [
        dictionary_page([5], fmt.Encoding.RLE_DICTIONARY), indices_page(3)],
        [5, 5, 5], (ERR, "ok", "ok", ERR)),
    "PLAIN page 4 bytes short": ("PQ-PAGE-005", lambda: [
        plain_page(10, struct.pack("<9i", *range(9)))], list(range(10)), (ERR,) * 4),
}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    root = tmp_path_factory.mktemp("evidence")
    return {"base": write_base(root / "base.parquet"),
            "nocrc": write_base(root / "nocrc.parquet", write_checksums=False),
            "v2": write_base(root / "v2.parquet", data_page_version="2.0",
                             write_checksums=False),
            "nocrc-v2": write_base(root / "v2-plain.parquet", data_page_version="2.0",
                                   write_checksums=False, write_page_index=False),
            "bloom": write_base(root / "bloom.parquet", bloom_filter_columns=["x", "s"]),
            "plain": write_base(root / "plain.parquet", write_checksums=False,
                                use_dictionary=False),
            "flba": _fixed(root / "flba.parquet"),
            "pair": _pair(root / "pair.parquet"),
            "list": _lists(root / "list.parquet"),
            "list-index": _lists(root / "list-index.parquet", page_index=True)}


def _fixed(path):
    """100 four-byte values, without statistics (their bounds would break PQ-STATS-006 at
    length 0 as well)."""
    table = pa.table({"b": pa.array([b"abcd", b"efgh"] * 50, pa.binary(4))})
    pq.write_table(table, path, write_statistics=False)
    return str(path)


def _lists(path, page_index=False):
    values = [[i, i + 1] if i % 3 else [] for i in range(3000)]
    pqkit.write_table({"l": values}, str(path), compression="none", data_page_version="2.0",
                      data_page_size=2048, write_checksums=False,
                      write_page_index=page_index)
    return str(path)



def _pair(path):
    values = np.arange(2000, dtype=np.int64)
    pqkit.write_table({"a": values, "b": values}, str(path), compression="none")
    return str(path)


def _observe(sources, tmp_path, cases):
    """{case: (rule's severities in verify, whole outcomes, filtered outcomes)}."""
    seen = {}
    for name, (rule, source, damage, where, _, _) in cases.items():
        src = sources[source]
        bad = damage(src, tmp_path / f"{len(seen)}.parquet")
        report = verify_file(bad, deep=rule.startswith("PQ-DEEP") or rule == "PQ-BLOOM-007")
        severities = {f.severity for f in report.findings if f.rule == rule}
        whole = outcomes(bad, read_rows("pyarrow", src))
        filtered = None if where is None else outcomes(bad, read_rows("pyarrow", src, where),
                                                       where)
        seen[name] = (severities, tuple(whole[r] for r in READERS),
                      None if filtered is None else tuple(filtered[r] for r in READERS))
    return seen


def test_rules_every_reader_reads_through_are_warnings(sources, tmp_path):
    seen = _observe(sources, tmp_path, WARNINGS)
    assert seen == {name: ({"warning"}, whole, filtered)
                    for name, (_, _, _, _, whole, filtered) in WARNINGS.items()}
    for rule, *_ in WARNINGS.values():
        # the other findings of these two rules stay errors
        assert RULES[rule].severity == ("error" if rule in ("PQ-CHUNK-003", "PQ-PAGE-003")
                                        else "warning")


def test_rules_some_reader_trips_on_stay_errors(sources, tmp_path):
    seen = _observe(sources, tmp_path, ERRORS)
    assert seen == {name: ({"error"}, whole, filtered)
                    for name, (_, _, _, _, whole, filtered) in ERRORS.items()}
    for rule, *_ in ERRORS.values():
        assert RULES[rule].severity == "error"


def test_file_num_rows_misleads_a_count(sources, tmp_path):
    """PQ-ROWS-001: the rows read are right, but polars counts rows from the footer."""
    bad = ERRORS["file num_rows 5 more"][2](sources["base"], tmp_path / "rows.parquet")
    assert pl.scan_parquet(bad).select(pl.len()).collect().item() == N + 5
    assert duckdb.sql(f"select count(*) from '{bad}'").fetchall() == [(N,)]


def test_hand_built_chunks_stay_errors(tmp_path):
    seen = {}
    for name, (rule, page_list, values, _) in HAND_BUILT.items():
        bad = hand_built(tmp_path / f"{len(seen)}.parquet", page_list())
        report = verify_file(bad)
        result = outcomes(bad, [{"a": v} for v in values])
        seen[name] = ({f.severity for f in report.findings if f.rule == rule},
                      tuple(result[r] for r in READERS))
    assert seen == {name: ({"error"}, want) for name, (_, _, _, want) in HAND_BUILT.items()}
    for rule, *_ in HAND_BUILT.values():
        assert RULES[rule].severity == "error"


def test_unusable_files_stay_errors(sources, tmp_path):
    """The rules that end a check (exit code 2): every reader fails too."""
    src = sources["base"]
    data = Path(src).read_bytes()
    footer = int.from_bytes(data[-8:-4], "little")
    cases = {
        "PQ-FILE-000": str(tmp_path / "missing.parquet"),
        "PQ-FILE-001": data[:10],
        "PQ-FILE-003": data[:-1],
        "PQ-FOOTER-001": data[:-8] + (len(data) + 10).to_bytes(4, "little") + b"PAR1",
        "PQ-FOOTER-002": data[:-8 - footer] + b"\x0f" * footer + data[-8:],
        "PQ-FOOTER-003": None,
    }
    cases["PQ-FOOTER-003"] = Path(rewrite_footer(src, tmp_path / "noschema.parquet",
                                                 lambda raw, _: _set(raw, row_groups=None)))
    seen = {}
    for rule, content in cases.items():
        path = content if not isinstance(content, bytes) else tmp_path / f"{rule}.parquet"
        if isinstance(content, bytes):
            path.write_bytes(content)
        report = verify_file(str(path))
        result = outcomes(path, None)
        seen[rule] = (report.exit_code, {f.rule for f in report.findings},
                      tuple(result[r] for r in READERS))
    assert seen == {rule: (2, {rule}, ("error",) * 4) for rule in cases}
