"""Rules and findings: the stable rule ids of ``pqinspect verify`` and what a finding holds.

Every check reports under one rule id from :data:`RULES`. Ids never change
meaning once released; a retired rule keeps its id reserved. Each rule has a
default severity:

* ``error`` -- a reader fails on the file or may return wrong values from it
  (exit code 1);
* ``warning`` -- legal but suspicious; a known writer bug that makes some
  metadata untrustworthy; or a spec deviation that every major reader (Arrow
  C++, parquet-java, DuckDB, polars, fastparquet, pqkit) reads through, whose
  finding names the writer versions that produce it (exit code 0);
* ``info`` -- something a reader should know (a part that was not checked, an
  order the spec leaves undefined).

A rule's ``evidence`` (issue 18) says how pyarrow (Arrow C++), DuckDB, polars and
pqkit read a small file that breaks it, whole and through a filter that lets them
skip row groups and pages: tests/interop/test_verify_rule_evidence.py builds those
files and asserts those outcomes.

A finding may carry a lower severity than its rule's default: a problem that
a known writer bug explains (see :mod:`pqkit.inspect.verify.writer_bugs`) is reported
as a warning and says so in its message.
"""
from dataclasses import dataclass, field

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)


@dataclass(frozen=True)
class Rule:
    """One documented check: id, default severity, area, a one-line title and, where its
    severity was checked against readers, what they do with a file that breaks it."""
    id: str
    severity: str
    area: str
    title: str
    evidence: str = ""


def _rules(*rows):
    return {r[0]: Rule(*r) for r in rows}


# The unusable-file rules (PQ-FILE-*, PQ-FOOTER-001..003) end the check of a file: exit code 2.
UNUSABLE_RULES = frozenset({"PQ-FILE-000", "PQ-FILE-001", "PQ-FILE-003", "PQ-FILE-004",
                            "PQ-FOOTER-001", "PQ-FOOTER-002", "PQ-FOOTER-003"})

