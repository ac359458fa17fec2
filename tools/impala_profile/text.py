"""Reading the TEXT form of Impala runtime profiles into the neutral tree of decode.Node.

The text form is what `impala-shell`'s PROFILE command prints, what the web UI's text view shows
and what `impala-profile-tool` prints by default: RuntimeProfile::PrettyPrint (be/src/util/
runtime-profile.cc), read by this project in apache/impala at 2.7.0, 3.4.0, 4.0.0 and b21595276c
(5.0-SNAPSHOT). Its layout, identical in those versions but for the details noted:

    Query (id=<id>):                                  a node: "<name>:" at its parent's indent + 2,
      Summary:                                        optionally followed by "(Total: .., non-child:
        Session ID: ...                               .., % non-child: ..%)"
        Plan: <value spanning lines, printed raw>     info strings: "<key>: <value>" at indent + 2
        Query Timeline: 2s672ms                       event sequences: "<name>: <last time>", then
           - Query submitted: 56.528us (56.528us)     "- <label>: <time> (<delta>)" at indent + 5
         - AdmissionControlTimeSinceLastUpdate: ..    counters: "- <name>: <value>" at indent + 3,
           - <child counter>: ..                      child counters 2 further in
         - MemoryUsage (50.000ms): 8.00 KB, ...       time series (2.x: "MemoryUsage(500.000ms): "
                                                      as an info line without "- ")
         - RpcNetworkTime: (Avg: .. ; Min: .. ; Max: .. ; Sum: .. ; Number of samples: N)
                                                      summary stats (no "Sum" before 4.x)

Values are pretty-printed (util/pretty-printer.h): counts and bytes carry their exact value in
parentheses ("1.82K (1824)", "26.24 KB (26869)"); times are rounded to 1 ns below 1 us, 1 ns
below 1 ms (3 decimals of us), 1 us below 1 s, 1 ms below 1 min ("2s615ms"), and to the second
or minute above. A time read from text is therefore that rounding of the logged value.

Aggregated profiles (AGGREGATED_PROFILE=1, Impala 4.x+) print each fragment once, with its
instances listed under "Instances:" as "[k] Instance <id> (host=<host>)" and every counter as
"mean=.. min=.. max=.." over the instances; such a fragment is exploded into per-instance nodes
that all carry the mean, as decode does for the JSON rendering of an aggregated profile.

A text profile is recognised by content: a line "Query (id=<id>):" (anything above the first one,
e.g. impala-shell's "Query Runtime Profile:" banner, is skipped). A file may hold several.
"""

import re
from decimal import Decimal, InvalidOperation

from .tree import Counter, Node, ProfileDoc, ProfileError, SummaryStat, explode_aggregate

ENCODING = "text profile (impala-shell PROFILE / web UI text rendering)"

_QUERY_RE = re.compile(r"^Query \(id=([^)\s]+)\):\s*$")
_FIND_QUERY_RE = re.compile(r"^[ \t]*Query \(id=[^)\s]+\):[ \t]*\r?$", re.M)
_TOTAL_RE = re.compile(r":\(Total: [^()]*\)$")
_AGG_SUFFIX_RE = re.compile(r" \[\d+ instances?\]$")
_INDEX_SUFFIX_RE = re.compile(r"\[[\d, \-]+\]$")
_INSTANCE_LIST_RE = re.compile(r"^\[(\d+)\] (Instance \S+ \(host=[^)]+\))$")
# The extended text of an aggregated profile (Impala 4.x on, AggregatedRuntimeProfile with an
# EXTENDED verbosity) follows a summary statistic's merged line with one row an instance, the index
# first: '[3]   - RowBatchMemPoolAllocBytes: 0 (Number of samples: 0)'.
_INSTANCE_VALUE_RE = re.compile(r"^\[\d+\]\s+- ")
_SERIES_RE = re.compile(r"^(.*?)(?:\[[\d, \-]+\])? ?\((\d[\d.]*(?:ns|us|ms|s))\)$")
_FRAGMENT_RE = re.compile(r"^(?:Averaged |Coordinator )?Fragment F\d+$")
_ID_RE = re.compile(r"\(id=(\d+)\)")
_MULTILINE_KEYS = {"Plan", "ExecSummary", "Sql Statement", "Query Status", "Errors", "Filter routing table"}

