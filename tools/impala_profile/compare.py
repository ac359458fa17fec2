"""Measured (an Impala profile) next to simulated (exsim results): per exchange and per sender
instance, each counter, and the query's runtime (`exsim compare RESULTS PROFILE`).

    rows = compare.compare(results, queries)   # queries: model.Query objects

Exchanges are matched by query name (the profile's query id, the name `profile import` gives
the query) and exchange id (`x<plan node id>`); sender instances by executor and instance order,
which `profile import` keeps (executor 0 = the coordinator, then the daemons in name order).
"""

import math

from common import tables

from .to_scenario import expected_exchange, expected_query

# Exchange counters: (name, function of the results exchange entry).
EXCHANGE_COUNTERS = [
    ("receivers", lambda x: len(x.get("receiver_instances") or []) or x.get("receivers")),
    ("rows_sent", lambda x: x.get("rows_sent")),
    ("rpcs", lambda x: x.get("rpcs")),
    ("eos_rpcs", lambda x: x.get("eos_rpcs")),
    ("bytes_sent", lambda x: x.get("bytes_sent")),
    ("mean_rpc_bytes", lambda x: x.get("mean_rpc_bytes", x["bytes_sent"] / x["rpcs"] if x.get("rpcs") else None)),
    ("UncompressedRowBatchSize", lambda x: _sum(x, "sender_instances", "UncompressedRowBatchSize")),
    ("slowest_sender_blocked_s", lambda x: x.get("slowest_sender_blocked_s")),
    ("InactiveTotalTime_s", lambda x: _sum(x, "sender_instances", "InactiveTotalTime_s")),
    ("RpcNetworkTime_mean_s", lambda x: _per_rpc(x, "RpcNetworkTime_s")),
    ("RpcRecvrTime_mean_s", lambda x: _per_rpc(x, "RpcRecvrTime_s")),
    ("rpcs_deferred", lambda x: x.get("rpcs_deferred")),
    ("TotalHasDeferredRPCsTime_s", lambda x: _max(x, "receiver_instances", "TotalHasDeferredRPCsTime_s")),
    ("DataWaitTime_s", lambda x: _max(x, "receiver_instances", "DataWaitTime_s")),
]
SENDER_COUNTERS = ["RowsSent", "TotalBytesSent", "RpcSuccess", "InactiveTotalTime_s", "RpcNetworkTime_mean_s",
                   "RpcRecvrTime_mean_s"]


ABSENT = object()  # a counter the profile's Impala version does not keep
NOT_IN_PROFILE = "not in this profile"


def _cell(m, s):
    """measured / simulated / ratio of one counter; a measured counter absent from the profile is
    said so, never shown as a measured 0."""
    if m is ABSENT:
        return {"measured": None, "simulated": s, "ratio": None, "note": NOT_IN_PROFILE}
    return {"measured": m, "simulated": s, "ratio": tables.ratio(m, s)}


def _sum(x, side, key):
    vals = [i.get(key) for i in x.get(side) or [] if isinstance(i.get(key), (int, float))]
    return sum(vals) if vals else None


def _max(x, side, key):
    vals = [i.get(key) for i in x.get(side) or [] if isinstance(i.get(key), (int, float))]
    return max(vals) if vals else None


def _per_rpc(x, key):
    total = _sum(x, "sender_instances", key)
    rpcs = _sum(x, "sender_instances", "RpcSuccess")
    return total / rpcs if total is not None and rpcs else None


def _measured_exchange(x):
    e = expected_exchange(x, _r=lambda v, digits=None: v)
    net = [s.rpc_network for s in x.senders if s.rpc_network is not None and s.rpc_network.count]
    rcv = [s.rpc_recvr for s in x.senders if s.rpc_recvr is not None and s.rpc_recvr.count]
    e.pop("RpcNetworkTime_mean_s", None)
    if net:
        e["RpcNetworkTime_mean_s"] = sum(n.sum for n in net) / sum(n.count for n in net) * 1e-9
    if rcv:
        e["RpcRecvrTime_mean_s"] = sum(n.sum for n in rcv) / sum(n.count for n in rcv) * 1e-9
    return e


def _measured_sender(q, s):
    return {
        "executor": q.host_index(s.instance.host),
        "RowsSent": s.rows,
        "TotalBytesSent": s.bytes_sent,
        "RpcSuccess": s.rpc_success if s.rpc_success is not None else
        s.rpcs + s.eos if s.rpcs is not None and s.eos is not None else ABSENT,
        "InactiveTotalTime_s": s.inactive_s,
        "RpcNetworkTime_mean_s": s.rpc_network.mean * 1e-9 if s.rpc_network and s.rpc_network.count else
        None if s.rpc_network else ABSENT,
        "RpcRecvrTime_mean_s": s.rpc_recvr.mean * 1e-9 if s.rpc_recvr and s.rpc_recvr.count else
        None if s.rpc_recvr else ABSENT,
    }


