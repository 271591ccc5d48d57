"""PQDS/1, pqkit's own format: versioned snapshots committed with put-if-absent.

Paths under the root (``paths``), the commit loop (``commit``), the conflict table
(``operations``), staging data files (``staging``), writes (``write``), the
plain-reader view (``publish``), garbage collection and recovery (``vacuum``),
inverted indices (``index_segments``, ``index_build``), the Parquet copy of a
version's file list (``file_list``), where versions and files come from
(``sources``), reading a snapshot (``reader``), maintenance and ``merge``.
"""
