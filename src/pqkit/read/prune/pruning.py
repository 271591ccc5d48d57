"""Which row groups and pages a filtered read touches, and why: the one decision.

The filtered reader (:mod:`pqkit.read.prune.filtered`) reads what :func:`plan_group`
decides, and ``pqinspect explain`` prints the same plan, so an explanation is
never a second opinion. For a row group and a filter in DNF:

1. each predicate is tested against the column chunk's statistics, then, for
   ``==`` and ``in`` on a plain integer, string or binary column, against the
   chunk's bloom filter, then -- when every data page is dictionary encoded (as
   its ``encoding_stats`` record) and the dictionary page is at most 1 MiB --
   against the dictionary's values (for an operator nulls never satisfy); a
   conjunction with one failing predicate cannot match, and a row group whose
   conjunctions all fail is skipped (a spatial ``intersects`` predicate is tested
   against the chunk's geo statistics box instead, :mod:`pqkit.read.prune.spatial`);
2. otherwise each predicate with a ColumnIndex and an OffsetIndex tests every
   page's bounds; the rows of the pages that may match are the predicate's rows,
   and the candidate rows are the union over conjunctions of the intersections of
   their predicates' rows (None when no predicate has a page index: every row);
3. the candidate rows become the :class:`RowSelection` the read decodes
   (:attr:`GroupPlan.selection`); the decoder maps it to each chunk's pages.

Example: ``[("x", ">", 50)]`` over a row group whose chunk statistics give x in
[0, 99] and whose pages hold x in [0, 49] and [50, 99] keeps the row group, rules
out page 0 by its ColumnIndex bounds, and makes the rows of page 1 the candidates.
"""
import struct
from dataclasses import dataclass, field

import numpy as np

from pqkit import datatypes as T
from pqkit.bloom import MAX_BYTES as MAX_BLOOM_BYTES
from pqkit.bloom import SplitBlockBloomFilter, parse_bloom_filter, read_bloom_filter_header
from pqkit.chunk_range import dictionary_segment, where_of
from pqkit.crypto.modules import ModuleType
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.errors import CorruptFileError
from pqkit.format import ConvertedType, Encoding, PageType, Type
from pqkit.read.decode.values import FixedValues
from pqkit.read.fetch.page_index import page_row_ranges, read_column_index, read_offset_index
from pqkit.read.prune.filters import PY_OPS, chunk_statistics, term_may_match
from pqkit.read.prune.spatial import INTERSECTS, chunk_box_verdict
from pqkit.read.prune.variant_paths import VariantTarget, fallback_empty
from pqkit.read.prune.term_mask import term_mask
from pqkit.read.row_selection import RowSelection
from pqkit.statistics import is_unsigned

__all__ = ["Verdict", "GroupPlan", "plan_group", "read_bloom_filter"]

_FLOATS = (Type.FLOAT, Type.DOUBLE)
MAX_BLOOM_READ = MAX_BLOOM_BYTES + 1024     # bitset plus a generous header
# A dictionary is read to rule a row group out only when it is small next to the chunk
# it may save; larger ones cost more than they are likely to avoid.
MAX_DICTIONARY_PROBE = 1 << 20
MAX_INDEXED_DICTIONARY_PROBE = 64 << 10
_DICT_ENCODINGS = (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY)


@dataclass
class Verdict:
    """What one piece of metadata says about one predicate.

    Attributes
    ----------
    term : tuple
        (column path, op, value).
    source : str
        ``"statistics"``, ``"bloom filter"`` or ``"page index"``; ``"none"`` when
        the chunk has neither statistics nor a bloom filter that apply.
    may_match : bool
        False when the metadata proves that no row matches.
    detail : str
        The evidence: the bounds, the null count, or the probe.
    """
    term: tuple
    source: str
    may_match: bool
    detail: str


@dataclass
class PageVerdict:
    """A page of a filtered column: its place, its rows and the page index's verdict."""
    page: int
    offset: int
    size: int
    rows: tuple
    verdict: Verdict


