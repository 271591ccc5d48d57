"""File surgery: changing existing Parquet files without decoding their pages.

``concat`` (with ``chunk_merge``) copies column chunks into one file and merges
small row groups, ``append`` adds row groups in place, ``footer_edit`` rewrites
footer fields in place, and ``recover`` (with ``page_scan``) rebuilds a footer
from the pages of a file that lost it. The crash-safe tail switch they share
is :mod:`pqkit.write.existing`, which the writer's append mode uses too.
"""