def _simulated_sender(i):
    n = i.get("RpcSuccess")
    return {
        "executor": i.get("host"),
        "RowsSent": i.get("RowsSent"),
        "TotalBytesSent": i.get("TotalBytesSent"),
        "RpcSuccess": n,
        "InactiveTotalTime_s": i.get("InactiveTotalTime_s"),
        "RpcNetworkTime_mean_s": i["RpcNetworkTime_s"] / n if n and "RpcNetworkTime_s" in i else None,
        "RpcRecvrTime_mean_s": i["RpcRecvrTime_s"] / n if n and "RpcRecvrTime_s" in i else None,
    }


def _find_exchange(results, qid, xid, single_query):
    name = f"x{xid}"
    for x in results.get("exchanges") or []:
        q = x.get("query", "")
        if q != qid and not (single_query and q in ("", None)):
            continue
        rid = str(x.get("id", ""))
        if rid == name or rid.endswith(("." + name, "/" + name, ":" + name)):
            return x
    return None


def _find_query(results, qid):
    for q in results.get("queries") or []:
        if isinstance(q, dict) and q.get("query") == qid:
            return q
    return None


class Mismatch(Exception):
    """The results and the profile do not belong together."""


def check_related(results, queries, results_path, profile_path):
    """Raise Mismatch when the results hold none of the profile's queries."""
    names = sorted({q.get("query") for q in results.get("queries") or [] if isinstance(q, dict) and q.get("query")}
                   | {x.get("query") for x in results.get("exchanges") or [] if isinstance(x, dict) and x.get("query")})
    ids = [q.id for q in queries]
    sc = (results.get("scenario") or {}).get("name", "?")
    if not names:  # an exchange-only scenario: nothing in it is a profiled query
        raise Mismatch(f"{results_path} and {profile_path} do not belong together: the results (scenario {sc!r}) "
                       "name no query (an exchange-only scenario), the profile holds "
                       f"{', '.join(ids)}; compare results of a scenario imported from the profile (exsim profile "
                       "import), whose queries carry the profile's query ids")
    if not set(names) & set(ids):
        raise Mismatch(f"{results_path} and {profile_path} do not belong together: the results (scenario {sc!r}) "
                       f"hold quer{'y' if len(names) == 1 else 'ies'} {', '.join(names[:4])}"
                       f"{', ...' if len(names) > 4 else ''}, the profile {', '.join(ids)}; compare results "
                       "with the profile their scenario was imported from (exsim profile import)")


# Counters whose ratio still means something when the simulated cluster is not the profiled one.
CLUSTER_FREE = {"rows_sent"}


def _cluster_changes(cluster, profiled):
    """['rtt_us 390 (profile: 69.53)', ...]: the imported scenario's cluster keys the run changed."""
    out = []
    for k, v in sorted((profiled or {}).items()):
        w = cluster.get(k)
        if k != "executors" and isinstance(v, (int, float)) and isinstance(w, (int, float)) and \
                abs(w - v) > 1e-9 * max(abs(v), abs(w)):
            out.append(f"{k} {w:g} (profile: {v:g})")
    return out


