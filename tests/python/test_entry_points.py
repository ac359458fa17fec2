"""Every Python entry point starts the same way: an executable file with the system interpreter's
shebang, the standard library's imports, then the one line that puts the repository root on
sys.path when it runs as a script, then everything else; it ends with sys.exit(main()).
Entry points are the scripts at the root and at the top of analysis/ and tools/; the modules of
the packages below (tools/tpcds, tools/impala_profile) are started through those scripts, or, for
tools/impala_profile, with `python3 -m` by exsim."""

import ast
import os
import sys

from conftest import REPO

SHEBANG = "#!/usr/bin/python3\n"
PREAMBLE = ("if not __package__:  # run as a script: the repository root on sys.path, as for every entry point\n"
            "    sys.path.insert(0, str(Path(__file__).resolve().parents[{}]))\n")
ENDING = '\n\nif __name__ == "__main__":\n    sys.exit(main())\n'
GUARD = 'if __name__ == "__main__":'


def python_files():
    for folder in ("", "analysis", "common", "tools"):
        pattern = "*.py" if not folder else "**/*.py"
        yield from sorted((REPO / folder).glob(pattern) if folder else REPO.glob(pattern))


def entry_points():
    return [p for p in python_files() if GUARD in p.read_text(encoding="utf-8")]


def test_entry_points_are_the_scripts_at_the_top():
    scripts = [str(p.relative_to(REPO)) for p in entry_points()]
    assert {"run_sweep.py", "analysis/report.py", "tools/tpcds_workload.py"} <= set(scripts)
    deeper = [s for s in scripts if s.count("/") > 1]
    assert not deeper, f"started through a script at the top instead: {deeper}"


def test_every_entry_point_starts_and_ends_the_same_way():
    for path in entry_points():
        name = path.relative_to(REPO)
        text = path.read_text(encoding="utf-8")
        assert text.startswith(SHEBANG), f"{name}: no {SHEBANG.strip()} line"
        assert os.access(path, os.X_OK), f"{name}: not executable"
        preamble = PREAMBLE.format(len(name.parts) - 1)
        assert text.count(preamble) == 1, f"{name}: not the one preamble:\n{preamble}"
        assert text.endswith(ENDING), f"{name}: does not end with{ENDING}"
        before = ast.parse(text[:text.index(preamble)])
        for node in before.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                outside = [m for m in modules if m.split(".")[0] not in sys.stdlib_module_names]
                assert not outside, f"{name}: {outside} imported before the repository root is on sys.path"


def test_no_module_below_the_scripts_carries_the_preamble():
    stray = [str(p.relative_to(REPO)) for p in python_files()
             if "__package__" in p.read_text(encoding="utf-8") and p not in entry_points()]
    assert not stray, stray
