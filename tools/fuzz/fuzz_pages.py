"""Fuzz page headers and page decoding: one column chunk's pages, of a leaf of every
physical type under every value encoding (tools/fuzz/chunks.py), through
``ColumnChunkReader`` (page walk, CRC, decompression, levels, values).

Input: byte 0 picks the leaf and its codec, bytes 1-2 the chunk's ``num_values``
(little-endian), the rest is the chunk's bytes. Seeds are the real chunks.
Anything but a result or a :class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_pages.py -max_total_time=20 [corpus dir ...]
"""

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.read.decode.chunk import ColumnChunkReader

import chunks

CONFIGS = chunks.chunk_configs()


def chunk_seeds():
    return [bytes([i]) + c.num_values.to_bytes(2, "little") + c.data
            for i, c in enumerate(CONFIGS)]


def test_one(data):
    if len(data) < 3:
        return
    config = CONFIGS[data[0] % len(CONFIGS)]
    num_values = int.from_bytes(data[1:3], "little")
    try:
        reader = ColumnChunkReader(config.node, config.codec, num_values, "fuzzed chunk")
        reader.read(data[3:], 4)
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("pages", test_one, seeds_of=chunk_seeds)
