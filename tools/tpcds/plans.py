"""Impala's plan text (planner test files, profile "Plan" strings) as trees, and the query set.

A plan section (`---- DISTRIBUTEDPLAN`, `---- PARALLELPLANS`, or the plan printed in a runtime
profile) becomes a tree of Node (one per plan node: its kind, bracket, details, cardinality,
tuple ids, row size) grouped into Fragment (header line: partition, hosts, instances, JOIN BUILD).
The tree is rebuilt from the indentation: `|--` starts a branch (a join's build side, a union's
other inputs); a fragment header that follows an exchange's block is that exchange's sender.
"""

import hashlib
import os
import re

from tools.tpcds import PlanError

# The benchmark statements (impala-plans/queries.txt) that the workload replaces by their
# rollup-free official variant, and the base query of each variant (q51a rewrites q51's window).
ROLLUP_BASES_REPLACED = ["q18", "q22", "q67", "q70", "q77", "q80", "q86"]
VARIANT_BASE = {"q18a": "q18", "q22a": "q22", "q51a": "q51", "q67a": "q67",
                "q70a": "q70", "q77a": "q77", "q80a": "q80", "q86a": "q86"}

NODE_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)(?P<id>\d+):(?P<kind>[A-Z][A-Z -]*[A-Z])(?P<rest>.*)$")
FRAG_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)F(?P<id>\d+):PLAN FRAGMENT \[(?P<part>.*)\] "
                     r"hosts=(?P<hosts>\d+) instances=(?P<inst>\d+)(?P<rest>.*)$")
# Planner tests at the standard explain level (tpch-all.test) print no tuple ids.
CARD_RE = re.compile(r"(?:tuple-ids=(?P<tids>\S+) )?row-size=(?P<rs>[\d.]+)(?P<rsu>B|KB|MB|GB) "
                     r"cardinality=(?P<card>[\d.]+)(?P<cu>[KMGT]?)"
                     r"(?:\(filtered from (?P<ff>[\d.]+)(?P<ffu>[KMGT]?)\))?")
HDFS_RE = re.compile(r"HDFS partitions=(?P<sel>\d+)/(?P<total>\d+) files=(?P<files>\d+) "
                     r"size=(?P<size>[\d.]+)(?P<su>B|KB|MB|GB|TB)")
