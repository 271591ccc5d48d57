"""Static import checks for a package tree: the layer order, cycles and private names.

Every ``import`` and ``from ... import`` of a module counts, including those
inside functions: a lazy import still ties the two modules together, it only
hides the tie from the interpreter until run time.

The layer order names package prefixes from the bottom up; a module belongs to
the longest prefix that matches it. An import may point to a lower layer, or
stay inside its own layer when the layer allows it (``LAYERS`` entries with
``shared=True``: the stage modules that both roads use), or stay inside its
own package. Anything else, and any cycle between modules, is a violation.
"""
import ast
import os
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


def find_modules(src_root, package):
    """{module name: path} for every .py file of ``package`` under ``src_root``."""
    out = {}
    for dirpath, _, files in os.walk(os.path.join(src_root, package.replace(".", os.sep))):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src_root)[:-3].replace(os.sep, ".")
            out[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return out


def _is_package(path):
    return os.path.basename(path) == "__init__.py"


def _absolute(module, is_package, node):
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module, path, modules, root):
    """(imported module, private name or None) pairs of one file, function-level included."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    pkg = _is_package(path)
    found = []
    bound = {}                                   # local name -> module it refers to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == root or a.name.startswith(root + "."):
                    found.append((a.name, None))
                    if a.asname:
                        bound[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, pkg, node)
            if not (target == root or target.startswith(root + ".")):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in modules:
                    found.append((sub, None))
                    bound[a.asname or a.name] = sub
                else:
                    private = a.name if a.name.startswith("_") and not a.name.startswith("__") \
                        else None
                    found.append((target, private))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in bound and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            found.append((bound[node.value.id], node.attr))
    return found


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
    owner = module if modules.get(module, "").endswith("__init__.py") \
        else module.rsplit(".", 1)[0]
    return owner, f"{module}.{name}"


def _inside(module, package):
    return module == package or module.startswith(package + ".")


def check(src_root, root, layers):
    """Check every module of package ``root`` under ``src_root`` against ``layers``."""
    modules = find_modules(src_root, root)
    report = Report()
    graph = defaultdict(set)
    for mod, path in sorted(modules.items()):
        prefix, rank = _layer_of(mod, layers)
        face = mod == root          # the package's __init__ hands on names from any layer
        for target, private in imports_of(mod, path, modules, root):
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
