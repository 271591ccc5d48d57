"""Which source module is tested where: tests/INDEX.md checked against the tree.

Unit tests mirror the source: the tests of ``src/pqkit/a/b.py`` (or of the kernel
``cython/pqkit/a/b.pyx``) are ``tests/unit/a/test_b.py``. A module without such a file
needs a line in tests/INDEX.md naming the test files that test it; a test file under
tests/unit that is named after no module must be named in the index (a test of the
package as a whole, or the place some other module is tested). A module that defines no
function or class (re-exports, generated tables, import shims) needs neither.

    python tools/test_index.py            # list what is missing or stale; exit 1 if any
    python tools/test_index.py --write    # rewrite the index: keep the lines that are
                                          # still true, drop the stale, propose the missing
    python tools/test_index.py --write --renames MAP[:PACKAGE] ...
                                          # first carry lines over to moved modules' new
                                          # names: MAP has "old -> new" lines, each a source
                                          # path or a dotted name (under PACKAGE if given)

Proposed locations come from the tests' imports: the test files that import the module,
else (marked "through ...") those importing the nearest module above it in the source's
import graph that a test imports -- a module tested only that way has no test of its own.
"""
import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX = Path("tests/INDEX.md")
OTHER_NAMES = "## Modules tested under other names"
WHOLE = "## Tests of the package as a whole"
_TICKED = re.compile(r"`([^`]+)`")
_IMPORT_CALL = re.compile(r"import_module\(\s*[\"'](pqkit[\w.]*)[\"']")
_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(pqkit(?:\.\w+)*)\s+c?import\s+([\w ,]+)"
                         r"|c?import\s+(pqkit(?:\.\w+)*))", re.M)


def _dotted(rel):
    """pqkit/a/b.py -> pqkit.a.b; pqkit/a/__init__.py -> pqkit.a."""
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files(root=ROOT):
    """Every source module's dotted name -> its file, Python and Cython."""
    files = {}
    for base, pattern in (("src", "pqkit/**/*.py"), ("cython", "pqkit/**/*.pyx")):
        for path in sorted((root / base).glob(pattern)):
            files[_dotted(path.relative_to(root / base))] = path
    return files


def _defines_code(path):
    if path.suffix == ".pyx":
        return True
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for node in ast.walk(tree))


def modules_needing_tests(files):
    return sorted(name for name, path in files.items() if _defines_code(path))


def mirror_of(module, files):
    """tests/unit/... path named after ``module``; None for a package's __init__."""
    if files[module].stem == "__init__":
        return None
    parts = module.split(".")[1:]
    return Path("tests/unit", *parts[:-1], f"test_{parts[-1]}.py")


def unit_test_files(root=ROOT):
    return sorted(p.relative_to(root) for p in (root / "tests/unit").rglob("test_*.py"))


def _mirrored_module(test_file):
    """The dotted module a tests/unit file is named after (whether or not it exists)."""
    parts = test_file.relative_to("tests/unit").with_suffix("").parts
    return ".".join(("pqkit",) + parts[:-1] + (parts[-1][len("test_"):],))