@dataclass
class GroupPlan:
    """The decision for one row group.

    Attributes
    ----------
    row_group, num_rows : int
    chunk_verdicts : list of list of Verdict
        Per conjunction, per predicate: statistics, then bloom filter.
    skipped : bool
        No conjunction can match: nothing of the row group is read.
    page_verdicts : list
        (predicate, [PageVerdict, ...]) for each predicate with a page index.
    candidates : numpy.ndarray or None
        Sorted row numbers that may match; None means every row.
    every_row : bool
        The statistics prove that every row matches (a conjunction each of whose
        predicates holds for the chunk's whole value range, with no null it would
        reject): the row group is read without evaluating the filter.
    """
    row_group: int
    num_rows: int
    chunk_verdicts: list = field(default_factory=list)
    skipped: bool = False
    page_verdicts: list = field(default_factory=list)
    candidates: np.ndarray | None = None
    every_row: bool = False

    @property
    def selection(self):
        """The candidate rows as a :class:`RowSelection` (every row when the page index
        ruled nothing out)."""
        if self.candidates is None:
            return RowSelection.all(self.num_rows)
        return RowSelection.from_rows(self.candidates, self.num_rows)

    @property
    def skipped_by(self):
        """What ruled the row group out (its failing checks' kinds, ``"statistics and
        bloom filter"``, ...), or None when it is read."""
        if not self.skipped:
            return None
        kinds = {v.source for conj in self.chunk_verdicts for v in conj if not v.may_match}
        if self.candidates is not None:
            kinds.add("page index")
        return " and ".join(sorted(kinds))


def plan_group(groups, dnf, leaves, decoders, g):
    """Decide what a filtered read of row group ``g`` touches.

    Parameters
    ----------
    groups : pqkit.read.decode.row_group.RowGroupReader
    dnf : list of list of (path, op, value)
        A normalized filter (:func:`pqkit.read.prune.filters.normalize`).
    leaves : dict
        Path -> leaf SchemaNode of each filtered column.
    decoders : dict
        Path -> :func:`pqkit.read.prune.filters.bound_decoder` of the leaf.
    g : int

    Returns
    -------
    GroupPlan
    """
    rg = groups.metadata.checked_row_group(g)
    plan = GroupPlan(g, rg.num_rows)
    alive = []
    for conj in dnf:
        # Statistics first for every predicate: a conjunction they already rule out
        # costs no bloom filter or dictionary read.
        stats = [_statistics_verdict(groups.metadata, rg, leaves[t[0]], t, decoders[t[0]])
                 for t in conj]
        verdicts = [[v] if v is not None else [] for v, _, _ in stats]
        plan.every_row |= all(every for _, _, every in stats)
        if all(v is None or v.may_match for v, _, _ in stats):
            for t, (_, holds_for_all, _), vs in zip(conj, stats, verdicts):
                if not holds_for_all:
                    vs.extend(_probe_verdicts(groups, rg, g, leaves[t[0]], t))
                if not vs:
                    vs.append(Verdict(t, "none", True,
                                      "no statistics, bloom filter or dictionary"))
                if not vs[-1].may_match:
                    break
        plan.chunk_verdicts.append([v for vs in verdicts for v in vs])
        alive.append(all(v.may_match for vs in verdicts for v in vs))
    if not any(alive):
        plan.skipped = True
        return plan
    if plan.every_row:
        return plan
    plan.candidates = _candidates(groups, rg, g, dnf, alive, leaves, decoders, plan)
    if plan.candidates is not None and not len(plan.candidates):
        plan.skipped = True
    return plan


