"""Running the rules over a file, or over the files a list of paths names.

The checks of one file run in this order; each later step needs the earlier::

    footer (magic, length, FileMetaData)   -> unusable file: stop (exit code 2)
    file rules, schema types, writer bugs
    per row group, per column chunk:
        chunk statistics and SizeStatistics
        page walk: ranges, headers, CRCs, dictionaries, values and rows
        page statistics, page index (OffsetIndex, ColumnIndex), its size fields
        bloom filter: range and header
        decode once (deep only): values, SizeStatistics, bloom filter probes
    across chunks: overlaps (chunks, bloom filters), row-group offsets and sizes

A summary file (``_metadata``, ``_common_metadata``) is checked "footer only":
its chunks' bytes live in other files, so only metadata rules run.
"""
import os
from dataclasses import dataclass, field

from pqkit.errors import ParquetError
from pqkit.inspect.verify import (
    bloom_checks,
    chunk_rules,
    deep_rules,
    footer_rules,
    index_rules,
    size_stats_checks,
    stats_rules,
    type_rules,
)
from pqkit.inspect.verify.context import FileContext
from pqkit.inspect.verify.decoded import decode_chunk
from pqkit.inspect.verify.findings import (
    ERROR,
    INFO,
    UNUSABLE_RULES,
    WARNING,
    FindingList,
    Where,
)
from pqkit.inspect.verify.ordering import orderings
from pqkit.inspect.verify.paths import expand_paths
from pqkit.inspect.verify.writer_bugs import WriterTrust
from pqkit.chunk_range import chunk_start
from pqkit.read.fetch.remote import open_source

EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE = 0, 1, 2
_PAGE_COUNTERS = ("pages", "data_pages", "dictionary_pages", "other_pages", "pages_with_crc",
                  "pages_without_crc", "crc_mismatches")
_COUNTERS = _PAGE_COUNTERS + ("chunks_walked", "values_checked", "bloom_filters",
                              "bloom_values_probed")


@dataclass
class FileReport:
    """What the verification of one file found.

    Attributes
    ----------
    path : str
    footer_only : bool
        Only the footer was checked (a summary file).
    deep : bool
        Values were decoded and checked.
    usable : bool
        False when the footer could not be read (exit code 2).
    findings : list of pqkit.inspect.verify.Finding
    file : dict
        size, created_by, num_rows, num_row_groups, num_columns (None when unknown).
    counters : dict
        pages, data_pages, dictionary_pages, other_pages, pages_with_crc,
        pages_without_crc, crc_mismatches, chunks_walked, values_checked,
        bloom_filters (read), bloom_values_probed (deep).
    """
    path: str
    footer_only: bool = False
    deep: bool = False
    usable: bool = True
    findings: list = field(default_factory=list)
    file: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)

    def count(self, severity):
        return sum(f.severity == severity for f in self.findings)

    @property
    def exit_code(self):
        if not self.usable:
            return EXIT_UNUSABLE
        return EXIT_PROBLEMS if self.count(ERROR) else EXIT_OK

    @property
    def status(self):
        """``"unusable"``, ``"errors"``, ``"warnings"`` or ``"ok"``."""
        if not self.usable:
            return "unusable"
        if self.count(ERROR):
            return "errors"
        return "warnings" if self.count(WARNING) else "ok"

    def to_dict(self):
        return {"path": self.path, "footer_only": self.footer_only, "deep": self.deep,
                "usable": self.usable, "status": self.status, "exit_code": self.exit_code,
                **{k: self.file.get(k) for k in ("size", "created_by", "num_rows",
                                                 "num_row_groups", "num_columns")},
                "counts": {s: self.count(s) for s in (ERROR, WARNING, INFO)},
                "pages": {k: self.counters.get(k, 0) for k in _PAGE_COUNTERS},
                "chunks_walked": self.counters.get("chunks_walked", 0),
                "values_checked": self.counters.get("values_checked", 0) if self.deep else None,
                "findings": [f.to_dict() for f in self.findings]}


def verify_file(source, *, deep=False, footer_only=False, name=None):
    """Check one Parquet file against every rule.

    Parameters
    ----------
    source : path, bytes-like or seekable binary file object
    deep : bool, default False
        Also decode every page and check its values against the statistics
        and the page index.
    footer_only : bool, default False
        Check only the footer (for ``_metadata`` / ``_common_metadata``).
    name : str, optional
        The name to report; defaults to the path.

    Returns
    -------
    FileReport

    Examples
    --------
    >>> report = verify_file("data.parquet", deep=True)        # doctest: +SKIP
    >>> report.exit_code, [f.rule for f in report.findings]    # doctest: +SKIP
    (0, ['PQ-CRC-002'])
    """
    if name is None:
        name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<buffer>"
    report = FileReport(name, footer_only=footer_only, deep=deep and not footer_only)
    findings = FindingList()
    try:
        with open_source(source) as src:
            report.file["size"] = src.size
            md = footer_rules.read_footer(src, findings)
            if md is not None:
                report.file.update(created_by=md.created_by, num_rows=md.num_rows,
                                   num_row_groups=md.num_row_groups,
                                   num_columns=md.num_columns)
                ctx = FileContext(src, md, findings, WriterTrust(md.created_by), orderings(md),
                                  deep=report.deep)
                _check(ctx, footer_only)
                report.counters = {k: ctx.counters.get(k, 0) for k in _COUNTERS}
    except OSError as exc:
        findings.add("PQ-FILE-000", f"the file cannot be read at offset 0: {exc}", 0)
    report.findings = list(findings)
    report.usable = not any(f.rule in UNUSABLE_RULES for f in report.findings)
    return report


