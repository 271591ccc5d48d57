"""Known writer bugs keyed on ``created_by``: which metadata of a file not to trust.

``created_by`` reads ``<application> version <version> (build <hash>)``, e.g.
``parquet-mr version 1.8.1 (build 4aba4da...)``. The version is
``major.minor.patch`` followed by free text, a ``-pre-release`` and a
``+build`` part; missing parts count as 0, so a bare ``parquet-mr`` is
version 0.0.0 -- older than every fix, which is what arrow C++ and
parquet-java assume for it.

Each :class:`WriterBug` says which application versions are affected, which
columns, and which metadata (``affects``):

* ``min_max`` -- row-group, page and ColumnIndex bounds;
* ``nan_bounds`` / ``zero_bounds`` -- only the NaN and signed-zero rules of
  the bounds;
* ``null_count`` -- null counts (statistics, v2 headers, ColumnIndex);
* ``chunk_size`` -- ``total_compressed_size``;
* ``v2_is_compressed`` -- a field of v2 page headers;
* ``negative_null_counts`` -- -1 written as a null count (v2 headers, ColumnIndex);
* ``row_group_offset`` -- ``RowGroup.file_offset``;
* ``delta_byte_array`` -- how DELTA_BYTE_ARRAY pages decode.

The facts come from arrow C++ ``ApplicationVersion`` (PARQUET-251, -686,
-816, ARROW-10353), parquet-java ``CorruptStatistics`` (the CDH 5.5 backport
of PARQUET-251), arrow-go (PARQUET-1655 fixed in parquet-cpp-arrow 4.0.0),
the fix of PARQUET-2067 in Arrow 6.0.0 (apache/arrow PR #11281) and the
issues named in each entry. Where a fix version could not be confirmed the
entry says so.
"""
import re
from dataclasses import dataclass
from typing import Callable

from pqkit.format import Type
from pqkit.statistics import SIGNED

_APP_RE = re.compile(r"^(.*?)\s*(?:(version\s*(?:([^(]*?)\s*(?:\(\s*build\s*([^)]*?)\s*\))?)?)?)$")
_VERSION_RE = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?([^-+]*)?(?:-([^+]*))?(?:\+(.*))?$")


@dataclass(frozen=True)
class AppVersion:
    """A parsed ``created_by``: application name and (major, minor, patch)."""
    application: str
    version: tuple
    pre_release: str = ""
    raw: str = ""

    def older_than(self, application, version):
        return self.application == application and self.version < tuple(version)

    def __str__(self):
        return self.raw


def parse_created_by(created_by):
    """The :class:`AppVersion` of a ``created_by`` string (None for None or empty).

    Examples
    --------
    >>> parse_created_by("parquet-mr version 1.8.1 (build 4aba4da)").version
    (1, 8, 1)
    >>> parse_created_by("parquet-cpp-arrow version 15.0.0-SNAPSHOT").pre_release
    'SNAPSHOT'
    """
    if not created_by or not created_by.strip():
        return None
    text = created_by.strip()
    m = _APP_RE.match(text)
    application = (m.group(1) if m else text).strip().lower()
    version, pre = (0, 0, 0), ""
    vm = _VERSION_RE.match(m.group(3) or "") if m else None
    if vm:
        version = tuple(int(vm.group(i) or 0) for i in (1, 2, 3))
        pre = vm.group(5) or ""
    return AppVersion(application, version, pre, text)


# -- which columns an entry concerns -----------------------------------------------------
def _binary(node, ordering):
    return node.physical_type in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY)


def _not_signed(node, ordering):
    return ordering.sort != SIGNED


def _java_signed_bytes(node, ordering):
    """Unsigned orders, and every byte array: parquet-mr compared Binary as Java (signed)
    bytes, which is neither the unsigned order nor a decimal's two's-complement value."""
    return ordering.sort != SIGNED or _binary(node, ordering)


def _binary_decimal(node, ordering):
    return _binary(node, ordering) and ordering.kind == "decimal"


def _floating(node, ordering):
    return node.physical_type in (Type.FLOAT, Type.DOUBLE)


