"""What a read did: row groups and pages considered, skipped and by which rule, decoded,
and bytes read.

Pass a :class:`ReadStatistics` to a read (``read_table(..., statistics=s)``,
``ParquetFile.read``, ``take``, ``iter_batches``) and it is filled in as the read goes;
``pqinspect explain`` shows the same counts. Counts add up over every read the object
is passed to, so one object can total a whole scan.

Example: a filter that the chunk statistics of 8 of 10 row groups rule out, read from
a file with a page index, leaves ``row_groups == 10``,
``row_groups_skipped == {"statistics": 8}``, and ``pages_skipped`` counting the pages
of the two remaining row groups that held no selected row.
"""
import threading
from dataclasses import dataclass, field

__all__ = ["ReadStatistics"]


@dataclass
class ReadStatistics:
    """Counters of one or more reads (thread-safe: chunks decode on worker threads).

    Attributes
    ----------
    row_groups : int
        Row groups considered.
    row_groups_skipped : dict of str to int
        Row groups not read, by the rule that ruled them out: ``"statistics"``,
        ``"bloom filter"``, ``"dictionary"`` or ``"page index"``; a distributed
        read's planner also counts ``"partition"`` (the file's partition values, or
        a filtered column it lacks, rule the filter out).
    rows_selected : int
        Rows the read selected for decoding (before an exact filter narrows them).
    rows_returned : int
        Rows in the result.
    pages : int
        Data pages of the chunks read (as far as the read knew them: a chunk read
        whole without an OffsetIndex counts the pages it walked).
    pages_skipped : int
        Data pages not decoded because they held no selected row.
    pages_decoded : int
        Data pages decoded.
    chunks_whole : int
        Column chunks decoded whole.
    chunks_paged : int
        Column chunks of which only the pages holding selected rows were decoded.
    bytes_read : int
        Bytes of column chunks and pages taken from the source by the decoders.
    by_column : dict of str to dict
        Per leaf (dotted path): ``{"pages_decoded": n, "chunks_whole": n,
        "chunks_paged": n}``.
    """

    row_groups: int = 0
    row_groups_skipped: dict = field(default_factory=dict)
    rows_selected: int = 0
    rows_returned: int = 0
    pages: int = 0
    pages_skipped: int = 0
    pages_decoded: int = 0
    chunks_whole: int = 0
    chunks_paged: int = 0
    bytes_read: int = 0
    by_column: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False,
                                  compare=False)

    def add(self, **counts):
        """Add to the named counters."""
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    def add_column(self, path, **counts):
        """Add to the counters of leaf ``path`` (dotted) and to the totals."""
        with self._lock:
            own = self.by_column.setdefault(path, {"pages_decoded": 0, "chunks_whole": 0,
                                                   "chunks_paged": 0})
            for name, n in counts.items():
                if name in own:
                    own[name] += n
                setattr(self, name, getattr(self, name) + n)

    def skipped_group(self, rule):
        """Count one row group ruled out by ``rule``."""
        with self._lock:
            self.row_groups_skipped[rule] = self.row_groups_skipped.get(rule, 0) + 1

    def merge(self, other):
        """Add the counts of ``other`` (a ReadStatistics or its :meth:`as_dict`)."""
        counts = other.as_dict() if isinstance(other, ReadStatistics) else other
        with self._lock:
            for name, n in counts.items():
                if name == "row_groups_skipped":
                    for rule, k in n.items():
                        self.row_groups_skipped[rule] = self.row_groups_skipped.get(rule, 0) + k
                elif name == "by_column":
                    for path, own in n.items():
                        mine = self.by_column.setdefault(path, dict.fromkeys(own, 0))
                        for key, k in own.items():
                            mine[key] = mine.get(key, 0) + k
                else:
                    setattr(self, name, getattr(self, name) + n)

    def as_dict(self):
        """The counters as a plain dict (for JSON)."""
        out = {name: v for name, v in vars(self).items() if not name.startswith("_")}
        out["row_groups_skipped"] = dict(self.row_groups_skipped)
        out["by_column"] = {k: dict(v) for k, v in sorted(self.by_column.items())}
        return out
