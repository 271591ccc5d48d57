"""The read road: source -> footer -> row group -> column chunk -> pages ->
levels and values -> leaf columns -> assembled Table.

Its stages are folders, in the order a read passes them: ``fetch`` (bytes and
metadata), ``decode`` (bytes to columns), ``prune`` (what a filtered read
skips). The modules here are the front door: ``file`` (``ParquetFile``,
``read_table``), ``options`` (``ReadOptions``), ``column_selection``,
``batches``, ``take`` and ``explain``.
"""
