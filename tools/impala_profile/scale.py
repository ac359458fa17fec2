"""`profile import --scale-data F`: an imported scenario at F times its data, with its joins
re-decided by Impala's planner rule for the new sizes.

A profile from a test run at a small scale says how a query runs there; the same query on F times
the data reads F times the rows of each table, in more scan ranges. What grows with it, and
the assumptions that say how (none is fitted):
- a scan's rows and rows read: x its table's factor (F, or the one `--scale-table` gives that
  table: 1 for a table that does not grow with the data, as a date dimension); its scan ranges,
  one a 128 MiB HDFS block (the default block size; Impala makes a range of each block): the
  bytes it read x the factor / 128 MiB, or x the factor when the profiled run read more ranges
  than it had blocks (many small files: more of them);
- an operator above: x its input's factor (a join x its probe side's: each probe row keeps the
  matches it had, as on a foreign key; an aggregation's groups and rows x its input's, an upper
  bound when the groups come from a table that does not grow; a union's rows are its inputs'
  summed); a limit caps what it outputs;
- a scan fragment runs on as many executors as its scan ranges now reach, at most the cluster
  (Impala's scheduler gives each executor that holds data its ranges; the data is taken to be
  spread over every daemon); a join build follows its join's fragment, an interior fragment
  pinned with its leftmost input follows it;
- each hash join's distribution is re-decided with the planner's rule (tools/join_distribution.py)
  as the planner would at the new size: at the plan's own estimates (its `cardinality=`) x the
  sides' factors, the probe fragment's hosts on the scenario's cluster and its mt_dop, a row being
  the plan's row size plus 4 bytes per tuple. The rule is first asked at the plan's estimates on
  the profiled cluster: a join where it does not give the profile's choice (the planner saw
  something it does not model: a hint, a query option) keeps its choice. A join that turns from broadcast to partitioned is re-planned
  as the planner builds it: the join and the nodes above it in its fragment move to a new
  fragment on every executor, fed by a hash exchange from the fragment below (on the probe keys)
  and by the build's exchange, now hash-partitioned. A change the importer cannot re-plan (to
  broadcast, a probe side that arrives through an exchange, a node above that relies on its
  fragment's partitioning) is listed and not made;
- the measured values (`expected`) are the profiled run's: they are left out.
Row widths, compression ratios, CPU per row and the network stay as measured.
"""

import math
import re

from tools import join_distribution as rule
from tools.scenario_ops import children, walk_ops

from .to_scenario import _drop_weights as _drop_op_weights, _exchange_inputs, _int_option
from .tree import ProfileError

JOINS = ("hash_join", "nested_loop_join")
BLOCK_BYTES = 128 * 2 ** 20   # HDFS's default dfs.blocksize: Impala makes a scan range of each block


def _leftmost_scan(op):
    while "op" in op:
        if op["op"] == "scan":
            return op
        kids = children(op)
        if not kids:
            return None
        op = kids[0][1]
    return None


def _table_factor(table, factor, tables, used):
    for name in (table, table.split(".")[-1]):
        if name in tables:
            used.add(name)
            return tables[name]
    return factor


