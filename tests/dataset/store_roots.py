"""A dataset root on a local disk or on the moto S3 server, and how engines read it.

The ``store`` fixture (conftest.py) gives a :class:`Root` of each kind, so one test body
runs with the same assertions on both stores.
"""
import hashlib
import uuid

import polars as pl
import pyarrow.dataset as pads

import pqkit.dataset as pds
from dataset_states import rows


class Root:
    """A dataset root (local path or URL) and how each engine reads it."""

    def __init__(self, kind, tmp_path, s3=None):
        self.kind = kind
        if kind == "local":
            self.root, self.options = str(tmp_path / "live"), None
        else:
            from s3server import BUCKET        # moto is imported only when a test needs it
            self.root = f"s3://{BUCKET}/dataset-{uuid.uuid4().hex}"
            self.options = s3.storage_options()
            self.s3 = s3

    def open(self, **kwargs):
        return pds.open(self.root, storage_options=self.options, **kwargs)

    def paths(self):
        return pds.Layout.at(self.root, self.options)

    def pyarrow_rows(self):
        if self.kind == "local":
            ds = pads.dataset(self.root, partitioning="hive", format="parquet")
        else:
            ds = pads.dataset(self.root.removeprefix("s3://"), filesystem=self.s3.pyarrow_fs(),
                              partitioning="hive", format="parquet")
        return rows(ds.to_table().to_pydict())

    def polars_rows(self):
        if self.kind == "local":
            scan = pl.scan_parquet(self.root, hive_partitioning=True,
                                   hidden_file_prefix=["_", "."])
        else:
            from s3server import KEY, REGION, SECRET
            options = {"aws_access_key_id": KEY, "aws_secret_access_key": SECRET,
                       "aws_region": REGION, "aws_endpoint_url": self.s3.endpoint,
                       "aws_allow_http": "true"}
            scan = pl.scan_parquet(f"{self.root}/**/*.parquet", hive_partitioning=True,
                                   storage_options=options)
        return rows(scan.collect().to_dict(as_series=False))

    def data_file_hashes(self):
        """{path below the root: sha256} of every data file, visible or hidden."""
        paths = self.paths()
        return {rel: hashlib.sha256(paths.storage.read(f"{paths.root}/{rel}")).hexdigest()
                for rel in paths.storage.list_files(paths.root)
                if rel.endswith((".parquet", ".parquet.shadow"))}