RULES = _rules(
    # -- file and footer ---------------------------------------------------------------
    ("PQ-FILE-000", ERROR, "file", "the file cannot be opened or read",
     "a missing file: all four readers fail"),
    ("PQ-FILE-001", ERROR, "file",
     "the file is smaller than the 12 bytes of two magics and a length",
     "10 bytes: all four readers fail"),
    ("PQ-FILE-002", ERROR, "file", "the file does not start with the magic PAR1",
     "'PAR2' at offset 0: pqkit refuses the file; pyarrow, DuckDB, polars read it"),
    ("PQ-FILE-003", ERROR, "file", "the file does not end with the magic PAR1",
     "the last byte cut: all four readers fail"),
    ("PQ-FILE-004", INFO, "file", "the footer is encrypted (PARE): nothing can be verified"),
    ("PQ-FOOTER-001", ERROR, "footer", "the footer length points outside the file",
     "a footer length past the file: all four readers fail"),
    ("PQ-FOOTER-002", ERROR, "footer", "the footer does not decode as FileMetaData",
     "the footer overwritten with 0x0f: all four readers fail"),
    ("PQ-FOOTER-003", ERROR, "footer",
     "the footer lacks a required field or its schema is malformed",
     "FileMetaData.row_groups unset: all four readers fail"),
    ("PQ-FOOTER-004", WARNING, "footer", "the footer length covers bytes after the FileMetaData"),
    ("PQ-FOOTER-005", ERROR, "footer",
     "a row group's column chunks do not match the schema's leaves",
     "a chunk dropped: all four readers refuse the file"),
    ("PQ-FOOTER-006", WARNING, "footer", "FileMetaData.version is neither 1 nor 2"),
    ("PQ-FOOTER-007", ERROR, "footer", "column_orders does not have one entry per leaf column",
     "one entry for two leaves: pyarrow refuses the file ('not enough ColumnOrder')"),
    ("PQ-FOOTER-008", WARNING, "footer",
     "ColumnMetaData.path_in_schema differs from the leaf's path",
     ("two chunks' paths swapped: every reader reads the values right, whole and filtered "
      "(they match chunks to leaves by position)")),
    ("PQ-FOOTER-009", ERROR, "footer",
     "ColumnMetaData.type differs from the schema's physical type",
     ("FLOAT for a DOUBLE chunk: pyarrow refuses the file ('ColumnMetaData type does not "
      "match'); DuckDB, polars, pqkit read it")),
    ("PQ-FOOTER-010", WARNING, "footer",
     "a column chunk of a data file lives in another file (file_path)"),
    ("PQ-FOOTER-011", INFO, "footer",
     "created_by is missing: the writer-bug table cannot be applied"),
    ("PQ-FOOTER-012", WARNING, "footer", "RowGroup.ordinal differs from the row group's position"),
    # readers ignore sorting_columns when reading (pyarrow, DuckDB, polars read such files
    # right; tests/interop/test_verify_severity_readers.py): a warning
    ("PQ-FOOTER-013", WARNING, "footer",
     "a sorting column names a column the schema does not have"),
    ("PQ-FOOTER-014", ERROR, "footer", "a row group or column chunk lacks a required field",
     ("RowGroup.total_byte_size unset: pyarrow and DuckDB fail to decode the footer, polars "
      "refuses it; pqkit reads it")),
    # -- column orders -----------------------------------------------------------------
    ("PQ-ORDER-001", INFO, "order",
     "a ColumnOrder this version does not know: min/max not checked"),
    ("PQ-ORDER-002", WARNING, "order", "a ColumnOrder that its column's type cannot have",
     "IEEE_754_TOTAL_ORDER on an INT64: every reader reads it right, whole and filtered"),
    ("PQ-ORDER-003", INFO, "order",
     "min_value/max_value without column_orders (meaning undefined)"),
    # -- rows --------------------------------------------------------------------------
    ("PQ-ROWS-001", ERROR, "rows", "FileMetaData.num_rows is not the sum of the row groups' rows",
     ("num_rows 5 too many: every reader reads the rows right, but polars counts "
      "(pl.len()) 5 rows too many")),
    ("PQ-ROWS-002", ERROR, "rows", "a column chunk holds more or fewer rows than its row group",
     ("row group one row short: pyarrow and polars drop the last row, DuckDB and pqkit "
      "refuse the file")),
    ("PQ-ROWS-003", ERROR, "rows", "a row group's num_rows is negative, or zero with values",
     "num_rows -1: all four readers refuse the file"),
    # -- column chunks and pages ---------------------------------------------------------
    ("PQ-CHUNK-001", ERROR, "chunk", "a column chunk has no ColumnMetaData",
     "meta_data unset: all four readers refuse the file"),
    ("PQ-CHUNK-002", ERROR, "chunk", "a column chunk's byte range lies outside the data",
     "data_page_offset past the file: all four readers fail (polars panics)"),
    ("PQ-CHUNK-003", ERROR, "chunk",
     "total_compressed_size disagrees with the pages walked (bytes after the last page warn)",
     ("5 bytes short: pyarrow, polars, pqkit fail, DuckDB reads it; 7 bytes after the last "
      "page: every reader reads it right, so that finding is a warning")),
    ("PQ-CHUNK-004", ERROR, "chunk", "a page header is malformed or its page runs past the chunk",
     "a page 1 byte longer: all four readers fail on the next page header"),
    ("PQ-CHUNK-005", ERROR, "chunk", "the data pages' num_values do not add up to the chunk's",
     "ColumnMetaData.num_values one more: DuckDB and pqkit refuse the file"),
    ("PQ-CHUNK-006", WARNING, "chunk", "total_uncompressed_size disagrees with the pages walked"),
    ("PQ-CHUNK-007", WARNING, "chunk",
     "RowGroup.total_compressed_size is not the sum of its chunks"),
    ("PQ-CHUNK-008", WARNING, "chunk", "dictionary_page_offset/data_page_offset miss their pages"),
    ("PQ-CHUNK-009", WARNING, "chunk", "encodings/encoding_stats disagree with the pages walked"),
    ("PQ-CHUNK-010", WARNING, "chunk", "two column chunks share bytes",
     ("column b's chunk pointed at column a's (equal values): every reader reads both "
      "right, whole and filtered; a chunk that runs into the next one (PQ-CHUNK-003) is "
      "read right too")),
    ("PQ-CHUNK-011", INFO, "chunk", "an encrypted column: its pages and indexes are not verified"),
    ("PQ-CHUNK-012", WARNING, "chunk", "RowGroup.file_offset is not where its first chunk starts"),
    ("PQ-PAGE-001", WARNING, "page", "a data page holds no values (PARQUET-1531)"),
    ("PQ-PAGE-002", ERROR, "page", "an uncompressed page's two sizes differ",
     "uncompressed_page_size +1: DuckDB and pqkit refuse the page; pyarrow, polars read it"),
    ("PQ-PAGE-003", ERROR, "page",
     "a v2 page header's counts or level lengths are impossible (a positive num_rows warns)",
     ("definition levels longer than the page: all four readers fail; num_rows above "
      "num_values: every reader reads it right, so that finding is a warning")),
    ("PQ-PAGE-004", INFO, "page", "an INDEX_PAGE or unknown page type was skipped"),
    ("PQ-PAGE-005", ERROR, "page", "a PLAIN page too small for the values it declares",
     "10 INT32 values in 36 bytes: all four readers fail (polars panics)"),
    ("PQ-PAGE-006", ERROR, "page", "a page that must start a row starts inside one",
     "a list column's v2 page opening with repetition level 1: all four readers fail"),
    # -- CRC -----------------------------------------------------------------------------
    ("PQ-CRC-001", ERROR, "crc", "a page's CRC-32 does not match its bytes",
     ("a value byte flipped: pyarrow, DuckDB, polars return the wrong value, pqkit refuses "
      "the page; the CRC field wrong: pqkit refuses the page")),
    ("PQ-CRC-002", INFO, "crc", "how many pages carry a CRC"),
    # -- dictionary ----------------------------------------------------------------------
    ("PQ-DICT-001", ERROR, "dictionary", "a dictionary page comes after a data page",
     "PLAIN page, dictionary, indices: polars refuses the chunk; the others read it"),
    ("PQ-DICT-002", ERROR, "dictionary", "a column chunk has more than one dictionary page",
     ("two dictionaries: pyarrow, polars, pqkit refuse the chunk, DuckDB reads the "
      "second")),
    ("PQ-DICT-003", ERROR, "dictionary",
     "a dictionary-encoded data page without a dictionary page",
     "the dictionary left out of the chunk's range: all four readers fail"),
    ("PQ-DICT-004", ERROR, "dictionary", "a dictionary page that is not PLAIN encoded",
     ("PLAIN bytes labelled RLE_DICTIONARY: pyarrow and pqkit refuse the page; DuckDB, "
      "polars read it")),
    # -- statistics ----------------------------------------------------------------------
    ("PQ-STATS-001", ERROR, "statistics", "min > max under the column's sort order",
     ("chunk min 10 > max 5: filtered by x == 100, pyarrow, polars and pqkit skip the row "
      "group and miss the row")),
    ("PQ-STATS-002", WARNING, "statistics", "a NaN min or max",
     ("a NaN chunk min or max: every reader ignores it and reads right, whole and "
      "filtered")),
    ("PQ-STATS-003", WARNING, "statistics",
     "a zero min written as +0.0 or a zero max as -0.0 (readers must allow for it)"),
    ("PQ-STATS-004", WARNING, "statistics", "is_min/max_value_exact inconsistent with the bounds"),
    ("PQ-STATS-005", WARNING, "statistics", "null_count negative or above the number of values",
     ("null_count -5 or above the values: every reader reads right, whole and filtered "
      "(a count equal to the values that is wrong is PQ-DEEP-005)")),
    ("PQ-STATS-006", ERROR, "statistics", "a bound whose size does not fit the physical type",
     ("a 3-byte INT64 min: pyarrow and DuckDB refuse the file (pq.read_table with a filter "
      "hangs); polars, pqkit read it")),
    ("PQ-STATS-007", WARNING, "statistics",
     "deprecated min/max out of order or unlike min_value/max_value"),
    ("PQ-STATS-008", INFO, "statistics", "min/max for a column whose sort order is undefined"),
    ("PQ-STATS-009", ERROR, "statistics",
     "page statistics outside or not adding up to the chunk's",
     ("chunk max lowered below a page's max: filtered, all four readers skip the row group "
      "and miss rows (a page max raised instead is read right; without --deep the two look "
      "alike)")),
    ("PQ-STATS-010", WARNING, "statistics", "nan_count impossible or on a non-floating column",
     "chunk nan_count above the values: every reader reads it right, whole and filtered"),
    ("PQ-STATS-011", WARNING, "statistics",
     "distinct_count negative or above the number of values"),
    # -- page index ----------------------------------------------------------------------
    ("PQ-INDEX-001", ERROR, "page index", "the OffsetIndex cannot be read",
     "garbage bytes: pqkit's filtered read fails; the others do not read it"),
    ("PQ-INDEX-002", ERROR, "page index",
     "OffsetIndex page locations differ from the data pages walked",
     "last page 1 byte short: pqkit's filtered read fails; the others do not read it"),
    ("PQ-INDEX-003", ERROR, "page index",
     "first_row_index not 0 first, not strictly increasing, or past the rows",
     "a page starting at its predecessor's row: pqkit's filtered read refuses the file"),
    ("PQ-INDEX-004", ERROR, "page index", "a page's row span disagrees with the rows it holds",
     "a page's first row 10 later: filtered, DuckDB and pqkit refuse the file"),
    ("PQ-INDEX-005", ERROR, "page index", "the ColumnIndex cannot be read or does not line up",
     "garbage bytes: pqkit's filtered read fails; the others do not read it"),
    ("PQ-INDEX-006", ERROR, "page index",
     "null_pages contradicts null_counts or the page's values",
     "a page marked null: filtered, DuckDB and pqkit skip it and miss rows"),
    ("PQ-INDEX-007", WARNING, "page index", "a null page with non-empty bounds (arrow-rs #6315)"),
    ("PQ-INDEX-008", WARNING, "page index", "boundary_order does not hold for the pages' bounds",
     ("ASCENDING relabelled DESCENDING: every reader reads it right, whole and filtered "
      "(none of them binary-searches by it; parquet-java, which can, was not tried)")),
    ("PQ-INDEX-009", ERROR, "page index",
     "a ColumnIndex bound is illegal (size, NaN, min > max; a signed zero only warns)",
     "a page's min above its max: filtered, pqkit skips the page and misses rows"),
    ("PQ-INDEX-010", WARNING, "page index", "a ColumnIndex without an OffsetIndex"),
    ("PQ-INDEX-011", WARNING, "page index",
     "ColumnIndex null_counts do not add up to the chunk's null_count",
     "one page's null count +1: every reader reads it right, whole and filtered"),
    ("PQ-INDEX-012", WARNING, "page index", "a ColumnIndex for INT96 under TYPE_ORDER"),
    ("PQ-INDEX-013", WARNING, "page index", "level histograms of the wrong length",
     "one extra definition-level entry: every reader reads it right, whole and filtered"),
    ("PQ-INDEX-014", WARNING, "page index",
     ("an OffsetIndex but no dictionary_page_offset for the dictionary (parquet-mr < 1.15.0, "
      "Polars < 1.39.0)")),
    # -- bloom filters (see bloom_checks.py) ------------------------------------------------
    ("PQ-BLOOM-001", ERROR, "bloom filter",
     "a bloom filter (header and bitset) lies outside the data before the footer",
     "offset past the file: pqkit's filtered read fails; the others do not probe it"),
    ("PQ-BLOOM-002", ERROR, "bloom filter",
     "a BloomFilterHeader does not decode or lacks a required field",
     "three 0xff bytes over the header: filtered, DuckDB and pqkit fail"),
    ("PQ-BLOOM-003", ERROR, "bloom filter",
     "a bloom filter that is not algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED",
     "an undefined hash: pqkit's filtered read fails; the others read right"),
    ("PQ-BLOOM-004", ERROR, "bloom filter",
     "a bloom filter's numBytes is not a positive multiple of 32 (or exceeds 128 MiB)",
     "numBytes 31 short of a block: pqkit's filtered read fails; the others read right"),
    ("PQ-BLOOM-005", ERROR, "bloom filter",
     "bloom_filter_length differs from the header plus numBytes",
     ("one byte short: pqkit's filtered read fails; the others read right (ClickHouse "
      "crashed on such files, ClickHouse #112498)")),
    ("PQ-BLOOM-006", ERROR, "bloom filter",
     "a bloom filter overlaps column chunk pages, a page index or another bloom filter",
     ("bloom_filter_offset at the first data page: filtered, DuckDB and pqkit fail on "
      "the header found there")),
    ("PQ-BLOOM-007", ERROR, "bloom filter",
     "(--deep) a non-null value of the chunk is absent from its bloom filter",
     "bitset cleared: filtered by equality, DuckDB and pqkit skip the row group"),
    # -- size statistics (see size_stats_checks.py) -----------------------------------------
    ("PQ-SIZE-001", ERROR, "size statistics",
     "a SizeStatistics histogram of the wrong length, or a negative level or byte count",
     "a chunk histogram one entry long: pyarrow refuses the file ('histogram size mismatch')"),
    ("PQ-SIZE-002", WARNING, "size statistics",
     "unencoded_byte_array_data_bytes for a column that is not BYTE_ARRAY"),
    # Counts that do not add up are warnings: readers size buffers or plan reads with them
    # at most, never decode by them. Arrow C++ (pyarrow), DuckDB, polars and pqkit return
    # the right values from such files (tests/interop/test_verify_severity_readers.py);
    # no writer is known to produce them. A histogram of the wrong length (PQ-SIZE-001)
    # stays an error: Arrow C++ refuses the file.
    ("PQ-SIZE-003", WARNING, "size statistics",
     "chunk level histograms do not add up to its num_values or its row group's rows"),
    ("PQ-SIZE-004", WARNING, "size statistics",
     "ColumnIndex level histograms disagree with the pages' num_values or the chunk's"),
    ("PQ-SIZE-005", WARNING, "size statistics",
     "OffsetIndex unencoded_byte_array_data_bytes do not add up to the chunk's"),
    ("PQ-SIZE-006", WARNING, "size statistics",
     "(--deep) unencoded_byte_array_data_bytes differs from the values' lengths"),
    ("PQ-SIZE-007", WARNING, "size statistics",
     "(--deep) a level histogram differs from the levels decoded"),
    # -- logical and physical types -------------------------------------------------------
    ("PQ-TYPE-001", ERROR, "types", "an annotation on a physical type it cannot annotate",
     "DATE on an INT64: DuckDB and polars refuse the file; pyarrow, pqkit read integers"),
    ("PQ-TYPE-002", ERROR, "types", "DECIMAL precision or scale illegal for its physical type",
     ("DECIMAL(5, 7) on an INT64: pyarrow, DuckDB, polars refuse the file; pqkit reads "
      "other values than the integers")),
    ("PQ-TYPE-003", ERROR, "types", "INTEGER bit width illegal or unfit for its physical type",
     "INTEGER(32) on an INT64: polars and pqkit refuse the file; pyarrow, DuckDB read it"),
    ("PQ-TYPE-004", WARNING, "types", "ConvertedType and LogicalType disagree"),
    ("PQ-TYPE-005", ERROR, "types", "a FIXED_LEN_BYTE_ARRAY of length 0",
     "a FIXED_LEN_BYTE_ARRAY(4) relabelled length 0: all four readers fail"),
    ("PQ-TYPE-006", INFO, "types", "a logical type this version does not know"),
    ("PQ-TYPE-007", WARNING, "types", "a LIST or MAP group that does not have the spec's shape"),
    ("PQ-TYPE-008", ERROR, "types",
     "a group annotation on a leaf or a leaf annotation on a group",
     "LIST on an INT64 leaf: DuckDB and polars refuse the file; pyarrow, pqkit read it"),
    # -- values (--deep) -------------------------------------------------------------------
    ("PQ-DEEP-001", ERROR, "values", "a page's values cannot be decoded",
     "a level run's length prefix 0xffffffff: all four readers fail"),
    ("PQ-DEEP-002", WARNING, "values", "a value lies outside its page's statistics",
     ("a page header's max below its values: every reader reads it right, whole and "
      "filtered (none uses page header statistics)")),
    ("PQ-DEEP-003", ERROR, "values", "a value lies outside its column chunk's statistics",
     "chunk max one below the largest value: filtered by it, all four readers miss the row"),
    ("PQ-DEEP-004", ERROR, "values", "a value lies outside its ColumnIndex bounds",
     "a page's min above its smallest value: filtered, DuckDB and pqkit miss the row"),
    ("PQ-DEEP-005", ERROR, "values", "a null count differs from the definition levels",
     ("chunk null_count equal to its values (all null): DuckDB reads the column as all "
      "null; filtered by equality, all four readers skip the row group")),
    ("PQ-DEEP-006", WARNING, "values", "a row count differs from the repetition levels",
     ("a list column's v2 num_rows one short (no page index): every reader reads it "
      "right")),
    ("PQ-DEEP-007", WARNING, "values", "a bound marked exact is not a value of the page or chunk"),
    ("PQ-DEEP-008", WARNING, "values", "nan_count differs from the NaNs decoded",
     "chunk nan_count 1 without NaNs: every reader reads it right, whole and filtered"),
    ("PQ-DEEP-009", INFO, "values",
     "a chunk too large for the read limits: its values were not checked"),
    # -- writer bugs (see writer_bugs.py) ---------------------------------------------------
    ("PQ-WRITER-001", WARNING, "writer",
     "parquet-mr < 1.8.0: binary min/max corrupt (PARQUET-251)"),
    ("PQ-WRITER-002", WARNING, "writer",
     "parquet-mr < 1.10.0: min/max compared as signed (Java) bytes (PARQUET-686)"),
    ("PQ-WRITER-003", WARNING, "writer",
     "parquet-cpp < 1.3.0: signed min/max for unsigned orders (PARQUET-686)"),
    ("PQ-WRITER-004", WARNING, "writer",
     "Arrow C++ < 4.0.0: byte-array decimals compared unsigned (PARQUET-1655)"),
    ("PQ-WRITER-005", WARNING, "writer",
     "parquet-cpp < 1.4.0: NaN may be a float min/max (PARQUET-1225)"),
    ("PQ-WRITER-006", WARNING, "writer",
     "parquet-cpp before Arrow 3.0: zero bounds not normalized (PARQUET-1766)"),
    ("PQ-WRITER-007", WARNING, "writer",
     "parquet-mr < 1.2.9: dictionary header left out of chunk size (PARQUET-816)"),
    ("PQ-WRITER-008", WARNING, "writer",
     "parquet-cpp before Arrow 3.0: v2 is_compressed unreliable (ARROW-10353)"),
    ("PQ-WRITER-009", WARNING, "writer",
     "parquet-mr < 1.18.0: null counts -1 without statistics (parquet-java #3585)"),
    ("PQ-WRITER-010", WARNING, "writer",
     "Arrow C++ < 6.0.0: repeated columns' null_count too small (PARQUET-2067)"),
    ("PQ-WRITER-011", WARNING, "writer",
     "Arrow C++: null_count of fixed-width leaves under list<struct> too small (arrow #51097)"),
    ("PQ-WRITER-012", WARNING, "writer",
     "parquet-mr/Impala: INT96 min/max compared bytewise (PARQUET-840)"),
    ("PQ-WRITER-013", WARNING, "writer",
     "parquet-mr 1.12.0: RowGroup.file_offset wrong (PARQUET-2078)"),
    ("PQ-WRITER-014", WARNING, "writer",
     "parquet-mr < 1.8.0: DELTA_BYTE_ARRAY prefixes span pages (PARQUET-246)"),
    ("PQ-WRITER-015", WARNING, "writer",
     "Impala < 3.0.0: NaN may be a float min/max (IMPALA-6527)"),
    ("PQ-WRITER-016", WARNING, "writer",
     "parquet-mr < 1.18.0: zero bounds of statistics not normalized"),
)


