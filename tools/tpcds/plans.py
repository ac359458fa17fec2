"""The query set of the benchmark and the parser of Impala's planner test files."""

import os
import re

from tools.tpcds import PlanError

# The 104 statements of the workload, in the benchmark's order
# (impala-plans/queries.txt), with the plan file each one uses.
# Rule (the measured list is not published, see README): all 111 TPC-DS
# statements of queries.txt except the seven ROLLUP queries whose rollup-free
# official variant is also in the list (q18, q22, q67, q70, q77, q80, q86 are
# replaced by q18a, q22a, q67a, q70a, q77a, q80a, q86a); q51 and q51a both stay
# (q51a is a rewrite of q51's window frame, not a rollup variant).
ROLLUP_BASES_REPLACED = ["q18", "q22", "q67", "q70", "q77", "q80", "q86"]
VARIANT_BASE = {"q18a": "q18", "q22a": "q22", "q51a": "q51", "q67a": "q67",
                "q70a": "q70", "q77a": "q77", "q80a": "q80", "q86a": "q86"}


# --------------------------------------------------------------------------
# Plan parsing
# --------------------------------------------------------------------------

NODE_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)(?P<id>\d+):(?P<kind>[A-Z][A-Z -]*[A-Z])(?P<rest>.*)$")
FRAG_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)F(?P<id>\d+):PLAN FRAGMENT \[(?P<part>.*)\] "
                     r"hosts=(?P<hosts>\d+) instances=(?P<inst>\d+)(?P<rest>.*)$")
CARD_RE = re.compile(r"tuple-ids=(?P<tids>\S+) row-size=(?P<rs>[\d.]+)(?P<rsu>B|KB|MB|GB) "
                     r"cardinality=(?P<card>[\d.]+)(?P<cu>[KMGT]?)"
                     r"(?:\(filtered from (?P<ff>[\d.]+)(?P<ffu>[KMGT]?)\))?")
METRIC = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
BYTES = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}


class Fragment:
    def __init__(self, fid, part, hosts, instances, line, rest):
        self.fid = fid
        self.part = part
        self.hosts = hosts
        self.instances = instances
        self.line = line
        self.adjusted = rest.strip()
        self.join_build = False


class Node:
    def __init__(self, nid, kind, bracket, line):
        self.nid = nid
        self.kind = kind
        self.bracket = bracket
        self.line = line
        self.details = []
        self.children = []
        self.parent = None
        self.fragment = None
        self.sender = None     # for exchanges: the fragment below
        # filled from details
        self.card = None
        self.card_text = ""
        self.filtered_from = None
        self.row_size = None
        self.row_size_text = ""
        self.tuple_ids = []
        self.limit = None
        self.group_by = []
        self.classes = 0
        self.fkpk = None
        self.table = None
        # computed
        self.card100 = None
        self.rule = ""
        self.mn_capped = False


def depth_of(prefix):
    return len(prefix) // 3


def parse_details(node):
    for d in node.details:
        s = d.lstrip("| ")
        m = CARD_RE.search(d)
        if m and node.card is None:
            node.tuple_ids = m.group("tids").split(",")
            node.row_size = float(m.group("rs")) * BYTES[m.group("rsu")]
            node.row_size_text = m.group("rs") + m.group("rsu")
            node.card = float(m.group("card")) * METRIC[m.group("cu")]
            node.card_text = m.group("card") + m.group("cu")
            if m.group("ff"):
                node.filtered_from = float(m.group("ff")) * METRIC[m.group("ffu")]
                node.card_text += "(filtered from %s%s)" % (m.group("ff"), m.group("ffu"))
        elif s.startswith("limit: ") or s.startswith("limit with ties: "):
            node.limit = int(s.split(":", 1)[1].strip())
        elif s.startswith("group by: "):
            node.group_by.append(s[len("group by: "):])
        elif re.match(r"Class \d+$", s):
            node.classes += 1
        elif s.startswith("fk/pk conjuncts: "):
            node.fkpk = s[len("fk/pk conjuncts: "):]
    m = re.match(r"\[LIMIT=(\d+)\]", node.bracket)
    if m:
        node.limit = int(m.group(1))
    if node.kind == "SCAN HDFS":
        m = re.match(r"\[[a-z_]+\.([a-z_]+)", node.bracket)
        if not m:
            raise PlanError("cannot read the table of scan %d: %s" % (node.nid, node.bracket))
        node.table = m.group(1)
    if node.card is None:
        raise PlanError("node %d:%s has no cardinality line" % (node.nid, node.kind))


def distributed_section(text, fname):
    lines = text.split("\n")
    start = end = None
    for i, ln in enumerate(lines):
        if ln.startswith("---- DISTRIBUTEDPLAN"):
            start = i + 1
        elif start is not None and end is None and (ln.startswith("---- ") or ln.startswith("====")):
            end = i
            break
    if start is None or end is None:
        raise PlanError("%s: no ---- DISTRIBUTEDPLAN section" % fname)
    return start, lines[start:end]