def compare(results, queries, profiled_cluster=None):
    """{"queries": [...], "notes": [...]} with measured, simulated and their ratio per counter.
    profiled_cluster: the cluster `profile import` writes for these queries; a run whose
    settings.cluster differs from it simulated another cluster, and the ratios that then mean
    nothing (every one but rows_sent for another executor count, the times for another network)
    are left out."""
    notes = []
    out = []
    single = len(queries) == 1
    cluster = (results.get("settings") or {}).get("cluster") or {}
    sim_executors = cluster.get("executors")
    changed = _cluster_changes(cluster, profiled_cluster)
    for q in queries:
        sim_q = _find_query(results, q.id)
        meas_q = expected_query(q)
        entry = {"query": q.id, "runtime_s": {"measured": meas_q.get("runtime_s"),
                                              "simulated": sim_q.get("runtime_s") if sim_q else None}}
        entry["runtime_s"]["ratio"] = tables.ratio(entry["runtime_s"]["measured"], entry["runtime_s"]["simulated"])
        other = isinstance(sim_executors, int) and sim_executors != len(q.hosts)
        if other:
            entry["cluster_differs"] = f"{sim_executors} executors simulated, {len(q.hosts)} daemons profiled"
            entry["runtime_s"]["ratio"] = None
            notes.append(f"query {q.id}: the simulated cluster differs from the profiled one ({sim_executors} "
                         f"executors simulated, {len(q.hosts)} daemons profiled, e.g. after --set cluster.*): "
                         "ratios are left out except for rows_sent, and per-sender rows do not line up")
        net_only = bool(changed) and not other
        if net_only:
            entry["cluster_differs"] = ", ".join(changed)
            entry["runtime_s"]["ratio"] = None
            notes.append(f"query {q.id}: the simulated cluster is not the profiled one ({', '.join(changed)}, e.g. "
                         "after --set cluster.*): the ratios of times are left out")
        if sim_q is None:
            notes.append(f"query {q.id}: not in the results (queries[].query)")
        entry["exchanges"] = []
        for xid in sorted(q.exchanges):
            x = q.exchanges[xid]
            sim = _find_exchange(results, q.id, xid, single)
            meas = _measured_exchange(x)
            ex = {"id": f"x{xid}", "partitioning": x.partitioning, "merging": x.merging,
                  "sender_instances": len(x.senders),
                  "sender_fragment": x.sender_fragment, "receiver_fragment": x.receiver_fragment,
                  "counters": {}, "senders": []}
            if sim is None:
                notes.append(f"query {q.id} exchange x{xid}: not in the results")
            for name, fn in EXCHANGE_COUNTERS:
                m = meas.get(name, ABSENT)
                s = fn(sim) if sim is not None else None
                ex["counters"][name] = _cell(m, s)
                if other and name not in CLUSTER_FREE or net_only and name.endswith("_s"):
                    ex["counters"][name]["ratio"] = None
            sim_senders = sorted((sim or {}).get("sender_instances") or [], key=lambda i: i.get("index", 0))
            if sim is not None and len(sim_senders) != len(x.senders) and not other:
                notes.append(f"query {q.id} exchange x{xid}: {len(x.senders)} sender instances measured, "
                             f"{len(sim_senders)} simulated: per-sender rows left out")
            for k, s in enumerate(x.senders):
                m = _measured_sender(q, s)
                si = _simulated_sender(sim_senders[k]) if len(sim_senders) == len(x.senders) else {}
                cells = {c: _cell(m[c], si.get(c)) for c in SENDER_COUNTERS}
                if net_only:
                    for c, cell in cells.items():
                        if c.endswith("_s"):
                            cell["ratio"] = None
                ex["senders"].append({"index": k, "instance": s.instance.id, "executor": m["executor"],
                                      "counters": cells})
            entry["exchanges"].append(ex)
        out.append(entry)
    doc = {"queries": out, "notes": notes}
    if len(out) > 1:
        doc["workload"] = workload(doc)
    doc["headline"] = headline(doc)
    return doc


def _moved(c):
    r = c.get("ratio")
    return abs(math.log(r)) if isinstance(r, (int, float)) and r > 0 else (math.inf if r == 0 else -1.0)


def _rank(name, c, runtime_s):
    """How far off a counter is, for the headline, --top and the short form: by what a user decides
    on (tables.decision_rank: the seconds between measured and simulated, then RPCs, then bytes);
    a counter without a ratio (not comparable here) ranks last."""
    if _moved(c) < 0:
        return (-2, 0.0)
    return tables.decision_rank(name, c.get("measured"), c.get("simulated"), runtime_s)


def _cells(q):
    """(exchange, counter, cell) of a query's exchanges, most decisive difference first."""
    runtime = q["runtime_s"]["measured"]
    cells = [(x["id"], n, c) for x in q["exchanges"] for n, c in x["counters"].items() if n != "receivers"]
    return sorted(cells, key=lambda t: _rank(t[1], t[2], runtime), reverse=True)


# Queries a workload's headline names as furthest off.
WORKLOAD_WORST = 3


def workload(doc):
    """Over several queries: the summed runtimes, measured and simulated, of the queries compared on
    their profiled cluster (a runtime ratio), and those furthest off in seconds."""
    compared = [q for q in doc["queries"] if q["runtime_s"]["ratio"] is not None]
    measured = sum(q["runtime_s"]["measured"] for q in compared)
    simulated = sum(q["runtime_s"]["simulated"] for q in compared)
    worst = sorted(compared, key=lambda q: abs(q["runtime_s"]["simulated"] - q["runtime_s"]["measured"]),
                   reverse=True)[:WORKLOAD_WORST]
    return {"queries": len(doc["queries"]), "compared": len(compared),
            "runtime_s": {"measured": measured, "simulated": simulated,
                          "ratio": tables.ratio(measured, simulated) if compared else None},
            "furthest_off": [{"query": q["query"], "measured": q["runtime_s"]["measured"],
                              "simulated": q["runtime_s"]["simulated"]} for q in worst]}


