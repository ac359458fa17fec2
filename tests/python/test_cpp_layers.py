"""The layering of the C++ code, read from its #include lines (docs/architecture.md draws it): each
layer includes only those below it (cli/ over output/ and sim/, both over input/, which is over
models/); in models/ the families include one another without a loop, and no family includes the
files at the root, which only gather (spec.hpp, run.hpp)."""

import re

from conftest import REPO

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)
# What each layer may include besides itself.
LAYERS = {
    "models": set(),
    "input": {"models"},
    "sim": {"models", "input"},
    "output": {"models", "input"},
    "cli": {"models", "input", "sim", "output"},
}


def sources(layer):
    return sorted(p for p in (REPO / layer).rglob("*") if p.suffix in (".cpp", ".hpp"))


def includes(path):
    """(top folder, rest of the path) of each project include in `path`."""
    return INCLUDE.findall(path.read_text())


def family(parts):
    """A models/ file's family: its folder below models/, or "root" for the files at models/."""
    return parts[0] if len(parts) > 1 else "root"


def test_each_layer_includes_only_those_below_it():
    bad = []
    for layer, allowed in LAYERS.items():
        for path in sources(layer):
            for top, _ in includes(path):
                if top in LAYERS and top != layer and top not in allowed:
                    bad.append(f"{path.relative_to(REPO)} includes {top}/")
    assert bad == [], "\n".join(bad)


def family_edges():
    """{(from family, to family)} of the includes between folders of models/."""
    out = set()
    for path in sources("models"):
        here = family(path.relative_to(REPO / "models").parts)
        for top, rest in includes(path):
            if top == "models":
                there = family(rest.split("/"))
                if there != here:
                    out.add((here, there))
    return out


def find_loop(graph):
    """The first loop of `graph` ({node: set of nodes it points to}) as a trail [a, ..., a], or
    None."""
    state = {}

    def visit(node, trail):
        if state.get(node) == "done":
            return None
        if state.get(node) == "open":
            return trail + [node]
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            loop = visit(nxt, trail + [node])
            if loop:
                return loop
        state[node] = "done"
        return None

    for node in sorted(graph):
        loop = visit(node, [])
        if loop:
            return loop[loop.index(loop[-1]):]
    return None


def test_models_families_include_each_other_without_a_loop():
    edges = family_edges()
    assert sorted(a for a, b in edges if b == "root") == [], "families that include a file at models/'s root"
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    assert find_loop(graph) is None, "a loop between families: " + " -> ".join(find_loop(graph))
    # The order docs/architecture.md gives.
    assert ("exchange", "daemon") in edges and ("query", "exchange") in edges


def test_find_loop_finds_a_loop():
    assert find_loop({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]
    assert find_loop({"a": {"b"}, "b": {"c"}}) is None
