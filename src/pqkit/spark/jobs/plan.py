"""Planning a distributed read: which files and row groups, with which filters.

The driver resolves the source into data files, each with the Hive partition
values of its directory (``year=2024/country=DE/part-0.parquet``), reads every
footer once, merges the files' schemas (:mod:`pqkit.spark.conversion.schema`) and turns a
pyarrow-style DNF filter into per-file work:

1. conjunctions whose partition terms fail for the file's directory are dropped;
   if none is left, the file is pruned without being opened again;
2. the remaining data terms form the file's *residual* filter (None when a
   conjunction is satisfied by the partition values alone: every row matches);
3. row groups whose column statistics rule out every conjunction are pruned;
4. what is left becomes :class:`Split` objects: one per row group
   (``split_by="row_group"``) or one per file (``split_by="file"``).

Example: files ``year=2023/a.parquet`` (2 row groups) and ``year=2024/b.parquet``
(3 row groups, ``x`` in [0, 9], [10, 19], [20, 29]) with
``filters=[("year", "=", 2024), ("x", ">=", 15)]`` give two splits, row groups
1 and 2 of ``b.parquet``, each with the residual filter ``x >= 15``.

Partition values are typed as Spark infers them (int, bigint, decimal(38,0),
double, date, timestamp, else string; ``__HIVE_DEFAULT_PARTITION__`` is null),
unless ``partition_types`` names a type. A data column that is also a partition
column is taken from the directory, as Spark does.
"""
import os
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pqkit import datatypes as T
from pqkit.errors import ParquetError, SchemaError
from pqkit.filesystems import is_url, url_filesystem
from pqkit.read.file import ParquetFile
from pqkit.read.prune.filters import bound_decoder, chunk_may_match, filter_leaves, normalize
from pqkit.spark.conversion.row_metadata import declared_types, is_variant
from pqkit.spark.conversion.schema import (file_fields, infer_partition_type, merge_fields,
                                           parse_partition_type, partition_value)
from pqkit.spark.conversion.variant_bytes import VARIANT_TYPE

__all__ = ["Split", "ReadPlan", "SourceFile", "find_files", "make_plan", "pack_tasks",
           "HIVE_NULL"]

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_SPLIT_BY = ("row_group", "file")
_FOOTER_THREADS = 8


@dataclass(frozen=True)
class Split:
    """One unit of executor work: some row groups of one file.

    Attributes
    ----------
    path : str
    row_groups : tuple of int
    num_rows : int
        Rows in those row groups before filtering.
    num_bytes : int
        Their compressed size.
    partition : tuple
        Typed partition values, in :attr:`ReadPlan.partition_fields` order.
    filters : list or None
        Residual DNF over the file's columns (None: every row matches).
    alternates : tuple of str
        Other places the file may be by the time it is read (a dataset file moving
        between its hidden and visible paths).
    storage_options : dict or None
        The fsspec options of a URL ``path`` (the executor opens it with them).
    deleted : numpy.ndarray or None
        File-wide positions of the rows a dataset's deletion file deletes (left out).
    """
    path: str
    row_groups: tuple
    num_rows: int
    num_bytes: int
    partition: tuple = ()
    filters: object = None
    alternates: tuple = ()
    storage_options: dict = None
    deleted: object = field(default=None, compare=False)


@dataclass
class ReadPlan:
    """What :func:`pqkit.spark.read` runs: the output schema and the splits.

    Attributes
    ----------
    fields : list of pqkit Field
        The data columns, with Spark-ready types.
    partition_fields : list of pqkit Field
        The partition columns (after the data columns in the DataFrame).
    partition_names : list of str
        All partition columns of the source (selected or not), in path order.
    splits : list of Split
    num_files : int
        Data files in the source.
    num_row_groups : int
        Row groups in those files (before pruning).
    row_groups_skipped : dict of str to int
        Row groups pruned, by rule: ``"partition"`` (the file's partition values, or
        a filtered column it lacks, rule the filter out) or ``"statistics"``.
    """
    fields: list
    partition_fields: list
    partition_names: list
    splits: list
    num_files: int
    num_row_groups: int
    files: list = field(default_factory=list, repr=False)
    row_groups_skipped: dict = field(default_factory=dict)

    @property
    def names(self):
        return [f.name for f in self.fields] + [f.name for f in self.partition_fields]

    @property
    def num_rows(self):
        """Rows in the selected row groups, before row filtering."""
        return sum(s.num_rows for s in self.splits)


_UNPLANNED = object()


