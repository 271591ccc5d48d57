"""pqinspect dataset: the actions that change a PQDS/1 dataset.

``vacuum``, ``compact``, ``restore``, ``tag``, ``publish``, ``index build``,
``index optimize``, ``merge --from FILE`` and ``import-kartothek STORE`` call
the library function of the same name. Those that delete or rewrite files take ``--dry-run``: they then
report what they would do (from the manifest, or by reading the candidate
files for merge) and change nothing on disk. On a terminal, a long-running
action shows a rich progress bar on stderr.

JSON documents (``--json``, schema version 1) carry the common keys of
:mod:`pqkit.cli.dataset.dataset_cmd` plus ``dry_run`` and:

* vacuum: ``result`` = :func:`pqkit.dataset.pqds.vacuum`'s dict (``versions_deleted``,
  ``files_deleted``, ``dirs_removed``);
* compact: ``version_before``, ``version``, ``groups`` (lists of paths rewritten
  together), ``files_before``, ``files``;
* restore: ``version_before``, ``restored_version``, ``version``,
  ``files_added``, ``files_removed`` (paths);
* tag: ``tag``, ``version`` (the tagged one), ``moved_from`` (the version the tag
  named before ``--force`` moved it, else null), ``deleted`` (with ``--delete``);
  moving an existing tag to another version needs ``--force``;
* publish: ``before`` and ``after``: :func:`pqkit.dataset.publish_state`;
* index build / optimize: ``column``, ``version_before``, ``version``,
  ``segments_before``, ``segments``, ``files_uncovered_before``;
* merge: ``source``, ``format`` (parquet, csv or jsonl; :mod:`.merge_source`),
  ``on``, ``when_matched``, ``when_not_matched``, ``plan``
  (:func:`pqkit.dataset.merge_plan`), ``version``, ``metrics`` (of the commit);
* import-kartothek: ``root`` (``<store>/<uuid>/<table>``), ``store``, ``uuid``,
  ``table``, ``files``, ``rows``, ``partition_by``, ``indices`` (Kartothek index
  columns), ``version`` (0; None on a dry run, which only opens the table).
"""
import argparse
import contextlib
import os
import re
import sys

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from pqkit import dataset as pds
from pqkit.cli.dataset.merge_source import FORMATS, read_source
from pqkit.errors import DatasetError
from pqkit.textio import format_of

SCHEMA_VERSION = 1


def actions():
    """``{name: (help, options, build, show, example)}`` as dataset_cmd lists its own."""
    return {
        "vacuum": ("delete expired versions and unreferenced files (--dry-run: list them)",
                   _vacuum_options, build_vacuum, _show_result,
                   "pqinspect dataset vacuum sales --retention 30d --dry-run"),
        "compact": ("rewrite each partition's small files into fewer files", _compact_options,
                    build_compact, _show_result, "pqinspect dataset compact sales --target 64MiB"),
        "restore": ("commit a version whose files are those of an older one", _restore_options,
                    build_restore, _show_result, "pqinspect dataset restore sales 3 --dry-run"),
        "tag": ("name a version (vacuum keeps it), or --delete a tag", _tag_options, build_tag,
                _show_result, "pqinspect dataset tag sales release-1 --version 7"),
        "publish": ("make the visible Hive tree and _SUCCESS match the latest version",
                    _dry_run_only, build_publish, _show_result, "pqinspect dataset publish sales"),
        "index": ("build or optimize (merge the segments of) an inverted index",
                  _index_options, build_index, _show_result,
                  "pqinspect dataset index build sales customer_id"),
        "merge": ("upsert or delete rows by key from a Parquet, CSV or JSON Lines file",
                  _merge_options, build_merge, _show_result,
                  "pqinspect dataset merge sales --from changes.csv --on id --dry-run"),
        "import-kartothek": ("register a Kartothek v4 table as PQDS/1 version 0 in place",
                             _import_options, build_import, _show_result,
                             "pqinspect dataset import-kartothek store --table core --dry-run"),
    }


# actions that declare their own positional arguments and --json (no ROOT)
NESTED = ("index", "import-kartothek")


# --- options ----------------------------------------------------------------------------------
def _dry_run_only(parser):
    parser.add_argument("--dry-run", action="store_true",
                        help="report what would change and change nothing")


def _vacuum_options(parser):
    _dry_run_only(parser)
    parser.add_argument("--retention", metavar="DURATION", help="keep versions younger "
                        "than this (e.g. 30d; default the dataset's vacuum.retention)")
    parser.add_argument("--keep-last", type=int, metavar="N", help="always keep the N newest")
    parser.add_argument("--grace", metavar="DURATION",
                        help="delete orphans older than this (default vacuum.grace)")


def _compact_options(parser):
    _dry_run_only(parser)
    parser.add_argument("--target", metavar="SIZE", default="128MiB",
                        help="files below this size are packed together (default 128MiB)")