def _statistics_verdict(metadata, rg, node, term, decode):
    """(Verdict of the chunk statistics or None without them, whether they prove that
    every non-null value satisfies ``term`` -- then no probe can rule the chunk out --,
    and whether they prove that every row does)."""
    if isinstance(node, VariantTarget):
        return _variant_verdict(metadata, rg, node, term, decode), False, False
    chunk = rg.columns[node.column_index]
    if term[1] == INTERSECTS:
        ok, detail = chunk_box_verdict(chunk, term)
        return Verdict(term, "statistics", ok, detail), False, False
    stats = chunk_statistics(chunk, node, metadata.declares_order(node.column_index))
    if stats is None:
        return None, False, False
    lo, hi, nulls, values = stats
    is_float = Type(node.physical_type) in _FLOATS
    ok = term_may_match(term, decode, lo, hi, nulls, values, is_float)
    verdict = Verdict(term, "statistics", ok, _bounds_text(decode, lo, hi, nulls))
    holds = ok and _holds_for_all(term, decode, lo, hi)
    return verdict, holds, holds and _every_row(term[1], nulls, is_float)


def _variant_verdict(metadata, rg, target, term, decode):
    """The shredded leaf's statistics on a variant path, where its fallback ``value``
    chunk is all null (else they bound nothing); None when the path is not shredded."""
    if target.typed is None:
        return None
    if target.fallback is not None and \
            not fallback_empty(rg.columns[target.fallback.column_index]):
        return Verdict(term, "statistics", True, f"{target.fallback.dotted_path} holds "
                                                 f"values of any type")
    verdict, _, _ = _statistics_verdict(metadata, rg, target.typed, term, decode)
    return verdict


def _holds_for_all(term, decode, lo, hi):
    """Whether bounds ``lo``..``hi`` prove ``term`` true for every value between them:
    an ordering predicate true at both bounds, or ``!=``/``not in`` values outside them."""
    _, op, value = term
    if decode is None or lo is None or hi is None:
        return False
    try:
        low, high = decode(bytes(lo)), decode(bytes(hi))
        if low != low or high != high:          # NaN bounds prove nothing
            return False
        if op in ("<", "<=", ">", ">="):
            return bool(PY_OPS[op](low, value)) and bool(PY_OPS[op](high, value))
        outside = [value] if op == "!=" else list(value) if op == "not in" else None
        return outside is not None and all(bool(v < low) or bool(v > high) for v in outside)
    except (struct.error, ValueError, OverflowError, TypeError):
        return False


def _every_row(op, nulls, is_float):
    """Whether a predicate that holds for every value between a chunk's bounds holds for
    every row: its nulls (which only ``not in`` keeps) are known to be none, and a float
    column's NaNs -- outside every bound, in no statistic -- satisfy it (``!=`` and
    ``not in`` only)."""
    if is_float and op not in ("!=", "not in"):
        return False
    return op == "not in" or nulls == 0


def _probe_verdicts(groups, rg, g, node, term):
    """The bloom filter's and then the dictionary's verdicts on ``term``, as far as they
    apply (the dictionary only while the bloom filter leaves the value possible)."""
    out = []
    if term[1] == INTERSECTS or isinstance(node, VariantTarget):
        return out                      # no bloom filter or dictionary holds boxes, variants
    chunk = rg.columns[node.column_index]
    probe = _bloom_values(node, term)
    if probe is not None and chunk.meta_data is not None and \
            chunk.meta_data.bloom_filter_offset is not None:
        bloom = read_bloom_filter(groups.source, groups.metadata, node, g)
        present = [v for v in probe if bloom.might_contain(v, node.physical_type,
                                                           node.element.type_length)]
        detail = (f"{bloom.num_bytes} bytes at offset {chunk.meta_data.bloom_filter_offset}: "
                  f"{len(probe) - len(present)} of {len(probe)} values absent")
        out.append(Verdict(term, "bloom filter", bool(present), detail))
        if not present:
            return out
    dictionary = _dictionary_verdict(groups, chunk, g, node, term)
    if dictionary is not None:
        out.append(dictionary)
    return out


