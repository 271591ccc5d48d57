"""read_table against pyarrow on every corpus file, and the bad_data contract."""
import os

import pyarrow.parquet as pq
import pytest

import pqkit
from arrow_bridge import same_values, to_arrow
from corpus import entries, parquet_files_on_disk, path_of

pytestmark = pytest.mark.corpus

# Files whose stored page CRCs are wrong on purpose: pyarrow does not verify by default,
# pqkit does. Value: the page type the mismatch is reported for.
CORRUPT_CHECKSUM = {
    "data/datapage_v1-corrupt-checksum.parquet": "DATA_PAGE page at offset",
    "data/rle-dict-uncompressed-corrupt-checksum.parquet": "DICTIONARY_PAGE page at offset",
}

# Every bad_data/ file, with what pqkit must do: an error class and a fragment of its
# message (the offset or place it names), or "read" where the file is in fact decodable.
BAD_DATA = {
    "bad_data/ARROW-GH-41317.parquet":
        (pqkit.CorruptFileError, "column timestamp_us_no_tz, row group 0: pages hold 0 values"),
    "bad_data/ARROW-GH-41321.parquet": (pqkit.EncodingError, "at offset 1378"),
    "bad_data/ARROW-GH-43605.parquet": "read",
    "bad_data/ARROW-GH-45185.parquet": (pqkit.EncodingError, "starts with repetition level 1"),
    "bad_data/ARROW-GH-47662.parquet": (pqkit.EncodingError, "PLAIN values at offset 30"),
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet":
        (pqkit.CorruptFileError, "data page at offset 4 in column nation_key"),
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet":
        (pqkit.CorruptFileError, "page at offset 19 in column outer.list.item.c, row group 0 "
                                 "holds 21 values"),
    "bad_data/PARQUET-1481.parquet": (pqkit.SchemaError, "invalid physical type -7"),
}


def _pyarrow_pydict(path):
    try:
        return pq.read_table(path).to_pydict(), None
    except OverflowError as exc:    # values beyond what datetime holds
        return None, exc


def _assert_same_as_pyarrow(path, **kwargs):
    ours = pqkit.read_table(path, **kwargs)
    theirs, overflow = _pyarrow_pydict(path)
    if overflow is not None:
        # pyarrow cannot make Python values either: compare the buffers through Arrow.
        with pytest.raises(OverflowError):
            ours.to_pydict()
        ref = pq.read_table(path)
        assert ours.column_names == ref.column_names
        for name in ref.column_names:
            arr = to_arrow(ours.column(name))
            assert arr.equals(ref.column(name).combine_chunks()), name
        return
    got = ours.to_pydict()
    assert list(got) == list(theirs)
    for name in theirs:
        same_values(got[name], theirs[name], name)


@pytest.mark.parametrize("entry", entries(lambda e: e["readable"]
                                          and not e["path"].startswith("bad_data/")))
def test_read_table_matches_pyarrow(entry):
    path = path_of(entry)
    if entry["path"] in CORRUPT_CHECKSUM:
        with pytest.raises(pqkit.ChecksumError, match=CORRUPT_CHECKSUM[entry["path"]]):
            pqkit.read_table(path)
        _assert_same_as_pyarrow(path, verify_checksums=False)
        return
    _assert_same_as_pyarrow(path)


@pytest.mark.parametrize("entry", entries(lambda e: not e["readable"]
                                          and not e["path"].startswith("bad_data/")))
def test_files_pyarrow_rejects_fail_cleanly(entry):
    """Encrypted and otherwise rejected files: a ParquetError, or values where decodable."""
    path = path_of(entry)
    try:
        table = pqkit.read_table(path)
    except pqkit.ParquetError as exc:
        if entry.get("encrypted"):
            assert isinstance(exc, pqkit.EncryptedFileError), exc
        return
    assert not entry.get("encrypted")
    assert table.num_rows == pqkit.read_metadata(path).num_rows
    table.to_pydict()


@pytest.mark.parametrize("name", sorted(BAD_DATA))
def test_bad_data(corpus, name):
    path = os.path.join(corpus, name)
    expected = BAD_DATA[name]
    if expected == "read":
        _assert_same_as_pyarrow(path)
        return
    cls, fragment = expected
    with pytest.raises(cls) as info:
        pqkit.read_table(path).to_pydict()
    assert fragment in str(info.value)


def test_every_bad_data_file_has_a_test(corpus):
    on_disk = {p for p in parquet_files_on_disk() if p.startswith("bad_data/")}
    assert on_disk == set(BAD_DATA), on_disk ^ set(BAD_DATA)


@pytest.mark.parametrize("entry", entries(lambda e: e["readable"] and e["num_row_groups"] > 1))
def test_row_groups_and_batches_match_full_read(entry):
    path = path_of(entry)
    with pqkit.ParquetFile(path) as f:
        full = f.read().to_pydict()
        if full and not f.metadata.num_rows:
            return
        parts = [f.read_row_group(i).to_pydict() for i in range(f.num_row_groups)]
        size = max(7, -(-f.num_rows // 20))      # batches that straddle row groups
        batches = list(f.iter_batches(batch_size=size))
    for name in full:
        joined = [v for part in parts for v in part[name]]
        same_values(joined, full[name], name)
        batched = [v for b in batches for v in b.to_pydict()[name]]
        same_values(batched, full[name], name)
    assert all(b.num_rows <= size for b in batches)
