"""Encoding a row group's column chunks on several threads.

Each leaf is a :class:`ChunkJob`. On several threads (:mod:`pqkit.threads`) every
job is shredded and encoded (levels, values, compression, statistics, bloom
filter) into memory at offset 0; the calling thread then writes the chunks in
schema order and moves their offsets to where they landed
(:meth:`pqkit.write.chunk.WrittenChunk.move`). The file is byte for byte the one
a single-threaded writer makes, which streams each job straight to the file;
the price is holding one row group's encoded chunks in memory at once.
"""
from typing import Any, NamedTuple

from pqkit.threads import map_ordered
from pqkit.write.chunk import ColumnChunkWriter
from pqkit.write.shred import shred_leaf

__all__ = ["ChunkJob", "MemorySink", "encode_chunks"]


class ChunkJob(NamedTuple):
    """What shredding and encoding one leaf of one row group needs."""
    layouts: Any
    column: Any                 # the leaf column
    spec: Any                   # its shred spec
    node: Any                   # the leaf SchemaNode
    options: Any                # ChunkOptions
    stats_factory: Any
    where: str                  # "column a.b, row group 3", for errors
    encryptor: Any = None       # pqkit.crypto.ChunkEncryptor of an encrypted column

    def encode(self, sink, start):
        """Write the chunk to ``sink`` as if at file offset ``start``; its WrittenChunk."""
        leaf = shred_leaf(self.layouts, self.column, self.spec, self.where)
        return ColumnChunkWriter(self.node, self.options, self.stats_factory) \
            .write(leaf, sink, start, self.encryptor)


class MemorySink:
    """A growing in-memory buffer with the ``write`` a column writer needs.

    Parts are copied in as they come: a page body may be a view into a buffer
    that the next page reuses.
    """

    def __init__(self):
        self.buffer = bytearray()

    def write(self, data):
        self.buffer += data


def _encode(job):
    sink = MemorySink()
    written = job.encode(sink, 0)
    return sink.buffer, written


def encode_chunks(jobs, use_threads=True):
    """``[(encoded bytes, WrittenChunk at offset 0)]`` for each :class:`ChunkJob`, in
    order, encoded on the worker threads."""
    return map_ordered(_encode, jobs, use_threads)
