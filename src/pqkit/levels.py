"""Dremel shredding and assembly: nested values <-> repetition/definition levels.

A leaf column is reached through a *path* of schema nodes, from the top-level
field down to the leaf, each REQUIRED (0), OPTIONAL (1) or REPEATED (2). Along
the path, node i has a definition level (the non-REQUIRED nodes at or above
it) and a repetition level (the REPEATED nodes at or above it); the leaf's are
``max_def`` and ``max_rep``. Every value slot of the column is written as one
*entry* (r, d):

* d says how far down the path the entry is defined: it is null (or an empty
  list) at the first node whose definition level exceeds d, and a real value
  is stored only when d == max_def;
* r says which list the entry continues: 0 starts a new record, r > 0 adds an
  element to the list of the r-th REPEATED node on the path.

Example, the two documents of the Dremel paper (Melnik et al., 2010)::

    message Document {                  r1: DocId 10          r2: DocId 20
      required int64 DocId;                 Links                 Links
      optional group Links {                  Forward 20            Backward 10
        repeated int64 Backward;              Forward 40            Backward 30
        repeated int64 Forward; }             Forward 60            Forward 80
      repeated group Name {                 Name                  Name
        repeated group Language {             Language              Url 'http://C'
          required string Code;                 Code 'en-us'
          optional string Country; }            Country 'us'
        optional string Url; }}               Language
                                                Code 'en'
                                              Url 'http://A'
                                            Name
                                              Url 'http://B'
                                            Name
                                              Language
                                                Code 'en-gb'
                                                Country 'gb'

shred into these (value, r, d) entries::

    DocId (max r=0, d=0)          10 0 0 | 20 0 0
    Links.Backward (1, 2)         NULL 0 1 | 10 0 2, 30 1 2
    Links.Forward (1, 2)          20 0 2, 40 1 2, 60 1 2 | 80 0 2
    Name.Url (1, 2)               'http://A' 0 2, 'http://B' 1 2, NULL 1 1 | 'http://C' 0 2
    Name.Language.Code (2, 2)     'en-us' 0 2, 'en' 2 2, NULL 1 1, 'en-gb' 1 2 | NULL 0 1
    Name.Language.Country (2, 3)  'us' 0 3, NULL 2 2, NULL 1 1, 'gb' 1 3 | NULL 0 1

Assembly turns the entries of one column into Arrow-layout nesting, one
:class:`NodeLayout` per path node. Every node has *slots*: a non-repeated
node has one slot per slot of its parent (the top node one per record); a
REPEATED node's slots are its elements, delimited by ``offsets`` over its
parent's slots. OPTIONAL nodes carry a validity mask. For Name.Language.Country
(path REPEATED, REPEATED, OPTIONAL) that is::

    Name      offsets [0, 3, 4]          4 names in 2 records
    Language  offsets [0, 2, 2, 3, 3]    3 languages in 4 names
    Country   validity [1, 0, 1]         2 values stored

A REPEATED node has no validity of its own: a null list and an empty list
differ in the validity of the OPTIONAL node above (the LIST-annotated group).
Levels must be assembled a whole record at a time: v1 pages may split a record
between pages, so a column chunk's levels are concatenated first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional, Sequence

import numpy as np

from pqkit._native import expand as _expand_k
from pqkit._native import levels as _levels_k
from pqkit._native import shred as _shred_k
from pqkit.errors import EncodingError, SchemaError
from pqkit.format import FieldRepetitionType

# The repetition of a schema node, as FieldRepetitionType numbers it (0, 1, 2).
REQUIRED = FieldRepetitionType.REQUIRED
OPTIONAL = FieldRepetitionType.OPTIONAL
REPEATED = FieldRepetitionType.REPEATED
_NAMES = {REQUIRED: "required", OPTIONAL: "optional", REPEATED: "repeated"}


@dataclass(frozen=True)
class PathLevels:
    """Levels along a column path.

    Attributes
    ----------
    repetitions : tuple of int
        REQUIRED/OPTIONAL/REPEATED per node, top-level field first.
    def_levels, rep_levels : tuple of int
        Definition and repetition level of each node.
    max_def, max_rep : int
        The leaf's levels (0 when the column stores no such levels).
    """

    repetitions: tuple
    def_levels: tuple
    rep_levels: tuple
    max_def: int
    max_rep: int

    def describe(self, names: Optional[Sequence[str]] = None) -> str:
        """One line per node: name, repetition and levels (for messages and the CLI)."""
        names = names or [f"node{i}" for i in range(len(self.repetitions))]
        return "\n".join(
            f"{n}: {_NAMES[k]} (def {d}, rep {r})"
            for n, k, d, r in zip(names, self.repetitions, self.def_levels, self.rep_levels))


def path_levels(repetitions: Sequence[int]) -> PathLevels:
    """Compute each node's definition and repetition level.

    Parameters
    ----------
    repetitions : sequence of int
        0 (REQUIRED), 1 (OPTIONAL) or 2 (REPEATED) per node, top-level first.

    Examples
    --------
    >>> path_levels([1, 2, 1]).def_levels      # a nullable list of nullable ints
    (1, 2, 3)
    """
    kinds = _check_path(repetitions)
    defs, reps, d, r = [], [], 0, 0
    for k in kinds:
        d += k != REQUIRED
        r += k == REPEATED
        defs.append(d)
        reps.append(r)
    return PathLevels(kinds, tuple(defs), tuple(reps), d, r)


@dataclass(frozen=True, eq=False)
class NodeLayout:
    """Arrow-layout nesting of one path node.

    Attributes
    ----------
    repetition : int
        REQUIRED, OPTIONAL or REPEATED.
    length : int
        Number of slots of this node (elements, for a REPEATED node).
    validity : numpy.ndarray of bool or None
        OPTIONAL nodes: True where the slot is present. None for the other
        kinds; as input to :func:`shred`, None also means "no nulls".
    offsets : numpy.ndarray of int64 or None
        REPEATED nodes: ``parent slots + 1`` offsets into this node's slots.
    """

    repetition: int
    length: int
    validity: Optional[np.ndarray] = None
    offsets: Optional[np.ndarray] = None

    @property
    def null_count(self) -> int:
        """Null slots (0 when there is no validity)."""
        if self.validity is None:
            return 0
        return int(self.length - np.count_nonzero(self.validity))


@dataclass(frozen=True, eq=False)
class Assembly:
    """The nesting assembled from one column's levels.

    Attributes
    ----------
    nodes : tuple of NodeLayout
        One per path node, top-level first.
    num_records : int
        Records (entries with repetition level 0).
    num_values : int
        Entries with def == max_def: the number of values stored densely.
    value_mask : numpy.ndarray of bool or None
        Over the leaf's slots, True where a stored value goes; None when every
        leaf slot holds one. For an OPTIONAL leaf this is the leaf validity.
    """

    nodes: tuple
    num_records: int
    num_values: int
    value_mask: Optional[np.ndarray]

    @property
    def leaf(self) -> NodeLayout:
        return self.nodes[-1]


class Shredded(NamedTuple):
    """Levels produced by :func:`shred`.

    ``def_levels``/``rep_levels`` are int16 arrays, or None when the path has
    no OPTIONAL/REPEATED node. ``value_mask`` selects the leaf slots written
    as values (``values[value_mask]``); None when all of them are.
    ``num_values`` counts those values, ``num_entries`` the level entries.
    """

    def_levels: Optional[np.ndarray]
    rep_levels: Optional[np.ndarray]
    value_mask: Optional[np.ndarray]
    num_values: int
    num_entries: int


def assemble(def_levels, rep_levels, repetitions: Sequence[int],
             num_entries: Optional[int] = None, *, where: str = "") -> Assembly:
    """Turn one column's definition and repetition levels into nesting.

    Parameters
    ----------
    def_levels, rep_levels : array of int or None
        One entry per level; None when the path has no OPTIONAL/REPEATED node
        (max level 0). Must cover whole records: the first entry starts one.
    repetitions : sequence of int
        REQUIRED/OPTIONAL/REPEATED per path node, top-level first.
    num_entries : int, optional
        Number of entries; required when ``def_levels`` is None.
    where : str
        Context appended to error messages, e.g. ``"column a.b, row group 0"``.

    Returns
    -------
    Assembly

    Raises
    ------
    EncodingError
        A level is out of range, the first entry does not start a record, or
        a repetition level continues a list that cannot have an element.
    """
    info = path_levels(repetitions)
    if info.max_def and def_levels is None:
        raise SchemaError(f"path {list(info.repetitions)} has max definition level "
                          f"{info.max_def} but no definition levels were given")
    if info.max_rep and rep_levels is None:
        raise SchemaError(f"path {list(info.repetitions)} has max repetition level "
                          f"{info.max_rep} but no repetition levels were given")
    defs = _as_levels(def_levels, "definition", where)
    reps = _as_levels(rep_levels, "repetition", where)
    if num_entries is None:
        if defs is None and reps is None:
            raise SchemaError("num_entries is required when no levels are given")
        num_entries = len(defs if defs is not None else reps)
    records, values, nodes, mask = _levels_k.assemble_levels(
        defs, reps, int(num_entries), info.repetitions, where)
    layouts = tuple(NodeLayout(kind, slots, validity, offsets)
                    for kind, (slots, validity, offsets) in zip(info.repetitions, nodes))
    return Assembly(layouts, records, values, mask)


def shred(nodes: Sequence[NodeLayout], *, where: str = "") -> Shredded:
    """Turn per-node validity/offsets into definition and repetition levels.

    Parameters
    ----------
    nodes : sequence of NodeLayout
        One per path node, top-level first, shaped as :func:`assemble`
        returns them. Offsets need not start at 0 (sliced lists) and may
        leave child slots unused; a null slot's children are skipped whatever
        they hold, so non-canonical Arrow data shreds correctly.
    where : str
        Context appended to error messages.

    Returns
    -------
    Shredded
        Levels with repetition level 0 exactly at record starts.

    Raises
    ------
    SchemaError
        Array lengths do not fit together, or offsets are out of order or
        out of range.
    """
    if not nodes:
        raise SchemaError("a column path needs at least one node")
    kinds = _check_path([n.repetition for n in nodes])
    lengths, validities, offsets, required_nulls = [], [], [], []
    for i, (kind, node) in enumerate(zip(kinds, nodes)):
        lengths.append(int(node.length))
        validities.append(_validity_bytes(node, kind, i, where))
        offsets.append(None if kind != REPEATED or node.offsets is None
                       else np.ascontiguousarray(node.offsets, dtype=np.int64))
        if kind != OPTIONAL and node.validity is not None and not np.all(node.validity):
            required_nulls.append(i)
    first = nodes[0]
    if kinds[0] == REPEATED:
        if first.offsets is None:
            raise SchemaError(f"repeated path node 0 has no offsets{_at(where)}")
        num_records = len(first.offsets) - 1
    else:
        num_records = int(first.length)
    defs, reps, mask, values = _shred_k.shred_layout(kinds, lengths, validities, offsets,
                                                     num_records, where)
    for i in required_nulls:        # the offsets are known to be consistent by now
        if np.any(_visible_slots(nodes, kinds, offsets, num_records, i) & ~nodes[i].validity):
            raise SchemaError(f"{_NAMES[kinds[i]]} path node {i} has null slots{_at(where)}")
    entries = len(defs) if defs is not None else (len(reps) if reps is not None else values)
    return Shredded(defs, reps, mask, values, entries)


def expand_values(dense: np.ndarray, value_mask: Optional[np.ndarray]) -> np.ndarray:
    """Scatter densely stored values into the leaf's slots.

    Parameters
    ----------
    dense : numpy.ndarray
        The decoded values, one per set entry of ``value_mask``. Fixed-size
        rows (e.g. FIXED_LEN_BYTE_ARRAY as an ``(n, width)`` uint8 array) are
        moved whole.
    value_mask : numpy.ndarray of bool or None
        :attr:`Assembly.value_mask`; None returns ``dense`` unchanged.

    Returns
    -------
    numpy.ndarray
        ``len(value_mask)`` rows; slots without a value are zero (None for
        object arrays).
    """
    if value_mask is None:
        return dense
    mask = _mask_bytes(value_mask)
    out = np.empty((len(mask),) + dense.shape[1:], dtype=dense.dtype)
    if dense.dtype.hasobject:
        present = int(np.count_nonzero(mask))
        if len(dense) != present:
            raise EncodingError(f"{len(dense)} values decoded but the definition levels "
                                f"call for {present}")
        out.fill(None)
        out[mask.view(np.bool_)] = dense
        return out
    dense = np.ascontiguousarray(dense)
    width = dense.dtype.itemsize * int(np.prod(dense.shape[1:], dtype=np.int64))
    if width == 0:
        return np.zeros_like(out)
    _expand_k.scatter_values(dense.reshape(-1).view(np.uint8), out.reshape(-1).view(np.uint8),
                             mask, width)
    return out


def expand_offsets(offsets: np.ndarray, value_mask: Optional[np.ndarray]) -> np.ndarray:
    """Binary offsets over the leaf's slots from offsets over the stored values.

    Parameters
    ----------
    offsets : numpy.ndarray of int
        ``num_values + 1`` offsets into the value bytes.
    value_mask : numpy.ndarray of bool or None
        :attr:`Assembly.value_mask`; slots without a value get length 0.

    Returns
    -------
    numpy.ndarray of int64
        ``len(value_mask) + 1`` offsets into the same bytes.
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if value_mask is None:
        return offsets
    return _expand_k.expand_offsets(offsets, _mask_bytes(value_mask))


