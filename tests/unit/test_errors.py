"""A missing optional package gives one line naming the pqkit extra that installs it."""
import io
import sys

import pytest

import pqkit
from pqkit.errors import MissingDependencyError, require
from pqkit.filesystems import url_filesystem


def hide(monkeypatch, *modules):
    """Make ``import name`` fail for each of ``modules`` (and their submodules)."""
    for name in list(sys.modules):
        if name.split(".")[0] in modules:
            monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def one_line(exc_info, *words):
    text = str(exc_info.value)
    assert "\n" not in text
    for w in words:
        assert w in text, text


@pytest.mark.parametrize("url, extra, package", [
    ("s3://bucket/x.parquet", "s3", "s3fs"),
    ("gs://bucket/x.parquet", "gcs", "gcsfs"),
    ("abfs://container/x.parquet", "azure", "adlfs"),
])
def test_protocol_package_missing_names_the_extra(monkeypatch, url, extra, package):
    import fsspec  # noqa: F401  (loads fsspec.registry)
    registry = sys.modules["fsspec.registry"]
    hide(monkeypatch, package)
    # fsspec keeps the classes it imported once: forget this protocol's, as on a machine
    # where the package was never installed.
    monkeypatch.delitem(registry._registry, url.split("://")[0], raising=False)
    with pytest.raises(MissingDependencyError) as exc:
        url_filesystem(url)
    one_line(exc, url, f"pqkit[{extra}]")


def test_fsspec_missing(monkeypatch):
    hide(monkeypatch, "fsspec")
    with pytest.raises(MissingDependencyError) as exc:
        pqkit.read_table("s3://bucket/x.parquet")
    one_line(exc, "fsspec", "pqkit[s3]")


def test_pandas_missing(monkeypatch):
    buf = io.BytesIO()
    pqkit.write_table({"a": [1]}, buf)
    t = pqkit.read_table(buf.getvalue())
    hide(monkeypatch, "pandas")
    with pytest.raises(MissingDependencyError) as exc:
        t.to_pandas()
    one_line(exc, "'pandas'", "pqkit[pandas]")


def test_pyspark_missing(monkeypatch):
    hide(monkeypatch, "pyspark")
    from pqkit.spark.conversion import schema
    with pytest.raises(MissingDependencyError) as exc:
        schema.to_spark(pqkit.datatypes.int64())
    one_line(exc, "'pyspark'", "pqkit[spark]")


def test_require_is_also_an_import_error():
    with pytest.raises(ImportError) as exc:
        require("no_such_module_of_pqkit", "test", "this feature")
    assert isinstance(exc.value, pqkit.ParquetError)
    one_line(exc, "this feature", "pqkit[test]")
