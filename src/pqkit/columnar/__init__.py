"""The in-memory model: Arrow-layout columns on numpy buffers, the Table, and the
conversions out of it (Python values, pandas).

Nothing here knows about Parquet pages or files; the read and write roads meet
here (readers build these columns, writers shred them).
"""
