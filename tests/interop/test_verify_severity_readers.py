"""verify's severities against what readers do: SizeStatistics whose counts do not add up
(PQ-SIZE-003..007) and a sorting column out of range (PQ-FOOTER-013) leave every reader's
values right, so they are warnings (exit 0); a histogram of the wrong length (PQ-SIZE-001)
and too few column orders (PQ-FOOTER-007) make Arrow C++ refuse the file: errors."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from reader_outcomes import READERS, read_rows
from verify_files import edit_index, move_count, rewrite_footer, size_statistics_edit, write_base

from pqkit.inspect.verify import verify_file

S = 2                                     # write_base's columns: x int64, f double, s string


def _chunk(change):
    return size_statistics_edit(S, change)


def _more_bytes(ss):
    ss.unencoded_byte_array_data_bytes += 1


def _swap_page_bytes(oi):
    oi.unencoded_byte_array_data_bytes[1] += 3
    oi.unencoded_byte_array_data_bytes[2] -= 3


def _extra_level(ss):
    ss.definition_level_histogram[0] += 1


CASES = {
    # name: (how the file is damaged, the warning rules verify --deep gives)
    "chunk-histogram-miscounts": (lambda base, dst: rewrite_footer(base, dst, _chunk(
        _extra_level)), {"PQ-SIZE-003"}),
    "chunk-bytes-off-by-one": (lambda base, dst: rewrite_footer(base, dst, _chunk(
        _more_bytes)), {"PQ-SIZE-005", "PQ-SIZE-006"}),
    "chunk-histogram-adds-up-wrongly": (lambda base, dst: rewrite_footer(base, dst, _chunk(
        lambda ss: move_count(ss.definition_level_histogram, 1, 0))), {"PQ-SIZE-004", "PQ-SIZE-007"}),
    "page-histograms-swapped": (lambda base, dst: edit_index(
        base, dst, S, "column_index", lambda ci: (move_count(ci.definition_level_histograms, 5, 4),
                                                  move_count(ci.definition_level_histograms, 6, 7))),
        {"PQ-SIZE-007"}),
    "page-bytes-swapped": (lambda base, dst: edit_index(
        base, dst, S, "offset_index", _swap_page_bytes), {"PQ-SIZE-006"}),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    path = write_base(tmp_path_factory.mktemp("sizes") / "base.parquet")
    return path, pq.read_table(path).to_pylist()


def readers(path):
    """Rows as read by each reader."""
    return {reader: read_rows(reader, path) for reader in READERS}


@pytest.mark.interop
@pytest.mark.parametrize("case", list(CASES))
def test_counts_that_do_not_add_up_are_warnings(base, tmp_path, case):
    path, want = base
    damage, expected = CASES[case]
    bad = damage(path, tmp_path / f"{case}.parquet")
    for name, rows in readers(bad).items():
        assert rows == want, name
    report = verify_file(bad, deep=True)
    assert report.exit_code == 0
    assert {f.rule for f in report.findings if f.severity == "warning"} == expected
    assert not [f for f in report.findings if f.severity == "error"]


@pytest.mark.interop
def test_histogram_of_the_wrong_length_stays_an_error(base, tmp_path):
    path, _ = base
    bad = rewrite_footer(path, tmp_path / "long.parquet",
                         _chunk(lambda ss: ss.definition_level_histogram.append(0)))
    with pytest.raises(OSError, match="histogram size mismatch"):
        pq.read_table(str(bad))
    report = verify_file(bad)
    assert report.exit_code == 1
    assert {f.rule for f in report.findings if f.severity == "error"} == {"PQ-SIZE-001"}


def _relabel(path, dst, edit):
    def change(raw, _):
        edit(raw)
    return rewrite_footer(path, dst, change)


@pytest.fixture(scope="module")
def sorted_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sorted") / "sorted.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3], "b": ["x", "y", "z"]}), path,
                   sorting_columns=[pq.SortingColumn(0)])
    return path, pq.read_table(path).to_pylist()


@pytest.mark.interop
def test_sorting_column_out_of_range_is_a_warning(sorted_file, tmp_path):
    path, want = sorted_file
    bad = _relabel(path, tmp_path / "sort.parquet", lambda raw: setattr(
        raw.row_groups[0].sorting_columns[0], "column_idx", 99))
    assert readers(bad) == dict.fromkeys(["pyarrow", "duckdb", "polars", "pqkit"], want)
    report = verify_file(bad, deep=True)
    assert report.exit_code == 0
    (f,) = [f for f in report.findings if f.severity in ("warning", "error")]
    assert (f.rule, f.severity) == ("PQ-FOOTER-013", "warning") and "99" in f.message


@pytest.mark.interop
def test_too_few_column_orders_stays_an_error(sorted_file, tmp_path):
    path, _ = sorted_file
    bad = _relabel(path, tmp_path / "orders.parquet",
                   lambda raw: setattr(raw, "column_orders", raw.column_orders[:1]))
    with pytest.raises(OSError, match="not enough ColumnOrder"):
        pq.read_table(str(bad))
    report = verify_file(bad)
    assert report.exit_code == 1
    assert {f.rule for f in report.findings if f.severity == "error"} == {"PQ-FOOTER-007"}
