"""The crypto factory: fresh data keys per file, KEKs cached per master key, key material
in the file or beside it, and the keys found again on read."""
import datetime
import io
import json

import pytest

import pqkit
from pqkit.crypto.key_tools import CryptoFactory, EncryptionConfiguration
from pqkit.crypto.kms import InMemoryKms

MASTER = {"kf": b"0123456789012345", "kc1": b"1234567890123450"}
DATA = {"id": [1, 2, 3], "ssn": ["a", "b", "c"]}


class CountingKms(InMemoryKms):
    def __init__(self):
        super().__init__(MASTER)
        self.wraps = self.unwraps = 0

    def wrap_key(self, key_bytes, master_key_identifier):
        self.wraps += 1
        return super().wrap_key(key_bytes, master_key_identifier)

    def unwrap_key(self, wrapped_key, master_key_identifier):
        self.unwraps += 1
        return super().unwrap_key(wrapped_key, master_key_identifier)


def test_double_wrapping_calls_the_kms_once_per_master_key_and_lifetime():
    kms = CountingKms()
    factory = CryptoFactory(kms)
    config = EncryptionConfiguration("kf", {"kc1": ["ssn"]})
    first = factory.file_encryption_properties(config)
    second = factory.file_encryption_properties(config)
    assert kms.wraps == 2                              # one KEK per master key
    assert first.footer_key != second.footer_key       # fresh data keys per file
    expired = EncryptionConfiguration("kf", {"kc1": ["ssn"]},
                                      cache_lifetime=datetime.timedelta(0))
    factory.file_encryption_properties(expired)
    factory.file_encryption_properties(expired)
    assert kms.wraps == 6


def test_single_wrapping_stores_the_kms_wrapped_data_key():
    props = CryptoFactory(InMemoryKms(MASTER)).file_encryption_properties(
        EncryptionConfiguration("kf", uniform_encryption=True, double_wrapping=False))
    material = json.loads(props.footer_key_metadata)
    assert material["doubleWrapping"] is False and "wrappedKEK" not in material
    assert InMemoryKms(MASTER).unwrap_key(material["wrappedDEK"], "kf") == props.footer_key


def test_external_key_material_is_written_beside_the_file(tmp_path):
    path = tmp_path / "f.parquet"
    kms = CountingKms()
    config = EncryptionConfiguration("kf", {"kc1": ["ssn"]}, internal_key_material=False)
    pqkit.write_table(DATA, path, encryption=config, kms_client=kms)
    stored = json.loads((tmp_path / "_KEY_MATERIAL_FOR_f.parquet.json").read_text())
    assert sorted(stored) == ["columnKey0", "footerKey"]
    assert pqkit.read_table(path, kms_client=kms).to_pydict() == DATA
    assert kms.unwraps == 2                            # one KEK per master key
    (tmp_path / "_KEY_MATERIAL_FOR_f.parquet.json").unlink()
    with pytest.raises(pqkit.MissingKeyError, match="cannot read the external key material"):
        pqkit.read_table(path, kms_client=kms)
    with pytest.raises(pqkit.ArgumentError, match="parquet_file_path"):
        CryptoFactory(kms).file_encryption_properties(config)


def test_a_kms_without_the_master_key_names_it():
    buf = io.BytesIO()
    pqkit.write_table(DATA, buf, encryption=EncryptionConfiguration("kf", {"kc1": ["ssn"]}),
                      kms_client=InMemoryKms(MASTER))
    partial = InMemoryKms({"kf": MASTER["kf"]})
    assert pqkit.read_table(io.BytesIO(buf.getvalue()), columns=["id"],
                            kms_client=partial).to_pydict() == {"id": [1, 2, 3]}
    with pytest.raises(pqkit.MissingKeyError, match="no master key 'kc1'"):
        pqkit.read_table(io.BytesIO(buf.getvalue()), kms_client=partial)


@pytest.mark.parametrize("settings, match", [
    ({"column_keys": None}, "uniform_encryption"),
    ({"uniform_encryption": True}, "not both"),
    ({"encryption_algorithm": "AES"}, "encryption_algorithm"),
    ({"data_key_length_bits": 100}, "data_key_length_bits"),
])
def test_configurations_are_checked(settings, match):
    with pytest.raises(pqkit.ArgumentError, match=match):
        EncryptionConfiguration(**{"footer_key": "kf", "column_keys": {"kc1": ["a"]},
                                   **settings})


def test_a_configuration_needs_a_kms_client():
    with pytest.raises(pqkit.ArgumentError, match="kms_client"):
        pqkit.write_table(DATA, io.BytesIO(),
                          encryption=EncryptionConfiguration("kf", uniform_encryption=True))
