"""Static import checks for a package tree: the layer order, cycles and private names.

Every ``import`` and ``from ... import`` of a module counts, including those
inside functions: a lazy import still ties the two modules together, it only
hides the tie from the interpreter until run time. Cython sources (``.pyx``,
``.pxd``) count too, their ``cimport`` included: a kernel that imports a
Python module depends on it as much as a ``.py`` file does.

The layer order names package prefixes from the bottom up; a module belongs to
the longest prefix that matches it. An import may point to a lower layer, or
stay inside its own layer when the layer allows it (``LAYERS`` entries with
``shared=True``: the stage modules that both roads use), or stay inside its
own package. Anything else, and any cycle between modules, is a violation.

The layer order itself is read from a Markdown table (:func:`layers_from_markdown`),
so the document that states it and the test that enforces it cannot drift apart.
"""
import ast
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Layer:
    name: str
    prefixes: tuple
    shared: bool = False      # packages of this layer may import each other


@dataclass
class Report:
    upward: list = field(default_factory=list)     # (importer, imported, why)
    cycles: list = field(default_factory=list)     # [module, ..., module]
    private: list = field(default_factory=list)    # (importer, what)

    @property
    def ok(self):
        return not (self.upward or self.cycles or self.private)


def find_modules(src_root, package, suffixes=(".py",)):
    """{module name: [paths]} for every file of ``package`` under ``src_root`` ending in
    one of ``suffixes`` (a ``.pyx`` and its ``.pxd`` are one module)."""
    out = {}
    for dirpath, _, files in os.walk(os.path.join(src_root, package.replace(".", os.sep))):
        for f in sorted(files):
            stem, ext = os.path.splitext(f)
            if ext not in suffixes:
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(os.path.join(dirpath, stem), src_root).replace(os.sep, ".")
            name = rel[:-len(".__init__")] if rel.endswith(".__init__") else rel
            out.setdefault(name, []).append(path)
    return out


def _is_package(path):
    return os.path.splitext(os.path.basename(path))[0] == "__init__"


def _absolute(module, is_package, node):
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


class _Import:
    """One ``import`` or ``from ... import`` statement, as the checks need it."""

    def __init__(self, names, module=None, level=0):
        self.names, self.module, self.level = names, module, level    # names: [(name, asname)]


def _python_imports(text, path):
    """(statements, tree) of a Python file."""
    tree = ast.parse(text, path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.append(_Import([(a.name, a.asname) for a in node.names]))
        elif isinstance(node, ast.ImportFrom):
            out.append(_Import([(a.name, a.asname) for a in node.names], node.module or "",
                               node.level))
    return out, tree


_STRINGS = re.compile(r'""".*?"""|\'\'\'.*?\'\'\'', re.S)
_CY_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+c?import[ \t]+"
                      r"(\([^)]*\)|[^\n#]*)", re.M)
_CY_IMPORT = re.compile(r"^[ \t]*c?import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?"
                        r"(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)", re.M)


def _names(text):
    """[(name, asname)] of an import list such as ``(a, b as c)``."""
    out = []
    for part in text.strip().strip("()").split(","):
        words = part.split()
        if words:
            out.append((words[0], words[2] if len(words) == 3 and words[1] == "as" else None))
    return out


def _cython_imports(text):
    """The import and cimport statements of a Cython file (docstrings and comments
    aside), each a :class:`_Import`."""
    text = _STRINGS.sub("", text)
    out = [_Import(_names(m.group(3)), m.group(2), len(m.group(1)))
           for m in _CY_FROM.finditer(text)]
    out += [_Import(_names(m.group(1))) for m in _CY_IMPORT.finditer(text)]
    return out


