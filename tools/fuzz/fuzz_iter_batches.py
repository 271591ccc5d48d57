"""Fuzz streaming reads: ``ParquetFile.iter_batches`` over whole files, with a batch
size from the input's last byte, each batch's values as Python objects.

Anything but a result or a :class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_iter_batches.py -max_total_time=20 [corpus dir ...]
"""

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit


def test_one(data):
    if not data:
        return
    batch_size = data[-1] % 64 + 1
    try:
        with pqkit.ParquetFile(data) as f:
            for batch in f.iter_batches(batch_size=batch_size):
                batch.to_pydict()
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("iter_batches", test_one)