def _check_path(repetitions) -> tuple:
    kinds = tuple(int(k) for k in repetitions)
    if not kinds:
        raise SchemaError("a column path needs at least one node")
    for i, k in enumerate(kinds):
        if k not in _NAMES:
            raise SchemaError(f"repetition {k} of path node {i} is not 0, 1 or 2")
    return kinds


def _at(where: str) -> str:
    return f" in {where}" if where else ""


def _as_levels(levels, kind: str, where: str):
    """Levels as a contiguous int16 array, refusing values that would wrap."""
    if levels is None:
        return None
    arr = np.asarray(levels)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise EncodingError(f"{kind} levels must be a 1-D integer array, got "
                            f"{arr.dtype} with shape {arr.shape}{_at(where)}")
    if arr.dtype != np.int16 and arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < -32768 or hi > 32767:
            bad = int(np.flatnonzero((arr < -32768) | (arr > 32767))[0])
            raise EncodingError(f"{kind} level {int(arr[bad])} at level index {bad}"
                                f"{_at(where)} does not fit in int16")
    return np.ascontiguousarray(arr, dtype=np.int16)


def _mask_bytes(mask) -> np.ndarray:
    mask = np.ascontiguousarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"value mask must be a bool array, not {mask.dtype}")
    return mask.reshape(-1).view(np.uint8)