def read_index(text):
    """(module -> [test files], {test file: description}) from the index's two lists."""
    where, whole, section = {}, {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line.strip()
        elif line.startswith("- `") and section in (OTHER_NAMES, WHOLE):
            ticked = _TICKED.findall(line)
            if section == OTHER_NAMES:
                where[ticked[0]] = [t for t in ticked[1:] if t.startswith("tests/")]
            else:
                whole[ticked[0]] = line.split(":", 1)[1].strip() if ":" in line else ""
    return where, whole


def problems(root=ROOT, index_text=None):
    """What keeps the index from being true, one sentence each."""
    if index_text is None:
        index_text = (root / INDEX).read_text(encoding="utf-8")
    files = source_files(root)
    where, whole = read_index(index_text)
    found = []
    for module in modules_needing_tests(files):
        mirror = mirror_of(module, files)
        if mirror is not None and (root / mirror).is_file():
            if module in where:
                found.append(f"{module} is listed in {INDEX} but has {mirror}: drop the line")
        elif module not in where:
            found.append(f"{module} has no {mirror or 'test file of its name'} "
                         f"and no line in {INDEX}")
    for module, tests in where.items():
        if module not in files:
            found.append(f"{INDEX} lists {module}, which is not a source module")
        if not tests:
            found.append(f"{INDEX} lists {module} without a test file")
        found += [f"{INDEX} names {t} (for {module}), which does not exist"
                  for t in tests if not (root / t).is_file()]
    found += [f"{INDEX} names {t}, which does not exist"
              for t in whole if not (root / t).is_file()]
    named = {t for tests in where.values() for t in tests} | set(whole)
    for test in unit_test_files(root):
        if _mirrored_module(test) not in files and test.as_posix() not in named:
            found.append(f"{test} is named after no source module and not in {INDEX}")
    return found


# --- proposing locations ------------------------------------------------------------------

def _import_pairs(text, suffix, package=""):
    """(package or module, imported name or None) for each import of a source text;
    ``package`` resolves relative imports."""
    if suffix == ".pyx":
        for pkg, names, plain in _PYX_IMPORT.findall(text):
            if plain:
                yield plain, None
            else:
                yield from ((pkg, n.split()[0]) for n in names.split(",") if n.strip())
        return
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module) if p)
            yield from ((module, a.name) for a in node.names)


def _reexports(files):
    """{(package, name): defining module} for the names a package's __init__ imports from
    its modules, so that ``from pqkit.variant import VariantMetadata`` counts as a use of
    pqkit.variant.metadata."""
    out = {}
    for module, path in files.items():
        if path.name == "__init__.py":
            for source, name in _import_pairs(path.read_text(encoding="utf-8"), ".py", module):
                if name is not None and source in files and source != module:
                    out[(module, name)] = source
    return out


def _imports(path, known, package="", mentions=False, reexports=None):
    """The known dotted modules a file imports (``from pqkit.a import b`` counts pqkit.a.b,
    and with ``reexports`` the module a package's name comes from); with ``mentions``,
    ``importlib.import_module("pqkit.a.b")`` too."""
    text = path.read_text(encoding="utf-8")
    out = set()
    for module, name in _import_pairs(text, path.suffix, package):
        out.add(module)
        if name is not None:
            out.add(f"{module}.{name}")
            out.add((reexports or {}).get((module, name), module))
    if mentions:
        out |= set(_IMPORT_CALL.findall(text))
    return {m for m in out if m in known}


def _tests_importing(root, files):
    importers, reexports = {}, _reexports(files)
    tests = sorted((p.relative_to(root) for p in (root / "tests").rglob("test_*.py")),
                   key=lambda p: (p.parts[1] != "unit", p))       # unit tests first
    for test in tests:
        rel = test.as_posix()
        for module in _imports(root / test, files, mentions=True, reexports=reexports):
            importers.setdefault(module, []).append(rel)
    return importers


def _source_importers(files):
    graph = {}
    for module, path in files.items():
        package = module if path.stem == "__init__" else module.rpartition(".")[0]
        for used in _imports(path, files, package):
            if used != module:
                graph.setdefault(used, set()).add(module)
    return graph


def propose(module, files, tested_by, importers, root=ROOT):
    """(test files, the modules it is reached through) for an index line: a test file of
    the module's name in the tests' folder of its package (tests/cli/ for pqkit.cli.x),
    else the tests importing it, else those importing the nearest module above it
    (unit tests preferred)."""
    parts = module.split(".")
    if len(parts) > 2:
        named = root / "tests" / parts[1] / f"test_{parts[-1]}.py"
        if named.is_file():
            return [named.relative_to(root).as_posix()], []
    if tested_by.get(module):
        return tested_by[module], []
    came_from, frontier, best = {module: None}, [module], None
    while frontier and best is None:
        reached = []
        for here in frontier:
            for above in sorted(importers.get(here, ())):
                if above not in came_from and above != "pqkit":  # the root reaches everything
                    came_from[above] = here
                    reached.append(above)
        tested = [m for m in reached if tested_by.get(m)]
        if tested:
            best = min(tested, key=lambda m: (not tested_by[m][0].startswith("tests/unit/"), m))
        frontier = reached
    if best is None:
        return [], []
    chain, step = [], best
    while step != module:
        chain.append(step)
        step = came_from[step]
    return tested_by[best], chain[::-1]