def parse_plan(path):
    """Parse the DISTRIBUTEDPLAN section into a tree; returns (root, nodes, fragments)."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    fname = os.path.basename(path)
    offset, lines = distributed_section(text, fname)
    nodes = {}
    frags = {}
    last_node = {}   # content depth -> node that the next unmarked header at that depth attaches to
    cur_frag = {}    # content depth -> fragment of nodes at that depth
    root = None
    current = None
    pending_frag = None
    for i, ln in enumerate(lines):
        lineno = offset + i + 1
        fm = FRAG_RE.match(ln)
        nm = None if fm else NODE_RE.match(ln)
        if fm:
            current = None
            prefix = fm.group("prefix")
            marked = prefix.endswith("|--")
            d = depth_of(prefix)
            fr = Fragment("F" + fm.group("id"), fm.group("part"), int(fm.group("hosts")),
                          int(fm.group("inst")), lineno, fm.group("rest"))
            frags[fr.fid] = fr
            for k in [k for k in last_node if k > d]:
                del last_node[k]
            for k in [k for k in cur_frag if k > d]:
                del cur_frag[k]
            if marked:
                # a build branch: the next node at depth d is a child of the join at depth d-1
                last_node[d] = last_node.get(d - 1)
            elif d in last_node and last_node[d] is not None and last_node[d].kind in ("EXCHANGE", "MERGING-EXCHANGE"):
                last_node[d].sender = fr
            cur_frag[d] = fr
            pending_frag = fr
            continue
        if nm:
            prefix = nm.group("prefix")
            marked = prefix.endswith("|--")
            d = depth_of(prefix)
            rest = nm.group("rest").strip()
            bracket = rest if rest.startswith("[") else ""
            node = Node(int(nm.group("id")), nm.group("kind"), bracket, lineno)
            if node.nid in nodes:
                raise PlanError("%s: node id %d appears twice" % (fname, node.nid))
            nodes[node.nid] = node
            if marked:
                parent = last_node.get(d - 1)
                cur_frag[d] = cur_frag.get(d - 1)
            else:
                parent = last_node.get(d)
            for k in [k for k in last_node if k > d]:
                del last_node[k]
            for k in [k for k in cur_frag if k > d]:
                del cur_frag[k]
            if parent is None:
                if root is not None:
                    raise PlanError("%s:%d: second root node %d" % (fname, lineno, node.nid))
                root = node
            else:
                parent.children.append(node)
                node.parent = parent
            node.fragment = cur_frag.get(d)
            last_node[d] = node
            current = node
            pending_frag = None
            continue
        s = ln.lstrip("| ")
        if pending_frag is not None and s == "JOIN BUILD":
            pending_frag.join_build = True
        if current is not None:
            if s == "":
                current = None
            else:
                current.details.append(ln)
    if root is None:
        raise PlanError("%s: empty DISTRIBUTEDPLAN" % fname)
    for n in nodes.values():
        parse_details(n)
        if n.kind in ("EXCHANGE", "MERGING-EXCHANGE"):
            if n.sender is None:
                raise PlanError("%s: exchange %d has no sending fragment" % (fname, n.nid))
            if len(n.children) != 1:
                raise PlanError("%s: exchange %d has %d children" % (fname, n.nid, len(n.children)))
        if n.fragment is None:
            raise PlanError("%s: node %d is in no fragment" % (fname, n.nid))
    # Build children: Impala prints the branches (|--) before the first child;
    # the parser appended them in print order, so put the first child first.
    for n in nodes.values():
        if len(n.children) > 1:
            n.children = [n.children[-1]] + n.children[:-1]
    return root, nodes, frags, text


# --------------------------------------------------------------------------
# Query set
# --------------------------------------------------------------------------

def read_query_list(plans):
    path = os.path.join(plans, "queries.txt")
    names = []
    with open(path, "r", encoding="utf-8") as f:
        for ln in f:
            ln = ln.strip()
            if ln and not ln.startswith("#"):
                names.append(ln)
    return names


def plan_stem_for(qname):
    """Benchmark name (q14-1, q72, q67a) -> planner file stem (q14a, q72, q67)."""
    m = re.match(r"^q(\d+)([a-z]?)(?:-(\d))?$", qname)
    num, letter, part = int(m.group(1)), m.group(2), m.group(3)
    if part:
        return "q%02d%s" % (num, "ab"[int(part) - 1])
    if qname in VARIANT_BASE:
        return "q%02d" % int(VARIANT_BASE[qname][1:])
    return "q%02d%s" % (num, letter)


def select_queries(plans):
    """The 104 statements (benchmark order) and the plan file each uses."""
    names = read_query_list(plans)
    tpcds = []
    for n in names:
        m = re.match(r"^TPCDS-Q(\d+[A-Z]?(?:-\d)?)$", n)
        if m:
            tpcds.append("q" + m.group(1).lower())
    if len(tpcds) != 111:
        raise PlanError("queries.txt: expected 111 TPC-DS statements, found %d" % len(tpcds))
    chosen = [q for q in tpcds if q not in ROLLUP_BASES_REPLACED]
    for q in ROLLUP_BASES_REPLACED:
        if q not in tpcds or q + "a" not in tpcds:
            raise PlanError("queries.txt: %s and %sa should both be listed" % (q, q))
    out = []
    for q in chosen:
        stem = plan_stem_for(q)
        path = os.path.join(plans, "tpcds-%s.test" % stem)
        if not os.path.isfile(path):
            raise PlanError("no plan file %s for %s" % (path, q))
        out.append((q, stem))
    return tpcds, out
