"""Every single-byte flip and 1,000 truncations of small files, each read in a child
process (tools/fuzz/sweep.py): zero signals, zero hangs (over 1 s of CPU per input),
every failure a ParquetError subclass.

The files are corpus files of several writers and encodings (one with page CRCs)
and pqkit's own with and without page CRCs; in a file with CRCs, a flip inside a
page's payload must be reported as a ChecksumError.
"""
import importlib.util
import io
from pathlib import Path

import numpy as np
import pytest

import pqkit
from pqkit.page import PageWalker

SWEEP_PATH = Path(__file__).resolve().parents[2] / "tools" / "fuzz" / "sweep.py"
_spec = importlib.util.spec_from_file_location("pqkit_sweep", SWEEP_PATH)
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)

CORPUS_FILES = [
    "data/nulls.snappy.parquet",                  # parquet-mr, snappy, all nulls
    "data/rle-dict-snappy-checksum.parquet",      # page CRCs, RLE dictionary
    "data/nested_lists.snappy.parquet",           # three levels of lists
    "data/fixed_length_decimal.parquet",          # FIXED_LEN_BYTE_ARRAY decimal
    "data/datapage_v2.snappy.parquet",            # v2 pages, several encodings
    "data/dict-page-offset-zero.parquet",         # dictionary_page_offset 0
]


def _own_file(checksums):
    n = 24
    data = {"i": np.arange(n, dtype=np.int32),
            "s": [None if i % 5 == 0 else f"v{i % 4}" for i in range(n)],
            "l": [[i, -i][: i % 3] if i % 4 else None for i in range(n)],
            "d": np.linspace(-1, 1, n)}
    out = io.BytesIO()
    pqkit.write_table(data, out, compression="snappy", data_page_size=64,
                      column_encoding={"d": "BYTE_STREAM_SPLIT"}, use_dictionary=["s", "i"],
                      write_checksums=checksums, data_page_version="2.0" if checksums else "1.0")
    return out.getvalue()


def _check(res, muts):
    assert res.inputs == len(muts)
    assert res.failures == []
    assert res.ok + sum(res.parquet_errors.values()) == len(muts)
    # Sanity: mutations mostly break the file, and some still read.
    assert sum(res.parquet_errors.values()) > len(muts) // 4
    assert res.ok > 0


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_flips_and_truncations(corpus, name):
    path = corpus / name
    muts = sweep.mutations(path.stat().st_size)
    _check(sweep.sweep(path, muts), muts)


def _payload_positions(blob):
    """File offsets of every byte inside a page payload that carries a CRC."""
    md = pqkit.read_metadata(blob)
    positions = []
    for g in range(md.num_row_groups):
        for chunk in md.row_group(g).thrift.columns:
            meta = chunk.meta_data
            start = min(o for o in (meta.dictionary_page_offset, meta.data_page_offset) if o)
            data = blob[start:start + meta.total_compressed_size]
            for page in PageWalker(data, start, meta.num_values, "sweep"):
                assert page.header.crc is not None
                positions += range(page.payload_offset, page.payload_offset + len(page.payload))
    return positions


@pytest.mark.parametrize("checksums", [False, True], ids=["no_crc", "crc"])
def test_own_file_flips_and_truncations(tmp_path, checksums):
    blob = _own_file(checksums)
    path = tmp_path / "own.parquet"
    path.write_bytes(blob)
    muts = sweep.mutations(len(blob))
    res = sweep.sweep(path, muts)
    _check(res, muts)
    if checksums:
        payload = _payload_positions(blob)
        assert len(payload) > 100
        assert {res.errors.get(("flip", i)) for i in payload} == {"ChecksumError"}


def test_sweep_reports_a_crashing_input_and_goes_on(tmp_path):
    """The sweep machinery itself: a child killed by a signal on one input names that
    input and reads the rest in a new child."""
    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\n"
        f"exec {sweep.sys.executable} -c \"import os, signal, sys, json\n"
        "muts = json.load(sys.stdin)\n"
        "for m in muts:\n"
        "    if m == ['flip', 2]: os.kill(os.getpid(), signal.SIGSEGV)\n"
        "    print(json.dumps({'error': None, 'parquet': False, 'message': None, 'cpu': 0}),"
        " flush=True)\n\" \"$@\"\n")
    fake.chmod(0o755)
    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1....PAR1")
    muts = sweep.mutations(5, truncations=0)
    res = sweep.sweep(path, muts, python=str(fake))
    assert res.inputs == 5 and res.ok == 4
    assert [m for m, _ in res.failures] == [("flip", 2)]
    assert "code -11" in res.failures[0][1]


