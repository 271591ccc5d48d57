"""pqkit.inspect.verify.footer_rules: truncated files, footer length and bytes, and footer
fields that contradict each other."""
import pytest
from verify_files import chunk_meta, patch, rewrite_footer, rules

import pqkit
from pqkit import format as fmt
from pqkit.inspect.verify import verify_file


@pytest.mark.parametrize("cut, rule", [(1, "PQ-FILE-003"), (9, "PQ-FILE-003"),
                                       (None, "PQ-FILE-001")])
def test_truncated_file_is_unusable(base, tmp_path, cut, rule):
    data = open(base, "rb").read()
    bad = tmp_path / "cut.parquet"
    bad.write_bytes(data[:-cut] if cut else data[:10])
    report = verify_file(str(bad))
    assert report.exit_code == 2 and not report.usable and rule in rules(report)
    assert "offset" in report.findings[0].message


def test_footer_length_and_footer_bytes(base, tmp_path):
    data = open(base, "rb").read()
    md = pqkit.read_metadata(base)
    long = patch(base, tmp_path / "len.parquet", len(data) - 8,
                 (len(data) + 10).to_bytes(4, "little"))
    assert "PQ-FOOTER-001" in rules(verify_file(long))
    garbage = patch(base, tmp_path / "garbage.parquet", md.footer_offset, b"\x0f" * 40)
    report = verify_file(garbage)
    assert report.exit_code == 2 and "PQ-FOOTER-002" in rules(report)
    encrypted = patch(base, tmp_path / "pare.parquet", len(data) - 4, b"PARE")
    assert verify_file(encrypted).exit_code == 2
    head = patch(base, tmp_path / "head.parquet", 0, b"PAR2")
    report = verify_file(head)
    assert report.exit_code == 1 and "PQ-FILE-002" in rules(report)


def test_footer_rules(base, tmp_path):
    def edit(raw, _):
        raw.num_rows += 5
        chunk_meta(raw, 0, 0).path_in_schema = ["y"]
        chunk_meta(raw, 0, 1).type = fmt.Type.FLOAT
        raw.version = 7

    report = verify_file(rewrite_footer(base, tmp_path / "footer.parquet", edit))
    assert {"PQ-ROWS-001", "PQ-FOOTER-009"} <= rules(report)
    assert {"PQ-FOOTER-006", "PQ-FOOTER-008"} <= rules(report, "warning")
