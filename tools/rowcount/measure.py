"""Rows of every plan node at the target scale factor, counted on TPC-DS data.

Two folders of dsdgen output (made by the user with the TPC's kit; the project ships neither):
- the SAMPLE: every table at the target scale factor (SF100) except the sales channels' fact
  tables, which are children of a parallel generation (`dsdgen -PARALLEL P -CHILD C`, the same C
  for each channel's sales table; a child writes its own returns). A child is a contiguous range
  of tickets or orders over all sales dates, so a count over one channel's tickets, divided by the
  share of children present, is an unbiased count at the target scale, with the dimensions' exact
  values there.
- the BASE: a whole smaller scale factor (SF10), for what a sample cannot give.

Each translated node (tools/rowcount/translate.py) gets its target rows by the first rule that
applies (`how` in the output):
  exact      no fact table below it (dimensions only): counted on the sample's full tables;
  sample     the facts of exactly one sales channel below it, and nothing between them and the node
             whose rows are no linear function of theirs (an aggregation, a limit, an analytic
             function): the sample's count / the share of children (sampling error: Poisson,
             1/sqrt(count), a lower bound since a child is a cluster of tickets);
  base       anything else (facts of two channels joined on other keys, aggregations over facts
             and what is above them, inventory, whose children are single snapshot days): counted
             on the base, times the growth of its inputs from the base to the target, node kind
             by node kind as the workload's rules do (a join: the input that grows most; a
             select, analytic or sort: its input; a union: the sum; a limit: at most its limit)
             and, for an aggregation's groups, an occupancy model: the base's groups g among n
             draws give the key domain D (g = D (1 - exp(-n/D))); D grows, table by table,
             by the distinct combinations of that table's grouping columns, target / base (a
             dimension's counted on both, so that a customer's first and last name grow with the
             customers; a fact table's like its rows when they are key-like, distinct >= half its
             rows, or hold its ticket, else as the sample shows them, at least 1; a computed key
             1), multiplied over the tables; the target's groups are D' (1 - exp(-n'/D')) for its
             draws n'. The draws are the input's rows, or where it holds a sales channel's ticket
             its distinct (ticket, group) pairs: a ticket's lines share its customer, date and
             store, so they are one draw of a grouping by those (_draws).
A multi-class aggregation (a ROLLUP's grouping sets, DISTINCT classes) is counted class by class,
each grown by the occupancy model of its own grouping columns, its rows their sum (`classes`); the
aggregation above a ROLLUP's merge that turns each class's rows into rows of one tuple (grouped by
CASE valid_tid() ...) keeps its input's rows. A merge aggregation's input at the target is its
pre-aggregation's input, and a full outer join grows only its matched rows, as the product of
its inputs' growths over the growth of their shared key domain (_full_outer_rows). A range
self-join that a derived statement adds over a plan's relations (q51a) is counted per key on the
base and grown key by key (tools/rowcount/selfjoin.py, `self_joins`). A scan's runtime filters are counted one by one
(the share of the scan's rows each keeps) and all together (the scan's rows). A streaming pre-aggregation's distinct (instance, group) pairs, for the
instances its plan section runs (translate.Translator._per_instance, section_instances), are counted
where its groups are and grown as they are, the instance one more key that does not grow; so are the
pairs for each other leaf the workload's rule J3 can give its fragment (`per_instance_alternatives`:
the hash exchange J3 puts on a broadcast join's probe side, `probe_of` that join, or the leaf of a
fragment below a partitioned join J3 makes broadcast, `leaf`).
"""

import argparse
import json
import math
import os
import re
import sys
import time

from common import atomic
from tools.rowcount import TranslateError, engine, selfjoin, tables
from tools.rowcount.occupancy import occupancy_groups
from tools.rowcount import expr as X
from tools.rowcount.benchmark import TPCDS
from tools.rowcount.translate import PASS_THROUGH, Translator
from tools.tpcds import DEFAULT_OUT, DEFAULT_PLANS, DEFAULT_PROFILES, EXECUTORS, REPO, PlanError
from tools.tpcds.fragments import PARALLEL_MT_DOP
from tools.tpcds import profiles as prof
from tools.tpcds import variants
from tools.tpcds.plans import select_queries

NONLINEAR = ("aggregate", "limit", "analytic")


def load_database(folder, schema, path, threads=None, say=print, benchmark=TPCDS):
    """Load a folder of the benchmark's generator output into the DuckDB file `path` unless the file
    already holds exactly that folder (its files' names and sizes, recorded in the file); returns the
    Folder."""
    f = tables.Folder(folder, schema, suffix=benchmark.suffix)
    if not f.files:
        raise TranslateError("%s: no %s output (TABLE%s or TABLE_<child>_<parallel>%s) found" % (
            folder, benchmark.generator, benchmark.suffix, benchmark.suffix))
    stamp = ";".join("%s:%d" % (os.path.basename(p), os.path.getsize(p))
                     for t in sorted(f.files) for p in f.files[t])
    if os.path.exists(path):
        got = engine.run([("stamp", "SELECT stamp FROM exsim_loaded")], path, threads, read_only=True)["stamp"]
        if "rows" in got and got["rows"] and got["rows"][0][0] == stamp:
            return f
        os.remove(path)
    say("loading %s into %s (%d tables; minutes for large folders)" % (folder, path, len(f.files)))
    stmts = tables.load_statements(f, schema, benchmark.generator_columns)
    stmts.append(("stamp", "CREATE TABLE exsim_loaded AS SELECT '%s' AS stamp" % stamp.replace("'", "''")))
    res = engine.run(stmts, path + ".tmp", threads,
                     on_result=lambda i, r: say("  %s %s" % (i, r.get("error", "%.1f s" % r.get("seconds", 0)))))
    bad = {k: v["error"] for k, v in res.items() if "error" in v}
    if bad:
        raise TranslateError("%s: loading failed: %s" % (folder, "; ".join("%s: %s" % kv for kv in bad.items())))
    os.replace(path + ".tmp", path)
    return f


