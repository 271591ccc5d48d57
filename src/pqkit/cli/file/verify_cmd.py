"""pqinspect verify: check files against every rule of the format (fsck for Parquet).

The checks live in :mod:`pqkit.inspect.verify`; this module only formats. Arguments
are files, directories (walked for ``*.parquet``, skipping hidden,
``_``-prefixed and ``_pqkit`` entries; ``_metadata``/``_common_metadata``
are checked footer-only) and glob patterns. ``pqinspect verify --list-rules``
lists every rule id with its severity and title.

Exit code: 2 if any file is unusable (no magic, truncated or undecodable
footer, encrypted footer, missing file), else 1 if any file has an error,
else 0. Findings go to stdout once; stderr has one summary line per file with
errors or unusable.

JSON output (``--json``), stable, schema version 1::

    {
      "command": "verify",
      "schema_version": 1,
      "deep": bool,                        # --deep given
      "exit_code": int,                    # 0, 1 or 2 as above
      "files": [                           # one per file, in argument order
        {
          "path": str,
          "footer_only": bool,             # _metadata / _common_metadata
          "deep": bool,                    # values were decoded
          "usable": bool,                  # false: the footer could not be read
          "status": "ok" | "warnings" | "errors" | "unusable",
          "exit_code": int,
          "size": int | null, "created_by": str | null, "num_rows": int | null,
          "num_row_groups": int | null, "num_columns": int | null,
          "counts": {"error": int, "warning": int, "info": int},
          "pages": {"pages": int, "data_pages": int, "dictionary_pages": int,
                    "other_pages": int, "pages_with_crc": int,
                    "pages_without_crc": int, "crc_mismatches": int},
          "chunks_walked": int,
          "values_checked": int | null,    # null without --deep
          "findings": [
            {"rule": "PQ-STATS-001",       # see --list-rules
             "severity": "error" | "warning" | "info",
             "message": str,               # names the file offset
             "offset": int | null,         # file offset of the bytes concerned
             "row_group": int | null, "column": str | null,   # dotted leaf path
             "page_offset": int | null}    # file offset of the page header
          ]
        }
      ],
      "totals": {"files", "ok", "with_warnings", "with_errors", "unusable",
                 "errors", "warnings", "infos", "rows", "bytes", "pages",
                 "data_pages", "dictionary_pages", "other_pages", "pages_with_crc",
                 "pages_without_crc", "crc_mismatches", "values_checked": int}
    }

``--list-rules --json`` prints ``{"command": "verify --list-rules", "schema_version": 1,
"rules": [{"rule", "severity", "area", "title"}]}``.
"""
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.inspect.verify import rules_table, verify_paths

HELP = ("check files for format violations: footer, chunks, pages, CRCs, statistics, "
        "page index, bloom filters, size statistics")
EXAMPLE = """examples:
  pqinspect verify data.parquet
  pqinspect verify data.parquet --deep          # also decode every page and check the values
  pqinspect verify warehouse/table/ 'more/*.parquet' --json | jq '.totals'
  pqinspect verify --list-rules

exit code: 0 no errors (warnings allowed), 1 errors found, 2 an unusable file"""

SCHEMA_VERSION = 1
_SEVERITY_STYLE = {"error": "[red]error[/red]", "warning": "[yellow]warning[/yellow]",
                   "info": "info"}


def add_arguments(parser):
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="Parquet files, directories or glob patterns")
    parser.add_argument("--deep", action="store_true",
                        help="decode every page and check every value against the page and "
                             "chunk statistics, the page index, the bloom filters and the "
                             "size statistics")
    parser.add_argument("--list-rules", action="store_true",
                        help="list every rule id with its severity and title, then exit")
    parser.add_argument("--limit", type=int, default=50, metavar="N",
                        help="rich view: show at most N findings per file, 0 for all "
                             "(default 50; --json always has everything)")


def build(paths, deep=False):
    """The JSON-ready document of a verification run."""
    run_ = verify_paths(paths, deep=deep)
    return {"command": "verify", "schema_version": SCHEMA_VERSION, "deep": deep,
            "exit_code": run_.exit_code, "files": [r.to_dict() for r in run_.reports],
            "totals": run_.totals()}


