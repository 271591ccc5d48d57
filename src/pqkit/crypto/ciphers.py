"""Sealing and opening one module with AES-GCM or AES-CTR (OpenSSL, via ``cryptography``).

Every module is stored as ``length (u32 LE) | nonce (12) | ciphertext | tag (16)``
for GCM, or ``length | nonce | ciphertext`` for CTR (pages of AES_GCM_CTR_V1 only),
``length`` counting the bytes after it. CTR's 16-byte IV is the nonce followed by
the counter 1 (big-endian). A plaintext footer is signed by the GCM tag of its
bytes: the file stores only ``nonce | tag``.
"""
import os
import struct

from pqkit.errors import DecryptionError, require

__all__ = ["NONCE_SIZE", "TAG_SIZE", "SIGNATURE_SIZE", "module_span", "gcm_open",
           "ctr_open", "gcm_seal", "ctr_seal", "gcm_tag"]

NONCE_SIZE = 12
TAG_SIZE = 16
LENGTH_SIZE = 4
SIGNATURE_SIZE = NONCE_SIZE + TAG_SIZE
_CTR_COUNTER = b"\x00\x00\x00\x01"
_FEATURE = "Parquet modular encryption"


_modules = {}       # name -> the imported cryptography module (imported on first use)
_gcm_by_key = {}    # key -> its AESGCM object: building one costs as much as a small page


def _module(name):
    found = _modules.get(name)
    if found is None:
        found = _modules[name] = require(name, "encryption", _FEATURE)
    return found


def _gcm(key):
    gcm = _gcm_by_key.get(key)
    if gcm is None:
        if len(_gcm_by_key) > 1024:         # keys of many files: keep the cache small
            _gcm_by_key.clear()
        gcm = _gcm_by_key[key] = _module(
            "cryptography.hazmat.primitives.ciphers.aead").AESGCM(key)
    return gcm


def _ctr_cipher(key, nonce):
    ciphers = _module("cryptography.hazmat.primitives.ciphers")
    return ciphers.Cipher(ciphers.algorithms.AES(bytes(key)),
                          ciphers.modes.CTR(bytes(nonce) + _CTR_COUNTER))


def module_span(data, pos, where, whole=True):
    """Bytes of the module at ``pos`` of ``data``, its length prefix included.

    Raises
    ------
    DecryptionError
        The prefix, or (``whole``) the module, runs past ``data``.
    """
    if pos + LENGTH_SIZE > len(data):
        raise DecryptionError(f"{where}: truncated encrypted module (no length prefix)")
    (length,) = struct.unpack_from("<I", data, pos)
    if whole and pos + LENGTH_SIZE + length > len(data):
        raise DecryptionError(f"{where}: encrypted module of {length} bytes runs "
                              f"{pos + LENGTH_SIZE + length - len(data)} bytes past its "
                              "container")
    return LENGTH_SIZE + length


def _body(module, minimum, where):
    view = memoryview(module)
    if len(view) < LENGTH_SIZE + minimum:
        raise DecryptionError(f"{where}: encrypted module of {len(view)} bytes is too "
                              "short")
    (length,) = struct.unpack_from("<I", view, 0)
    if length != len(view) - LENGTH_SIZE:
        raise DecryptionError(f"{where}: encrypted module states {length} bytes, "
                              f"holds {len(view) - LENGTH_SIZE}")
    return view[LENGTH_SIZE:]


def gcm_open(key, module, aad, where):
    """The plaintext of a GCM module (its length prefix included in ``module``).

    Raises
    ------
    DecryptionError
        Bad framing, or the tag does not authenticate (wrong key or AAD, changed bytes).
    """
    body = _body(module, NONCE_SIZE + TAG_SIZE, where)
    gcm = _gcm(bytes(key))
    invalid = _module("cryptography.exceptions").InvalidTag
    try:
        return gcm.decrypt(body[:NONCE_SIZE], body[NONCE_SIZE:], aad)
    except invalid:
        raise DecryptionError(f"{where}: authentication failed (a wrong key or AAD "
                              "prefix, or the file's bytes were changed)") from None


def ctr_open(key, module, where):
    """The plaintext of a CTR module (pages of AES_GCM_CTR_V1; not authenticated)."""
    body = _body(module, NONCE_SIZE, where)
    dec = _ctr_cipher(key, body[:NONCE_SIZE]).decryptor()
    return dec.update(body[NONCE_SIZE:]) + dec.finalize()


def gcm_seal(key, plaintext, aad, nonce=None):
    """``plaintext`` sealed as a GCM module, length prefix first."""
    nonce = os.urandom(NONCE_SIZE) if nonce is None else nonce
    sealed = _gcm(bytes(key)).encrypt(nonce, bytes(plaintext), aad)
    return struct.pack("<I", NONCE_SIZE + len(sealed)) + nonce + sealed


def ctr_seal(key, plaintext):
    """``plaintext`` as a CTR module, length prefix first."""
    nonce = os.urandom(NONCE_SIZE)
    enc = _ctr_cipher(key, nonce).encryptor()
    sealed = enc.update(bytes(plaintext)) + enc.finalize()
    return struct.pack("<I", NONCE_SIZE + len(sealed)) + nonce + sealed


def gcm_tag(key, plaintext, aad, nonce):
    """The GCM tag of ``plaintext`` (a plaintext footer's signature is nonce + tag)."""
    return _gcm(bytes(key)).encrypt(bytes(nonce), bytes(plaintext), aad)[-TAG_SIZE:]
