"""Encoding and codec advice per column chunk, measured by encoding the chunk's values.

For every column chunk, :func:`advise` decodes the chunk's top-level column for
its row group (at most ``sample_rows`` rows of it, a contiguous run from the
start, so that runs and dictionaries look as they do in the file), writes them
again under each candidate and measures the leaf's compressed chunk size and the
time pqkit takes to decode it back; sampled measures are scaled by
``rows / sampled rows``. Candidates are:

1. every value encoding the writer accepts for the leaf's physical type
   (PLAIN, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
   BYTE_STREAM_SPLIT, RLE for booleans) and dictionary encoding, under zstd;
2. every available codec, under the smallest encoding of step 1.

The suggestion for a leaf is the (encoding, codec) smallest over all its row
groups; ``projected_bytes`` is the file's size with every chunk replaced by its
measured size under the suggestion (the bytes outside chunks -- footer, page
index, bloom filters -- kept as they are). :func:`apply_advice` rewrites a file
with those choices and the same row groups, so the projection can be checked.
Page and row-group size suggestions are rules of thumb stated with their reason.

Example: a sorted int64 column measured 8,000,120 bytes PLAIN/zstd, 61,480
DELTA_BINARY_PACKED/zstd, 59,010 DELTA_BINARY_PACKED/lz4: the suggestion is
DELTA_BINARY_PACKED with lz4.
"""
import io
import time

from pqkit.compression import codec_available
from pqkit.filesystems import file_size
from pqkit.format import CompressionCodec, Encoding, Type
from pqkit.read.file import ParquetFile, read_table
from pqkit.read.fetch.footer import read_metadata
from pqkit.schema.tree import enum_name
from pqkit.write.chunk import value_encodings
from pqkit.write.file import ParquetWriter, write_table

__all__ = ["advise", "apply_advice", "SAMPLE_ROWS", "CODECS"]

SAMPLE_ROWS = 100_000
CODECS = ("none", "snappy", "zstd", "lz4", "gzip", "brotli")
DICTIONARY = "dictionary"
BASE_CODEC = "zstd"
# Rules of thumb for the size suggestions (compressed bytes).
SMALL_ROW_GROUP = 16 << 20
LARGE_ROW_GROUP = 1 << 30
SMALL_PAGE = 8 << 10


def _encodings(node):
    encs = [e.name for e in value_encodings(Type(node.physical_type))]
    if node.physical_type != Type.BOOLEAN:
        encs.append(DICTIONARY)
    return encs


def _options(leaf, encoding, codec):
    """write_table options that give ``leaf`` this encoding and codec."""
    if encoding == DICTIONARY:
        return {"compression": {leaf: codec}, "use_dictionary": [leaf]}
    return {"compression": {leaf: codec}, "use_dictionary": [],
            "column_encoding": {leaf: encoding}}


def _measure(table, leaf, encoding, codec):
    """(compressed bytes of ``leaf``'s chunk, seconds to decode it) for ``table``
    written as one row group."""
    buf = io.BytesIO()
    write_table(table, buf, row_group_size=max(table.num_rows, 1),
                **_options(leaf, encoding, codec))
    data = buf.getvalue()
    md = read_metadata(data)
    node = md.schema.column(leaf)
    size = md.row_group(0).thrift.columns[node.column_index].meta_data.total_compressed_size
    start = time.perf_counter()
    read_table(data, columns=[leaf])
    return size, time.perf_counter() - start


def advise(path, codecs=None, sample_rows=SAMPLE_ROWS):
    """Measure alternative encodings and codecs for every column chunk of a file.

    Parameters
    ----------
    path : str
    codecs : list of str, optional
        Codecs to try (default: those of :data:`CODECS` whose package is installed).
    sample_rows : int
        Rows of a row group encoded per trial at most; larger chunks are scaled.

    Returns
    -------
    dict
        ``chunks`` (per row group and leaf: current and candidate sizes and decode
        times), ``columns`` (per leaf: the suggestion and its projected bytes),
        ``file_bytes``, ``projected_bytes``, ``suggestions`` (page and row-group
        sizes, with reasons).
    """
    codecs = [c for c in (codecs or CODECS) if codec_available(c)]
    file_bytes = file_size(path)
    with ParquetFile(path) as f:
        md = f.metadata
        leaves = md.schema.columns
        chunks = []
        for g in range(md.num_row_groups):
            rows = md.row_group(g).num_rows
            for top in md.schema.root.children:
                mine = [n for n in leaves if n.path[0] == top.name]
                table = f.read_row_group(g, columns=[top.name])
                sample = table.slice(0, sample_rows)
                scale = rows / sample.num_rows if sample.num_rows else 0.0
                chunks.extend(_chunk(md, g, node, sample, scale, codecs) for node in mine)
    columns = _suggestions(leaves, chunks)
    chunk_bytes = sum(c["bytes"] for c in chunks)
    projected = file_bytes - chunk_bytes + sum(c["projected_bytes"] for c in columns)
    return {"file": path, "file_bytes": file_bytes, "chunk_bytes": chunk_bytes,
            "projected_bytes": projected, "sample_rows": sample_rows, "codecs": codecs,
            "columns": columns, "chunks": chunks, "suggestions": _size_suggestions(md)}


