"""pqinspect dataset: look into a dataset directory (PQDS/1, plain Hive, RFC single manifest).

Actions (``pqinspect dataset ACTION ROOT``):

* ``info``: layout, version, schema, partitioning, file/row/byte totals,
  feature flags, publish state (``_SUCCESS``);
* ``versions``: every retained version with its operation, run id, commit
  time, row and file counts and the files it added and removed;
* ``files``: the files a read would open, with ``--filter 'col op value'``
  (repeatable, ANDed) and how many files partition values and per-file bounds
  pruned;
* ``verify``: :func:`pqkit.dataset.verify` at ``--level``; exit 1 on problems;
* ``repair``: :func:`pqkit.dataset.repair` and what it did;
* ``vacuum``, ``compact``, ``restore``, ``tag``, ``publish``, ``index
  build|optimize``, ``merge --from FILE``: the maintenance actions of
  :mod:`pqkit.cli.dataset.dataset_maintenance` (PQDS/1 only; ``--dry-run`` where they
  delete or rewrite).

The layout is detected (``--layout`` forces one); plain Hive directories and
RFC datasets are read-only, and repair only acts on PQDS/1 and RFC datasets.
Exit codes: 0 ok, 1 problems found (verify; a repair that could not finish),
2 unusable input (no dataset, unreadable manifest, bad filter).

JSON output (``--json``), stable, schema version 1; every document carries
``command`` (``"dataset <action>"``), ``schema_version``, ``root``, ``layout``
(``"pqds"``, ``"hive"`` or ``"manifest"``) and ``exit_code``, then:

* info: ``version``, ``dataset_id``, ``dataset_key``, ``committed_at_utc``,
  ``operation`` ({type, run_id}), ``schema`` ([{id?, name, type, nullable}],
  PQDS/1 type spellings), ``partitioning`` ([{name, type}]), ``totals``
  ({files, rows, bytes}), ``features`` ({reader, writer}), ``properties``,
  ``metadata``, ``publish`` ({layout, success, state, latest_version?,
  published_version?});
* versions: ``versions``: [{version, committed_at_utc, operation, run_id,
  row_count, file_count, files_added, files_removed, latest}];
* files: ``version``, ``filters`` (the DNF used, or null), ``pruning``
  ({total_files, after_partitions, selected_files, total_rows, selected_rows}),
  ``files``: [{key, path, partition ({column: canonical text or null}), rows,
  size, row_groups, residual (the terms left for the reader, or null)}];
* verify: ``version``, ``level``, ``files_checked``, ``ok``, ``problems``:
  [{key, path, problem}] (key null for problems of the layout itself);
* repair: ``result``: the dict :func:`pqkit.dataset.repair` returned, or for a
  plain Hive directory {"note"}.
"""
import argparse
import datetime
import decimal
import json
import os
import re

from rich.markup import escape

from pqkit import dataset as pds, datatypes as T
from pqkit.cli import render
from pqkit.cli.common import add_wide_argument
from pqkit.cli.dataset import dataset_maintenance
from pqkit.cli.urls import add_url_arguments
from pqkit.dataset.core.canonical import field_to_json, type_to_json
from pqkit.dataset.detect import LAYOUTS, layout_of
from pqkit.errors import SchemaError
from pqkit.filesystems import is_url

HELP = ("inspect and maintain a dataset: info, versions, files (with pruning), verify, "
        "repair, vacuum, compact, restore, tag, publish, index, merge")
EXAMPLE = """examples:
  pqinspect dataset info warehouse/sales
  pqinspect dataset versions warehouse/sales --json | jq '.versions[-1]'
  pqinspect dataset files warehouse/sales --filter 'year >= 2024' --filter 'country == DE'
  pqinspect dataset verify warehouse/sales --level sha256
  pqinspect dataset repair warehouse/sales
  pqinspect dataset vacuum warehouse/sales --dry-run --json
  pqinspect dataset merge warehouse/sales --from changes.parquet --on id

Works on PQDS/1 datasets, plain Hive-partitioned directories (Spark, Hive, pyarrow)
and RFC-style single-manifest datasets (manifest.json + _SUCCESS).
exit code: 0 ok, 1 problems found (verify, unfinished repair), 2 unusable input"""