class PlanMeasure:
    """One plan section of one query: its translation and what to count where."""

    def __init__(self, key, plan, schema, query_text, benchmark=TPCDS, instances=None):
        self.key = key
        self.plan = plan
        self.bench = benchmark
        self.tr = Translator(plan, schema, query_text, dialect=benchmark.dialect, instances=instances,
                             tickets=benchmark.tickets)
        for n in sorted(plan.nodes.values(), key=lambda n: n.nid):
            try:
                self.tr.relation(n)
            except TranslateError:
                pass
        self.tr.finish()
        self._lineage = {}
        self.cls = {}
        self.rel = {nid: r for nid, r in self.tr.node_rel.items() if not isinstance(r, TranslateError)}
        self.failed = {nid: str(r) for nid, r in self.tr.node_rel.items() if isinstance(r, TranslateError)}

    def tables_below(self, name):
        return {self.tr.rels[n].kind[5:] for n in self.tr.closure([name])
                if (self.tr.rels[n].kind or "").startswith("scan ")}

    def classify(self, nid, sampled):
        """exact, sample or base for node `nid` (module docstring): exact when no sampled fact is below it,
        sample when its rows are one channel's sampled rows (joined with dimensions, or with the same
        channel's facts on the ticket or order number), base otherwise."""
        chans, linear = self.lineage(self.rel[nid].name, frozenset(sampled))
        if not linear:
            return "base"
        return "sample" if chans else "exact"

    def lineage(self, name, sampled):
        """(the sales channels whose sampled rows make up the relation's rows, whether its count is that
        sample's count times a constant). A dependence on sampled rows other than through the row lineage
        (a runtime filter, a semi or anti join, an aggregation, a limit) is linear only when it follows
        the same channel's ticket or order number."""
        memo = self._lineage
        if name in memo:
            return memo[name]
        r = self.tr.rels[name]
        kind = r.kind or ""
        if kind.startswith("scan "):
            t = kind[5:]
            out = (frozenset([self.bench.channels[t]]) if t in sampled else frozenset(), t not in self.bench.base_only)
        elif r.join:
            j = r.join
            cp, lp = self.lineage(j["probe"], sampled)
            cb, lb = self.lineage(j["build"], sampled)
            ticket = any(_is_ticket(a, self.bench.tickets) and _is_ticket(b, self.bench.tickets)
                         for a, b in j["keys"])
            if "SEMI" in j["type"] or "ANTI" in j["type"]:
                kept, other = (cb, cp) if j["type"].startswith("RIGHT") else (cp, cb)
                out = (kept, lp and lb and (not other or (other == kept and len(kept) == 1 and ticket)))
            else:
                out = (cp | cb, lp and lb and (not cp or not cb or (cp == cb and len(cp) == 1 and ticket)))
        elif r.filter_links is not None:
            chans, lin = self.lineage(r.deps[0], sampled)
            for target, src, build in r.filter_links:
                cb, lb = self.lineage(build, sampled)
                lin = lin and lb and (not cb or (cb == chans and _is_ticket(target, self.bench.tickets)
                                                 and _is_ticket(src, self.bench.tickets)))
            out = (chans, lin)
        else:
            parts = [self.lineage(d, sampled) for d in r.deps]
            chans = frozenset().union(*(c for c, _ in parts)) if parts else frozenset()
            lin = all(lv for _, lv in parts)
            if r.kind in NONLINEAR and chans:
                lin = False
            if len(parts) > 1 and any(not c for c, _ in parts) and chans:
                lin = False      # a union of sampled and whole inputs
            out = (chans, lin)
        memo[name] = out
        return out

    def inputs(self, node):
        """The nodes whose rows a node's rows follow (through pass-through nodes)."""
        out = []
        for c in node.children:
            while c.kind in PASS_THROUGH and c.children:
                c = c.children[0]
            out.append(c)
        return out


# A statement that runs longer is interrupted: its node and those that read it are left to the rules
# (an 18-table join of q64 at SF10 does not end in minutes on two cores).
STATEMENT_TIMEOUT_S = 120

def _is_ticket(text, tickets):
    """A plan expression that is a channel's ticket or order number (the key a sample's child keeps whole:
    the benchmark's `tickets`)."""
    return text.strip().split(".")[-1] in tickets


