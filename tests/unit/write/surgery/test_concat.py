"""concat (write/surgery/concat.py, chunk_merge.py): the first schema difference named,
row groups merged only without dictionary pages, and chunks of writers with known defects
(PARQUET-816, PARQUET-1850) copied whole."""
import os
import struct

import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.inspect.verify import verify_file
from pqkit.write.existing import read_existing
from unit.write.test_existing import OLD
from verify_files import edit_index, rewrite_footer


def test_concat_names_the_first_schema_difference(tmp_path):
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    pqkit.write_table(OLD, a)
    pqkit.write_table({"id": OLD["id"], "label": OLD["name"]}, b)
    with pytest.raises(pqkit.SchemaError, match=r"schema element 2 \('name'\) has name "
                                                r"'name' in the first, 'label' in the second"):
        pqkit.concat([a, b], str(tmp_path / "out.parquet"))
    assert not os.path.exists(tmp_path / "out.parquet")


def test_concat_merges_row_groups_only_without_dictionary_pages(tmp_path):
    plain = [str(tmp_path / f"p{i}.parquet") for i in range(3)]
    for i, p in enumerate(plain):
        pqkit.write_table({"id": list(range(i * 10, i * 10 + 10))}, p, row_group_size=5,
                          use_dictionary=False, bloom_filter_columns=["id"])
    result = pqkit.concat(plain, str(tmp_path / "m.parquet"), row_group_size=12)
    md = pq.ParquetFile(tmp_path / "m.parquet").metadata
    assert [md.row_group(i).num_rows for i in range(md.num_row_groups)] == [10, 10, 10]
    assert (result.row_groups_in, result.row_groups_out) == (6, 3)
    stats = md.row_group(1).column(0).statistics
    assert (stats.min, stats.max, stats.null_count) == (10, 19, 0)
    assert pq.read_table(tmp_path / "m.parquet").column("id").to_pylist() == list(range(30))
    assert verify_file(str(tmp_path / "m.parquet"), deep=True).exit_code == 0

    dicts = [str(tmp_path / f"d{i}.parquet") for i in range(2)]
    for p in dicts:
        pqkit.write_table({"id": list(range(10))}, p, row_group_size=5)
    result = pqkit.concat(dicts, str(tmp_path / "n.parquet"), row_group_size=100)
    assert result.row_groups_out == 4
    assert all("dictionary page" in r for r in result.merges_refused)


def _rewrite_chunks(path, change, created_by=None):
    """Apply ``change(ColumnMetaData)`` to every chunk of ``path`` and rewrite its footer
    (with ``created_by`` when given)."""
    data = open(path, "rb").read()
    existing = read_existing(path)
    for rg in existing.meta.row_groups:
        for chunk in rg.columns:
            change(chunk.meta_data)
    if created_by is not None:
        existing.meta.created_by = created_by
    footer = fmt.encode(existing.meta)
    open(path, "wb").write(data[:existing.footer_offset] + footer +
                           struct.pack("<I", len(footer)) + b"PAR1")


def _as_parquet_816(path):
    """Rewrite the footer of ``path`` as parquet-mr 1.2.8 wrote it: the dictionary page
    header left out of each chunk's sizes. Returns the header sizes taken off."""
    data = open(path, "rb").read()
    removed = []

    def shorten(meta):
        if meta.dictionary_page_offset is not None:
            _, used = fmt.decode(fmt.PageHeader, data, meta.dictionary_page_offset, 100, 0)
            meta.total_compressed_size -= used
            meta.total_uncompressed_size -= used
            removed.append(used)

    _rewrite_chunks(path, shorten, created_by="parquet-mr version 1.2.8")
    return removed


def test_concat_copies_parquet_816_chunks_with_their_dictionary_headers(tmp_path):
    new, old = str(tmp_path / "new.parquet"), str(tmp_path / "old.parquet")
    table = {"id": list(range(40)), "name": [f"n{i % 4}" for i in range(40)]}
    pqkit.write_table(table, new, row_group_size=20)
    pqkit.write_table(table, old, row_group_size=20)
    assert len(_as_parquet_816(old)) == 4
    assert pq.read_table(old).to_pydict() == table      # readers pad such chunks

    # The output's footer names pqkit, so no reader pads: the copied chunks' sizes must
    # count the headers, and their bytes must be there.
    pqkit.concat([new, old], str(tmp_path / "out.parquet"))
    out = pq.ParquetFile(tmp_path / "out.parquet")
    assert out.read().to_pydict() == {k: v + v for k, v in table.items()}
    sizes = [out.metadata.row_group(g).column(c).total_compressed_size
             for g in range(4) for c in range(2)]
    assert sizes[:4] == sizes[4:]
    assert verify_file(str(tmp_path / "out.parquet"), deep=True).exit_code == 0


def test_concat_sees_dictionary_pages_without_dictionary_page_offset(tmp_path):
    # parquet-mr before 1.15.0 often pointed data_page_offset at the dictionary page and
    # left dictionary_page_offset unset (PARQUET-1850): merging such a chunk after
    # another would put a dictionary page in the middle of a chunk.
    def as_parquet_1850(meta):
        meta.data_page_offset = meta.dictionary_page_offset
        meta.dictionary_page_offset = None

    sources = [str(tmp_path / f"d{i}.parquet") for i in range(2)]
    for i, p in enumerate(sources):
        pqkit.write_table({"id": [i * 10 + k % 3 for k in range(10)]}, p, row_group_size=5)
        _rewrite_chunks(p, as_parquet_1850)
    result = pqkit.concat(sources, str(tmp_path / "out.parquet"), row_group_size=100)
    assert result.row_groups_out == 4
    assert len(result.merges_refused) == 3
    assert all("dictionary page" in r for r in result.merges_refused)
    assert pq.read_table(tmp_path / "out.parquet").column("id").to_pylist() == \
        [k % 3 for k in range(10)] + [10 + k % 3 for k in range(10)]


