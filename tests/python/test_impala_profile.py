"""Checks of the Impala profile tooling (tools/impala_profile, `exsim profile import`, `exsim compare`,
`exsim diff`) on the real profiles of ../shared/impala-profiles (skipped when that folder is absent).

- Decoding: the Thrift profile logs decode to the same counters, info strings and summary stats as
  Impala's own JSON rendering of the same logs (impala-profile-tool's .expected.json); the
  aggregated (v2) log's per-instance values reproduce that rendering's count/min/max/mean.
- The q72 model: partitioning, instances and counters per exchange equal the figures the
  shared README lists for the file (read out of it independently).
- Import: every bundled profile imports to a scenario the simulator accepts (`exsim validate`),
  on its own cluster and retargeted; derivations checked against analytic expectations.
- Bad profiles exit 2 with a message saying what is wrong.
- compare and diff on results whose relation to the profile is known.
- The q72 round trip (import, simulate with the profile's own setup, compare).

Run: /usr/bin/python3 -m pytest tests/python/test_impala_profile.py
"""

import base64
import csv
import io
import json
import re
import math
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
PROFILES = (REPO / ".." / "shared" / "impala-profiles").resolve()
Q72 = PROFILES / "tpcds_72_local_run_profile.json"
LOG_V1 = PROFILES / "impala_profile_log_tpcds_compute_stats"
LOG_V2 = PROFILES / "impala_profile_log_tpcds_compute_stats_v2"
LOG_40 = PROFILES / "legacy-profiles" / "impala_profile_log_tpcds_compute_stats"
# Impala's text renderings of the same logs (README section 5 of ../shared/impala-profiles).
TEXT_V1 = PROFILES / "impala_profile_log_tpcds_compute_stats.expected.txt"
TEXT_V1_DEFAULT = PROFILES / "impala_profile_log_tpcds_compute_stats_default.expected.txt"
TEXT_V2 = PROFILES / "impala_profile_log_tpcds_compute_stats_v2_default.expected.txt"
LOG_40_TEXT = PROFILES / "legacy-profiles" / "impala_profile_log_tpcds_compute_stats.expected.txt"
IMPORTABLE = ["impala_profile_log_tpcds_compute_stats.expected.txt",
              "impala_profile_log_tpcds_compute_stats_default.expected.txt",
              "impala_profile_log_tpcds_compute_stats_v2_default.expected.txt",
              "legacy-profiles/impala_profile_log_tpcds_compute_stats.expected.txt",
              "tpcds_72_local_run_profile.json", "tpcds_1_local_run_mt_dop_0_profile.json",
              "tpcds_1_local_run_mt_dop_12_profile.json", "impala_profile_log_tpcds_compute_stats",
              "impala_profile_log_tpcds_compute_stats.expected.json", "impala_profile_log_tpcds_compute_stats_v2",
              "impala_profile_log_tpcds_compute_stats_v2.expected.json",
              "legacy-profiles/impala_profile_log_tpcds_compute_stats",
              "legacy-profiles/impala_profile_log_tpcds_compute_stats.expected.json"]

needs_profiles = pytest.mark.skipif(not Q72.exists(), reason="../shared/impala-profiles is absent")

from tools.impala_profile import cli  # noqa: E402
from tools.impala_profile.decode import read_profiles  # noqa: E402
from tools.impala_profile.model import build_query  # noqa: E402
from tools.impala_profile.text import parse_time_ns  # noqa: E402
from tools.impala_profile.to_scenario import build_scenario, fit_dispatch, select_queries  # noqa: E402
from tools.impala_profile.tree import SummaryStat  # noqa: E402


def exsim_path():
    p = Path(os.environ.get("EXSIM") or REPO / "build" / "exsim")
    return p if os.access(p, os.X_OK) else None


def run_cli(*args, env=None):
    """The command as a user runs it: through exsim when it is built, else the Python entry point."""
    exe = exsim_path()
    if exe is not None:
        cmd = [str(exe), *map(str, args)]
    else:
        cmd = ["/usr/bin/python3", "-P", "-m", "tools.impala_profile", *map(str, args)]
        env = dict(env or os.environ)
        env["PYTHONPATH"] = str(REPO) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def simulator_problems(sc, tmp_path):
    """What `exsim validate` says is wrong with scenario `sc` ([] when the simulator accepts it): the
    simulator's own checks, structure then meaning. Skips where exsim is not built."""
    exe = exsim_path()
    if exe is None:
        pytest.skip("exsim is not built: the simulator validates imported scenarios")
    path = tmp_path / "validate.json"
    path.write_text(json.dumps(sc), encoding="utf-8")
    proc = subprocess.run([str(exe), "validate", str(path)], capture_output=True, text=True, timeout=300)
    return [] if proc.returncode == 0 else [proc.stderr.strip() or f"exit status {proc.returncode}"]


def import_file(path, query=None):
    queries = [build_query(d) for d in read_profiles(str(path))]
    chosen, skipped = select_queries(queries, str(path), query)
    return build_scenario(chosen, str(path), skipped)


def flat(node, path="", out=None):
    out = {} if out is None else out
    p = path + "/" + node.name
    out[p] = node
    for c in node.children:
        flat(c, p, out)
    return out


# ---------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------

@needs_profiles
@pytest.mark.parametrize("log", [LOG_V1, LOG_40], ids=["5.0", "4.0"])
def test_thrift_log_decodes_like_impalas_json_rendering(log):
    """Every per-instance node: same counters (unit and value), info strings and summary stats as
    impala-profile-tool printed for the same lines. ('Averaged Fragment' nodes are left out: the
    tool recomputes their averages.)"""
    thrift_docs = read_profiles(str(log))
    json_docs = read_profiles(str(log) + ".expected.json")
    assert len(thrift_docs) == len(json_docs) == 4
    compared = 0
    for dt, dj in zip(thrift_docs, json_docs):
        ft, fj = flat(dt.root), flat(dj.root)
        assert set(fj) <= set(ft), sorted(set(fj) - set(ft))[:3]
        for path, nj in fj.items():
            if "/Averaged Fragment" in path:
                continue
            nt = ft[path]
            for name, c in nj.counters.items():
                assert nt.counters[name].unit == c.unit, (path, name)
                assert nt.counters[name].value == pytest.approx(c.value, rel=1e-9, abs=1e-12), (path, name)
                compared += 1
            for key, v in nj.info.items():
                if v:  # the tool prints empty strings for a few keys the log does not hold
                    assert nt.info.get(key) == v, (path, key)
            for name, s in nj.summary.items():
                st = nt.summary[name]
                assert (st.count, st.min, st.max) == (s.count, s.min, s.max), (path, name)
                assert st.mean == pytest.approx(s.mean, abs=1.0), (path, name)  # the tool rounds the mean
            assert nt.plan_node_id == nj.plan_node_id and nt.data_sink_id == nj.data_sink_id, path
    print(f"{log.name}: {compared} counters identical")
    assert compared > 5000


# A time printed as text is truncated (util/pretty-printer.h): to the ns below 1 ms, the us below 1 s,
# the ms below a minute.
def _text_time_slack(ns):
    return 1 if ns < 1e6 else 1e3 if ns < 1e9 else 1e6 if ns < 60e9 else 1e9


@needs_profiles
@pytest.mark.parametrize("log,text", [(LOG_V1, TEXT_V1), (LOG_V1, TEXT_V1_DEFAULT), (LOG_40, LOG_40_TEXT)],
                         ids=["5.0", "5.0-default", "4.0"])
def test_text_rendering_decodes_like_the_log(log, text):
    """Every per-instance node of the Thrift log is in Impala's text rendering of it, at the same
    place in the tree (operator trees re-nested), with the same counters: counts and bytes exactly,
    times within the rounding of their printed form; info strings and summary-stat sample counts
    identical."""
    logs, texts = read_profiles(str(log)), read_profiles(str(text))
    assert len(logs) == len(texts) == 4
    assert all(d.encoding.startswith("text") and d.profile_version == 1 for d in texts)
    compared = 0
    for dl, dt in zip(logs, texts):
        fl, ft = flat(dl.root), flat(dt.root)
        instance_paths = [p for p in fl if "/Instance " in p]
        assert set(instance_paths) <= set(ft), sorted(set(instance_paths) - set(ft))[:3]
        for path in instance_paths:
            nl, nt = fl[path], ft[path]
            for name, c in nl.counters.items():
                if c.unit in ("UNIT", "BYTES"):
                    assert nt.counters[name].value == c.value, (path, name)
                elif c.unit == "TIME_NS":
                    assert abs(nt.counters[name].value - c.value) <= _text_time_slack(c.value), (path, name)
                compared += 1
            for key, v in nl.info.items():
                assert nt.info.get(key) == v, (path, key)
            for name, st in nl.summary.items():
                assert nt.summary[name].count == st.count, (path, name)
            assert [n for n, _ in nl.events] == [n for n, _ in nt.events], path
    print(f"{text.name}: {compared} counters compared")
    assert compared > 4000


