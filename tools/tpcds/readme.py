"""scenarios/tpcds_sf100/README.md: how every number of the workload was derived. The prose is the
template tools/tpcds/readme_template.md; this module computes what fills its ${...} places."""

import os
from string import Template

from common.tables import markdown_table
from tools.tpcds import EXECUTORS, compression
from tools.tpcds.calibrate import readme_block
from tools.tpcds.ddl import BLOCK_BYTES, TABLE_ROWS
from tools.scenario_ops import walk_ops
from tools.tpcds.fragments import PARALLEL_MT_DOP
from tools.tpcds.profiles import COST_MIN_ROWS, SKEW_SHARE
from tools.tpcds.scaling import MN_OVERRIDES, SCALE_RULES, fmt_ratio
from tools.tpcds.variants import DERIVATIONS

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "readme_template.md")
KINDS = ["HASH_PARTITIONED", "UNPARTITIONED", "MERGING", "RANDOM"]


def n(v):
    return "{:,}".format(int(round(v)))


def gb(b):
    return "%.1f GB" % (b / 1e9)


def exchange_volumes(plan):
    """[(exchange, kind, nominal rows, nominal bytes)] of one plan: the rows are its sender
    fragment's root rows (at the plan's nominal instance counts)."""
    sent = {}
    for f in plan["fragments"]:
        if "exchange" in f["sink"]:
            sent[f["sink"]["exchange"]] = f["root"].get("rows", 0)
    out = []
    for x in plan["exchanges"]:
        kind = "MERGING" if x.get("merging") else x["partitioning"]
        rows = sent.get(x["id"], 0)
        out.append((x, kind, rows, rows * (x["fixed_row_bytes"] + x["var_row_bytes"])))
    return out


def per_query_rows(built):
    """The per-query table's rows, and the hash rows and bytes over all queries (nominal instances)."""
    per = []
    tot_rows = tot_bytes = 0
    for b in built:
        vols = exchange_volumes(b.doc)
        pvols = exchange_volumes(b.doc["parallel"])
        k = {kk: sum(1 for _, kind, _, _ in vols if kind == kk) for kk in KINDS}
        hr = sum(r for _, kind, r, _ in vols if kind == "HASH_PARTITIONED")
        hb = sum(v for _, kind, _, v in vols if kind == "HASH_PARTITIONED")
        tot_rows += hr
        tot_bytes += hb
        ops = sum(1 for f in b.doc["fragments"] for _ in walk_ops(f["root"]))
        per.append([b.name, len(b.doc["fragments"]), ops, k["HASH_PARTITIONED"], k["UNPARTITIONED"], k["MERGING"],
                    k["RANDOM"], sum(1 for _, kind, _, _ in pvols if kind == "HASH_PARTITIONED"), n(hr), gb(hb)])
    return per, tot_rows, tot_bytes


