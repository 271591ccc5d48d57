"""The package layer order of docs/ARCHITECTURE.md, enforced on src/pqkit."""
import textwrap
from pathlib import Path

import pytest
from layering import Layer, check, layers_from_markdown

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
CYTHON = ROOT / "cython"
# Bottom to top, as docs/ARCHITECTURE.md states it: a module may import only from its own
# package, a lower layer, or (in a shared layer) its layer's other packages.
# pqkit/__init__.py, the public face, may hand on names from any layer.
LAYERS = layers_from_markdown((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"),
                              "pqkit")


def _describe(report):
    lines = [f"{a} -> {b}: {why}" for a, b, why in report.upward]
    lines += ["cycle: " + " <-> ".join(c) for c in report.cycles]
    lines += [f"{a} uses private {b}" for a, b in report.private]
    return "\n".join(lines)


def test_pqkit_follows_the_layer_order():
    report = check(str(SRC), "pqkit", LAYERS, native_roots=[str(CYTHON)])
    assert report.ok, _describe(report)


# The read road's stages, bottom to top, as docs/ARCHITECTURE.md describes them: options
# (which takes only the coalescing policy), then fetch, decode, prune, and the front door.
READ_STAGES = [
    Layer("coalescing policy", ("pqkit.read.fetch.coalesce",)),
    Layer("options", ("pqkit.read.options", "pqkit.read.read_statistics",
                       "pqkit.read.row_selection", "pqkit.read.budget")),
    Layer("fetch", ("pqkit.read.fetch",)),
    Layer("decode", ("pqkit.read.decode",)),
    Layer("prune", ("pqkit.read.prune",)),
    Layer("front door", ("pqkit.read",)),
]


def test_read_stages_import_only_earlier_stages():
    report = check(str(SRC), "pqkit.read", READ_STAGES)
    assert report.ok, _describe(report)


def test_every_package_of_pqkit_has_a_layer():
    # Subpackages with layers of their own (dataset.core, ...) count as their package.
    placed = {".".join(p.split(".")[:2]) for layer in LAYERS for p in layer.prefixes}
    packages = {f"pqkit.{p.stem}" for p in (SRC / "pqkit").iterdir()
                if p.suffix == ".py" and p.stem != "__init__" or
                p.is_dir() and (p / "__init__.py").exists()}
    assert packages - placed == set()
    assert placed - packages == set()


# DESIGN.md: folders of about 15 modules at most; past that a folder is split into
# sub-packages by what its modules do.
MOST_MODULES_IN_A_FOLDER = 15


def modules_per_folder(root):
    """{folder under ``root``: its modules, the .py files other than __init__.py}."""
    return {folder: sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
            for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]}


def test_no_folder_of_pqkit_holds_more_than_15_modules():
    crowded = {folder.relative_to(SRC).as_posix(): len(names)
               for folder, names in modules_per_folder(SRC / "pqkit").items()
               if len(names) > MOST_MODULES_IN_A_FOLDER}
    assert crowded == {}, f"folders over {MOST_MODULES_IN_A_FOLDER} modules: {crowded}"


def test_modules_per_folder_counts_only_its_own_modules(tmp_path):
    _tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "", "pkg/b.py": "", "pkg/notes.md": "",
                     "pkg/sub/__init__.py": "", "pkg/sub/c.py": "", "pkg/sub/deep/d.py": ""})
    counts = {f.relative_to(tmp_path).as_posix(): names
              for f, names in modules_per_folder(tmp_path / "pkg").items()}
    assert counts == {"pkg": ["a.py", "b.py"], "pkg/sub": ["c.py"], "pkg/sub/deep": ["d.py"]}


