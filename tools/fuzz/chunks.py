"""Column chunks to fuzz one at a time: a leaf of every physical type under every
value encoding pqkit writes (and a nullable and a repeated leaf), with its bytes.

:func:`chunk_configs` returns :class:`ChunkConfig` tuples; ``fuzz_pages.py`` reads
fuzzed bytes as a chunk of one of them, and seeds from the real chunk bytes.
"""
import io
from typing import NamedTuple

import numpy as np

N = 40


class ChunkConfig(NamedTuple):
    node: object          # pqkit SchemaNode of the leaf
    codec: int
    num_values: int
    data: bytes           # the chunk's pages as written


def _columns():
    """(name, values, encodings) per physical type; dictionary encoding comes from
    use_dictionary, the rest from column_encoding."""
    ints = [i * 3 - 7 for i in range(N)]
    text = [f"s{i % 6}" * (i % 3) for i in range(N)]
    return [
        ("b", [i % 3 == 0 for i in range(N)], ["PLAIN", "RLE"]),
        ("i32", np.array(ints, np.int32), ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"]),
        ("i64", np.array(ints, np.int64), ["PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"]),
        ("f32", np.linspace(-1, 1, N, dtype=np.float32), ["PLAIN", "BYTE_STREAM_SPLIT"]),
        ("f64", np.linspace(-1, 1, N), ["PLAIN", "BYTE_STREAM_SPLIT"]),
        ("s", text, ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]),
        ("opt", [None if i % 4 == 0 else i for i in range(N)], ["PLAIN"]),
        ("lst", [[i, i + 1][: i % 3] if i % 5 else None for i in range(N)], ["PLAIN"]),
    ]


def _written(name, values, **options):
    import pqkit
    out = io.BytesIO()
    pqkit.write_table({name: values}, out, data_page_size=128, **options)
    blob = out.getvalue()
    md = pqkit.read_metadata(blob)
    meta = md.row_group(0).thrift.columns[0].meta_data
    start = min(o for o in (meta.dictionary_page_offset, meta.data_page_offset) if o)
    return ChunkConfig(md.schema.columns[0], meta.codec, meta.num_values,
                       blob[start:start + meta.total_compressed_size])


def chunk_configs():
    configs = []
    for name, values, encodings in _columns():
        configs.append(_written(name, values, compression="none", use_dictionary=True))
        for enc in encodings:
            configs.append(_written(name, values, compression="none", use_dictionary=False,
                                    column_encoding=enc))
    # Compressed pages and v2 pages with a CRC, for the decompression and split paths.
    configs.append(_written("s", _columns()[5][1], compression="snappy",
                            data_page_version="2.0", write_checksums=True))
    configs.append(_written("i64", _columns()[2][1], compression="gzip", use_dictionary=False))
    configs.append(_written("f64", _columns()[4][1], compression="zstd"))
    return configs
