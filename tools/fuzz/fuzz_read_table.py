"""Fuzz whole-file reading: ``pqkit.read_table`` and its values as Python objects.

Anything but a result or a :class:`pqkit.ParquetError` is a finding; the
default flags (seeds.py) also make an input slower than 2 s or a process above
1 GiB resident one.

Usage: python tools/fuzz/fuzz_read_table.py -max_total_time=20 [corpus dir ...]
"""

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit


def test_one(data):
    try:
        table = pqkit.read_table(data)
        table.to_pydict()
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("read_table", test_one)
