"""pqkit.encryption: the public names of the encryption API."""
import io

import pqkit
import pqkit.encryption as enc


def test_the_public_names_round_trip_a_file():
    kms = enc.InMemoryKms({"kf": b"0123456789012345", "kc1": b"1234567890123450"})
    config = enc.EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ["id"]})
    buf = io.BytesIO()
    pqkit.write_table({"id": [1, 2]}, buf, encryption=config, kms_client=kms)
    assert pqkit.read_table(io.BytesIO(buf.getvalue()), kms_client=kms).to_pydict() == \
        {"id": [1, 2]}
    assert enc.EncryptionProperties is pqkit.EncryptionProperties
    assert issubclass(enc.InMemoryKms, enc.KmsClient)
