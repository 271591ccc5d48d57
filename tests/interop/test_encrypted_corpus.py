"""Issue 32: every encrypted file of parquet-testing reads with its keys, through every
read path, and equals the table pyarrow reads from ``uniform_encryption.parquet.encrypted``
with the footer key (pyarrow's explicit-key API reads uniform encryption only).

The keys are parquet-cpp's test keys (ASCII): footer ``0123456789012345`` (id ``kf``),
``double_field`` ``1234567890123450`` (``kc1``), ``float_field`` ``1234567890123451``
(``kc2``); the AAD prefix of the two ``*aad*`` files is ``tester``. The ``aes256/`` files
(parquet-mr) use 32-byte keys: footer ``0123456789`` * 3 + ``01``, and for the n-th
column of ``double, float, boolean, int32, ba, flba, int64 element, int96`` the digits
``1234567890`` * 3 followed by ``12 + n``; the AAD prefix of the files with ``aad`` in
their name is ``tester`` in both folders.

Besides the oracle, the rows follow the pattern parquet-cpp's test generator writes
(50 rows, row i): ``boolean_field`` i even; ``int32_field`` i milliseconds; ``int64_field``
the list [2i, 2i + 1] * 10**12; ``float_field`` i * 1.1 in float32 arithmetic; ``double_field``
i * 1.1111111; ``ba_field`` ``b"parquet%03d" % i`` on even rows, null on odd ones;
``flba_field`` ten bytes of value i.
"""
import datetime
import os

import numpy as np
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import pqkit
from corpus_location import corpus_root

pytestmark = pytest.mark.interop

ROOT = corpus_root()
DATA = os.path.join(ROOT or "", "data")

FOOTER = b"0123456789012345"
COLUMN_KEYS = {"double_field": b"1234567890123450", "float_field": b"1234567890123451"}
KEY_IDS = {b"kf": FOOTER, b"kc1": COLUMN_KEYS["double_field"],
           b"kc2": COLUMN_KEYS["float_field"]}
FOOTER_256 = b"0123456789" * 3 + b"01"
COLUMNS_256 = ["double_field", "float_field", "boolean_field", "int32_field", "ba_field",
               "flba_field", "int64_field.list.element", "int96_field"]
COLUMN_KEYS_256 = {c: b"1234567890" * 3 + str(12 + n).encode()
                   for n, c in enumerate(COLUMNS_256)}

CPP_FILES = ["encrypt_columns_and_footer.parquet.encrypted",
             "encrypt_columns_and_footer_aad.parquet.encrypted",
             "encrypt_columns_and_footer_ctr.parquet.encrypted",
             "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
             "encrypt_columns_plaintext_footer.parquet.encrypted",
             "uniform_encryption.parquet.encrypted"]
AES256_FILES = ["aes256/encrypt_columns_and_footer.parquet.encrypted",
                "aes256/encrypt_columns_and_footer_ctr.parquet.encrypted",
                "aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
                "aes256/encrypt_columns_plaintext_footer.parquet.encrypted",
                "aes256/uniform_encryption.parquet.encrypted"]


def keys_of(name):
    """read_table's key arguments for corpus file ``name``."""
    if name.startswith("aes256/"):
        keys = {"footer_key": FOOTER_256, "column_keys": COLUMN_KEYS_256}
    else:
        keys = {"footer_key": FOOTER, "column_keys": COLUMN_KEYS}
    if "aad" in name:
        keys["aad_prefix"] = b"tester"
    return keys


@pytest.fixture(scope="module")
def oracle():
    """{column: values} pyarrow reads from the uniformly encrypted file."""
    if ROOT is None:
        pytest.skip("the parquet-testing corpus is not available")
    props = pe.create_decryption_properties(FOOTER)
    table = pq.read_table(os.path.join(DATA, "uniform_encryption.parquet.encrypted"),
                          decryption_properties=props)
    return {name: table.column(name).to_pylist() for name in table.column_names}


def values(table):
    return {name: table.column(name).to_pylist() for name in table.column_names}


