"""pqkit.inspect.verify.paths: the files a verify argument names (directories, patterns,
files that are missing)."""
from pqkit.inspect.verify import expand_paths


def test_expand_paths(tmp_path):
    root = tmp_path / "ds"
    for rel in ("a=1/part-0.parquet", "a=2/part-1.parquet", "_pqkit/shadow/x.parquet",
                ".hidden/y.parquet", "a=1/.part-0.parquet.crc", "_SUCCESS", "_metadata",
                "_common_metadata", "a=1/notes.txt", "_tmp.parquet"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"")
    got = [(t.path[len(str(root)) + 1:], t.footer_only) for t in expand_paths([str(root)])]
    assert got == [("_common_metadata", True), ("_metadata", True),
                   ("a=1/part-0.parquet", False), ("a=2/part-1.parquet", False)]
    pattern = [t.path for t in expand_paths([str(root / "a=*" / "*")])]
    assert [p[len(str(root)) + 1:] for p in pattern] == ["a=1/notes.txt", "a=1/part-0.parquet",
                                                        "a=2/part-1.parquet"]
    missing = expand_paths([str(root / "nope.parquet"), str(root / "*.orc")])
    assert [t.problem is not None for t in missing] == [True, True]
