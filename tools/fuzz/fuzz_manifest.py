"""Fuzz the dataset manifest loaders: a PQDS/1 version file
(``pqkit.dataset.pqds.version_schema.load_manifest``, then its accessors) and an RFC-style
``manifest.json`` (``pqkit.dataset.rfc0008.manifest.read_manifest``).

Input: byte 0 picks the loader (bit 0), the rest is the file's bytes, written to
a scratch file because both loaders read a path. Anything but a manifest or a
:class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_manifest.py -max_total_time=20 [corpus dir ...]
"""
import os
import pathlib
import tempfile

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.dataset.pqds.version_schema import load_manifest
    from pqkit.dataset.rfc0008.manifest import read_manifest

SCRATCH = os.path.join(tempfile.mkdtemp(prefix="pqkit-fuzz-manifest-"), "manifest.json")


def test_one(data):
    if not data:
        return
    with open(SCRATCH, "wb") as f:
        f.write(data[1:])
    try:
        if data[0] & 1:
            read_manifest(SCRATCH)
        else:
            m = load_manifest(data[1:], SCRATCH)
            touched = (m.by_key(), m.total_bytes, m.properties, m.app_txns, m.operation,
                       m.schema.fields)
            assert all(t is not None for t in touched)
            m.check_writable()
    except pqkit.ParquetError:
        pass


def manifest_seeds():
    """The version files of a small partitioned PQDS/1 dataset (written, deleted from,
    compacted) and the manifest of an RFC-style one."""
    import pqkit.dataset as pds
    root = pathlib.Path(tempfile.mkdtemp(prefix="pqkit-fuzz-seed-"))
    data = {"year": [2024, 2025, 2025], "amount": [1.5, None, 2.0], "tag": ["a", "b", None]}
    pds.write(root / "pqds", data, partition_by=["year"])
    pds.write(root / "pqds", data, partition_by=["year"], mode="append")
    pds.delete(root / "pqds", [("year", "==", 2024)])
    pds.write(root / "rfc", data, layout="manifest")
    out = [b"\x00" + p.read_bytes() for p in sorted((root / "pqds").rglob("*.json"))]
    out += [b"\x01" + p.read_bytes() for p in sorted((root / "rfc").rglob("*manifest.json"))]
    return out


if __name__ == "__main__":
    seeds.fuzz("manifest", test_one, seeds_of=manifest_seeds)