def load_renames(spec):
    """{old dotted module: new} from a map of "old -> new" lines ("MAP" or "MAP:PACKAGE");
    lines whose left side is not a module name, such as "(new)", are skipped."""
    path, _, package = spec.partition(":")
    renames = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or "->" not in line:
            continue
        old, new = (side.split()[0] if side.split() else "" for side in line.split("->", 1))
        names = []
        for name in (old, new):
            if name.endswith(".py"):
                name = _dotted(Path(name).relative_to("src"))
            elif package and not name.startswith("pqkit"):
                name = f"{package}.{name}"
            names.append(name)
        if all(re.fullmatch(r"pqkit(\.\w+)*", n) for n in names) and names[0] != names[1]:
            renames[names[0]] = names[1]
    return renames


def _line(module, tests, chain):
    where = ", ".join(f"`{t}`" for t in tests[:4])
    more = f" and {len(tests) - 4} more" if len(tests) > 4 else ""
    through = f" (through {', '.join(chain)})" if chain else ""
    return f"- `{module}`: {where}{more}{through}"


def rewrite(root=ROOT, renames=None):
    """The index text with stale lines dropped and missing ones proposed; and the modules
    no test reaches at all. ``renames`` ({old: new}) first carries the lines over to the
    moved modules' new names."""
    path = root / INDEX
    text = path.read_text(encoding="utf-8")
    files = source_files(root)
    head, _, lists = text.partition(OTHER_NAMES)
    for old, new in (renames or {}).items():
        if new in files:          # old may stay behind as an import shim: lines use the new
            lists = re.sub(rf"(?<![\w.]){re.escape(old)}(?!\w)", new, lists)
    text = head + OTHER_NAMES + lists
    where, whole = read_index(text)
    tested_by = _tests_importing(root, files)
    importers = _source_importers(files)
    lines, unreached = {}, []
    for module in modules_needing_tests(files):
        mirror = mirror_of(module, files)
        if mirror is not None and (root / mirror).is_file():
            continue
        kept = [t for t in where.get(module, []) if (root / t).is_file()]
        if kept:
            old = next(l for l in text.splitlines() if l.startswith(f"- `{module}`"))
            lines[module] = old if kept == where[module] else _line(module, kept, [])
            continue
        tests, chain = propose(module, files, tested_by, importers, root)
        if tests:
            lines[module] = _line(module, tests, chain)
        else:
            unreached.append(module)
    whole_lines = [l for l in text.splitlines() if l.startswith("- `")
                   and _TICKED.findall(l)[0] in whole and (root / _TICKED.findall(l)[0]).is_file()]
    head = text.split(OTHER_NAMES)[0].rstrip("\n")
    out = [head, "", OTHER_NAMES, ""] + [lines[m] for m in sorted(lines)]
    out += ["", WHOLE, ""] + whole_lines
    return "\n".join(out) + "\n", unreached


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite tests/INDEX.md")
    parser.add_argument("--renames", nargs="+", default=[], metavar="MAP[:PACKAGE]",
                        help="maps of moved modules, old -> new, for --write")
    args = parser.parse_args(argv)
    if args.write:
        renames = {}
        for spec in args.renames:
            renames.update(load_renames(spec))
        text, unreached = rewrite(renames=renames)
        (ROOT / INDEX).write_text(text, encoding="utf-8")
        for module in unreached:
            print(f"{module}: no test reaches it; add its line by hand")
    found = problems()
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