@dataclass
class Finding:
    """One problem (or note) found in a file.

    Attributes
    ----------
    rule : str
        A key of :data:`RULES`, e.g. ``"PQ-STATS-001"``.
    severity : str
        ``"error"``, ``"warning"`` or ``"info"``.
    message : str
        What is wrong and where: it always names a file offset.
    offset : int or None
        File offset of the bytes concerned (a page header, a footer, an index).
    row_group, column, page_offset
        Where, when the finding belongs to a row group, a leaf column (dotted
        path) or a page (file offset of its header).
    """
    rule: str
    severity: str
    message: str
    offset: int = None
    row_group: int = None
    column: str = None
    page_offset: int = None

    def to_dict(self):
        return {"rule": self.rule, "severity": self.severity, "message": self.message,
                "offset": self.offset, "row_group": self.row_group, "column": self.column,
                "page_offset": self.page_offset}


@dataclass(frozen=True)
class Where:
    """The place a finding is about: row group, column path and page header offset."""
    row_group: int = None
    column: str = None
    page_offset: int = None

    def page(self, offset):
        return Where(self.row_group, self.column, offset)

    def __str__(self):
        parts = []
        if self.column is not None:
            parts.append(f"column {self.column}")
        if self.row_group is not None:
            parts.append(f"row group {self.row_group}")
        if self.page_offset is not None:
            parts.append(f"page at offset {self.page_offset}")
        return ", ".join(parts)


@dataclass
class FindingList:
    """The findings of one file, in the order the checks made them."""
    items: list = field(default_factory=list)

    def add(self, rule, message, offset, where=None, severity=None, note=None):
        """Record a finding under ``rule`` and return it.

        The message is prefixed with ``where`` and, when it names no offset,
        suffixed with ``offset``; ``note`` (e.g. why the severity was lowered)
        is appended in parentheses.
        """
        spec = RULES[rule]
        where = where or Where()
        text = f"{where}: {message}" if str(where) else message
        if offset is not None and "offset" not in text:
            text += f" (at offset {offset})"
        if note:
            text += f" ({note})"
        finding = Finding(rule, severity or spec.severity, text, offset, where.row_group,
                          where.column, where.page_offset)
        self.items.append(finding)
        return finding

    def count(self, severity):
        return sum(f.severity == severity for f in self.items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def rules_table():
    """Every rule as a JSON-ready dict, in id order within each area."""
    return [{"rule": r.id, "severity": r.severity, "area": r.area, "title": r.title,
             "evidence": r.evidence} for r in RULES.values()]
