"""The package layer order of docs/ARCHITECTURE.md, enforced on src/pqkit."""
import textwrap
from pathlib import Path

from layering import Layer, check

SRC = Path(__file__).resolve().parents[2] / "src"

# Bottom to top: a module may import only from its own package, a lower layer, or
# (in a shared layer) its layer's other packages. Keep in step with docs/ARCHITECTURE.md.
LAYERS = [
    Layer("generated and native", ("pqkit.format", "pqkit._native", "pqkit._version"), True),
    Layer("errors", ("pqkit.errors",)),
    Layer("datatypes", ("pqkit.datatypes",)),
    Layer("stage modules", ("pqkit.compression", "pqkit.levels", "pqkit.memory", "pqkit.threads",
                            "pqkit.statistics", "pqkit.bloom", "pqkit.page",
                            "pqkit.encodings", "pqkit.filesystems", "pqkit.chunk_range",
                            "pqkit.tail"), True),
    Layer("schema", ("pqkit.schema",)),
    Layer("columnar", ("pqkit.columnar",)),
    Layer("variant", ("pqkit.variant",)),
    Layer("convert", ("pqkit.convert",)),
    Layer("roads", ("pqkit.read", "pqkit.write")),
    Layer("tools over files", ("pqkit.inspect", "pqkit.textio")),
    Layer("dataset core", ("pqkit.dataset.core",)),
    Layer("PQDS/1", ("pqkit.dataset.pqds",)),
    Layer("other dataset formats", ("pqkit.dataset.hive", "pqkit.dataset.rfc0008",
                                    "pqkit.dataset.kartothek")),
    Layer("dataset front door", ("pqkit.dataset",)),
    Layer("spark", ("pqkit.spark",)),
    Layer("cli", ("pqkit.cli",)),
]
# pqkit/__init__.py, the public face, may hand on names from any layer.


def _describe(report):
    lines = [f"{a} -> {b}: {why}" for a, b, why in report.upward]
    lines += ["cycle: " + " <-> ".join(c) for c in report.cycles]
    lines += [f"{a} uses private {b}" for a, b in report.private]
    return "\n".join(lines)


def test_pqkit_follows_the_layer_order():
    report = check(str(SRC), "pqkit", LAYERS)
    assert report.ok, _describe(report)


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