def readme_values(scenario, sm):
    """What fills each ${name} of the template."""
    cnt = sm["counts"]
    c0, cp = cnt["mt_dop=0"], cnt["parallel"]
    sel = [q for q, _ in sm["selected"]]
    check = sm["check"]
    meas = sm["measured"]
    senders = sm["q72_senders"]
    cg = meas["codegen"]
    fitted = sm.get("fitted")
    jd = scenario["provenance"]["join_distribution"]
    per, hash_rows, hash_bytes = per_query_rows(sm["built"])

    def shares(x):
        return ", ".join("%s rows" % n(r) for _, r in senders[x])

    return {
        "statements": len(sel),
        "commit": sm["commit"],
        "statement_list": ", ".join(sel),
        "join_table": markdown_table(
            ["plan", "hash joins", "changed", "kept as printed", "changed joins (query:join)"],
            [[k + " (" + v["section"] + ")", str(v["joins"]), str(v["changed"]), str(len(v["kept_as_printed"])),
              ", ".join(v["changed_joins"]) or "none"] for k, v in jd.items()]).rstrip("\n"),
        "block_mib": BLOCK_BYTES >> 20,
        "executors": EXECUTORS,
        "parallel_mt_dop": PARALLEL_MT_DOP,
        "scale_rules_table": markdown_table(["rule", "what"], sorted(SCALE_RULES.items())).rstrip("\n"),
        "measured_rows_summary": measured_rows_summary(scenario),
        "mn_caps_table": markdown_table(["plan", "join node", "cap", "reason"], [
            ["tpcds-%s.test" % k[0], k[1], v[0], v[1]] for k, v in sorted(MN_OVERRIDES.items())]).rstrip("\n"),
        "table_rows_table": markdown_table(["table", "SF1", "SF100", "SF3000", "SF100/SF3000"], [
            [t, n(v[0]), n(v[1]), n(v[2]), fmt_ratio(v[1] / v[2])] for t, v in sorted(TABLE_ROWS.items())]).rstrip("\n"),
        "q72_x28_shares": shares(28),
        "q72_x27_shares": shares(27),
        "skew_share_percent": int(SKEW_SHARE * 100),
        "derivations_table": markdown_table(["query", "derivation"], sorted(DERIVATIONS.items())).rstrip("\n"),
        "lz4_classes": "; ".join("`%s` %.4f (%s)" % (c, compression.CLASS_RATIOS[c], compression.CLASS_WHAT[c])
                                 for c in compression.CLASSES),
        "lz4_fitted_exchanges": sum(1 for v in compression.EVIDENCE.values() if v[7]),
        "lz4_evidence_table": markdown_table(
            ["q72 exchange", "kind", "rows", "measured", "derived", "residual", "fitted"],
            [[str(x), v[0], n(v[1]), "%.4f" % v[4], "%.4f" % v[5], "%+.4f" % v[6],
              "yes" if v[7] else "no (batches too small for LZ4)"]
             for x, v in sorted(compression.EVIDENCE.items())]).rstrip("\n"),
        "check_exchange": check["exchange"],
        "check_rows_sent": n(check["rows_sent"]),
        "check_data_rpcs": n(check["data_rpcs"]),
        "check_rows_per_rpc": check["rows_per_rpc"],
        "check_measured_fixed_row_bytes": check["measured_fixed_row_bytes"],
        "check_rule_tuples": "\n".join("- tuple %s" % t for t in check["rule_tuples"]),
        "check_rule_fixed_row_bytes": check["rule_fixed_row_bytes_run_schema"],
        "check_rule_capacity_rows": check["rule_capacity_rows"],
        "check_rule_data_rpcs": n(check["rule_data_rpcs"]),
        "check_workload_fixed_row_bytes": check["workload_schema_fixed_row_bytes"],
        "check_workload_var_row_bytes": check["workload_schema_var_row_bytes"],
        "operator_min_rows": "{:,}".format(COST_MIN_ROWS),
        "operator_classes_table": markdown_table(
            ["class", "timer", "rows", "operators", "DEBUG ns/row", "used"],
            [[cls.replace("_", " "), v["timer"], "{:,}".format(v["rows"]), v["operators"],
              v["ns_per_row"] if v["ns_per_row"] is not None else "-", "%s (%s)" % (v["debug_ns_per_row"], v["how"])]
             for cls, v in meas["operator_costs"].items()]).rstrip("\n"),
        "costs_table": markdown_table(["cost", "value", "status", "what"], [
            ["`%s`" % k, p["value"], p["status"], p.get("what", "")] for k, p in sm["costs"].items()]).rstrip("\n"),
        "calibration": (readme_block(fitted).rstrip("\n") if fitted and "figures" in fitted else
                        "Not calibrated yet: `/usr/bin/python3 tools/tpcds_calibrate.py --fit` fits the two "
                        "parameters and writes `calibration.json`, which the generator then reads."),
        "startup_table": markdown_table(["profile", "planning", "admission", "backend start", "tear-down", "total"], [
            [k, v["planning_s"], v["admission_s"], v["backend_start_s"], v["teardown_s"], v["total_s"]]
            for k, v in sorted(meas["startup"].items())]).rstrip("\n"),
        "codegen_per_profile": "; ".join("%s: %d fragments, %.3f to %.3f s" % (
            k, len(v), min(x["s"] for x in v), max(x["s"] for x in v)) for k, v in sorted(cg.items())),
        "codegen_mean_s": "%.4f" % meas["codegen_s_per_fragment"],
        "codegen_median_s": "%.4f" % meas["codegen_median_s"],
        "codegen_fragments": meas["codegen_fragments"],
        "lz4_ratio": "%.4f" % meas["lz4_ratio"],
        "lz4_ratio_as_counted": "%.4f" % (sum(d["bytes_received"] for d in meas["lz4_detail"].values()) /
                                          sum(d["bytes_dequeued"] for d in meas["lz4_detail"].values())),
        "counts_table": markdown_table(["", "mt_dop=0 (`fragments`)", "mt_dop>0 (`parallel`)"], [
            ["queries", c0["queries"], cp["queries"]],
            ["fragments", c0["fragments"], cp["fragments"]],
            ["of which join builds", c0["join_build_fragments"], cp["join_build_fragments"]],
            ["exchanges", c0["exchanges"], cp["exchanges"]],
        ] + [["%s exchanges" % k, c0["by_partitioning"].get(k, 0), cp["by_partitioning"].get(k, 0)]
             for k in KINDS]).rstrip("\n"),
        "scanned_table": markdown_table(["table", "rows (after predicates)", "rows read"], [
            [t, n(v), n(c0["scan_rows_read_by_table"][t])] for t, v in c0["scan_rows_by_table"].items()]).rstrip("\n"),
        "per_query_table": markdown_table(
            ["query", "fragments", "operators", "H", "U", "M", "R", "H (parallel)", "hash rows", "hash bytes"],
            per).rstrip("\n"),
        "hash_rows_total": n(hash_rows),
        "hash_bytes_total": gb(hash_bytes),
        "hash_exchanges": c0["hash_exchanges"],
        "variant_hash_exchanges": sum(1 for b in sm["built"] if b.stats.get("derived") for x in b.doc["exchanges"]
                                      if x["partitioning"] == "HASH_PARTITIONED"),
        "parallel_hash_exchanges": cp["hash_exchanges"],
    }


