"""Verification of Parquet files: an fsck for the format, usable from Python and pqinspect.

:func:`verify_file` checks one file and returns a :class:`FileReport` of
:class:`Finding` s, each under a stable rule id of :data:`RULES`
(``PQ-<AREA>-<NNN>``) with a severity (error, warning, info), a message
naming the file offset and, where it applies, the row group, column path and
page. The areas, one module each:

==================  ===========================================================
footer_rules        magic, footer length and decoding, row counts, column orders
type_rules          logical/converted type against physical type
chunk_rules         chunk byte ranges, page headers walked from the bytes, CRCs,
                    dictionary pages, rows per chunk
stats_rules         statistics legal in the column's sort order, pages inside chunks
index_rules         OffsetIndex against the pages, ColumnIndex null pages, bounds
                    and boundary order
size_stats_checks   SizeStatistics and the page index's level histograms and
                    byte-array sizes: lengths and sums; (deep) against the values
bloom_checks        bloom filter placement and header; (deep) every value probed
decoded             (``deep=True``) a chunk decoded once and cut into its pages
deep_rules          (``deep=True``) every value inside its page, chunk and index
                    bounds; null, NaN and row counts from the decoded levels
writer_bugs         known bugs keyed on created_by: what not to trust
==================  ===========================================================

Example::

    >>> from pqkit.inspect.verify import verify_file
    >>> report = verify_file("data.parquet", deep=True)                 # doctest: +SKIP
    >>> report.exit_code                                                 # doctest: +SKIP
    0
    >>> [(f.rule, f.severity) for f in report.findings]                  # doctest: +SKIP
    [('PQ-CRC-002', 'info')]

Exit codes follow pqinspect: 0 no error, 1 errors found, 2 unusable file
(no magic, truncated or undecodable footer, encrypted footer).
"""
from pqkit.inspect.verify.findings import (
    ERROR,
    INFO,
    RULES,
    WARNING,
    Finding,
    Rule,
    rules_table,
)
from pqkit.inspect.verify.paths import METADATA_NAMES, Target, expand_paths
from pqkit.inspect.verify.runner import FileReport, VerifyRun, verify_file, verify_paths
from pqkit.inspect.verify.writer_bugs import WRITER_BUGS, WriterBug, parse_created_by

__all__ = ["verify_file", "verify_paths", "FileReport", "VerifyRun", "Finding", "Rule",
           "RULES", "rules_table", "ERROR", "WARNING", "INFO", "expand_paths", "Target",
           "METADATA_NAMES", "WRITER_BUGS", "WriterBug", "parse_created_by"]