SCHEMA_VERSION = 1
EXIT_OK, EXIT_PROBLEMS = 0, 1
_OPS = r"==|=|!=|<=|>=|<|>"
_COMPARE = re.compile(rf"^\s*(?P<col>[^\s=!<>]+)\s*(?P<op>{_OPS})\s*(?P<value>.*?)\s*$")
_WORD = re.compile(r"^\s*(?P<col>\S+)\s+(?P<op>not\s+in|in|is_null|is_not_null)"
                   r"(?:\s+(?P<value>.*?))?\s*$", re.IGNORECASE)


def _actions():
    return {
        "info": ("layout, version, schema, partitioning, totals, features, publish state",
                 _versioned, build_info, _show_info,
                 "pqinspect dataset info sales --json | jq .totals"),
        "versions": ("every retained version: operation, run id, time, counts",
                     _no_options, build_versions, _show_versions,
                     "pqinspect dataset versions sales"),
        "files": ("the files a read opens, pruned by --filter", _files_options, build_files,
                  _show_files, "pqinspect dataset files sales --filter 'year in [2024, 2025]' "
                               "--filter 'amount > 100'"),
        "verify": ("check every file (exit 1 on problems)", _verify_options, build_verify,
                   _show_verify, "pqinspect dataset verify sales --level footer"),
        "repair": ("finish crashed commits/publishes (PQDS/1) or writes (RFC)", _repair_options,
                   build_repair, _show_repair, "pqinspect dataset repair sales --grace 1h"),
        **dataset_maintenance.actions(),
    }


def add_arguments(parser):
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, (help_text, options, _, _, example) in _actions().items():
        p = sub.add_parser(name, help=help_text, description=help_text,
                           epilog=f"example:\n  {example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if name not in dataset_maintenance.NESTED:
            p.add_argument("root", metavar="ROOT", help="the dataset's root directory")
            p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                           help="emit JSON instead of a rich view")
            add_url_arguments(p, nested=True)
            add_wide_argument(p, nested=True)
        if name in ("info", "versions", "files", "verify"):
            p.add_argument("--layout", choices=LAYOUTS, default="auto",
                           help="force a layout instead of detecting it")
        options(p)


def _no_options(parser):
    parser.add_argument("--require-success", action="store_true", default=None,
                        help="refuse a root without _SUCCESS (always so for RFC datasets)")


def _versioned(parser):
    _no_options(parser)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--version", type=int, metavar="N", help="PQDS/1: this version")
    group.add_argument("--tag", metavar="NAME", help="PQDS/1: the version of this tag")
    group.add_argument("--as-of", metavar="UTC", help="PQDS/1: the version current at this "
                                                      "ISO-8601 instant")


def _files_options(parser):
    _versioned(parser)
    parser.add_argument("--filter", action="append", default=[], metavar="'COL OP VALUE'",
                        help="keep files that may hold matching rows; OP is one of == != < "
                             "<= > >= in 'not in' is_null is_not_null; repeat to AND; "
                             "values are typed by the column (in: [a, b] or a,b)")


def _verify_options(parser):
    _no_options(parser)
    parser.add_argument("--level", choices=("exists", "size", "footer", "sha256"),
                        default="size", help="how deep to check each file (default size)")


def _repair_options(parser):
    parser.add_argument("--grace", metavar="DURATION",
                        help="PQDS/1: delete orphans older than this (e.g. 1h, 7d; default "
                             "the dataset's vacuum.grace)")


def run(args):
    _, _, build, show, _ = _actions()[args.action]
    doc = build(args)
    if getattr(args, "json", False):
        render.emit_json(doc)
    else:
        show(render.console(), doc)
    return doc["exit_code"]


# --- documents -----------------------------------------------------------------------------
def _open(args, **pin):
    return pds.open(args.root, layout=args.layout,
                    require_success=getattr(args, "require_success", None), **pin)