class _Plan:
    """One plan of a query (its `fragments` or its `parallel` form) being scaled."""

    def __init__(self, plan, executors, scan_bytes):
        self.plan = plan
        self.scan_bytes = scan_bytes  # {scan id: bytes the profiled run read}
        self.executors = executors
        self.frags = {f["id"]: f for f in plan["fragments"]}
        self.xs = {x["id"]: x for x in plan["exchanges"]}
        self.sender = {f["sink"]["exchange"]: f["id"] for f in plan["fragments"] if "exchange" in f.get("sink", {})}
        self.factor = {}   # id(op) -> factor of its rows
        self.old_rows = {}  # id(op) -> rows before scaling
        self.ranges_changed = set()  # id(scan) whose scan ranges changed

    def root_of(self, fid):
        return self.frags[fid]["root"]

    def source(self, op):
        """The operator whose rows an input carries: through an exchange to its sender's root, through a
        join build fragment to its root."""
        seen = 0
        while seen < 64:
            seen += 1
            if "fragment" in op and "op" not in op:
                op = self.root_of(op["fragment"])
            elif op.get("op") == "exchange" and op.get("exchange") in self.sender:
                op = self.root_of(self.sender[op["exchange"]])
            else:
                return op
        raise ProfileError("--scale-data: the plan's exchanges form a cycle")

    def scale(self, op, factor, tables, used):
        if id(op) in self.factor:
            return self.factor[id(op)]
        if "op" not in op:
            f = self.scale(self.source(op), factor, tables, used)
            self.factor[id(op)] = f
            return f
        kids = [c for _, c in children(op)]
        fs = [self.scale(c, factor, tables, used) for c in kids]
        if op["op"] == "exchange":
            f = self.scale(self.source(op), factor, tables, used) if op.get("exchange") in self.sender else 1.0
        elif op["op"] == "scan":
            f = _table_factor(op.get("table", ""), factor, tables, used)
        elif op["op"] == "union":
            before = sum(self.old_rows.get(id(self.source(c)), 0) for c in kids)
            after = sum(self.source(c).get("rows", 0) for c in kids)
            f = after / before if before > 0 else (fs[0] if fs else factor)
        else:
            f = fs[0] if fs else factor
        self.factor[id(op)] = f
        if "rows" in op:
            self.old_rows[id(op)] = op["rows"]
            rows = op["rows"] * f
            limit = op.get("limit")
            if limit:
                rows = op["rows"] if op["rows"] >= limit else min(rows, limit)
            op["rows"] = int(round(rows))
        if "rows_read" in op:
            op["rows_read"] = int(round(op["rows_read"] * f))
        if op.get("groups"):
            op["groups"] = int(round(op["groups"] * f))
        if op.get("scan_ranges"):
            r, read = op["scan_ranges"], self.scan_bytes.get(str(op.get("id")))
            if read and r <= math.ceil(read / BLOCK_BYTES):
                ranges = max(1, int(math.ceil(read * f / BLOCK_BYTES)))   # one range a block
            else:
                ranges = max(1, int(math.ceil(r * f - 1e-9)))   # more files than blocks: more files
            if ranges != op["scan_ranges"]:
                self.ranges_changed.add(id(op))
            op["scan_ranges"] = ranges
        return f


def _drop_weights(frag, plan):
    """A fragment's per-instance weights, its scans' and the receivers' of the exchanges it reads: they
    measured the profiled run's instances."""
    inputs = set(_exchange_inputs(frag["root"]))
    dropped = _drop_op_weights(frag["root"])
    for x in plan["exchanges"]:
        if x["id"] in inputs and x.pop("receiver_weights", None) is not None:
            dropped = True
    return dropped


def _place(frag, k, first, executors):
    if k >= executors:
        frag["executors"] = 0
        frag.pop("first_executor", None)
    else:
        frag["executors"], frag["first_executor"] = k, first


def widen(p, notes, name):
    """Scan fragments on as many executors as their scan ranges reach; builds and pinned interior
    fragments follow."""
    n = p.executors
    placed = {}
    for fid, f in p.frags.items():
        k = f.get("executors", 0)
        scan = _leftmost_scan(f["root"])
        if k == 0 or scan is None or not scan.get("scan_ranges"):
            continue
        nk = min(scan["scan_ranges"], n)
        if nk > k:
            placed[fid] = (f.get("executors"), f.get("first_executor", 0))
            _place(f, nk, 0, n)
            _drop_weights(f, p.plan)
            on = f"{nk} executors" if nk < n else "every executor"
            notes.append(f"{name} {fid}: on {on}, was {k} ({scan['scan_ranges']} scan ranges)")
    changed = True
    while changed:
        changed = False
        for fid, f in p.frags.items():
            if fid in placed or f.get("executors", 0) == 0 or _leftmost_scan(f["root"]) is not None:
                continue
            lead = None
            sink = f.get("sink", {})
            if "join_build" in sink:
                lead = next((g for g, h in p.frags.items() if any(o.get("id") == sink["join_build"] and o["op"] in JOINS
                                                                for o in walk_ops(h["root"]))), None)
            elif f.get("executors", 0) > 1:
                left = f["root"]
                while "op" in left and left["op"] != "exchange" and children(left):
                    left = children(left)[0][1]
                lead = p.sender.get(left.get("exchange")) if left.get("op") == "exchange" else None
            if lead in placed and (f.get("executors"), f.get("first_executor", 0)) == placed[lead]:
                placed[fid] = (f.get("executors"), f.get("first_executor", 0))
                g = p.frags[lead]
                _place(f, g.get("executors", 0) or n, g.get("first_executor", 0), n)
                _drop_weights(f, p.plan)
                notes.append(f"{name} {fid}: follows {lead}")
                changed = True


