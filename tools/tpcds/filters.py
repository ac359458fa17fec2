"""Rule F1: the runtime filters a scan waits for, and the share of its rows each one keeps.

Impala's plans list the filters a join's build produces (`runtime filters: RF000[bloom] <- d_date_sk`,
under the join's JOIN BUILD fragment) and those a scan applies (`runtime filters: RF000[bloom] ->
ss_sold_date_sk`). A scan waits for its filters up to RUNTIME_FILTER_WAIT_TIME_MS and drops the rows
they reject (the simulator's `runtime_filters` on a scan: README "Runtime filters").

How much a filter keeps is the planner's own estimate: since IMPALA-11430's successors the planner
reduces a scan's cardinality by the filters of the joins above it (ScanNode.
reduceCardinalityByRuntimeFilter and getReducedCardinalityByFilter, apache/impala b21595276c
ScanNode.java 601-668: join by join, bottom up, each join's filters cutting the rows to what the join
keeps; the plan prints the result as `cardinality=X(filtered from Y)`). This rule splits that total
over the producing joins in proportion to what each join keeps of its probe input
(min(1, output rows / probe rows), the share a bloom filter on the join's keys passes when the
filter has no false positives), so that the product of the filters' shares is the plan's X / Y.
A scan whose cardinality the plan does not reduce waits for its filters but keeps every row. A
share of 0.9 or more keeps 1: Impala's scanners stop applying a filter that rejects less than 10%
of the rows (`--min_filter_reject_ratio` 0.1, be/src/exec/hdfs-scanner.cc 45-46, 973-983).
"""

import math
import re

from tools.tpcds.plans import EXCHANGE_KINDS

# The filter's type in brackets; the standard explain level (tpch-all.test) prints none.
RF_RE = re.compile(r"(RF\d+)(?:\[(\w+)\])?")
MIN_REJECT = 0.1   # --min_filter_reject_ratio


def _rf_ids(lines, arrow):
    out = []
    for d in lines:
        s = d.lstrip("| ").strip()
        if s.startswith("runtime filters: "):
            for part in s[len("runtime filters: "):].split(", "):
                m = RF_RE.match(part.strip())
                if m and (" %s " % arrow) in part:
                    out.append(m.group(1))
    return out


def produced(join):
    """The RF ids a join's build produces (its own lines, or its JOIN BUILD fragment's)."""
    lines = list(join.details)
    if len(join.children) > 1 and join.children[1].fragment is not None and join.children[1].fragment.join_build:
        lines += join.children[1].fragment.details
    return _rf_ids(lines, "<-")


def producers_above(scan):
    """RF id -> the join that produces it, among the joins whose probe side holds `scan` (a filter
    targets scans on its join's probe side: RuntimeFilterGenerator)."""
    out = {}
    child, n = scan, scan.parent
    while n is not None:
        if n.kind in ("HASH JOIN", "NESTED LOOP JOIN") and n.children and n.children[0] is child:
            for rf in produced(n):
                out.setdefault(rf, n)
        child, n = n, n.parent
    return out


def _probe_keep(join):
    probe = join.children[0]
    out_rows = join.filtered_from or join.card
    in_rows = probe.filtered_from or probe.card
    while in_rows is None and probe.kind in EXCHANGE_KINDS:
        probe = probe.children[0]
        in_rows = probe.filtered_from or probe.card
    if not in_rows or in_rows <= 0 or out_rows is None:
        return 1.0
    return max(1e-9, min(1.0, out_rows / in_rows))


def scan_filters(scan):
    """[(join node, keep, rf ids)] for the filters `scan` applies, in the order of the joins' ids,
    and a note saying how the shares were found."""
    by_join = {}
    produced_by = producers_above(scan)
    for rf in _rf_ids(scan.details, "->"):
        j = produced_by.get(rf)
        if j is not None:
            by_join.setdefault(j.nid, (j, []))[1].append(rf)
    if not by_join:
        return [], None
    joins = [by_join[k] for k in sorted(by_join)]
    measured = getattr(scan, "measured_scan", None)
    if measured is not None and "filters" in measured:
        # Rule M2: each producing join's filters counted on TPC-DS data (measured_rows.json)
        keep_of = {f["join"]: f["keep"] for f in measured["filters"]}
        out = []
        for j, rfs in joins:
            keep = max(1e-6, min(1.0, keep_of.get(j.nid, 1.0)))   # the scenario takes (0, 1], 6 decimals
            out.append((j, 1.0 if keep >= 1.0 - MIN_REJECT else keep, rfs))
        return out, "F1 runtime filters %s: the share of the scan's rows each join's filters keep, counted on " \
                    "TPC-DS data (M2); a share of 0.9 or more keeps every row" % ", ".join(
                        "%s from join %d keeps %.4g" % ("+".join(rfs), j.nid, k) for j, k, rfs in out)
    total = 1.0
    if scan.filtered_from and scan.card is not None and scan.filtered_from > 0:
        total = min(1.0, scan.card / scan.filtered_from)
    raw = [_probe_keep(j) for j, _ in joins]
    log_raw = sum(math.log(r) for r in raw)
    out = []
    for (j, rfs), r in zip(joins, raw):
        if total >= 1.0 or log_raw >= 0:
            keep = 1.0
        else:
            keep = math.exp(math.log(total) * math.log(r) / log_raw)
        if keep >= 1.0 - MIN_REJECT:
            keep = 1.0
        out.append((j, keep, rfs))
    note = ("F1 runtime filters %s: the plan keeps %s of the rows (filtered from %s), split over the joins by "
            "what each keeps of its probe input" % (
                ", ".join("%s from join %d keeps %.4g" % ("+".join(rfs), j.nid, k) for j, k, rfs in out),
                "%.4g" % total, scan.filtered_from) if total < 1.0 else
            "F1 runtime filters %s: the plan does not reduce the scan's rows; the scan waits for them and keeps "
            "every row" % ", ".join("%s from join %d" % ("+".join(rfs), j.nid) for j, _, rfs in out))
    return out, note