def _offset_index_edit(**fields):
    """Set fields of the first chunk's first OffsetIndex page location."""
    def edit(index):
        for name, value in fields.items():
            setattr(index.page_locations[0], name, value)
    return lambda src, dst: edit_index(src, dst, 0, "offset_index", edit)


def _group_edit(**fields):
    """Set fields of the first row group in the footer."""
    def edit(meta, _):
        for name, value in fields.items():
            setattr(meta.row_groups[0], name, value)
    return lambda src, dst: rewrite_footer(src, dst, edit)


def _chunk_edit(**fields):
    """Set fields of the first chunk's ColumnMetaData in the footer."""
    def edit(meta, _):
        for name, value in fields.items():
            setattr(meta.row_groups[0].columns[0].meta_data, name, value)
    return lambda src, dst: rewrite_footer(src, dst, edit)


@pytest.mark.parametrize("damage, message", [
    (_offset_index_edit(offset=None), "lacks a required field"),
    (_offset_index_edit(first_row_index=None), "lacks a required field"),
    (_group_edit(num_rows=None), "num_rows None"),
    (_group_edit(columns=None), "no column chunks"),
    (_chunk_edit(total_uncompressed_size=None), "total_uncompressed_size is None"),
])
@pytest.mark.parametrize("row_group_size", [None, 10_000])
def test_concat_of_a_source_lacking_fields_fails_cleanly(tmp_path, damage, message,
                                                         row_group_size):
    """A source whose footer or OffsetIndex lacks a field concat moves (once a TypeError)
    gives a CorruptFileError naming it, and the target keeps its bytes."""
    good = str(tmp_path / "good.parquet")
    pqkit.write_table({"i": list(range(300)), "s": [f"v{i % 7}" for i in range(300)]},
                      good, data_page_size=200, row_group_size=150)
    bad = damage(good, str(tmp_path / "bad.parquet"))
    target = tmp_path / "target.parquet"
    target.write_bytes(b"earlier contents")
    with pytest.raises(pqkit.CorruptFileError, match=message):
        pqkit.concat([good, bad], str(target), row_group_size=row_group_size)
    assert target.read_bytes() == b"earlier contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.parquet", "good.parquet", "target.parquet"]


@pytest.mark.parametrize("kind", ["column_index", "offset_index"])
def test_concat_of_an_index_at_a_negative_offset_fails_cleanly(tmp_path, kind):
    """A page index at a negative offset made concat's seek raise OSError."""
    good = str(tmp_path / "good.parquet")
    pqkit.write_table({"i": list(range(300))}, good, data_page_size=200)

    def negative(meta, _):
        setattr(meta.row_groups[0].columns[0], kind + "_offset", -5)

    bad = rewrite_footer(good, str(tmp_path / "bad.parquet"), negative)
    target = tmp_path / "target.parquet"
    target.write_bytes(b"earlier contents")
    with pytest.raises(pqkit.CorruptFileError, match="at offset -5"):
        pqkit.concat([bad], str(target))
    assert target.read_bytes() == b"earlier contents"


def test_concat_copies_whole_pages_of_chunks_that_under_declare_their_size(tmp_path):
    """A parquet-mr file whose chunks declare fewer bytes than their pages hold: concat
    copied the declared bytes, cutting each chunk's last page (a CRC error on read)."""
    src, out = str(tmp_path / "short.parquet"), str(tmp_path / "out.parquet")
    table = {"id": list(range(300)), "name": [f"n{i % 7}" for i in range(300)]}
    pqkit.write_table(table, src, row_group_size=150, data_page_size=256,
                      write_checksums=True)

    def under_declare(meta):
        meta.total_compressed_size -= 9

    _rewrite_chunks(src, under_declare, created_by="parquet-mr version 1.12.3 (build x)")
    pqkit.concat([src, src], out)
    assert pqkit.read_table(out).to_pydict() == {k: v + v for k, v in table.items()}
    assert pq.read_table(out).to_pydict() == {k: v + v for k, v in table.items()}
    assert verify_file(out, deep=True).exit_code == 0


def test_concat_refuses_a_chunk_whose_pages_run_past_the_data(tmp_path):
    src, out = str(tmp_path / "long.parquet"), str(tmp_path / "out.parquet")
    pqkit.write_table({"id": list(range(100))}, src, use_dictionary=False)
    data = bytearray(open(src, "rb").read())
    meta = read_existing(src).meta.row_groups[0].columns[0].meta_data
    header, used = fmt.decode(fmt.PageHeader, bytes(data), meta.data_page_offset, 100, 0)
    header.compressed_page_size += 10_000       # same varint width: the header keeps its size
    header.crc = None
    blob = fmt.encode(header)
    assert len(blob) <= used
    data[meta.data_page_offset:meta.data_page_offset + used] = blob.ljust(used, b"\0")
    open(src, "wb").write(bytes(data))
    with pytest.raises(pqkit.CorruptFileError, match="runs past the end of the data"):
        pqkit.concat([src, src], out)
    assert not os.path.exists(out)
