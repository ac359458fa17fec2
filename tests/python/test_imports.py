"""The layering of the Python code: common/ at the bottom, analysis/ and tools/ above it, no import
cycle among their modules, and no import of a repository module inside a function (the way a cycle
is hidden). Read from the source with ast, so that an import in a branch or a function counts too."""

import ast
from pathlib import Path

from conftest import REPO

PACKAGES = ("common", "analysis", "tools")
SCRIPTS = ("run_sweep.py",)


def module_files():
    """{module name: path} of every module of the packages, and the scripts at the root."""
    out = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    for script in SCRIPTS:
        out[Path(script).stem] = REPO / script
    return out


def imported_names(node, module, is_package):
    """The dotted names an import statement brings in (relative ones resolved against module)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor if is_package else anchor[:-1]
        anchor = anchor[:len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    return [base] + [f"{base}.{a.name}" for a in node.names]


def edges(modules):
    """{module: {(imported repository module, line, inside a function)}}: a name counts with every
    package above it, since importing it runs their __init__ first."""
    out = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found = set()

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for dotted in imported_names(child, name, path.name == "__init__.py"):
                        parts = dotted.split(".")
                        for i in range(1, len(parts) + 1):
                            target = ".".join(parts[:i])
                            if target in modules and target != name:
                                found.add((target, child.lineno, inside))
                visit(child, inside)

        visit(tree, False)
        out[name] = found
    return out


def find_cycle(graph):
    """One cycle of the graph {node: {successors}} as a list of nodes, or None."""
    state = {}
    stack = []

    def dfs(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = dfs(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = dfs(node)
            if cycle:
                return cycle
    return None


def test_the_modules_import_each_other_without_a_cycle():
    modules = module_files()
    assert {"common.atomic", "common.exsim_runner", "common.tables", "analysis.report", "tools.tpcds.workload"} \
        <= set(modules)
    graph = {name: {target for target, _, _ in found} for name, found in edges(modules).items()}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_repository_module_is_imported_inside_a_function():
    """A function-local import of the repository's own code hides a cycle; an optional or heavy
    dependency from outside (matplotlib, dask, thrift) may be imported where it is needed."""
    modules = module_files()
    deepest = {}
    for name, found in edges(modules).items():
        for target, line, inside in found:
            where = f"{modules[name].relative_to(REPO)}:{line}"
            if inside and len(target) > len(deepest.get(where, "")):
                deepest[where] = target
    local = sorted(f"{where} imports {target}" for where, target in deepest.items())
    assert not local, "\n".join(local)


def test_common_imports_nothing_else_of_the_repository():
    modules = module_files()
    above = sorted(f"{name} imports {target}" for name, found in edges(modules).items() if name.startswith("common")
                   for target, _, _ in found if not target.startswith("common"))
    assert not above, "\n".join(above)


def test_the_check_sees_a_cycle_and_a_local_import(tmp_path):
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("from pkg import b\n")
    b.write_text("def f():\n    from pkg import a\n")
    found = edges({"pkg.a": a, "pkg.b": b})
    graph = {name: {t for t, _, _ in f} for name, f in found.items()}
    assert find_cycle(graph) in (["pkg.a", "pkg.b", "pkg.a"], ["pkg.b", "pkg.a", "pkg.b"])
    assert ("pkg.a", 2, True) in found["pkg.b"]
