"""Every footer and page header of the corpus decodes as the thrift package decodes it."""
import pytest

import pqkit
from corpus import entries, path_of
from pqkit import format as fmt
from reference.thrift_ref import plain, ref_decode, ref_encode, to_ref

pytestmark = pytest.mark.corpus


def _footer(path):
    md = pqkit.read_metadata(path)
    with open(path, "rb") as fh:
        fh.seek(md.footer_offset)
        return md, fh.read(md.footer_length)


@pytest.mark.parametrize("entry", entries(lambda e: not e.get("encrypted")))
def test_footer_matches_reference(entry):
    try:
        md, raw = _footer(path_of(entry))
    except pqkit.ParquetError:
        assert not entry["readable"]
        return
    ours = fmt.decode(fmt.FileMetaData, raw)[0]
    assert plain(ours) == plain(ref_decode("FileMetaData", raw))
    assert fmt.encode(ours) == ref_encode(to_ref(ours))
    assert plain(md.raw) == plain(ours)          # lazy and eager decodes agree


def _page_headers(path, md):
    with open(path, "rb") as fh:
        data = fh.read()
    for rg in md.raw.row_groups:
        for chunk in rg.columns:
            cmd = chunk.meta_data
            start = cmd.data_page_offset
            if cmd.dictionary_page_offset is not None and 0 < cmd.dictionary_page_offset < start:
                start = cmd.dictionary_page_offset
            end = min(start + cmd.total_compressed_size, len(data))
            pos, seen = start, 0
            while pos < end and seen < cmd.num_values:
                header, used = fmt.decode(fmt.PageHeader, data, pos, end - pos)
                yield data[pos:pos + used]
                if header.data_page_header is not None:
                    seen += header.data_page_header.num_values
                elif header.data_page_header_v2 is not None:
                    seen += header.data_page_header_v2.num_values
                pos += used + header.compressed_page_size


@pytest.mark.parametrize("entry", entries(lambda e: e["readable"]))
def test_page_headers_match_reference(entry):
    path = path_of(entry)
    md = pqkit.read_metadata(path)
    count = 0
    for raw in _page_headers(path, md):
        ours = fmt.decode(fmt.PageHeader, raw)[0]
        assert plain(ours) == plain(ref_decode("PageHeader", raw))
        assert fmt.encode(ours) == ref_encode(to_ref(ours))
        count += 1
    assert count >= (1 if md.num_rows else 0)