class _Joins:
    """Re-decides the hash joins of one plan and re-plans those that turn partitioned."""

    def __init__(self, p, qm, mt_dop, next_id):
        self.p = p
        self.qm = qm
        self.mt_dop = mt_dop
        self.profiled_mt_dop = _int_option(qm, "MT_DOP", 0)
        self.next_id = next_id
        self.ops = {}
        for f in qm.fragments.values():
            for oid, op in f.operators.items():
                self.ops[str(oid)] = op
        # The plan text's partition of each fragment (new ones are added as they are made).
        self.partition = {fid: fr.partition for fid, fr in qm.fragments.items()}

    def frag_of(self, join):
        for fid, f in self.p.frags.items():
            if any(o is join for o in walk_ops(f["root"])):
                return fid
        return None

    def row_bytes(self, op):
        m = self.ops.get(str(op.get("id")))
        if m is None or m.row_size is None or m.tuples is None:
            return None
        return rule.serialized_row_bytes(m.row_size, m.tuples)

    def hosts(self, fid):
        k = self.p.frags[fid].get("executors", 0)
        return k or self.p.executors

    def decide(self, join, fid):
        """(printed, at profiled rows, at the target, costs) or a reason it is not decided."""
        m = self.ops.get(str(join.get("id")))
        if m is None or "," not in (m.detail or ""):
            return "the profile names no distribution for it"
        join_type, printed = (s.strip() for s in m.detail.rsplit(",", 1))
        if printed not in ("BROADCAST", "PARTITIONED"):
            return f"its distribution is {printed}"
        probe, build = join["probe"], join["build"]
        if "op" not in build:
            build = self.p.root_of(build["fragment"])
        pm_op, bm_op = self.ops.get(str(probe.get("id"))), self.ops.get(str(build.get("id")))
        pw, bw = self.row_bytes(probe), self.row_bytes(build)
        if pw is None or bw is None or pm_op.cardinality is None or bm_op.cardinality is None:
            return "the plan text gives no estimate or row size for a side"
        keys = m.join_keys or (None, None)
        if printed == "PARTITIONED":
            pm, bm = probe.get("op") == "exchange", True
        else:
            pm = not rule.partitioned_on(self.partition.get(fid), keys[0])
            bm = True

        def at(rows_p, rows_b, hosts, mt_dop, per_host):
            c = rule.costs(rows_b * bw, rows_p * pw, hosts, per_host, mt_dop, pm, bm)
            return rule.mode(join_type, c, rows_b * bw), c

        # At the plan's estimates, on the profiled fragment's hosts at the profile's mt_dop; at the
        # estimates x the sides' data factors, on the scenario's cluster at the plan's mt_dop.
        fm = self.qm.fragments.get(fid)
        counts = fm.per_host() if fm is not None else {}
        at_profile, _ = at(pm_op.cardinality, bm_op.cardinality, len(counts) or self.hosts(fid), self.profiled_mt_dop,
                           max(counts.values()) if counts else 1)
        at_target, c = at(pm_op.cardinality * self.p.factor[id(probe)], bm_op.cardinality * self.p.factor[id(build)],
                          self.hosts(fid), self.mt_dop, max(1, self.mt_dop))
        return join_type, printed, at_profile, at_target, c

    def run(self, label):
        out = []
        order = []
        for fid, f in list(self.p.frags.items()):
            order += [o for o in walk_ops(f["root"]) if o["op"] == "hash_join"]
        for join in reversed(order):   # bottom-up: a walk lists a node before its inputs
            fid = self.frag_of(join)
            d = self.decide(join, fid)
            if isinstance(d, str):
                out.append({"join": join["id"], "plan": label, "kept": d})
                continue
            join_type, printed, at_profile, at_target, c = d
            row = {"join": join["id"], "plan": label, "type": join_type.lower(), "profiled": printed,
                   "rule_at_plan_estimates": at_profile, "rule_at_scaled_estimates": at_target,
                   "broadcast_bytes": round(c[0]), "partitioned_bytes": round(c[1])}
            if at_profile != printed:
                row["kept"] = ("the rule at the plan's estimates does not give the profile's choice (the planner "
                               "saw something the rule does not model: a hint, a query option)")
            elif at_target == printed:
                row["kept"] = "unchanged"
            elif at_target == "BROADCAST":
                row["kept"] = "not re-planned: the importer re-plans a join from broadcast to partitioned only"
            else:
                why = self.to_partitioned(join, fid)
                if why:
                    row["kept"] = "not re-planned: " + why
                else:
                    row["changed"] = "PARTITIONED"
            out.append(row)
        return out

    def _path_to(self, root, target):
        if root is target:
            return [root]
        for _, c in children(root):
            if "op" in c:
                path = self._path_to(c, target)
                if path:
                    return [root] + path
        return None

    def to_partitioned(self, join, fid):
        f = self.p.frags[fid]
        probe, build = join["probe"], join["build"]
        if probe.get("op") == "exchange":
            return "its probe side arrives through an exchange"
        bx = build.get("exchange") if build.get("op") == "exchange" else \
            self.p.root_of(build["fragment"]).get("exchange") if "fragment" in build else None
        if bx not in self.p.xs:
            return "its build side has no exchange"
        above = self._path_to(f["root"], join)[:-1]
        for o in above:
            if o["op"] == "analytic":
                return f"analytic {o['id']} above it relies on its fragment's partitioning"
            if o["op"] == "aggregate" and o.get("phase", "finalize") == "finalize" and o["input"].get("op") != "exchange":
                return f"aggregation {o['id']} above it merges its groups without an exchange"
            if o["op"] in ("top_n", "limit", "sort") and f.get("executors", 0) == 1:
                return f"{o['op']} {o['id']} above it runs on one instance"
        keys = (self.ops[str(join["id"])].join_keys or ((),))[0]
        if not keys:
            return "no equality keys to partition on"
        n = self.next_id(join["id"])
        xid, new_fid = f"x{n}", f"F{n}"
        m = self.ops.get(str(probe.get("id")))
        self.p.plan["exchanges"].append({
            "id": xid, "partitioning": "HASH_PARTITIONED", "tuples_per_row": m.tuples,
            "fixed_row_bytes": int(round(m.row_size)),
            "source": f"--scale-data: join {join['id']} re-planned partitioned; the rows of its probe side "
                      f"(operator {probe['id']}) hash-partitioned on {', '.join(keys)}; width from the plan's "
                      f"row-size of operator {probe['id']}, all counted as fixed; the compression ratio is the "
                      "default (these rows crossed no exchange in the profiled run)"})
        self.p.xs[xid] = self.p.plan["exchanges"][-1]
        bxs = self.p.xs[bx]
        bxs["partitioning"] = "HASH_PARTITIONED"
        bxs.pop("receiver_weights", None)
        bxs["source"] = bxs.get("source", "") + f"; --scale-data: hash-partitioned (join {join['id']} re-planned)"
        new = {"id": new_fid, "executors": 0, "root": f["root"] if above else join, "sink": f["sink"]}
        if "instances_per_executor" in f:
            new["instances_per_executor"] = 0
        exch = {"op": "exchange", "id": str(n), "exchange": xid}
        join["probe"] = exch
        if "shared" in join:
            join["shared"] = False   # a partitioned join's build is its instance's own
        f["root"], f["sink"] = probe, {"exchange": xid}
        self.p.plan["fragments"].append(new)
        self.p.frags[new_fid] = new
        self.p.sender[xid] = fid
        for g, h in list(self.p.sender.items()):
            if h == fid and g != xid:
                self.p.sender[g] = new_fid
        self.partition[new_fid] = "HASH(%s)" % ",".join(keys)
        moved = {o.get("id") for o in walk_ops(new["root"]) if o["op"] in JOINS}
        for h in self.p.frags.values():
            if h.get("sink", {}).get("join_build") in moved:
                _place(h, self.p.executors, 0, self.p.executors)
                _drop_weights(h, self.p.plan)
        _drop_weights(f, self.p.plan)
        return None


