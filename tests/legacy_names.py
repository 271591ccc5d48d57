"""Turn a PQDS/1 root into one written before pqkit's own files got their ``_`` prefix.

Before the prefix, version files were ``_pqkit/versions/<n:020>.json``, tags
``tags/<name>.json``, temporary version files ``tmp/<txn>-<attempt>.json``, the
lock ``publish.lock``, index segments ``indices/<column>/<uuid>.pqindex`` (their
paths recorded in the version files), planning indices
``planning/<n:020>.pqplan`` and hidden data copies ``shadow/<path>.shadow`` (or,
earlier still, ``shadow/<path>``). :func:`to_legacy_names` renames a root
written today to exactly those names, so tests can run today's code on it.
"""
import os

from pqkit.dataset.pqds.paths import HIDDEN, SHADOW_SUFFIX, Layout

KEPT = {"_latest"}          # a name that had its prefix from the start


def _old_name(top, name, shadow_suffix):
    if top == "shadow":
        stem = name[len(HIDDEN):-len(SHADOW_SUFFIX)]
        return stem + SHADOW_SUFFIX if shadow_suffix else stem
    return name[len(HIDDEN):]


def to_legacy_names(root, shadow_suffix=True):
    """Rename every ``_``-prefixed file under ``root/_pqkit`` to its old name.

    ``shadow_suffix``: hidden copies keep ``.shadow`` (False: the plain data
    name, as the first datasets had). Returns the old relative paths.
    """
    layout = Layout(root)
    renamed, segments = [], {}
    for dirpath, _, names in os.walk(layout.meta):
        for name in names:
            src = os.path.join(dirpath, name)
            rel = layout.relpath(src)
            parts = rel.split("/")
            if name in KEPT or not name.startswith(HIDDEN):
                continue
            dst = os.path.join(dirpath, _old_name(parts[1] if len(parts) > 2 else "",
                                                  name, shadow_suffix))
            os.rename(src, dst)
            renamed.append(layout.relpath(dst))
            if parts[1] == "indices":
                segments[rel] = layout.relpath(dst)
    for name in os.listdir(layout.versions_dir):
        path = os.path.join(layout.versions_dir, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for new, old in segments.items():
            text = text.replace(f'"{new}"', f'"{old}"')
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return sorted(renamed)


def prefixed_files(root):
    """Relative paths of files under ``root/_pqkit`` whose name starts with ``_``."""
    layout = Layout(root)
    return sorted(layout.relpath(os.path.join(d, n)) for d, _, names in os.walk(layout.meta)
                  for n in names if n.startswith(HIDDEN) and n not in KEPT)