@pytest.mark.parametrize("name", CPP_FILES + AES256_FILES)
def test_reads_the_same_table_as_pyarrow(oracle, name):
    table = pqkit.read_table(os.path.join(DATA, name), **keys_of(name))
    assert values(table) == oracle


def test_the_oracle_is_parquet_cpps_test_pattern(oracle):
    n = 50
    assert oracle["boolean_field"] == [i % 2 == 0 for i in range(n)]
    assert oracle["int32_field"] == [
        (datetime.datetime(2000, 1, 1) + datetime.timedelta(milliseconds=i)).time()
        for i in range(n)]
    assert oracle["int64_field"] == [[2 * i * 10**12, (2 * i + 1) * 10**12]
                                     for i in range(n)]
    assert oracle["float_field"] == [float(np.float32(i) * np.float32(1.1)) for i in range(n)]
    assert oracle["double_field"] == [i * 1.1111111 for i in range(n)]
    assert oracle["ba_field"] == [b"parquet%03d" % i if i % 2 == 0 else None
                                  for i in range(n)]
    assert oracle["flba_field"] == [bytes([i]) * 10 for i in range(n)]


@pytest.mark.parametrize("name", ["encrypt_columns_and_footer.parquet.encrypted",
                                  "encrypt_columns_and_footer_ctr.parquet.encrypted",
                                  "aes256/encrypt_columns_plaintext_footer.parquet.encrypted"])
def test_every_read_path_decrypts(oracle, name):
    path = os.path.join(DATA, name)
    keys = keys_of(name)
    with pqkit.ParquetFile(path, **keys) as f:
        assert values(f.read()) == oracle
        assert values(f.read_row_group(0, columns=["double_field"])) == \
            {"double_field": oracle["double_field"]}
        batches = [values(b) for b in f.iter_batches(batch_size=7)]
        assert sum((b["float_field"] for b in batches), []) == oracle["float_field"]
        taken = f.take([0, 49, 17], columns=["double_field", "ba_field"])
        assert values(taken) == {"double_field": [oracle["double_field"][i]
                                                  for i in (0, 49, 17)],
                                 "ba_field": [oracle["ba_field"][i] for i in (0, 49, 17)]}
        filtered = f.read(filters=[("double_field", ">", 50.0)])
        assert values(filtered)["double_field"] == [v for v in oracle["double_field"]
                                                    if v > 50.0]
        stats = f.metadata.row_group(0).column(5).statistics
        assert (stats.min, stats.max) == (min(oracle["double_field"]),
                                          max(oracle["double_field"]))
    frame = pqkit.read_pandas(path, columns=["float_field"], **keys)
    assert frame["float_field"].tolist() == oracle["float_field"]
    assert pqkit.read_metadata(path, **keys).num_rows == 50


def test_a_key_retriever_maps_key_metadata_to_keys(oracle):
    path = os.path.join(DATA, "encrypt_columns_and_footer.parquet.encrypted")
    seen = []

    def retrieve(key_metadata):
        seen.append(key_metadata)
        return KEY_IDS[key_metadata]

    assert values(pqkit.read_table(path, key_retriever=retrieve)) == oracle
    assert set(seen) == {b"kf", b"kc1", b"kc2"}


def test_encrypted_bloom_filters_pages_and_indexes():
    """parquet-mr 1.14's file: 2000 rows (double i + 0.5, float i + 0.25, int32 i, name
    "name_i"), bloom filters on the two encrypted columns, v2 pages whose CRC covers the
    encrypted page."""
    path = os.path.join(DATA, "encrypt_columns_and_footer_bloom_filter.parquet.encrypted")
    with pqkit.ParquetFile(path, footer_key=FOOTER, column_keys=COLUMN_KEYS) as f:
        assert values(f.read()) == {"double_field": [i + 0.5 for i in range(2000)],
                                    "float_field": [i + 0.25 for i in range(2000)],
                                    "int32_field": list(range(2000)),
                                    "name": [f"name_{i}" for i in range(2000)]}
        assert all(f.might_contain("double_field", 0, i + 0.5) for i in range(2000))
        assert all(f.might_contain("float_field", 0, i + 0.25) for i in range(2000))
        misses = sum(f.might_contain("double_field", 0, i + 0.25) for i in range(2000))
        assert misses < 200                       # a real filter, not all ones
        stats = pqkit.ReadStatistics()
        hit = f.read(filters=[("double_field", "==", 1500.5)], statistics=stats)
        assert values(hit)["int32_field"] == [1500]
        assert stats.pages_skipped > 0            # pages found through the OffsetIndex
        assert values(f.take([1999, 3]))["name"] == ["name_1999", "name_3"]