class Script:
    """The statements for one database: plan by plan, the relations its counts read materialised as
    temporary tables (each computed once), the counts, the tables dropped; and counts of whole tables.
    Counts are kept in a cache beside the database (`<database>.counts.json`, keyed by the database
    file's size and time and by each statement's SQL), so that a rerun counts only what changed."""

    def __init__(self, macros=()):
        self.macros = list(macros)   # the benchmark's macros, defined before the counts
        self.groups = []     # [(count ids, statements)]: one group per plan, plus the whole tables'
        self.tables = []
        self.ids = set()
        self.row_ids = set()
        self.result = {}

    def table(self, sql):
        sid = "g|" + sql
        if sid not in self.ids:
            self.ids.add(sid)
            self.tables.append((sid, sql))

    def plan(self, pm, counts):
        """Count [(relation, condition or None)] of one plan."""
        counts = list(dict.fromkeys(counts))
        if not counts:
            return
        names = [n for rel, where in counts for n in pm.tr.rels_read(rel, where)]
        prefix = pm.key + "|"
        stmts = pm.tr.script(names, prefix)
        ids = []
        for rel, where in counts:
            sid = "%scount %s|%s" % (prefix, rel, where or "")
            ids.append(sid)
            stmts.append((sid, pm.tr.count_sql(rel, where)))
        stmts += pm.tr.drop(names, prefix)
        self.groups.append((ids, stmts))

    def run(self, database, threads, say, label):
        cache_path = database + ".counts.json"
        st = os.stat(database)
        stamp = "%d %d" % (st.st_size, int(st.st_mtime))
        cache = {}
        if os.path.exists(cache_path):
            with open(cache_path, "r", encoding="utf-8") as f:
                doc = json.load(f)
            cache = doc.get("counts", {}) if doc.get("stamp") == stamp else {}
        key = {}
        todo = []
        same = {}        # a plan whose statements another plan has (the two plans of a query often do)
        scheduled = {}
        for ids, stmts in self.groups + [([sid for sid, _ in self.tables], self.tables)]:
            text = "\n".join(sql for _, sql in stmts)
            prefix = ids[0][:ids[0].index("|") + 1] if ids and not ids[0].startswith("g|") else ""
            ks = {sid: sid[len(prefix):] + "\n" + text for sid in ids}
            got = {sid: cache.get(k, cache.get(sid + "\n" + text)) for sid, k in ks.items()}
            if all(v is not None for v in got.values()):
                self.result.update(got)
                continue
            if text in scheduled:
                same.update({sid: scheduled[text][ks[sid]] for sid in ids})
                continue
            scheduled[text] = {k: sid for sid, k in ks.items()}
            key.update(ks)
            todo += stmts
        n_counts = len(key)
        total = sum(len(ids) for ids, _ in self.groups) + len(self.tables)
        say("%s: %d counts to make (%d statements), %d from the cache" % (label, n_counts, len(todo), total - n_counts))
        done = [0]

        def keep(sid, r):
            if sid in self.row_ids and "rows" in r:
                self.result[sid] = [[int(v) for v in row] for row in r["rows"]]
                cache[key[sid]] = self.result[sid]
            elif "rows" in r and r["rows"] and r["rows"][0] and r["rows"][0][0] is not None:
                self.result[sid] = int(r["rows"][0][0])
                cache[key[sid]] = self.result[sid]
            elif "error" in r:
                self.result[sid] = r["error"]

        def progress(sid, res):
            if sid in key:
                keep(sid, res)
                done[0] += 1
                if done[0] % 200 == 0 or done[0] == n_counts:
                    say("%s: %d of %d counts" % (label, done[0], n_counts))
                    # an interrupted run keeps what it counted
                    atomic.write_text(cache_path, json.dumps({"stamp": stamp, "counts": cache}) + "\n")
        if todo:
            engine.run(list(X.MACROS) + self.macros + todo, database, threads, on_result=progress, read_only=True,
                       timeout_s=STATEMENT_TIMEOUT_S)
            atomic.write_text(cache_path, json.dumps({"stamp": stamp, "counts": cache}) + "\n")
        for sid, first in same.items():
            self.result[sid] = self.result.get(first)

    def rows(self, pm, label, names, sql):
        """A SELECT of several rows (a histogram) over relations `names` of one plan, in a group of its
        own; rows_of() reads its rows back, as lists of integers."""
        sid = "%s|rows %s" % (pm.key, label)
        prefix = "%s|%s " % (pm.key, label)
        stmts = pm.tr.script(names, prefix) + [(sid, sql)] + pm.tr.drop(names, prefix)
        self.row_ids.add(sid)
        self.groups.append(([sid], stmts))

    def get(self, pm, rel, where=None):
        return self.result.get("%s|count %s|%s" % (pm.key, rel, where or ""))

    def rows_of(self, pm, label):
        return self.result.get("%s|rows %s" % (pm.key, label))

    def get_table(self, sql):
        return self.result.get("g|" + sql)


def measure(plans, schema, sample_db, sample_folder, base_db, base_folder, threads=None, say=print,
            benchmark=TPCDS, instances=None, self_joins=None):
    """plans: [(key, Plan, query text)] -> ({key: section record}, data) (see tools/tpcds_measure_rows.py).
    `instances(key)`: how many instances a plan's fragments fed by a fact scan or a hash exchange run,
    for the pre-aggregations' (instance, group) pairs (translate.Translator._per_instance); None: not
    counted. `self_joins(key, plan)`: {label: spec} of the range self-joins a statement derived from
    the plan adds over the plan's relations (tools/rowcount/selfjoin.py; a spec names the node whose
    rows are joined, its key, its sources [(node, key)] and the key's dimension table), counted on the
    base and grown (the record's `self_joins`)."""
    sampled = {t: sample_folder.sample_fraction(t) for t in sample_folder.children}
    fraction = {t: f for t, f in sampled.items() if t in benchmark.channels}
    S, B = Script(benchmark.macros), Script(benchmark.macros)
    both = sorted(set(schema) & set(sample_folder.files) & set(base_folder.files))
    for t in both:
        S.table("SELECT count(*) FROM %s" % t)
        B.table("SELECT count(*) FROM %s" % t)
    pms = []
    for key, plan, text in plans:
        pm = PlanMeasure(key, plan, schema, text, benchmark, instances(key) if instances else None)
        pm.cls = {nid: pm.classify(nid, fraction) for nid in pm.rel}
        pms.append(pm)
        on_s, on_b = [], []
        for nid, rel in sorted(pm.rel.items()):
            node = plan.nodes[nid]
            c = pm.cls[nid]
            want = on_b if c == "base" else on_s
            want.append((rel.name, None))
            if rel.per_instance and c != "sample":
                want.append((rel.per_instance[1], None))
            if rel.per_instance_alternatives and c != "sample":
                want.extend((r, None) for _, r in rel.per_instance_alternatives)
            if rel.classes and c != "sample":
                want.extend((rel.name, cond) for _, cond, _ in rel.classes)
            if c == "base":
                for i in pm.inputs(node):
                    if i.nid in pm.rel:
                        on_b.append((pm.rel[i.nid].name, None))
                if rel.input:
                    on_b.append((rel.input, None))
                if rel.per_ticket:
                    on_b.append((rel.per_ticket, None))
                for gc in [rel.group_columns or []] + [k[2] for k in rel.classes or []]:
                    for t, cols in _by_table(gc).items():
                        S.table(_distinct_sql(t, cols))
                        B.table(_distinct_sql(t, cols))
            if node.kind == "SCAN HDFS" and pm.tr.filters.get(nid):
                plain = "n%d_plain" % nid
                want.append((plain, None))
                for jid, rfs, cond in _filters_by_join(pm.tr.filters[nid]):
                    want.append((plain, cond))
        pm.self_joins = _self_join_statements(pm, B, on_b, self_joins(key, plan) if self_joins else {})
        S.plan(pm, on_s)
        B.plan(pm, on_b)
    S.run(sample_db, threads, say, "sample")
    B.run(base_db, threads, say, "base")
    rows_s = {t: S.get_table("SELECT count(*) FROM %s" % t) for t in both}
    rows_b = {t: B.get_table("SELECT count(*) FROM %s" % t) for t in both}
    rows_full = target_rows(rows_s, sampled)
    out = {}
    for pm in pms:
        out[pm.key] = _values(pm, S, B, fraction, rows_full, rows_b)
        if pm.self_joins:
            out[pm.key]["self_joins"] = _self_join_rows(pm, B, out[pm.key]["nodes"], rows_full, rows_b)
    meta = {"sample_tables": {t: {"rows": rows_s.get(t), "fraction": sampled.get(t, 1.0)} for t in both},
            "base_tables": {t: rows_b.get(t) for t in both}}
    return out, meta


