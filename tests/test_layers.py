"""The layers of runtime_core hold: no import goes up a layer, no two modules import each other
(directly or round a loop), and every package is named in the declaration. Function-local imports
count as dependencies (they hide cycles); imports under `if TYPE_CHECKING:` do not."""
import ast
from pathlib import Path

from runtime_core import CLI_MODULES, LAYERS

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "runtime_core"


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module under runtime_core (packages by their name)."""
    mods = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST):
    """Every Import/ImportFrom in `tree`, function bodies included, `if TYPE_CHECKING:` bodies left out."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _resolve(module: str, path: Path, node, mods: dict) -> set[str]:
    """The project modules one import statement depends on."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in mods}
    if node.level:
        pkg = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        pkg = pkg[:len(pkg) - node.level + 1]
        base = ".".join(pkg + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        out.add(sub if sub in mods else base)
    return {d for d in out if d in mods}


def import_graph() -> tuple[dict[str, set[str]], int]:
    """Module -> the project modules it imports, and the number of function-local imports among them."""
    mods, graph, local = _modules(), {}, 0
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        deps = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local += sum(1 for n in _import_nodes(fn) if _resolve(module, path, n, mods) - {module})
        for node in _import_nodes(tree):
            deps |= _resolve(module, path, node, mods)
        graph[module] = deps - {module}
    return graph, local


def package_of(module: str) -> str:
    """"runtime_core.engine.sim" -> "engine"; a top-level module -> "base"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PKG / parts[1]).is_dir()) else "base"


def rank(module: str) -> float:
    """A module's height: its package's layer, plus a half for a CLI module (the top of its layer)."""
    if module in CLI_MODULES or module.rsplit(".", 1)[-1].endswith("cli"):
        return (max(LAYERS.values()) + 1 if module in CLI_MODULES else LAYERS[package_of(module)]) + 0.5
    return LAYERS[package_of(module)]


def up_imports(graph) -> list[str]:
    return sorted(f"{m} -> {d}" for m, ds in graph.items() for d in ds if rank(d) > rank(m))


def cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_package_is_declared():
    packages = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS) and "base" in LAYERS, sorted(packages - set(LAYERS))


def test_no_import_goes_up_a_layer():
    graph, _ = import_graph()
    assert not up_imports(graph), "\n".join(up_imports(graph))


def test_no_import_cycle():
    graph, _ = import_graph()
    found = cycles(graph)
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_the_checks_would_catch_an_up_import_and_a_cycle():
    graph = {"runtime_core.engine.a": {"runtime_core.diagnose.b"}, "runtime_core.diagnose.b": {"runtime_core.engine.a"}}
    assert up_imports(graph) == ["runtime_core.engine.a -> runtime_core.diagnose.b"]
    assert cycles(graph) == [sorted(graph)]
    assert rank("runtime_core.cli") > rank("runtime_core.lesson.checkpoint") > rank("runtime_core.knobs")
    assert rank("runtime_core.allocator.cli") > rank("runtime_core.allocator.plan")


def test_function_local_and_type_checking_imports_are_told_apart(tmp_path):
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .x import A\n"
           "def f():\n    from .y import B\n")
    kinds = [type(n).__name__ for n in _import_nodes(ast.parse(src))]
    assert kinds.count("ImportFrom") == 2  # typing's and the function's; the TYPE_CHECKING one is left out
