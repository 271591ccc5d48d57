"""Fuzz encrypted files: the encrypted and signed footers, column metadata, page headers,
pages, page indexes and bloom filters, read with the keys of the seeds.

Seeds: pqkit files encrypted every way it writes (uniform and per column, AES_GCM_V1 and
AES_GCM_CTR_V1, encrypted and plaintext footer, AAD prefix stored) and the small
encrypted files of parquet-testing, all under parquet-cpp's test keys, which every read
is given. Anything but a result or a :class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_encrypted.py -max_total_time=20 [corpus dir ...]
"""
import io

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit

FOOTER = b"0123456789012345"
COLUMNS = {"double_field": b"1234567890123450", "float_field": b"1234567890123451"}
SETTINGS = [dict(), dict(algorithm="AES_GCM_CTR_V1"), dict(plaintext_footer=True),
            dict(column_keys=COLUMNS, plaintext_footer=True),
            dict(column_keys=COLUMNS, aad_prefix=b"tester")]


def encrypted_seeds():
    n = 40
    data = {"double_field": [i * 0.5 for i in range(n)],
            "float_field": [float(i) for i in range(n)],
            "s": [None if i % 5 == 0 else f"v{i % 7}" for i in range(n)]}
    for settings in SETTINGS:
        out = io.BytesIO()
        pqkit.write_table(data, out, data_page_size=64, bloom_filter_columns=["s"],
                          encryption=pqkit.EncryptionProperties(FOOTER, **settings))
        yield out.getvalue()
    if seeds.TESTING is not None:
        for path in sorted(seeds.TESTING.rglob("*.parquet.encrypted")):
            if path.stat().st_size <= seeds.MAX_SEED and "aes256" not in path.parts:
                yield path.read_bytes()


def read(data, prefix):
    with pqkit.ParquetFile(data, footer_key=FOOTER, column_keys=COLUMNS,
                           aad_prefix=prefix) as f:
        f.read().to_pydict()
        f.read(filters=[("double_field", ">", 3.0)]).to_pydict()


def test_one(data):
    try:
        read(data, None)
    except pqkit.MissingKeyError:       # a file that does not store its AAD prefix
        try:
            read(data, b"tester")
        except pqkit.ParquetError:
            pass
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("encrypted", test_one, seeds_of=encrypted_seeds)