JOIN_BUILD_RE = re.compile(r"^(?P<prefix>(?:\|  |\|--)*)JOIN BUILD$")
STORED_RE = re.compile(r"^(?:table|partitions: \d+/\d+): rows=(?P<rows>[\d.]+)(?P<ru>[KMGT]?)")
METRIC = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
BYTES = {"B": 1, "KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}
EXCHANGE_KINDS = ("EXCHANGE", "MERGING-EXCHANGE")


class Fragment:
    """A `Fnn:PLAN FRAGMENT [partition] hosts=H instances=I` header."""

    def __init__(self, fid, part, hosts, instances, line, rest):
        self.fid = fid
        self.part = part
        self.hosts = hosts
        self.instances = instances
        self.line = line
        self.adjusted = rest.strip()
        self.join_build = False   # a JOIN BUILD fragment (separate build, processing-cost or mt_dop plans)
        self.details = []         # the header's detail lines (a JOIN BUILD's build expressions, filters)


class Node:
    """One plan node with what its detail lines say."""

    def __init__(self, nid, kind, bracket, line):
        self.nid = nid
        self.kind = kind
        self.bracket = bracket
        self.line = line
        self.details = []
        self.children = []
        self.parent = None
        self.fragment = None
        self.sender = None     # exchanges: the fragment below
        self.probe_of = None   # an exchange rule J3 put on a join's probe side: that join's id
        self.card = None       # planner estimate (or a measured count, profiles.py)
        self.card_text = ""
        self.filtered_from = None
        self.row_size = None
        self.row_size_text = ""
        self.tuple_ids = []
        self.limit = None
        self.partition_limit = None   # a partitioned TOP-N: at most this many rows per partition
        self.group_by = []     # one entry per "group by:" line (one per aggregation class)
        self.outputs = []      # one entry per "output:" line
        self.classes = 0
        self.fkpk = None
        self.table = None
        self.alias = None
        self.hdfs = None       # scans: {"sel", "total", "files", "size_bytes"}
        self.stored_rows = None
        # filled by the scaler
        self.card100 = None
        self.est100 = None     # the planner's own estimate at the target, which rule J3 decides on
        self.rule = ""
        self.mn_capped = False

    def detail(self, prefix):
        """Text after `prefix` on the first detail line that starts with it, else None."""
        for d in self.details:
            s = d.lstrip("| ").strip()
            if s.startswith(prefix):
                return s[len(prefix):]
        return None

    @property
    def join_type(self):
        return self.bracket.strip("[]").split(",")[0].strip()

    @property
    def distribution(self):
        """BROADCAST or PARTITIONED for a join (classic plans print it too)."""
        parts = [p.strip() for p in self.bracket.strip("[]").split(",")]
        return parts[1] if len(parts) > 1 else ""


class Plan:
    """A parsed plan section: root node, nodes by id, fragments by id, where it came from."""

    def __init__(self, root, nodes, frags, where):
        self.root = root
        self.nodes = nodes
        self.frags = frags
        self.where = where

    def exchanges(self):
        return sorted((n for n in self.nodes.values() if n.kind in EXCHANGE_KINDS), key=lambda n: n.nid)


def exchange_kind(node):
    """HASH, BROADCAST, UNPARTITIONED, RANDOM or MERGING: how an exchange node partitions."""
    b = node.bracket.strip("[]")
    if node.kind == "MERGING-EXCHANGE":
        return "MERGING"
    if b.startswith("HASH("):
        return "HASH"
    if b in ("BROADCAST", "UNPARTITIONED", "RANDOM"):
        return b
    raise PlanError("exchange %d has unknown partitioning %s" % (node.nid, node.bracket))


def fragment_nodes(top, belongs, skip=None):
    """The nodes of one fragment reachable from `top`: a node is in it when `belongs(node)`; an
    exchange is the fragment's leaf (its child is the sender's); `skip` and its subtree are left out."""
    out = []

    def walk(n):
        if n is skip or not belongs(n):
            return
        out.append(n)
        if n.kind in EXCHANGE_KINDS:
            return
        for c in n.children:
            walk(c)
    walk(top)
    return out


def _depth(prefix):
    return len(prefix) // 3


def parse_details(node, where, exchange_card=True):
    """Read a node's detail lines; exchange_card=False lets an exchange print no cardinality (the
    standard explain level prints none: its rows are its input's)."""
    for d in node.details:
        s = d.lstrip("| ").strip()
        m = CARD_RE.search(d)
        if m and node.card is None:
            node.tuple_ids = m.group("tids").split(",") if m.group("tids") else []
            node.row_size = float(m.group("rs")) * BYTES[m.group("rsu")]
            node.row_size_text = m.group("rs") + m.group("rsu")
            node.card = float(m.group("card")) * METRIC[m.group("cu")]
            node.card_text = m.group("card") + m.group("cu")
            if m.group("ff"):
                node.filtered_from = float(m.group("ff")) * METRIC[m.group("ffu")]
                node.card_text += "(filtered from %s%s)" % (m.group("ff"), m.group("ffu"))
        elif s.startswith("limit: ") or s.startswith("limit with ties: "):
            node.limit = int(s.split(":", 1)[1].strip())
        elif s.startswith("partition limit: "):
            node.partition_limit = int(s.split(":", 1)[1].split()[0])
        elif s.startswith("group by: "):
            node.group_by.append(s[len("group by: "):])
        elif s.startswith("output: "):
            node.outputs.append(s[len("output: "):])
        elif re.match(r"Class \d+$", s):
            node.classes += 1
        elif s.startswith("fk/pk conjuncts: "):
            node.fkpk = s[len("fk/pk conjuncts: "):]
        elif s.startswith("HDFS partitions="):
            m = HDFS_RE.match(s)
            if m:
                node.hdfs = {"sel": int(m.group("sel")), "total": int(m.group("total")),
                             "files": int(m.group("files")),
                             "size_bytes": float(m.group("size")) * BYTES[m.group("su")]}
        else:
            m = STORED_RE.match(s)
            if m and (s.startswith("partitions") or node.stored_rows is None):
                node.stored_rows = float(m.group("rows")) * METRIC[m.group("ru")]
    m = re.match(r"\[LIMIT=(\d+)\]", node.bracket)
    if m:
        node.limit = int(m.group(1))
    if node.kind == "SCAN HDFS":
        m = re.match(r"\[[a-z_0-9]+\.([a-z_]+)(?: ([a-z_0-9]+))?", node.bracket)
        if not m:
            raise PlanError("%s: cannot read the table of scan %d: %s" % (where, node.nid, node.bracket))
        node.table = m.group(1)
        node.alias = m.group(2)
    if node.card is None and (exchange_card or node.kind not in EXCHANGE_KINDS):
        raise PlanError("%s: node %d:%s has no cardinality line" % (where, node.nid, node.kind))


def section_lines(text, section, where):
    """(line number of the first line, lines) of a `---- SECTION` of a planner test file."""
    lines = text.split("\n")
    start = end = None
    for i, ln in enumerate(lines):
        if ln.startswith("---- " + section):
            start = i + 1
        elif start is not None and (ln.startswith("---- ") or ln.startswith("====")):
            end = i
            break
    if start is None or end is None:
        raise PlanError("%s: no ---- %s section" % (where, section))
    return start, lines[start:end]


def parse_lines(lines, offset, where, fragment_headers=True):
    """Parse plan text lines (the first at line offset + 1 of `where`) into a Plan.

    fragment_headers=False reads a plan printed without `Fnn:PLAN FRAGMENT` headers (a planner
    test at the standard explain level, tpch-all.test): its nodes have no fragment, its exchanges
    no sender, and a separate join build opens with a bare `|--JOIN BUILD` line, read as a
    join-build Fragment (id Bnn, no partition or instances) whose details hold the build's filters."""
    nodes = {}
    frags = {}
    last_node = {}   # depth -> node that the next unmarked line at that depth attaches to
    cur_frag = {}    # depth -> fragment of nodes at that depth
    root = None
    current = None
    pending_frag = None
    for i, ln in enumerate(lines):
        lineno = offset + i + 1
        fm = FRAG_RE.match(ln)
        bm = None if fm or fragment_headers else JOIN_BUILD_RE.match(ln)
        nm = None if fm or bm else NODE_RE.match(ln)
        if fm or bm:
            current = None
            prefix = (fm or bm).group("prefix")
            marked = prefix.endswith("|--")
            d = _depth(prefix)
            if fm:
                fr = Fragment("F%02d" % int(fm.group("id")), fm.group("part"), int(fm.group("hosts")),
                              int(fm.group("inst")), lineno, fm.group("rest"))
            else:
                fr = Fragment("B%02d" % len(frags), "", 0, 0, lineno, "")
                fr.join_build = True
            frags[fr.fid] = fr
            for k in [k for k in last_node if k > d]:
                del last_node[k]
            for k in [k for k in cur_frag if k > d]:
                del cur_frag[k]
            if marked:
                # a build branch: the next node at depth d is a child of the join at depth d-1
                last_node[d] = last_node.get(d - 1)
            elif d in last_node and last_node[d] is not None and last_node[d].kind in EXCHANGE_KINDS:
                last_node[d].sender = fr
            cur_frag[d] = fr
            pending_frag = fr
            continue
        if nm:
            prefix = nm.group("prefix")
            marked = prefix.endswith("|--")
            d = _depth(prefix)
            rest = nm.group("rest").strip()
            node = Node(int(nm.group("id")), nm.group("kind"), rest if rest.startswith("[") else "", lineno)
            if node.nid in nodes:
                raise PlanError("%s: node id %d appears twice" % (where, node.nid))
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
                    raise PlanError("%s:%d: second root node %d" % (where, lineno, node.nid))
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
        if pending_frag is not None and current is None and s:
            pending_frag.details.append(s)
        if current is not None:
            if s == "":
                current = None
            else:
                current.details.append(ln)
    if root is None:
        raise PlanError("%s: empty plan" % where)
    for n in nodes.values():
        parse_details(n, where, fragment_headers)
        if n.kind in EXCHANGE_KINDS:
            if n.sender is None and fragment_headers:
                raise PlanError("%s: exchange %d has no sending fragment" % (where, n.nid))
            if len(n.children) != 1:
                raise PlanError("%s: exchange %d has %d children" % (where, n.nid, len(n.children)))
        if n.fragment is None and fragment_headers:
            raise PlanError("%s: node %d is in no fragment" % (where, n.nid))
    # Impala prints a node's other inputs (|--) before its first child; the parser appended them in
    # print order, so put the first child first.
    for n in nodes.values():
        if len(n.children) > 1:
            n.children = [n.children[-1]] + n.children[:-1]
    return Plan(root, nodes, frags, where)


def git_blob_sha1(data):
    """The git blob id of a file's bytes: which version of a copied plan file was read."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def parse_plan_file(path, section):
    """Parse one section of a planner test file; also returns the file's bytes (for provenance)."""
    with open(path, "rb") as f:
        data = f.read()
    where = "%s %s" % (os.path.basename(path), section)
    offset, lines = section_lines(data.decode("utf-8"), section, os.path.basename(path))
    return parse_lines(lines, offset, where), data


def parse_query_blocks(path, header_re):
    """A planner test file of several queries (`# NAME` header line, SQL, sections, `====`):
    [(name, line number of the block's first line, the block's text)] in file order, the name the
    first group of `header_re` matched on the block's first line."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    out, start = [], 0
    lines = text.split("\n")
    for i, ln in enumerate(lines + ["===="]):
        if ln.startswith("===="):
            block = lines[start:i]
            while block and not block[0].strip():
                block, start = block[1:], start + 1
            if block:
                m = re.match(header_re, block[0])
                if not m:
                    raise PlanError("%s:%d: expected a query header matching %s, got %r" % (
                        os.path.basename(path), start + 1, header_re, block[0][:80]))
                out.append((m.group(1), start, "\n".join(block) + "\n===="))
            start = i + 1
    return out


def parse_plan_block(block, offset, section, where, fragment_headers=True):
    """One section of one query's block (parse_query_blocks) as a Plan."""
    first, lines = section_lines(block, section, where)
    return parse_lines(lines, offset + first, "%s %s" % (where, section), fragment_headers)


def query_sql(text):
    """The SQL text at the top of a planner test file (before its first `---- ` section)."""
    head = text.split("\n---- ", 1)[0]
    return "\n".join(ln for ln in head.split("\n") if not ln.startswith("#"))


# --------------------------------------------------------------------------
# The query set
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
    """Benchmark name (q14-1, q72, q67) -> planner file stem (q14a, q72, q67)."""
    m = re.match(r"^q(\d+)([a-z]?)(?:-(\d))?$", qname)
    num, letter, part = int(m.group(1)), m.group(2), m.group(3)
    if part:
        return "q%02d%s" % (num, "ab"[int(part) - 1])
    if qname in VARIANT_BASE:
        return "q%02d" % int(VARIANT_BASE[qname][1:])
    return "q%02d%s" % (num, letter)


def select_queries(plans):
    """The 104 statements (benchmark order) and the plan file stem each uses (for a variant: its
    base query's, from which variants.py derives it)."""
    names = read_query_list(plans)
    tpcds = []
    for n in names:
        m = re.match(r"^TPCDS-Q(\d+[A-Z]?(?:-\d)?)$", n)
        if m:
            tpcds.append("q" + m.group(1).lower())
    if len(tpcds) != 111:
        raise PlanError("queries.txt: expected 111 TPC-DS statements, found %d" % len(tpcds))
    for q in ROLLUP_BASES_REPLACED:
        if q not in tpcds or q + "a" not in tpcds:
            raise PlanError("queries.txt: %s and %sa should both be listed" % (q, q))
    out = []
    for q in (q for q in tpcds if q not in ROLLUP_BASES_REPLACED):
        stem = plan_stem_for(q)
        path = os.path.join(plans, "tpcds-%s.test" % stem)
        if not os.path.isfile(path):
            raise PlanError("no plan file %s for %s" % (path, q))
        out.append((q, stem))
    return tpcds, out


# The nodes where a fragment's probe spine ends for fragment_leaf.
FRAGMENT_LEAF_KINDS = ("SCAN HDFS", "EXCHANGE", "MERGING-EXCHANGE", "UNION")


def fragment_leaf(node):
    """The leaf that decides which instance of a node's fragment a row reaches: down the first (probe)
    inputs to a scan, an exchange or a union."""
    leaf = node.children[0]
    while leaf.children and leaf.kind not in FRAGMENT_LEAF_KINDS:
        leaf = leaf.children[0]
    return leaf
