"""The in-memory test KMS: its master keys, its wrap format, its errors."""
import base64

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import pqkit
from pqkit.crypto.kms import InMemoryKms, KmsClient

MASTER = b"0123456789012345"


def test_it_wraps_with_the_master_key_and_its_id_as_aad():
    kms = InMemoryKms({"kf": MASTER})
    wrapped = base64.b64decode(kms.wrap_key(b"k" * 16, "kf"))
    assert AESGCM(MASTER).decrypt(wrapped[:12], wrapped[12:], b"kf") == b"k" * 16
    assert kms.unwrap_key(kms.wrap_key(b"k" * 16, "kf"), "kf") == b"k" * 16


def test_an_unknown_master_key_is_a_missing_key():
    with pytest.raises(pqkit.MissingKeyError, match="no master key 'kx'"):
        InMemoryKms({"kf": MASTER}).wrap_key(b"k" * 16, "kx")
    with pytest.raises(pqkit.ArgumentError, match="master key 'kf'"):
        InMemoryKms({"kf": b"short"})


def test_the_interface_must_be_implemented():
    with pytest.raises(NotImplementedError):
        KmsClient().wrap_key(b"k", "kf")