def measured_rows_summary(scenario):
    m = scenario["provenance"]["scale"].get("measured_rows")
    if m is None:
        return ("**This workload was generated without it** (`tools/tpcds_workload.py --measured-rows none`): every "
                "row below comes from the rules.")
    applied = m["nodes_applied"]
    pairs = m.get("pre_aggregations_with_pairs", {})
    return ("This workload reads it (git blob `%s`, %s, base scale factor %s): %s measured nodes (%s), %s not "
            "translated; rule M2 applied to %s; rule M3 (a pre-aggregation's measured (instance, group) pairs) to "
            "%s; rule M4 (a derived variant's measured range self-joins) to %s." % (
                m["git_blob_sha1"][:12], m["engine"], m["base_scale_factor"], "{:,}".format(sum(m["nodes_by_how"].values())),
                ", ".join("%s %s" % ("{:,}".format(v), k) for k, v in m["nodes_by_how"].items()),
                "{:,}".format(m["nodes_untranslated"]),
                " and ".join("%s nodes of the %s plans" % ("{:,}".format(v), k) for k, v in sorted(applied.items())),
                " and ".join("%s of the %s plans" % ("{:,}".format(v), k) for k, v in sorted(pairs.items())) or "none",
                " and ".join("%s joins of the %s plans" % ("{:,}".format(v), k)
                             for k, v in sorted(m.get("self_joins_measured", {}).items())) or "none"))


def render_readme(scenario, sm):
    with open(TEMPLATE, "r", encoding="utf-8") as f:
        return Template(f.read()).substitute(readme_values(scenario, sm))
