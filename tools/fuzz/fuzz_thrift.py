"""Fuzz the Thrift compact-protocol decoder: FileMetaData, PageHeader, ColumnIndex, OffsetIndex.

The input's first byte picks the struct, the rest is decoded (and a
FileMetaData checked as readers check it, which gives the fuzzer Python
coverage to steer by: the Cython decoder itself is not instrumented). Anything
but a result or a :class:`pqkit.ParquetError` is a finding. Seeds are the
footers and first page headers of the seed files (see seeds.py).

Usage: python tools/fuzz/fuzz_thrift.py -max_total_time=20 [corpus dir ...]
"""
import struct

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit import format as fmt
    from pqkit.read.fetch.validate import check_file, check_row_group
    from pqkit.schema.tree import Schema

STRUCTS = (fmt.FileMetaData, fmt.PageHeader, fmt.ColumnIndex, fmt.OffsetIndex)


def footer_seeds(blob):
    if len(blob) < 12 or blob[-4:] != b"PAR1":
        return []
    n = struct.unpack("<I", blob[-8:-4])[0]
    footer = blob[-8 - n:-8] if n <= len(blob) - 8 else b""
    return [b"\x00" + footer, b"\x01" + blob[4:4 + 64]]     # a footer; a first page header


def test_one(data):
    if not data:
        return
    cls = STRUCTS[data[0] % len(STRUCTS)]
    body = data[1:]
    try:
        obj, _ = fmt.decode(cls, body, 0, len(body), 0)
        if cls is fmt.FileMetaData:
            # The decoder is native (no coverage of its own): the checks that follow it
            # on the read road are Python, and steer the fuzzer by the fields decoded.
            check_file(obj, 0)
            schema = Schema(obj.schema)
            for g, rg in enumerate(obj.row_groups):
                check_row_group(rg, g, len(schema.columns), 0)
        else:
            fmt.encode(obj)
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("thrift", test_one, transform=footer_seeds)