ENCRYPTION_KEY = b"0123456789abcdef"


@pytest.mark.parametrize("footer", ["encrypted", "plaintext"])
def test_encrypted_file_flips(tmp_path, footer):
    """Issue 32: every byte of a small uniformly encrypted file flipped, one at a time,
    read with its key: each read fails with a ParquetError (a changed module fails its
    GCM tag, a signed plaintext footer its signature) or gives the original values,
    never other values; the flips that read are all in the page index, which a whole
    read does not use."""
    path = tmp_path / "encrypted.parquet"
    props = pqkit.EncryptionProperties(ENCRYPTION_KEY, plaintext_footer=footer == "plaintext")
    pqkit.write_table({"i": np.arange(40, dtype=np.int32),
                       "s": [None if i % 5 == 0 else f"v{i % 4}" for i in range(40)]},
                      path, data_page_size=64, encryption=props, compression="snappy")
    muts = [("flip", i) for i in range(path.stat().st_size)]
    res = sweep.sweep(path, muts, footer_key=ENCRYPTION_KEY)
    assert res.inputs == len(muts)
    assert res.failures == []
    assert res.changed == []
    assert res.parquet_errors.get("DecryptionError", 0) > len(muts) // 2
    assert res.ok + sum(res.parquet_errors.values()) == len(muts)
    read = {at for _, at in muts} - {at for _, at in res.errors}
    md = pqkit.read_metadata(path, footer_key=ENCRYPTION_KEY)
    chunks = [c for rg in md.raw.row_groups for c in rg.columns]
    index_start = min(c.column_index_offset for c in chunks)
    assert read and all(index_start <= at < md.footer_offset for at in read)


ROADS_PATH = SWEEP_PATH.parent / "roads.py"
_road_spec = importlib.util.spec_from_file_location("pqkit_sweep_roads", ROADS_PATH)
roads = importlib.util.module_from_spec(_road_spec)
_road_spec.loader.exec_module(roads)


@pytest.mark.parametrize("writer", [0, 1], ids=["pqkit", "pyarrow"])
def test_take_and_filtered_reads_of_flipped_files_with_page_indexes(tmp_path, writer):
    """Issue 31's byte-flip sweep, sampled (tools/fuzz/sweep.py --roads; the full sweep
    flips every byte): 120 flips of a small file with page indexes and several pages per
    chunk, favouring the footer and the page indexes; each mutated copy is read whole,
    by ``take`` of fixed rows and by filtered reads. Every road that succeeds returns the
    full read's rows, except that a flip of bounds only may make a filter leave rows out."""
    path = roads.write_paged_samples(tmp_path)[writer]
    muts = sweep.sampled_flips(path.read_bytes(), 120)
    assert len(muts) == 120
    res = sweep.sweep(path, muts, roads=True)
    assert res.inputs == len(muts)
    assert res.failures == [] and res.mismatches == []
    assert sum(res.road_errors.values()) > len(muts)        # the roads do meet the damage
    assert res.ok > len(muts) // 10


def test_the_road_check_tells_bound_omissions_from_wrong_rows(tmp_path):
    """A ColumnIndex whose bounds exclude every value (a damage of bounds only) makes a
    filter leave rows out: an omission. The same omission after a change of anything
    else is a mismatch."""
    from verify_files import write_base

    from pqkit import format as fmt

    base = write_base(tmp_path / "base.parquet")
    data = bytearray(open(base, "rb").read())
    chunk = pqkit.read_metadata(base).raw.row_groups[0].columns[0]
    at, length = chunk.column_index_offset, chunk.column_index_length
    ci, _ = fmt.decode(fmt.ColumnIndex, bytes(data[at:at + length]))
    ci.min_values = ci.max_values = [(2**62).to_bytes(8, "little")] * len(ci.min_values)
    data[at:at + length] = fmt.encode(ci)           # same sizes: nothing else moves
    ref = roads.Reference(open(base, "rb").read())
    ref.terms = [("x", "==", 1030)]
    mismatches, omissions, errors = roads.check(bytes(data), ref)
    assert (mismatches, omissions, errors) == ([], 1, {})
    ref.shape = None                  # as if the footer or an index had other changes
    mismatches, omissions, _ = roads.check(bytes(data), ref)
    assert omissions == 0 and mismatches == ["filter ('x', '==', 1030): 0 rows, the full "
                                             "read gives 1"]
