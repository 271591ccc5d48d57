"""The parquet-testing corpus read from the local S3 server equals the local read.

Every corpus file is uploaded once per session; each file read from S3 must
give the same table as the local read, or fail with the same error class.
"""
import os
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pytest

import pqkit
from corpus import MANIFEST, entries, path_of
from s3server import BUCKET

PREFIX = "corpus/"


@pytest.fixture(scope="module")
def uploaded(s3, corpus):
    client = s3.boto3_client()

    def put(entry):
        with open(os.path.join(corpus, entry["path"]), "rb") as f:
            client.put_object(Bucket=BUCKET, Key=PREFIX + entry["path"], Body=f.read())

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(put, MANIFEST))
    return f"s3://{BUCKET}/{PREFIX}"


def _outcome(source, **kwargs):
    """('ok', the table's Arrow IPC bytes) or ('error', exception class). IPC bytes
    compare every value, NaNs and timestamps beyond Python's datetime included."""
    try:
        table = pqkit.read_table(source, **kwargs)
    except pqkit.ParquetError as exc:
        return "error", type(exc)
    sink = pa.BufferOutputStream()
    arrow = pa.table(table)
    with pa.ipc.new_stream(sink, arrow.schema) as writer:
        writer.write_table(arrow)
    return "ok", sink.getvalue().to_pybytes()


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries())
def test_corpus_file_reads_identically_from_s3(entry, uploaded, s3fs_options):
    local = _outcome(path_of(entry))
    remote = _outcome(uploaded + entry["path"], storage_options=s3fs_options)
    assert remote == local