def scale_data(sc, queries, factor, tables):
    """Scale the scenario `sc` (as build_scenario and retarget leave it) to `factor` times its data,
    `tables` ({table name: factor}) overriding it per table; `queries` are the model queries it was
    imported from, by scenario query name. Returns the provenance entry."""
    if not (isinstance(factor, (int, float)) and math.isfinite(factor) and factor > 0):
        raise ProfileError(f"--scale-data {factor}: expected a factor > 0")
    used, notes, joins = set(), [], []
    executors = sc["cluster"]["executors"]
    mt_dop = sc.get("flags", {}).get("mt_dop", 0)
    for q in sc["queries"]:
        qm = queries.get(q["name"])
        q.pop("expected", None)
        scan_bytes = {} if qm is None else {str(oid): o.total("BytesRead") for f in qm.fragments.values()
                                            for oid, o in f.operators.items() if o.kind.endswith("SCAN_NODE")}
        ids = [int(m) for plan in (q, q.get("parallel") or {}) for f in plan.get("fragments", [])
               for m in re.findall(r"\d+", f["id"])]
        ids += [int(m) for plan in (q, q.get("parallel") or {}) for x in plan.get("exchanges", [])
                for m in re.findall(r"\d+", x["id"])]
        counter, given = [max(ids + [0])], {}

        def next_id(join_id):
            """The new exchange's and fragment's number for a join: the same in both plans."""
            if join_id not in given:
                counter[0] += 1
                given[join_id] = counter[0]
            return given[join_id]

        for label, plan in (("fragments", q), ("parallel", q.get("parallel"))):
            if not plan:
                continue
            for x in plan["exchanges"]:
                x.pop("expected", None)
            p = _Plan(plan, executors, scan_bytes)
            for f in plan["fragments"]:
                p.scale(f["root"], factor, tables, used)
            for f in plan["fragments"]:
                # Per-instance weights measured the profiled run's instances; a scan with other ranges
                # has other instances (at mt_dop > 0, one per range up to mt_dop per executor).
                if any(id(o) in p.ranges_changed for o in walk_ops(f["root"])):
                    _drop_weights(f, plan)
            name = q["name"] + (" parallel" if label == "parallel" else "")
            widen(p, notes, name)
            if qm is not None:
                plan_mt_dop = 0 if label == "fragments" else max(1, mt_dop)
                for row in _Joins(p, qm, plan_mt_dop, next_id).run(label):
                    joins.append(dict(row, query=q["name"]))
    unknown = sorted(set(tables) - used)
    if unknown:
        raise ProfileError("--scale-table: no scan of the profile reads " + ", ".join(unknown))
    changed = [j for j in joins if "changed" in j]
    return {
        "factor": factor, "tables": dict(sorted(tables.items())),
        "how": __doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
        "fragments": notes, "joins": joins,
        "summary": (f"{len(changed)} of {len([j for j in joins if 'profiled' in j])} joins re-decided change: "
                    + (", ".join(f"join {j['join']} of {j['query']} ({j['plan']}) "
                                 f"{j['profiled'].lower()} -> {j['changed'].lower()}" for j in changed)
                       or "none"))}
