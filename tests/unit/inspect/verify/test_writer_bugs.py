"""pqkit.inspect.verify: types, the writer-bug table, sort orders, paths, hand-built chunks, robustness."""
import math
import random
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from verify_files import (
    N,
    assert_clean,
    chunk_meta,
    created_by,
    dictionary_page,
    edit_stats,
    findings,
    hand_built,
    indices_page,
    pages,
    patch,
    plain_page,
    rewrite_footer,
    rules,
    write_base,
)

import pqkit
from pqkit import format as fmt
from pqkit.inspect.verify import RULES, expand_paths, parse_created_by, verify_file
from pqkit.inspect.verify.ordering import Ordering


# -- dictionary pages, built by hand --------------------------------------------------------
def test_hand_built_chunk_is_clean(tmp_path):
    path = hand_built(tmp_path / "ok.parquet", [dictionary_page([7, 9]), indices_page(4)])
    assert_clean(verify_file(path, deep=True))
    assert pqkit.read_table(path).to_pydict() == {"a": [7, 7, 7, 7]}


@pytest.mark.parametrize("page_list, expected", [
    ([indices_page(4), dictionary_page([7]), indices_page(2)], {"PQ-DICT-001",
                                                                    "PQ-DICT-003"}),
    ([dictionary_page([7]), dictionary_page([9]), indices_page(2)], {"PQ-DICT-002"}),
    ([dictionary_page([7], fmt.Encoding.RLE), indices_page(2)], {"PQ-DICT-004"}),
])
def test_dictionary_page_rules(tmp_path, page_list, expected):
    report = verify_file(hand_built(tmp_path / "dict.parquet", page_list))
    assert rules(report) == expected
    for f in report.findings:
        assert f.rule not in expected or f.page_offset is not None


def test_plain_page_too_small_for_its_values(tmp_path):
    path = hand_built(tmp_path / "short.parquet", [plain_page(3, struct.pack("<2i", 1, 2))])
    report = verify_file(path)
    (f,) = findings(report, "PQ-PAGE-005")
    assert f.page_offset == 4 and "3 INT32 values, which need 12 bytes, in 8 bytes" in f.message
    assert "PQ-DEEP-001" in rules(verify_file(path, deep=True))


def test_first_page_starting_inside_a_row(tmp_path):
    path = str(tmp_path / "lists.parquet")
    pqkit.write_table({"l": [[i] for i in range(100)]}, path, compression="none",
                      write_checksums=False, write_page_index=False, use_dictionary=False)
    assert_clean(verify_file(path))
    page = pages(path)[0]
    body = bytes(page.payload)
    header, shift, pos = 0, 0, 4             # after the v1 levels' 4-byte length prefix
    while True:                              # the run's ULEB128 header
        byte = body[pos]
        header |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            break
    assert header == 100 << 1 and body[pos] == 0      # one RLE run of 100 zero levels
    bad = patch(path, tmp_path / "inside.parquet", page.payload_offset + pos, b"\x01")
    (f,) = findings(verify_file(bad), "PQ-PAGE-006")
    assert f.page_offset == page.offset and "repetition level 1" in f.message


def test_empty_data_page(tmp_path):
    path = hand_built(tmp_path / "empty.parquet",
                       [dictionary_page([7]), indices_page(0), indices_page(3)])
    report = verify_file(path, deep=True)
    assert report.exit_code == 0 and findings(report, "PQ-PAGE-001")[0].severity == "warning"


# -- types -------------------------------------------------------------------------------
def _logical(**member):
    return fmt.LogicalType(**member)


