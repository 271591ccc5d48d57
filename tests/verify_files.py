"""Building and breaking Parquet files for the tests of pqkit.inspect.verify.

Files are written with pqkit.write_table (or by hand, page by page) into tmp
dirs, then broken by patching bytes of a page or by re-serializing the footer
with the Thrift codec.
"""
import struct

import numpy as np

import pqkit
from pqkit import format as fmt
from pqkit.format import PageType
from pqkit.page import PageWalker

N = 3000


def write_base(path, **options):
    """x: int64 0..N-1 ascending; f: floats with zeros; s: strings with nulls."""
    data = {"x": np.arange(N, dtype=np.int64),
            "f": [(-0.0 if i % 7 == 0 else (i % 50) / 4.0) for i in range(N)],
            "s": [None if i % 10 == 0 else f"v{i % 300:04d}" for i in range(N)]}
    options = {"compression": "none", "data_page_size": 4096, **options}
    pqkit.write_table(data, str(path), **options)
    return str(path)


def rewrite_footer(src, dst, edit, blob=b""):
    """Copy src to dst with edit(FileMetaData, blob_offset) applied; ``blob`` is placed just
    before the new footer (e.g. a re-encoded page index)."""
    md = pqkit.read_metadata(src)
    body = open(src, "rb").read()[:md.footer_offset]
    edit(md.raw, len(body))
    footer = fmt.encode(md.raw)
    with open(dst, "wb") as f:
        f.write(body + blob + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    return str(dst)


def edit_index(src, dst, column, kind, change, row_group=0):
    """Copy src to dst with a chunk's ColumnIndex or OffsetIndex re-encoded after
    change(obj) and stored just before the footer."""
    md = pqkit.read_metadata(src)
    chunk = md.row_group(row_group).thrift.columns[column]
    cls = fmt.ColumnIndex if kind == "column_index" else fmt.OffsetIndex
    at, length = getattr(chunk, kind + "_offset"), getattr(chunk, kind + "_length")
    obj, _ = fmt.decode(cls, open(src, "rb").read()[at:at + length])
    change(obj)
    blob = fmt.encode(obj)

    def edit(raw, offset):
        c = raw.row_groups[row_group].columns[column]
        setattr(c, kind + "_offset", offset)
        setattr(c, kind + "_length", len(blob))

    return rewrite_footer(src, dst, edit, blob)


def patch(src, dst, offset, new):
    data = bytearray(open(src, "rb").read())
    data[offset:offset + len(new)] = new
    open(dst, "wb").write(bytes(data))
    return str(dst)


def pages(path, row_group=0, column=0):
    md = pqkit.read_metadata(path)
    cmd = md.row_group(row_group).thrift.columns[column].meta_data
    start = min(o for o in (cmd.dictionary_page_offset, cmd.data_page_offset) if o)
    data = open(path, "rb").read()[start:start + cmd.total_compressed_size]
    return list(PageWalker(data, start, cmd.num_values, "test"))


def chunk_meta(raw, row_group, column):
    return raw.row_groups[row_group].columns[column].meta_data


def size_statistics_edit(column, change, row_group=0):
    """A :func:`rewrite_footer` edit calling ``change`` on a chunk's SizeStatistics."""
    def edit(raw, _):
        change(chunk_meta(raw, row_group, column).size_statistics)
    return edit


def move_count(counts, src, dst):
    """Move one count from ``counts[src]`` to ``counts[dst]``: the total stays the same."""
    counts[src] -= 1
    counts[dst] += 1


def rules(report, severity="error"):
    return {f.rule for f in report.findings if f.severity == severity}


def findings(report, rule):
    return [f for f in report.findings if f.rule == rule]


def assert_clean(report):
    assert report.usable and report.exit_code == 0, [f.message for f in report.findings]
    assert not rules(report, "error") and not rules(report, "warning"), \
        [f.message for f in report.findings]


def edit_stats(column, **fields):
    def edit(raw, _):
        st = chunk_meta(raw, 0, column).statistics
        for k, v in fields.items():
            setattr(st, k, v)
    return edit


def created_by(value):
    def edit(raw, _):
        raw.created_by = value
    return edit


# -- a one-column file built page by page ---------------------------------------------------
def dictionary_page(values, encoding=fmt.Encoding.PLAIN):
    payload = struct.pack(f"<{len(values)}i", *values)
    header = fmt.PageHeader(type=PageType.DICTIONARY_PAGE, uncompressed_page_size=len(payload),
                            compressed_page_size=len(payload),
                            dictionary_page_header=fmt.DictionaryPageHeader(
                                num_values=len(values), encoding=encoding))
    return header, payload


def indices_page(count):
    """A v1 page of a required column: ``count`` dictionary indices 0 (bit width 1, one RLE
    run)."""
    payload = bytes([1, count << 1, 0]) if count else bytes([1])
    header = fmt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(payload),
                            compressed_page_size=len(payload),
                            data_page_header=fmt.DataPageHeader(
                                num_values=count, encoding=fmt.Encoding.RLE_DICTIONARY,
                                definition_level_encoding=fmt.Encoding.RLE,
                                repetition_level_encoding=fmt.Encoding.RLE))
    return header, payload


def hand_built(path, page_list):
    """A file of one required INT32 column whose only chunk holds ``page_list`` as given."""
    body, offsets = bytearray(b"PAR1"), []
    for header, payload in page_list:
        offsets.append((header.type, len(body)))
        body += fmt.encode(header) + payload
    values = sum(h.data_page_header.num_values for h, _ in page_list
                 if h.type == PageType.DATA_PAGE)
    first_data = next(o for t, o in offsets if t == PageType.DATA_PAGE)
    first_dict = next((o for t, o in offsets if t == PageType.DICTIONARY_PAGE), None)
    cmd = fmt.ColumnMetaData(type=fmt.Type.INT32, encodings=[fmt.Encoding.PLAIN,
                                                              fmt.Encoding.RLE_DICTIONARY],
                             path_in_schema=["a"], codec=0, num_values=values,
                             total_uncompressed_size=len(body) - 4,
                             total_compressed_size=len(body) - 4, data_page_offset=first_data,
                             dictionary_page_offset=first_dict if first_dict == 4 else None)
    md = fmt.FileMetaData(version=1, num_rows=values, schema=[
        fmt.SchemaElement(name="root", num_children=1),
        fmt.SchemaElement(name="a", type=fmt.Type.INT32, repetition_type=0)],
        row_groups=[fmt.RowGroup(columns=[fmt.ColumnChunk(file_offset=0, meta_data=cmd)],
                                 total_byte_size=len(body) - 4, num_rows=values)])
    footer = fmt.encode(md)
    path.write_bytes(bytes(body) + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    return str(path)


def plain_page(count, payload):
    """A v1 PLAIN page of a required column declaring ``count`` values."""
    header = fmt.PageHeader(type=PageType.DATA_PAGE, uncompressed_page_size=len(payload),
                            compressed_page_size=len(payload),
                            data_page_header=fmt.DataPageHeader(
                                num_values=count, encoding=fmt.Encoding.PLAIN,
                                definition_level_encoding=fmt.Encoding.RLE,
                                repetition_level_encoding=fmt.Encoding.RLE))
    return header, payload
