"""Reading and writing encrypted Parquet: pqkit against itself unencrypted and against
pyarrow, single-threaded, interleaved.

A table of ``--rows`` rows and 8 columns (int64, float64, int32, dictionary strings,
each twice) is written by both libraries three ways: unencrypted, and with half of the
columns encrypted under per-column keys (AES_GCM_V1, encrypted footer) through each
library's KMS key tools with the same in-memory test KMS. Each round reads every file
once with each library (``use_threads=False``), writes the encrypted file once with
each and the plain file once with pqkit; the median of ``--rounds`` rounds is reported. Usage::

    python tools/bench/encryption_bench.py [--rows 1000000] [--rounds 7] [--dir /tmp/enc_bench]
"""
import argparse
import os
import statistics
import time

import numpy as np

MASTER_KEYS = {"kf": b"0123456789012345", "kc1": b"1234567890123450"}
ENCRYPTED = ["i64", "f64", "i32", "s"]


def _table(rows):
    import pyarrow as pa
    rng = np.random.default_rng(32)
    words = np.char.add("w", rng.integers(0, 2000, rows).astype(str))
    cols = {}
    for suffix in ("", "_2"):
        cols["i64" + suffix] = np.arange(rows, dtype=np.int64) * 7
        cols["f64" + suffix] = rng.standard_normal(rows)
        cols["i32" + suffix] = rng.integers(0, 1 << 20, rows).astype(np.int32)
        cols["s" + suffix] = pa.array(words)
    return pa.table(cols)


def _arrow_factory():
    import pyarrow.parquet.encryption as pe

    from pqkit.encryption import InMemoryKms
    kms = InMemoryKms(MASTER_KEYS)

    class ArrowKms(pe.KmsClient):
        def __init__(self, config):
            super().__init__()

        def wrap_key(self, key_bytes, master_key_identifier):
            return kms.wrap_key(key_bytes, master_key_identifier)

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return kms.unwrap_key(wrapped_key, master_key_identifier)

    return pe.CryptoFactory(ArrowKms), kms


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dir", default="/tmp/enc_bench")
    args = parser.parse_args(argv)
    os.environ.setdefault("PQKIT_NUM_THREADS", "1")
    import pyarrow as pa
    import pyarrow.parquet as pq
    import pyarrow.parquet.encryption as pe

    import pqkit
    from pqkit.encryption import EncryptionConfiguration
    os.makedirs(args.dir, exist_ok=True)
    table = _table(args.rows)
    factory, kms = _arrow_factory()
    conn = pe.KmsConnectionConfig()
    arrow_config = pe.EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ENCRYPTED})
    config = EncryptionConfiguration("kf", {"kc1": ENCRYPTED})
    paths = {name: os.path.join(args.dir, name + ".parquet")
             for name in ("plain", "pqkit_plain", "pqkit_enc", "arrow_enc")}
    pq.write_table(table, paths["plain"], compression="snappy")
    pqkit.write_table(table, paths["pqkit_plain"], compression="snappy", use_threads=False)
    pqkit.write_table(table, paths["pqkit_enc"], encryption=config, kms_client=kms,
                      compression="snappy", use_threads=False)
    props = factory.file_encryption_properties(conn, arrow_config)
    pq.write_table(table, paths["arrow_enc"], encryption_properties=props,
                   compression="snappy")

    def arrow_decryption():
        return factory.file_decryption_properties(conn, pe.DecryptionConfiguration())

    steps = {
        "pqkit read plain (pqkit's file)": lambda: pqkit.read_table(paths["pqkit_plain"],
                                                                    use_threads=False),
        "pqkit read encrypted (pqkit's file)": lambda: pqkit.read_table(
            paths["pqkit_enc"], kms_client=kms, use_threads=False),
        "pqkit read encrypted (pyarrow's file)": lambda: pqkit.read_table(
            paths["arrow_enc"], kms_client=kms, use_threads=False),
        "pyarrow read plain (pyarrow's file)": lambda: pq.read_table(paths["plain"],
                                                                     use_threads=False),
        "pyarrow read encrypted (pyarrow's file)": lambda: pq.read_table(
            paths["arrow_enc"], decryption_properties=arrow_decryption(), use_threads=False),
        "pyarrow read encrypted (pqkit's file)": lambda: pq.read_table(
            paths["pqkit_enc"], decryption_properties=arrow_decryption(), use_threads=False),
        "pqkit write plain": lambda: pqkit.write_table(
            table, os.path.join(args.dir, "w_pqkit_plain.parquet"), compression="snappy",
            use_threads=False),
        "pqkit write encrypted": lambda: pqkit.write_table(
            table, os.path.join(args.dir, "w_pqkit.parquet"), encryption=config,
            kms_client=kms, compression="snappy", use_threads=False),
        "pyarrow write encrypted": lambda: pq.write_table(
            table, os.path.join(args.dir, "w_arrow.parquet"), compression="snappy",
            encryption_properties=factory.file_encryption_properties(conn, arrow_config)),
    }
    assert pa.table(steps["pqkit read encrypted (pyarrow's file)"]()).equals(table)
    assert steps["pyarrow read encrypted (pqkit's file)"]().equals(table)
    times = {name: [] for name in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) * 1000 for name, t in times.items()}
    for name, ms in median.items():
        print(f"{name:42s} {ms:8.1f} ms")
    ratios = [("pqkit encrypted / plain read (pqkit's files)",
               "pqkit read encrypted (pqkit's file)", "pqkit read plain (pqkit's file)"),
              ("pqkit / pyarrow encrypted read (pyarrow's file)",
               "pqkit read encrypted (pyarrow's file)",
               "pyarrow read encrypted (pyarrow's file)"),
              ("pqkit encrypted / plain write", "pqkit write encrypted",
               "pqkit write plain"),
              ("pqkit / pyarrow encrypted write", "pqkit write encrypted",
               "pyarrow write encrypted")]
    for label, a, b in ratios:
        print(f"{label:48s} {median[a] / median[b]:.2f}")


if __name__ == "__main__":
    main()