# Counters the model reads: a value of theirs that cannot be read is an error, not a gap.
READ_COUNTERS = {
    "TotalBytesSent", "BytesSent", "RowsSent", "RowsReturned", "RpcSuccess", "EosSent", "UncompressedRowBatchSize",
    "InactiveTotalTime", "SerializeBatchTime", "TransmitDataTime", "TotalTime", "TotalBytesReceived",
    "BytesReceived", "TotalBatchesReceived", "TotalBytesDequeued", "TotalRPCsDeferred", "TotalHasDeferredRPCsTime",
    "DataWaitTime", "FirstBatchWaitTime", "DeserializeRowBatchTime", "TotalEosReceived", "RowsRead",
    "ScanRangesComplete", "ProbeRows", "BuildRows", "RpcNetworkTime", "RpcRecvrTime", "NetworkThroughput",
    "SendersBlockedTimer", "TransmitDataRPCTime", "FirstBatchArrivalWaitTime", "DeserializeRowBatchTimer",
    "TotalNetworkSendTime", "RowsProduced",
}
# The unit each of them has in Impala (the TUnit its node creates it with): a value printed in
# another unit (a time on a count, a time without its unit) is not that counter's value. "0" is
# how Impala prints a zero of any unit.
_TIMES = {"InactiveTotalTime", "SerializeBatchTime", "TransmitDataTime", "TotalTime", "TotalHasDeferredRPCsTime",
          "DataWaitTime", "FirstBatchWaitTime", "DeserializeRowBatchTime", "SendersBlockedTimer",
          "TransmitDataRPCTime", "RpcNetworkTime", "RpcRecvrTime", "FirstBatchArrivalWaitTime",
          "DeserializeRowBatchTimer", "TotalNetworkSendTime"}
_BYTE_COUNTERS = {"TotalBytesSent", "BytesSent", "UncompressedRowBatchSize", "TotalBytesReceived", "BytesReceived",
                  "TotalBytesDequeued"}
READ_UNITS = {name: "TIME_NS" if name in _TIMES else "BYTES" if name in _BYTE_COUNTERS else
              "BYTES_PER_SECOND" if name == "NetworkThroughput" else "UNIT" for name in READ_COUNTERS}
_UNIT_WORDS = {"TIME_NS": "a time with its unit (2s615ms, 645.271ms, 47.000ns)",
               "BYTES": "bytes with their unit (26.24 KB (26869))", "UNIT": "a count (1.82K (1824), 12 (12))",
               "BYTES_PER_SECOND": "a rate in bytes per second (12.34 MB/sec)"}
# A value Impala prints is a few dozen characters (a 64-bit counter has at most 20 digits); a longer
# one is refused before any arithmetic is done with it.
MAX_VALUE_CHARS = 64


def looks_like_text(data):
    """True when the bytes hold a text profile: a line 'Query (id=...):'."""
    try:
        text = data.decode("utf-8", errors="replace")
    except Exception:  # noqa: BLE001 - any undecodable input is simply not text
        return False
    if "\n" not in text:  # lines ended by CR alone (an old Mac editor's): splitlines() reads them too
        text = text.replace("\r", "\n")
    return _FIND_QUERY_RE.search(text) is not None


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------

_TIME_NS = {"h": 3600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_TIME_RE = re.compile(r"^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:([\d.]+)(ms|us|ns))?$")
_BYTES = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "PB": 1 << 50}
_SCALE = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9}


def _dec(s):
    try:
        return Decimal(s)
    except InvalidOperation:
        return None


