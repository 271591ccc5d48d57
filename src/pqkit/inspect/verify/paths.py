"""Which files a list of command-line arguments names: files, directories and glob patterns.

* A file is taken as named, whatever its name.
* A directory is walked recursively for ``*.parquet`` files. Hidden entries
  (``.name``) and ``_``-prefixed ones (``_pqkit/``, ``_SUCCESS``,
  ``_temporary/``) are skipped -- Hive, Spark and pyarrow hide them too --
  except the summary files ``_metadata`` and ``_common_metadata``, which are
  taken as footer-only files (their column chunks live in other files).
* A pattern (``*``, ``?``, ``[...]``, ``**`` across directories) is expanded;
  matched files are taken unless hidden or ``_``-prefixed, matched
  directories are walked as above.

A URL (``s3://bucket/prefix``) is taken the same way on its file system: an
object as a file, a prefix as a directory (listed recursively), a pattern
expanded by the file system.

Example: for ``ds/`` holding ``a=1/part-0.parquet``, ``_common_metadata``,
``_pqkit/shadow/x.parquet`` and ``.part-0.parquet.crc``, the targets are
``ds/_common_metadata`` (footer only) and ``ds/a=1/part-0.parquet``.
"""
import glob
import os
from dataclasses import dataclass

from pqkit.filesystems import is_url, url_filesystem

METADATA_NAMES = ("_metadata", "_common_metadata")


@dataclass(frozen=True)
class Target:
    """One file to inspect.

    Attributes
    ----------
    path : str
    footer_only : bool
        A ``_metadata`` / ``_common_metadata`` summary file.
    problem : str or None
        Why the argument gave no file (missing path, pattern without match,
        directory without Parquet files); None for a real file.
    """
    path: str
    footer_only: bool = False
    problem: str = None


def _hidden(name):
    return name.startswith((".", "_")) and name not in METADATA_NAMES


def _walk(directory):
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found.extend(_targets_of_names([os.path.join(root, name) for name in files]))
    return found


def expand_paths(arguments):
    """The files named by ``arguments`` (paths, directories, patterns), in order, once each.

    Parameters
    ----------
    arguments : iterable of str

    Returns
    -------
    list of Target
        A target with ``problem`` set stands for an argument that named no file.
    """
    out, seen = [], set()

    def add(target):
        key = os.path.normpath(target.path)
        if key not in seen or target.problem:
            seen.add(key)
            out.append(target)

    for arg in arguments:
        if is_url(arg):
            for t in _expand_url(arg):
                add(t)
        elif os.path.isdir(arg):
            found = _walk(arg)
            if not found:
                add(Target(arg, problem=f"no Parquet files under the directory {arg}"))
            for t in found:
                add(t)
        elif os.path.exists(arg):
            add(Target(arg, footer_only=os.path.basename(arg) in METADATA_NAMES))
        elif glob.has_magic(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            targets = []
            for m in matches:
                if os.path.isdir(m):
                    targets.extend(_walk(m))
                elif not _hidden(os.path.basename(m)):
                    targets.append(Target(m, os.path.basename(m) in METADATA_NAMES))
            if not targets:
                add(Target(arg, problem=f"the pattern {arg} matches no Parquet file"))
            for t in targets:
                add(t)
        else:
            add(Target(arg, problem=f"no such file or directory: {arg}"))
    return out


def _targets_of_names(names):
    """Targets of the file names a walk or a pattern found (hidden ones left out)."""
    out = []
    for name in sorted(names):
        base = os.path.basename(name.rstrip("/"))
        if base in METADATA_NAMES:
            out.append(Target(name, footer_only=True))
        elif base.endswith(".parquet") and not _hidden(base):
            out.append(Target(name))
    return out


def _expand_url(arg):
    """The targets of a URL: an object, a prefix (listed) or a pattern."""
    fs, path = url_filesystem(arg)
    protocol = arg.split("://", 1)[0]

    def url(p):
        return p if is_url(p) else f"{protocol}://{p}"

    def walk(prefix):
        keep = []
        for name in fs.find(prefix):
            rel = name[len(prefix.rstrip("/")) + 1:] if name.startswith(prefix) else name
            if not any(part.startswith((".", "_")) for part in rel.split("/")[:-1]):
                keep.append(name)
        return [Target(url(t.path), t.footer_only) for t in _targets_of_names(keep)]

    if glob.has_magic(path):
        found = []
        for m in fs.glob(path):
            found.extend(walk(m) if fs.isdir(m) else
                         [Target(url(t.path), t.footer_only) for t in _targets_of_names([m])])
        return found or [Target(arg, problem=f"the pattern {arg} matches no Parquet file")]
    if fs.isdir(path):
        found = walk(path)
        return found or [Target(arg, problem=f"no Parquet files under the prefix {arg}")]
    if fs.exists(path):
        return [Target(arg, footer_only=path.rsplit("/", 1)[-1] in METADATA_NAMES)]
    return [Target(arg, problem=f"no object and no prefix named {arg}")]


def is_single_file(arguments):
    """Whether ``arguments`` name exactly one existing file (not a directory or pattern)."""
    return len(arguments) == 1 and os.path.isfile(arguments[0]) and \
        not os.path.isdir(arguments[0])