def _int96(node, ordering):
    return node.physical_type == Type.INT96


def _repeated(node, ordering):
    return node.max_repetition_level > 0


def _fixed_width_under_list_struct(node, ordering):
    """A fixed-width leaf with a plain (struct) group between it and a repeated ancestor."""
    if node.max_repetition_level == 0 or node.physical_type == Type.BYTE_ARRAY:
        return False
    parent = node.parent
    while parent is not None and parent.parent is not None and parent.repetition != 2:
        if parent.logical_type is None and parent.converted_type is None:
            return True
        parent = parent.parent
    return False


def _any(node, ordering):
    return True


def _app(name, fixed=None, exact=None, also=()):
    """A matcher: ``name`` before version ``fixed``, or exactly version ``exact``, or (with
    neither) every version; every version of the applications in ``also``."""
    def matches(app):
        if app.application in also:
            return True
        if app.application != name:
            return False
        if exact is not None:
            return app.version == exact
        return fixed is None or app.version < fixed
    return matches


def _parquet_mr_251(app):
    if app.application != "parquet-mr" or app.version >= (1, 8, 0):
        return False
    # Cloudera backported the fix into 1.5.0-cdh5.5.0 and later CDH builds of 1.5.0.
    cdh = re.match(r"cdh(\d+)\.(\d+)", app.pre_release or "")
    return not (app.version == (1, 5, 0) and cdh and
                (int(cdh.group(1)), int(cdh.group(2))) >= (5, 5))


@dataclass(frozen=True)
class WriterBug:
    """One entry of the table: who wrote it wrong, which columns, which metadata.

    ``announce`` says whether every affected column is reported up front; an entry
    whose conditions are narrower than its column filter (pyarrow 26 writes correct
    counts for most list<struct> columns) only explains mismatches that checks find.
    """
    rule: str
    issue: str
    affects: str
    matches: Callable
    columns: Callable
    summary: str
    unless_min_equals_max: bool = False
    announce: bool = True


