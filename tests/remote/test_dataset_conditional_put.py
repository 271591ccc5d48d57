"""The PQDS/1 commit primitive on the local S3 server: put-if-absent by If-None-Match.

The version-file creation goes through :mod:`pqkit.dataset.core.storage`; these
tests pin down what it relies on: the server answers 412 to a conditional
PUT of an existing key, exactly one of several racing writers creates a version,
and a store that ignores the condition is refused for writing.
"""
import threading
import uuid

import botocore.exceptions
import fsspec
import pytest

from pqkit.dataset.core.storage import ObjectStorage
from pqkit.dataset.pqds.paths import RootPaths
from pqkit.errors import UnsupportedFeature
from s3server import BUCKET


def test_server_answers_412_to_a_conditional_put_of_an_existing_key(s3):
    client = s3.boto3_client()
    key = f"cond/{uuid.uuid4().hex}"
    client.put_object(Bucket=BUCKET, Key=key, Body=b"first", IfNoneMatch="*")
    with pytest.raises(botocore.exceptions.ClientError) as info:
        client.put_object(Bucket=BUCKET, Key=key, Body=b"second", IfNoneMatch="*")
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    assert client.get_object(Bucket=BUCKET, Key=key)["Body"].read() == b"first"


def test_one_of_eight_racing_writers_creates_the_version(s3_fs):
    layout = RootPaths(f"{BUCKET}/ds-{uuid.uuid4().hex}", ObjectStorage(s3_fs))
    dst = layout.version_path(0)
    results = {}
    start = threading.Barrier(8)

    def writer(i):
        start.wait()
        results[i] = layout.storage.create_version(layout, None, dst, b'{"writer": %d}' % i)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [i for i, won in results.items() if won]
    assert len(results) == 8 and len(winners) == 1
    assert s3_fs.cat_file(dst) == b'{"writer": %d}' % winners[0]
    assert layout.storage.create_version(layout, None, layout.version_path(1), b"{}")


class _Unconditional:
    """A file system whose PUTs ignore If-None-Match (as some S3-compatible stores do)."""

    def __init__(self):
        self.inner = fsspec.filesystem("memory")

    def pipe_file(self, path, data, mode="overwrite"):
        self.inner.pipe_file(path, data)

    def rm_file(self, path):
        self.inner.rm_file(path)


def test_a_store_without_conditional_puts_is_refused_for_writing():
    layout = RootPaths(f"/unconditional-{uuid.uuid4().hex}", ObjectStorage(_Unconditional()))
    with pytest.raises(UnsupportedFeature, match="overwrote an existing object.*refuses to "
                                                 "write there \\(reading works\\)"):
        layout.storage.create_version(layout, None, layout.version_path(0), b"{}")
    assert not layout.storage.fs.inner.exists(layout.version_path(0))
