"""Keeping every path that dataset metadata names inside the dataset's root.

Version files, index segment lists, RFC-0008 manifests and Kartothek documents
are files anyone with write access to the root may have edited, and each names
further files to open. Every layout resolves such a path in two steps:

* :func:`check_relative_path`, by its text alone, the same for a local root
  and for a URL: a non-empty relative POSIX path, no absolute form (``/x``,
  ``C:x``), no backslash, no empty, ``.`` or ``..`` segment, and no segment that
  a server would decode to one (``%2e%2e``, ``..%2F..``, ``%252e``);
* :func:`resolve_inside` on a local file system: the path as the file system
  resolves it (symbolic links followed) must still lie under the root's real
  path. An object store has no links, so the first check is the whole check
  there.

A path that fails either raises :class:`~pqkit.errors.ManifestCorrupted`
naming the file the path came from and its field; nothing is opened.
"""
import os
import re
from urllib.parse import unquote

from pqkit.dataset.core.fsops import META_DIR
from pqkit.errors import ManifestCorrupted

_DRIVE = re.compile(r"[A-Za-z]:")
# Decoding more rounds than a server plausibly applies gains nothing.
_DECODE_ROUNDS = 3


def check_relative_path(path, where, field="data path", *, reserved=True,
                        error=ManifestCorrupted):
    """``path`` if it is a relative POSIX path that stays inside the dataset root.

    Parameters
    ----------
    path : str
        The path as the metadata gives it.
    where, field : str
        The file it was read from and the field that holds it (for the message).
    reserved : bool, default True
        Also refuse pqkit's own directory (``_pqkit/``) and ``_metadata`` /
        ``_common_metadata`` names: true for data paths, false for paths that
        name pqkit's own files (index segments).
    error : exception class, default ManifestCorrupted
        What to raise (a caller checking its own argument raises DatasetError).
    """
    problem = relative_path_problem(path, reserved=reserved)
    if problem:
        raise error(f"{where}: {field} {problem}")
    return path


def relative_path_problem(path, *, reserved=True):
    """What is wrong with ``path`` as a path inside the dataset root (the rules of
    :func:`check_relative_path`), as the end of a sentence naming it; None if nothing."""
    problem = _escape(path)
    if problem:
        return (f"{path!r:.200} is not a relative POSIX path inside the dataset root: "
                f"{problem}")
    parts = path.split("/")
    if reserved and (parts[0] == META_DIR or
                     any(p.startswith(("_metadata", "_common_metadata")) for p in parts)):
        return f"{path!r} uses a reserved name"
    return None


def _escape(path):
    """Why ``path`` could leave the root, or None."""
    if not isinstance(path, str):
        return f"it is a {type(path).__name__}, not a string"
    if not path:
        return "it is empty"
    if "\x00" in path:
        return "it holds a NUL character"
    if path.startswith("/") or _DRIVE.match(path):
        return "it is absolute"
    if "\\" in path:
        return "it holds a backslash"
    encoded = "%" in path
    for segment in path.split("/"):
        if segment in ("", ".", ".."):
            return f"it has a segment {segment!r}"
        if encoded and "%" in segment and _decodes_to_dot_segment(segment):
            return f"its segment {segment!r} decodes to '.' or '..'"
    return None


def _decodes_to_dot_segment(segment):
    """Whether percent-decoding ``segment`` (up to a few rounds) yields a ``.``/``..`` piece."""
    text = segment
    for _ in range(_DECODE_ROUNDS):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
        if any(piece in (".", "..") for piece in re.split(r"[/\\]", text)):
            return True
    return False


def real_root(root):
    """The root as the file system resolves it (pass to :func:`resolve_inside` to save
    resolving it again for every file)."""
    return os.path.realpath(root)


def resolve_inside(root, relpath, where, field="data path", *, reserved=True, real=None):
    """The local path of ``relpath`` under ``root``, checked by text and then by where
    the file system resolves it (symbolic links followed): ManifestCorrupted when it
    lies outside ``root``. ``real`` is :func:`real_root` of ``root`` when known."""
    check_relative_path(relpath, where, field, reserved=reserved)
    path = os.path.join(root, *relpath.split("/"))
    check_inside(root, path, where, f"{field} {relpath!r}", real=real)
    return path


def check_inside(root, path, where, what, *, real=None):
    """ManifestCorrupted unless the local ``path`` resolves (symbolic links followed)
    to ``root`` or a path under it; ``what`` names it in the message."""
    base = real if real is not None else real_root(root)
    resolved = os.path.realpath(path)
    if resolved != base and not resolved.startswith(base.rstrip(os.sep) + os.sep):
        raise ManifestCorrupted(f"{where}: {what} resolves to {resolved}, outside the "
                                f"dataset root {root} (a symbolic link leaving the root?)")
    return path
