"""Fuzz dataset metadata of the four layouts pqkit opens: PQDS/1 (version files, the
latest-version hint, tags, index segments), plain Hive (``_metadata`` and ``_common_metadata``),
Kartothek (the dataset document as JSON and as msgpack) and RFC-0008
(``manifest.json``).

Input: byte 0 picks one metadata file of one small dataset built at start-up; the
rest replaces its bytes (a Kartothek msgpack document is given uncompressed and
zstd-compressed here). The dataset is then opened and read, and ``pqinspect dataset
info`` run on it; each must give a result, a :class:`pqkit.ParquetError` or, for the
CLI, exit code 1 or 2. Anything else is a finding.

Usage: python tools/fuzz/fuzz_dataset_meta.py -max_total_time=20 [corpus dir ...]
"""
import contextlib
import functools
import io
import os
import pathlib
import shutil
import sys

import atheris
import known
import seeds

with atheris.instrument_imports():
    import pqkit.dataset as pds
    from pqkit.cli import main as cli_main

sys.path.insert(0, str(seeds.REPO / "tests" / "dataset"))
import kartothek_build  # noqa: E402  (the tests' Kartothek writer: no kartothek package)

# One parser serves every input (see fuzz_cli.py).
cli_main.build_parser = functools.cache(cli_main.build_parser)
ROOT = pathlib.Path(seeds.scratch_dir("dataset-meta"))
DATA = {"year": [2024, 2025, 2025], "amount": [1.5, None, 2.0], "tag": ["a", "b", None]}


def _pqds(root):
    pds.write(root, DATA, partition_by=["year"])
    pds.write(root, DATA, partition_by=["year"], mode="append")
    pds.delete(root, [("year", "==", 2024)])
    pds.build_index(root, "tag")
    pds.tag(root, "first", version=0)
    return lambda: pds.open(root)


def _hive(root):
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.table({"amount": [1.5, None], "tag": ["a", None]})
    collected = []
    for year in (2024, 2025):
        os.makedirs(root / f"year={year}")
        pq.write_table(table, root / f"year={year}" / "part-0.parquet",
                       metadata_collector=collected)
        collected[-1].set_file_path(f"year={year}/part-0.parquet")
    pq.write_metadata(table.schema, root / "_common_metadata")
    pq.write_metadata(table.schema, root / "_metadata", metadata_collector=collected)
    return lambda: pds.open(root, layout="hive")


def _rfc(root):
    pds.write(root, DATA, layout="manifest")
    return lambda: pds.open(root, layout="manifest")


def _kartothek(fmt):
    def build(root):
        kartothek_build.build(str(root), fmt)
        return lambda: pds.open_kartothek(str(root), table="core")
    return build


LAYOUTS = {"pqds": _pqds, "hive": _hive, "rfc": _rfc,
           "kartothek-json": _kartothek("json"), "kartothek-msgpack": _kartothek("msgpack")}


def _metadata_files(root):
    """The files of a dataset that are not data files (nor copies of them)."""
    return sorted(p for p in root.rglob("*") if p.is_file() and "shadow" not in p.parts and (
        p.suffix != ".parquet" or p.name.startswith("_") or "index" in p.name))


def _zstd(raw):
    import zstandard
    return zstandard.ZstdCompressor(write_content_size=True).compress(raw)


def _unzstd(stored):
    import zstandard
    return zstandard.ZstdDecompressor().decompress(stored, max_output_size=1 << 24)


def _targets():
    """[(opener, root, path, encode, seed bytes)] over every layout's metadata files."""
    out = []
    for name, build in LAYOUTS.items():
        root = ROOT / name
        opener = build(root)
        for path in _metadata_files(root):
            stored = path.read_bytes()
            zstd = path.name.endswith(".zstd")
            out.append((opener, root, path, _zstd if zstd else bytes,
                        _unzstd(stored) if zstd else stored, stored))
    return out


TARGETS = _targets()


def _check(opener, root):
    dataset = known.attempt(opener)
    if dataset is not known.FAILED:
        known.attempt(lambda: dataset.read().to_pydict())
        # the columns the PQDS/1 and Kartothek indexes cover
        names = known.attempt(lambda: list(dataset.column_names))
        for term in (("tag", "==", "a"), ("c_id", "==", 5)):
            if names is not known.FAILED and term[0] in names:
                known.attempt(lambda: dataset.read(filters=[term]).to_pydict())
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = cli_main.main(["dataset", "info", str(root), "--json"])
        except Exception as exc:
            if not known.known(exc):
                raise
            code = 2
    assert code in (0, 1, 2), f"pqinspect dataset info exited {code}"


def test_one(data):
    if not data:
        return
    opener, root, path, encode, _, stored = TARGETS[data[0] % len(TARGETS)]
    try:
        path.write_bytes(encode(data[1:]))
        _check(opener, root)
    finally:
        path.write_bytes(stored)


def dataset_seeds():
    return [bytes([i]) + seed for i, (*_, seed, _stored) in enumerate(TARGETS)]


if __name__ == "__main__":
    try:
        seeds.fuzz("dataset_meta", test_one, seeds_of=dataset_seeds)
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