@dataclass
class SourceFile:
    """A data file to plan: its path, partition and (for datasets) its residual filter."""
    path: str
    partition_texts: tuple            # raw texts (None = null), in partition name order
    partition: tuple = ()             # typed values
    residual: object = _UNPLANNED     # a dataset's per-file residual DNF (None: all rows)
    alternates: tuple = ()
    metadata: object = None
    schema: object = None
    fields: list = None
    storage_options: dict = None      # of a URL path
    deleted: object = None            # a dataset file's deleted positions (its deletion file)


# --- finding the files ----------------------------------------------------------------------
def _hidden(name):
    # Spark's rule: "_x" and ".x" are hidden, except "_x=y" partition directories.
    return (name.startswith("_") and "=" not in name) or name.startswith(".") or \
        name.endswith("._COPYING_")


def _unescape(text):
    # %XX escapes are bytes of UTF-8 text (pyarrow's and our writer's rule).
    return urllib.parse.unquote_to_bytes(text).decode("utf-8", "surrogateescape")


def find_files(source, storage_options=None):
    """(files, partition names) of a file, a list of files or a Hive-partitioned directory,
    local or at a URL (``s3://bucket/table``, listed once through fsspec)."""
    if isinstance(source, str) and is_url(source):
        return _find_remote(source, storage_options)
    if isinstance(source, (list, tuple)):
        files = [os.fspath(p) for p in source]
        if all(is_url(p) for p in files):
            return [SourceFile(p, (), storage_options=storage_options) for p in files], []
        for p in files:
            if not os.path.isfile(p):
                raise SchemaError(f"{p!r} is not a file (give directories on their own)")
        return [SourceFile(p, ()) for p in files], []
    root = os.fspath(source)
    if os.path.isfile(root):
        return [SourceFile(root, ())], []
    if not os.path.isdir(root):
        raise SchemaError(f"{root!r} does not exist")
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not _hidden(d))
        rel = os.path.relpath(dirpath, root)
        parts = [] if rel == "." else rel.split(os.sep)
        entries += [(parts, name, os.path.join(dirpath, name))
                    for name in sorted(f for f in filenames if not _hidden(f))]
    return _hive_files(root, entries, os.path.join)


def _find_remote(url, storage_options):
    """The files under ``url`` from one recursive listing, hidden names left out as
    Spark leaves them out."""
    fs, root = url_filesystem(url, storage_options)
    protocol = url.split("://", 1)[0]
    if fs.isfile(root):
        return [SourceFile(url, (), storage_options=storage_options)], []
    root = root.rstrip("/")
    entries = []
    for path in sorted(fs.find(root)):
        parts = path[len(root) + 1:].split("/")
        if any(_hidden(p) for p in parts):
            continue
        entries.append((parts[:-1], parts[-1], f"{protocol}://{path}"))
    if not entries:
        raise SchemaError(f"{url!r} holds no files")
    files, names = _hive_files(url, entries, lambda *p: "/".join(p))
    for f in files:
        f.storage_options = storage_options
    return files, names


def _hive_files(root, entries, join):
    """SourceFiles of (directory parts, file name, path) entries under one Hive layout."""
    files, names = [], None
    for parts, name, path in entries:
        pairs = [_partition_pair(p, join(root, *parts)) for p in parts]
        keys = [k for k, _ in pairs]
        if names is None:
            names = keys
        elif keys != names:
            raise SchemaError(f"{path!r} lies under partition columns {keys}, other files "
                              f"under {names}: the directory does not have one Hive layout")
        files.append(SourceFile(path, tuple(None if v == HIVE_NULL else v for _, v in pairs)))
    return files, names or []


def _partition_pair(part, where):
    if "=" not in part:
        raise SchemaError(f"directory {where!r} is not a partition directory (name=value); "
                          "pass the data files as a list instead")
    key, value = part.split("=", 1)
    return _unescape(key), _unescape(value)


# --- typing partition values -----------------------------------------------------------------
def _partition_fields(files, names, partition_types, timezone):
    fields = []
    overrides = dict(partition_types or {})
    unknown = sorted(set(overrides) - set(names))
    if unknown:
        raise SchemaError(f"partition_types names {unknown}, which are not partition columns "
                          f"(those are {names})")
    for i, name in enumerate(names):
        texts = [f.partition_texts[i] for f in files]
        t = parse_partition_type(overrides[name], name) if name in overrides \
            else infer_partition_type(texts)
        fields.append(T.field(name, t))
    for f in files:
        f.partition = tuple(partition_value(text, fld.type, timezone, fld.name)
                            for text, fld in zip(f.partition_texts, fields))
    return fields


