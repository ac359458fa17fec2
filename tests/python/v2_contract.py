"""A structural check of a schema_version 2 scenario against the format contract (whole queries:
cluster, flags, costs, queries[] of fragments, operator trees and exchanges), for tests.

The committed JSON Schema (scenarios/scenario.schema.json) is generated from the simulator's
parameter table and describes schema_version 1 only; until the simulator loads version 2 and the
schema covers it, the imported scenarios are checked here instead: unknown keys, types, ranges,
references between fragments, exchanges and join builds, and the query-level exchange keys the
contract forbids.

    problems = v2_contract.check(scenario)   # [] when the scenario conforms

The keys of cluster, flags, costs and exchanges come from the simulator's parameter table
(`exsim params --format json`); the structure (operators, fragments, references) is this file's.
"""

from common import exsim_runner

TOP = {"schema_version", "name", "description", "seed", "provenance", "query_order", "cluster", "flags", "costs",
       "exchange_defaults", "exchanges", "queries"}


def table_keys():
    """{section: {name: row}} of the simulator's parameter table (`exsim params --format json` of
    $EXSIM, else build/exsim, else its committed copy: exsim_runner.parameter_rows), read once: the
    keys a scenario may hold and their defaults come from there, not from lists of this file's own."""
    global _KEYS
    if _KEYS is None:
        _KEYS = exsim_runner.parameter_rows()
    return _KEYS


_KEYS = None


def cluster_keys():
    return set(table_keys()["cluster"])


def flag_keys():
    return set(table_keys()["flags"])


def cost_keys():
    return set(table_keys()["costs"])


def query_exchange_keys():
    """An exchange's keys inside a query: the table's, without those of a standalone exchange."""
    return {k for k, row in table_keys()["exchange"].items() if not row["standalone_only"]}


def exchange_cpu_keys():
    return {k for k in query_exchange_keys() if k.endswith(("_ns_per_row", "_ns_per_byte"))}


def standalone_exchange_keys():
    """Keys of a standalone exchange (exchanges[]) that a query's exchange may not hold."""
    return {k for k, row in table_keys()["exchange"].items() if row["standalone_only"]}


PARTITIONINGS = {"HASH_PARTITIONED", "RANDOM", "UNPARTITIONED", "KUDU", "DIRECTED"}
QUERY = {"name", "source", "fragments", "exchanges", "parallel", "expected"}
FRAGMENT = {"id", "executors", "first_executor", "instances_per_executor", "root", "sink"}
OPS = {
    "scan": ({"table", "rows"}, {"rows_read", "scan_ranges", "instance_weights", "runtime_filters"}),
    "exchange": ({"exchange"}, set()),
    "hash_join": ({"probe", "build", "rows"}, {"shared"}),
    "nested_loop_join": ({"probe", "build", "rows"}, {"shared"}),
    "aggregate": ({"input", "phase", "rows"}, {"groups"}),
    "sort": ({"input", "rows"}, set()),
    "top_n": ({"input", "rows"}, {"limit", "partitioned"}),  # limit unless partitioned
    "analytic": ({"input", "rows"}, set()),
    "select": ({"input", "rows"}, set()),
    "limit": ({"input", "limit", "rows"}, set()),
    "union": ({"inputs", "rows"}, set()),
}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check(sc):
    p = []

    def need(cond, path, what):
        if not cond:
            p.append(f"{path}: {what}")

    need(isinstance(sc, dict), "$", "an object")
    if not isinstance(sc, dict):
        return p
    for k in sorted(set(sc) - TOP):
        p.append(f"{k}: unknown top-level key")
    need(sc.get("schema_version") == 2, "schema_version", "2")
    need(isinstance(sc.get("provenance", {}), dict), "provenance", "an object")
    order = table_keys()["scenario"]["query_order"]
    need(sc.get("query_order", order["default"]) in order["choices"], "query_order", "/".join(order["choices"]))
    cl = sc.get("cluster", {})
    for k in sorted(set(cl) - cluster_keys()):
        p.append(f"cluster.{k}: unknown key")
    executors = cl.get("executors", table_keys()["cluster"]["executors"]["default"])
    need(_is_int(executors) and 1 <= executors <= 1000, "cluster.executors", "an integer 1..1000")
    for k in ("rtt_us", "loopback_rtt_us"):
        if k in cl:
            need(_is_num(cl[k]) and cl[k] >= 0, f"cluster.{k}", ">= 0")
    for k in ("nic_bandwidth_gbps", "loopback_bandwidth_gbps"):
        if k in cl:
            need(_is_num(cl[k]) and cl[k] > 0, f"cluster.{k}", "> 0")
    fl = sc.get("flags", {})
    for k in sorted(set(fl) - flag_keys()):
        p.append(f"flags.{k}: unknown key")
    for k in ("data_stream_sender_buffer_size", "exchg_node_buffer_size_bytes", "batch_size"):
        if k in fl:
            need(_is_int(fl[k]) and fl[k] >= 1, f"flags.{k}", "an integer >= 1")
    if "mt_dop" in fl:
        need(_is_int(fl["mt_dop"]) and 0 <= fl["mt_dop"] <= 64, "flags.mt_dop", "an integer 0..64")
    co = sc.get("costs", {})
    for k in sorted(set(co) - cost_keys()):
        p.append(f"costs.{k}: unknown key")
    for k, v in co.items():
        need(_is_num(v) and v >= 0, f"costs.{k}", "a number >= 0")
    ed = sc.get("exchange_defaults", {})
    for k in sorted(set(ed) - (query_exchange_keys() - {"id", "source", "expected"})):
        p.append(f"exchange_defaults.{k}: not an exchange key")
    for k in exchange_cpu_keys() & set(ed):
        need(_is_num(ed[k]) and ed[k] >= 0, f"exchange_defaults.{k}", "a number >= 0")
    queries = sc.get("queries", [])
    need(isinstance(queries, list), "queries", "an array")
    need(bool(queries) or bool(sc.get("exchanges")), "queries", "at least one query or exchange")
    names = [q.get("name") for q in queries if isinstance(q, dict)]
    need(len(names) == len(set(names)), "queries", "unique names")
    for i, q in enumerate(queries):
        qp = f"queries[{i}]"
        if not isinstance(q, dict):
            p.append(f"{qp}: an object")
            continue
        for k in sorted(set(q) - QUERY):
            p.append(f"{qp}.{k}: unknown key")
        need(isinstance(q.get("name"), str) and q["name"], f"{qp}.name", "a non-empty string")
        need(isinstance(q.get("expected", {}), dict), f"{qp}.expected", "an object")
        _check_plan(p, qp, q.get("fragments"), q.get("exchanges"), executors)
        if "parallel" in q:
            par = q["parallel"]
            need(isinstance(par, dict) and set(par) <= {"fragments", "exchanges"}, f"{qp}.parallel",
                 "an object of fragments and exchanges")
            if isinstance(par, dict):
                _check_plan(p, f"{qp}.parallel", par.get("fragments"), par.get("exchanges"), executors)
    return p


