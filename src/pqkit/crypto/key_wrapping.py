"""Wrapping a key with another key, locally: AES-GCM with an AAD, encoded as base64.

The wrapped form is ``base64(nonce (12) | ciphertext | tag (16))``, no length prefix.
Double wrapping seals a data key with a key-encryption key (AAD: the KEK's id, its
raw bytes); test KMS clients seal with a master key (AAD: the master key's id).
"""
import base64
import binascii

from pqkit.crypto.ciphers import LENGTH_SIZE, gcm_open, gcm_seal
from pqkit.errors import DecryptionError

__all__ = ["wrap_locally", "unwrap_locally"]


def wrap_locally(key, wrapping_key, aad):
    """``key`` sealed with ``wrapping_key``, as base64 text."""
    return base64.b64encode(gcm_seal(wrapping_key, key, aad)[LENGTH_SIZE:]).decode("ascii")


def unwrap_locally(wrapped, wrapping_key, aad, what="a wrapped key"):
    """The key that :func:`wrap_locally` sealed.

    Raises
    ------
    DecryptionError
        Not base64, or the wrapping key or AAD is wrong.
    """
    try:
        sealed = base64.b64decode(wrapped, validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise DecryptionError(f"{what} is not base64 text") from None
    module = len(sealed).to_bytes(LENGTH_SIZE, "little") + sealed
    return gcm_open(wrapping_key, module, aad, what)
