"""What the checks of one file share: the open file, its footer, findings and counters."""
from collections import Counter
from dataclasses import dataclass, field

from pqkit.inspect.verify.findings import WARNING, FindingList, Where

_SUBJECTS = {"min_max": "its min/max statistics", "nan_bounds": "its min/max statistics",
             "zero_bounds": "its min/max statistics", "null_count": "its null counts",
             "negative_null_counts": "its null counts", "chunk_size": "its chunk sizes",
             "v2_is_compressed": "its v2 page headers",
             "row_group_offset": "its RowGroup.file_offset",
             "delta_byte_array": "its DELTA_BYTE_ARRAY pages"}


@dataclass
class FileContext:
    """State of the verification of one file.

    Attributes
    ----------
    src : pqkit.read.fetch.source.Source
        The open file.
    md : pqkit.FileMetadata
        Its footer.
    findings : FindingList
    trust : pqkit.inspect.verify.writer_bugs.WriterTrust
        The writer bugs that apply to the file.
    orderings : list of pqkit.inspect.verify.ordering.Ordering
        One per leaf column.
    deep : bool
        Decode every page and check the values.
    counters : collections.Counter
        Pages walked, CRCs present and absent, values checked, ...
    flagged : set
        (writer-bug rule, column) pairs already reported.
    bloom_spans : list
        (start, end, Where) of each bloom filter read, for the overlap rule.
    """
    src: object
    md: object
    findings: FindingList
    trust: object
    orderings: list
    deep: bool = False
    counters: Counter = field(default_factory=Counter)
    flagged: set = field(default_factory=set)
    bloom_spans: list = field(default_factory=list)

    def add(self, rule, message, offset, where=None, bugs=None, severity=None, note=None):
        """Record a finding; with writer ``bugs`` that explain it, or a ``note`` saying why
        it matters less, as a warning saying so."""
        notes = [note] if note else []
        if bugs:
            notes.append(self.trust.note(bugs))
            for bug in bugs:
                self.flag_bug(bug, where)
        if notes:
            severity = WARNING
        return self.findings.add(rule, message, offset, where, severity, "; ".join(notes))

    def flag_bug(self, bug, where=None, what=None):
        """Report once per column (or once per file) that a known writer bug applies."""
        column = None if where is None else where.column
        if (bug.rule, column) in self.flagged:
            return
        self.flagged.add((bug.rule, column))
        at = self.md.footer_offset
        subject = what or _SUBJECTS.get(bug.affects, "its metadata")
        self.findings.add(bug.rule, f"{subject} cannot be trusted: {self.trust.app} is "
                          f"affected by {bug.issue}: {bug.summary} (footer at offset {at})",
                          at, Where(column=column), WARNING)