# --- footers and schema -----------------------------------------------------------------------
def _open_footer(src, specs):
    try:
        with ParquetFile(src.path, storage_options=src.storage_options) as pf:
            src.metadata, src.schema = pf.metadata, pf.schema
            tops = set(pf.schema.names)
            present = None if specs is None else [s for s in specs if s.split(".")[0] in tops]
            src.fields = _variants_as_bytes(file_fields(pf, present),
                                            pf.metadata.key_value_metadata)
    except ParquetError as exc:
        raise type(exc)(f"{src.path}: {exc}") from exc
    except OSError as exc:
        raise SchemaError(f"{src.path}: cannot read the file: {exc}") from exc
    return src


def _variants_as_bytes(fields, key_value_metadata):
    """``fields`` with each column the file's Spark row metadata declares a variant typed
    as the (value, metadata) pair the executors rebuild from it: files shredded by
    different schemas (each part file infers its own) then agree on the column."""
    declared = declared_types(key_value_metadata)
    return [T.field(f.name, VARIANT_TYPE) if is_variant(declared.get(f.name)) and
            isinstance(f.type, T.StructType) and "metadata" in f.type.names else f
            for f in fields]


def _read_footers(files, specs):
    if len(files) <= 1:
        return [_open_footer(f, specs) for f in files]
    with ThreadPoolExecutor(min(_FOOTER_THREADS, len(files))) as pool:
        return list(pool.map(lambda f: _open_footer(f, specs), files))


def _data_fields(files, specs, partition_names, base_fields=()):
    merged = list(base_fields)
    if specs is not None:
        merged = [f for f in merged if f.name in specs]     # a dotted spec: the files say
    for f in files:
        merged = merge_fields(merged, f.fields)
    merged = [f for f in merged if f.name not in partition_names]
    if specs is not None:
        tops = {f.name for f in merged}
        missing = [s for s in specs if s.split(".")[0] not in tops]
        if missing:
            raise SchemaError(f"no column {missing[0]!r} in any file of the source; columns "
                              f"are {sorted(tops) + list(partition_names)}")
    return merged


# --- filters --------------------------------------------------------------------------------
_OPS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}


def _split_terms(dnf, partition_fields, data_tops):
    """Each conjunction as (partition terms, data terms); filter values on partition
    columns given as text are parsed to the column's type."""
    types = {f.name: f.type for f in partition_fields}
    out = []
    for conj in dnf:
        part, data = [], []
        for path, op, value in conj:
            if len(path) == 1 and path[0] in types:
                part.append((path[0], op, _coerce(value, op, types[path[0]], path[0])))
            elif path[0] in data_tops:
                data.append((path, op, value))
            else:
                raise SchemaError(f"filter column {'.'.join(path)!r} is not a column of the "
                                  f"source")
        out.append((part, data))
    return out


def _coerce(value, op, t, name):
    if op in ("in", "not in"):
        return [_coerce(v, "==", t, name) for v in value]
    if isinstance(value, str) and not isinstance(t, T.StringType):
        return partition_value(value, t, "UTC", name)
    return value


def _partition_matches(terms, values):
    for name, op, want in terms:
        have = values[name]
        if have is None:
            if op != "not in":                # as in pqkit's (and pyarrow's) filters, a
                return False                  # null matches `not in` alone
            continue
        try:
            if not _OPS[op](have, want):
                return False
        except TypeError:
            raise SchemaError(f"filter value {want!r} cannot be compared with partition "
                              f"column {name!r} values such as {have!r}") from None
    return True


class _GroupPruner:
    """Row-group pruning of one file by its column chunk statistics."""

    def __init__(self, metadata, residual):
        self.residual = normalize(residual)
        self.leaves = filter_leaves(self.residual, metadata.schema)
        self.declares_order = metadata.declares_order
        self.decoders = {p: bound_decoder(n) for p, n in self.leaves.items()}

    def may_match(self, rg):
        return any(all(self._term_may(rg, t) for t in conj) for conj in self.residual)

    def _term_may(self, rg, term):
        node = self.leaves[term[0]]
        return chunk_may_match(rg.columns[node.column_index], node, term,
                               self.decoders[term[0]], self.declares_order(node.column_index))


def _residual(conjs, src, partition_names):
    """The file's residual DNF; None if every row matches; [] if no row can."""
    values = dict(zip(partition_names, src.partition))
    tops = set(src.schema.names)
    residual = []
    for part, data in conjs:
        if not _partition_matches(part, values):
            continue
        if any(path[0] not in tops for path, _, _ in data):
            continue                          # a column the file lacks is null: no match
        if not data:
            return None
        residual.append(data)
    return residual