def _self_join_statements(pm, B, on_b, specs):
    """Schedule each self-join's base histogram and its sources' base counts; {label: (spec, its sources'
    relation names or None, why not or None)}."""
    out = {}
    for label, spec in sorted(specs.items()):
        try:
            rel = pm.rel[spec["node"]]
            key = X.sql(spec["key"], pm.tr.scope(rel))
            srcs = [(pm.rel[nid].name, X.sql(k, pm.tr.scope(pm.rel[nid]))) for nid, k in spec["sources"]]
        except (KeyError, TranslateError) as e:
            out[label] = (spec, None, "not translated: %s" % e)
            continue
        B.rows(pm, label, [rel.name] + [n for n, _ in srcs], selfjoin.histogram_sql(rel.name, key, srcs))
        on_b.extend((n, None) for n, _ in srcs)
        out[label] = (spec, [n for n, _ in srcs], None)
    return out


def _self_join_rows(pm, B, nodes, rows_full, rows_b):
    """label -> the self-join's record: its target rows grown from the base histogram (selfjoin.grow)."""
    out = {}
    for label, (spec, srcs, error) in sorted(pm.self_joins.items()):
        hist = B.rows_of(pm, label) if error is None else None
        missing = [nid for nid, _ in spec["sources"] if str(nid) not in nodes]
        if error is None and missing:
            error = "its source node %d has no count" % missing[0]
        if error is not None or not isinstance(hist, list):
            out[label] = {"node": spec["node"], "error": error or "the engine refused it: %s" % str(hist)[:300]}
            continue
        growth = []
        for (nid, _), name in zip(spec["sources"], srcs):
            b = B.get(pm, name)
            growth.append(nodes[str(nid)]["rows"] / b if isinstance(b, int) and b else 1.0)
        kg = _growth_of_table(spec["key_table"], rows_full, rows_b)
        keys = sum(r[-1] for r in hist)
        out[label] = {
            "node": spec["node"], "base_count": selfjoin.base_rows(hist),
            "rows": selfjoin.grow(hist, growth, kg), "keys_at_base": keys,
            "rule": "range self-join counted on the base (%d keys), grown key by key: keys x%.4g (%s), sources' "
                    "rows x%s, each key's rows by the occupancy model (tools/rowcount/selfjoin.py)" % (
                        keys, kg, spec["key_table"], ", x".join("%.4g" % g for g in growth))}
    return out


def _filters_by_join(filters):
    """[(join id, rf ids, condition)]: a scan's filters grouped by the join that produces them (the
    scenario gives one keep share per producing join)."""
    by = {}
    for rfs, jid, cond, _ in filters:
        j = by.setdefault(jid, ([], []))
        j[0].extend(rfs)
        j[1].append("(%s)" % cond)
    return [(jid, sorted(rfs), " AND ".join(conds)) for jid, (rfs, conds) in sorted(by.items())]


def _by_table(group_columns):
    """table -> its grouping columns (base columns only), in order."""
    out = {}
    for tc in group_columns:
        if tc is not None and tc[1] not in out.get(tc[0], []):
            out.setdefault(tc[0], []).append(tc[1])
    return out


def _distinct_sql(table, cols):
    """The distinct combinations of one table's grouping columns: the key domain that table gives a
    grouping (names of one customer grow with the customers, not as the product of their own counts)."""
    return "SELECT count(*) FROM (SELECT DISTINCT %s FROM %s)" % (", ".join(sorted(cols)), table)


def target_rows(sample_rows, sampled):
    """Every table's rows at the target scale factor: a sampled table's count over its share, whether its
    nodes are counted on the sample (a sales channel) or on the base (inventory, whose children are
    single snapshot days, is still a share of the table in the sample folder)."""
    return {t: n / sampled.get(t, 1.0) for t, n in sample_rows.items() if n is not None}


def _growth_of_table(t, rows_full, rows_b):
    """A table's rows at the target scale factor over its rows at the base."""
    return rows_full[t] / rows_b[t] if rows_b.get(t) else 1.0