def _validity_bytes(node: NodeLayout, kind: int, i: int, where: str):
    if node.validity is None:
        return None
    validity = np.ascontiguousarray(node.validity)
    if validity.dtype != np.bool_ or validity.ndim != 1:
        raise SchemaError(f"validity of path node {i} must be a 1-D bool array, not "
                          f"{validity.dtype}{_at(where)}")
    if kind != OPTIONAL:
        return None         # null slots are allowed only under a null ancestor (see shred)
    return validity.view(np.uint8)


def _visible_slots(nodes, kinds, offsets, num_records, i):
    """Slots of path node ``i`` that a record reaches: not under a null optional ancestor,
    and inside some list's range. Arrow allows anything in the other slots (pyarrow
    leaves a required struct field null under a null struct), so only these must be
    valid in a REQUIRED node."""
    visible = np.ones(num_records, np.bool_)
    for j in range(i + 1):
        if kinds[j] == REPEATED:
            offs = offsets[j]
            starts, ends = offs[:-1][visible], offs[1:][visible]
            marks = np.zeros(int(nodes[j].length) + 1, np.int64)
            np.add.at(marks, starts, 1)
            np.add.at(marks, ends, -1)
            visible = np.cumsum(marks[:-1]) > 0
        if j < i and kinds[j] == OPTIONAL and nodes[j].validity is not None:
            visible = visible & np.asarray(nodes[j].validity, np.bool_)
    return visible