def _chunk(md, g, node, sample, scale, codecs):
    meta = md.row_group(g).thrift.columns[node.column_index].meta_data
    leaf = node.dotted_path
    trials = []
    for enc in _encodings(node):
        size, secs = _measure(sample, leaf, enc, BASE_CODEC)
        trials.append({"encoding": enc, "codec": BASE_CODEC, "bytes": round(size * scale),
                       "decode_seconds": secs * scale})
    best = min(trials, key=lambda t: t["bytes"])
    for codec in codecs:
        if codec != BASE_CODEC:
            size, secs = _measure(sample, leaf, best["encoding"], codec)
            trials.append({"encoding": best["encoding"], "codec": codec,
                           "bytes": round(size * scale), "decode_seconds": secs * scale})
    return {"row_group": g, "column": leaf, "physical_type": Type(node.physical_type).name,
            "rows": md.row_group(g).num_rows, "sampled_rows": sample.num_rows,
            "bytes": meta.total_compressed_size,
            "encodings": sorted({enum_name(Encoding, e) for e in meta.encodings or []}),
            "codec": _codec_name(meta.codec), "trials": trials}


def _codec_name(codec):
    return enum_name(CompressionCodec, codec).lower()


def _suggestions(leaves, chunks):
    """Per leaf: the (encoding, codec) with the smallest total over its chunks."""
    out = []
    for node in leaves:
        mine = [c for c in chunks if c["column"] == node.dotted_path]
        totals = {}
        for c in mine:
            for t in c["trials"]:
                key = (t["encoding"], t["codec"])
                size, secs, n = totals.get(key, (0, 0.0, 0))
                totals[key] = (size + t["bytes"], secs + t["decode_seconds"], n + 1)
        complete = {k: v for k, v in totals.items() if v[2] == len(mine)}
        if not complete:
            continue
        (enc, codec), (size, secs, _) = min(complete.items(),
                                            key=lambda kv: (kv[1][0], kv[1][1]))
        out.append({"column": node.dotted_path, "encoding": enc, "codec": codec,
                    "bytes": sum(c["bytes"] for c in mine), "projected_bytes": size,
                    "decode_seconds": secs})
    return out


def _size_suggestions(md):
    out = []
    sizes = [sum(c.meta_data.total_compressed_size or 0 for c in md.row_group(g).thrift.columns)
             for g in range(md.num_row_groups)]
    if len(sizes) > 1 and max(sizes) < SMALL_ROW_GROUP:
        out.append({"what": "row_group_size", "advice": "fewer, larger row groups",
                    "reason": f"{len(sizes)} row groups of at most {max(sizes):,} bytes: each "
                              "costs a footer entry and a seek per column; 16 MiB-1 GiB "
                              "row groups read faster"})
    if sizes and max(sizes) > LARGE_ROW_GROUP:
        out.append({"what": "row_group_size", "advice": "smaller row groups",
                    "reason": f"a row group of {max(sizes):,} bytes: readers hold one in "
                              "memory and parallelize across them"})
    pages = [c.meta_data for rg in md.raw.row_groups for c in rg.columns if c.meta_data]
    small = [m for m in pages if m.num_values and m.total_compressed_size < SMALL_PAGE]
    if pages and len(small) == len(pages) and md.num_rows > 10_000:
        out.append({"what": "data_page_size", "advice": "keep the default 1 MiB pages",
                    "reason": "every chunk is under 8 KiB: page headers and index entries "
                              "are a large share of the bytes"})
    if not out:
        out.append({"what": "sizes", "advice": "keep the row group and page sizes",
                    "reason": "row groups between 16 MiB and 1 GiB, or a single one"})
    return out


def apply_advice(path, dest, advice):
    """Rewrite ``path`` to ``dest`` with the suggested encoding and codec of every leaf
    (``advice`` from :func:`advise`), keeping its rows, row-group size and key/value
    metadata; returns the size of ``dest`` in bytes."""
    compression, encodings, dictionary = {}, {}, []
    for c in advice["columns"]:
        compression[c["column"]] = c["codec"]
        if c["encoding"] == DICTIONARY:
            dictionary.append(c["column"])
        else:
            encodings[c["column"]] = c["encoding"]
    with ParquetFile(path) as f:
        md = f.metadata
        rows = max([md.row_group(g).num_rows for g in range(md.num_row_groups)] or [1])
        first = f.read_row_group(0) if md.num_row_groups else f.read()
        with ParquetWriter(dest, first, compression=compression, use_dictionary=dictionary,
                           column_encoding=encodings or None,
                           row_group_size=max(rows, 1)) as w:
            for g in range(md.num_row_groups):
                # Row groups of the largest's size flush as they fill, so the
                # boundaries stay where they were when all but the last are equal.
                w.write(f.read_row_group(g))
    return file_size(dest)