def _values(pm, S, B, fraction, rows_full, rows_b):
    """The section's record: every node's target rows with how they were found."""
    val = {}

    def count(db, name, where=None):
        return counted(db, pm, name, where)

    def share(name):
        tabs = [t for t in pm.tables_below(name) if t in fraction]
        return fraction[tabs[0]] if tabs else 1.0

    def value(node):
        nid = node.nid
        if nid in val:
            return val[nid]
        rel = pm.rel[nid]
        c = pm.cls[nid]
        rec = {"kind": node.kind, "how": c}
        if c == "exact":
            rec["rows"] = float(count(S, rel.name))
        elif c == "sample":
            n = count(S, rel.name)
            f = share(rel.name)
            rec.update(rows=n / f, sample_count=n, sampling_error=(1.0 / math.sqrt(n)) if n > 0 else None)
        else:
            b = count(B, rel.name)
            rec["base_count"] = b
            rec["rows"], rec["rule"] = _base_rule(pm, node, rel, b, value, B, S, rows_full, rows_b, fraction)
        if rel.classes and c != "sample":
            rec["classes"] = classes(node, rel, c)
            rec["rows"] = sum(k["rows"] for k in rec["classes"])
            if c == "base":
                rec["rule"] = "the classes' groups, each by its own occupancy model (classes)"
        if rel.per_instance and c != "sample":
            rec["per_instance"] = per_instance(node, rel, c, rec, {"leaf": rel.per_instance[0]}, rel.per_instance[1])
        if rel.per_instance_alternatives and c != "sample":
            rec["per_instance_alternatives"] = [per_instance(node, rel, c, rec, where, r)
                                                for where, r in rel.per_instance_alternatives]
        val[nid] = rec
        return rec

    def classes(node, rel, c):
        """A multi-class aggregation's classes (grouping sets, DISTINCT classes): each counted alone and,
        from the base, grown by the occupancy model of its own grouping columns."""
        out = []
        if c == "base":
            n_b = count(B, rel.input)
            n_t = _input_at_target(pm, node, n_b, value, B)
        for tid, cond, gc in rel.classes:
            k = {"tuple_id": tid, "group_columns": [list(x) if x else None for x in gc]}
            if c == "exact":
                k["rows"] = float(count(S, rel.name, cond))
            else:
                k["base_count"] = b = count(B, rel.name, cond)
                if gc:
                    k["rows"], k["rule"] = _groups_at_target(pm, gc, b, n_b, n_t, S, B, rows_full, rows_b)
                else:
                    k["rows"], k["rule"] = float(b), "no grouping: the base's rows"
            out.append(k)
        return out

    def per_instance(node, rel, c, rec, where, pairs):
        """The distinct (instance, group) pairs a pre-aggregation emits with its rows reaching instances as
        `where` says (translate.Translator._per_instance), relation `pairs`: counted where its groups are,
        carried to the target by the groups' occupancy model with the instance as one more key (it grows
        by 1); at least its groups, at most its input."""
        out = {"instances": pm.tr.instances}
        out.update(where)
        if c == "exact":
            out["rows"] = float(count(S, pairs))
            return out
        b = count(B, pairs)
        n_b = count(B, rel.input)
        n_t = _input_at_target(pm, node, n_b, value, B)
        d_b, d_t, draws = _draws(pm, rel, n_b, n_t, B)
        g, why = _groups_at_target(pm, rel.group_columns, b, d_b, d_t, S, B, rows_full, rows_b)
        out.update(rows=min(max(g, rec["rows"]), n_t), base_count=b, rule=why + draws)
        return out

    def scan_filters(node, rec):
        nid = node.nid
        if not pm.tr.filters.get(nid):
            return
        db = S if pm.cls[nid] != "base" else B
        plain = "n%d_plain" % nid
        try:
            p, after = count(db, plain), count(db, pm.rel[nid].name)
            keeps = []
            for jid, rfs, cond in _filters_by_join(pm.tr.filters[nid]):
                keeps.append({"join": jid, "filters": rfs, "keep": (count(db, plain, cond) / p) if p else 1.0})
            rec["filters"] = keeps
            rec["before_filters"] = rec["rows"] * p / after if after else None
        except TranslateError as e:
            rec["filters_error"] = str(e)

    nodes = collect_nodes(pm, value, val, scan_filters)
    return {"nodes": {k: nodes[k] for k in sorted(nodes, key=int)},
            "untranslated": {str(k): pm.failed[k] for k in sorted(pm.failed)},
            "sql": {name: r.sql for name, r in pm.tr.rels.items()}}


def counted(db, pm, name, where=None):
    """The engine's count of relation `name` of plan `pm` in `db` (a Script), `where` applied; a
    TranslateError when the engine refused the statement."""
    v = db.get(pm, name, where)
    if not isinstance(v, int):
        raise TranslateError("the engine refused it: %s" % str(v)[:300])
    return v


def collect_nodes(pm, value, val, scan_extras):
    """node id (str) -> record of every node of plan `pm`: value(node) for each translated node, a
    scan's record completed by scan_extras(node, record), then the records value() made on the way
    (`val`, by node id) for nodes not yet there. A node that does not translate goes to pm.failed."""
    nodes = {}
    for nid in sorted(pm.rel):
        node = pm.plan.nodes[nid]
        try:
            rec = value(node)
        except TranslateError as e:
            pm.failed[nid] = str(e)
            continue
        if node.kind == "SCAN HDFS":
            scan_extras(node, rec)
        nodes[str(nid)] = rec
    for nid, rec in val.items():
        if str(nid) not in nodes:
            nodes[str(nid)] = rec
    return nodes


def _input_at_target(pm, node, n_b, value, B):
    """An aggregation's input rows at the target, from its `n_b` at the base: the value of the node
    whose relation is the aggregation's input (a merge aggregation's is its pre-aggregation's input,
    not the pre-aggregation's groups); else its first input's value (pass-through nodes included)
    times n_b / that input's base count; the value alone when the base has none of its rows."""
    name = pm.rel[node.nid].input if node.nid in pm.rel else None
    same = [nid for nid, r in sorted(pm.rel.items()) if name and r.name == name]
    if same:
        return float(value(pm.plan.nodes[same[0]])["rows"])
    ins = [i for i in pm.inputs(node) if i.nid in pm.rel]
    if not ins:
        return float(n_b)
    bi = B.get(pm, pm.rel[ins[0].nid].name)
    ti = value(ins[0])["rows"]
    return ti * n_b / bi if bi else float(ti)


