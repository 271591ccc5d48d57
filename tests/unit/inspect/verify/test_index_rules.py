"""pqkit.inspect.verify.index_rules: a page index that does not match the pages it indexes."""
from verify_files import edit_index, findings, rules

import pqkit
from pqkit.format import BoundaryOrder
from pqkit.inspect.verify import verify_file


def test_wrong_boundary_order(base, tmp_path):
    md = pqkit.read_metadata(base)
    ci, _ = pqkit.read.fetch.page_index.read_page_index(base, 0, "x", md)
    assert ci.boundary_order == BoundaryOrder.ASCENDING and len(ci.null_pages) > 2

    def descending(ci):
        ci.boundary_order = BoundaryOrder.DESCENDING

    report = verify_file(edit_index(base, tmp_path / "desc.parquet", 0, "column_index",
                                    descending))
    (f,) = findings(report, "PQ-INDEX-008")
    assert f.column == "x" and "DESCENDING" in f.message and f.page_offset is not None


def test_offset_index_that_does_not_match_the_pages(base, tmp_path):
    def shifted(oi):
        oi.page_locations[-1].compressed_page_size -= 1

    report = verify_file(edit_index(base, tmp_path / "oi.parquet", 0, "offset_index", shifted))
    assert "PQ-INDEX-002" in rules(report)

    def rows(oi):
        oi.page_locations[2].first_row_index = oi.page_locations[1].first_row_index

    report = verify_file(edit_index(base, tmp_path / "rows.parquet", 0, "offset_index", rows))
    assert "PQ-INDEX-003" in rules(report) and "not after page 1" in \
        findings(report, "PQ-INDEX-003")[0].message


def test_null_pages_that_contradict_null_counts(base, tmp_path):
    def flip(ci):
        ci.null_pages[0] = True

    report = verify_file(edit_index(base, tmp_path / "np.parquet", 2, "column_index", flip))
    assert "PQ-INDEX-006" in rules(report) and "PQ-INDEX-007" in rules(report, "warning")
