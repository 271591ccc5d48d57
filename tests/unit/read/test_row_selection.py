"""pqkit.read.row_selection: ranges, set operations and the mapping to pages, against
plain boolean masks."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit.errors import CorruptFileError
from pqkit.read.row_selection import RowSelection, live_selections


@st.composite
def masks(draw, max_rows=60):
    n = draw(st.integers(0, max_rows))
    return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), np.bool_)


@st.composite
def page_starts(draw, n):
    cuts = draw(st.lists(st.integers(0, n), max_size=8))
    return np.array(sorted({0, *cuts}), np.int64)


@settings(max_examples=300, deadline=None)
@given(masks())
def test_mask_rows_and_ranges_agree(mask):
    sel = RowSelection.from_mask(mask)
    np.testing.assert_array_equal(sel.mask(), mask)
    np.testing.assert_array_equal(sel.rows(), np.flatnonzero(mask))
    assert RowSelection.from_rows(np.flatnonzero(mask), len(mask)) == sel
    assert sel.count == mask.sum()
    assert sel.is_all() == bool(mask.all()) and sel.is_empty() == (not mask.any())


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_intersect_union_refine(data):
    a = data.draw(masks())
    b = data.draw(masks(max_rows=0) if not len(a) else
                  st.lists(st.booleans(), min_size=len(a), max_size=len(a)).map(np.array))
    sa, sb = RowSelection.from_mask(a), RowSelection.from_mask(np.asarray(b, np.bool_))
    np.testing.assert_array_equal(sa.intersect(sb).mask(), a & b)
    np.testing.assert_array_equal(sa.union(sb).mask(), a | b)
    keep = np.asarray(data.draw(st.lists(st.booleans(), min_size=sa.count,
                                         max_size=sa.count)), np.bool_)
    expected = np.zeros(len(a), np.bool_)
    expected[np.flatnonzero(a)[keep]] = True
    np.testing.assert_array_equal(sa.refine(keep).mask(), expected)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=10))
def test_from_ranges_merges_overlaps(pairs):
    mask = np.zeros(50, np.bool_)
    for a, b in pairs:
        mask[a:b] = True
    np.testing.assert_array_equal(RowSelection.from_ranges(pairs, 50).mask(), mask)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_pages_and_positions(data):
    mask = data.draw(masks())
    firsts = data.draw(page_starts(len(mask)))
    sel = RowSelection.from_mask(mask)
    ends = np.append(firsts[1:], len(mask))
    expected_pages = [i for i, (a, b) in enumerate(zip(firsts, ends)) if mask[a:b].any()]
    pages = sel.pages(firsts)
    np.testing.assert_array_equal(pages, expected_pages)
    laid = np.concatenate([np.arange(firsts[i], ends[i]) for i in pages]) if len(pages) \
        else np.zeros(0, np.int64)
    positions = sel.positions_in(firsts, pages)
    np.testing.assert_array_equal(laid[positions], sel.rows())


def test_example_of_the_docstring():
    sel = RowSelection.from_rows([3, 4, 5, 90], 100)
    assert list(zip(sel.starts, sel.stops)) == [(3, 6), (90, 91)]
    np.testing.assert_array_equal(sel.pages([0, 40, 80]), [0, 2])
    np.testing.assert_array_equal(sel.positions_in([0, 40, 80], [0, 2]), [3, 4, 5, 50])


@pytest.mark.parametrize("firsts", [[5, 10], [0, 30, 20], [0, 200]])
def test_page_starts_that_do_not_split_the_group_are_corrupt(firsts):
    with pytest.raises(CorruptFileError):
        RowSelection.all(100).pages(firsts)


def test_bad_ranges_and_mismatched_groups_are_refused():
    with pytest.raises(ValueError):
        RowSelection([5], [3], 10)
    with pytest.raises(ValueError):
        RowSelection([0, 2], [3, 5], 10)
    with pytest.raises(ValueError):
        RowSelection.all(3).intersect(RowSelection.all(4))
    with pytest.raises(ValueError):
        RowSelection.all(3).refine([True])


def test_excluding_is_the_complement_of_the_rows():
    sel = RowSelection.excluding([0, 4, 5, 9], 10)
    assert list(zip(sel.starts, sel.stops)) == [(1, 4), (6, 9)]
    assert RowSelection.excluding([], 5) == RowSelection.all(5)
    assert RowSelection.excluding([0, 1, 2], 3).is_empty()


def test_live_selections_split_file_wide_rows_by_row_group():
    groups = live_selections([4, 3, 5], [1, 4, 6, 7, 11])
    assert [g.rows().tolist() for g in groups] == [[0, 2, 3], [1], [1, 2, 3]]
    assert [g.count for g in live_selections([4, 3], None)] == [4, 3]
    for bad in ([3, 2], [1, 1], [12], [-1]):
        with pytest.raises(ValueError, match="excluded rows"):
            live_selections([4, 3, 5], bad)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=300), st.data())
def test_intersect_by_ranges_equals_the_masks(a, data):
    """Few ranges are intersected range by range, many through masks: the same rows."""
    b = data.draw(st.lists(st.booleans(), min_size=len(a), max_size=len(a)))
    x, y = RowSelection.from_mask(a), RowSelection.from_mask(b)
    expected = RowSelection.from_mask(np.array(a) & np.array(b))
    assert x.intersect(y) == expected and y.intersect(x) == expected