def _draws(pm, rel, n_b, n_t, B):
    """(draws at the base, draws at the target, text) of an aggregation whose input rows are `n_b` at the
    base and `n_t` at the target: the occupancy model's independent draws. Where the input holds a
    ticket (rel.per_ticket), a ticket's lines that share a group are one draw: the draws are the
    distinct (ticket, group) pairs counted at the base, and at the target the input's rows times the
    base's pairs per row (a ticket's lines and its groups do not change with the scale factor). Checked
    on q38's store groups (last name, first name, date of a year's sales) from SF1 to SF10: 47,682 groups
    of 48,299 pairs among 540,806 rows grow to 466 K where SF10 counts 469,963; the rows as draws give
    193 K."""
    p_b = B.get(pm, rel.per_ticket) if rel.per_ticket else None
    if not isinstance(p_b, int) or not n_b or p_b >= n_b:
        return n_b, n_t, ""
    return p_b, n_t * p_b / n_b, " (draws: %d distinct (ticket, group) pairs of its %d input rows)" % (p_b, n_b)


def _groups_at_target(pm, gc, b, n_b, n_t, S, B, rows_full, rows_b):
    """(groups at the target, rule text) of a grouping by `gc` (an aggregation's or a class's group_columns)
    with `b` groups among `n_b` input rows at the base and `n_t` input rows at the target (module
    docstring: the occupancy model)."""
    dom, parts = _domain_growth(pm, gc, S, B, rows_full, rows_b)
    g, why = occupancy_groups(n_b, b, n_t, dom)
    return g, "occupancy: %s groups of %s input rows at the base; %s; key growth %s" % (
        b, n_b, why, ", ".join(parts))


def _domain_growth(pm, gc, S, B, rows_full, rows_b):
    """(growth of the key domain of columns `gc`, target / base; its parts as texts): the occupancy
    model's domain growth (module docstring), table by table."""
    dom = 1.0
    parts = []
    if any(tc is None for tc in gc):
        parts.append("computed keys x1")
    for t, cols in sorted(_by_table(gc).items()):
        ns = S.get_table(_distinct_sql(t, cols))
        nb = B.get_table(_distinct_sql(t, cols))
        what = "(%s)" % ", ".join(cols)
        if t in pm.bench.channels or t in pm.bench.base_only:
            if isinstance(nb, int) and rows_b.get(t) and nb >= 0.5 * rows_b[t]:
                gcol = _growth_of_table(t, rows_full, rows_b)
                parts.append("%s key-like x%.3g" % (what, gcol))
            elif any(c in pm.bench.tickets for c in cols):
                # tickets grow with the rows; a sample holds its share of them, which says nothing of their growth
                gcol = _growth_of_table(t, rows_full, rows_b)
                parts.append("%s with the ticket x%.3g" % (what, gcol))
            else:
                gcol = max(1.0, ns / nb) if isinstance(ns, int) and isinstance(nb, int) and nb else 1.0
                parts.append("%s x%.3g" % (what, gcol))
        else:
            gcol = ns / nb if isinstance(ns, int) and isinstance(nb, int) and nb else 1.0
            parts.append("%s of %s x%.3g" % (what, t, gcol))
        dom *= gcol
    return dom, parts


def _full_outer_rows(pm, rel, b, sizes, growth, S, B, rows_full, rows_b):
    """(target rows, rule text) of a full outer join counted on the base: every row of both inputs
    once, less the matches. A key value matches when both inputs hold it, so the matches grow as the
    product of the inputs' growths over the growth of the key domain they share (the larger of the
    two sides' domain growths, _domain_growth), at most the smaller input. Checked on q51 from SF1 to
    SF10: 26,544 matches grow to 418 K where SF10 counts 411,571 (growing them as the input that
    grows most gives 258 K)."""
    (lb, lt), (rb, rt) = sizes
    m_b = max(0, lb + rb - b)
    doms = [_domain_growth(pm, cols, S, B, rows_full, rows_b) for cols in rel.join["key_columns"]]
    dom, parts = max(doms, key=lambda d: d[0])
    m = min(m_b * growth[0] * growth[1] / dom, lt, rt)
    return lt + rt - m, ("both inputs' rows less the matches: %d at the base x %.4g x %.4g (the inputs' "
                         "growths) / %.4g (key domain growth %s)" % (m_b, growth[0], growth[1], dom,
                                                                      ", ".join(parts)))


def _base_rule(pm, node, rel, b, value, B, S, rows_full, rows_b, fraction):
    """(target rows, rule text) of a node counted on the base."""
    k = node.kind
    ins = [i for i in pm.inputs(node) if i.nid in pm.rel]
    growth, sizes = [], []
    for i in ins:
        bi = B.get(pm, pm.rel[i.nid].name)
        ti = value(i)["rows"]
        growth.append(ti / bi if bi else 1.0)
        sizes.append((bi or 0, ti))
    if k == "SCAN HDFS":
        g = _growth_of_table(node.table, rows_full, rows_b)
        return b * g, "base count x %.4g (the table's rows, target / base)" % g
    if k in ("HASH JOIN", "NESTED LOOP JOIN"):
        jt = node.join_type
        if len(growth) != 2:
            raise TranslateError("join inputs not counted")
        if jt in ("LEFT SEMI JOIN", "LEFT ANTI JOIN", "NULL AWARE LEFT ANTI JOIN"):
            g, why = growth[0], "left input's growth"
        elif jt in ("RIGHT SEMI JOIN", "RIGHT ANTI JOIN"):
            g, why = growth[1], "right input's growth"
        elif jt == "CROSS JOIN":
            g, why = growth[0] * growth[1], "product of the inputs' growths"
        else:
            g = max(growth, key=lambda x: abs(math.log(x)) if x > 0 else 0)
            why = "growth of the input that grows most"
            if jt == "FULL OUTER JOIN":
                return _full_outer_rows(pm, rel, b, sizes, growth, S, B, rows_full, rows_b)
        return b * g, "base count x %.4g (%s)" % (g, why)
    if k == "AGGREGATE":
        gc = rel.group_columns
        src = pm.tr.rels.get(rel.input or "")
        if not node.group_by and not gc:
            return float(b), "no grouping: the base's rows"
        if rel.kind != "aggregate" or src is None:
            g = growth[0] if growth else 1.0
            return b * g, "base count x %.4g (input's growth)" % g
        n_b = B.get(pm, src.name)
        n_t = _input_at_target(pm, node, n_b, value, B)
        d_b, d_t, why = _draws(pm, rel, n_b, n_t, B)
        g, rule = _groups_at_target(pm, gc, b, d_b, d_t, S, B, rows_full, rows_b)
        return g, rule + why
    if k == "UNION":
        tb = sum(B.get(pm, pm.rel[i.nid].name) or 0 for i in ins)
        tt = sum(value(i)["rows"] for i in ins)
        g = tt / tb if tb else 1.0
        return b * g, "base count x %.4g (the inputs' sum)" % g
    g = growth[0] if growth else 1.0
    v = b * g
    why = "base count x %.4g (input's growth)" % g
    if rel.kind == "limit" and node.limit is not None:
        v = min(v, float(node.limit))
        why += ", at most its limit %d" % node.limit
    return v, why



