"""A file's decryption state: its file AAD, where its keys come from, what it refuses."""
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.crypto.ciphers import gcm_seal
from pqkit.crypto.decryptor import FileDecryptor
from pqkit.crypto.modules import ModuleType, module_aad
from pqkit.crypto.properties import DecryptionProperties

KEY = b"k" * 16


def gcm(prefix=None, unique=b"U", supply=None):
    return fmt.EncryptionAlgorithm(AES_GCM_V1=fmt.AesGcmV1(
        aad_prefix=prefix, aad_file_unique=unique, supply_aad_prefix=supply))


def test_the_file_aad_is_the_prefix_then_the_unique_part():
    stored = FileDecryptor(gcm(prefix=b"P"), None, None, "f")
    supplied = FileDecryptor(gcm(supply=True), DecryptionProperties(aad_prefix=b"Q"), None,
                             "f")
    assert (stored.file_aad, supplied.file_aad) == (b"PU", b"QU")
    assert not stored.ctr_pages


def test_an_encrypted_footer_opens_with_the_footer_key():
    module = gcm_seal(KEY, b"footer bytes", module_aad(b"PU", ModuleType.FOOTER))
    decryptor = FileDecryptor(gcm(prefix=b"P"), DecryptionProperties(footer_key=KEY),
                              b"kf", "f")
    assert decryptor.open_footer(module, 100) == b"footer bytes"
    with pytest.raises(pqkit.MissingKeyError, match="'kf'"):
        FileDecryptor(gcm(), DecryptionProperties(), b"kf", "f").open_footer(module, 100)


def test_a_failing_key_retriever_is_reported_with_the_key_metadata():
    def retrieve(key_metadata):
        raise LookupError(f"no key {key_metadata!r}")

    decryptor = FileDecryptor(gcm(), DecryptionProperties(key_retriever=retrieve),
                              b"kf", "f")
    with pytest.raises(pqkit.MissingKeyError, match="the footer: LookupError: no key b'kf'"):
        decryptor.footer_key()


def test_a_missing_or_different_prefix_is_refused():
    with pytest.raises(pqkit.DecryptionError, match="differs"):
        FileDecryptor(gcm(prefix=b"P"), DecryptionProperties(aad_prefix=b"Q"), None, "f")
    decryptor = FileDecryptor(gcm(supply=True), DecryptionProperties(footer_key=KEY),
                              None, "f")
    with pytest.raises(pqkit.MissingKeyError, match="aad_prefix"):
        decryptor.open_footer(b"\0" * 40, 0)


def test_a_key_retriever_giving_a_bad_key_is_refused_by_name():
    decryptor = FileDecryptor(gcm(), DecryptionProperties(key_retriever=lambda m: b"short"),
                              b"kf", "f")
    with pytest.raises(pqkit.ArgumentError, match="key retriever gave for the footer has 5"):
        decryptor.footer_key()


def test_crypto_metadata_naming_no_key_is_corrupt():
    chunk = fmt.ColumnChunk(file_offset=0, crypto_metadata=fmt.ColumnCryptoMetaData())
    with pytest.raises(pqkit.CorruptFileError, match="names neither the footer key"):
        FileDecryptor(gcm(), DecryptionProperties(), None, "f").column_key(chunk)
