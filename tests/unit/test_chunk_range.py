"""chunk_range.py, a stage module both roads share: where a column chunk's pages lie
(exactly, for copying) and whether it starts with a dictionary page. Where the footer
lies (tail.py) is tested in test_tail.py."""
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.chunk_range import (MAX_DICT_HEADER, chunk_range, chunk_start,
                               dictionary_header_padding, exact_chunk_range,
                               has_dictionary_page, pages_end)
from pqkit.format import Encoding, PageType

OLD_MR = "parquet-mr version 1.2.8"


def _chunk(dict_off=None, data_off=None, size=100, encodings=None):
    meta = fmt.ColumnMetaData(dictionary_page_offset=dict_off, data_page_offset=data_off,
                              total_compressed_size=size, encodings=encodings)
    return fmt.ColumnChunk(file_offset=0, meta_data=meta)


def _page_header(page_type):
    header = fmt.PageHeader(type=page_type, uncompressed_page_size=40, compressed_page_size=40)
    if page_type == PageType.DICTIONARY_PAGE:
        header.dictionary_page_header = fmt.DictionaryPageHeader(num_values=5,
                                                                 encoding=Encoding.PLAIN)
    else:
        header.data_page_header = fmt.DataPageHeader(
            num_values=5, encoding=Encoding.PLAIN, definition_level_encoding=Encoding.RLE,
            repetition_level_encoding=Encoding.RLE)
    return fmt.encode(header)


def _file_with(first_header, at=4, size=1000):
    """read(offset, length) of a file of ``size`` bytes with ``first_header`` at ``at``."""
    data = bytearray(size)
    data[at:at + len(first_header)] = first_header
    return lambda offset, length: bytes(data[offset:offset + length])


@pytest.mark.parametrize("dict_off, data_off, start", [
    (None, 120, 120),      # no dictionary
    (4, 120, 4),           # dictionary first
    (0, 120, 120),         # writers that store 0 for "no dictionary page"
    (2, 120, 120),         # inside the magic: not valid
    (40, 0, 40),           # a chunk of no values: only its dictionary page
    (200, 120, 120),       # a dictionary offset after the data pages is not the start
])
def test_start_is_the_smaller_valid_offset(dict_off, data_off, start):
    chunk = _chunk(dict_off, data_off)
    assert chunk_start(chunk.meta_data) == start
    assert chunk_range(chunk, 10_000, "column a, row group 0") == (start, 100)


@pytest.mark.parametrize("chunk, message", [
    (fmt.ColumnChunk(file_offset=0), "no meta_data"),
    (_chunk(None, 0), "invalid chunk range"),
    (_chunk(None, None), "invalid chunk range"),
    (_chunk(None, 120, size=-1), "invalid chunk range"),
    (_chunk(None, 120, size=None), "invalid chunk range"),
    (_chunk(None, 120, size=9_881), "runs past the end of the data"),
])
def test_bad_ranges_name_the_column(chunk, message):
    with pytest.raises(pqkit.CorruptFileError, match=message) as info:
        chunk_range(chunk, 10_000, "column a.b, row group 3")
    assert str(info.value).startswith("column a.b, row group 3: ")


def test_padding_stops_at_the_data_end():
    chunk = _chunk(4, 50, size=100)
    assert chunk_range(chunk, 10_000, "c", pad=MAX_DICT_HEADER) == (4, 200)
    assert chunk_range(chunk, 150, "c", pad=MAX_DICT_HEADER) == (4, 146)
    assert chunk_range(chunk, 104, "c", pad=MAX_DICT_HEADER) == (4, 100)


@pytest.mark.parametrize("created_by, pad", [
    (None, 0), ("parquet-cpp-arrow version 26.0.1", 0), ("parquet-mr version 1.2.8", 100),
    ("parquet-mr version 1.2.9", 0), ("parquet-mr version 1.12.3 (build abc)", 0),
    ("parquet-mr", 100),
])
def test_parquet_816_padding_by_writer(created_by, pad):
    assert dictionary_header_padding(created_by) == pad


@pytest.mark.parametrize("created_by", [None, "parquet-cpp-arrow version 26.0.1",
                                        "parquet-mr version 1.2.9"])