def _present_only(residual, tops):
    """A dataset residual without the conjunctions on columns the file lacks (nulls never
    match); None when every row matches, [] when none can."""
    if not residual:
        return None
    dnf = normalize(residual)
    return [conj for conj in dnf if all(path[0] in tops for path, _, _ in conj)]


# --- splits ---------------------------------------------------------------------------------
def _file_splits(src, conjs, partition_names, split_by, skipped):
    """The file's splits; ``skipped`` (a Counter) counts the row groups pruned, by rule."""
    md = src.metadata
    groups = list(range(md.num_row_groups))
    residual = None
    if src.residual is not _UNPLANNED:
        residual = _present_only(src.residual, set(src.schema.names))
    elif conjs is not None:
        residual = _residual(conjs, src, partition_names)
    if residual == []:
        skipped["partition"] += len(groups)
        return []
    if residual is not None:
        pruner = _GroupPruner(md, residual)
        kept = [g for g in groups if pruner.may_match(md.row_group(g).thrift)]
        skipped["statistics"] += len(groups) - len(kept)
        groups = kept
    sizes = [_group_bytes(md.row_group(g).thrift) for g in groups]
    rows = [md.row_group(g).num_rows for g in groups]
    if not groups:
        return []
    if split_by == "file":
        return [Split(src.path, tuple(groups), sum(rows), sum(sizes), src.partition, residual,
                      src.alternates, src.storage_options, src.deleted)]
    return [Split(src.path, (g,), r, b, src.partition, residual, src.alternates,
                  src.storage_options, src.deleted)
            for g, r, b in zip(groups, rows, sizes)]


def _group_bytes(rg):
    if rg.total_compressed_size:
        return int(rg.total_compressed_size)
    return sum(int(c.meta_data.total_compressed_size or 0) for c in rg.columns
               if c.meta_data is not None)


def make_plan(files, partition_names, columns=None, filters=None, split_by="row_group",
              partition_types=None, timezone="UTC", *, partition_fields=None,
              base_fields=()):
    """Plan a read of ``files`` (from :func:`find_files` or a dataset); see the module doc.

    A dataset passes its typed ``partition_fields`` (files then carry typed
    ``partition`` values and their ``residual`` filters) and its schema as
    ``base_fields``.
    """
    if split_by not in _SPLIT_BY:
        raise SchemaError(f"split_by must be one of {_SPLIT_BY}, not {split_by!r}")
    if isinstance(columns, str):
        raise TypeError("columns must be a list of names, not a string")
    if partition_fields is None:
        partition_fields = _partition_fields(files, partition_names, partition_types, timezone)
    specs = None if columns is None else [c for c in columns if c not in partition_names]
    files = _read_footers(files, specs)
    fields = _data_fields(files, specs, partition_names, base_fields)
    selected_parts = partition_fields if columns is None else \
        [f for f in partition_fields if f.name in columns]
    conjs = None
    dnf = normalize(filters)
    if dnf:
        all_tops = {name for src in files for name in src.schema.names}
        conjs = _split_terms(dnf, partition_fields, all_tops)
    splits, skipped = [], Counter()
    for src in files:
        splits.extend(_file_splits(src, conjs, partition_names, split_by, skipped))
    return ReadPlan(fields, selected_parts, list(partition_names), splits, len(files),
                    sum(src.metadata.num_row_groups for src in files), files,
                    {rule: n for rule, n in skipped.items() if n})


def pack_tasks(splits, parallelism, max_bytes=128 << 20, open_cost=4 << 20):
    """Group consecutive splits into tasks of about equal size, as Spark packs file splits.

    A split costs its compressed bytes, plus ``open_cost`` when its file is new to the
    task; the target per task is total / parallelism, between two opens and
    ``max_bytes``.
    """
    total = sum(s.num_bytes for s in splits) + open_cost * len({s.path for s in splits})
    target = min(max_bytes, max(2 * open_cost, total // max(1, parallelism)))
    tasks, current, paths, size = [], [], set(), 0
    for s in splits:
        cost = s.num_bytes + (0 if s.path in paths else open_cost)
        if current and size + cost > target:
            tasks.append(current)
            current, paths, size = [], set(), 0
            cost = s.num_bytes + open_cost
        current.append(s)
        paths.add(s.path)
        size += cost
    if current:
        tasks.append(current)
    return tasks