def _restore_options(parser):
    _dry_run_only(parser)
    parser.add_argument("to_version", type=int, metavar="VERSION", help="the version to restore")


def _tag_options(parser):
    parser.add_argument("name", metavar="NAME", help="the tag")
    parser.add_argument("--version", type=int, metavar="N", help="default: the latest")
    parser.add_argument("--delete", action="store_true", help="remove the tag instead")
    parser.add_argument("--dry-run", action="store_true",
                        help="with --delete: report whether the tag exists, remove nothing")
    parser.add_argument("--force", action="store_true",
                        help="move the tag if it already names another version")


def _index_options(parser):
    steps = parser.add_subparsers(dest="step", required=True, metavar="STEP")
    for step, text in (("build", "index the live files no segment covers"),
                       ("optimize", "merge the column's segments into one, dropping dead keys")):
        p = steps.add_parser(step, help=text, description=text)
        p.add_argument("root", metavar="ROOT", help="the dataset's root directory")
        p.add_argument("column", metavar="COLUMN", help="the indexed column")
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="emit JSON instead of a rich view")
        _dry_run_only(p)


def _merge_options(parser):
    _dry_run_only(parser)
    parser.add_argument("--from", dest="source", required=True, metavar="FILE",
                        help="Parquet, CSV or JSON Lines rows: the key columns and the "
                             "columns to set (an update keeps the others)")
    parser.add_argument("--format", choices=FORMATS,
                        help="the format of FILE (default: from its suffix)")
    parser.add_argument("--on", action="append", required=True, metavar="COLUMN",
                        help="key column (repeat, or a,b)")
    parser.add_argument("--when-matched", choices=("update", "delete"), default="update")
    parser.add_argument("--when-not-matched", choices=("insert", "ignore"), default="insert")


def _import_options(parser):
    parser.add_argument("store", metavar="STORE",
                        help="the Kartothek store (holding <uuid>.by-dataset-metadata.*)")
    parser.add_argument("--uuid", help="the dataset (default: the only one in STORE)")
    parser.add_argument("--table", help="the table (default: the dataset's only table)")
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="emit JSON instead of a rich view")
    _dry_run_only(parser)


# --- documents ----------------------------------------------------------------------------------
def _doc(args, action):
    return {"command": f"dataset {action}", "schema_version": SCHEMA_VERSION,
            "root": pds.Layout(args.root).root, "layout": pds.detect_layout(args.root),
            "exit_code": 0, "dry_run": bool(getattr(args, "dry_run", False))}


@contextlib.contextmanager
def _working(args, label):
    """A rich progress bar on stderr while ``label`` runs, when stderr is a terminal."""
    if getattr(args, "json", False) or not sys.stderr.isatty():
        yield
        return
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        bar.add_task(label, total=None)
        yield


def build_vacuum(args):
    doc = _doc(args, "vacuum")
    with _working(args, "vacuum"):
        doc["result"] = pds.vacuum(args.root, retention=args.retention,
                                   keep_last=args.keep_last, grace=args.grace,
                                   dry_run=args.dry_run)
    return doc


def build_compact(args):
    doc = _doc(args, "compact")
    target = _size(args.target)
    before = pds.open(args.root)
    doc.update(version_before=before.version, files_before=before.file_count,
               groups=pds.compact_plan(args.root, target_size=target))
    if args.dry_run or not doc["groups"]:
        doc.update(version=before.version, files=before.file_count)
        return doc
    with _working(args, f"compacting {sum(map(len, doc['groups']))} files"):
        version = pds.compact(args.root, target_size=target)
    doc.update(version=version, files=pds.open(args.root, version=version).file_count)
    return doc


def build_restore(args):
    doc = _doc(args, "restore")
    latest, old = pds.open(args.root), pds.open(args.root, version=args.to_version)
    now = {f.key: f.path for f in latest.files()}
    then = {f.key: f.path for f in old.files()}
    doc.update(version_before=latest.version, restored_version=old.version,
               files_added=sorted(then[k] for k in then.keys() - now.keys()),
               files_removed=sorted(now[k] for k in now.keys() - then.keys()))
    doc["version"] = latest.version if args.dry_run else pds.restore(args.root, args.to_version)
    return doc


def build_tag(args):
    doc = _doc(args, "tag")
    doc["tag"] = args.name
    if args.delete:
        if args.dry_run:
            doc["deleted"] = os.path.exists(pds.Layout(args.root).tag_path(args.name))
        else:
            doc["deleted"] = bool(pds.untag(args.root, args.name))
        return doc
    if args.dry_run:
        raise DatasetError("--dry-run goes with --delete; a new tag deletes nothing")
    doc["moved_from"] = _tagged_version(args.root, args.name)
    if doc["moved_from"] is not None:
        wanted = pds.open(args.root, version=args.version).version
        if doc["moved_from"] != wanted and not args.force:
            raise DatasetError(f"tag {args.name!r} already names version {doc['moved_from']}; "
                               f"--force moves it to version {wanted}")
    pds.tag(args.root, args.name, args.version)
    doc["version"] = pds.open(args.root, tag=args.name).version
    if doc["moved_from"] == doc["version"]:
        doc["moved_from"] = None
    return doc