# --------------------------------------------------------------------------
# The check on real runs: a profile's rows against the counts on the same data
# --------------------------------------------------------------------------

NODE_PROFILE_RE = re.compile(r"([A-Z_]+) \(id=(\d+)\)")



def profile_rows(path):
    """{node id: RowsReturned summed over the profile's fragment instances}."""
    rows = {}

    def visit(node, host):
        m = NODE_PROFILE_RE.match(node.get("profile_name", ""))
        if m and host:
            rows[int(m.group(2))] = rows.get(int(m.group(2)), 0) + (prof._counter(node, "RowsReturned") or 0)
    prof._walk_instances(prof.load(path), visit)
    return rows


def _per_instance(node):
    """Whether a profile counts the node's rows once per instance (or per receiver): a limit, a
    pre-aggregation, a broadcast or unpartitioned exchange, and an exchange carrying one of those."""
    if node.limit is not None or node.bracket == "[STREAMING]":
        return True
    if node.kind in ("EXCHANGE", "MERGING-EXCHANGE"):
        return node.bracket in ("[BROADCAST]", "[UNPARTITIONED]") or _per_instance(node.children[0])
    return False


def check_profiles(paths, schema, database, threads=None, say=print):
    """Every translated node of each profile's plan counted on `database` (the profile's data) next to the
    rows the run returned. Runtime filters are left out: a profile's scans return the rows its filters let
    through in time, which the plan does not say. Per-instance nodes (a pre-aggregation's groups, a top-n's
    or limit's rows, what a broadcast or an unpartitioned exchange receives) count once per instance in
    a profile: they are listed, not required to match. Returns [row], failures."""
    out, failures = [], 0
    for path in paths:
        plan, _ = prof.measured_plan(path)
        doc = prof.load(path)
        try:
            text = prof._info(doc, "Sql Statement")
        except PlanError:
            text = ""
        tr = Translator(plan, schema, text, runtime_filters=False)
        for n in sorted(plan.nodes.values(), key=lambda n: n.nid):
            try:
                tr.relation(n)
            except TranslateError:
                pass
        tr.finish()
        names = [r.name for r in tr.node_rel.values() if not isinstance(r, TranslateError)]
        stmts = tr.script(names, "") + [("count %d" % nid, tr.count_sql(r.name)) for nid, r in
                                         sorted(tr.node_rel.items()) if not isinstance(r, TranslateError)]
        res = engine.run(list(X.MACROS) + stmts, database, threads, read_only=True)
        res = {k[len("count "):]: v for k, v in res.items() if k.startswith("count ")}
        measured = profile_rows(path)
        for nid, r in sorted(tr.node_rel.items()):
            node = plan.nodes[nid]
            per_instance = _per_instance(node)
            row = {"profile": os.path.basename(path), "node": nid, "kind": node.kind, "bracket": node.bracket,
                   "profile_rows": measured.get(nid)}
            if isinstance(r, TranslateError):
                row["untranslated"] = str(r)
            else:
                got = res[str(nid)]
                row["counted"] = int(got["rows"][0][0]) if "rows" in got else None
                row["error"] = got.get("error")
            row["per_instance"] = per_instance
            row["equal"] = row.get("counted") is not None and row["counted"] == row["profile_rows"]
            if not row["equal"] and not per_instance:
                failures += 1
            out.append(row)
    return out, failures


# --------------------------------------------------------------------------
# Command line (tools/tpcds_measure_rows.py)
# --------------------------------------------------------------------------

SECTION_NAMES = ("DISTRIBUTEDPLAN", "PARALLELPLANS")


