"""pqkit.ReadStatistics: counts add up across reads and threads, and a plain read, a
filtered read and take each fill in what they did."""
import io
import threading

import pyarrow as pa
import pyarrow.parquet as pq

import pqkit


def _file():
    buf = io.BytesIO()
    pq.write_table(pa.table({"id": range(4000), "v": [f"s{i % 13}" for i in range(4000)]}),
                   buf, row_group_size=1000, data_page_size=512, write_batch_size=100,
                   write_page_index=True, use_dictionary=False)
    return buf.getvalue()


def test_counts_are_summed_safely_across_threads():
    stats = pqkit.ReadStatistics()

    def work():
        for _ in range(1000):
            stats.add(pages_decoded=1)
            stats.add_column("a.b", chunks_whole=1)
            stats.skipped_group("statistics")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert stats.pages_decoded == 4000 and stats.chunks_whole == 4000
    assert stats.by_column == {"a.b": {"pages_decoded": 0, "chunks_whole": 4000,
                                       "chunks_paged": 0}}
    assert stats.as_dict()["row_groups_skipped"] == {"statistics": 4000}


def test_a_plain_read_decodes_every_chunk_whole():
    stats = pqkit.ReadStatistics()
    t = pqkit.read_table(_file(), statistics=stats)
    assert stats.row_groups == 4 and stats.rows_returned == t.num_rows == 4000
    assert stats.chunks_whole == 8 and stats.chunks_paged == 0 and stats.pages_skipped == 0
    assert stats.pages_decoded == stats.pages > 8 and stats.bytes_read > 0


def test_a_filtered_read_and_take_skip_groups_and_pages():
    data = _file()
    stats = pqkit.ReadStatistics()
    t = pqkit.read_table(data, filters=[("id", "==", 2500)], statistics=stats)
    assert t.to_pydict() == {"id": [2500], "v": ["s4"]}
    assert stats.row_groups == 4 and stats.row_groups_skipped == {"statistics": 3}
    assert stats.chunks_paged == 2 and stats.pages_decoded == 2
    assert stats.pages_skipped == stats.pages - 2 and stats.rows_returned == 1
    taken = pqkit.ReadStatistics()
    with pqkit.ParquetFile(data) as f:
        f.take([3999, 0], statistics=taken)
    assert taken.row_groups == 2 and taken.pages_decoded == 4 and taken.rows_returned == 2


def test_merge_adds_counts_of_another_read_or_its_dict():
    data = _file()
    first, second = pqkit.ReadStatistics(), pqkit.ReadStatistics()
    pqkit.read_table(io.BytesIO(data), filters=[("id", "==", 1500)], statistics=first)
    pqkit.read_table(io.BytesIO(data), columns=["v"], statistics=second)
    total = pqkit.ReadStatistics()
    total.merge(first)
    total.merge(second.as_dict())
    assert total.row_groups == first.row_groups + second.row_groups == 8
    assert total.row_groups_skipped == first.row_groups_skipped
    assert total.pages_decoded == first.pages_decoded + second.pages_decoded
    assert total.bytes_read == first.bytes_read + second.bytes_read
    assert total.by_column["v"]["chunks_whole"] == second.by_column["v"]["chunks_whole"] + \
        first.by_column.get("v", {}).get("chunks_whole", 0)
    assert set(total.by_column) == set(first.by_column) | set(second.by_column)
