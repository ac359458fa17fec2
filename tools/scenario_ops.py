"""Walking a scenario's operator trees (schema 2's `queries[].fragments[].root`), for the Python that
reads or rewrites them: the TPC-DS generator, its uncertainty study and the profile importer."""


def children(op):
    """(key, child) pairs of an operator, the main input first: `input`, `probe`, `build` (an operator,
    or {"fragment": id} of a join-build fragment), then a union's `inputs` (key "inputs")."""
    out = [(k, op[k]) for k in ("input", "probe", "build") if isinstance(op.get(k), dict)]
    return out + [("inputs", c) for c in op.get("inputs") or []]


def op_children(op):
    """The children that are operators (a join-build fragment's reference left out)."""
    return [(k, c) for k, c in children(op) if "op" in c]


def walk_ops(op):
    """Every operator of a scenario operator tree, the root first."""
    yield op
    for _, c in op_children(op):
        yield from walk_ops(c)