def test_exact_range_is_the_declared_range_for_fixed_writers(created_by):
    read = _file_with(_page_header(PageType.DICTIONARY_PAGE))
    chunk = _chunk(4, 60, size=100)
    assert exact_chunk_range(chunk, 1000, "c", created_by, read) == (4, 100)


@pytest.mark.parametrize("dict_off, data_off", [(4, 60), (0, 4), (None, 4)])
def test_exact_range_of_a_parquet_816_chunk_counts_its_dictionary_header(dict_off, data_off):
    # parquet-mr 1.2.8 left the dictionary page header out of total_compressed_size;
    # wherever the footer points at the dictionary page from, the header is added.
    header = _page_header(PageType.DICTIONARY_PAGE)
    read = _file_with(header)
    chunk = _chunk(dict_off, data_off, size=100)
    assert exact_chunk_range(chunk, 1000, "c", OLD_MR, read) == (4, 100 + len(header))


def test_exact_range_of_a_parquet_816_chunk_without_dictionary_is_as_declared():
    read = _file_with(_page_header(PageType.DATA_PAGE))
    assert exact_chunk_range(_chunk(None, 4), 1000, "c", OLD_MR, read) == (4, 100)


def test_exact_range_of_a_parquet_816_chunk_past_the_data_end():
    header = _page_header(PageType.DICTIONARY_PAGE)
    read = _file_with(header)
    with pytest.raises(pqkit.CorruptFileError, match="PARQUET-816.*ends at offset 110"):
        exact_chunk_range(_chunk(4, 60, size=100), 110, "column a, row group 0", OLD_MR,
                          read)


def test_exact_range_of_a_parquet_816_chunk_without_a_page_header():
    with pytest.raises(pqkit.CorruptFileError, match="^column a, row group 1: no page header "
                                                     "at the chunk's start, offset 4"):
        exact_chunk_range(_chunk(4, 60), 1000, "column a, row group 1", OLD_MR,
                          lambda offset, length: b"\x15" * length)   # varints never end


@pytest.mark.parametrize("chunk, message", [
    (fmt.ColumnChunk(file_offset=0), "no meta_data"),
    (_chunk(None, None), "invalid chunk range"),
    (_chunk(0, 0), "invalid chunk range"),
])
def test_exact_range_refuses_missing_offsets(chunk, message):
    with pytest.raises(pqkit.CorruptFileError, match=message):
        exact_chunk_range(chunk, 1000, "column a, row group 0", OLD_MR, _file_with(b""))


@pytest.mark.parametrize("dict_off, encodings, expected", [
    (4, [Encoding.PLAIN], True),
    (None, [Encoding.PLAIN, Encoding.RLE], False),
    (0, None, False),
    # PARQUET-1850: no dictionary_page_offset, but dictionary-encoded data pages.
    (None, [Encoding.RLE_DICTIONARY, Encoding.PLAIN], True),
    (0, [Encoding.PLAIN_DICTIONARY], True),
])
def test_has_dictionary_page(dict_off, encodings, expected):
    assert has_dictionary_page(_chunk(dict_off, 60, encodings=encodings).meta_data) is expected


def test_pages_end_walks_the_pages_to_the_chunk_values():
    # Two data pages of 5 values, 40 bytes each, after 4 bytes of magic.
    page = _page_header(PageType.DATA_PAGE)
    data = b"PAR1" + (page + bytes(40)) * 2 + bytes(50)
    meta = fmt.ColumnMetaData(num_values=10, data_page_offset=4, total_compressed_size=60)
    read = lambda offset, length: data[offset:offset + length]    # noqa: E731
    end = 4 + 2 * (len(page) + 40)
    assert pages_end(meta, 4, len(data), "c", read) == (end, end - 4)
    with pytest.raises(pqkit.CorruptFileError, match="^column a, row group 0: page at "
                                                     "offset .* runs past the end"):
        pages_end(meta, 4, end - 1, "column a, row group 0", read)
    meta.num_values = 11                  # the zeros after the pages are no header
    with pytest.raises(pqkit.CorruptFileError, match="no page header|has sizes"):
        pages_end(meta, 4, len(data), "c", read)
