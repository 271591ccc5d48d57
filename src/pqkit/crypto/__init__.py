"""Parquet modular encryption: the ciphers, the AADs that bind each module to its
place, the caller's keys, and the per-file and per-chunk state both roads use.

A file's encrypted parts are *modules* (footer, column metadata, page headers, pages,
indexes, bloom filters), each sealed on its own so that a reader decrypts only what it
reads. The read road asks :class:`FileDecryptor` for a :class:`ChunkDecryptor` per
column chunk; the write road asks :class:`FileEncryptor` for a :class:`ChunkEncryptor`.
"""
