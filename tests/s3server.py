"""A local S3 server (moto) that counts the requests it serves.

:class:`CountingS3Server` runs moto's S3 on 127.0.0.1 (a free port) behind a
WSGI layer that logs every request's method, path, query and ``Range``
header, so tests and benchmarks can count the GETs an operation costs.
"""
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

BUCKET = "pqkit-test"
KEY = "testing"
SECRET = "testing"
REGION = "us-east-1"


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: str
    range: str          # the Range header, "" when absent

    @property
    def is_get(self):
        return self.method == "GET"

    @property
    def is_list(self):
        return self.method == "GET" and ("list-type" in self.query or
                                         self.path.rstrip("/").count("/") == 1)


class RequestLog:
    """The requests served, in order; :meth:`since` gives those after a mark."""

    def __init__(self):
        self._items = []
        self._lock = threading.Lock()

    def add(self, request):
        with self._lock:
            self._items.append(request)

    def mark(self):
        with self._lock:
            return len(self._items)

    def since(self, mark):
        with self._lock:
            return list(self._items[mark:])


class CountingS3Server(ThreadedMotoServer):
    """moto's threaded server on 127.0.0.1 with a request log (``.log``)."""

    def __init__(self):
        super().__init__(ip_address="127.0.0.1", port=0, verbose=False)
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.log = RequestLog()

    def _server_entry(self):
        app = DomainDispatcherApplication(create_backend_app)
        log = self.log

        def counting(environ, start_response):
            log.add(Request(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""),
                            environ.get("QUERY_STRING", ""), environ.get("HTTP_RANGE", "")))
            return app(environ, start_response)

        self._server = make_server(self._ip_address, self._port, counting, True)
        self._server_ready_event.set()
        self._server.serve_forever()

    @property
    def endpoint(self):
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def storage_options(self):
        """s3fs options pointing at this server (no caching of listings between calls)."""
        return {"key": KEY, "secret": SECRET, "client_kwargs": {
            "endpoint_url": self.endpoint, "region_name": REGION}, "use_listings_cache": False}

    def boto3_client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=KEY,
                            aws_secret_access_key=SECRET, region_name=REGION)

    def pyarrow_fs(self):
        from pyarrow import fs
        host, port = self.get_host_and_port()
        return fs.S3FileSystem(access_key=KEY, secret_key=SECRET, region=REGION,
                               endpoint_override=f"{host}:{port}", scheme="http",
                               request_timeout=120, connect_timeout=30)


def upload_published(client, root, prefix):
    """Upload the published view of the local PQDS/1 dataset at ``root`` under ``prefix``:
    the visible tree, ``_pqkit/_latest`` and the version files (not staging or locks)."""
    paths = []
    for dirpath, _, names in os.walk(root):
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if rel.startswith("_pqkit/") and rel != "_pqkit/versions":
            continue
        paths += [os.path.join(dirpath, n) for n in names
                  if n not in ("_publish.lock", "publish.lock")]

    def put(path):
        with open(path, "rb") as f:
            key = prefix + os.path.relpath(path, root).replace(os.sep, "/")
            client.put_object(Bucket=BUCKET, Key=key, Body=f.read())

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, paths))
