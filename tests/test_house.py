"""The layout's rules (docs/architecture.md, "The house"), read from the source: no import
cycles (imports inside functions included), the engine imports nothing from the API, one
module loads the compiled code, nothing asks whether it was built, no source file over
1000 lines (generated tables aside)."""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lazytensor"
PUBLIC = {"lazytensor.nn", "lazytensor.linalg", "lazytensor.fft", "lazytensor.onnx"}
COMPILED = {"lazytensor._kernels", "lazytensor._fastpath"}


def _modules():
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name, path):
    """Every module ``name`` imports, anywhere in the file (absolute names)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _graph():
    modules = _modules()
    known = set(modules) | COMPILED
    return {m: {i for i in _imports(m, p) if i in known and i != m} for m, p in modules.items()}


def test_no_import_cycles():
    graph = {m: {i for i in deps if i != "lazytensor"} for m, deps in _graph().items()}
    state, cycles = {}, []

    def visit(m, path):
        state[m] = "open"
        for n in graph.get(m, ()):
            if state.get(n) == "open":
                cycles.append(" -> ".join(path[path.index(n):] + [n]))
            elif n not in state:
                visit(n, path + [n])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_engine_imports_nothing_from_the_api():
    bad = [f"{m} imports {i}" for m, deps in _graph().items() if m.startswith("lazytensor._engine")
           for i in deps if i.startswith("lazytensor._api") or i in PUBLIC]
    assert not bad, "\n".join(bad)


def test_one_module_loads_the_compiled_code():
    loaders = sorted(m for m, deps in _graph().items() if deps & COMPILED)
    assert loaders == ["lazytensor._engine.native"]


def test_nothing_asks_whether_the_c_extension_is_built():
    switch = re.compile(r"_?fastpath\s+is\s+(not\s+)?None|if\s+not\s+_?fastpath\b")
    bad = [f"{p.relative_to(ROOT)}:{k}" for p in _modules().values()
           for k, line in enumerate(p.read_text().splitlines(), 1) if switch.search(line)]
    assert not bad, "\n".join(bad)


def test_no_source_file_over_1000_lines():
    files = list(PACKAGE.rglob("*.py")) + [p for p in (ROOT / "kernels_c").rglob("*")
                                            if p.suffix in (".c", ".h", ".py")]
    generated = re.compile(r"_data\.h$")     # the math families' generated tables
    long = [f"{p.relative_to(ROOT)} ({n} lines)" for p in files if not generated.search(p.name)
            for n in [len(p.read_text(errors="replace").splitlines())] if n > 1000]
    assert not long, "\n".join(long)