def _pin(args):
    return {k: v for k, v in (("version", args.version), ("tag", args.tag),
                              ("as_of", args.as_of)) if v is not None}


def _head(args, ds, action):
    return {"command": f"dataset {action}", "schema_version": SCHEMA_VERSION, "root": ds.root,
            "layout": layout_of(ds), "exit_code": EXIT_OK}


def _root_name(root):
    """What documents call a root: a URL as given, a path made absolute."""
    return root if is_url(root) else os.path.abspath(root)


def _layout_at(root):
    """The detected layout; a URL root is always a (published) PQDS/1 dataset."""
    return "pqds" if is_url(root) else pds.detect_layout(root)


def build_info(args):
    ds = _open(args, **_pin(args))
    m = ds.manifest
    op = ds.operation
    doc = _head(args, ds, "info")
    doc.update({
        "version": ds.version, "dataset_id": m.dataset_id,
        "dataset_key": m.data.get("dataset_key"),
        "committed_at_utc": ds.committed_at_utc,
        "operation": {"type": op.get("type"), "run_id": op.get("run_id")},
        "schema": [field_to_json(f) for f in ds.table_schema.fields],
        "partitioning": [{"name": c.name, "type": type_to_json(c.type)}
                         for c in ds.partitioning.columns],
        "totals": {"files": ds.file_count, "rows": ds.row_count, "bytes": m.total_bytes},
        "features": {"reader": list(m.data.get("reader_features") or []),
                     "writer": list(m.data.get("writer_features") or [])},
        "properties": dict(m.data.get("properties") or {}),
        "metadata": dict(m.data.get("metadata") or {}),
        "publish": pds.publish_state(ds.root),
    })
    return doc


def build_versions(args):
    ds = _open(args)
    doc = _head(args, ds, "versions")
    versions = ds.versions()
    latest = max((v["version"] for v in versions), default=None)
    rows = []
    for v in versions:
        op = pds.open(ds.root, version=v["version"], source=ds.source).operation
        rows.append({**v, "files_added": len(op.get("added") or []),
                     "files_removed": len(op.get("removed") or []),
                     "latest": v["version"] == latest})
    doc["versions"] = rows
    return doc


def build_files(args):
    ds = _open(args, **_pin(args))
    dnf = parse_filters(args.filter, {f.name: f.type for f in ds.schema})
    selected = ds.files(dnf)
    part_only = _partition_terms(dnf, set(ds.partition_by))
    after_parts = ds.file_count if part_only is None else len(ds.files(part_only))
    doc = _head(args, ds, "files")
    doc.update({
        "version": ds.version,
        "filters": None if dnf is None else [[list(t) for t in conj] for conj in dnf],
        "pruning": {"total_files": ds.file_count, "after_partitions": after_parts,
                    "selected_files": len(selected), "total_rows": ds.row_count,
                    "selected_rows": sum(f.row_count for f in selected)},
        "files": [{"key": f.key, "path": f.path, "partition": dict(f.partition),
                   "rows": f.row_count, "size": f.size, "row_groups": f.row_groups,
                   "residual": None if not f.filters else
                   [[list(t) for t in conj] for conj in f.filters]} for f in selected],
    })
    return doc


def build_verify(args):
    report = pds.verify(args.root, args.level, layout=args.layout,
                        require_success=args.require_success)
    layout = _layout_at(args.root) if args.layout == "auto" else args.layout
    doc = {"command": "dataset verify", "schema_version": SCHEMA_VERSION,
           "root": _root_name(args.root), "layout": layout,
           "exit_code": EXIT_OK if report.ok else EXIT_PROBLEMS}
    doc.update(report.to_dict())
    return doc


def build_repair(args):
    layout = _layout_at(args.root)
    doc = {"command": "dataset repair", "schema_version": SCHEMA_VERSION,
           "root": _root_name(args.root), "layout": layout, "exit_code": EXIT_OK}
    if layout == "hive":
        doc["result"] = {"note": "a plain Hive directory holds no pqkit state: nothing to "
                                 "repair (it is read-only for pqkit)"}
        return doc
    result = pds.repair(args.root, grace=args.grace)
    doc["result"] = result
    if result.get("complete") is False:
        doc["exit_code"] = EXIT_PROBLEMS
    return doc