def _scenario_numbers_agree(a, b, rel, abs_s=0.0, path=""):
    """Differences between two scenarios beyond the tolerance, ignoring where each came from."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        for k in a:
            if k in ("where", "encoding", "profile", "name", "description") and path in ("", ".provenance") or \
                    path.startswith(".provenance.queries.") and k in ("where", "encoding"):
                continue
            if k == "source" and path.startswith(".queries[") and path.count(".") == 1:
                a_, b_ = a[k].split("; ", 1)[1], b[k].split("; ", 1)[1]  # after 'FILE:LINE: ENCODING'
                if a_ != b_:
                    out.append(f"{path}.source: {a_[:80]!r} vs {b_[:80]!r}")
                continue
            out += _scenario_numbers_agree(a[k], b[k], rel, abs_s, f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} vs {len(b)} items"]
        for i, (x, y) in enumerate(zip(a, b)):
            out += _scenario_numbers_agree(x, y, rel, abs_s, f"{path}[{i}]")
        return out
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if a != b and abs(a - b) > max(rel * max(abs(a), abs(b)), abs_s if path.endswith("_s") else 0):
            out.append(f"{path}: {a} vs {b}")
        return out
    if a != b:
        out.append(f"{path}: {str(a)[:80]!r} vs {str(b)[:80]!r}")
    return out


@needs_profiles
@pytest.mark.parametrize("log,text", [(LOG_V1, TEXT_V1), (LOG_V1, TEXT_V1_DEFAULT), (LOG_40, LOG_40_TEXT)],
                         ids=["5.0", "5.0-default", "4.0"])
def test_text_rendering_imports_to_the_logs_scenario(log, text, tmp_path):
    """Text and Thrift log of the same queries give the same scenario: every key, string and count
    identical; numbers derived from times within 0.2% (CPU costs: sums of printed times), and a
    time within 1 ms (timeline events above 1 s are printed to the millisecond)."""
    a, b = tmp_path / "log.json", tmp_path / "text.json"
    for src, out in ((log, a), (text, b)):
        proc = run_cli("profile", "import", src, "--output", out)
        assert proc.returncode == 0, proc.stderr
    sa, sb = json.loads(a.read_text()), json.loads(b.read_text())
    diffs = _scenario_numbers_agree(sa, sb, rel=2e-3, abs_s=1e-3)
    assert diffs == [], "\n".join(diffs[:20])
    # The text-only fields say what was read.
    assert all(q["encoding"].startswith("text profile") for q in sb["provenance"]["queries"].values())
    assert [q["name"] for q in sa["queries"]] == [q["name"] for q in sb["queries"]]


@needs_profiles
def test_aggregated_text_rendering_imports_like_its_json_rendering(tmp_path):
    """v2 (AGGREGATED_PROFILE=1): the text, like Impala's JSON rendering, keeps only mean/min/max
    per counter, so both import to the same scenario (within the rounding of printed means), and
    to the log's plan, placement and exchange totals; per-instance maxima and skew differ from the
    log's and are flagged in provenance.ignored."""
    t, j, l = tmp_path / "t.json", tmp_path / "j.json", tmp_path / "l.json"
    for src, out in ((TEXT_V2, t), (Path(str(LOG_V2) + ".expected.json"), j), (LOG_V2, l)):
        proc = run_cli("profile", "import", src, "--output", out)
        assert proc.returncode == 0, proc.stderr
    st, sj, sl = (json.loads(p.read_text()) for p in (t, j, l))
    # The renderings keep different time series (listed as ignored), and the hosts come from different places.
    st_cmp, sj_cmp = json.loads(json.dumps(st)), json.loads(json.dumps(sj))
    for sc in (st_cmp, sj_cmp):
        sc["provenance"]["ignored"] = [i for i in sc["provenance"]["ignored"] if "time series" not in i["what"]]
        for i in sc["provenance"]["ignored"]:
            i["why"] = i["why"].split(", hosts ")[0]
    diffs = _scenario_numbers_agree(sj_cmp, st_cmp, rel=1e-2, abs_s=1e-3)
    assert diffs == [], "\n".join(diffs[:20])
    assert any("per-instance values" in i["what"] for i in st["provenance"]["ignored"])
    for qt, ql in zip(st["queries"], sl["queries"]):
        assert qt["name"] == ql["name"]
        for pt, pl in ((qt, ql), (qt["parallel"], ql["parallel"])):
            strip = lambda fs: [{k: v for k, v in f.items() if k != "root"} for f in fs]  # noqa: E731
            assert strip(pt["fragments"]) == strip(pl["fragments"])
            for xt, xl in zip(pt["exchanges"], pl["exchanges"]):
                assert (xt["id"], xt["partitioning"]) == (xl["id"], xl["partitioning"])
                for key in ("senders", "receivers", "rpcs", "eos_rpcs", "rows_sent", "bytes_sent"):
                    if "expected" in xl:
                        assert xt["expected"][key] == pytest.approx(xl["expected"][key], rel=0.01), key


@needs_profiles
def test_text_as_pasted_imports_the_same(tmp_path):
    """impala-shell's banner above the profile, CRLF line ends and an indented paste change nothing."""
    text = LOG_40_TEXT.read_text()
    pasted = "[host:21000] default> profile;\r\nQuery Runtime Profile:\r\n" + "".join(
        "  " + line + "\r\n" for line in text.splitlines())
    p = tmp_path / "pasted.txt"
    p.write_text(pasted, newline="")
    a = import_file(LOG_40_TEXT)
    b = import_file(p)
    assert _scenario_numbers_agree(a, b, rel=0) == []


def _json_stream(path):
    text, dec, i, out = Path(path).read_text(), json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj)


def _json_flat(node, path="", out=None):
    out = {} if out is None else out
    p = path + "/" + node["profile_name"]
    out[p] = node
    for c in node.get("child_profiles") or []:
        _json_flat(c, p, out)
    return out


@needs_profiles
def test_aggregated_log_instances_reproduce_the_tools_statistics():
    """v2 (AGGREGATED_PROFILE=1): the per-instance values decoded from TAggCounter lists give the
    count, min, max and mean the tool printed for each counter of its aggregated JSON."""
    thrift_docs = read_profiles(str(LOG_V2))
    raw = _json_stream(str(LOG_V2) + ".expected.json")
    checked = 0
    for dt, obj in zip(thrift_docs, raw):
        if dt.profile_version != 2:
            continue
        exec_t = next(c for c in dt.root.children if c.name.startswith("Execution Profile"))
        exec_j = next(c for c in obj["contents"]["child_profiles"] if c["profile_name"].startswith("Execution"))
        for frag_t in exec_t.children:
            if not frag_t.name.startswith(("Fragment F", "Coordinator Fragment F")):
                continue
            frag_j = next(c for c in exec_j["child_profiles"] if c["profile_name"] == frag_t.name)
            instances = frag_t.children
            assert instances and all(i.name.startswith("Instance ") and "(host=" in i.name for i in instances)
            for sub_j in frag_j.get("child_profiles") or []:
                subs_t = [flat(next(c for c in inst.children if c.name == sub_j["profile_name"]))
                          for inst in instances]
                for path, nj in _json_flat(sub_j).items():
                    for c in nj.get("counters") or []:
                        if "count" not in c:
                            continue
                        vals = [t[path].counters[c["counter_name"]].value for t in subs_t
                                if path in t and c["counter_name"] in t[path].counters]
                        assert len(vals) == c["count"], (path, c["counter_name"])
                        if not vals:  # no instance set it
                            continue
                        assert (min(vals), max(vals)) == (c["min"], c["max"]), (path, c["counter_name"])
                        if "mean" in c:
                            assert sum(vals) / len(vals) == pytest.approx(c["mean"], abs=1.0), path
                        checked += 1
    print(f"{checked} aggregated counters reproduced")
    assert checked > 100


# ---------------------------------------------------------------------------
# The q72 model against the README's figures
# ---------------------------------------------------------------------------

# exchange: (partitioning, merging, senders, receivers, TotalBytesSent, RPCs total / data / EOS, deferred)
# from ../shared/impala-profiles/README.md, section 3.1 (the q72 table).
Q72_README = {
    36: ("UNPARTITIONED", True, 3, 1, 36_310, 6, 3, 3, 0),
    34: ("HASH_PARTITIONED", False, 3, 3, 249_972, 18, 9, 9, 0),
    33: ("UNPARTITIONED", False, 1, 3, 5_048_709, 426, 423, 3, 0),
    32: ("UNPARTITIONED", False, 1, 3, 7_212, 6, 3, 3, 0),
    31: ("UNPARTITIONED", False, 1, 3, 2_420_034, 219, 216, 3, 0),
    30: ("UNPARTITIONED", False, 1, 3, 9_255_870, 1_131, 1_128, 3, 0),
    29: ("UNPARTITIONED", False, 1, 3, 28_977, 9, 6, 3, 0),
    28: ("HASH_PARTITIONED", False, 2, 3, 2_056_580_613, 93_076, 93_070, 6, 0),
    27: ("HASH_PARTITIONED", False, 3, 3, 44_755_806, 3_626, 3_617, 9, 6),
    26: ("UNPARTITIONED", False, 1, 2, 9_188, 4, 2, 2, 0),
    25: ("UNPARTITIONED", False, 1, 2, 1_254_294, 146, 144, 2, 0),
    24: ("UNPARTITIONED", False, 1, 2, 2_356_688, 38, 36, 2, 0),
    23: ("UNPARTITIONED", False, 1, 2, 298, 4, 2, 2, 0),
}


@pytest.fixture(scope="module")
def q72():
    if not Q72.exists():
        pytest.skip("../shared/impala-profiles is absent")
    return build_query(read_profiles(str(Q72))[0])


@needs_profiles
def test_q72_model_matches_the_readme(q72):
    assert q72.hosts == ["cldr-21738:27000", "cldr-21738:27001", "cldr-21738:27002"]
    assert sum(len(f.instances) for f in q72.fragments.values()) == 47  # NumFragmentInstances
    assert len(q72.fragments) == 24
    assert sorted(q72.exchanges) == sorted(Q72_README)
    for xid, (part, merging, ns, nr, byts, total, data, eos, deferred) in Q72_README.items():
        x = q72.exchanges[xid]
        got = (x.partitioning, x.merging, len(x.senders), len(x.receivers), sum(s.bytes_sent for s in x.senders),
               sum(s.rpc_success for s in x.senders), sum(s.rpcs for s in x.senders),
               sum(s.eos for s in x.senders), sum(r.deferred for r in x.receivers))
        assert got == (part, merging, ns, nr, byts, total, data, eos, deferred), f"exchange {xid}"
    # The query's TotalBytesSent counter is the sum over every sender.
    assert sum(s.bytes_sent for x in q72.exchanges.values() for s in x.senders) == 2_122_003_971
    x28 = q72.exchanges[28]
    assert [s.rows for s in x28.senders] == [0, 16_380_000]  # README: the 27000 instance sent no rows
    assert x28.senders[1].rpc_network.count == 93_073 and x28.senders[1].rpc_network.mean == 66_539
    assert q72.options["MT_DOP"] == "12"
    assert q72.startup_s() == pytest.approx(0.038032639 - 0.000020999)
    assert q72.runtime_s() == pytest.approx(8.842165176 - 0.000020999)


# ---------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------

def _exchange_leaves(node):
    if node.get("op") == "exchange":
        return [node["exchange"]]
    out = []
    for k in ("input", "probe", "build"):
        if isinstance(node.get(k), dict) and "op" in node[k]:
            out += _exchange_leaves(node[k])
    for c in node.get("inputs") or []:
        out += _exchange_leaves(c)
    return out