def _tagged_version(root, name):
    """The version the tag ``name`` names, or None when there is no such tag."""
    if not os.path.exists(pds.Layout(root).tag_path(name)):
        return None
    return pds.open(root, tag=name).version


def build_publish(args):
    doc = _doc(args, "publish")
    doc["before"] = pds.publish_state(args.root)
    if not args.dry_run:
        with _working(args, "publishing"):
            pds.publish(args.root)
    doc["after"] = pds.publish_state(args.root)
    return doc


def build_index(args):
    doc = _doc(args, f"index {args.step}")
    ds = pds.open(args.root)
    segments = _segments(ds, args.column)
    covered = {k for s in segments for k in s.get("covers", [])}
    doc.update(column=args.column, version_before=ds.version,
               segments_before=len(segments),
               files_uncovered_before=sum(1 for f in ds.files() if f.key not in covered))
    if args.dry_run:
        doc.update(version=ds.version, segments=len(segments))
        return doc
    step = pds.build_index if args.step == "build" else pds.optimize_index
    with _working(args, f"index {args.step} {args.column}"):
        version = step(args.root, args.column)
    doc.update(version=version,
               segments=len(_segments(pds.open(args.root, version=version), args.column)))
    return doc


def build_merge(args):
    doc = _doc(args, "merge")
    on = [c.strip() for text in args.on for c in text.split(",") if c.strip()]
    data = read_source(args.source, list(pds.open(args.root).schema), args.format)
    options = {"when_matched": args.when_matched, "when_not_matched": args.when_not_matched}
    doc.update(source=args.source, format=format_of(args.source, args.format), on=on,
               **options)
    with _working(args, "merging"):
        doc["plan"] = pds.merge_plan(args.root, data, on, **options)
        if args.dry_run:
            doc["version"], doc["metrics"] = doc["plan"]["version"], None
            return doc
        version = pds.merge(args.root, data, on, **options)
    ds = pds.open(args.root, version=version)
    doc["version"] = version
    doc["metrics"] = ds.operation.get("metrics") if version != doc["plan"]["version"] else None
    return doc


def build_import(args):
    ds = pds.open_kartothek(args.store, args.uuid, args.table)
    doc = {"command": "dataset import-kartothek", "schema_version": SCHEMA_VERSION,
           "root": ds.root, "layout": pds.detect_layout(ds.root), "exit_code": 0,
           "dry_run": bool(args.dry_run), "store": os.path.abspath(args.store),
           "uuid": os.path.basename(os.path.dirname(ds.root)),
           "table": os.path.basename(ds.root), "files": len(ds.manifest.files),
           "rows": ds.manifest.data["row_count"], "partition_by": list(ds.partition_by),
           "indices": [ix["column"] for ix in ds.manifest.data.get("indices") or []],
           "version": None}
    if args.dry_run:
        return doc
    with _working(args, "importing"):
        root = pds.import_kartothek(args.store, args.uuid, args.table)
    doc.update(root=root, layout=pds.detect_layout(root), version=pds.open(root).version)
    return doc


def _segments(ds, column):
    for ix in ds.manifest.data.get("indices") or []:
        if ix.get("column") == column:
            return list(ix.get("segments") or [])
    return []


_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


def _size(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text)
    try:
        return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    except (AttributeError, ValueError, KeyError):
        raise DatasetError(f"size {text!r}: use a number with B, KB, MB, GB, KiB, MiB or "
                           "GiB") from None


# --- rich view -----------------------------------------------------------------------------------
def _show_result(con, doc):
    title = f"[bold]{escape(doc['command'])}[/bold] {escape(doc['root'])}"
    con.print(title + (" (dry run: nothing changed)" if doc["dry_run"] else ""))
    skip = {"command", "schema_version", "root", "layout", "exit_code", "dry_run"}
    for key, value in doc.items():
        if key in skip:
            continue
        for name, item in (value.items() if isinstance(value, dict) else [(None, value)]):
            label = key if name is None else f"{key} {name}"
            con.print(f"  {escape(label.replace('_', ' '))}: {_text(item)}")


def _text(value):
    if isinstance(value, list):
        shown = ", ".join(escape(str(v)) for v in value[:20]) or "none"
        return f"{len(value)}: {shown}" + (f" (+{len(value) - 20} more)"
                                           if len(value) > 20 else "")
    return escape(str(value))