def _workload_line(w):
    head = f"workload of {w['queries']} queries: "
    if not w["compared"]:
        return head + "none ran on its profiled cluster here (another cluster for each): no runtime ratio"
    r = w["runtime_s"]
    text = (head + f"runtime summed over the {w['compared']} compared on their profiled cluster measured "
            f"{tables.fmt_seconds(r['measured'])}, simulated {tables.fmt_seconds(r['simulated'])} "
            f"(x{tables.fmt_ratio(r['ratio'])})")
    worst = []
    for q in w["furthest_off"]:
        off = q["simulated"] - q["measured"]
        worst.append(f"{q['query']} {'+' if off > 0 else ''}{tables.fmt_seconds(off)} ("
                     f"{tables.fmt_seconds(q['measured'])} -> {tables.fmt_seconds(q['simulated'])})")
    return text + "; furthest off in seconds: " + ", ".join(worst)


def headline(doc):
    """One line a query: its runtime measured / simulated, and the counter furthest from its measure
    by what a user decides on (seconds, then RPCs, then bytes); over several queries a line for the
    workload first (`workload`)."""
    parts = [_workload_line(doc["workload"])] if "workload" in doc else []
    for q in doc["queries"]:
        r = q["runtime_s"]
        text = (f"query {q['query']}: runtime measured {tables.fmt_seconds(r['measured'])}, simulated "
                f"{tables.fmt_seconds(r['simulated'])}")
        if r["ratio"] is not None:
            text += f" (x{tables.fmt_ratio(r['ratio'])})"
        if q.get("cluster_differs"):
            what = "no ratios" if "executors" in q["cluster_differs"] else "no ratios of times"
            text += f"; another cluster ({q['cluster_differs']}): {what}"
            if what == "no ratios":
                parts.append(text)
                continue
        worst = next((t for t in _cells(q) if _moved(t[2]) >= 0), None)
        if worst is not None:
            xid, n, c = worst
            text += (f"; furthest off: {xid} {n} x{tables.fmt_ratio(c['ratio'])} (measured "
                     f"{tables.fmt_value(n, c['measured'])}, simulated {tables.fmt_value(n, c['simulated'])})")
        parts.append(text)
    return "\n".join(parts) or "no query compared"


def select(doc, changed_tol=None, top=None):
    """Only the counters whose ratio is off by more than changed_tol, and/or the `top` furthest off."""
    if changed_tol is None and top is None:
        return doc
    cells = []
    for q in doc["queries"]:
        for x in q["exchanges"]:
            for n, c in x["counters"].items():
                if n != "receivers":
                    cells.append((x, n, c))
    keep = [t for t in cells if changed_tol is None or (_moved(t[2]) > math.log1p(changed_tol))]
    if top is not None:
        runtime = {id(x): q["runtime_s"]["measured"] for q in doc["queries"] for x in q["exchanges"]}
        keep = sorted(keep, key=lambda t: _rank(t[1], t[2], runtime[id(t[0])]), reverse=True)[:top]
    kept = {(id(x), n) for x, n, _ in keep}
    for q in doc["queries"]:
        xs = []
        for x in q["exchanges"]:
            x["counters"] = {n: c for n, c in x["counters"].items() if n == "receivers" or (id(x), n) in kept}
            if changed_tol is not None:
                x["senders"] = [s for s in x["senders"]
                                if any(_moved(c) > math.log1p(changed_tol) for c in s["counters"].values())]
            else:
                x["senders"] = []
            if len(x["counters"]) > 1 or x["senders"]:
                xs.append(x)
        q["exchanges"] = xs
    return doc


CSV_HEADER = ["query", "exchange", "sender", "executor", "counter", "measured", "simulated", "ratio"]


def rows(doc):
    out = []
    for q in doc["queries"]:
        r = q["runtime_s"]
        out.append([q["query"], "", "", "", "runtime_s", r["measured"], r["simulated"], r["ratio"]])
        for x in q["exchanges"]:
            for name, c in x["counters"].items():
                out.append([q["query"], x["id"], "", "", name, c.get("note") or c["measured"], c["simulated"],
                            c["ratio"]])
            for s in x["senders"]:
                for name, c in s["counters"].items():
                    out.append([q["query"], x["id"], s["index"], s["executor"], name, c.get("note") or c["measured"],
                                c["simulated"], c["ratio"]])
    return out


