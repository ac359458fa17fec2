"""Rule J3: every hash join's distribution (broadcast or partitioned) re-decided for the simulated
cluster, as Impala's planner decides it, and the plan's fragments rebuilt around the new choice.

The planner tests were planned with SF3000 statistics for 10 executors; the measured cluster has
5 executors and SF100 data. Impala chooses per join by the costs and the rule of
tools/join_distribution.py (the planner's rule, in one place), asked here with the plan's nodes:
a side's rows are its cardinality, a row's bytes its planner row size plus 4 bytes per tuple. At the
target the cardinality is the planner's own estimate there (node.est100, scaling.planner_estimates),
not the rows the workload runs with: the planner decides before any row is counted.

The rule is checked against the plans themselves: with each plan's own estimates and host counts
it must give the printed choice. A join where it does not (the planner saw something this rule
does not model) keeps its printed choice. A join whose choice changes is rebuilt as Impala's
planner builds it (lines 494-608, 710-722): a broadcast join sits in its probe fragment; a
partitioned join gets a fragment of its own, hash-partitioned on its probe keys, fed by hash
exchanges on both sides (no exchange on a side already partitioned on its keys). The nodes above
the join in the same fragment move with it. A flip that would move a node that relies on its
fragment's partitioning (a merge aggregation, an analytic function or a partitioned join without
an exchange of its own) is not made, and says so.
"""


from tools import join_distribution as rule
from tools.tpcds import PlanError
from tools.tpcds.plans import EXCHANGE_KINDS, Fragment, Node, fragment_nodes


def serialized_row_bytes(node):
    return rule.serialized_row_bytes(node.row_size, len(node.tuple_ids))


def _source(n):
    return n.children[0] if n.kind in EXCHANGE_KINDS else n


def join_keys(join):
    """(probe keys, build keys) of a hash join's equality predicates."""
    return rule.hash_predicate_keys(join.detail("hash predicates: "))


def _partitioned_on(frag, keys):
    return rule.partitioned_on(frag.part, keys)


class Decision:
    """One join: the printed choice, the rule's at the plan's own estimates and at the target."""

    def __init__(self, join):
        self.nid = join.nid
        self.join_type = join.join_type
        self.printed = join.distribution
        self.at_plan = None
        self.at_target = None
        self.costs = None        # (broadcast, partitioned) at the target, bytes
        self.applied = False
        self.why = ""

    def as_text(self):
        c = "" if self.costs is None else " (broadcast %.3g B, partitioned %.3g B)" % self.costs
        return "join %d %s: printed %s, rule at the plan's estimates %s, for the target %s%s; %s" % (
            self.nid, self.join_type.lower(), self.printed, self.at_plan, self.at_target, c, self.why)


def costs(join, card, hosts, per_host, mt_dop):
    """(broadcast, partitioned) costs in bytes, or None when a side has no estimate. `card`
    names the cardinality attribute; `hosts` and `per_host` are the probe fragment's."""
    lhs, rhs = join.children[0], join.children[1]
    ls, rs = _source(lhs), _source(rhs)
    lc, rc = getattr(ls, card), getattr(rs, card)
    if lc is None or rc is None or lc < 0 or rc < 0:
        return None
    b = rc * serialized_row_bytes(rs)
    p = lc * serialized_row_bytes(ls)
    lkeys, rkeys = join_keys(join)
    if join.distribution == "PARTITIONED":
        lmoves, rmoves = lhs.kind in EXCHANGE_KINDS, rhs.kind in EXCHANGE_KINDS
    else:
        lmoves, rmoves = not _partitioned_on(ls.fragment, lkeys), not _partitioned_on(rs.fragment, rkeys)
    return rule.costs(b, p, hosts, per_host, mt_dop, lmoves, rmoves)


def choose(join, cost, card="est100"):
    """The distribution computeJoinDistributionMode gives for `cost` ((broadcast, partitioned) or
    None); `card` names the cardinality attribute the build's bytes are read from."""
    return rule.mode(join.join_type, cost, cost_build_bytes(join, card))


def cost_build_bytes(join, card="est100"):
    rs = _source(join.children[1])
    v = getattr(rs, card)
    return (v or 0.0) * serialized_row_bytes(rs)