def _partition_terms(dnf, partition_names):
    """The DNF restricted to partition columns; None when that prunes nothing."""
    if dnf is None:
        return None
    out = []
    for conj in dnf:
        terms = [t for t in conj if t[0] in partition_names]
        if not terms:
            return None
        out.append(terms)
    return out


# --- --filter ------------------------------------------------------------------------------
def parse_filters(texts, types):
    """One AND group of ``(column, op, value)`` from ``'col op value'`` texts (None if none).

    Values are typed by the column: integers, floats (``nan``, ``inf``), decimals,
    ``true``/``false``, dates ``YYYY-MM-DD``, ISO-8601 timestamps, strings (quotes
    optional). ``in`` / ``not in`` take ``[a, b]`` (JSON) or ``a,b``.
    """
    if not texts:
        return None
    terms = []
    for text in texts:
        m = _COMPARE.match(text) or _WORD.match(text)
        if m is None:
            raise SchemaError(f"--filter {text!r}: expected 'column op value' with op one of "
                              "== != < <= > >= in 'not in' is_null is_not_null")
        col, op = m.group("col"), re.sub(r"\s+", " ", m.group("op").lower())
        if col not in types:
            raise SchemaError(f"--filter {text!r}: no column {col!r}; columns are "
                              f"{sorted(types)}")
        value = m.group("value") or ""
        if op in ("is_null", "is_not_null"):
            if value:
                raise SchemaError(f"--filter {text!r}: {op} takes no value")
            terms.append((col, op, None))
        elif op in ("in", "not in"):
            terms.append((col, op, [_typed(types[col], v, text) for v in _items(value, text)]))
        else:
            terms.append((col, op, _typed(types[col], value, text)))
    return [terms]


def _items(value, where):
    if value.startswith("["):
        try:
            items = json.loads(value)
        except json.JSONDecodeError as exc:
            raise SchemaError(f"--filter {where!r}: {value!r} is not a JSON list: {exc}") \
                from None
        if not isinstance(items, list):
            raise SchemaError(f"--filter {where!r}: expected a list")
        return [v if isinstance(v, str) else json.dumps(v) for v in items]
    return [v.strip() for v in value.split(",") if v.strip()]


def _typed(t, text, where):
    """The Python value of ``text`` for a column of type ``t``."""
    if isinstance(t, T.DictionaryType):
        t = t.value_type
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    elif text.lower() == "null":
        raise SchemaError(f"--filter {where!r}: comparisons with null never hold; use "
                          "'column is_null'")
    try:
        if isinstance(t, T.BooleanType):
            return {"true": True, "false": False, "1": True, "0": False}[text.lower()]
        if isinstance(t, T.IntegerType):
            return int(text)
        if isinstance(t, T.FloatingType):
            return float(text)
        if isinstance(t, T.DecimalType):
            return decimal.Decimal(text)
        if isinstance(t, (T.Date32Type, T.Date64Type)):
            return datetime.date.fromisoformat(text)
        if isinstance(t, T.TimestampType):
            return _timestamp(t, text)
        if isinstance(t, T.BinaryType):
            return text.encode("utf-8")
        if isinstance(t, T.StringType):
            return text
    except (ValueError, KeyError, decimal.InvalidOperation) as exc:
        raise SchemaError(f"--filter {where!r}: {text!r} is not a {t} value ({exc})") from None
    raise SchemaError(f"--filter {where!r}: columns of type {t} cannot be filtered here")


def _timestamp(t, text):
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if t.tz is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=datetime.timezone.utc)
    if t.tz is None and moment.tzinfo is not None:
        return moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


