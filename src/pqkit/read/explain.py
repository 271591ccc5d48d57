"""Why a filtered read skips or reads each row group and page, and the bytes it avoids.

:func:`explain_filter` asks the filtered reader for its plan of every row group
(:meth:`pqkit.read.prune.filtered.FilteredReader.explain`, which uses the decision
and page-mapping functions the read itself uses, and decodes the filtered columns'
candidate pages to know the matching rows as the read does) and adds up bytes: a skipped row group avoids every
chunk the read would decode (the selected columns and the filtered ones); a leaf
whose pages are chosen through its OffsetIndex avoids the pages it leaves out.
Byte counts are compressed bytes in the file, page headers included.

The result is a plain dict (``pqinspect explain --json`` prints it)::

    {"filter": [[["x", ">", 5]]], "columns": [...], "num_row_groups": 3,
     "row_groups": [{"row_group": 0, "num_rows": 100, "skipped": true,
                     "skipped_by": "statistics", "checks": [...], "pages": [...],
                     "candidate_rows": null, "reads": [...], "bytes_read": 0,
                     "bytes_avoided": 1234}, ...],
     "totals": {...}}
"""
from pqkit.chunk_range import dictionary_segment, where_of
from pqkit.read.column_selection import select_columns
from pqkit.read.fetch.page_index import read_offset_index
from pqkit.read.file import ParquetFile
from pqkit.read.prune.filtered import WHOLE_CHUNK, FilteredReader
from pqkit.read.prune.variant_paths import path_text

__all__ = ["explain_filter"]


def explain_filter(source, filters, columns=None):
    """Explain a filtered read of ``source``: what it skips and what it decodes (only the
    filtered columns' candidate pages are decoded to find out).

    Parameters
    ----------
    source : path, bytes-like or binary file object
    filters : list
        DNF as for :func:`pqkit.read_table` (see :func:`pqkit.parse_filter` for text).
    columns : list of str, optional
        The columns the read returns (all by default).

    Returns
    -------
    dict
        Per row group: the metadata checks and their verdicts, the page index
        verdicts, the candidate rows, the pages each leaf reads and the bytes
        read and avoided; and totals.
    """
    with ParquetFile(source) as f:
        tops, wanted = select_columns(f.schema, columns)
        reader = FilteredReader(f.row_group_reader, filters)
        groups = [_group(f, reader, g, tops, wanted) for g in range(f.num_row_groups)]
        dnf = [[[".".join(p), op, v] for p, op, v in conj] for conj in reader.dnf]
    totals = {
        "row_groups": len(groups),
        "row_groups_skipped": sum(g["skipped"] for g in groups),
        "pages_read": sum(r["pages_read"] for g in groups for r in g["reads"]),
        "chunks_read_whole": sum(r["whole_chunk"] for g in groups for r in g["reads"]),
        "bytes_read": sum(g["bytes_read"] for g in groups),
        "bytes_avoided": sum(g["bytes_avoided"] for g in groups),
    }
    return {"filter": dnf, "columns": [t.name for t in tops], "row_groups": groups,
            "totals": totals}


def _group(f, reader, g, tops, wanted):
    plan, reads = reader.explain(g, tops, wanted)
    rg = f.metadata.checked_row_group(g)
    checks = [_verdict(v, conj=i) for i, conj in enumerate(plan.chunk_verdicts) for v in conj]
    pages = [dict(_verdict(p.verdict), page=p.page, offset=p.offset, size=p.size,
                  rows=list(p.rows)) for _, ps in plan.page_verdicts for p in ps]
    out = {"row_group": g, "num_rows": plan.num_rows, "skipped": plan.skipped,
           "skipped_by": plan.skipped_by, "checks": checks, "pages": pages,
           "candidate_rows": None if plan.candidates is None else len(plan.candidates)}
    if plan.skipped:
        leaves = _leaves_read(f, reader, tops, wanted)
        avoided = sum(_chunk_bytes(rg, n) for n in leaves)
        out.update(reads=[], bytes_read=0, bytes_avoided=avoided)
        return out
    out["reads"] = [_leaf_read(f, g, rg, f.schema.column(path), chosen)
                    for path, chosen in sorted(reads.items())]
    out["bytes_read"] = sum(r["bytes_read"] for r in out["reads"])
    out["bytes_avoided"] = sum(r["bytes_avoided"] for r in out["reads"])
    return out


def _verdict(v, conj=None):
    d = {"column": path_text(v.term[0]), "op": v.term[1], "value": v.term[2],
         "source": v.source, "may_match": v.may_match, "detail": v.detail}
    if conj is not None:
        d["conjunction"] = conj
    return d


def _leaves_read(f, reader, tops, wanted):
    _, fwanted = reader.filter_selection()
    return [n for n in f.schema.columns if n.path in wanted or n.path in fwanted]


def _chunk_bytes(rg, node):
    md = rg.columns[node.column_index].meta_data
    return md.total_compressed_size or 0


def _leaf_read(f, g, rg, node, chosen):
    total = _chunk_bytes(rg, node)
    entry = {"column": node.dotted_path, "whole_chunk": WHOLE_CHUNK in chosen,
             "pages": sorted(i for i in chosen if i is not WHOLE_CHUNK), "pages_total": None,
             "chunk_bytes": total}
    chunk = rg.columns[node.column_index]
    where = where_of(node, g)
    oi = read_offset_index(f.row_group_reader.source, chunk, f.metadata.footer_offset, where,
                           f.row_group_reader.pad,
                           f.metadata.chunk_decryptor(g, node.column_index, where))
    if oi is not None:
        entry["pages_total"] = len(oi.page_locations)
    if entry["whole_chunk"] or oi is None:
        read = total
    else:
        locs = oi.page_locations
        first = locs[0].offset if locs else chunk.meta_data.data_page_offset
        dictionary = dictionary_segment(chunk.meta_data, first)
        read = (dictionary[1] if dictionary else 0) + \
            sum(locs[i].compressed_page_size for i in entry["pages"])
    entry["pages_read"] = len(entry["pages"])
    entry["bytes_read"] = read
    entry["bytes_avoided"] = max(total - read, 0)
    return entry