def _dictionary_values(node, term):
    """Whether a dictionary can decide ``term``: an operator nulls never satisfy, on a
    column whose physical values are its values (plain numbers, text, bytes)."""
    _, op, value = term
    if op in ("!=", "not in"):
        return False
    physical = Type(node.physical_type)
    if physical in _FLOATS:
        return node.logical_type is None and node.converted_type is None
    values = value if op == "in" else [value]
    probe = _bloom_values(node, (term[0], "in", values))   # the same plain-value rule
    return probe is not None and len(probe) == len(values)


def _dictionary_verdict(groups, chunk, g, node, term):
    """The dictionary's verdict on ``term`` when every data page of the chunk is
    dictionary encoded (its encoding_stats say so) and the dictionary page is at
    most MAX_DICTIONARY_PROBE bytes; None when it cannot decide."""
    md = chunk.meta_data
    if md is None or not md.encoding_stats or not _dictionary_values(node, term):
        return None
    data = [s for s in md.encoding_stats if s.page_type in (PageType.DATA_PAGE,
                                                             PageType.DATA_PAGE_V2)]
    if not data or any(s.encoding not in _DICT_ENCODINGS for s in data if s.count):
        return None
    where = where_of(node, g)
    oi = read_offset_index(groups.source, chunk, groups.metadata.footer_offset, where,
                           groups.pad,
                           groups.metadata.chunk_decryptor(g, node.column_index, where))
    first = oi.page_locations[0].offset if oi is not None and oi.page_locations else \
        md.data_page_offset
    segment = dictionary_segment(md, first) if first is not None else None
    # With a page index the candidate pages are found without it, and a large
    # dictionary (high cardinality, few values to rule out) is read only when small.
    limit = MAX_DICTIONARY_PROBE if chunk.column_index_offset is None else \
        MAX_INDEXED_DICTIONARY_PROBE
    if segment is None or segment[1] > limit:
        return None
    values = groups.read_dictionary(g, node, segment)
    if values is None:
        return None
    hit = _dictionary_hit(values, node, term)
    if hit is None:
        return None
    return Verdict(term, "dictionary", hit, f"{_count(values)} values at offset "
                   f"{segment[0]}: {'some' if hit else 'none'} match")


def _count(values):
    return len(values.array) if isinstance(values, FixedValues) else len(values.offsets) - 1


def _dictionary_hit(values, node, term):
    """Whether any dictionary value satisfies ``term`` (None when they cannot be
    compared): on the buffers where :func:`term_mask` can, else value by value."""
    _, op, value = term
    column = _as_column(values, node)
    if column is not None:
        mask = term_mask(column, op, value)
        if mask is not None:
            return bool(mask.any())
    test = PY_OPS[op]
    try:
        return any(test(v, value) for v in _python_values(values, node))
    except TypeError:
        return None


def _as_column(values, node):
    """The dictionary values as a column of their plain type, or None."""
    if isinstance(values, FixedValues):
        dtype = values.array.dtype
        kind = {np.dtype(np.int32): T.int32(), np.dtype(np.int64): T.int64(),
                np.dtype(np.float32): T.float32(), np.dtype(np.float64): T.float64()}.get(dtype)
        return PrimitiveColumn(kind, values.array) if kind is not None and \
            values.array.ndim == 1 else None
    lt, ct = node.logical_type, node.converted_type
    text = (lt is not None and lt.STRING is not None) or ct == ConvertedType.UTF8
    return BinaryColumn(T.string() if text else T.binary(), values.offsets, values.data)