def section_instances(key):
    """The instances of a fragment fed by a fact scan or a hash exchange in the measured cluster
    (calibration-data.md section A): one per executor at mt_dop=0 (DISTRIBUTEDPLAN), mt_dop per
    executor in the parallel plan. The workload uses a pre-aggregation's pairs only where its own plan
    has that many instances and the same leaf (tools/tpcds/scaling.py, rule M3)."""
    return EXECUTORS * (PARALLEL_MT_DOP if key.split(" ")[-1] == "PARALLELPLANS" else 1)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Count the rows of every node of Impala's TPC-DS plans on TPC-DS data (dsdgen output) and "
                    "write scenarios/tpcds_sf100/measured_rows.json, which tools/tpcds_workload.py reads.",
        epilog="The data is yours to make with the TPC's kit (dsdgen); this tool never builds or runs it. "
               "--sample: every table at the target scale, the sales tables as children of "
               "`dsdgen -PARALLEL P -CHILD C` (the same C for the three channels); --base: a whole smaller scale "
               "factor. tools/rowcount/measure.py says how each node's rows are found.")
    ap.add_argument("--check-profiles", metavar="DATA",
                    help="instead of measuring: count the nodes of the SF1 profiles' plans (--profiles) on DATA, a "
                         "folder of dsdgen output at their scale factor, next to the rows the runs returned")
    ap.add_argument("--profiles", default=DEFAULT_PROFILES, help="profiles for --check-profiles (default "
                    "../shared/impala-profiles: tpcds_*_profile.json)")
    ap.add_argument("--sample", help="folder of dsdgen output at the target scale (sales tables sampled)")
    ap.add_argument("--sample-scale", type=int, default=100, help="its scale factor (default 100)")
    ap.add_argument("--base", help="folder of dsdgen output of a whole smaller scale factor")
    ap.add_argument("--base-scale", type=int, default=10, help="its scale factor (default 10)")
    ap.add_argument("--plans", default=DEFAULT_PLANS, help="Impala's TPC-DS planner tests (default ../shared/impala-plans)")
    ap.add_argument("--queries", default="", help="comma-separated plan stems (q01,q72,...; default: the workload's)")
    ap.add_argument("--cache", default=os.path.join(REPO, "build", "rowcount"),
                    help="folder for the DuckDB databases loaded from the data (default build/rowcount)")
    ap.add_argument("--threads", type=int, default=0, help="DuckDB threads (default: all cores)")
    ap.add_argument("--out", default=os.path.join(DEFAULT_OUT, "measured_rows.json"))
    args = ap.parse_args(argv)
    say = lambda m: print("measure_rows: %s" % m, file=sys.stderr, flush=True)   # noqa: E731
    if args.check_profiles:
        return _check_main(ap, args, say)
    if not args.sample or not args.base:
        ap.error("--sample and --base are needed (or --check-profiles DATA)")
    for opt, d in (("--sample", args.sample), ("--base", args.base), ("--plans", args.plans)):
        if not os.path.isdir(d):
            ap.error("%s %s: no such folder" % (opt, d))
    if args.threads < 0:
        ap.error("--threads: expected 0 (all cores) or more, got %d" % args.threads)
    t0 = time.monotonic()
    try:
        schema = TPCDS.columns(args.plans)
        _, selected = select_queries(args.plans)
        stems = sorted({s for _, s in selected})
        if args.queries:
            want = [q.strip() for q in args.queries.split(",") if q.strip()]
            unknown = [q for q in want if not os.path.isfile(os.path.join(args.plans, "tpcds-%s.test" % q))]
            if unknown:
                ap.error("--queries: no plan file for %s" % ", ".join(unknown))
            stems = want
        os.makedirs(args.cache, exist_ok=True)
        threads = args.threads or None
        sample_f = load_database(args.sample, schema, os.path.join(args.cache, "sample_sf%d.duckdb" % args.sample_scale),
                                 threads, say)
        base_f = load_database(args.base, schema, os.path.join(args.cache, "base_sf%d.duckdb" % args.base_scale),
                               threads, say)
        plans = TPCDS.read_plans(args.plans, stems, SECTION_NAMES)
        result, meta = measure(plans, schema, os.path.join(args.cache, "sample_sf%d.duckdb" % args.sample_scale),
                               sample_f, os.path.join(args.cache, "base_sf%d.duckdb" % args.base_scale), base_f,
                               threads, say, instances=section_instances,
                               self_joins=lambda key, plan: variants.self_joins(key.split(" ")[0], plan))
    except (TranslateError, PlanError, engine.EngineError) as e:
        print("measure_rows: %s" % e, file=sys.stderr)
        return 2
    queries = {}
    for key, rec in result.items():
        stem, section = key.split(" ")
        queries.setdefault(stem, {})[section] = rec
    doc = {
        "about": "Rows of every node of Impala's TPC-DS plans at SF%d, counted on TPC-DS data by "
                 "tools/tpcds_measure_rows.py (tools/rowcount/measure.py says how: exact, sample, base)."
                 % args.sample_scale,
        "scale_factor": args.sample_scale,
        "base_scale_factor": args.base_scale,
        "engine": "DuckDB %s (npm @duckdb/node-api)" % _engine_version(),
        "data": meta,
        "queries": {k: queries[k] for k in sorted(queries)},
    }
    atomic.write_text(args.out, json.dumps(doc, indent=1, sort_keys=False) + "\n")
    n = sum(len(r["nodes"]) for q in queries.values() for r in q.values())
    u = sum(len(r["untranslated"]) for q in queries.values() for r in q.values())
    say("%d plan nodes measured, %d not translated -> %s in %.0f s" % (n, u, args.out, time.monotonic() - t0))
    return 0


def _check_main(ap, args, say):
    if not os.path.isdir(args.check_profiles):
        ap.error("--check-profiles %s: no such folder" % args.check_profiles)
    paths = sorted(os.path.join(args.profiles, f) for f in os.listdir(args.profiles)
                   if f.startswith("tpcds_") and f.endswith("_profile.json")) if os.path.isdir(args.profiles) else []
    if not paths:
        ap.error("--profiles %s: no tpcds_*_profile.json there" % args.profiles)
    try:
        schema = TPCDS.columns(args.plans)
        os.makedirs(args.cache, exist_ok=True)
        db = os.path.join(args.cache, "check.duckdb")
        load_database(args.check_profiles, schema, db, args.threads or None, say)
        rows, failures = check_profiles(paths, schema, db, args.threads or None, say)
    except (TranslateError, PlanError, engine.EngineError) as e:
        print("measure_rows: %s" % e, file=sys.stderr)
        return 2
    for r in rows:
        print("%-44s %3d %-17s %-34s profile %12s  counted %12s  %s" % (
            r["profile"], r["node"], r["kind"], r["bracket"][:34], r["profile_rows"],
            r.get("counted", "-"), "equal" if r["equal"] else
            ("per instance" if r["per_instance"] else "DIFFERS") + (" (%s)" % r["untranslated"][:60]
                                                                     if "untranslated" in r else "")))
    say("%d nodes, %d equal, %d per-instance, %d differ" % (
        len(rows), sum(r["equal"] for r in rows), sum(r["per_instance"] and not r["equal"] for r in rows), failures))
    if args.out != os.path.join(DEFAULT_OUT, "measured_rows.json"):
        atomic.write_text(args.out, json.dumps({"profile_check": rows}, indent=1) + "\n")
    return 1 if failures else 0


def _engine_version():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "package.json")) as f:
        return json.load(f)["dependencies"]["@duckdb/node-api"]
