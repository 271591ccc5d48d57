"""Files pqkit encrypts: their layout (magic, crypto metadata, what a plaintext footer
shows) and reading them back with the keys, through every module kind."""
import io

import pytest

import pqkit
from pqkit.tail import MAGIC, MAGIC_ENCRYPTED

FOOTER = b"F" * 16
KEY_A = b"A" * 24
KEY_S = b"S" * 32
DATA = {"a": list(range(500)), "s": [f"v{i % 7}" if i % 3 else None for i in range(500)],
        "n": [i * 0.25 for i in range(500)]}
SETTINGS = dict(row_group_size=200, data_page_size=256, bloom_filter_columns=["a", "s"])


def written(encryption, **settings):
    buf = io.BytesIO()
    pqkit.write_table(DATA, buf, encryption=encryption, **{**SETTINGS, **settings})
    return buf.getvalue()


@pytest.mark.parametrize("algorithm", ["AES_GCM_V1", "AES_GCM_CTR_V1"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_uniform_encryption_reads_back_through_every_module(algorithm, version):
    data = written(pqkit.EncryptionProperties(FOOTER, algorithm=algorithm),
                   data_page_version=version)
    assert data[:4] == data[-4:] == MAGIC_ENCRYPTED
    with pqkit.ParquetFile(io.BytesIO(data), footer_key=FOOTER) as f:
        assert f.read().to_pydict() == DATA
        assert all(f.might_contain("a", g, 200 * g + 5) for g in range(3))
        stats = pqkit.ReadStatistics()
        hit = f.read(filters=[("a", "==", 321)], statistics=stats)
        assert hit.to_pydict() == {"a": [321], "s": [DATA["s"][321]], "n": [80.25]}
        assert stats.pages_skipped > 0             # through the encrypted page index
        assert f.take([499, 0]).to_pydict()["a"] == [499, 0]
        chunk = f.metadata.raw.row_groups[1].columns[0]
        assert chunk.crypto_metadata.ENCRYPTION_WITH_FOOTER_KEY is not None
        assert chunk.meta_data.statistics.min_value is not None
    with pytest.raises(pqkit.EncryptedFileError):
        pqkit.read_table(io.BytesIO(data))


def test_column_keys_encrypt_only_their_columns_under_a_plaintext_footer():
    props = pqkit.EncryptionProperties(FOOTER, {"a": KEY_A, "s": KEY_S},
                                       plaintext_footer=True, aad_prefix=b"part-0",
                                       column_key_metadata={"a": b"ka"})
    data = written(props)
    assert data[:4] == data[-4:] == MAGIC
    plain = pqkit.read_metadata(io.BytesIO(data))          # no key: the footer is visible
    chunk = plain.raw.row_groups[0].columns[0]
    assert chunk.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY.key_metadata == b"ka"
    assert chunk.meta_data.statistics is None              # stripped for old readers
    assert plain.raw.row_groups[0].columns[2].crypto_metadata is None
    assert pqkit.read_table(io.BytesIO(data), columns=["n"]).to_pydict() == {"n": DATA["n"]}
    with pytest.raises(pqkit.MissingKeyError, match="column s"):
        pqkit.read_table(io.BytesIO(data), columns=["s"], footer_key=FOOTER,
                         column_keys={"a": KEY_A})
    keyed = pqkit.read_metadata(io.BytesIO(data), footer_key=FOOTER,
                                column_keys={"a": KEY_A, "s": KEY_S})
    assert keyed.row_group(0).column(0).statistics.max == 199
    assert pqkit.read_table(io.BytesIO(data), key_retriever={b"ka": KEY_A}.get,
                            footer_key=FOOTER, column_keys={"s": KEY_S}).to_pydict() == DATA


def test_an_encrypted_footer_hides_the_metadata_of_columns_with_own_keys():
    props = pqkit.EncryptionProperties(FOOTER, {"s": KEY_S}, aad_prefix=b"p",
                                       store_aad_prefix=False)
    data = written(props)
    with pytest.raises(pqkit.MissingKeyError, match="aad_prefix"):
        pqkit.read_table(io.BytesIO(data), footer_key=FOOTER)
    with pqkit.ParquetFile(io.BytesIO(data), footer_key=FOOTER, aad_prefix=b"p") as f:
        assert f.metadata.raw.row_groups[0].columns[1].meta_data is None
        assert f.read(columns=["a", "n"]).to_pydict() == {"a": DATA["a"], "n": DATA["n"]}
    assert pqkit.read_table(io.BytesIO(data), footer_key=FOOTER, aad_prefix=b"p",
                            column_keys={"s": KEY_S}).to_pydict() == DATA


def test_a_page_moved_within_its_column_fails_authentication():
    """Two equal-sized pages of one column swapped: each decrypts only at its own ordinal
    (a plain file would read, with the rows out of order)."""
    data = bytearray(written(pqkit.EncryptionProperties(FOOTER), compression=None,
                             use_dictionary=False, row_group_size=500))
    with pqkit.ParquetFile(io.BytesIO(bytes(data)), footer_key=FOOTER) as f:
        from pqkit.read.fetch.page_index import read_page_index
        oi = read_page_index(f._source, 0, "a", f.metadata).offset_index
    first, second = next((p, q) for p in oi.page_locations for q in oi.page_locations
                         if p is not q and p.compressed_page_size == q.compressed_page_size)
    size = first.compressed_page_size
    a = bytes(data[first.offset:first.offset + size])
    data[first.offset:first.offset + size] = data[second.offset:second.offset + size]
    data[second.offset:second.offset + size] = a
    with pytest.raises(pqkit.DecryptionError, match="data page header at offset"):
        pqkit.read_table(io.BytesIO(bytes(data)), footer_key=FOOTER, columns=["a"])


def test_append_refuses_to_encrypt(tmp_path):
    path = tmp_path / "f.parquet"
    pqkit.write_table({"a": [1]}, path)
    with pytest.raises(pqkit.ArgumentError, match="append=True cannot encrypt"):
        pqkit.ParquetWriter(path, [pqkit.datatypes.field("a", pqkit.datatypes.int64())],
                            append=True, encryption=pqkit.EncryptionProperties(FOOTER))


def test_a_remote_encrypted_file_reads_through_ranged_requests():
    url = "memory://pqkit-encryption/remote.parquet"
    props = pqkit.EncryptionProperties(FOOTER, {"s": KEY_S}, plaintext_footer=True)
    pqkit.write_table(DATA, url, encryption=props, **SETTINGS)
    hit = pqkit.read_table(url, footer_key=FOOTER, column_keys={"s": KEY_S},
                           filters=[("a", ">=", 498)])
    assert hit.to_pydict() == {"a": [498, 499], "s": [DATA["s"][498], DATA["s"][499]],
                               "n": [124.5, 124.75]}
    assert pqkit.read_table(url, columns=["a"]).to_pydict() == {"a": DATA["a"]}