# --- rich views ----------------------------------------------------------------------------
def _show_info(con, doc):
    totals, publish = doc["totals"], doc["publish"]
    state = publish["state"]
    if doc["layout"] == "pqds":
        done = publish["published_version"]
        state += f" (published {'none' if done is None else done}, latest " \
                 f"{publish['latest_version']})"
    features = doc["features"]
    con.print(render.kv_table(f"dataset {escape(doc['root'])}", [
        ("layout", doc["layout"]), ("version", doc["version"]),
        ("dataset id", doc["dataset_id"]), ("dataset key", doc["dataset_key"]),
        ("committed", doc["committed_at_utc"]),
        ("operation", doc["operation"]["type"]), ("run id", doc["operation"]["run_id"]),
        ("files", f"{totals['files']:,}"), ("rows", f"{totals['rows']:,}"),
        ("bytes", f"{totals['bytes']:,}"),
        ("features", ", ".join(features["reader"] + features["writer"]) or "none"),
        ("publish", f"{state}; _SUCCESS {'present' if publish['success'] else 'absent'}"),
        ("metadata", json.dumps(doc["metadata"], ensure_ascii=False) if doc["metadata"]
         else None)]))
    con.print(render.grid("schema", ["id", "column", "type", "nullable"], [
        (f.get("id"), escape(f["name"]), escape(json.dumps(f["type"]) if isinstance(
            f["type"], dict) else f["type"]), f["nullable"]) for f in doc["schema"]]))
    if doc["partitioning"]:
        con.print(render.grid("partitioning", ["column", "type"],
                              [(escape(c["name"]), c["type"]) for c in doc["partitioning"]]))


def _show_versions(con, doc):
    con.print(render.grid(f"versions of {escape(doc['root'])} ({doc['layout']})",
                          ["version", "committed (UTC)", "operation", "run id", "rows",
                           "files", "+files", "-files"],
                          [(f"{v['version']}{' (latest)' if v['latest'] else ''}",
                            v["committed_at_utc"], v["operation"], escape(v["run_id"] or ""),
                            f"{v['row_count']:,}", f"{v['file_count']:,}", v["files_added"],
                            v["files_removed"]) for v in doc["versions"]],
                          # the commit time is what --as-of takes: never cut
                          whole=("committed (UTC)",), squeeze=("run id",)))


def _show_files(con, doc):
    p = doc["pruning"]
    con.print(render.grid(f"files of {escape(doc['root'])} version {doc['version']} "
                          f"({doc['layout']})",
                          ["path", "partition", "rows", "bytes", "residual filter"],
                          [(escape(f["path"]), escape(_partition_text(f["partition"])),
                            f"{f['rows']:,}", f"{f['size']:,}",
                            escape(json.dumps(f["residual"], default=str,
                                              ensure_ascii=False)) if f["residual"] else "")
                           for f in doc["files"]]))
    con.print(f"{p['selected_files']:,} of {p['total_files']:,} files "
              f"({p['selected_rows']:,} of {p['total_rows']:,} rows); partition values "
              f"pruned {p['total_files'] - p['after_partitions']:,}, file bounds "
              f"{p['after_partitions'] - p['selected_files']:,}")


def _partition_text(partition):
    return "/".join(f"{k}={'null' if v is None else v}" for k, v in partition.items())


def _show_verify(con, doc):
    verdict = "OK" if doc["ok"] else f"{len(doc['problems'])} PROBLEMS"
    con.print(f"[bold]{escape(doc['root'])}[/bold] ({doc['layout']}, version {doc['version']}): "
              f"{verdict}; {doc['files_checked']:,} files checked at level {doc['level']}")
    if doc["problems"]:
        con.print(render.grid("problems", ["path", "problem"],
                              [(escape(p["path"] or ""), escape(p["problem"]))
                               for p in doc["problems"]]))


def _show_repair(con, doc):
    result = doc["result"]
    con.print(f"[bold]{escape(doc['root'])}[/bold] ({doc['layout']})")
    if "note" in result:
        con.print(f"  {escape(result['note'])}")
        return
    for key, value in result.items():
        if isinstance(value, list):
            shown = ", ".join(escape(str(v)) for v in value[:20]) or "none"
            more = f" (+{len(value) - 20} more)" if len(value) > 20 else ""
            con.print(f"  {key.replace('_', ' ')}: {len(value)}: {shown}{more}")
        elif key != "layout":
            con.print(f"  {key.replace('_', ' ')}: {value}")
