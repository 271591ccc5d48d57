"""pqinspect: show, verify and explain the bytes of Parquet files.

Each subcommand builds plain dicts; the human view (rich) and ``--json``
render the same dicts. Results go to stdout, diagnostics to stderr.
Exit codes: 0 ok, 1 problems found, 2 unusable input.
"""
import argparse
import sys
import traceback

from pqkit import __version__
from pqkit.cli import render
from pqkit.cli.common import add_wide_argument
from pqkit.cli.dataset import dataset_cmd
from pqkit.cli.file import (
    advise_cmd,
    bloom_cmd,
    dictionary_cmd,
    diff_cmd,
    explain_cmd,
    index_cmd,
    layout_cmd,
    meta_cmd,
    pages_cmd,
    schema_cmd,
    verify_cmd,
)
from pqkit.cli.rows import convert_cmd, rows_cmd, take_cmd
from pqkit.cli.surgery import append_cmd, concat_cmd, edit_cmd, recover_cmd
from pqkit.cli.urls import (
    StorageOptionError,
    add_url_arguments,
    remote_failure,
    storage_options_applied,
    urls_of,
)
from pqkit.errors import ParquetError

COMMANDS = {
    "schema": schema_cmd,
    "meta": meta_cmd,
    "pages": pages_cmd,
    "index": index_cmd,
    "layout": layout_cmd,
    "verify": verify_cmd,
    "head": rows_cmd.head,
    "cat": rows_cmd.cat,
    "dictionary": dictionary_cmd,
    "bloom": bloom_cmd,
    "diff": diff_cmd,
    "convert": convert_cmd,
    "dataset": dataset_cmd,
    "concat": concat_cmd,
    "append": append_cmd,
    "edit": edit_cmd,
    "recover": recover_cmd,
    "explain": explain_cmd,
    "take": take_cmd,
    "advise": advise_cmd,
}

EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE = 0, 1, 2


def build_parser():
    parser = argparse.ArgumentParser(
        prog="pqinspect",
        description="Inspect Parquet files: schema, footer, row groups, column chunks, pages, "
                    "page index and byte layout.",
        epilog="Example: pqinspect meta data.parquet --json")
    parser.add_argument("--version", action="version",
                        version=f"pqinspect (pqkit) {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        p = sub.add_parser(name, help=module.HELP, description=module.HELP,
                           epilog=module.EXAMPLE,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.add_argument("--json", action="store_true", help="emit JSON instead of a rich view")
        add_url_arguments(p)
        add_wide_argument(p)
        p.set_defaults(handler=module.run)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with storage_options_applied(args), render.wide_layout(getattr(args, "wide", False)):
            return args.handler(args)
    except ParquetError as exc:
        return _failed(args, f"{type(exc).__name__}: {exc}")
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
    except StorageOptionError as exc:
        return _failed(args, str(exc))
    except Exception as exc:
        # a store, its credentials or the network: one line, not the client's traceback
        line = remote_failure(exc, urls_of(args))
        if line is None and isinstance(exc, OSError):
            line = str(exc)
        if line is None:
            raise
        return _failed(args, line)


def _failed(args, line):
    """Print the traceback (with --debug) and one line on stderr; the exit code 2."""
    if getattr(args, "debug", False):
        traceback.print_exc()
    print(f"pqinspect {args.command}: {line}", file=sys.stderr)
    return EXIT_UNUSABLE


if __name__ == "__main__":
    sys.exit(main())
