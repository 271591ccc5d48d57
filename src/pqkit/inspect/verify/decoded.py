"""A walked chunk decoded once for the value rules (``--deep``), and cut back into its pages.

:func:`decode_chunk` decodes a chunk whose pages were walked completely
(:class:`pqkit.read.decode.chunk.ColumnChunkReader`); dictionary indices are
expanded into values. The decoded levels and values are then cut back into
the data pages by their header counts: page ``i`` owns the level entries
``[entry_bounds[i], entry_bounds[i + 1])`` and, among them, the non-null
values (entries at the max definition level) ``[value_bounds[i],
value_bounds[i + 1])``. :mod:`~pqkit.inspect.verify.deep_rules`,
:mod:`~pqkit.inspect.verify.size_stats_checks` and :mod:`~pqkit.inspect.verify.bloom_checks`
all read the same :class:`DecodedChunk`.

Example: an optional column (max definition level 1) of two pages with
num_values 3 and 2 and definition levels ``1 0 1 | 1 1`` has entry bounds
``[0, 3, 5]`` and value bounds ``[0, 2, 4]``: page 0 holds values 0 and 1,
page 1 values 2 and 3.
"""
from dataclasses import dataclass

import numpy as np

from pqkit.errors import AllocationLimitError, ParquetError
from pqkit.format import Encoding, PageType
from pqkit.read.decode import values as V
from pqkit.read.decode.chunk import ColumnChunkReader


@dataclass
class DecodedChunk:
    """The levels and values of one walked chunk.

    Attributes
    ----------
    walk : pqkit.inspect.verify.chunk_rules.ChunkWalk
    defs, reps : numpy.ndarray or None
        One level per entry; None when the max level is 0.
    values : pqkit.read.decode.values.FixedValues or pqkit.read.decode.values.BinaryValues
        The non-null values, dictionary indices expanded.
    dictionary : FixedValues, BinaryValues or None
        The dictionary, when every data page was dictionary encoded ...
    indices : numpy.ndarray or None
        ... and the index of each value into it.
    entry_bounds, value_bounds : numpy.ndarray
        int64, one more than the data pages: where each page's entries and
        values start (see the module docstring).
    """
    walk: object
    defs: object
    reps: object
    values: object
    dictionary: object
    indices: object
    entry_bounds: np.ndarray
    value_bounds: np.ndarray

    def page_of_value(self, i):
        """The position among the data pages of the page holding value ``i``."""
        return int(np.searchsorted(self.value_bounds, i, side="right")) - 1

    def raw_value(self, i):
        """Value ``i`` as PLAIN bytes (byte arrays without the length prefix)."""
        values = self.values
        if isinstance(values, V.BinaryValues):
            return bytes(values.data[int(values.offsets[i]):int(values.offsets[i + 1])])
        return np.ascontiguousarray(values.array[i]).tobytes()


def data_header(page):
    """The DataPageHeader or DataPageHeaderV2 of a walked data page."""
    h = page.header
    return h.data_page_header if h.type == PageType.DATA_PAGE else h.data_page_header_v2


# Limits on one decompressed page: exceeding them says nothing against the file.
_SIZE_LIMITS = ("max_page_size", "max_dictionary_size")


def decode_chunk(ctx, walk):
    """Decode a completely walked chunk; None (PQ-DEEP-001 reported) when it does not decode,
    None without a finding when its pages could not all be walked."""
    if walk is None or not walk.complete:
        return None
    node, cmd = walk.node, walk.meta
    reader = ColumnChunkReader(node, cmd.codec, cmd.num_values, str(walk.where),
                               verify_checksums=False)
    dictionary = indices = None
    try:
        chunk = reader.read(walk.data, walk.start)
        values = chunk.values
        if isinstance(values, V.DictionaryValues):
            dictionary, indices = values.dictionary, values.indices
            values = V.take(dictionary, indices, str(walk.where))
    except (ParquetError, ValueError, IndexError, OverflowError) as exc:
        if isinstance(exc, AllocationLimitError) and getattr(exc, "limit", None) in _SIZE_LIMITS:
            # A page that decompresses beyond the cap may well be legal (a 1 GiB
            # dictionary): only this check's memory limit stops it.
            ctx.add("PQ-DEEP-009", f"the chunk at offset {walk.start} was not decoded: {exc}",
                    walk.start, walk.where)
        else:
            ctx.add("PQ-DEEP-001", f"the chunk at offset {walk.start} does not decode: {exc}",
                    walk.start, walk.where, bugs=_decode_bugs(ctx, walk))
        return None
    defs = chunk.def_levels
    counts = [data_header(p).num_values or 0 for p in walk.data_pages]
    entry_bounds = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=entry_bounds[1:])
    if defs is None:
        value_bounds = entry_bounds
    else:
        present = np.zeros(len(defs) + 1, np.int64)
        np.cumsum(defs == node.max_definition_level, out=present[1:])
        value_bounds = present[entry_bounds]
    return DecodedChunk(walk, defs, chunk.rep_levels, values, dictionary, indices,
                        entry_bounds, value_bounds)


def _decode_bugs(ctx, walk):
    bugs = []
    types = {p.type for p in walk.pages}
    encodings = {data_header(p).encoding for p in walk.data_pages}
    if PageType.DATA_PAGE_V2 in types:
        bugs += ctx.trust.file_bugs("v2_is_compressed")
    if Encoding.DELTA_BYTE_ARRAY in encodings:
        bugs += ctx.trust.file_bugs("delta_byte_array")
    return bugs