def imports_of(module, path, modules, root):
    """(imported module, private name or None) pairs of one file, function-level included."""
    text = open(path, encoding="utf-8").read()
    if path.endswith(".py"):
        statements, tree = _python_imports(text, path)
    else:
        statements, tree = _cython_imports(text), None
    pkg = _is_package(path)
    found = []
    bound = {}                                   # local name -> module it refers to
    for st in statements:
        if st.module is None:
            for name, asname in st.names:
                if name == root or name.startswith(root + "."):
                    found.append((name, None))
                    if asname:
                        bound[asname] = name
            continue
        target = _absolute(module, pkg, st)
        if not (target == root or target.startswith(root + ".")):
            continue
        for name, asname in st.names:
            sub = f"{target}.{name}"
            if sub in modules:
                found.append((sub, None))
                bound[asname or name] = sub
            else:
                private = name if name.startswith("_") and not name.startswith("__") \
                    else None
                found.append((target, private))
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in bound and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            found.append((bound[node.value.id], node.attr))
    return list(dict.fromkeys(found))           # one report per tie, however many names


def _layer_of(module, layers):
    best, rank = None, None
    for i, layer in enumerate(layers):
        for p in layer.prefixes:
            if (module == p or module.startswith(p + ".")) and \
                    (best is None or len(p) > len(best)):
                best, rank = p, i
    return best, rank


def _owner_of_private(module, modules, name=None):
    """The package inside which a private name may be used: for ``_x`` taken from module
    M, M's package; for a private path component ``a._b``, the package ``a``."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i]), ".".join(parts[:i + 1])
    if name is None:
        return None, None
    owner = module if any(_is_package(p) for p in modules.get(module, ())) \
        else module.rsplit(".", 1)[0]
    return owner, f"{module}.{name}"


def _inside(module, package):
    return module == package or module.startswith(package + ".")


def check(src_root, root, layers, native_roots=()):
    """Check every module of package ``root`` under ``src_root`` (and the Cython sources
    of the same package under each of ``native_roots``) against ``layers``."""
    modules = find_modules(src_root, root)
    for native in native_roots:
        for name, paths in find_modules(native, root, (".pyx", ".pxd")).items():
            modules.setdefault(name, []).extend(paths)
    report = Report()
    graph = defaultdict(set)
    for mod, paths in sorted(modules.items()):
        prefix, rank = _layer_of(mod, layers)
        face = mod == root          # the package's __init__ hands on names from any layer
        for target, private in (i for p in paths for i in imports_of(mod, p, modules, root)):
            if target != mod and target in modules:
                graph[mod].add(target)
            owner, what = _owner_of_private(target, modules, private)
            if owner is not None and not _inside(mod, owner):
                report.private.append((mod, what))
            if face or target == mod or _inside(mod, target) or target == root:
                continue
            t_prefix, t_rank = _layer_of(target, layers)
            if rank is None or t_rank is None:
                report.upward.append((mod, target, "not in the layer order"))
            elif t_rank > rank:
                report.upward.append((mod, target, f"{layers[rank].name} imports the higher "
                                      f"layer {layers[t_rank].name}"))
            elif t_rank == rank and t_prefix != prefix and not layers[rank].shared:
                report.upward.append((mod, target, f"{prefix} and {t_prefix} are side by side "
                                      f"in layer {layers[rank].name}"))
    report.cycles = find_cycles(graph)
    return report


def find_cycles(graph):
    """Each strongly connected component of more than one module, as a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def layers_from_markdown(text, root, heading="## Layer order"):
    """The layer order stated by the first table under ``heading`` in a Markdown text.

    A row reads ``| 3 stage modules | `levels`, `page` | yes |``: the layer's number and
    name, its packages in backquotes (relative to ``root``) and whether they may import
    each other (the cell starts with "yes"). Rows are bottom to top; a row without
    packages, or a missing table, raises ValueError.
    """
    start = text.find(heading + "\n")
    if start < 0:
        raise ValueError(f"no {heading!r} section")
    rows = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    layers = []
    for cells in rows[2:]:                          # after the header and its rule
        packages = re.findall(r"`([^`]+)`", cells[1]) if len(cells) > 1 else []
        if not packages:
            raise ValueError(f"layer row without packages: {'|'.join(cells)}")
        name = re.sub(r"^\w*\d\w*\s+", "", cells[0])
        shared = len(cells) > 2 and cells[2].lower().startswith("yes")
        layers.append(Layer(name, tuple(f"{root}.{p}" for p in packages), shared))
    if not layers:
        raise ValueError(f"no layer table under {heading!r}")
    return layers
