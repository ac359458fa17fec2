"""Impala's planner rule for a hash join's distribution (broadcast or partitioned), from numbers:
the one place both the TPC-DS generator (tools/tpcds/joins.py, on plan text) and the profile
importer's --scale-data (tools/impala_profile/scale.py, on an imported scenario) ask it.

From apache/impala at b21595276c, fe/src/main/java/org/apache/impala/planner/DistributedPlanner.java:
- costs (createHashJoinFragment, lines 616-724), with B = build-side rows x serialized row size,
  P = probe-side rows x serialized row size, a serialized row being the planner's row size plus
  4 bytes per tuple (ExchangeNode.getAvgSerializedRowSize, ExchangeNode.java 62, 225-228), and
  N = the number of hosts of the probe fragment (PlanFragment.getNumNodes):
    broadcast   = B x N + B x N x trunc(max(1, sqrt(instances per host of the probe)))
                  (the second factor only at mt_dop > 1, USE_DOP_FOR_COSTING's default; else 1)
    partitioned = (0 if the probe side is already partitioned on the join keys else P)
                  + (0 if the build side is else B) + B
- the choice (computeJoinDistributionMode, lines 766-805): right outer, right semi, right anti
  and full outer joins are always partitioned, null-aware anti joins always broadcast; equal
  costs take DEFAULT_JOIN_DISTRIBUTION_MODE (broadcast); else broadcast when its cost is at most
  the partitioned one and 1.1 x B is at most BROADCAST_BYTES_LIMIT (32 GiB).
"""

import math
import re

NEVER_BROADCAST = ("RIGHT OUTER JOIN", "FULL OUTER JOIN", "RIGHT SEMI JOIN", "RIGHT ANTI JOIN")
BROADCAST_BYTES_LIMIT = 32 * 2 ** 30    # BROADCAST_BYTES_LIMIT's default (Query.thrift 489-491)
HASH_TABLE_OVERHEAD = 1.1              # PlannerContext.HASH_TBL_SPACE_OVERHEAD
PER_TUPLE_BYTES = 4.0                  # ExchangeNode.PER_TUPLE_SERIALIZATION_OVERHEAD


def serialized_row_bytes(row_size, tuples):
    """The planner's bytes of a row on the wire: its row size plus 4 bytes per tuple."""
    return row_size + PER_TUPLE_BYTES * tuples


def hash_predicate_keys(text):
    """A plan's 'hash predicates: a.x = b.y, c IS NOT DISTINCT FROM d' (the text after the colon)
    -> (probe expressions, build expressions), or (None, None) when it has no equality."""
    probe, build = [], []
    for pred in (text or "").split(", "):
        for op in (" = ", " IS NOT DISTINCT FROM "):
            if op in pred:
                a, b = pred.split(op, 1)
                probe.append(a.strip())
                build.append(b.strip())
                break
    return (probe, build) if probe else (None, None)


def column_names(exprs):
    """Expressions -> the set of their column names ('d1.d_date_sk' -> 'd_date_sk'), as a join's
    keys and a fragment's HASH(...) partition are compared."""
    return frozenset(e.strip().split(".")[-1] for e in exprs)


def partition_keys(partition):
    """A fragment's partition as the plan prints it, 'HASH(a.x,b.y)' -> {x, y}; None when it is
    not hash-partitioned."""
    m = re.match(r"^HASH\((.*)\)$", (partition or "").strip())
    return column_names(m.group(1).split(",")) if m else None


def partitioned_on(partition, keys):
    """Whether a fragment of `partition` is already partitioned on the join keys `keys`."""
    p = partition_keys(partition)
    return p is not None and bool(keys) and p == column_names(keys)


def costs(build_bytes, probe_bytes, hosts, per_host, mt_dop, probe_moves, build_moves):
    """(broadcast, partitioned) costs in bytes. `hosts` and `per_host` are the probe fragment's;
    `probe_moves` / `build_moves` say whether partitioning would send that side (False for a side
    already partitioned on its join keys)."""
    broadcast = build_bytes * hosts
    build = broadcast
    if mt_dop > 1:
        build *= int(max(1.0, math.sqrt(per_host)))
    broadcast += build
    partitioned = (probe_bytes if probe_moves else 0.0) + (build_bytes if build_moves else 0.0) + build_bytes
    return broadcast, partitioned


def mode(join_type, cost, build_bytes):
    """The distribution computeJoinDistributionMode gives a join of `join_type` (the planner's
    words, "INNER JOIN", "LEFT ANTI JOIN", ...) for `cost` ((broadcast, partitioned) or None when
    a side has no estimate) and a build side of `build_bytes`."""
    if join_type in NEVER_BROADCAST:
        return "PARTITIONED"
    if join_type.startswith("NULL AWARE"):
        return "BROADCAST"
    if cost is None or cost[0] == cost[1]:
        return "BROADCAST"   # DEFAULT_JOIN_DISTRIBUTION_MODE
    ok = HASH_TABLE_OVERHEAD * build_bytes <= BROADCAST_BYTES_LIMIT
    return "BROADCAST" if cost[0] < cost[1] and ok else "PARTITIONED"
