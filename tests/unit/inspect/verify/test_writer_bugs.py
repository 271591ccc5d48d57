"""pqkit.inspect.verify.writer_bugs: the writer-bug table and created_by parsing; then rules
of several modules on files broken by hand, and broken footers that must give findings,
never exceptions."""
import random
import struct

import pyarrow as pa
import pyarrow.parquet as pq
from verify_files import (
    N,
    chunk_meta,
    created_by,
    edit_stats,
    findings,
    rewrite_footer,
    rules,
    write_base,
)

import pqkit
from pqkit.inspect.verify import RULES, parse_created_by, verify_file


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