@needs_profiles
@pytest.mark.parametrize("name", IMPORTABLE)
def test_every_profile_imports_and_conforms(name, tmp_path):
    out = tmp_path / "scenario.json"
    proc = run_cli("profile", "import", PROFILES / name, "--output", out)
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(out.read_text())
    problems = simulator_problems(sc, tmp_path)
    assert problems == [], "\n".join(problems)
    assert sc["provenance"]["ignored"], "nothing listed as ignored"
    for item in sc["provenance"]["ignored"]:
        assert set(item) == {"what", "why"} and item["what"] and item["why"]
    for q in sc["queries"]:
        plan = q.get("parallel") or q
        for x in plan["exchanges"]:
            assert x["expected"]["rpcs"] >= 0 and x["source"].startswith("profile exchange")
        # The measured runtime, from the query's timeline.
        assert q["expected"]["runtime_s"] > 0, q["name"]
    # Retargeting: the placement stays valid on a larger cluster, and no per-instance weights sit on
    # a fragment whose instance count follows cluster.executors (they would no longer line up).
    sc["cluster"]["executors"] = 10
    assert simulator_problems(sc, tmp_path) == []
    for q in sc["queries"]:
        for plan in [q] + ([q["parallel"]] if "parallel" in q else []):
            scaling = {f["id"] for f in plan["fragments"] if f.get("executors", 0) == 0}
            for f in plan["fragments"]:
                if f["id"] in scaling:
                    assert "instance_weights" not in json.dumps(f["root"]), (q["name"], f["id"])
            receiver_of = {}
            for f in plan["fragments"]:
                for xid in _exchange_leaves(f["root"]):
                    receiver_of[xid] = f["id"]
            for x in plan["exchanges"]:
                if receiver_of[x["id"]] in scaling:
                    assert "receiver_weights" not in x, (q["name"], x["id"])
    # Where the import left a fragment's instance count to Impala's rule (it wrote 0 and says
    # "= Impala's rule"), the simulator's placement of the whole plan gives the profiled count: the
    # import asked the rule one fragment at a time, the others at their profiled counts, and the
    # answers hold together.
    if exsim_path() is not None:  # the simulator is asked
        assert not any("instance rule" in i["what"] for i in sc["provenance"]["ignored"]), sc["provenance"]["ignored"]
        explained = run_cli("explain", out, "--format", "json")
        assert explained.returncode == 0, explained.stderr
        placed = {q["query"]: {f["id"]: f["instances_per_executor"] for f in q["fragments"]}
                  for q in json.loads(explained.stdout)["queries"]}
        for query, fragments in sc["provenance"]["placement"].items():
            for fid, why in fragments.items():
                m = re.search(r"(\d+) instance\(s\) per executor = Impala's rule", why)
                if m:
                    assert placed[query][fid] == int(m.group(1)), (query, fid, why, placed[query][fid])
    # Same input, same bytes.
    again = run_cli("profile", "import", PROFILES / name)
    assert again.stdout == out.read_text()


@needs_profiles
@pytest.mark.parametrize("profile,committed", [
    ("tpcds_72_local_run_profile.json", "tpcds_q72.json"),
    ("impala_profile_log_tpcds_compute_stats_v2", "compute_stats_v2.json")])
