"""Sealing and opening modules: the framing, authentication and the CTR pages."""
import struct
import sys

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import pqkit
from pqkit.crypto import ciphers
from pqkit.crypto.ciphers import ctr_open, ctr_seal, gcm_open, gcm_seal, gcm_tag, module_span

KEY = bytes(range(16))


def test_a_gcm_module_is_length_nonce_ciphertext_tag():
    module = gcm_seal(KEY, b"hello", b"aad", nonce=b"n" * 12)
    assert struct.unpack_from("<I", module)[0] == len(module) - 4 == 12 + 5 + 16
    assert module[4:16] == b"n" * 12
    assert module[16:] == AESGCM(KEY).encrypt(b"n" * 12, b"hello", b"aad")
    assert gcm_open(KEY, module, b"aad", "m") == b"hello"
    assert gcm_tag(KEY, b"hello", b"aad", b"n" * 12) == module[-16:]


@pytest.mark.parametrize("change", [
    lambda m: m[:20] + bytes([m[20] ^ 1]) + m[21:],      # a ciphertext byte
    lambda m: m[:-1] + bytes([m[-1] ^ 0x80]),            # the tag
    lambda m: m[:4] + bytes([m[4] ^ 1]) + m[5:],         # the nonce
])
def test_a_changed_byte_fails_authentication(change):
    module = gcm_seal(KEY, b"some page bytes", b"aad")
    with pytest.raises(pqkit.DecryptionError, match="page 7: authentication failed"):
        gcm_open(KEY, change(module), b"aad", "page 7")


def test_a_wrong_aad_or_key_fails_authentication():
    module = gcm_seal(KEY, b"x", b"row group 0")
    with pytest.raises(pqkit.DecryptionError):
        gcm_open(KEY, module, b"row group 1", "m")
    with pytest.raises(pqkit.DecryptionError):
        gcm_open(bytes(16), module, b"row group 0", "m")


def test_bad_framing_is_a_decryption_error():
    module = gcm_seal(KEY, b"abc", b"")
    with pytest.raises(pqkit.DecryptionError, match="states 31 bytes, holds 30"):
        gcm_open(KEY, module[:-1], b"", "m")
    with pytest.raises(pqkit.DecryptionError, match="too short"):
        gcm_open(KEY, module[:10], b"", "m")
    with pytest.raises(pqkit.DecryptionError, match="runs 1 bytes past"):
        module_span(module[:-1], 0, "m")
    assert module_span(b"xx" + module, 2, "m") == len(module)


def test_ctr_modules_round_trip_without_a_tag():
    module = ctr_seal(KEY, b"page" * 10)
    assert len(module) == 4 + 12 + 40
    assert ctr_open(KEY, module, "m") == b"page" * 10


def test_without_cryptography_the_message_names_the_extra(monkeypatch):
    monkeypatch.setattr(ciphers, "_modules", {})
    monkeypatch.setattr(ciphers, "_gcm_by_key", {})
    for name in list(sys.modules):
        if name.startswith("cryptography"):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "cryptography", None)
    with pytest.raises(pqkit.MissingDependencyError, match=r"pqkit\[encryption\]"):
        gcm_seal(KEY, b"x", b"")