@pytest.mark.parametrize("leaf, change, rule", [
    (0, {"logicalType": _logical(STRING=fmt.StringType()), "converted_type": None},
     "PQ-TYPE-001"),
    (0, {"logicalType": _logical(DECIMAL=fmt.DecimalType(scale=2, precision=20)),
         "converted_type": None}, "PQ-TYPE-002"),
    (0, {"logicalType": _logical(INTEGER=fmt.IntType(bitWidth=32, isSigned=True)),
         "converted_type": None}, "PQ-TYPE-003"),
    (0, {"logicalType": _logical(INTEGER=fmt.IntType(bitWidth=12, isSigned=True)),
         "converted_type": None}, "PQ-TYPE-003"),
    (1, {"logicalType": _logical(UUID=fmt.UUIDType()), "converted_type": None},
     "PQ-TYPE-001"),
    (0, {"logicalType": _logical(DATE=fmt.DateType()), "converted_type": None},
     "PQ-TYPE-001"),
    (2, {"logicalType": _logical(FLOAT16=fmt.Float16Type()), "converted_type": None},
     "PQ-TYPE-001"),
    (2, {"converted_type": fmt.ConvertedType.INT_32}, "PQ-TYPE-001"),
    (2, {"converted_type": fmt.ConvertedType.ENUM}, "PQ-TYPE-004"),
    (0, {"logicalType": _logical(LIST=fmt.ListType()), "converted_type": None},
     "PQ-TYPE-008"),
])
def test_illegal_type_annotations(base, tmp_path, leaf, change, rule):
    def edit(raw, _):
        for k, v in change.items():
            setattr(raw.schema[leaf + 1], k, v)

    report = verify_file(rewrite_footer(base, tmp_path / "types.parquet", edit))
    hits = findings(report, rule)
    assert hits and hits[0].column == ["x", "f", "s"][leaf], [f.message for f in report.findings]


def test_timestamp_needs_int64(tmp_path):
    path = str(tmp_path / "ts.parquet")
    pq.write_table(pa.table({"t": pa.array([1, 2], pa.int32())}), path)

    def edit(raw, _):
        raw.schema[1].logicalType = _logical(TIMESTAMP=fmt.TimestampType(
            isAdjustedToUTC=True, unit=fmt.TimeUnit(MILLIS=fmt.MilliSeconds())))
        raw.schema[1].converted_type = None

    report = verify_file(rewrite_footer(path, tmp_path / "ts2.parquet", edit))
    assert "TIMESTAMP(MILLIS) on INT32" in findings(report, "PQ-TYPE-001")[0].message


# -- writer bugs -----------------------------------------------------------------------------
def test_parquet_251_writer_gets_untrusted_binary_statistics(base, tmp_path):
    bad = rewrite_footer(base, tmp_path / "mr.parquet",
                         created_by("parquet-mr version 1.6.0 (build abcd)"))
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-WRITER-001")
    assert f.severity == "warning" and f.column == "s" and "PARQUET-251" in f.message
    assert report.exit_code == 0

    def both(raw, at):
        created_by("parquet-mr version 1.6.0 (build abcd)")(raw, at)
        edit_stats(2, min_value=b"v9", max_value=b"v0")(raw, at)

    report = verify_file(rewrite_footer(base, tmp_path / "mr2.parquet", both), deep=True)
    swapped = findings(report, "PQ-STATS-001")
    assert swapped and {f.severity for f in swapped} == {"warning"}
    assert "known writer bug PARQUET-251" in swapped[0].message and report.exit_code == 0
    cdh = rewrite_footer(base, tmp_path / "cdh.parquet",
                         created_by("parquet-mr version 1.5.0-cdh5.5.0 (build abcd)"))
    assert not findings(verify_file(cdh), "PQ-WRITER-001")


def test_writer_bug_table_by_version(tmp_path):
    path = str(tmp_path / "dec.parquet")
    pq.write_table(pa.table({"d": pa.array([-1, 1], pa.int64()).cast(pa.decimal128(20, 0)),
                             "s": ["a", "b"], "i": pa.array([1, 2], pa.int64())}), path)
    cases = {"parquet-mr version 1.9.0 (build x)": {"PQ-WRITER-002": {"d", "s"}},
             "parquet-cpp-arrow version 3.0.0": {"PQ-WRITER-004": {"d"}},
             "parquet-cpp-arrow version 4.0.0": {},
             "parquet-mr version 1.10.0 (build x)": {}}
    for writer, expected in cases.items():
        bad = rewrite_footer(path, tmp_path / "cb.parquet", created_by(writer))
        report = verify_file(bad)
        got = {}
        for f in report.findings:
            if f.rule.startswith("PQ-WRITER"):
                got.setdefault(f.rule, set()).add(f.column)
        assert got == expected, writer