def _fmt_measured(name, cell):
    return cell["note"] if cell.get("note") else tables.fmt_value(name, cell["measured"])


# How many counters the short form shows a query: those furthest off.
SHORT_ROWS = 8


def _short(doc):
    """Each query's runtime, then its SHORT_ROWS counters furthest off in one table."""
    out = []
    for q in doc["queries"]:
        r = q["runtime_s"]
        out.append(f"\nquery {q['query']}: runtime measured {tables.fmt_seconds(r['measured'])}, simulated "
                   f"{tables.fmt_seconds(r['simulated'])} (simulated / measured {tables.fmt_ratio(r['ratio'])})\n")
        cells = _cells(q)
        runtime = q["runtime_s"]["measured"]
        top = [t for t in cells if _rank(t[1], t[2], runtime)[0] >= 0][:SHORT_ROWS]
        if not top:
            out.append("  no counter differs from its measure" + (" where they can be compared (another cluster)"
                                                                   if q.get("cluster_differs") else "") + "\n")
        else:
            out.append(f"  furthest off (seconds, then RPCs, then bytes; {len(top)} of {len(cells)} counters of "
                       f"{len(q['exchanges'])} exchange{'s' if len(q['exchanges']) != 1 else ''}: --full for every one, with each sender)\n")
            out.append(tables.text_table(["exchange", "counter", "measured", "simulated", "sim/meas"],
                                         [[xid, n, _fmt_measured(n, c), tables.fmt_value(n, c["simulated"]),
                                           tables.fmt_ratio(c["ratio"])] for xid, n, c in top], indent="    "))
        notes = {}
        for _, n, c in cells:
            if c.get("note"):
                notes.setdefault(c["note"], []).append(n)
        for note, names in notes.items():
            out.append(f"  {note}: {', '.join(dict.fromkeys(names))}\n")
    if doc["notes"]:
        out.append("\nnotes:\n" + "".join(f"  - {n}\n" for n in doc["notes"]))
    return "".join(out)


def render(doc, fmt, results_path, profile_path, full=True):
    """full: every exchange's counters and senders; else the short form (_short)."""
    if fmt == "json":
        return tables.json_text({"results": results_path, "profile": profile_path, **doc})
    if fmt == "csv":
        return tables.csv_text(CSV_HEADER, rows(doc))
    out = [f"{doc['headline']}\nmeasured: {profile_path}\nsimulated: {results_path}\n"]
    if not full:
        return out[0] + _short(doc)
    for q in doc["queries"]:
        r = q["runtime_s"]
        out.append(f"\nquery {q['query']}: runtime measured {tables.fmt_seconds(r['measured'])}, simulated "
                   f"{tables.fmt_seconds(r['simulated'])} (simulated / measured {tables.fmt_ratio(r['ratio'])})\n")
        for x in q["exchanges"]:
            out.append(f"\n  exchange {x['id']}  {x['partitioning']}{' merging' if x['merging'] else ''}  "
                       f"{x['sender_fragment']} ({x['sender_instances']} sender(s)) -> {x['receiver_fragment']} "
                       f"({x['counters']['receivers']['measured']} receiver(s))\n")
            out.append(tables.text_table(["counter", "measured", "simulated", "sim/meas"],
                                         [[n, _fmt_measured(n, c), tables.fmt_value(n, c["simulated"]),
                                           tables.fmt_ratio(c["ratio"])]
                                          for n, c in x["counters"].items() if n != "receivers"], indent="    "))
            if x["senders"]:
                hdr = ["sender", "exec"] + [f"{c} meas / sim" for c in ("RowsSent", "TotalBytesSent", "RpcSuccess",
                                                                        "blocked", "network per RPC")]
                body = []
                for s in x["senders"]:
                    c = s["counters"]
                    body.append([str(s["index"]), s["executor"]] + [
                        f"{_fmt_measured(k, c[k])} / {tables.fmt_value(k, c[k]['simulated'])}"
                        for k in ("RowsSent", "TotalBytesSent", "RpcSuccess", "InactiveTotalTime_s",
                                  "RpcNetworkTime_mean_s")])
                out.append(tables.text_table(hdr, body, indent="    "))
    if doc["notes"]:
        out.append("\nnotes:\n" + "".join(f"  - {n}\n" for n in doc["notes"]))
    return "".join(out)