class Redistributor:
    """Re-decides the joins of one parsed, scaled plan for the target placement and rebuilds it."""

    def __init__(self, plan, shape, mt_dop, plan_mt_dop):
        self.plan = plan
        self.shape = shape
        self.mt_dop = mt_dop              # the target's
        self.plan_mt_dop = plan_mt_dop    # the one the plan was printed with
        self.next_nid = max(plan.nodes) + 1
        self.next_fid = max(int(f[1:]) for f in plan.frags) + 1
        self.decisions = []

    def _target_hosts(self, node):
        fid = self.shape.frag_of[node.nid].fid
        hosts = self.shape.place[fid][0]
        return hosts, max(1, self.shape.inst[fid] // max(1, hosts))

    def run(self):
        joins = [n for n in self._bottom_up(self.plan.root)
                 if n.kind == "HASH JOIN" and n.distribution in ("BROADCAST", "PARTITIONED")]
        for j in joins:
            d = Decision(j)
            self.decisions.append(d)
            ls = _source(j.children[0])
            at_plan = costs(j, "card", ls.fragment.hosts,
                            max(1, ls.fragment.instances // max(1, ls.fragment.hosts)), self.plan_mt_dop)
            d.at_plan = choose(j, at_plan, "card")
            hosts, per_host = self._target_hosts(ls)
            d.costs = costs(j, "est100", hosts, per_host, self.mt_dop)
            d.at_target = choose(j, d.costs)
            if d.at_plan != d.printed:
                d.why = "kept as printed: the rule does not reproduce the printed choice at the plan's estimates"
                continue
            if d.at_target == d.printed:
                d.why = "unchanged"
                continue
            reason = self._flip(j, d.at_target)
            if reason:
                d.why = "kept as printed: " + reason
            else:
                d.applied = True
                d.why = "changed to %s" % d.at_target
        return self.decisions

    def _bottom_up(self, node):
        out = []
        for c in node.children:
            out.extend(self._bottom_up(c))
        out.append(node)
        return out

    # -- plan surgery -------------------------------------------------------------------------

    def _in_fragment(self, top, frag, skip=None):
        """Nodes reachable from `top` without leaving `frag` (exchanges' senders and JOIN BUILD
        fragments are other fragments), `skip` and its subtree excluded."""
        return fragment_nodes(top, lambda n: n.fragment is frag, skip)

    def _top_of(self, node):
        top = node
        while top.parent is not None and top.parent.fragment is node.fragment:
            top = top.parent
        return top

    @staticmethod
    def _relies_on_partitioning(n):
        if n.kind == "AGGREGATE" and n.bracket != "[STREAMING]" and n.children and \
                n.children[0].kind not in EXCHANGE_KINDS and n.group_by:
            return "aggregation %d merges its groups without an exchange" % n.nid
        if n.kind == "ANALYTIC":
            return "analytic %d relies on its fragment's partitioning" % n.nid
        if n.kind == "HASH JOIN" and n.distribution == "PARTITIONED" and \
                any(c.kind not in EXCHANGE_KINDS and c.fragment is n.fragment for c in n.children):
            return "partitioned join %d has an input without an exchange" % n.nid
        return None

    def _sender_of(self, frag):
        for n in self.plan.nodes.values():
            if n.kind in EXCHANGE_KINDS and n.sender is frag:
                return n
        return None

    def _new_fragment(self, part, like):
        f = Fragment("F%02d" % self.next_fid, part, like.hosts, like.hosts, 0, "(rule J3)")
        self.next_fid += 1
        self.plan.frags[f.fid] = f
        return f

    def _new_exchange(self, child, bracket, frag):
        x = Node(self.next_nid, "EXCHANGE", bracket, 0)
        self.next_nid += 1
        x.fragment = frag
        x.children = [child]
        x.sender = child.fragment
        x.card, x.card_text = child.card, "(rule J3)"
        x.row_size, x.row_size_text = child.row_size, child.row_size_text
        x.tuple_ids = list(child.tuple_ids)
        x.details = []
        self.plan.nodes[x.nid] = x
        return x

    def _flip(self, j, to):
        lhs, rhs = j.children[0], j.children[1]
        lkeys, rkeys = join_keys(j)
        if lkeys is None:
            return "no equality keys to partition on"
        if rhs.kind not in EXCHANGE_KINDS:
            return "its build side has no exchange"
        frag = j.fragment
        top = self._top_of(j)
        if to == "PARTITIONED":
            moved = [n for n in self._in_fragment(top, frag, skip=lhs) if n is not j and n is not rhs]
            if not _partitioned_on(frag, lkeys):
                for n in moved:
                    why = self._relies_on_partitioning(n)
                    if why:
                        return why
            rhs.bracket = "[HASH(%s)]" % ",".join(rkeys)
            j.bracket = "[%s, PARTITIONED]" % j.join_type
            if _partitioned_on(frag, lkeys):
                return None
            new = self._new_fragment("HASH(%s)" % ",".join(lkeys), frag)
            above = self._sender_of(frag) if top.parent is not None else None
            x = self._new_exchange(lhs, "[HASH(%s)]" % ",".join(lkeys), new)
            x.sender = frag
            x.probe_of = j.nid
            x.parent = j
            lhs.parent = x
            j.children[0] = x
            for n in self._in_fragment(top, frag, skip=lhs):
                n.fragment = new
            if rhs.fragment is frag:
                rhs.fragment = new
            if above is not None:
                above.sender = new
            elif top is self.plan.root:
                raise PlanError("join %d: the root fragment cannot become partitioned" % j.nid)
            return None
        # to BROADCAST
        if lhs.kind in EXCHANGE_KINDS:
            sender = lhs.sender
            moved = self._in_fragment(top, frag)
            for n in moved:
                if n is j:
                    continue
                why = self._relies_on_partitioning(n)
                if why:
                    return why
            if top is self.plan.root:
                return "its fragment is the root fragment"
            above = self._sender_of(frag)
            rhs.bracket = "[BROADCAST]"
            j.bracket = "[%s, BROADCAST]" % j.join_type
            child = lhs.children[0]
            child.parent = j
            j.children[0] = child
            del self.plan.nodes[lhs.nid]
            for n in moved:
                if n is not lhs:
                    n.fragment = sender
            if above is not None:
                above.sender = sender
            del self.plan.frags[frag.fid]
            return None
        rhs.bracket = "[BROADCAST]"
        j.bracket = "[%s, BROADCAST]" % j.join_type
        return None