def _check(ctx, footer_only):
    footer_rules.check_file(ctx, footer_only)
    type_rules.check_schema(ctx)
    stats_rules.report_untrusted(ctx)
    leaves = ctx.md.schema.columns
    for g, rg in enumerate(ctx.md.raw.row_groups):
        chunks = rg.columns or []
        if len(chunks) != len(leaves) or not footer_rules.usable_row_group(rg):
            continue                      # PQ-FOOTER-005/-014: the chunks cannot be checked
        for node, ordering, chunk in zip(leaves, ctx.orderings, chunks):
            if not footer_rules.usable_chunk(chunk):
                continue                  # PQ-FOOTER-014
            stats_rules.check_chunk_statistics(ctx, g, node, chunk, ordering)
            size_stats_checks.check_chunk_metadata(ctx, g, node, chunk)
            if not footer_only:
                _check_chunk_bytes(ctx, g, node, chunk, ordering)
    if footer_only:
        return
    chunk_rules.check_row_groups(ctx)
    bloom_checks.check_overlaps(ctx)
    pages = ctx.counters["pages"]
    if pages:
        ctx.add("PQ-CRC-002", f"{ctx.counters['pages_with_crc']} of the {pages} pages walked "
                f"(between offset 4 and the footer at offset {ctx.md.footer_offset}) carry a "
                "CRC", ctx.md.footer_offset)


def _check_chunk_bytes(ctx, g, node, chunk, ordering):
    try:
        walk = chunk_rules.check_chunk(ctx, g, node, chunk, ordering)
        if walk is not None:
            stats_rules.check_page_statistics(ctx, walk)
        ci, oi = index_rules.check_page_index(ctx, g, node, chunk, ordering, walk)
        size_stats_checks.check_page_index(ctx, walk, node, chunk, ci, oi,
                                           Where(g, node.dotted_path))
        bloom = bloom_checks.check_filter(ctx, g, node, chunk)
        decoded = decode_chunk(ctx, walk) if ctx.deep else None
        if decoded is not None:
            deep_rules.check_values(ctx, decoded, ci, oi)
            size_stats_checks.check_values(ctx, decoded, ci, oi)
            bloom_checks.check_values(ctx, decoded, bloom)
    except ParquetError as exc:
        # A rule met bytes it could not read (a range beyond the file, ...): the chunk's
        # remaining checks are skipped, the reason is reported.
        start = None if chunk.meta_data is None else chunk_start(chunk.meta_data)
        ctx.add("PQ-CHUNK-004", f"checking the chunk at offset {start} stopped: {exc}", start,
                Where(g, node.dotted_path))


@dataclass
class VerifyRun:
    """The reports of several files and their totals."""
    reports: list

    @property
    def exit_code(self):
        return max((r.exit_code for r in self.reports), default=EXIT_UNUSABLE)

    def totals(self):
        reports = self.reports
        return {
            "files": len(reports),
            "ok": sum(r.status == "ok" for r in reports),
            "with_warnings": sum(r.status == "warnings" for r in reports),
            "with_errors": sum(r.status == "errors" for r in reports),
            "unusable": sum(r.status == "unusable" for r in reports),
            "errors": sum(r.count(ERROR) for r in reports),
            "warnings": sum(r.count(WARNING) for r in reports),
            "infos": sum(r.count(INFO) for r in reports),
            "rows": sum(r.file.get("num_rows") or 0 for r in reports),
            "bytes": sum(r.file.get("size") or 0 for r in reports),
            **{k: sum(r.counters.get(k, 0) for r in reports) for k in _PAGE_COUNTERS},
            "values_checked": sum(r.counters.get("values_checked", 0) for r in reports),
        }


def verify_paths(arguments, *, deep=False):
    """Verify every file that paths, directories and glob patterns name.

    Parameters
    ----------
    arguments : iterable of str
        See :func:`pqkit.inspect.verify.paths.expand_paths`.
    deep : bool, default False

    Returns
    -------
    VerifyRun
        One report per file; an argument that names no file gives an
        unusable report saying so.
    """
    reports = []
    for target in expand_paths(arguments):
        if target.problem is not None:
            report = FileReport(target.path, usable=False)
            findings = FindingList()
            findings.add("PQ-FILE-000", f"{target.problem} (nothing read at offset 0)", 0)
            report.findings = list(findings)
            reports.append(report)
            continue
        reports.append(verify_file(target.path, deep=deep, footer_only=target.footer_only))
    return VerifyRun(reports)
