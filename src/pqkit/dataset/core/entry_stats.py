"""Per-file statistics of a file entry, folded from the row-group statistics the writer computed.

Only ``min_value``/``max_value`` are used (the type-defined order pqkit's
writer records), never the deprecated ``min``/``max``. A column gets an entry
only when every row group has statistics for it; a row group of only nulls
(and NaNs) contributes its counts but no bounds. Bounds are canonical text
(:mod:`pqkit.dataset.core.canonical`)::

    "id":   {"min": "1", "max": "500000", "nulls": 0}
    "x":    {"min": "-0.0", "max": "2.5", "nulls": 3, "nans": 1}
    "name": {"min": "Aa", "max": "Zz…", "nulls": 0, "min_exact": true, "max_exact": false}

String and binary bounds are at most 64 bytes: a truncated max is
incremented at its last code point (``max_exact`` false) and dropped when
that is impossible.
"""
import struct

from pqkit import datatypes as T
from pqkit.dataset.core.canonical import BOUND_BYTES, codec_for, truncate_max, truncate_min
from pqkit.format import CompressionCodec

_TS_STORED = {"s": 1000}          # timestamp[s] / time32[s] are stored as milliseconds


def _decoder(t):
    """Function stored bound bytes -> raw value of type ``t`` (None: no bounds for ``t``)."""
    if isinstance(t, T.BooleanType):
        return lambda raw: bool(raw[0])
    if isinstance(t, T.IntegerType):
        code = ("<q" if t.bit_width == 64 else "<i")
        code = code if t.signed else code.upper()
        return lambda raw: struct.unpack(code, raw)[0]
    if isinstance(t, T.FloatingType):
        code = {16: "<e", 32: "<f", 64: "<d"}[t.bit_width]
        return lambda raw: struct.unpack(code, raw)[0]
    if isinstance(t, T.DecimalType):
        return lambda raw: int.from_bytes(raw, "big", signed=True)
    if isinstance(t, T.BinaryType) or isinstance(t, T.UuidType) or \
            type(t) is T.FixedSizeBinaryType:
        return bytes
    if isinstance(t, T.StringType):
        return lambda raw: bytes(raw).decode("utf-8")
    if isinstance(t, (T.Date32Type, T.Date64Type)):
        return lambda raw: struct.unpack("<i", raw)[0]          # both are stored as days
    if isinstance(t, (T.TimestampType, T.Time32Type, T.Time64Type, T.DurationType)):
        div = _TS_STORED.get(t.unit, 1) if not isinstance(t, T.DurationType) else 1
        code = "<i" if isinstance(t, T.Time32Type) else "<q"
        return lambda raw: struct.unpack(code, raw)[0] // div
    return None


def stats_leaves(fields, limit, accept=None):
    """``[(path, type)]`` of the leaves that get statistics: the first ``limit``
    non-repeated leaves with bounds, struct members included (depth first).

    A struct member's key is its dotted path (``point.x``); one that would
    collide with a top-level column of that literal name is left out. When
    ``accept`` is given, only leaves with ``accept(path, type)`` true count.
    """
    top = {f.name for f in fields}
    out = []

    def walk(path, t):
        if len(out) >= limit:
            return
        if isinstance(t, T.StructType):
            for member in t.fields:
                walk(path + (member.name,), member.type)
        elif not t.is_nested and _decoder(t) is not None and \
                (len(path) == 1 or ".".join(path) not in top) and \
                (accept is None or accept(path, t)):
            out.append((path, t))

    for f in fields:
        walk((f.name,), f.type)
    return out


def file_statistics(fields, schema, row_groups, limit=32, accept=None):
    """``{column: stats}`` for a written file; struct members are keyed by dotted path.

    Parameters
    ----------
    fields : list of Field
        The file's top-level fields.
    schema : pqkit.Schema
        The file's Parquet schema (leaf nodes give column chunk positions).
    row_groups : list of pqkit.format.RowGroup
    limit : int
        Statistics for at most this many non-repeated leaves.
    accept : callable, optional
        ``accept(path, type)``: whether the leaf at ``path`` (a tuple of names)
        may get statistics; files from other writers pass their trust check here.
    """
    leaf_of = {node.path: node.column_index for node in schema.columns}
    out = {}
    for path, t in stats_leaves(fields, limit, accept):
        leaf = leaf_of.get(path)
        if leaf is None:
            continue
        entry = _column_stats(t, [rg.columns[leaf].meta_data for rg in row_groups])
        if entry is not None:
            out[".".join(path)] = entry
    return out


def _column_stats(t, metas):
    decode, codec = _decoder(t), codec_for(t)
    floating = isinstance(t, T.FloatingType)
    nulls = nans = 0
    lo = hi = None
    lo_exact = hi_exact = True
    for md in metas:
        st = md.statistics if md is not None else None
        if st is None or st.null_count is None or (floating and st.nan_count is None):
            return None
        nulls += st.null_count
        nans += st.nan_count or 0
        if st.min_value is None or st.max_value is None:
            if st.null_count + (st.nan_count or 0) >= md.num_values:
                continue                 # only nulls / NaNs: nothing to bound
            return None
        try:
            a, b = decode(st.min_value), decode(st.max_value)
        except (struct.error, UnicodeDecodeError, IndexError):
            return None
        if lo is None or codec.key(a) < codec.key(lo):
            lo, lo_exact = a, st.is_min_value_exact is not False
        if hi is None or codec.key(b) > codec.key(hi):
            hi, hi_exact = b, st.is_max_value_exact is not False
    entry = {}
    if lo is not None:
        _bounds(entry, codec, t, lo, hi, lo_exact, hi_exact)
    entry["nulls"] = nulls
    if floating:
        entry["nans"] = nans
    return entry


def _bounds(entry, codec, t, lo, hi, lo_exact, hi_exact):
    if isinstance(t, T.FloatingType):
        lo = -0.0 if lo == 0 else lo     # the Parquet/Iceberg rule for zero bounds
        hi = 0.0 if hi == 0 else hi
    if codec.kind in ("string", "binary"):
        lo, lo_cut = truncate_min(lo, BOUND_BYTES)
        hi, hi_cut = truncate_max(hi, BOUND_BYTES)
        entry["min"] = codec.text(lo)
        entry["min_exact"] = lo_exact and lo_cut
        if hi is not None:
            entry["max"] = codec.text(hi)
            entry["max_exact"] = hi_exact and hi_cut
        return
    entry["min"] = codec.text(lo)
    entry["max"] = codec.text(hi)


def codec_name(row_groups, default):
    """The compression codec of the file's first column chunk, lower case."""
    for rg in row_groups:
        for chunk in rg.columns:
            if chunk.meta_data is not None:
                return CompressionCodec(chunk.meta_data.codec).name.lower()
    return str(default).lower() if default is not None else "uncompressed"