def _check_plan(p, path, fragments, exchanges, executors):
    if not isinstance(fragments, list) or not fragments:
        p.append(f"{path}.fragments: a non-empty array")
        return
    if not isinstance(exchanges, list):
        p.append(f"{path}.exchanges: an array")
        return
    xids = []
    for j, x in enumerate(exchanges):
        xp = f"{path}.exchanges[{j}]"
        if not isinstance(x, dict):
            p.append(f"{xp}: an object")
            continue
        for k in sorted(set(x) - query_exchange_keys()):
            p.append(f"{xp}.{k}: " + ("not allowed in a query-level exchange" if k in standalone_exchange_keys()
                                      else "unknown key"))
        xids.append(x.get("id"))
        if x.get("partitioning") not in PARTITIONINGS:
            p.append(f"{xp}.partitioning: one of {sorted(PARTITIONINGS)}")
        for k in ("fixed_row_bytes", "tuples_per_row"):
            if k in x and not (_is_int(x[k]) and x[k] >= 1):
                p.append(f"{xp}.{k}: an integer >= 1")
        if "var_row_bytes" in x and not (_is_int(x["var_row_bytes"]) and x["var_row_bytes"] >= 0):
            p.append(f"{xp}.var_row_bytes: an integer >= 0")
        if "compression_ratio" in x and not (_is_num(x["compression_ratio"]) and 0 < x["compression_ratio"] <= 1):
            p.append(f"{xp}.compression_ratio: 0 < r <= 1")
        if "receiver_weights" in x and not (isinstance(x["receiver_weights"], list) and all(
                _is_num(w) and w > 0 for w in x["receiver_weights"])):
            p.append(f"{xp}.receiver_weights: positive numbers")
        if x.get("merging") and x.get("partitioning") != "UNPARTITIONED" and x.get("partitioning") != "HASH_PARTITIONED":
            p.append(f"{xp}.merging: only on UNPARTITIONED or HASH_PARTITIONED exchanges")
        if "expected" in x and not isinstance(x["expected"], dict):
            p.append(f"{xp}.expected: an object")
    if len(xids) != len(set(xids)):
        p.append(f"{path}.exchanges: ids not unique")
    fids = [f.get("id") for f in fragments if isinstance(f, dict)]
    if len(fids) != len(set(fids)):
        p.append(f"{path}.fragments: ids not unique")
    senders, receivers, builds, build_refs, op_ids = {}, {}, {}, {}, []
    for j, f in enumerate(fragments):
        fp = f"{path}.fragments[{j}]"
        if not isinstance(f, dict):
            p.append(f"{fp}: an object")
            continue
        for k in sorted(set(f) - FRAGMENT):
            p.append(f"{fp}.{k}: unknown key")
        n = f.get("executors", 0)
        first = f.get("first_executor", 0)
        if not (_is_int(n) and n >= 0 and _is_int(first) and first >= 0 and first + max(n, 1) <= executors):
            p.append(f"{fp}: executors {n} from {first} do not fit in {executors} executors")
        if "instances_per_executor" in f and not (_is_int(f["instances_per_executor"])
                                                  and f["instances_per_executor"] >= 0):
            p.append(f"{fp}.instances_per_executor: an integer >= 0")
        sink = f.get("sink")
        if not isinstance(sink, dict) or len(sink) != 1 or not (
                "exchange" in sink or sink.get("result") is True or "join_build" in sink):
            p.append(f"{fp}.sink: one of {{exchange}}, {{result: true}}, {{join_build}}")
        elif "exchange" in sink:
            senders.setdefault(sink["exchange"], []).append(f.get("id"))
        elif "join_build" in sink:
            builds[f.get("id")] = sink["join_build"]
        _check_op(p, f"{fp}.root", f.get("root"), f.get("id"), receivers, build_refs, op_ids)
    for xid in xids:
        if len(senders.get(xid, [])) != 1:
            p.append(f"{path}: exchange {xid} is the sink of {len(senders.get(xid, []))} fragments, expected 1")
        if len(receivers.get(xid, [])) != 1:
            p.append(f"{path}: exchange {xid} is the leaf of {len(receivers.get(xid, []))} fragments, expected 1")
    for xid in set(senders) | set(receivers):
        if xid not in xids:
            p.append(f"{path}: exchange {xid} is named by a fragment but not declared")
    for fid, join in builds.items():
        if build_refs.get(fid) != join:
            p.append(f"{path}: fragment {fid} builds join {join}, but that join does not name it as its build")
    for fid, join in build_refs.items():
        if builds.get(fid) != join:
            p.append(f"{path}: join {join} names build fragment {fid}, whose sink is not join_build {join}")
    if len(op_ids) != len(set(op_ids)):
        p.append(f"{path}: operator ids not unique")