def parse_time_ns(s, subunits=False):
    """'2s615ms', '645.271ms', '47.000ns', '1h2m', '0' -> ns (int), else None.

    subunits: the profile is from Impala before 2.5, whose printer (util/debug-util.cc of 2.0,
    util/pretty-printer.h of 2.1-2.4) wrote a time below one second as whole units, a dot and the
    remainder in the next smaller unit WITHOUT zero padding: 1,050,000 ns as '1.50ms', 12,005 ns as
    '12.5us' (IMPALA-1800, commit 0d45555a7 of 2015-09-14, after master's 2.5.0 bump, changed it to
    three decimals). Read so, '1.50ms' is 1 ms + 50 us, not 1.5 ms."""
    s = s.strip()
    if len(s) > MAX_VALUE_CHARS:
        return None
    if s == "0":
        return 0
    m = _TIME_RE.match(s)
    if not m or not any(m.groups()):
        return None
    h, mi, sec, frac, unit = m.groups()
    ns = Decimal(0)
    for v, u in ((h, "h"), (mi, "m"), (sec, "s")):
        if v:
            ns += Decimal(v) * _TIME_NS[u]
    if frac:
        whole, dot, rest = frac.partition(".")
        if subunits and dot and unit in ("ms", "us") and whole.isdigit() and rest.isdigit() and len(rest) <= 3:
            ns += int(whole) * _TIME_NS[unit] + int(rest) * (_TIME_NS[unit] // 1000)
            return int(ns.to_integral_value())
        d = _dec(frac)
        if d is None:
            return None
        ns += d * _TIME_NS[unit]
    return int(ns.to_integral_value())


def parse_scalar(s, subunits=False):
    """A pretty-printed counter value -> (unit, value), or None when it is not one Impala prints
    (subunits: times as Impala before 2.5 printed them, see parse_time_ns)."""
    s = s.strip()
    if len(s) > MAX_VALUE_CHARS:
        return None
    m = re.match(r"^(-?[\d.]+)([KMB])? \((-?\d+)\)$", s)  # UNIT with its exact value ("48.00 B (48)" is bytes)
    if m:
        return "UNIT", int(m.group(3))
    m = re.match(r"^[\d.]+ (B|KB|MB|GB|TB|PB) \((\d+)\)$", s)  # BYTES with its exact value
    if m:
        return "BYTES", int(m.group(2))
    if re.match(r"^-?\d+$", s):
        return "UNIT", int(s)
    m = re.match(r"^([\d.]+) (B|KB|MB|GB|TB|PB)$", s)
    if m and _dec(m.group(1)) is not None:
        return "BYTES", int((Decimal(m.group(1)) * _BYTES[m.group(2)]).to_integral_value())
    m = re.match(r"^([\d.]+) ?(K|M|B|KB|MB|GB|TB)?/sec$", s)
    if m and _dec(m.group(1)) is not None:
        u = m.group(2) or ""
        if u in _BYTES:
            return "BYTES_PER_SECOND", int((Decimal(m.group(1)) * _BYTES[u]).to_integral_value())
        return "UNIT_PER_SECOND", int((Decimal(m.group(1)) * _SCALE[u]).to_integral_value())
    ns = parse_time_ns(s, subunits)
    if ns is not None:
        return "TIME_NS", ns
    m = re.match(r"^(-?\d+\.\d+)$", s)
    if m:
        return "DOUBLE_VALUE", float(m.group(1))
    m = re.match(r"^([\d.]+)([KMB])$", s)  # UNIT printed without its exact value
    if m and _dec(m.group(1)) is not None:
        return "UNIT", int((Decimal(m.group(1)) * _SCALE[m.group(2)]).to_integral_value())
    return None


def parse_summary(s):
    """'(Avg: .. ; Min: .. ; Max: .. [; Sum: ..] ; Number of samples: N)' or '0 (Number of samples: 0)'
    -> SummaryStat, else None."""
    s = s.strip()
    m = re.match(r"^\S* ?\(Number of samples: (\d+)\)$", s)
    if m and int(m.group(1)) == 0:
        return SummaryStat("UNIT", 0, 0, 0, 0)
    if not (s.startswith("(") and s.endswith(")")):
        return None
    fields = {}
    for part in s[1:-1].split(";"):
        k, sep, v = part.strip().partition(": ")
        if sep:
            fields[k.strip()] = v.strip()
    if "Number of samples" not in fields or "Avg" not in fields:
        return None
    try:
        n = int(fields["Number of samples"])
    except ValueError:
        return None
    vals = {k: parse_scalar(fields[k]) for k in ("Avg", "Min", "Max") if k in fields}
    if any(v is None for v in vals.values()):
        return None
    unit = vals["Avg"][0]
    return SummaryStat(unit, n, vals["Avg"][1], vals.get("Min", (unit, 0))[1], vals.get("Max", (unit, 0))[1])


def parse_aggregate(s):
    """Aggregated counter 'mean=.. min=.. max=.. [p50=..]' -> Counter (the mean) with stats, else None."""
    if not s.startswith("mean="):
        return None
    stats = {}
    unit = None
    for part in re.split(r"\s+(?=(?:mean|min|max|p\d+)=)", s.strip()):
        k, _, v = part.partition("=")
        pv = parse_scalar(v)
        if pv is None:
            return None
        unit = unit or pv[0]
        stats[k] = pv[1]
    if "mean" not in stats:
        return None
    return Counter(unit, stats["mean"], {k: stats[k] for k in ("min", "max", "mean") if k in stats})


# ---------------------------------------------------------------------------
# Layout
# ---------------------------------------------------------------------------

class _Open:
    """A node being read: its header's indentation, and what aggregation left to explode."""

    def __init__(self, indent, node):
        self.indent = indent
        self.node = node
        self.instances = None  # aggregated fragment: ["Instance <id> (host=<h>)", ...]


def _header(s):
    """The node name of a header line, else None."""
    m = _TOTAL_RE.search(s)
    body = s[:m.start()] if m else (s[:-1] if s.endswith(":") else None)
    if body is None or not body or ": " in body or body.startswith("- "):
        return None
    return body.rstrip()


def read_text(path, data):
    """Every query profile in a text file, in file order, as ProfileDocs."""
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if not text.rstrip(" \t").endswith(("\n", "\r")):
        raise ProfileError(f"{path}:{len(lines)}: the file ends inside a line ({lines[-1].strip()[:60]!r}), without "
                           "its line break: the profile is cut short; Impala ends every line of a profile with a "
                           "line break")
    starts = []
    for no, raw in enumerate(lines):
        if _QUERY_RE.match(raw.strip()):
            starts.append(no)
    if not starts:
        raise ProfileError(f"{path}: no line 'Query (id=...):': not an Impala text profile")
    docs = []
    for k, first in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        base = len(lines[first]) - len(lines[first].lstrip(" "))
        # A later 'Query (id=' deeper than the first is not a new query (cannot happen in Impala's output).
        if k > 0 and docs and base != docs[-1][1]:
            continue
        docs.append((first, base, end))
    # Recompute the ends now that deeper 'Query' lines were skipped.
    out = []
    for k, (first, base, _) in enumerate(docs):
        end = docs[k + 1][0] if k + 1 < len(docs) else len(lines)
        out.append(_read_query(path, lines, first, end, base))
    return out


_VERSION_RE = re.compile(r"^\s*Impala Version: impalad version (\d+)\.(\d+)")
_FENCE = "----------------"


def _before_2_5(lines, first, end):
    """True when the query's Summary names an Impala version before 2.5 (see parse_time_ns)."""
    for no in range(first + 1, end):
        m = _VERSION_RE.match(lines[no])
        if m:
            return (int(m.group(1)), int(m.group(2))) < (2, 5)
        if lines[no].lstrip().startswith("Execution Profile "):
            break
    return False


def _read_query(path, lines, first, end, base):
    where = f"{path}:{first + 1}"
    root = Node(lines[first].strip()[:-1])
    stack = [_Open(0, root)]
    subunits = _before_2_5(lines, first, end)
    fenced = False  # inside the Plan, between its two '----------------' lines
    aggregated = []
    info_key = None  # (node, key, indent) of the last info line: multi-line values continue it
    operators = []  # (line number, node) of each operator or sender, and which printed a TotalTime line
    timed = set()
    seq = None  # (node, events list, indent, name) of the event sequence being read
    for no in range(first + 1, end):
        raw = lines[no]
        if not raw.strip():
            if info_key is not None:
                node, key, _ = info_key
                node.info[key] += "\n"
            continue
        ind = len(raw) - len(raw.lstrip(" ")) - base
        s = raw.rstrip("\r\n").lstrip(" ")  # trailing spaces kept: they are part of info values
        here = f"{path}:{no + 1}"
        # The Plan is fenced by two '----------------' lines (query-exec-state.cc, 2.0 on). Inside,
        # the verbose plan of 2.x indents each fragment's lines by two spaces ("  |  output: .."),
        # where an info line could be: nothing between the fences is read as anything but the Plan.
        if info_key is not None and info_key[1] == "Plan" and (fenced or s.rstrip() == _FENCE):
            fenced = not (fenced and s.rstrip() == _FENCE)
            node, key, _ = info_key
            node.info[key] += "\n" + (raw[base:] if len(raw) - len(raw.lstrip(" ")) >= base else raw.lstrip(" "))
            continue
        kind = _classify(s, ind, stack, seq, subunits)
        if kind is None:  # not at a place the layout allows: part of a multi-line info string
            if info_key is not None:
                node, key, _ = info_key
                node.info[key] += "\n" + (raw[base:] if len(raw) - len(raw.lstrip(" ")) >= base else raw.lstrip(" "))
            continue
        what, payload = kind
        if what == "instance value":
            continue   # one instance's value of the summary statistic above: the merged line is read
        if what == "event":
            label, ts = payload
            seq[1].append((label, ts))
            continue
        seq = None
        if what == "instance":
            owner = next((o for o in reversed(stack) if o.instances is not None), None)
            if owner is None:
                raise ProfileError(f"{here}: '{s[:60]}' outside an aggregated fragment's 'Instances:' list")
            if payload in owner.instances:
                raise ProfileError(f"{here}: '{s[:80]}': {payload.split(' ')[1]} is already listed under "
                                   f"{owner.node.name}'s 'Instances:': expected each instance once")
            owner.instances.append(payload)
            info_key = None
            continue
        if what == "counter":
            name, value = payload
            while len(stack) > 1 and stack[-1].indent + 3 > ind:
                stack.pop()
            owner = stack[-1]
            info_key = None
            _add_counter(owner.node, name, value, here, subunits)
            if name == "TotalTime":
                timed.add(id(owner.node))
            continue
        if what == "instances":
            # Aggregated fragment: "Instances:" at the fragment's own indent, its list below.
            frag = next((o for o in reversed(stack) if _FRAGMENT_RE.match(o.node.name) and o.indent == ind), None)
            if frag is None:
                raise ProfileError(f"{here}: 'Instances:' not directly under an aggregated fragment's header")
            frag.instances = []
            aggregated.append(frag)
            info_key = None
            continue
        # node header or info line at indent `ind`: its parent is the open node at ind - 2.
        while len(stack) > 1 and stack[-1].indent + 2 > ind:
            stack.pop()
        parent = stack[-1]
        if what == "header":
            name = payload
            agg = _AGG_SUFFIX_RE.search(name)
            if agg:
                name = name[:agg.start()]
            if name.startswith("Instance ") and any(c.name == name for c in parent.node.children):
                raise ProfileError(f"{here}: '{name[:80]}' is already a node of {parent.node.name}: expected each "
                                   "fragment instance once")
            node = Node(name)
            # 'name:(Total: T, non-child: ..)': TotalTime, for versions whose counter lines leave it out
            total = re.search(r":\(Total: ([^,()]*), non-child: ([^,()]*),", s)
            if total and parse_time_ns(total.group(1), subunits) is not None:
                node.counters["TotalTime"] = Counter("TIME_NS", parse_time_ns(total.group(1), subunits))
                local = parse_time_ns(total.group(2), subunits)
                if local is not None and name.startswith("EXCHANGE_NODE "):
                    # An exchange node's header gives its inactive time (the receiver's wait for
                    # data): RuntimeProfile::ComputeTimeInProfile prints non-child = TotalTime -
                    # children's TotalTime - InactiveTotalTime, and an exchange node has no child
                    # with a TotalTime. Versions that print no InactiveTotalTime line (2.x) keep it
                    # only here; a printed line replaces it.
                    node.counters["InactiveTotalTime"] = Counter(
                        "TIME_NS", max(node.counters["TotalTime"].value - local, 0))
            m = _ID_RE.search(name)
            if m:
                node.plan_node_id = int(m.group(1))
            elif re.search(r"(?:Sink|SINK|Builder)\b", name):
                node.data_sink_id = -1
            parent.node.children.append(node)
            if _OPERATOR_RE.match(name) or _SENDER_RE.match(name):
                operators.append((no + 1, node))
            opened = _Open(ind, node)
            stack.append(opened)
            info_key = None
            continue
        key, value = payload
        sm = _SERIES_RE.match(key)
        if sm and ": " not in key:
            parent.node.series.append(sm.group(1).strip())
            info_key = None
            continue
        key = _INDEX_SUFFIX_RE.sub("", key).rstrip()
        parent.node.info[key] = value
        info_key = (parent.node, key, ind)
        # A time value may open an event sequence: the events decide (see _classify).
        if parse_time_ns(value.strip()) is not None or value.strip() == "":
            events = []
            seq = (parent.node, events, ind, key)
    # Impala prints a TotalTime line in every operator's counters (and, from 3.x on, every sender's),
    # late in them (they are in name order): one without it, when the others of its kind have it,
    # was cut short.
    for kind in (_OPERATOR_RE, _SENDER_RE):
        nodes = [(line, n) for line, n in operators if kind.match(n.name)]
        if any(id(n) in timed for _, n in nodes):
            line, node = next(((line, n) for line, n in nodes if id(n) not in timed), (None, None))
            if node is not None:
                raise ProfileError(f"{path}:{line}: {node.name}: no TotalTime counter, which the others of its "
                                   f"kind in query {root.name[10:-1]} have: expected its counters as Impala prints "
                                   "them (is the profile cut short?)")
    _nest_operators(root)
    version = 1
    for frag in aggregated:
        # An averaged fragment (5.0's default text) lists its instances too: the model reads the
        # per-instance fragments that follow it instead.
        if not frag.node.name.startswith("Averaged ") and \
                not any(c.name.startswith("Instance ") for c in frag.node.children):
            _explode(frag)
            version = 2
    exec_profile = next((c for c in root.children if c.name.startswith("Execution Profile")), None)
    if exec_profile is not None and "AGGREGATED" == exec_profile.info.get("Profile Type", "").strip():
        version = 2
    return ProfileDoc(root, where, ENCODING, version, approximate=version == 2)


def _classify(s, ind, stack, seq, subunits=False):
    """What line s at indentation ind is: ('event', (label, ns)), ('counter', (name, value)),
    ('header', name), ('info', (key, value)), ('instances', None), ('instance', name), ('instance value',
    None) for one instance's row under a summary statistic of the extended aggregated text, or None
    when the layout puts nothing there (a continuation of a multi-line info string)."""
    if ind < 0:
        return None
    full, s = s, s.rstrip()
    if s.startswith("- "):
        body = s[2:]
        if seq is not None and ind >= seq[2] + 2:
            m = re.match(r"^(.*): (\S+)(?: \((\S+)\))?$", body)
            if m:
                ns = parse_time_ns(m.group(2), subunits)
                if ns is not None:
                    node, events, _, key = seq
                    if not events:
                        node.info.pop(key, None)
                        node.events.append((key, events))
                    return "event", (m.group(1), ns)
        name, sep, value = body.partition(": ")
        if not sep:
            if body.endswith(":"):
                name, value = body[:-1], ""
            else:
                return None
        return "counter", (name.strip(), value)
    if _INSTANCE_VALUE_RE.match(s):
        return "instance value", None
    m = _INSTANCE_LIST_RE.match(s)
    if m:
        return "instance", m.group(2)
    parents = {o.indent + 2 for o in stack}
    if ind not in parents:
        return None
    if s == "Instances:" and any(o.indent == ind and _FRAGMENT_RE.match(o.node.name) for o in stack):
        return "instances", None
    name = _header(s) if not full.endswith(": ") else None  # "key: " is an info string with no value
    if name is not None and not (name in _MULTILINE_KEYS):
        return "header", name
    key, sep, value = full.partition(": ")
    if sep:
        return "info", (key, value)
    if name is not None:  # a multi-line key whose trailing space was trimmed
        return "info", (name, "")
    return None


_OPERATOR_RE = re.compile(r"^[A-Z][A-Z_]* \(id=\d+\)$")
_SENDER_RE = re.compile(r"^(?:Krpc)?DataStreamSender \(dst_id=\d+\)$")


_LEAF_RE = re.compile(r"^[A-Z_]*(?:SCAN_NODE|EXCHANGE_NODE|EMPTY_?SET_NODE|UNNEST_NODE|SINGULAR_ROW_SRC_NODE)"
                      r" \(id=\d+\)$")


def _nest_operators(node):
    """Undo the flattening of operator trees. ExecNode::CreateTree (exec-node.cc, 2.x to 5.0) adds
    a node's children 1..n to its profile indented and child 0 last, not indented, so the text
    prints child 0 at its parent's level, after the parent's subtree: an operator that follows
    another at the same level is the last child of the one before it, unless that one is a leaf
    (a scan, an exchange, an empty set, an unnest or a subplan's row source), after which the next
    of its parent's indented children begins."""
    for c in node.children:
        _nest_operators(c)
    kept, prev = [], None
    for c in node.children:
        if _OPERATOR_RE.match(c.name):
            if prev is not None and not _LEAF_RE.match(prev.name):
                prev.children.append(c)
            else:
                kept.append(c)
            prev = c
        else:
            kept.append(c)
    node.children = kept


def _add_counter(node, name, value, here, subunits=False):
    clean = _INDEX_SUFFIX_RE.sub("", name.replace("(*)", "")).strip()
    v = value.strip()
    sm = _SERIES_RE.match(name)
    if sm and not name.endswith("(*)"):
        if v:  # a time series: '<name> (<period>): v1, v2, ...'
            node.series.append(sm.group(1).strip())
        return  # else an event of an aggregated timeline summary: '<label> (<max time>):'

    summary = parse_summary(v)
    if summary is not None:
        _check_unit(clean, summary.unit, summary.mean or summary.max, v, here)
        node.summary[clean] = summary
        return
    agg = parse_aggregate(v)
    if agg is not None:
        _check_unit(clean, agg.unit, max(agg.stats.values(), default=agg.value), v, here)
        node.counters[clean] = agg
        return
    pv = parse_scalar(v, subunits)
    if pv is not None:
        _check_unit(clean, pv[0], pv[1], v, here)
        node.counters[clean] = Counter(pv[0], pv[1])
        return
    if clean in READ_COUNTERS:
        size = f" ({len(v):,} characters; Impala prints at most {MAX_VALUE_CHARS})" if len(v) > MAX_VALUE_CHARS else ""
        raise ProfileError(f"{here}: counter {clean}: cannot read the value {v[:60]!r}{size}: expected a count, "
                           "bytes, a time, a rate or '(Avg: .. ; Number of samples: N)' as Impala prints them")
    # Any other counter whose value this reader does not know is left out.


def _check_unit(name, unit, value, text, here):
    """A counter the model reads carries the unit Impala gives it; a zero may be printed bare."""
    expected = READ_UNITS.get(name)
    if expected is None or unit == expected or value == 0:
        return
    raise ProfileError(f"{here}: counter {name}: the value {text[:60]!r} is not in its unit: expected "
                       f"{_UNIT_WORDS[expected]}, as Impala prints {name}")


def _explode(frag):
    """An aggregated fragment -> per-instance children that all carry the fragment's values."""
    shell = explode_aggregate(frag.node, frag.instances)
    frag.node.children = shell.children
    frag.node.counters, frag.node.info, frag.node.summary, frag.node.events, frag.node.series = {}, {}, {}, [], []
