"""Local key wrapping: base64 of nonce, ciphertext and tag, bound to its AAD."""
import base64

import pytest

import pqkit
from pqkit.crypto.key_wrapping import unwrap_locally, wrap_locally

KEK = b"K" * 16


def test_a_wrapped_key_is_base64_of_nonce_ciphertext_tag():
    wrapped = wrap_locally(b"d" * 16, KEK, b"id")
    assert len(base64.b64decode(wrapped)) == 12 + 16 + 16
    assert unwrap_locally(wrapped, KEK, b"id") == b"d" * 16


@pytest.mark.parametrize("wrapped, kek, aad, match", [
    ("not base64!", KEK, b"id", "not base64"),
    (None, b"L" * 16, b"id", "authentication failed"),
    (None, KEK, b"other id", "authentication failed"),
])
def test_a_wrong_wrapping_key_or_aad_is_a_decryption_error(wrapped, kek, aad, match):
    wrapped = wrapped or wrap_locally(b"d" * 16, KEK, b"id")
    with pytest.raises(pqkit.DecryptionError, match=match):
        unwrap_locally(wrapped, kek, aad)
