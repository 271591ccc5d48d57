"""Path containment (issue 31 item 3): paths from dataset metadata stay inside the root."""
import os

import pytest

from pqkit.dataset.core.containment import check_inside, check_relative_path, resolve_inside
from pqkit.errors import DatasetError, ManifestCorrupted

ESCAPING = [
    ("../x.parquet", "segment '..'"),
    ("a/../../x.parquet", "segment '..'"),
    ("./x.parquet", "segment '.'"),
    ("a//x.parquet", "segment ''"),
    ("a/", "segment ''"),
    ("/etc/passwd", "absolute"),
    ("C:/x.parquet", "absolute"),
    ("c:x.parquet", "absolute"),
    ("a\\..\\x.parquet", "backslash"),
    ("%2e%2e/x.parquet", "decodes to"),
    ("%2E%2E/x.parquet", "decodes to"),
    ("a/..%2F..%2Fx.parquet", "decodes to"),
    ("a/..%5C..%5Cx.parquet", "decodes to"),
    ("%252e%252e/x.parquet", "decodes to"),
    ("%2e/x.parquet", "decodes to"),
    ("", "empty"),
    ("a/x\x00.parquet", "NUL"),
    (None, "not a string"),
    (["a"], "not a string"),
    (7, "not a string"),
]


@pytest.mark.parametrize("path, why", ESCAPING)
def test_paths_that_could_leave_the_root_are_refused_naming_file_and_field(path, why):
    with pytest.raises(ManifestCorrupted) as info:
        check_relative_path(path, "v.json", "files[2].path")
    message = str(info.value)
    assert message.startswith("v.json: files[2].path ")
    assert why in message


@pytest.mark.parametrize("path", [
    "x.parquet", "year=2024/part-00000.parquet", "k=a%2Fb/x.parquet", "k=%2E/x.parquet",
    "k=a%2Fsub/x.parquet", "k=caf\u00e9/x.parquet", "k=%25/x",
])
def test_paths_inside_the_root_pass(path):
    assert check_relative_path(path, "v.json") == path


def test_reserved_names_only_for_data_paths():
    with pytest.raises(ManifestCorrupted, match="reserved name"):
        check_relative_path("_pqkit/indices/c/_a.pqindex", "v.json")
    with pytest.raises(ManifestCorrupted, match="reserved name"):
        check_relative_path("a/_common_metadata", "v.json")
    assert check_relative_path("_pqkit/indices/c/_a.pqindex", "v.json", reserved=False)


def test_a_caller_checking_its_own_argument_chooses_the_error():
    with pytest.raises(DatasetError) as info:
        check_relative_path("../k", "dataset key", "key", error=DatasetError)
    assert not isinstance(info.value, ManifestCorrupted)


def test_symbolic_links_leaving_the_root_are_refused(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "p=1").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.parquet").write_bytes(b"x")
    (root / "p=1" / "inside.parquet").write_bytes(b"x")
    os.symlink(outside / "secret.parquet", root / "p=1" / "file.parquet")
    os.symlink(outside, root / "p=2")
    os.symlink(root / "p=1" / "inside.parquet", root / "p=1" / "alias.parquet")
    assert resolve_inside(str(root), "p=1/inside.parquet", "v.json") == \
        os.path.join(str(root), "p=1", "inside.parquet")
    assert resolve_inside(str(root), "p=1/alias.parquet", "v.json")       # a link inside
    for rel in ("p=1/file.parquet", "p=2/secret.parquet"):
        with pytest.raises(ManifestCorrupted, match="outside the dataset root") as info:
            resolve_inside(str(root), rel, "v.json", "files[0].path")
        assert str(info.value).startswith(f"v.json: files[0].path {rel!r} resolves to")


def test_a_root_reached_through_a_link_is_still_the_root(tmp_path):
    real = tmp_path / "real"
    (real / "p=1").mkdir(parents=True)
    (real / "p=1" / "f.parquet").write_bytes(b"x")
    os.symlink(real, tmp_path / "alias")
    root = str(tmp_path / "alias")
    assert resolve_inside(root, "p=1/f.parquet", "v.json")
    assert check_inside(root, os.path.join(root, "p=1"), "v.json", "dir")
    with pytest.raises(ManifestCorrupted):
        check_inside(root, str(tmp_path), "v.json", "dir")