def test_parse_created_by():
    app = parse_created_by("parquet-mr version 1.12.0-SNAPSHOT (build 6901a20)")
    assert (app.application, app.version, app.pre_release) == ("parquet-mr", (1, 12, 0),
                                                               "SNAPSHOT")
    assert parse_created_by("parquet-mr").version == (0, 0, 0)
    assert parse_created_by("parquet-cpp version 1.5.1-SNAPSHOT").version == (1, 5, 1)
    assert parse_created_by("impala version 1.3.0-INTERNAL (build 8a4)").application == "impala"
    assert parse_created_by("") is None and parse_created_by(None) is None


# -- orderings and paths ----------------------------------------------------------------------
def _leaf(physical, logical=None, converted=None, length=None):
    schema = pqkit.Schema([fmt.SchemaElement(name="r", num_children=1),
                           fmt.SchemaElement(name="c", type=physical, logicalType=logical,
                                             converted_type=converted, type_length=length,
                                             repetition_type=1)])
    return schema.columns[0]


def test_ordering_keys():
    uint = Ordering(_leaf(fmt.Type.INT32, converted=fmt.ConvertedType.UINT_32))
    assert uint.key(b"\xff\xff\xff\xff") > uint.key(b"\x01\x00\x00\x00")
    dec = Ordering(_leaf(fmt.Type.FIXED_LEN_BYTE_ARRAY, converted=fmt.ConvertedType.DECIMAL,
                         length=2))
    assert dec.key(b"\xff\xfe") == -2 < dec.key(b"\x00\x01")
    text = Ordering(_leaf(fmt.Type.BYTE_ARRAY, converted=fmt.ConvertedType.UTF8))
    assert text.key(b"\xc3\xa9") > text.key(b"z") and text.truncatable
    total = Ordering(_leaf(fmt.Type.DOUBLE), "IEEE_754_TOTAL_ORDER")
    keys = [total.key(struct.pack("<d", v)) for v in (-math.inf, -0.0, 0.0, math.inf)]
    assert keys == sorted(keys) and len(set(keys)) == 4
    assert total.key(struct.pack("<d", math.nan)) > keys[-1]
    half = Ordering(_leaf(fmt.Type.FIXED_LEN_BYTE_ARRAY, _logical(FLOAT16=fmt.Float16Type()),
                          length=2))
    assert half.key(np.float16(-1.5).tobytes()) < half.key(np.float16(0.25).tobytes())
    assert Ordering(_leaf(fmt.Type.INT96)).kind is None
    assert Ordering(_leaf(fmt.Type.INT96), "INT96_TIMESTAMP_ORDER").kind == "int96"


def test_every_rule_is_documented():
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and rule.severity in ("error", "warning", "info")
        assert rule_id.startswith("PQ-") and rule.title


def test_expand_paths(tmp_path):
    root = tmp_path / "ds"
    for rel in ("a=1/part-0.parquet", "a=2/part-1.parquet", "_pqkit/shadow/x.parquet",
                ".hidden/y.parquet", "a=1/.part-0.parquet.crc", "_SUCCESS", "_metadata",
                "_common_metadata", "a=1/notes.txt", "_tmp.parquet"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"")
    got = [(t.path[len(str(root)) + 1:], t.footer_only) for t in expand_paths([str(root)])]
    assert got == [("_common_metadata", True), ("_metadata", True),
                   ("a=1/part-0.parquet", False), ("a=2/part-1.parquet", False)]
    pattern = [t.path for t in expand_paths([str(root / "a=*" / "*")])]
    assert [p[len(str(root)) + 1:] for p in pattern] == ["a=1/notes.txt", "a=1/part-0.parquet",
                                                        "a=2/part-1.parquet"]
    missing = expand_paths([str(root / "nope.parquet"), str(root / "*.orc")])
    assert [t.problem is not None for t in missing] == [True, True]