def _render_file(con, f, limit):
    counts = f["counts"]
    head = (f"[bold]{escape(f['path'])}[/bold]: {f['status'].upper()} "
            f"({counts['error']} errors, {counts['warning']} warnings, {counts['info']} info)")
    con.print(head)
    if f["num_rows"] is not None:
        pages = f["pages"]
        con.print(f"  {f['num_rows']:,} rows, {f['num_row_groups']} row groups, "
                  f"{f['num_columns']} columns; written by {escape(str(f['created_by']))}")
        if not f["footer_only"]:
            con.print(f"  {pages['pages']:,} pages walked ({pages['data_pages']:,} data, "
                      f"{pages['dictionary_pages']:,} dictionary); CRC on "
                      f"{pages['pages_with_crc']:,}, absent on {pages['pages_without_crc']:,}, "
                      f"{pages['crc_mismatches']} mismatches"
                      + (f"; {f['values_checked']:,} values checked"
                         if f["values_checked"] is not None else ""))
        else:
            con.print("  footer only (a summary file: its chunks live in other files)")
    findings = f["findings"]
    if not findings:
        return
    rows = [(_SEVERITY_STYLE[x["severity"]], x["rule"],
             "" if x["offset"] is None else f"{x['offset']:,}", escape(x["message"]))
            for x in findings]
    more = len(rows) - limit if 0 < limit < len(rows) else 0
    table = render.grid(None, ["severity", "rule", "offset", "message"],
                        rows[:limit] if more else rows)
    if more:
        table.caption = f"… {more:,} more findings (--limit 0 or --json shows all)"
    con.print(table)


def _render(doc, limit):
    con = render.console()
    for f in doc["files"]:
        _render_file(con, f, limit)
    if len(doc["files"]) > 1:
        root, names = render.common_root(f["path"] for f in doc["files"])
        rows = [(escape(name), f["status"], f["counts"]["error"], f["counts"]["warning"],
                 f["counts"]["info"], _num(f["num_rows"]), f["num_row_groups"],
                 _num(f["pages"]["pages"]), _num(f["pages"]["pages_with_crc"]))
                for f, name in zip(doc["files"], names)]
        t = doc["totals"]
        rows.append((f"[bold]total: {t['files']} files[/bold]",
                     f"{t['ok']} ok, {t['with_warnings']} warn, {t['with_errors']} err, "
                     f"{t['unusable']} unusable", t["errors"], t["warnings"], t["infos"],
                     _num(t["rows"]), "", _num(t["pages"]), _num(t["pages_with_crc"])))
        con.print(render.grid(f"Summary of the files under {escape(root)}" if root
                              else "Summary", ["file", "status", "errors", "warnings", "info",
                                          "rows", "row groups", "pages", "with CRC"], rows))


def _num(value):
    return "" if value is None else f"{value:,}"


def _report_errors(doc, out=None):
    """One summary line per file with errors (or unusable) on stderr: the findings
    themselves are on stdout (the table, or the JSON document)."""
    out = out or sys.stderr
    for f in doc["files"]:
        if not f["usable"]:
            why = "; ".join(x["message"] for x in f["findings"][:1])
            print(f"pqinspect verify: {f['path']}: unusable: {why}", file=out)
        elif f["counts"]["error"]:
            first = next(x for x in f["findings"] if x["severity"] == "error")
            where = "" if first["offset"] is None else f" at offset {first['offset']}"
            print(f"pqinspect verify: {f['path']}: {f['counts']['error']} errors, "
                  f"{f['counts']['warning']} warnings; first {first['rule']}{where}", file=out)


def _list_rules(as_json):
    rules = rules_table()
    if as_json:
        render.emit_json(json_document("verify --list-rules", {"rules": rules}))
        return 0
    render.console().print(render.grid("Rules", ["rule", "severity", "area", "title"], [
        (r["rule"], r["severity"], r["area"], escape(r["title"])) for r in rules]))
    return 0


def run(args):
    if args.list_rules:
        return _list_rules(args.json)
    if not args.files:
        print("pqinspect verify: give at least one FILE, directory or pattern "
              "(or --list-rules)", file=sys.stderr)
        return 2
    doc = build(args.files, deep=args.deep)
    if args.json:
        render.emit_json(doc)
    else:
        _render(doc, args.limit)
    _report_errors(doc)
    return doc["exit_code"]
