"""Issue 32: encrypted files cross between pqkit and Spark (parquet-java's key tools).

pyspark's jars hold parquet-java's ``PropertiesDrivenCryptoFactory`` but no KMS client, so
the test compiles one (``java/pqkit/testkms/ListedKeysKms.java``, master keys from the Hadoop
setting ``parquet.encryption.key.list``, keys wrapped as pqkit's ``InMemoryKms`` wraps them)
with ``javac`` and starts a Spark of its own with the class on its classpath. pqkit writes
each case with ``EncryptionConfiguration`` and the same master keys; Spark reads it, and
writes it again encrypted with the case's settings, which pqkit reads.
Cases: uniform (encrypted footer, AES_GCM_V1), per-column keys (encrypted footer,
AES_GCM_CTR_V1), per-column keys (plaintext footer, AES_GCM_V1); key material internal,
double wrapping (both libraries' default).
"""
import base64
import glob
import json
import os
import shutil
import subprocess
import sys

import pyarrow as pa
import pytest

import pqkit
import pqkit.dataset as pds
from pqkit.encryption import EncryptionConfiguration, InMemoryKms
from pqkit.errors import EncryptedFileError

HERE = os.path.dirname(__file__)
MASTER_KEYS = {"kf": b"0123456789012345", "kc1": b"1234567890123450",
               "kc2": b"1234567890123451"}
KMS = InMemoryKms(MASTER_KEYS)
TABLE = pa.table({"a": pa.array(range(300), pa.int64()),
                  "b": pa.array([None if i % 7 == 0 else f"s{i % 13}" for i in range(300)]),
                  "c": pa.array([i * 0.25 for i in range(300)], pa.float64())})
# name: (pqkit's configuration, Spark's write options for the same layout)
CASES = {
    "uniform": (
        dict(footer_key="kf", uniform_encryption=True),
        {"parquet.encryption.uniform.key": "kf"}),
    "per-column-ctr": (
        dict(footer_key="kf", column_keys={"kc1": ["a"], "kc2": ["c"]},
             encryption_algorithm="AES_GCM_CTR_V1"),
        {"parquet.encryption.footer.key": "kf",
         "parquet.encryption.column.keys": "kc1:a;kc2:c",
         "parquet.encryption.algorithm": "AES_GCM_CTR_V1"}),
    "per-column-plaintext-footer": (
        dict(footer_key="kf", column_keys={"kc1": ["a"], "kc2": ["c"]},
             plaintext_footer=True),
        {"parquet.encryption.footer.key": "kf",
         "parquet.encryption.column.keys": "kc1:a;kc2:c",
         "parquet.encryption.plaintext.footer": "true"}),
}


def _compiled_kms(tmp):
    javac = shutil.which("javac")
    if javac is None:
        pytest.skip("no javac (only a JRE?): the test KMS client for Spark is compiled here")
    import pyspark
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
    classes = str(tmp / "classes")
    subprocess.run([javac, "-d", classes, "-cp", jars,
                    os.path.join(HERE, "java", "pqkit", "testkms", "ListedKeysKms.java")],
                   check=True, capture_output=True, timeout=300)
    return classes


@pytest.fixture(scope="module")
def exchanged(tmp_path_factory):
    """The work directory after Spark's run, and the rows Spark read per case."""
    work = tmp_path_factory.mktemp("spark-encryption")
    classes = _compiled_kms(work)
    os.mkdir(work / "pqkit")
    for name, (settings, _) in CASES.items():
        pqkit.write_table(TABLE, str(work / "pqkit" / f"{name}.parquet"),
                          encryption=EncryptionConfiguration(**settings), kms_client=KMS)
    key_list = ", ".join(f"{k}:{base64.b64encode(v).decode()}" for k, v in MASTER_KEYS.items())
    spec = {"hadoop": {
        "parquet.crypto.factory.class":
            "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory",
        "parquet.encryption.kms.client.class": "pqkit.testkms.ListedKeysKms",
        "parquet.encryption.key.list": key_list},
        "cases": {name: options for name, (_, options) in CASES.items()}}
    (work / "cases.json").write_text(json.dumps(spec))
    src = os.path.abspath(os.path.join(HERE, "..", "..", "src"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (src, os.environ.get("PYTHONPATH")) if p)}
    run = subprocess.run([sys.executable, os.path.join(HERE, "encryption_job.py"), classes,
                          str(work)], capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return work, json.loads(run.stdout.strip().splitlines()[-1])


def _spark_parts(work, name):
    parts = sorted(glob.glob(str(work / "spark" / name / "part-*.parquet")))
    assert parts, f"Spark wrote no part files for {name}"
    return parts


@pytest.mark.parametrize("name", list(CASES))
def test_spark_reads_what_pqkit_encrypts(exchanged, name):
    _, seen = exchanged
    assert seen[name] == [list(row.values()) for row in TABLE.to_pylist()]


@pytest.mark.parametrize("name", list(CASES))
def test_pqkit_reads_what_spark_encrypts(exchanged, name):
    work, _ = exchanged
    parts = [pa.table(pqkit.read_table(p, kms_client=KMS)) for p in _spark_parts(work, name)]
    got = pa.concat_tables(parts).sort_by("a")
    assert got.to_pydict() == TABLE.to_pydict()


@pytest.mark.parametrize("name", list(CASES))
def test_sparks_files_are_encrypted_as_configured(exchanged, name):
    """The algorithm and footer mode are the case's, the footer key is master key kf;
    without keys nothing encrypted reads, a plaintext footer's clear column does."""
    work, _ = exchanged
    part = _spark_parts(work, name)[0]
    settings = CASES[name][0]
    layout = pqkit.read_metadata(part, kms_client=KMS).encryption
    assert layout["algorithm"] == settings.get("encryption_algorithm", "AES_GCM_V1")
    assert layout["footer"] == ("plaintext (signed)" if settings.get("plaintext_footer")
                                else "encrypted")
    assert json.loads(layout["footer_key_metadata"])["masterKeyID"] == "kf"
    if name == "per-column-plaintext-footer":
        clear = pa.table(pqkit.read_table(part, columns=["b"]))
        assert clear.column_names == ["b"] and clear.num_rows > 0
    with pytest.raises(EncryptedFileError):
        pqkit.read_table(part, columns=["a"])


@pytest.mark.parametrize("name", list(CASES))
def test_pqkit_opens_sparks_encrypted_directory_as_a_dataset(exchanged, name):
    """Spark's output directory is a plain Hive directory: its footers are read when it is
    opened, so the keys go to ``open``."""
    work, _ = exchanged
    got = pa.table(pds.open(str(work / "spark" / name), kms_client=KMS).read()).sort_by("a")
    assert got.to_pydict() == TABLE.to_pydict()
