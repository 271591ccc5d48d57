"""Issue 32: pyarrow reads what pqkit encrypts, and pqkit reads what pyarrow encrypts,
for every combination pyarrow's explicit-key API expresses: uniform encryption with
algorithm AES_GCM_V1 / AES_GCM_CTR_V1, encrypted / plaintext footer, and no AAD prefix /
a prefix stored / a prefix the reader supplies (pyarrow's
``create_encryption_properties`` and ``create_decryption_properties``)."""
import itertools

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe
import pytest

import pqkit

pytestmark = pytest.mark.interop

KEY = b"0123456789012345"
ROWS = 3000
TABLE = pa.table({
    "id": pa.array(range(ROWS), pa.int64()),
    "name": pa.array([None if i % 11 == 0 else f"name-{i % 97}" for i in range(ROWS)]),
    "score": pa.array([i / 7 for i in range(ROWS)], pa.float64()),
    "tags": pa.array([[i, i + 1] if i % 5 else None for i in range(ROWS)],
                     pa.list_(pa.int32())),
})
PREFIXES = {"no-prefix": (None, True), "prefix-stored": (b"table.part-3", True),
            "prefix-supplied": (b"table.part-3", False)}
COMBINATIONS = [pytest.param(alg, footer, prefix, id=f"{alg}-{footer}-{prefix}")
                for alg, footer, prefix in itertools.product(
                    ["AES_GCM_V1", "AES_GCM_CTR_V1"], ["encrypted-footer", "plaintext-footer"],
                    PREFIXES)]


def _supplied(prefix):
    aad, stored = PREFIXES[prefix]
    return None if stored else aad


@pytest.mark.parametrize("algorithm, footer, prefix", COMBINATIONS)
@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
def test_pyarrow_reads_what_pqkit_encrypts(tmp_path, algorithm, footer, prefix, page_version):
    aad, stored = PREFIXES[prefix]
    path = tmp_path / "pqkit.parquet"
    props = pqkit.EncryptionProperties(KEY, algorithm=algorithm,
                                       plaintext_footer=footer == "plaintext-footer",
                                       aad_prefix=aad, store_aad_prefix=stored)
    pqkit.write_table(TABLE, path, encryption=props, row_group_size=1000,
                      data_page_size=2048, data_page_version=page_version,
                      bloom_filter_columns=["id"])
    decryption = pe.create_decryption_properties(KEY, aad_prefix=_supplied(prefix))
    assert pq.read_table(path, decryption_properties=decryption).equals(TABLE)
    if footer == "plaintext-footer" and stored:
        # pyarrow opens a plaintext footer without keys, but every column is encrypted
        assert pq.ParquetFile(path).metadata.num_rows == ROWS


@pytest.mark.parametrize("algorithm, footer, prefix", COMBINATIONS)
def test_pqkit_reads_what_pyarrow_encrypts(tmp_path, algorithm, footer, prefix):
    aad, stored = PREFIXES[prefix]
    path = tmp_path / "pyarrow.parquet"
    props = pe.create_encryption_properties(
        KEY, aad_prefix=aad, store_aad_prefix=stored, encryption_algorithm=algorithm,
        plaintext_footer=footer == "plaintext-footer")
    pq.write_table(TABLE, path, encryption_properties=props, row_group_size=1000,
                   data_page_size=2048, write_page_index=True)
    table = pqkit.read_table(path, footer_key=KEY, aad_prefix=_supplied(prefix))
    assert pa.table(table).equals(TABLE)
    with pqkit.ParquetFile(path, footer_key=KEY, aad_prefix=_supplied(prefix)) as f:
        assert pa.table(f.take([2999, 5, 1000])).column("id").to_pylist() == [2999, 5, 1000]
        hit = f.read(filters=[("id", "==", 2500)])
        assert pa.table(hit).column("score").to_pylist() == [2500 / 7]
