"""tests/INDEX.md against the tree (tools/test_index.py): every module that defines code has
a test file of its name or an index line, and the index names only what exists."""
import importlib.util
import textwrap
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "test_index.py"
_spec = importlib.util.spec_from_file_location("test_index_tool", TOOL)
test_index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(test_index)


def test_every_module_has_a_test_file_or_an_index_line():
    found = test_index.problems()
    assert not found, ("tests/INDEX.md is out of step with the tree (python tools/test_index.py "
                       "--write proposes the lines):\n" + "\n".join(found))


def _tree(root, index_lines=(), whole_lines=()):
    """A source tree of three modules (one with a test of its name, one that only
    re-exports) and an index with the given lines."""
    files = {
        "src/pqkit/__init__.py": "from pqkit.a import f\n",
        "src/pqkit/a.py": "def f():\n    return 1\n",
        "src/pqkit/pkg/__init__.py": "",
        "src/pqkit/pkg/b.py": "class B:\n    pass\n",
        "cython/pqkit/_native/k.pyx": "def k():\n    return 2\n",
        "tests/unit/test_a.py": "from pqkit.a import f\n",
        "tests/unit/other/test_b_and_k.py": "from pqkit.pkg.b import B\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "tests/INDEX.md").write_text(textwrap.dedent(f"""\
        # Where each module is tested

        {test_index.OTHER_NAMES}

        """) + "".join(f"{l}\n" for l in index_lines)
        + f"\n{test_index.WHOLE}\n\n" + "".join(f"{l}\n" for l in whole_lines))


GOOD = ["- `pqkit.pkg.b`: `tests/unit/other/test_b_and_k.py`",
        "- `pqkit._native.k`: `tests/unit/other/test_b_and_k.py` (through pqkit.pkg.b)"]


def test_a_true_index_has_no_problems(tmp_path):
    _tree(tmp_path, GOOD)
    assert test_index.problems(tmp_path) == []


@pytest.mark.parametrize("lines, whole, problem", [
    (GOOD[:1], [], "pqkit._native.k has no tests/unit/_native/test_k.py and no line"),
    (GOOD + ["- `pqkit.gone`: `tests/unit/test_a.py`"], [],
     "lists pqkit.gone, which is not a source module"),
    (GOOD + ["- `pqkit.a`: `tests/unit/test_a.py`"], [],
     "pqkit.a is listed in tests/INDEX.md but has tests/unit/test_a.py"),
    ([GOOD[0], "- `pqkit._native.k`: `tests/unit/test_k_gone.py`"], [],
     "names tests/unit/test_k_gone.py (for pqkit._native.k), which does not exist"),
    (GOOD, ["- `tests/unit/test_whole.py`: the package"], "names tests/unit/test_whole.py"),
    (["- `pqkit._native.k`: `tests/unit/test_a.py`"], [],
     "tests/unit/other/test_b_and_k.py is named after no source module and not in"),
], ids=["unlisted-module", "gone-module", "redundant-line", "gone-test-file", "gone-whole-test",
        "stray-test-file"])
def test_each_kind_of_problem_is_found(tmp_path, lines, whole, problem):
    _tree(tmp_path, lines, whole)
    found = test_index.problems(tmp_path)
    assert any(problem in p for p in found), found


def test_write_keeps_true_lines_and_proposes_missing_ones(tmp_path):
    _tree(tmp_path, ["- `pqkit.gone`: `tests/unit/test_a.py`"])
    (tmp_path / "tests/unit/other/test_b_and_k.py").write_text(
        "from pqkit.pkg.b import B\nfrom pqkit._native import k\n")
    text, unreached = test_index.rewrite(tmp_path)
    assert unreached == []
    assert "pqkit.gone" not in text
    assert "- `pqkit.pkg.b`: `tests/unit/other/test_b_and_k.py`\n" in text
    assert "- `pqkit._native.k`: `tests/unit/other/test_b_and_k.py`\n" in text
    assert test_index.problems(tmp_path, text) == []


def test_renames_carry_lines_over_to_the_new_names(tmp_path):
    through_old = "(through pqkit.pkg.old)"
    _tree(tmp_path, ["- `pqkit.pkg.old`: `tests/unit/other/test_b_and_k.py`",
                     f"- `pqkit._native.k`: `tests/unit/other/test_b_and_k.py` {through_old}"])
    (tmp_path / "read.map").write_text("# a comment\nsrc/pqkit/pkg/old.py -> src/pqkit/pkg/b.py\n")
    (tmp_path / "dataset.map").write_text("(new)  -> c      (made up)\nkept   -> kept\n")
    renames = test_index.load_renames(str(tmp_path / "read.map"))
    assert renames == {"pqkit.pkg.old": "pqkit.pkg.b"}
    assert test_index.load_renames(f"{tmp_path / 'dataset.map'}:pqkit.pkg") == {}
    text, _ = test_index.rewrite(tmp_path, renames)
    assert "- `pqkit.pkg.b`: `tests/unit/other/test_b_and_k.py`\n" in text
    assert "(through pqkit.pkg.b)" in text and "pqkit.pkg.old" not in text
    assert test_index.problems(tmp_path, text) == []