# -- more rules and robustness --------------------------------------------------------------
def test_dictionary_found_only_through_data_page_offset(tmp_path):
    def hide(raw, _):
        for g, rg in enumerate(raw.row_groups):
            cmd = chunk_meta(raw, g, 2)
            cmd.data_page_offset, cmd.dictionary_page_offset = cmd.dictionary_page_offset, None

    indexed = write_base(tmp_path / "idx.parquet")
    report = verify_file(rewrite_footer(indexed, tmp_path / "idx2.parquet", hide))
    # page-skipping readers must take the dictionary from the chunk's start; all major ones do
    assert report.exit_code == 0 and rules(report) == set()
    assert "PQ-INDEX-014" in rules(report, "warning")
    assert "parquet-mr before 1.15.0" in findings(report, "PQ-INDEX-014")[0].message
    plain = write_base(tmp_path / "plain.parquet", write_page_index=False)
    report = verify_file(rewrite_footer(plain, tmp_path / "plain2.parquet", hide))
    assert report.exit_code == 0 and "points at the dictionary page" in \
        findings(report, "PQ-CHUNK-008")[0].message


def test_exact_bound_that_is_no_value(base, tmp_path):
    bad = rewrite_footer(base, tmp_path / "exact.parquet",
                         edit_stats(0, max_value=struct.pack("<q", N + 5),
                                     max=struct.pack("<q", N + 5)))
    assert verify_file(bad).exit_code == 0
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-DEEP-007")
    assert f.severity == "warning" and f"{N - 1}" in f.message


def test_rows_overlaps_and_footer_padding(base, tmp_path):
    def rows(raw, _):
        raw.row_groups[0].num_rows += 1
        raw.num_rows += 1

    report = verify_file(rewrite_footer(base, tmp_path / "rows.parquet", rows))
    assert {f.column for f in findings(report, "PQ-ROWS-002")} == {"x", "f", "s"}

    def overlap(raw, _):
        cmd = chunk_meta(raw, 0, 1)
        cmd.total_compressed_size += cmd.data_page_offset - 100
        cmd.data_page_offset = cmd.dictionary_page_offset = 100

    report = verify_file(rewrite_footer(base, tmp_path / "overlap.parquet", overlap))
    assert findings(report, "PQ-CHUNK-010")[0].column == "f"
    md = pqkit.read_metadata(base)
    data = open(base, "rb").read()
    footer = data[md.footer_offset:-8] + b"\x00\x00\x00"
    padded = tmp_path / "padded.parquet"
    padded.write_bytes(data[:md.footer_offset] + footer + len(footer).to_bytes(4, "little")
                       + b"PAR1")
    report = verify_file(str(padded))
    assert report.exit_code == 0 and "3 bytes follow" in \
        findings(report, "PQ-FOOTER-004")[0].message


def _mutate(obj, rng):
    """Set one field of a Thrift struct to something a broken writer might store."""
    name = rng.choice(obj.FIELD_NAMES)
    current = getattr(obj, name)
    if rng.random() < 0.3 or current is None:
        value = None
    elif isinstance(current, bool):
        value = not current
    elif isinstance(current, int):
        value = rng.choice([-1, 0, current + 1, current * 2, 2**31 - 1])
    elif isinstance(current, bytes):
        value = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 4, 8])))
    else:
        return
    setattr(obj, name, value)


def _structs(obj, out):
    if hasattr(obj, "FIELD_NAMES"):
        if obj.FIELD_NAMES:
            out.append(obj)
        for name in obj.FIELD_NAMES:
            _structs(getattr(obj, name), out)
    elif isinstance(obj, list):
        for v in obj:
            _structs(v, out)
    return out


def test_broken_footers_give_findings_never_exceptions(tmp_path):
    rng = random.Random(7)
    sources = [write_base(tmp_path / "a.parquet"),
               write_base(tmp_path / "b.parquet", data_page_version="2.0")]
    checked = 0
    for i in range(80):
        src = rng.choice(sources)

        def edit(raw, _):
            candidates = _structs(raw, [])
            for _ in range(rng.choice([1, 2, 3])):
                _mutate(rng.choice(candidates), rng)

        try:
            path = rewrite_footer(src, tmp_path / f"m{i}.parquet", edit)
        except (OverflowError, ValueError, TypeError):
            continue                    # a value the field's Thrift type cannot hold
        report = verify_file(path, deep=i % 2 == 0)
        checked += 1
        assert report.exit_code in (0, 1, 2)
        for f in report.findings:
            assert f.rule in RULES and "offset" in f.message, f.message
    assert checked > 60