def _python_values(values, node):
    if isinstance(values, FixedValues):
        return values.array.tolist()
    offsets, data = values.offsets, values.data.tobytes()
    raw = [data[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
    lt, ct = node.logical_type, node.converted_type
    if (lt is not None and lt.STRING is not None) or ct == ConvertedType.UTF8:
        return [r.decode("utf-8", "surrogateescape") for r in raw]
    return raw


def _bounds_text(decode, lo, hi, nulls):
    def show(raw):
        if raw is None:
            return "?"
        try:
            return repr(decode(bytes(raw))) if decode is not None else f"0x{bytes(raw).hex()}"
        except (struct.error, ValueError, OverflowError):   # an undecodable bound: shown raw
            return f"0x{bytes(raw).hex()}"
    text = f"min {show(lo)}, max {show(hi)}"
    return text if nulls is None else f"{text}, {nulls} nulls"


def _bloom_values(node, term):
    """The values to probe a bloom filter with, or None when the filter cannot decide
    ``term`` (another operator, a type whose values need conversion, floats, whose
    -0.0 and 0.0 hash apart)."""
    _, op, value = term
    if op not in ("==", "in"):
        return None
    values = value if op == "in" else [value]
    physical = Type(node.physical_type)
    lt, ct = node.logical_type, node.converted_type
    if physical in (Type.INT32, Type.INT64):
        # Python ints hash as the stored values only for plain and signed INTEGER columns.
        plain = (lt is None and ct is None) or (lt is not None and lt.INTEGER is not None)
        bits = 32 if physical == Type.INT32 else 64
        if not plain or is_unsigned(node) or not all(isinstance(v, int) and not isinstance(v, bool)
                                 for v in values):
            return None
        return [v for v in values if -(1 << (bits - 1)) <= v < (1 << (bits - 1))]
    if physical == Type.BYTE_ARRAY:
        text = (lt is not None and lt.STRING is not None) or ct == ConvertedType.UTF8
        kind = str if text else bytes
        if (lt is not None or ct is not None) and not text:
            return None
        if not all(type(v) is kind for v in values):
            return None
        return list(values)
    return None


def read_bloom_filter(source, metadata, node, g):
    """The SplitBlockBloomFilter of leaf ``node`` in row group ``g``, or None.

    Raises
    ------
    pqkit.CorruptFileError
        The filter's stored range lies outside the data before the footer.
    """
    chunk = metadata.checked_row_group(g).columns[node.column_index]
    md = chunk.meta_data
    if md is None or md.bloom_filter_offset is None:
        return None
    where = f"bloom filter of column {node.dotted_path}, row group {g}"
    offset, length = md.bloom_filter_offset, md.bloom_filter_length
    decryptor = metadata.chunk_decryptor(g, node.column_index, where_of(node, g))
    if decryptor is not None:       # the header and the bitset are modules of their own
        header, bitset = decryptor.read_modules(
            source.read, offset, (ModuleType.BLOOM_FILTER_HEADER,
                                  ModuleType.BLOOM_FILTER_BITSET), "bloom filter")
        # The header's plaintext may run on past the Thrift struct (parquet-mr pads it).
        declared, _ = read_bloom_filter_header(header, 0, origin=offset)
        if declared.numBytes != len(bitset):
            raise CorruptFileError(f"{where}: the header declares {declared.numBytes} "
                                   f"bytes, the encrypted bitset holds {len(bitset)}")
        return SplitBlockBloomFilter(bitset)
    if length is None:     # older writers: header then bitset, size from the header
        length = min(metadata.footer_offset - offset, MAX_BLOOM_READ)
    if offset < 4 or length <= 0 or offset + length > metadata.footer_offset:
        raise CorruptFileError(f"{where}: offset {offset} length {length} lies outside "
                               f"the data of the file")
    _, bloom, _ = parse_bloom_filter(source.read(offset, length), 0, origin=offset)
    return bloom


def _candidates(groups, rg, g, dnf, alive, leaves, decoders, plan):
    n = rg.num_rows
    result = np.zeros(n, np.bool_)
    limited = False
    for conj, ok in zip(dnf, alive):
        if not ok:
            continue
        mask = np.ones(n, np.bool_)
        for term in conj:
            rows = _term_rows(groups, rg, g, leaves[term[0]], term, decoders[term[0]], plan)
            if rows is not None:
                mask &= rows
                limited = True
        result |= mask
    # Pages that rule nothing out leave every row a candidate: no selection to narrow.
    return np.flatnonzero(result) if limited and not result.all() else None


def _can_be_null_page(node, null_count):
    """Whether a page the ColumnIndex marks as nulls only can be one: its leaf must be
    nullable and its null count, when given, positive. parquet-mr 1.13 wrote null_pages
    true, null_count -1 and no bounds for every page of a REQUIRED column with values
    (parquet-testing's datapage_v1-snappy-compressed-checksum.parquet)."""
    return node.max_definition_level > 0 and (null_count is None or null_count > 0)


def _term_rows(groups, rg, g, node, term, decode, plan):
    if term[1] == INTERSECTS:           # the spec has no page-level geo statistics
        return None
    if isinstance(node, VariantTarget):
        return _variant_rows(groups, rg, g, node, term, decode, plan)
    chunk = rg.columns[node.column_index]
    where = where_of(node, g)
    limit = groups.metadata.footer_offset
    decryptor = groups.metadata.chunk_decryptor(g, node.column_index, where)
    ci = read_column_index(groups.source, chunk, limit, where, decryptor=decryptor)
    oi = read_offset_index(groups.source, chunk, limit, where, groups.pad, decryptor)
    if ci is None or oi is None or len(ci.null_pages) != len(oi.page_locations):
        return None
    spans = page_row_ranges(oi, rg.num_rows, where)
    rows = np.zeros(rg.num_rows, np.bool_)
    is_float = Type(node.physical_type) in _FLOATS
    if not groups.metadata.declares_order(node.column_index):
        decode = None           # bounds without a declared order mean nothing
    pages = []
    for i, ((a, b), loc) in enumerate(zip(spans, oi.page_locations)):
        nulls = ci.null_counts[i] if ci.null_counts else None
        if ci.null_pages[i] and _can_be_null_page(node, nulls):
            ok = term[1] == "not in"           # only nulls: only `not in` holds
            detail = "a page of nulls only"
        elif ci.null_pages[i]:
            ok = True
            detail = f"null page with null_count {nulls} in a column that may not be null"
        else:
            ok = term_may_match(term, decode, ci.min_values[i], ci.max_values[i], nulls,
                                None, is_float)
            detail = _bounds_text(decode, ci.min_values[i], ci.max_values[i], nulls)
        rows[a:b] = ok
        pages.append(PageVerdict(i, loc.offset, loc.compressed_page_size, (a, b),
                                 Verdict(term, "page index", ok, detail)))
    plan.page_verdicts.append((term, pages))
    return rows


def _variant_rows(groups, rg, g, target, term, decode, plan):
    """Candidate rows of a variant path: those of the shredded leaf's pages that may
    match, and every row whose fallback ``value`` page is not all null."""
    if target.typed is None:
        return None
    fallback_null = _fallback_null_rows(groups, rg, g, target)
    if fallback_null is None or not fallback_null.any():
        return None
    typed = _term_rows(groups, rg, g, target.typed, term, decode, plan)
    if typed is None:
        return None
    return typed | ~fallback_null


def _fallback_null_rows(groups, rg, g, target):
    """Per row, whether the fallback ``value`` page holding it is all null (from its
    page index), or None without one."""
    if target.fallback is None:
        return np.ones(rg.num_rows, np.bool_)
    chunk = rg.columns[target.fallback.column_index]
    where = where_of(target.fallback, g)
    limit = groups.metadata.footer_offset
    ci = read_column_index(groups.source, chunk, limit, where)
    oi = read_offset_index(groups.source, chunk, limit, where)
    if ci is None or oi is None or len(ci.null_pages) != len(oi.page_locations):
        return None
    rows = np.zeros(rg.num_rows, np.bool_)
    for (a, b), null_page in zip(page_row_ranges(oi, rg.num_rows, where), ci.null_pages):
        rows[a:b] = bool(null_page)
    return rows
