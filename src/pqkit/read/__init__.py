"""The read road: source -> footer -> row group -> column chunk -> pages ->
levels and values -> leaf columns -> assembled Table.

``file`` holds the public face (``ParquetFile``, ``read_table``); ``row_group``
reads one row group's column chunks and is shared by the plain and the
filtered reader.
"""