def test_committed_imports_are_current(profile, committed, tmp_path):
    """scenarios/profiles/ holds what the importer writes, run from the repository root."""
    if exsim_path() is None:
        pytest.skip("the import asks the simulator for Impala's instance rule: exsim not built")
    out = tmp_path / committed
    proc = subprocess.run(["/usr/bin/python3", "-P", "-m", "tools.impala_profile", "profile", "import",
                           f"../shared/impala-profiles/{profile}", "--output", str(out)], cwd=REPO,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (REPO / "scenarios" / "profiles" / committed).read_bytes(), (
        f"scenarios/profiles/{committed} is stale: regenerate it (scenarios/profiles/README.md)")


@needs_profiles
def test_q72_import_derivations():
    sc = import_file(Q72)
    q = sc["queries"][0]
    assert sc["flags"]["mt_dop"] == 12 and sc["cluster"]["executors"] == 3
    assert {f["id"] for f in q["parallel"]["fragments"]} == {f"F{i:02d}" for i in range(24)}
    # The mt_dop=0 plan folds the 10 join-build fragments into their joins.
    assert len(q["fragments"]) == 14
    xs = {x["id"]: x for x in q["parallel"]["exchanges"]}
    # x28: 16,380,000 rows from one sender to 3 receivers; 16384 // 93 = 176 rows per batch gives
    # between ceil(16,380,000 / 176) = 93,069 and 93,069 + 2 partial batches: 93,070 measured.
    x28 = xs["x28"]
    assert x28["fixed_row_bytes"] == 93 and x28["tuples_per_row"] == 5
    assert math.ceil(16_380_000 / (16384 // 93)) <= 93_070 <= math.ceil(16_380_000 / (16384 // 93)) + 2
    # Uncompressed tuple bytes per row: 4,021,344,600 / 16,380,000 - 8 x 5 tuple pointers = 205.5.
    assert x28["fixed_row_bytes"] + x28["var_row_bytes"] == pytest.approx(205.5, abs=0.5)
    # Compression ratio from the senders must agree with the receivers' side: the receivers on
    # 27000 and 27002 got only remote (compressed) data; wire bytes minus 4 B offsets per tuple,
    # over dequeued bytes minus 8 B pointers per tuple.
    q72 = build_query(read_profiles(str(Q72))[0])
    remote = [r for r in q72.exchanges[28].receivers if r.instance.host != "cldr-21738:27001"]
    wire = sum(r.bytes_received - 4 * 5 * r.rows for r in remote)
    raw = sum(r.bytes_dequeued - 8 * 5 * r.rows for r in remote)
    print(f"x28 compression: senders' side {x28['compression_ratio']}, receivers' side {wire / raw:.4f}")
    assert x28["compression_ratio"] == pytest.approx(wire / raw, rel=0.01)
    # Broadcasts send whole input batches: x30 sent ceil(384,160 / 1,024) = 376 batches to each of 3.
    assert xs["x30"]["expected"]["rpcs"] == 3 * math.ceil(384_160 / 1024)
    # Skew: catalog_sales instances read 656,132 / 652,171 / 133,245 rows.
    f00 = next(f for f in q["parallel"]["fragments"] if f["id"] == "F00")
    w = f00["root"]["instance_weights"]
    assert w == pytest.approx([656_132 / 1_441_548, 652_171 / 1_441_548, 133_245 / 1_441_548], rel=1e-5)
    # Expected per query: submitted -> last row fetched.
    assert q["expected"]["runtime_s"] == pytest.approx(8.842144, abs=1e-6)
    assert sc["costs"]["query_startup_s"] == pytest.approx(0.038012, abs=1e-6)
    # Network: every daemon on one machine, so remote and loopback round trips are the same.
    assert sc["cluster"]["rtt_us"] == sc["cluster"]["loopback_rtt_us"]
    whats = " ".join(i["what"] for i in sc["provenance"]["ignored"])
    assert "runtime filter waits" in whats and "exchange 36 limit" in whats


@needs_profiles
def test_multi_query_log_imports_its_two_child_queries():
    sc = import_file(LOG_V2)
    assert sc["query_order"] == "sequential"
    assert [q["name"] for q in sc["queries"]] == ["564ae7b03a77a9cc:521cf35d00000000",
                                                  "614172e3da200bab:f550d5fc00000000"]
    first = sc["queries"][0]["parallel"]
    hash_x = next(x for x in first["exchanges"] if x["id"] == "x2")
    # 12 senders x 12 receivers: one data RPC and one EOS per channel (README section 3.3).
    assert hash_x["expected"]["rpcs"] == 144 and hash_x["expected"]["eos_rpcs"] == 144
    skipped = [i["what"] for i in sc["provenance"]["ignored"] if "no exchange" in i["why"]]
    assert len(skipped) == 2  # `set all` and the parent `compute stats`


@needs_profiles
def test_import_picks_one_query(tmp_path):
    proc = run_cli("profile", "import", LOG_V1, "--query", "2a41692e6b0100de:a56e272500000000")
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(proc.stdout)
    assert [q["name"] for q in sc["queries"]] == ["2a41692e6b0100de:a56e272500000000"]
    proc = run_cli("profile", "import", LOG_V1, "--query", "nope")
    assert proc.returncode == 2 and "--query nope: no such query" in proc.stderr


# ---------------------------------------------------------------------------
# Bad profiles
# ---------------------------------------------------------------------------

def _thrift_tree(nodes, exec_state=None):
    """Encode a TRuntimeProfileTree (compact protocol) from [(name, num_children, info dict)]."""
    from thrift.protocol import TCompactProtocol
    from thrift.Thrift import TType
    from thrift.transport import TTransport
    buf = TTransport.TMemoryBuffer()
    p = TCompactProtocol.TCompactProtocol(buf)
    p.writeStructBegin("TRuntimeProfileTree")
    p.writeFieldBegin("nodes", TType.LIST, 1)
    p.writeListBegin(TType.STRUCT, len(nodes))
    for name, children, info in nodes:
        p.writeStructBegin("TRuntimeProfileNode")
        p.writeFieldBegin("name", TType.STRING, 1)
        p.writeString(name)
        p.writeFieldEnd()
        p.writeFieldBegin("num_children", TType.I32, 2)
        p.writeI32(children)
        p.writeFieldEnd()
        p.writeFieldBegin("counters", TType.LIST, 3)
        p.writeListBegin(TType.STRUCT, 0)
        p.writeListEnd()
        p.writeFieldEnd()
        p.writeFieldBegin("metadata", TType.I64, 4)
        p.writeI64(-1)
        p.writeFieldEnd()
        p.writeFieldBegin("indent", TType.BOOL, 5)
        p.writeBool(True)
        p.writeFieldEnd()
        p.writeFieldBegin("info_strings", TType.MAP, 6)
        p.writeMapBegin(TType.STRING, TType.STRING, len(info))
        for k, v in info.items():
            p.writeString(k)
            p.writeString(v)
        p.writeMapEnd()
        p.writeFieldEnd()
        p.writeFieldStop()
        p.writeStructEnd()
    p.writeListEnd()
    p.writeFieldEnd()
    if exec_state is not None:
        p.writeFieldBegin("exec_summary", TType.STRUCT, 2)
        p.writeStructBegin("TExecSummary")
        p.writeFieldBegin("state", TType.I32, 1)
        p.writeI32(exec_state)
        p.writeFieldEnd()
        p.writeFieldStop()
        p.writeStructEnd()
        p.writeFieldEnd()
    p.writeFieldStop()
    p.writeStructEnd()
    return buf.getvalue()


def _log_line(tree_bytes, compress=True):
    data = zlib.compress(tree_bytes) if compress else tree_bytes
    return f"1577836800000 0000000000000001:0000000000000002 {base64.b64encode(data).decode()}\n"


def _bad_cases(tmp):
    """(name, file, words the message must contain)."""
    cases = []
    q72_text = Q72.read_text()
    p = tmp / "truncated.json"
    p.write_text(q72_text[:len(q72_text) // 2])
    cases.append(("truncated JSON", p, ["truncated JSON"]))
    p = tmp / "trailing.json"
    p.write_text(q72_text + "\n\x00\x00garbage after the profile\n")
    cases.append(("JSON with trailing bytes", p, ["trailing byte(s) after the JSON profile", "line"]))
    for what in ("failed", "cancelled"):
        if (PROFILES / f"impala_profile_log_{what}_query").exists():
            cases.append((f"a {what} query's log", PROFILES / f"impala_profile_log_{what}_query",
                          ["did not finish", "EXCEPTION" if what == "failed" else "CANCELLED"]))
    ts, qid, b64 = LOG_V1.read_text().splitlines()[1].split(" ")
    half = len(b64) // 2 // 4 * 4
    p = tmp / "truncated_line_mid_group"
    p.write_text(f"{ts} {qid} {b64[:half + 1]}\n")
    cases.append(("truncated log line", p, ["truncated"]))
    p = tmp / "truncated_line"
    p.write_text(f"{ts} {qid} {b64[:half]}\n")
    cases.append(("truncated zlib stream", p, ["zlib stream is truncated"]))
    p = tmp / "raw_truncated_thrift"
    p.write_text(_log_line(_thrift_tree([("Query (id=1:2)", 0, {})])[:-7], compress=False))
    cases.append(("truncated Thrift", p, ["not a Thrift TRuntimeProfileTree"]))
    cases.append(("a scenario", REPO / "scenarios" / "examples" / "hash_5x5.json",
                  ["not an Impala runtime profile"]))
    cases.append(("a README", PROFILES / "README.md", ["not an Impala profile"]))
    p = tmp / "words.txt"
    p.write_text("this is a text file\nof words\n")
    cases.append(("a text file", p, ["not an Impala profile", "text profile", "profile log"]))
    text = LOG_40_TEXT.read_text().splitlines(keepends=True)
    k = next(i for i, l in enumerate(text) if l.strip().startswith("- TotalBytesSent:"))
    text[k] = text[k].split(":")[0] + ": lots\n"
    p = tmp / "bad_counter.txt"
    p.write_text("".join(text))
    cases.append(("a text profile with an unreadable counter", p, [f"{p}:{k + 1}", "TotalBytesSent", "'lots'"]))
    p = tmp / "binary.bin"
    p.write_bytes(bytes(range(1, 256)))
    cases.append(("binary data", p, ["not ASCII"]))
    p = tmp / "empty"
    p.write_text("")
    cases.append(("an empty file", p, ["empty file"]))
    p = tmp / "not_base64"
    p.write_text("1577836800000 1:2 this*is*not*base64\n")
    cases.append(("not base64", p, ["not base64"]))
    p = tmp / "other_thrift"
    p.write_text(_log_line(_thrift_tree([("Summary", 0, {})])))
    cases.append(("a tree without a query root", p, ["not an Impala query profile"]))
    cases.append(("no exchange", PROFILES / "tpcds_1_local_run_num_nodes_0_profile.json",
                  ["has no exchange", "single fragment"]))
    doc = json.loads((PROFILES / "tpcds_1_local_run_mt_dop_0_profile.json").read_text())
    for kv in doc["contents"]["child_profiles"][0]["info_strings"]:
        if kv["key"] == "Query State":
            kv["value"] = "EXCEPTION"
        if kv["key"] == "Query Status":
            kv["value"] = "Memory limit exceeded: could not allocate 64.00 MB"
    p = tmp / "failed.json"
    p.write_text(json.dumps(doc))
    cases.append(("a failed query (JSON)", p, ["did not finish", "EXCEPTION", "Memory limit exceeded"]))
    p = tmp / "failed_log"
    p.write_text(_log_line(_thrift_tree(
        [("Query (id=0000000000000001:0000000000000002)", 1, {}),
         ("Summary", 0, {"Query State": "EXCEPTION", "Query Status": "Cancelled: memory limit exceeded"})],
        exec_state=6)))
    cases.append(("a failed query (Thrift)", p, ["did not finish", "EXCEPTION", "memory limit exceeded"]))
    return cases


@needs_profiles
def test_bad_profiles_exit_2_with_a_message(tmp_path):
    failures = []
    for name, path, words in _bad_cases(tmp_path):
        proc = run_cli("profile", "import", path, "--output", tmp_path / "out.json")
        msg = proc.stderr.strip()
        print(f"{name}: exit {proc.returncode}: {msg[:160]}")
        if proc.returncode != 2 or "Traceback" in proc.stderr or not all(w in msg for w in words) \
                or str(path) not in msg or len(msg.splitlines()) != 1:
            failures.append(f"{name}: exit {proc.returncode}, stderr {msg[:300]!r}, expected words {words}")
        assert not (tmp_path / "out.json").exists(), f"{name}: an output was written"
    assert not failures, "\n".join(failures)


@needs_profiles
def test_missing_python3_thrift_is_a_clear_error(tmp_path):
    fake = tmp_path / "nothrift" / "thrift"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named thrift')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "nothrift"))
    proc = run_cli("profile", "import", LOG_V1, env=env)
    assert proc.returncode == 2 and "python3-thrift is missing" in proc.stderr, proc.stderr
    # A JSON profile needs no Thrift.
    proc = run_cli("profile", "import", PROFILES / "tpcds_1_local_run_mt_dop_0_profile.json", env=env)
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------
# compare and diff
# ---------------------------------------------------------------------------

def _results_from_profile(q, blocked_factor):
    """Results shaped like exsim's whose counters are the profile's own, with every sender's blocked
    time multiplied by blocked_factor and the query's runtime halved."""
    xs = []
    for xid, x in sorted(q.exchanges.items()):
        senders = [{"index": k, "host": q.host_index(s.instance.host), "RowsSent": s.rows,
                    "TotalBytesSent": s.bytes_sent, "RpcSuccess": s.rpc_success,
                    "InactiveTotalTime_s": s.inactive_s * blocked_factor,
                    "RpcNetworkTime_s": s.rpc_network.sum * 1e-9, "RpcRecvrTime_s": s.rpc_recvr.sum * 1e-9,
                    "UncompressedRowBatchSize": s.uncompressed} for k, s in enumerate(x.senders)]
        xs.append({"id": f"x{xid}", "query": q.id, "rows_sent": sum(s.rows for s in x.senders),
                   "rpcs": sum(s.rpcs for s in x.senders), "eos_rpcs": sum(s.eos for s in x.senders),
                   "bytes_sent": sum(s.bytes_sent for s in x.senders),
                   "slowest_sender_blocked_s": max(s.inactive_s for s in x.senders) * blocked_factor,
                   "rpcs_deferred": sum(r.deferred for r in x.receivers), "sender_instances": senders,
                   "receiver_instances": [{"index": k, "host": q.host_index(r.instance.host),
                                           "DataWaitTime_s": r.data_wait_s,
                                           "TotalHasDeferredRPCsTime_s": r.has_deferred_s}
                                          for k, r in enumerate(x.receivers)]})
    return {"exsim_version": "test", "scenario": {}, "settings": {}, "exchanges": xs,
            "queries": [{"query": q.id, "runtime_s": q.runtime_s() / 2}], "summary": {}}


@needs_profiles
def test_compare_lines_up_measured_and_simulated(q72, tmp_path):
    res = tmp_path / "results.json"
    res.write_text(json.dumps(_results_from_profile(q72, 3.0)))
    proc = run_cli("compare", res, Q72, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    (qd,) = doc["queries"]
    assert qd["runtime_s"]["ratio"] == pytest.approx(0.5)
    assert len(qd["exchanges"]) == 13 and doc["notes"] == []
    for x in qd["exchanges"]:
        for name, c in x["counters"].items():
            want = 3.0 if name in ("slowest_sender_blocked_s", "InactiveTotalTime_s") else 1.0
            if c["measured"]:
                assert c["ratio"] == pytest.approx(want, rel=1e-6), (x["id"], name)
        for s in x["senders"]:
            assert s["counters"]["RowsSent"]["simulated"] == s["counters"]["RowsSent"]["measured"]
    csv_proc = run_cli("compare", res, Q72, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(csv_proc.stdout)))
    assert rows[0]["counter"] == "runtime_s" and len(rows) > 13 * 13
    text = run_cli("compare", res, Q72, "--full").stdout
    assert "exchange x28  HASH_PARTITIONED" in text and "16,380,000 / 16,380,000" in text
    # The short form (the default): the runtime, then the 8 counters furthest off by seconds (the
    # blocked times, x3 here), largest difference in seconds first, in a few lines.
    short = run_cli("compare", res, Q72).stdout
    table = [line.split() for line in short.splitlines() if line.startswith("    x")]
    assert len(table) == 8 and len(short.splitlines()) < 20 and "--full" in short
    assert all(r[1] in ("slowest_sender_blocked_s", "InactiveTotalTime_s") and r[-1] == "3.000" for r in table)
    doc = json.loads(run_cli("compare", res, Q72, "--format", "json").stdout)
    cells = {(x["id"], n): c for x in doc["queries"][0]["exchanges"] for n, c in x["counters"].items()}
    gaps = [abs(cells[(r[0], r[1])]["simulated"] - cells[(r[0], r[1])]["measured"]) for r in table]
    assert gaps == sorted(gaps, reverse=True)
    # An exchange missing from the results is reported, not skipped silently.
    partial = _results_from_profile(q72, 1.0)
    partial["exchanges"] = [x for x in partial["exchanges"] if x["id"] != "x28"]
    res.write_text(json.dumps(partial))
    doc = json.loads(run_cli("compare", res, Q72, "--format", "json").stdout)
    assert any("x28: not in the results" in n for n in doc["notes"])
    # Not results: exit 2.
    proc = run_cli("compare", REPO / "scenarios" / "examples" / "hash_5x5.json", Q72)
    assert proc.returncode == 2 and "not exsim results" in proc.stderr
    # The headline comes first; --changed and --top keep the counters furthest off.
    res.write_text(json.dumps(_results_from_profile(q72, 3.0)))
    text = run_cli("compare", res, Q72).stdout
    first = text.splitlines()[0]
    assert first.startswith(f"query {q72.id}: runtime measured 8.842 s, simulated 4.421 s") and "x0.500" in first
    assert "furthest off: x" in first and "x3.000" in first
    doc = json.loads(run_cli("compare", res, Q72, "--format", "json", "--changed").stdout)
    kept = {(x["id"], n) for x in doc["queries"][0]["exchanges"] for n in x["counters"] if n != "receivers"}
    assert kept and all(n in ("slowest_sender_blocked_s", "InactiveTotalTime_s") for _, n in kept), kept
    doc = json.loads(run_cli("compare", res, Q72, "--format", "json", "--top", "3").stdout)
    assert sum(len(x["counters"]) - 1 for x in doc["queries"][0]["exchanges"]) == 3
    # Results of another query, or on another cluster.
    other = _results_from_profile(q72, 1.0)
    for x in other["exchanges"]:
        x["query"] = "0000000000000001:0000000000000002"
    other["queries"][0]["query"] = "0000000000000001:0000000000000002"
    res.write_text(json.dumps(other))
    proc = run_cli("compare", res, Q72)
    assert proc.returncode == 2 and "do not belong together" in proc.stderr and q72.id in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    smaller = _results_from_profile(q72, 1.0)
    smaller["settings"] = {"cluster": {"executors": 2}}
    res.write_text(json.dumps(smaller))
    doc = json.loads(run_cli("compare", res, Q72, "--format", "json").stdout)
    assert any("differs from the profiled one" in n for n in doc["notes"])
    c = doc["queries"][0]["exchanges"][0]["counters"]
    assert c["rows_sent"]["ratio"] == 1 and c["bytes_sent"]["ratio"] is None
    assert "another cluster" in doc["headline"]
    # Another network only: counts keep their ratios, times lose theirs.
    slower = _results_from_profile(q72, 1.0)
    slower["settings"] = {"cluster": {"executors": 3, "rtt_us": 390}}
    res.write_text(json.dumps(slower))
    doc = json.loads(run_cli("compare", res, Q72, "--format", "json").stdout)
    c = next(x for x in doc["queries"][0]["exchanges"] if x["id"] == "x28")["counters"]
    assert c["rpcs"]["ratio"] == 1 and c["bytes_sent"]["ratio"] == 1
    assert c["RpcNetworkTime_mean_s"]["ratio"] is None and doc["queries"][0]["runtime_s"]["ratio"] is None
    assert "rtt_us 390" in doc["headline"] and any("ratios of times are left out" in n for n in doc["notes"])


def test_diff_of_two_runs(tmp_path):
    """K=1 vs K=2 on the 5x5 example: RPCs unchanged; the planner's memory estimate counts K+1
    batches per channel, so it grows by 3/2; the runtime falls (the exchange is round-trip bound)."""
    exe = exsim_path()
    if exe is None:
        pytest.skip("exsim not built")
    scenario = REPO / "scenarios" / "examples" / "hash_5x5.json"
    a, b = tmp_path / "k1.json", tmp_path / "k2.json"
    for out, k in ((a, 1), (b, 2)):
        proc = subprocess.run([str(exe), "run", str(scenario), "--set", f"rpcs_in_flight_per_channel={k}",
                               "--output", str(out)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    proc = run_cli("diff", a, b, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = {(r["level"], r["exchange"], r["figure"]): r for r in json.loads(proc.stdout)["rows"]}
    mem = rows[("exchange", "hash", "memory_estimate_bytes")]
    print(f"memory estimate: expected x1.5, got {mem['B'] / mem['A']:.4f}")
    assert mem["B"] / mem["A"] == pytest.approx(1.5)
    assert rows[("exchange", "hash", "rpcs")]["change"] == 0
    assert rows[("query", "", "runtime_s")]["change"] < 0
    text = run_cli("diff", a, b).stdout
    assert "K=1" in text and "K=2" in text and "+50.0%" in text
    # The headline: the runtime A -> B and the figure that moved most in seconds: the exchange's
    # blocked time (K=2 overlaps round trips the sender waited for one at a time), not the query's
    # sum of it, and not the relative change of a count.
    first = text.splitlines()[0]
    print(first)
    assert first.startswith("runtime A ") and "moved most: exchange hash slowest_sender_blocked_s " in first, first
    # The short form is the default: the query's figures, then what moved most, memory in MiB.
    assert "--full" in text and "MiB" in text and len(text.splitlines()) < 25
    assert len(run_cli("diff", a, b, "--full").stdout.splitlines()) > len(text.splitlines())
    changed = json.loads(run_cli("diff", a, b, "--format", "json", "--changed", "0.01").stdout)["rows"]
    assert changed and all(r["figure"] != "rpcs" for r in changed)  # rpcs unchanged
    assert all(r["relative_change"] is None or abs(r["relative_change"]) > 0.01 for r in changed)
    # --top ranks by seconds first: the two rows are times, the larger change in seconds first.
    top = json.loads(run_cli("diff", a, b, "--format", "json", "--top", "2").stdout)["rows"]
    assert len(top) == 2 and all(r["figure"].endswith("_s") for r in top)
    assert abs(top[0]["change"]) >= abs(top[1]["change"]) and top[0]["figure"] == "slowest_sender_blocked_s"
    assert run_cli("diff", a, b, "--top", "0").returncode == 2
    assert run_cli("diff", a, tmp_path / "missing.json").returncode == 2


# ---------------------------------------------------------------------------
# Round trip (needs the schema_version 2 engine)
# ---------------------------------------------------------------------------

@needs_profiles
def test_q72_round_trip(tmp_path):
    """Import q72, simulate it with the profile's own setup, compare.

    The profile's setup is what `profile import` writes by default: 3 executors; round trip of
    every RPC (rtt_us = loopback_rtt_us, all daemons on one machine) = the mean RpcNetworkTime over
    every RPC of the profile (69.5 us; a fit against payload size found no slope); CPU costs per
    row and per byte from the operators', senders' and receivers' own timers; start-up and codegen
    from the timeline and CodeGen nodes (provenance.derivations says how each was read).

    Exact where they are inputs: rows per exchange; RPCs of broadcast and unpartitioned exchanges
    (whole input batches of batch_size rows) and EOS RPCs. Hash exchanges: within one partial batch
    per channel of the measured count (rows are split over channels with binomial noise). Bytes
    on the wire: within 1% (row widths are whole bytes; one compression ratio per exchange).

    Stated tolerances on times: x28 (93,076 RPCs, the only large exchange without backpressure):
    mean network time per RPC within 25%, and its regime: its senders are CPU-bound in the run (the
    slowest one blocked 38 ms, under 1% of the query), so the simulated slowest sender must be blocked
    under 2% of the query's runtime too (a ratio of two near-zero blocked times says nothing; it is
    printed).
    Model gaps reported, not asserted: x27 (the receivers' consumer waited 7.8 s for runtime filters,
    so 6 RPCs were deferred and its senders blocked 0.32 s; the model has no runtime filters), and
    the query's runtime (8.84 s measured, 7.8 s of it that filter wait)."""
    exe = exsim_path()
    if exe is None:
        pytest.skip("exsim not built")
    scenario, results = tmp_path / "q72.json", tmp_path / "q72_results.json"
    assert run_cli("profile", "import", Q72, "--output", scenario).returncode == 0
    proc = subprocess.run([str(exe), "run", str(scenario), "--output", str(results)], capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("compare", results, Q72, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["notes"] == []
    (qd,) = doc["queries"]
    r = qd["runtime_s"]
    print(f"runtime: measured {r['measured']:.3f} s, simulated {r['simulated']:.3f} s (gap: runtime filters)")
    failures = []
    for x in qd["exchanges"]:
        c = x["counters"]
        channels = len(x["senders"]) * c["receivers"]["measured"]
        checks = [("rows_sent", 0), ("eos_rpcs", 0),
                  ("rpcs", 0 if x["partitioning"] != "HASH_PARTITIONED" else channels)]
        for name, slack in checks:
            m, s = c[name]["measured"], c[name]["simulated"]
            print(f"{x['id']} {name}: expected {m} (+-{slack}), simulated {s}")
            if s is None or abs(s - m) > slack:
                failures.append(f"{x['id']} {name}: measured {m}, simulated {s}")
        m, s = c["bytes_sent"]["measured"], c["bytes_sent"]["simulated"]
        print(f"{x['id']} bytes_sent: expected {m} (1%), simulated {s}")
        if s is None or abs(s - m) > 0.01 * m:
            failures.append(f"{x['id']} bytes_sent: measured {m}, simulated {s}")
    x28 = next(x for x in qd["exchanges"] if x["id"] == "x28")["counters"]
    net, blocked = x28["RpcNetworkTime_mean_s"], x28["slowest_sender_blocked_s"]
    print(f"x28 network per RPC: measured {net['measured']}, simulated {net['simulated']} (25%)")
    print(f"x28 slowest sender blocked: measured {blocked['measured']}, simulated {blocked['simulated']} "
          f"(both under 2% of the query's runtime)")
    if not (0.75 <= (net["ratio"] or 0) <= 1.25):
        failures.append(f"x28 RpcNetworkTime per RPC: ratio {net['ratio']}")
    assert blocked["measured"] < 0.02 * r["measured"]  # the run's regime, which the check relies on
    if not blocked["simulated"] < 0.02 * r["simulated"]:
        failures.append(f"x28 slowest sender blocked {blocked['simulated']} s: not CPU-bound as in the run")
    x27 = next(x for x in qd["exchanges"] if x["id"] == "x27")["counters"]
    print(f"model gap, x27 blocked: measured {x27['slowest_sender_blocked_s']['measured']}, simulated "
          f"{x27['slowest_sender_blocked_s']['simulated']}; deferred {x27['rpcs_deferred']['measured']} vs "
          f"{x27['rpcs_deferred']['simulated']}")
    assert not failures, "\n".join(failures)


def _write_results(tmp_path, name, doc):
    base = {"exchanges": [{"id": "x"}], "summary": {}}
    base.update(doc)
    p = tmp_path / name
    p.write_text(json.dumps(base))
    return str(p)


def test_diff_verdict_identical_within_and_beyond_tolerance(tmp_path, capsys):
    a = _write_results(tmp_path, "a.json", {"x": [1.0, 2], "s": "k", "settings": {"m": "exsim"}})
    same = _write_results(tmp_path, "b.json", {"x": [1.0, 2], "s": "k", "settings": {"m": "simgrid"}})
    close = _write_results(tmp_path, "c.json", {"x": [1.0 + 1e-12, 2], "s": "k", "settings": {"m": "exsim"}})
    far = _write_results(tmp_path, "d.json", {"x": [1.1, 2], "s": "k", "settings": {"m": "exsim"}})
    assert cli.main(["diff", a, same, "--rel-tol", "0", "--ignore", "settings.m"]) == 0
    assert capsys.readouterr().out.strip() == "identical"
    assert cli.main(["diff", a, same, "--rel-tol", "0"]) == 1  # the setting differs
    assert "settings.m" in capsys.readouterr().out
    assert cli.main(["diff", a, close, "--rel-tol", "1e-9"]) == 0
    assert "within 1e-09" in capsys.readouterr().out
    assert cli.main(["diff", a, far, "--rel-tol", "1e-9"]) == 1
    assert "x[0]" in capsys.readouterr().out


def test_diff_verdict_structure_and_bad_options(tmp_path, capsys):
    a = _write_results(tmp_path, "a.json", {"x": [1, 2]})
    b = _write_results(tmp_path, "b.json", {"x": [1]})
    assert cli.main(["diff", a, b, "--rel-tol", "0"]) == 1
    assert "2 items" in capsys.readouterr().out
    assert cli.main(["diff", a, b, "--rel-tol", "-1"]) == 2
    assert "--rel-tol" in capsys.readouterr().err
    assert cli.main(["diff", a, b, "--ignore", "x"]) == 2
    assert "--ignore" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Older layouts and counters (synthetic: no such profile is in ../shared)
# ---------------------------------------------------------------------------

# An Impala 2.7-style text profile, written for this test after the layout of 2.7.0's sources:
# RuntimeProfile::PrettyPrint (be/src/util/runtime-profile.cc: "name:(Total: ..)", info strings at +2,
# event sequences with events at +5, time series "Name(period): ..", counters "- name: value" at +3),
# coordinator.cc (the coordinator's executor profile renamed "Coordinator Fragment Fnn", its exec
# nodes directly below it, no Instance child), exec-node.cc (child 0 printed at its parent's level),
# data-stream-sender.cc (BytesSent, UncompressedRowBatchSize, SerializeBatchTime,
# TransmitDataRPCTime, NetworkThroughput(*), OverallThroughput, RowsReturned) and
# data-stream-recvr.cc (BytesReceived, DeserializeRowBatchTimer, SendersBlockedTimer,
# SendersBlockedTotalTimer(*), FirstBatchArrivalWaitTime). The numbers are made up.
_SENDER_2X = """\
        DataStreamSender (dst_id=2):(Total: 1.200ms, non-child: 1.200ms, % non-child: 100.00%)
           - BytesSent: 16.00 B (16)
           - NetworkThroughput(*): 1.00 MB/sec
           - OverallThroughput: 13.02 KB/sec
           - PeakMemoryUsage: 4.00 KB (4096)
           - RowsReturned: 1 (1)
           - SerializeBatchTime: 2.000us
           - TransmitDataRPCTime: 300.000us
           - UncompressedRowBatchSize: 24.00 B (24)
"""
_FRAGMENT_2X = """\
      Instance 5a4f2e7c8b1d9e3f:a1b2c3d40000000{k} (host=node{k}.example.com:22000):(Total: 1s900ms, non-child: 0.000ns, % non-child: 0.00%)
        Hdfs split stats (<volume id>:<# splits>/<split lengths>): 0:2/256.00 MB 
        MemoryUsage(500.000ms): 12.00 KB, 1.02 MB, 1.02 MB
         - AverageThreadTokens: 1.00 
         - PeakMemoryUsage: 1.02 MB (1069547)
         - RowsProduced: 1 (1)
""" + _SENDER_2X + """\
        AGGREGATION_NODE (id=1):(Total: 1s890ms, non-child: 90.000ms, % non-child: 4.76%)
          ExecOption: Codegen Enabled
           - RowsReturned: 1 (1)
           - TotalTime: 1s890ms
        HDFS_SCAN_NODE (id=0):(Total: 1s800ms, non-child: 1s800ms, % non-child: 100.00%)
           - RowsRead: 1.00M (1000000)
           - RowsReturned: 1.00M (1000000)
           - ScanRangesComplete: 2 (2)
           - TotalTime: 1s800ms
"""
PROFILE_2X = """\
Query (id=5a4f2e7c8b1d9e3f:a1b2c3d400000000):
  Summary:
    Session ID: 1e4c9a3b2f1d4e5a:9c8b7a6f5e4d3c2b
    Session Type: BEESWAX
    Start Time: 2016-09-01 10:00:00.000000000
    End Time: 2016-09-01 10:00:03.200000000
    Query Type: QUERY
    Query State: FINISHED
    Query Status: OK
    Impala Version: impalad version 2.7.0-cdh5.9.0 RELEASE (build 0000000000000000000000000000000000000000)
    User: alice
    Connected User: alice
    Delegated User: 
    Network Address: 10.0.0.9:50000
    Default Db: default
    Sql Statement: select count(*) from t
    Coordinator: node0.example.com:22000
    Query Options (non default): 
    Plan: 
----------------
Estimated Per-Host Requirements: Memory=42.00MB VCores=1

03:AGGREGATE [FINALIZE]
|  output: count:merge(*)
|
02:EXCHANGE [UNPARTITIONED]
|
01:AGGREGATE
|  output: count(*)
|
00:SCAN HDFS [default.t]
   partitions=1/1 files=6 size=768.00MB
----------------
    Estimated Per-Host Mem: 44040192
    Request Pool: default-pool
    ExecSummary: 
Operator       #Hosts   Avg Time   Max Time  #Rows  Est. #Rows   Peak Mem  Est. Peak Mem  Detail        
-------------------------------------------------------------------------------------------------------
03:AGGREGATE        1  100.000us  100.000us      1           1   20.00 KB        -1.00 B  FINALIZE      
02:EXCHANGE         1    2s900ms    2s900ms      3           1          0        -1.00 B  UNPARTITIONED 
01:AGGREGATE        3   90.000ms   90.000ms      3           1    1.02 MB       10.00 MB                
00:SCAN HDFS        3    1s800ms    1s800ms  3.00M       3.00M   32.00 MB       32.00 MB  default.t     
    Query Timeline: 3s200ms
       - Start execution: 40.000us (40.000us)
       - Planning finished: 100.000ms (99.960ms)
       - Ready to start 3 remote fragments: 110.000ms (10.000ms)
       - All 3 remote fragments started: 1s110ms (1s000ms)
       - Rows available: 3s100ms (1s990ms)
       - First row fetched: 3s150ms (50.000ms)
       - Unregister query: 3s200ms (50.000ms)
  ImpalaServer:
     - ClientFetchWaitTimer: 50.000ms
     - RowMaterializationTimer: 0.000ns
  Execution Profile 5a4f2e7c8b1d9e3f:a1b2c3d400000000:(Total: 3s050ms, non-child: 0.000ns, % non-child: 0.00%)
    Number of filters: 0
    Per Node Peak Memory Usage: node0.example.com:22000(1.04 MB) node1.example.com:22000(1.02 MB) node2.example.com:22000(1.02 MB)
     - FiltersReceived: 0 (0)
     - FinalizationTimer: 0.000ns
    Coordinator Fragment F01:(Total: 3s050ms, non-child: 0.000ns, % non-child: 0.00%)
      MemoryUsage(500.000ms): 12.00 KB, 12.00 KB
       - AverageThreadTokens: 0.00 
       - PeakMemoryUsage: 32.00 KB (32768)
       - RowsProduced: 1 (1)
      AGGREGATION_NODE (id=3):(Total: 2s951ms, non-child: 100.000us, % non-child: 0.00%)
         - RowsReturned: 1 (1)
         - TotalTime: 2s951ms
      EXCHANGE_NODE (id=2):(Total: 2s951ms, non-child: 1.000ms, % non-child: 0.03%)
        BytesReceived(500.000ms): 0, 48
         - BytesReceived: 48.00 B (48)
         - ConvertRowBatchTime: 1.000us
         - DeserializeRowBatchTimer: 12.000us
         - FirstBatchArrivalWaitTime: 2s900ms
         - InactiveTotalTime: 2s950ms
         - PeakMemoryUsage: 0
         - RowsReturned: 3 (3)
         - RowsReturnedRate: 1.00 /sec
         - SendersBlockedTimer: 0.000ns
         - SendersBlockedTotalTimer(*): 0.000ns
         - TotalTime: 2s951ms
    Averaged Fragment F00:(Total: 1s900ms, non-child: 0.000ns, % non-child: 0.00%)
      split sizes:  min: 256.00 MB, max: 256.00 MB, avg: 256.00 MB, stddev: 0
      completion times: min:1s900ms  max:1s900ms  mean: 1s900ms  stddev:0.000ns
      execution rates: min:134.74 MB/sec  max:134.74 MB/sec  mean:134.74 MB/sec  stddev:0.00 /sec
      num instances: 3
       - AverageThreadTokens: 1.00 
""" + _SENDER_2X.replace("        ", "      ", 1) + """\
    Fragment F00:
""" + "".join(_FRAGMENT_2X.format(k=k) for k in (1, 2, 3))


def test_pre_krpc_profile_with_a_coordinator_fragment_imports(tmp_path):
    """A 2.x profile: 'Coordinator Fragment F01' directly above its nodes, a DataStreamSender with
    BytesSent and RowsReturned, an exchange node with BytesReceived and SendersBlockedTimer, no
    RpcSuccess or EosSent, the 2.x timeline ('Start execution', 'All 3 remote fragments started')."""
    p = tmp_path / "impala27.txt"
    p.write_text(PROFILE_2X)
    (q,) = [build_query(d) for d in read_profiles(str(p))]
    assert q.hosts == [f"node{k}.example.com:22000" for k in range(4)]  # the coordinator first
    assert q.fragments["F01"].coordinator and [i.host for i in q.fragments["F01"].instances] == [q.coordinator]
    x = q.exchanges[2]
    assert (x.partitioning, x.broadcast, len(x.senders), len(x.receivers)) == ("UNPARTITIONED", False, 3, 1)
    assert [s.bytes_sent for s in x.senders] == [16] * 3 and [s.rows for s in x.senders] == [1] * 3
    assert all(s.rpcs is None and s.eos is None and s.rpc_success is None for s in x.senders)
    assert x.receivers[0].bytes_received == 48 and x.receivers[0].deferred is None
    assert x.receivers[0].data_wait_s == pytest.approx(2.95)
    assert q.runtime_s() == pytest.approx(3.150 - 40e-6) and q.startup_s() == pytest.approx(1.110 - 40e-6)
    # Impala 2.0's sender counts no rows: the instance's RowsProduced are what it sent.
    p20 = tmp_path / "impala20.txt"
    p20.write_text(PROFILE_2X.replace("           - RowsReturned: 1 (1)\n           - SerializeBatchTime", "           - SerializeBatchTime"))
    assert "DataStreamSender (dst_id=2):" in p20.read_text() and \
        p20.read_text().count("- RowsReturned: 1 (1)") == PROFILE_2X.count("- RowsReturned: 1 (1)") - 4
    (q20,) = [build_query(d) for d in read_profiles(str(p20))]
    assert [s.rows for s in q20.exchanges[2].senders] == [1] * 3
    out = tmp_path / "sc.json"
    proc = run_cli("profile", "import", p, "--output", out)
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(out.read_text())
    assert simulator_problems(sc, tmp_path) == []
    (qs,) = sc["queries"]
    (xs,) = qs["exchanges"]
    exp = xs["expected"]
    for gone in ("rpcs", "eos_rpcs", "mean_rpc_bytes", "RpcSuccess", "rpcs_deferred", "RpcNetworkTime_s"):
        assert gone not in exp, gone
    assert exp["bytes_sent"] == 48 and exp["rows_sent"] == 3 and exp["TotalBytesReceived"] == 48
    assert "data RPCs" not in xs["source"]  # the notes claim no RPC count the profile does not have
    assert qs["expected"]["runtime_s"] == pytest.approx(3.14996) and sc["costs"]["query_startup_s"] == \
        pytest.approx(1.10996)
    d = sc["provenance"]["derivations"]
    assert "no Instance child" in d[f"query {q.id} layout"]
    assert "not in this profile" in d[f"query {q.id} counters"] and "BytesSent" in d[f"query {q.id} counters"]
    assert d["cluster.network"].startswith("ASSUMED") and "every channel of the profile is remote" in \
        d["cluster.network"]
    assert "'Start execution' to 'First row fetched'" in d[f"query {q.id} expected.runtime_s"]
    # compare: what the profile does not count is said so, not shown as a measured 0.
    res = tmp_path / "results.json"
    res.write_text(json.dumps({
        "exsim_version": "test", "scenario": {}, "settings": {}, "summary": {},
        "queries": [{"query": q.id, "runtime_s": 3.0}],
        "exchanges": [{"id": "x2", "query": q.id, "rows_sent": 3, "rpcs": 3, "eos_rpcs": 3, "bytes_sent": 48,
                       "slowest_sender_blocked_s": 0.0, "rpcs_deferred": 0,
                       "sender_instances": [{"index": k, "host": k + 1, "RowsSent": 1, "TotalBytesSent": 16,
                                             "RpcSuccess": 2, "InactiveTotalTime_s": 0.0,
                                             "RpcNetworkTime_s": 2e-4} for k in range(3)],
                       "receiver_instances": [{"index": 0, "host": 0, "DataWaitTime_s": 2.9,
                                               "TotalHasDeferredRPCsTime_s": 0.0}]}]}))
    doc = json.loads(run_cli("compare", res, p, "--format", "json").stdout)
    c = doc["queries"][0]["exchanges"][0]["counters"]
    for gone in ("rpcs", "eos_rpcs", "rpcs_deferred", "RpcNetworkTime_mean_s"):
        assert c[gone]["measured"] is None and c[gone]["note"] == "not in this profile", gone
    assert c["bytes_sent"]["measured"] == 48 and c["bytes_sent"]["ratio"] == 1
    text = run_cli("compare", res, p).stdout
    assert "not in this profile" in text


def _krpc_profile_text(daemons):
    """A synthetic 5.0-style text profile of a join on `daemons` daemons: F00 scans a large table on
    every daemon (2 ranges each) and hash-partitions it to F02; F01 scans a small table whose 2 scan
    ranges lie on the last two daemons and broadcasts it to F02; F02 joins and pre-aggregates on
    every daemon and sends to the coordinator's F03. Layout as in the 5.0 text renderings of
    ../shared (child 0 of an operator printed at its parent's level)."""
    hosts = [f"worker-{k:02d}.example.com:27000" for k in range(daemons)]
    qid = "00000000000000aa:00000000000000bb"
    n_inst = iter(range(1, 10_000))

    def sender(dst, rows, byts, rpcs, eos, option):
        return (f"        KrpcDataStreamSender (dst_id={dst}):\n"
                f"          ExecOption: {option}\n"
                f"           - RpcNetworkTime: (Avg: 120.000us ; Min: 50.000us ; Max: 400.000us ; "
                f"Sum: {rpcs * 0.12:.3f}ms ; Number of samples: {rpcs + eos})\n"
                f"           - EosSent: {eos} ({eos})\n"
                f"           - InactiveTotalTime: 1.000ms\n"
                f"           - RowsSent: {rows} ({rows})\n"
                f"           - RpcSuccess: {rpcs + eos} ({rpcs + eos})\n"
                f"           - SerializeBatchTime: 2.000ms\n"
                f"           - TotalBytesSent: {byts} B ({byts})\n"
                f"           - TotalTime: 10.000ms\n"
                f"           - UncompressedRowBatchSize: {byts * 2} B ({byts * 2})\n")

    def exchange(node_id, rows, byts, batches, indent):
        pad = " " * indent
        return (f"{pad}EXCHANGE_NODE (id={node_id}):\n"
                f"{pad}   - InactiveTotalTime: 100.000ms\n"
                f"{pad}   - RowsReturned: {rows} ({rows})\n"
                f"{pad}   - TotalTime: 101.000ms\n"
                f"{pad}  Dequeue:\n"
                f"{pad}     - TotalBytesDequeued: {byts * 2} B ({byts * 2})\n"
                f"{pad}     - TotalGetBatchTime: 100.000ms\n"
                f"{pad}       - DataWaitTime: 100.000ms\n"
                f"{pad}  Enqueue:\n"
                f"{pad}     - DeserializeRowBatchTime: 1.000ms\n"
                f"{pad}     - TotalBatchesReceived: {batches} ({batches})\n"
                f"{pad}     - TotalBytesReceived: {byts} B ({byts})\n"
                f"{pad}     - TotalEosReceived: 1 (1)\n"
                f"{pad}     - TotalHasDeferredRPCsTime: 0.000ns\n"
                f"{pad}     - TotalRPCsDeferred: 0 (0)\n")

    def instance(host):
        return f"      Instance {qid[:17]}{next(n_inst):016x} (host={host}):\n"

    out = [f"Query (id={qid}):\n", "  Summary:\n",
           "    Query Type: QUERY\n", "    Query State: FINISHED\n", "    Query Status: OK\n",
           "    Impala Version: impalad version 5.0.0-SNAPSHOT RELEASE (build 0)\n",
           "    Sql Statement: select k, count(*) from big join small using (k) group by k\n",
           f"    Coordinator: {hosts[0]}\n",
           "    Query Options (set by configuration and planner): MT_DOP=0\n",
           "    Query Timeline: 2s000ms\n",
           "       - Query submitted: 10.000us (10.000us)\n",
           "       - Planning finished: 50.000ms (49.990ms)\n",
           f"       - All {daemons} execution backends ({2 * daemons + 3} fragment instances) started: 80.000ms "
           "(30.000ms)\n",
           "       - Rows available: 1s900ms (1s820ms)\n",
           "       - Last row fetched: 1s950ms (50.000ms)\n",
           f"  Execution Profile {qid}:\n",
           "    Coordinator Fragment F03:\n", instance(hosts[0]),
           "        PLAN_ROOT_SINK:\n", "           - RowsSent: 100 (100)\n",
           "        AGGREGATION_NODE (id=7):\n", "           - RowsReturned: 100 (100)\n",
           "           - TotalTime: 150.000ms\n"]
    out.append(exchange(6, 100 * daemons, 1000 * daemons, daemons, 8))
    out.append("    Fragment F02:\n")
    for h in hosts:
        out += [instance(h), sender(6, 100, 1000, 1, 1, "Unpartitioned Sender Codegen Disabled"),
                "        AGGREGATION_NODE (id=5):\n", "           - RowsReturned: 100 (100)\n",
                "           - TotalTime: 140.000ms\n",
                "        HASH_JOIN_NODE (id=4):\n", "           - ProbeRows: 10000 (10000)\n",
                "           - RowsReturned: 10000 (10000)\n", "           - TotalTime: 130.000ms\n",
                "          Hash Join Builder (join_node_id=4):\n", "             - BuildRows: 2000 (2000)\n",
                "             - TotalTime: 5.000ms\n",
                exchange(3, 2000, 20000, 4, 10), exchange(2, 10000, 300000, 40, 8)]
    out.append("    Fragment F01:\n")
    for h in hosts[-2:]:
        out += [instance(h), sender(3, 1000, 10000, 2 * daemons, daemons, "Unpartitioned Sender Codegen Disabled"),
                "        HDFS_SCAN_NODE (id=1):\n", "          Table Name: db.small\n",
                "           - RowsRead: 1000 (1000)\n", "           - RowsReturned: 1000 (1000)\n",
                "           - ScanRangesComplete: 1 (1)\n", "           - TotalTime: 20.000ms\n"]
    out.append("    Fragment F00:\n")
    for h in hosts:
        out += [instance(h), sender(2, 10000, 300000, 40, daemons, "Hash Partitioned Sender Codegen Enabled"),
                "        HDFS_SCAN_NODE (id=0):\n", "          Table Name: db.big\n",
                "           - RowsRead: 10000 (10000)\n", "           - RowsReturned: 10000 (10000)\n",
                "           - ScanRangesComplete: 2 (2)\n", "           - TotalTime: 60.000ms\n"]
    return "".join(out)


@pytest.mark.parametrize("daemons", [9, 20])
def test_profile_of_a_larger_cluster_retargets_to_fewer_executors(daemons, tmp_path):
    """A profile from 9 or 20 daemons imported for 5 executors: F01 (its 2 scan ranges on the last two
    daemons) is re-placed on executors 0..1 as the scheduler would and provenance says so; the
    fragments that scale with cluster.executors stay; the scenario is valid for exsim."""
    p = tmp_path / f"join_{daemons}.txt"
    p.write_text(_krpc_profile_text(daemons))
    as_profiled = import_file(p)
    f01 = next(f for f in as_profiled["queries"][0]["fragments"] if f["id"] == "F01")
    assert (f01["executors"], f01["first_executor"]) == (2, daemons - 2)
    out = tmp_path / "five.json"
    proc = run_cli("profile", "import", p, "--executors", "5", "--output", out)
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(out.read_text())
    assert sc["cluster"]["executors"] == 5 and simulator_problems(sc, tmp_path) == []
    frags = {f["id"]: f for f in sc["queries"][0]["fragments"]}
    assert (frags["F01"]["executors"], frags["F01"]["first_executor"]) == (2, 0)
    assert frags["F00"]["executors"] == 0 and frags["F02"]["executors"] == 0  # scale with the cluster
    assert (frags["F03"]["executors"], frags["F03"]["first_executor"]) == (1, 0)  # the coordinator
    rt = sc["provenance"]["retargeted"]
    assert rt["profiled_daemons"] == daemons and rt["executors"] == 5
    (notes,) = rt["fragments"].values()
    assert len(notes) == 1 and notes[0].startswith(f"F01: ran on executors {daemons - 2}..{daemons - 1}")
    exe = exsim_path()
    if exe is not None:
        proc = subprocess.run([str(exe), "run", str(out), "--output", str(tmp_path / "r.json")],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(run_cli("compare", tmp_path / "r.json", p, "--format", "json").stdout)
        assert "another cluster" in doc["headline"]
    assert run_cli("profile", "import", p, "--executors", "0").returncode == 2


def test_text_operator_trees_are_re_nested(tmp_path):
    """exec-node.cc prints an operator's children 1..n indented and child 0 at its own level; the
    reader rebuilds the tree the Thrift form has (children 1..n, then child 0)."""
    p = tmp_path / "tree.txt"
    p.write_text("""\
Query (id=0000000000000001:0000000000000002):
  Summary:
    Query State: FINISHED
  Execution Profile 0000000000000001:0000000000000002:
    Fragment F00:
      Instance 0000000000000001:0000000000000003 (host=h:1):
        KrpcDataStreamSender (dst_id=9):
           - RowsSent: 1 (1)
        UNION_NODE (id=5):
          HASH_JOIN_NODE (id=3):
            Hash Join Builder (join_node_id=3):
               - BuildRows: 2 (2)
            AGGREGATION_NODE (id=2):
            HDFS_SCAN_NODE (id=1):
               - RowsRead: 4 (4)
          HDFS_SCAN_NODE (id=0):
          EXCHANGE_NODE (id=7):
        HDFS_SCAN_NODE (id=8):(Total: 1s500ms, non-child: 1s500ms, % non-child: 100.00%)
""")
    (doc,) = read_profiles(str(p))

    def shape(node):
        return [(c.name.split(" (")[0][:4] + c.name[c.name.find("(id="):] if "(id=" in c.name else c.name,
                 shape(c)) for c in node.children if "(id=" in c.name or "Builder" in c.name]

    inst = doc.root.children[1].children[0].children[0]
    assert shape(inst) == [
        ("UNIO(id=5)", [("HASH(id=3)", [("Hash Join Builder (join_node_id=3)", []),
                                         ("AGGR(id=2)", [("HDFS(id=1)", [])]), ("HDFS(id=0)", [])]),
                        ("EXCH(id=7)", []), ("HDFS(id=8)", [])])]
    assert inst.children[0].name.startswith("KrpcDataStreamSender") and inst.children[0].value("RowsSent") == 1
    # A total printed only in the header is the node's TotalTime.
    assert inst.children[1].children[-1].value("TotalTime") == 1_500_000_000


@needs_profiles
def test_instance_counts_follow_the_simulators_rule_or_stay_as_profiled(monkeypatch):
    # The compute-stats log ran at mt_dop=4 on 3 daemons. Its unpartitioned fragments ran one
    # instance each, which Impala's rule gives (the simulator runs an unpartitioned fragment once):
    # they are left to the rule (0). Without a simulator to ask, every count is written as profiled
    # and provenance says why.
    if exsim_path() is None:
        pytest.skip("exsim not built")
    log = PROFILES / "impala_profile_log_tpcds_compute_stats_v2"
    monkeypatch.setenv("EXSIM", str(exsim_path()))
    sc = import_file(log)
    placement = sc["provenance"]["placement"]
    ruled = {(q["name"], f["id"]) for q in sc["queries"] for f in q["parallel"]["fragments"]
             if f["instances_per_executor"] == 0}
    assert ruled, placement
    for name, fid in ruled:
        assert "= Impala's rule at mt_dop=4" in placement[name][fid]
    for q in sc["queries"]:
        for f in q["parallel"]["fragments"]:
            if f["instances_per_executor"] != 0:
                assert "as profiled" in placement[q["name"]][f["id"]]
    monkeypatch.setenv("EXSIM", "/nonexistent/exsim")
    alone = import_file(log)
    assert all(f["instances_per_executor"] >= 1 for q in alone["queries"] for f in q["parallel"]["fragments"])
    assert any(i["what"] == "Impala's instance rule" for i in alone["provenance"]["ignored"])


# ---------------------------------------------------------------------------
# Impala 2.0-2.2 text profiles (synthetic: tests/python/data/impala_2x, see its README)
# ---------------------------------------------------------------------------

IMPALA_2X = REPO / "tests" / "python" / "data" / "impala_2x"


@pytest.mark.parametrize("name,daemons,summary", [("impala20_4daemons.txt", 4, False),
                                                  ("impala22_3daemons.txt", 3, True)])
def test_impala_2_0_to_2_2_text_profile_imports_runs_and_compares(name, daemons, summary, tmp_path):
    """A 2.0 profile without its ExecSummary (fetched before the query was unregistered) takes each
    exchange's partitioning from the plan's DATASTREAM SINK line; a 2.2 one from its ExecSummary.
    Counters as the fixture's generator wrote them: BytesSent summed, rows from the instances'
    RowsProduced, the sender's blocked time from TotalNetworkSendTime, the receiver's wait from its
    header (TotalTime - non-child), times in 2.x's unpadded form ('1.50ms' is 1.050 ms)."""
    exe = exsim_path()
    if exe is None:
        pytest.skip("exsim is not built: the simulator validates and runs imported scenarios")
    src = IMPALA_2X / name
    text = src.read_text()
    assert ("ExecSummary:" in text) == summary and "DATASTREAM SINK [FRAGMENT=F03, EXCHANGE=07, UNPARTITIONED]" in text
    sc_path, res = tmp_path / "sc.json", tmp_path / "res.json"
    proc = run_cli("profile", "import", src, "--output", sc_path)
    assert proc.returncode == 0, proc.stderr
    sc = json.loads(sc_path.read_text())
    assert simulator_problems(sc, tmp_path) == []
    assert sc["cluster"]["executors"] == daemons
    (q,) = sc["queries"]
    xs = {x["id"]: x for x in q.get("parallel", q)["exchanges"]}
    assert {k: x["partitioning"] for k, x in xs.items()} == {
        "x4": "UNPARTITIONED", "x5": "HASH_PARTITIONED", "x7": "UNPARTITIONED"}
    assert "BROADCAST" in xs["x4"]["source"] and "HASH(n_name)" in xs["x5"]["source"]
    assert all(("partitioning from the plan's DATASTREAM SINK line" in x["source"]) != summary for x in xs.values())
    e4, e5, e7 = xs["x4"]["expected"], xs["x5"]["expected"], xs["x7"]["expected"]
    # BytesSent summed over the senders; a broadcast's counts every copy (514 bytes per receiver).
    assert e4["bytes_sent"] == 514 * daemons == e4["TotalBytesReceived"]
    assert e5["bytes_sent"] == sum([812, 798, 805, 820][:daemons]) == e5["TotalBytesReceived"]
    sent7 = [9 * g + 2 for g in ([7, 6, 6, 6] if daemons == 4 else [9, 8, 8])]
    assert e7["bytes_sent"] == sum(sent7) == e7["TotalBytesReceived"]
    assert q["expected"]["bytes_sent"] == e4["bytes_sent"] + e5["bytes_sent"] + e7["bytes_sent"]
    # Rows: the 2.0-2.2 sender counts none; each instance's RowsProduced is what it sent.
    assert (e4["rows_sent"], e5["rows_sent"], e7["rows_sent"]) == (25, 25 * daemons, 25)
    assert (e4["senders"], e4["receivers"], e5["senders"], e7["receivers"]) == (1, daemons, daemons, 1)
    # TotalNetworkSendTime (the sender's waits for its previous RPC): 165.0us at most on F02, 250.0us +
    # 10.0us per instance on F00, 1.250ms on F01.
    assert e7["slowest_sender_blocked_s"] == pytest.approx(150e-6 + 5e-6 * (daemons - 1))
    assert e5["InactiveTotalTime_s"] == pytest.approx(sum(250e-6 + 10e-6 * k for k in range(daemons)))
    assert e4["slowest_sender_blocked_s"] == pytest.approx(1.25e-3)
    # The coordinator's exchange 07: '(Total: 2s850ms, non-child: 1.50ms, ..)': 1.50ms is 1 ms + 50 us
    # in 2.x's printing, so the wait is 2.848950 s (read as 1.5 ms it would be 2.8485 s).
    assert "non-child: 1.50ms" in text and e7["DataWaitTime_s"] == pytest.approx(2.84895, abs=1e-9)
    assert e4["DataWaitTime_s"] == pytest.approx(0.379 + 0.002 * (daemons - 1))
    for gone in ("rpcs", "eos_rpcs", "RpcSuccess", "rpcs_deferred", "RpcNetworkTime_s"):
        assert gone not in e5, gone
    ignored = " ".join(i["what"] for i in sc["provenance"]["ignored"])
    for name_ in ("ThriftTransmitTime", "NetworkThroughput", "OverallThroughput", "SendersBlockedTotalTimer",
                  "TotalNetworkReceiveTime"):
        assert name_ in ignored, name_
    # Run it and compare with the profile.
    proc = subprocess.run([str(exe), "run", str(sc_path), "--output", str(res)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("compare", res, src, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    (cq,) = doc["queries"]
    assert cq["runtime_s"]["measured"] == pytest.approx(3.250 - 52e-6)
    c5 = next(x for x in cq["exchanges"] if x["id"] == "x5")["counters"]
    assert c5["bytes_sent"]["measured"] == e5["bytes_sent"]
    assert c5["rpcs"]["measured"] is None and c5["rpcs"]["note"] == "not in this profile"


def test_impala_2x_times_are_read_with_their_unpadded_fractions(tmp_path):
    """Before 2.5 a time under a second printed its remainder unpadded ('12.5us' is 12.005 us); from
    2.5 on, three decimals. The Impala Version line decides; the fixtures' times read as written."""
    assert parse_time_ns("1.50ms", subunits=True) == 1_050_000 and parse_time_ns("1.50ms") == 1_500_000
    assert parse_time_ns("12.5us", subunits=True) == 12_005 and parse_time_ns("2s015ms", subunits=True) == 2_015_000_000
    (doc,) = read_profiles(str(IMPALA_2X / "impala20_4daemons.txt"))
    q = build_query(doc)
    assert q.timeline["Ready to start remote fragments"] == pytest.approx(0.125005)  # '125.5ms'
    newer = tmp_path / "p.txt"
    newer.write_text((IMPALA_2X / "impala20_4daemons.txt").read_text().replace("version 2.0.0-cdh5", "version 2.6.0"))
    (doc,) = read_profiles(str(newer))
    assert build_query(doc).timeline["Ready to start remote fragments"] == pytest.approx(0.1255)


def test_dispatch_is_the_receivers_mean_dispatch_time_pooled_over_their_samples():
    # 3 RPCs of 10 us and 1 of 50 us: (30 + 50) / 4 = 20 us; a receiver without samples does not count
    class R:
        def __init__(self, stat):
            self.dispatch = stat

    class X:
        receivers = [R(SummaryStat("TIME_NS", 3, 10000.0, 5000.0, 20000.0)),
                     R(SummaryStat("TIME_NS", 1, 50000.0, 50000.0, 50000.0)),
                     R(SummaryStat("TIME_NS", 0, 0.0, 0.0, 0.0)), R(None)]
    us, how = fit_dispatch([X()])
    assert us == pytest.approx(20.0)
    assert "4 RPCs (2 receiver instances)" in how
    X.receivers = [R(None)]
    assert fit_dispatch([X()]) is None