WRITER_BUGS = (
    WriterBug("PQ-WRITER-001", "PARQUET-251", "min_max", _parquet_mr_251, _binary,
              "binary min/max were taken from reused buffers and may be garbage"),
    WriterBug("PQ-WRITER-002", "PARQUET-686", "min_max", _app("parquet-mr", (1, 10, 0)),
              _java_signed_bytes, "min/max were compared as signed ints and byte arrays as "
              "signed Java bytes, which is neither an unsigned order nor a decimal's value",
              unless_min_equals_max=True),
    WriterBug("PQ-WRITER-003", "PARQUET-686", "min_max", _app("parquet-cpp", (1, 3, 0)),
              _not_signed, "min/max were compared as signed for a column whose order is "
              "unsigned", unless_min_equals_max=True),
    # arrow-go gates on parquet-cpp-arrow < 4.0.0; plain "parquet-cpp" names every Arrow
    # release before 3.0, so it predates the fix as well.
    WriterBug("PQ-WRITER-004", "PARQUET-1655", "min_max",
              _app("parquet-cpp-arrow", (4, 0, 0), also=("parquet-cpp",)), _binary_decimal,
              "decimal min/max were compared as unsigned bytes, so negatives sort above "
              "positives"),
    WriterBug("PQ-WRITER-005", "PARQUET-1225", "nan_bounds", _app("parquet-cpp", (1, 4, 0)),
              _floating, "a NaN could become the min or max"),
    # PARQUET-1766 (apache/arrow PR #6167, 2020) normalized zero bounds; every Arrow release
    # before 3.0 says "parquet-cpp version 1.5.1-SNAPSHOT", so none can be told apart.
    WriterBug("PQ-WRITER-006", "PARQUET-1766", "zero_bounds", _app("parquet-cpp"),
              _floating, "zero bounds were written with the sign the data had"),
    WriterBug("PQ-WRITER-007", "PARQUET-816", "chunk_size", _app("parquet-mr", (1, 2, 9)), _any,
              "total_compressed_size left out the dictionary page header"),
    WriterBug("PQ-WRITER-008", "ARROW-10353", "v2_is_compressed", _app("parquet-cpp", (2, 0, 0)),
              _any, "v2 pages said is_compressed=false over compressed values"),
    # The issue is about v2 num_nulls; parquet-testing's datapage_v1-*-checksum files
    # (parquet-mr 1.13, statistics off) show -1 in the ColumnIndex null_counts as well.
    WriterBug("PQ-WRITER-009", "parquet-java #3585", "negative_null_counts",
              _app("parquet-mr", (1, 18, 0)), _any,
              "null counts were written as -1 when statistics were off"),
    WriterBug("PQ-WRITER-010", "PARQUET-2067", "null_count",
              _app("parquet-cpp-arrow", (6, 0, 0), also=("parquet-cpp",)), _repeated,
              "null_count left out null and empty lists"),
    WriterBug("PQ-WRITER-011", "apache/arrow #51097", "null_count",
              _app("parquet-cpp-arrow"), _fixed_width_under_list_struct,
              "null_count of a fixed-width leaf under list<struct> leaves out null and empty "
              "lists (open in 2026)", announce=False),
    WriterBug("PQ-WRITER-012", "PARQUET-840", "min_max",
              _app("parquet-mr", also=("impala",)), _int96,
              "INT96 min/max were compared bytewise, which is not chronological"),
    WriterBug("PQ-WRITER-013", "PARQUET-2078", "row_group_offset",
              _app("parquet-mr", exact=(1, 12, 0)), _any,
              "RowGroup.file_offset reused a dictionary page offset"),
    WriterBug("PQ-WRITER-014", "PARQUET-246", "delta_byte_array", _app("parquet-mr", (1, 8, 0)),
              _any, "DELTA_BYTE_ARRAY prefixes continue across page boundaries"),
    # IMPALA-6527 was fixed in 2018; 3.0.0 is taken as the first fixed release (unverified).
    WriterBug("PQ-WRITER-015", "IMPALA-6527", "nan_bounds", _app("impala", (3, 0, 0)),
              _floating, "a NaN could become the min or max"),
    # Only the column index was normalized (PARQUET-1386, 1.11.0): parquet-testing files from
    # 1.12.0 and 1.16.0 keep the data's zero sign in their statistics, files from
    # 1.18.0-SNAPSHOT normalize. The first fixed release is not confirmed.
    WriterBug("PQ-WRITER-016", "PARQUET-1222", "zero_bounds", _app("parquet-mr", (1, 18, 0)),
              _floating, "statistics kept the sign of a zero bound (-0.0 min / +0.0 max were "
              "not enforced)"),
)


class WriterTrust:
    """The writer bugs that apply to one file, per column and per kind of metadata.

    Parameters
    ----------
    created_by : str or None
        FileMetaData.created_by.
    """

    def __init__(self, created_by):
        self.app = parse_created_by(created_by)
        self.bugs = [] if self.app is None else [b for b in WRITER_BUGS if b.matches(self.app)]

    def bugs_for(self, node, ordering, affects):
        """The bugs of this file that make ``affects`` of column ``node`` untrustworthy."""
        return [b for b in self.bugs if b.affects == affects and b.columns(node, ordering)]

    def file_bugs(self, affects):
        """The bugs of this file about file-wide metadata (``chunk_size``, ...)."""
        return [b for b in self.bugs if b.affects == affects]

    def note(self, bugs):
        """The parenthesized note of a finding downgraded because of ``bugs``."""
        names = ", ".join(f"{b.issue} ({b.rule})" for b in bugs)
        return f"written by {self.app}: known writer bug {names}; reported as a warning"


def min_max_untrusted(trust, node, ordering, lo, hi):
    """The bugs that make the bounds (lo, hi) of a column untrustworthy; bugs about
    unsigned orders spare bounds that are equal (PARQUET-1026)."""
    bugs = trust.bugs_for(node, ordering, "min_max")
    if lo is not None and lo == hi:
        bugs = [b for b in bugs if not b.unless_min_equals_max]
    return bugs
