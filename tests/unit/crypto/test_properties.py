"""The caller's keys: checked once, named by column path, never shown."""
import pytest

import pqkit
from pqkit.crypto.properties import DecryptionProperties, EncryptionProperties


@pytest.mark.parametrize("key, match", [(b"short", "has 5 bytes"),
                                        ("0123456789012345", "must be bytes")])
def test_keys_must_be_aes_sized_bytes(key, match):
    with pytest.raises(pqkit.ArgumentError, match=f"footer_key {match}"):
        DecryptionProperties(footer_key=key)
    with pytest.raises(pqkit.ArgumentError, match=r"column_keys\['a.b'\]"):
        DecryptionProperties(column_keys={("a", "b"): key})


def test_columns_are_named_by_dotted_path():
    props = DecryptionProperties(column_keys={("a", "b"): b"k" * 16, "c": b"k" * 24})
    assert sorted(props.column_keys) == ["a.b", "c"]


def test_repr_never_shows_a_key():
    key = b"secret-key-16byt"
    for props in (DecryptionProperties(footer_key=key, column_keys={"a": key}),
                  EncryptionProperties(key, {"a": key}, aad_prefix=b"p")):
        assert "secret" not in repr(props)


def test_encryption_settings_are_checked():
    with pytest.raises(pqkit.ArgumentError, match="algorithm"):
        EncryptionProperties(b"k" * 16, algorithm="AES_CBC")
    with pytest.raises(pqkit.ArgumentError, match="without a key"):
        EncryptionProperties(b"k" * 16, {"a": b"k" * 16}, column_key_metadata={"b": b"id"})
    with pytest.raises(pqkit.ArgumentError, match="uniform"):
        EncryptionProperties(b"k" * 16, {})
    assert EncryptionProperties(b"k" * 16).uniform


def test_read_options_take_only_decryption_properties():
    with pytest.raises(pqkit.ArgumentError, match="DecryptionProperties"):
        pqkit.ReadOptions(decryption={"footer_key": b"k" * 16})
    options = pqkit.ReadOptions().with_keys(footer_key=b"k" * 16)
    assert options.decryption.footer_key == b"k" * 16