def _tree(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return str(tmp_path)


SYNTHETIC_LAYERS = [Layer("low", ("pkg.low",)), Layer("mid", ("pkg.mid", "pkg.side")),
                    Layer("high", ("pkg.high",))]
CLEAN = {
    "pkg/__init__.py": "",
    "pkg/low/__init__.py": "",
    "pkg/low/a.py": "X = 1\n_hidden = 2\n",
    "pkg/mid/__init__.py": "",
    "pkg/mid/b.py": "from pkg.low.a import X\n",
    "pkg/side/__init__.py": "",
    "pkg/side/s.py": "from pkg.low import a\n",
    "pkg/high/__init__.py": "",
    "pkg/high/c.py": "import pkg.mid.b\nfrom ..low.a import X\n",
}


def test_synthetic_clean_tree_passes(tmp_path):
    assert check(_tree(tmp_path, CLEAN), "pkg", SYNTHETIC_LAYERS).ok


def test_upward_import_is_caught_even_inside_a_function(tmp_path):
    files = dict(CLEAN, **{"pkg/low/a.py": "def f():\n    from pkg.high.c import X\n"})
    report = check(_tree(tmp_path, files), "pkg", SYNTHETIC_LAYERS)
    assert ("pkg.low.a", "pkg.high.c") in [(a, b) for a, b, _ in report.upward]
    assert report.cycles == [["pkg.high.c", "pkg.low.a", "pkg.mid.b"]]


def test_side_by_side_packages_may_not_import_each_other(tmp_path):
    files = dict(CLEAN, **{"pkg/mid/b.py": "from pkg.side.s import a\n"})
    report = check(_tree(tmp_path, files), "pkg", SYNTHETIC_LAYERS)
    assert [(a, b) for a, b, _ in report.upward] == [("pkg.mid.b", "pkg.side.s")]


def test_cycle_inside_one_package_is_caught(tmp_path):
    files = dict(CLEAN, **{"pkg/mid/b.py": "from pkg.mid.d import Y\nX = 1\n",
                           "pkg/mid/d.py": "def g():\n    from . import b\nY = 2\n"})
    report = check(_tree(tmp_path, files), "pkg", SYNTHETIC_LAYERS)
    assert report.cycles == [["pkg.mid.b", "pkg.mid.d"]]
    assert not report.upward


def test_private_names_stay_in_their_package(tmp_path):
    files = dict(CLEAN, **{"pkg/mid/b.py": "from pkg.low.a import _hidden\n",
                           "pkg/low/e.py": "from pkg.low.a import _hidden\n",
                           "pkg/high/c.py": "from pkg.low import a\nY = a._hidden\n"})
    report = check(_tree(tmp_path, files), "pkg", SYNTHETIC_LAYERS)
    assert sorted(report.private) == [("pkg.high.c", "pkg.low.a._hidden"),
                                      ("pkg.mid.b", "pkg.low.a._hidden")]


def test_cython_imports_and_cimports_count(tmp_path):
    files = dict(CLEAN, **{"pkg/low/k.pyx": '''
        """A kernel; this docstring's
        from pkg.high.c import X
        is not an import."""
        cimport cython
        from libc.stdint cimport int64_t
        from pkg.low.a cimport thing
        from pkg.mid.b import (X,
                               Y as Z)

        def f():
            import pkg.high.c
        ''',
                           "pkg/low/k.pxd": "from pkg.side.s cimport a\n"})
    root = _tree(tmp_path, files)
    report = check(root, "pkg", SYNTHETIC_LAYERS, native_roots=[root])
    assert sorted((a, b) for a, b, _ in report.upward) == [
        ("pkg.low.k", "pkg.high.c"), ("pkg.low.k", "pkg.mid.b"), ("pkg.low.k", "pkg.side.s")]


def test_cython_private_names_stay_in_their_package(tmp_path):
    files = dict(CLEAN, **{"pkg/high/k.pyx": "from pkg.low.a cimport _hidden\n"})
    root = _tree(tmp_path, files)
    report = check(root, "pkg", SYNTHETIC_LAYERS, native_roots=[root])
    assert report.private == [("pkg.high.k", "pkg.low.a._hidden")]


DOC = """
# Title

## Layer order

Some words.

| layer | packages | may also import each other |
|---|---|---|
| 0 bottom | `low`, `_native` | yes |
| 1 middle | `mid`, `side` | no: they never do |
| 1b top | `high` | |

## Next section
"""


def test_layer_table_is_read_from_the_document():
    assert layers_from_markdown(DOC, "pkg") == [
        Layer("bottom", ("pkg.low", "pkg._native"), True),
        Layer("middle", ("pkg.mid", "pkg.side"), False),
        Layer("top", ("pkg.high",), False)]


@pytest.mark.parametrize("doc", [DOC.replace("## Layer order", "## Layers"),
                                 DOC.replace("| 1b top | `high` |", "| 1b top | high |")])
def test_a_missing_or_malformed_layer_table_is_an_error(doc):
    with pytest.raises(ValueError):
        layers_from_markdown(doc, "pkg")