def _check_op(p, path, node, fid, receivers, build_refs, op_ids):
    if not isinstance(node, dict):
        p.append(f"{path}: an operator object")
        return
    op = node.get("op")
    if op not in OPS:
        p.append(f"{path}.op: one of {sorted(OPS)}")
        return
    req, opt = OPS[op]
    keys = set(node) - {"op", "id"}
    for k in sorted(req - keys):
        p.append(f"{path}.{k}: required for {op}")
    for k in sorted(keys - req - opt):
        p.append(f"{path}.{k}: not a key of {op}")
    if not isinstance(node.get("id"), str):
        p.append(f"{path}.id: a string (the plan node id)")
    op_ids.append(node.get("id"))
    if "rows" in node and not (_is_int(node["rows"]) and node["rows"] >= 0):
        p.append(f"{path}.rows: an integer >= 0")
    if op == "exchange":
        receivers.setdefault(node.get("exchange"), []).append(fid)
    if op == "scan":
        if "rows_read" in node and not (_is_int(node["rows_read"]) and node["rows_read"] >= node.get("rows", 0)):
            p.append(f"{path}.rows_read: an integer >= rows")
        if "instance_weights" in node and not (isinstance(node["instance_weights"], list) and all(
                _is_num(w) and w > 0 for w in node["instance_weights"])):
            p.append(f"{path}.instance_weights: positive numbers")
    if op == "aggregate" and node.get("phase") not in ("streaming", "finalize"):
        p.append(f"{path}.phase: streaming or finalize")
    partitioned = op == "top_n" and node.get("partitioned") is True
    if "partitioned" in node and not isinstance(node["partitioned"], bool):
        p.append(f"{path}.partitioned: true or false")
    if partitioned and "limit" in node:
        p.append(f"{path}.limit: none on a partitioned top_n")
    elif op in ("top_n", "limit") and not partitioned and not (_is_int(node.get("limit")) and node["limit"] >= 0):
        p.append(f"{path}.limit: an integer >= 0")
    for k in ("input", "probe"):
        if k in node:
            _check_op(p, f"{path}.{k}", node[k], fid, receivers, build_refs, op_ids)
    if "inputs" in node:
        for i, c in enumerate(node["inputs"] if isinstance(node["inputs"], list) else []):
            _check_op(p, f"{path}.inputs[{i}]", c, fid, receivers, build_refs, op_ids)
    if "build" in node:
        b = node["build"]
        if isinstance(b, dict) and set(b) == {"fragment"}:
            build_refs[b["fragment"]] = node.get("id")
        else:
            _check_op(p, f"{path}.build", b, fid, receivers, build_refs, op_ids)
            if "shared" in node:
                p.append(f"{path}.shared: only with a build fragment")
