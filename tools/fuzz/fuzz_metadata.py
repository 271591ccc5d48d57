"""Fuzz ``pqkit.read_metadata`` on whole files, then touch every row group as readers do.

Anything but a result or a :class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_metadata.py -max_total_time=20 [corpus dir ...]
"""

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit


def test_one(data):
    try:
        md = pqkit.read_metadata(data)
        for g in range(md.num_row_groups):
            md.checked_row_group(g)
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("metadata", test_one)
