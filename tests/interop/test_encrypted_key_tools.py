"""Issue 32: files written through the KMS key tools cross between pqkit and pyarrow.

pyarrow's ``CryptoFactory`` with a test ``KmsClient`` that wraps as pqkit's
``InMemoryKms`` (the same master keys) writes, and pqkit reads with the same client; pqkit's
``EncryptionConfiguration`` writes and pyarrow's ``CryptoFactory`` reads. Combinations:
uniform / per-column keys x single / double wrapping x internal / external key material x
encrypted / plaintext footer x both algorithms, each written by both libraries. Also the
corpus file parquet-java wrote with external key material and its ``InMemoryKMS``.
"""
import itertools
import os

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import pqkit
from corpus_location import corpus_root
from pqkit.encryption import EncryptionConfiguration, InMemoryKms

pytestmark = pytest.mark.interop

MASTER_KEYS = {"kf": b"0123456789012345", "kc1": b"1234567890123450",
               "kc2": b"1234567890123451"}
KMS = InMemoryKms(MASTER_KEYS)
TABLE = pa.table({"a": pa.array(range(200), pa.int64()),
                  "b": pa.array([f"s{i % 13}" for i in range(200)]),
                  "c": pa.array([i * 0.5 for i in range(200)], pa.float64())})


class ArrowKms(pe.KmsClient):
    """pyarrow's side of the same test KMS."""

    def __init__(self, config):
        super().__init__()

    def wrap_key(self, key_bytes, master_key_identifier):
        return KMS.wrap_key(key_bytes, master_key_identifier)

    def unwrap_key(self, wrapped_key, master_key_identifier):
        return KMS.unwrap_key(wrapped_key, master_key_identifier)


ARROW_FACTORY = pe.CryptoFactory(ArrowKms)
CONNECTION = pe.KmsConnectionConfig()
COMBINATIONS = [pytest.param(*c, id="-".join(map(str, c))) for c in itertools.product(
    ["uniform", "per-column"], ["double", "single"], ["internal", "external"],
    ["encrypted-footer", "plaintext-footer"], ["AES_GCM_V1", "AES_GCM_CTR_V1"])]


def _settings(keys, wrapping, material, footer, algorithm):
    return dict(footer_key="kf", uniform_encryption=keys == "uniform",
                column_keys=None if keys == "uniform" else {"kc1": ["a"], "kc2": ["c"]},
                double_wrapping=wrapping == "double",
                internal_key_material=material == "internal",
                plaintext_footer=footer == "plaintext-footer",
                encryption_algorithm=algorithm)


@pytest.mark.parametrize("keys, wrapping, material, footer, algorithm", COMBINATIONS)
def test_pqkit_reads_what_pyarrows_crypto_factory_writes(tmp_path, keys, wrapping, material,
                                                         footer, algorithm):
    path = str(tmp_path / "arrow.parquet")
    config = pe.EncryptionConfiguration(**_settings(keys, wrapping, material, footer,
                                                    algorithm))
    props = ARROW_FACTORY.file_encryption_properties(CONNECTION, config, path,
                                                     pafs.LocalFileSystem())
    pq.write_table(TABLE, path, encryption_properties=props)
    assert os.path.exists(os.path.join(tmp_path, "_KEY_MATERIAL_FOR_arrow.parquet.json")) \
        == (material == "external")
    assert pa.table(pqkit.read_table(path, kms_client=KMS)).equals(TABLE)


@pytest.mark.parametrize("keys, wrapping, material, footer, algorithm", COMBINATIONS)
def test_pyarrows_crypto_factory_reads_what_pqkit_writes(tmp_path, keys, wrapping, material,
                                                         footer, algorithm):
    path = str(tmp_path / "pqkit.parquet")
    config = EncryptionConfiguration(**_settings(keys, wrapping, material, footer, algorithm))
    pqkit.write_table(TABLE, path, encryption=config, kms_client=KMS)
    props = ARROW_FACTORY.file_decryption_properties(CONNECTION, pe.DecryptionConfiguration(),
                                                     path, pafs.LocalFileSystem())
    assert pq.read_table(path, decryption_properties=props).equals(TABLE)


def test_parquet_javas_external_key_material_reads_as_in_pyarrow():
    """100 rows written by parquet-mr with double wrapping and external key material:
    ``integers`` 0..99 and ``strings`` the letter a..j of the last digit, then the row number."""
    root = corpus_root()
    if root is None:
        pytest.skip("the parquet-testing corpus is not available")
    path = os.path.join(root, "data", "external_key_material_java.parquet.encrypted")
    props = ARROW_FACTORY.file_decryption_properties(CONNECTION, pe.DecryptionConfiguration(),
                                                     path, pafs.LocalFileSystem())
    expected = pq.read_table(path, decryption_properties=props)
    table = pqkit.read_table(path, kms_client=KMS)
    assert table.to_pydict() == expected.to_pydict()
    assert table.column("integers").to_pylist() == list(range(100))
    assert table.column("strings").to_pylist() == ["abcdefghij"[i % 10] + str(i)
                                                   for i in range(100)]
