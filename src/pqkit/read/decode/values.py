"""Decoded leaf values of one column chunk, before nesting and logical types.

Three shapes come out of the value decoders:

* :class:`FixedValues` -- a numpy array in the physical layout (int32, int64,
  float32, float64, bool; INT96 as ``(n, 12)`` uint8; FIXED_LEN_BYTE_ARRAY as
  ``(n, width)`` uint8);
* :class:`BinaryValues` -- BYTE_ARRAY as int64 offsets (n + 1) and uint8 data;
* :class:`DictIndices` -- int32 indices into the chunk's dictionary page.

:func:`combine` joins the pieces of all pages of a chunk: a chunk whose data
pages are all dictionary encoded stays ``(indices, dictionary)`` so strings
are never copied; one that fell back to PLAIN mid-chunk is expanded.
"""
from dataclasses import dataclass

import numpy as np

from pqkit._native.take import take_byte_array, take_fixed
from pqkit.errors import CorruptFileError, EncodingError


@dataclass
class FixedValues:
    array: np.ndarray

    def __len__(self):
        return len(self.array)


@dataclass
class BinaryValues:
    offsets: np.ndarray
    data: np.ndarray
    # True when the decoder found every value valid UTF-8 while its bytes were still in
    # cache (text columns only); the leaf's check then has nothing left to do.
    utf8_valid: bool = False

    def __len__(self):
        return len(self.offsets) - 1


@dataclass
class DictIndices:
    indices: np.ndarray

    def __len__(self):
        return len(self.indices)


@dataclass
class DictionaryValues:
    """All data pages were dictionary encoded: indices plus the dictionary."""
    indices: np.ndarray
    dictionary: object        # FixedValues or BinaryValues

    def __len__(self):
        return len(self.indices)


def value_lengths(dictionary):
    """The byte lengths of a BinaryValues dictionary's values (for charge_expansion)."""
    return np.diff(np.asarray(dictionary.offsets, np.int64))


def charge_expansion(charge, dictionary, indices, lengths=None):
    """Charge the bytes expanding byte-array ``dictionary`` at ``indices`` will copy
    (``charge(nbytes, what)``, a read's budget) before they are copied: a few bytes of
    indices may repeat a long value any number of times. Fixed-width values need no
    charge here: the decoded entries' size, charged per chunk, covers them.
    ``lengths``: :func:`value_lengths` of the dictionary, when the caller keeps them."""
    if not isinstance(dictionary, BinaryValues) or not len(indices) or not len(dictionary):
        return
    if lengths is None:
        lengths = value_lengths(dictionary)
    # An index outside the dictionary is clipped here; the gather then reports it.
    nbytes = int(lengths.take(indices, mode="clip").sum())
    charge(nbytes, f"expanding {len(indices)} dictionary-encoded byte arrays "
                   f"({nbytes} bytes)")


def take(dictionary, indices, where, charge=None):
    """Expand dictionary indices into plain values (bounds checked, in Cython), charging
    the copied bytes to ``charge`` (see :func:`charge_expansion`) first."""
    if charge is not None:
        charge_expansion(charge, dictionary, indices)
    try:
        if isinstance(dictionary, FixedValues):
            return FixedValues(take_fixed(dictionary.array, indices))
        offsets, data = take_byte_array(np.ascontiguousarray(dictionary.offsets, np.int64),
                                        np.ascontiguousarray(dictionary.data, np.uint8),
                                        indices)
        return BinaryValues(offsets, data)
    except EncodingError as exc:
        raise CorruptFileError(f"{exc} (dictionary of {len(dictionary)} values in {where})") \
            from None


def concat(pieces):
    """Concatenate FixedValues or BinaryValues pieces of one chunk."""
    if len(pieces) == 1:
        return pieces[0]
    if isinstance(pieces[0], FixedValues):
        return FixedValues(np.concatenate([p.array for p in pieces]))
    lengths = [len(p) for p in pieces]
    offsets = np.zeros(sum(lengths) + 1, dtype=np.int64)
    pos, base = 1, 0
    for p, n in zip(pieces, lengths):
        offsets[pos:pos + n] = p.offsets[1:] - p.offsets[0] + base
        base += int(p.offsets[-1] - p.offsets[0])
        pos += n
    data = np.concatenate([p.data[int(p.offsets[0]):int(p.offsets[-1])] for p in pieces]) \
        if pieces else np.zeros(0, np.uint8)
    return BinaryValues(offsets, data)


def combine(pieces, dictionary, empty, where, charge=None):
    """Join the value pieces of a chunk's pages (see module docstring).

    `empty` is a zero-length FixedValues/BinaryValues of the column's physical
    layout, used when the chunk holds no values; ``charge`` as for :func:`take`.
    """
    if not pieces:
        return empty
    if dictionary is not None and all(isinstance(p, DictIndices) for p in pieces):
        indices = np.concatenate([p.indices for p in pieces]) if len(pieces) > 1 \
            else pieces[0].indices
        if len(indices) and (int(indices.max()) >= len(dictionary) or int(indices.min()) < 0):
            take(dictionary, indices, where)      # raises with the offending index
        return DictionaryValues(indices, dictionary)
    plain = []
    for p in pieces:
        if isinstance(p, DictIndices):
            if dictionary is None:
                raise CorruptFileError(f"dictionary-encoded page without a dictionary page "
                                       f"in {where}")
            p = take(dictionary, p.indices, where, charge)
        plain.append(p)
    return concat(plain)