def test_a_plaintext_footer_reads_plaintext_columns_without_keys(oracle):
    path = os.path.join(DATA, "encrypt_columns_plaintext_footer.parquet.encrypted")
    table = pqkit.read_table(path, columns=["int32_field", "ba_field"])
    assert values(table) == {"int32_field": oracle["int32_field"],
                             "ba_field": oracle["ba_field"]}
    with pytest.raises(pqkit.MissingKeyError, match="column double_field.*'kc1'"):
        pqkit.read_table(path, columns=["double_field"])
    # the footer key alone: its signature checks, the column keys are still missing
    with pytest.raises(pqkit.MissingKeyError, match="column float_field"):
        pqkit.read_table(path, columns=["float_field"], footer_key=FOOTER)
    assert values(pqkit.read_table(path, columns=["float_field"], footer_key=FOOTER,
                                   column_keys={"float_field": COLUMN_KEYS["float_field"]})
                  ) == {"float_field": oracle["float_field"]}


def test_a_wrong_signing_key_fails_the_plaintext_footer():
    path = os.path.join(DATA, "encrypt_columns_plaintext_footer.parquet.encrypted")
    with pytest.raises(pqkit.DecryptionError, match="signature"):
        pqkit.read_metadata(path, footer_key=b"x" * 16)


@pytest.mark.parametrize("keys, error, match", [
    ({}, pqkit.EncryptedFileError, "footer is encrypted"),
    ({"footer_key": b"0" * 16}, pqkit.DecryptionError, "encrypted footer.*authentication"),
    ({"column_keys": COLUMN_KEYS}, pqkit.MissingKeyError, "footer_key=.*'kf'"),
    ({"footer_key": FOOTER}, pqkit.MissingKeyError, "column (float|double)_field"),
    ({"footer_key": FOOTER, "column_keys": {**COLUMN_KEYS, "double_field": b"1" * 16}},
     pqkit.DecryptionError, "ColumnMetaData of row group 0, column 5"),
])
def test_missing_and_wrong_keys_are_named(keys, error, match):
    path = os.path.join(DATA, "encrypt_columns_and_footer.parquet.encrypted")
    with pytest.raises(error, match=match) as info:
        pqkit.read_table(path, **keys)
    for key in (FOOTER, *COLUMN_KEYS.values()):
        assert key.decode() not in str(info.value)


def test_the_aad_prefix_must_be_supplied_when_not_stored(oracle):
    path = os.path.join(DATA, "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted")
    with pytest.raises(pqkit.MissingKeyError, match="aad_prefix"):
        pqkit.read_table(path, footer_key=FOOTER, column_keys=COLUMN_KEYS)
    with pytest.raises(pqkit.DecryptionError, match="authentication"):
        pqkit.read_table(path, footer_key=FOOTER, column_keys=COLUMN_KEYS,
                         aad_prefix=b"other")
    stored = os.path.join(DATA, "encrypt_columns_and_footer_aad.parquet.encrypted")
    with pytest.raises(pqkit.DecryptionError, match="differs"):
        pqkit.read_table(stored, footer_key=FOOTER, column_keys=COLUMN_KEYS,
                         aad_prefix=b"other")


def test_metadata_of_a_column_without_its_key_is_refused_by_name():
    path = os.path.join(DATA, "encrypt_columns_and_footer.parquet.encrypted")
    md = pqkit.read_metadata(path, footer_key=FOOTER)
    assert md.row_group(0).column(1).num_values == 50          # a plaintext column
    with pytest.raises(pqkit.MissingKeyError, match="column double_field: its metadata"):
        md.row_group(0).column(5)
