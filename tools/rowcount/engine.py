"""The SQL engine that counts rows: DuckDB, from the npm registry's @duckdb/node-api.

Why DuckDB: the counts are analytic scans and hash joins over fact tables of tens of millions of
rows; a vectorised, parallel column store does them in seconds on two cores where a row store
takes minutes, and it reads dsdgen's '|'-separated files directly. Debian has no DuckDB package;
npm ships the engine with a small Node.js API, and Debian's nodejs runs it.

The package is installed on first use into build/node (gitignored), pinned by
tools/rowcount/package.json; `duckdb_run.mjs` there executes a batch of statements and prints
one JSON line per statement.
"""

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NODE_DIR = os.environ.get("EXSIM_NODE_DIR", os.path.join(REPO, "build", "node"))
FILES = ("package.json", "duckdb_run.mjs")


class EngineError(Exception):
    """The engine could not be installed or started (not a failing statement: those are results)."""


def _say(msg):
    print("rowcount: %s" % msg, file=sys.stderr, flush=True)


def ensure_installed(node_dir=NODE_DIR):
    """Install the pinned package into node_dir unless it is there; returns the runner's path."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise EngineError("Node.js and npm are needed (Debian: apt-get install nodejs npm)")
    os.makedirs(node_dir, exist_ok=True)
    changed = False
    for name in FILES:
        src = os.path.join(HERE, name)
        dst = os.path.join(node_dir, name)
        with open(src, "rb") as f:
            data = f.read()
        if not os.path.exists(dst) or open(dst, "rb").read() != data:
            with open(dst + ".tmp", "wb") as f:
                f.write(data)
            os.replace(dst + ".tmp", dst)
            changed = changed or name == "package.json"
    if changed or not os.path.isdir(os.path.join(node_dir, "node_modules", "@duckdb", "node-api")):
        _say("installing DuckDB from the npm registry into %s (first use only)" % node_dir)
        r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=node_dir,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise EngineError("npm install in %s failed: %s" % (node_dir, (r.stderr or r.stdout).strip()[-2000:]))
    return os.path.join(node_dir, "duckdb_run.mjs")


def run(statements, database=":memory:", threads=None, node_dir=NODE_DIR, on_result=None, read_only=False,
        timeout_s=None):
    """Run [(id, sql)] in one DuckDB session; returns {id: {"rows": [[...]], "seconds"} or {"error"}}.
    `on_result(id, result)` is called as each statement finishes (progress on long batches); a
    read-only session shares its database file with other readers; a statement running longer than
    timeout_s is interrupted and answers an error."""
    runner = ensure_installed(node_dir)
    job = {"database": database, "read_only": read_only,
           "statements": [{"id": i, "sql": s} for i, s in statements]}
    if threads:
        job["threads"] = threads
    if timeout_s:
        job["timeout_s"] = timeout_s
    proc = subprocess.Popen(["node", runner], cwd=node_dir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdin.write(json.dumps(job))
    proc.stdin.close()
    out = {}
    for line in proc.stdout:
        res = json.loads(line)
        sid = res.pop("id")
        out[sid] = res
        if on_result is not None:
            on_result(sid, res)
    err = proc.stderr.read()
    if proc.wait() != 0:
        raise EngineError("DuckDB runner exited %d: %s" % (proc.returncode, err.strip()[-2000:]))
    return out


def count(sql_by_id, database, threads=None, on_result=None):
    """{id: SELECT count(*) ...} -> {id: int or error text}."""
    res = run(list(sql_by_id.items()), database, threads, on_result=on_result)
    return {k: (int(v["rows"][0][0]) if "rows" in v else v["error"]) for k, v in res.items()}
