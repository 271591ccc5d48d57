"""pqkit.read.decode.selected_rows: a read of any row selection equals the full read
sliced, for flat, nested and dictionary columns, with and without a page index; and no
module outside the selection road maps rows to pages."""
import io
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit.read.column_selection import select_columns
from pqkit.read.decode.selected_rows import leaf_reads, read_selected
from pqkit.read.row_selection import RowSelection

SRC = Path(__file__).resolve().parents[4] / "src" / "pqkit"


def _table(n, seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(-50, 50, n)
    return pa.table({
        "i": pa.array([None if k % 7 == 0 else int(x) for k, x in enumerate(v)], pa.int64()),
        "d": pa.array([f"city{x % 9}" if x % 5 else None for x in v],
                      pa.string()).dictionary_encode(null_encoding="mask"),
        "s": pa.array([f"v{x}" * (x % 4) for x in v]),
        "l": pa.array([None if x % 4 == 0 else list(range(int(x) % 5)) for x in v],
                      pa.list_(pa.int32())),
        "m": pa.array([[(str(x), int(x))] * (int(x) % 3) for x in v],
                      pa.map_(pa.string(), pa.int64())),
        "st": pa.array([{"a": int(x), "b": [str(x)] * (int(x) % 3)} if x % 9 else None
                        for x in v]),
        "ls": pa.array([[{"p": int(x), "q": str(x)}] * (int(x) % 3) for x in v]),
    })


def _file(n, seed, page_index, page_size, version, **options):
    buf = io.BytesIO()
    pq.write_table(_table(n, seed), buf, row_group_size=max(n // 2, 1),
                   data_page_size=page_size, write_page_index=page_index,
                   data_page_version=version, **options)
    return buf.getvalue()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 400), seed=st.integers(0, 3), page_index=st.booleans(),
       page_size=st.sampled_from([64, 512, 1 << 20]), version=st.sampled_from(["1.0", "2.0"]),
       columns=st.sampled_from([None, ["i"], ["d", "s"], ["l", "m"], ["st"], ["ls"],
                                ["st.b"]]),
       data=st.data())
def test_any_selection_equals_the_full_read_sliced(n, seed, page_index, page_size, version,
                                                    columns, data):
    buf = _file(n, seed, page_index, page_size, version)
    with pqkit.ParquetFile(buf) as f:
        tops, wanted = select_columns(f.schema, columns)
        for g in range(f.num_row_groups):
            rows = f.metadata.row_group(g).num_rows
            mask = np.array(data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows)),
                            np.bool_)
            selection = RowSelection.from_mask(mask)
            want = f.read_row_group(g, columns).take(np.flatnonzero(mask))
            for threads in (False, True):
                got = read_selected(f.row_group_reader, g, tops, wanted, selection, threads)
                assert got.equals(want)


def test_pages_are_chosen_through_the_offset_index():
    buf = _file(2000, 1, True, 256, "1.0", use_dictionary=False, write_batch_size=64)
    with pqkit.ParquetFile(buf) as f:
        node = f.schema.column("i")
        one = RowSelection.from_rows([3], f.metadata.row_group(0).num_rows)
        assert leaf_reads(f.row_group_reader, 0, [node], one) == {("i",): [0]}
        every = RowSelection.all(f.metadata.row_group(0).num_rows)
        assert leaf_reads(f.row_group_reader, 0, [node], every) == {("i",): None}
        stats = pqkit.ReadStatistics()
        got = f.take([3, 1500], columns=["i"], statistics=stats)
    assert got.to_pydict() == pq.read_table(io.BytesIO(buf), columns=["i"]).take([3, 1500]) \
        .to_pydict()
    assert stats.by_column["i"]["pages_decoded"] == 2 and stats.pages_skipped > 0


# Where rows are mapped to pages: the row selection, and the road that decodes through
# it. The page index module parses and checks first_row_index and gives each page's
# rows; pruning turns page verdicts into rows (pages -> rows, the other way).
MAPPERS = {"read/row_selection.py", "read/decode/selected_rows.py", "read/fetch/page_index.py",
           "read/prune/pruning.py"}


def test_no_module_outside_the_selection_road_maps_rows_to_pages():
    uses = set()
    for path in (SRC / "read").rglob("*.py"):
        text = path.read_text()
        if re.search(r"\.first_row_index\b|page_row_ranges\(|pages_for_rows\(", text):
            uses.add(str(path.relative_to(SRC)))
    assert uses <= MAPPERS, uses - MAPPERS


@pytest.mark.parametrize("bad", ["outside", "rows"])
def test_a_lying_offset_index_is_corrupt_not_wrong_rows(tmp_path, bad):
    """A page location outside the chunk, or pages holding other rows than their
    first_row_index entries give, raise CorruptFileError from take and filtered reads."""
    from verify_files import edit_index, write_base

    base = write_base(tmp_path / "base.parquet")
    chunk_size = pqkit.read_metadata(base).row_group(0).column(0).total_compressed_size

    def lie(oi):
        if bad == "outside":        # into the next column's chunk, still inside the file
            oi.page_locations[-1].offset += chunk_size
        else:
            oi.page_locations[-1].first_row_index += 3

    broken = edit_index(base, tmp_path / "bad.parquet", 0, "offset_index", lie)
    with pqkit.ParquetFile(broken) as f:
        rows = f.metadata.row_group(0).num_rows
        with pytest.raises(pqkit.CorruptFileError, match="OffsetIndex of column x"):
            f.take([rows - 1], columns=["x"])


def test_every_read_of_row_groups_decodes_through_the_selection_road(monkeypatch):
    from pqkit.read.decode import selected_rows
    buf = _file(300, 2, True, 512, "1.0")
    decoded = []
    leaf = selected_rows._TopRead.leaf
    monkeypatch.setattr(selected_rows._TopRead, "leaf",
                        lambda job, node: decoded.append(node.path) or leaf(job, node))
    with pqkit.ParquetFile(buf) as f:
        reads = {
            "read": lambda: f.read(columns=["i"]),
            "read_row_group": lambda: f.read_row_group(1, columns=["i"]),
            "iter_batches": lambda: list(f.iter_batches(100, columns=["i"])),
            "arrow_stream": lambda: pa.table(f.arrow_stream(columns=["i"])),
            "filters": lambda: f.read(columns=["i"], filters=[("i", ">", 0)]),
            "take": lambda: f.take([5, 250], columns=["i"]),
        }
        for name, read in reads.items():
            decoded.clear()
            read()
            assert decoded and set(decoded) == {("i",)}, name
