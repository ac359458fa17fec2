"""Reading Impala runtime profiles, whatever their encoding, into one neutral tree of `Node`s
(tree.py).

Encodings read:
- JSON: the web UI's /query_profile_json document ({"contents": ...}, optionally wrapped with
  "__common__"), a bare profile object, or a stream of concatenated objects (what
  `impala-profile-tool --profile_format=json` prints for a profile log).
- Text (impala-shell's PROFILE, the web UI's text view): see text.py; recognised by a line
  'Query (id=...):'.
- Profile log lines (Impala's query log, `impala_profile_log_*`): `<epoch ms> <query id> <base64>`
  or a bare base64 line; base64 of a zlib stream (or of raw bytes) holding a Thrift
  `TRuntimeProfileTree` in the compact protocol (the binary protocol is tried too).

Thrift is decoded by Debian's python3-thrift: its protocol classes read every struct field
generically (id, wire type, value); the meaning of the field ids below is this project's own
reading of Impala's common/thrift/RuntimeProfile.thrift, Metrics.thrift and ExecStats.thrift.

Aggregated ("v2", AGGREGATED_PROFILE=1) fragments hold one merged node tree with per-instance
value lists; they are exploded here into the per-instance layout of a v1 profile
("Fragment Fnn" > "Instance <id> (host=<host>)" > ...), so that everything downstream reads a
single layout. A JSON rendering of an aggregated profile only keeps count/min/max/mean per
counter: its instances get the mean, and the document is flagged `approximate`.
"""

import base64
import binascii
import codecs
import io
import json
import re
import struct
import zlib

from . import text as text_form
from .tree import Counter, Node, ProfileDoc, ProfileError, SummaryStat, explode_aggregate


# What one profile may make this process build, checked before building: a real query's profile
# stays far below (the largest committed one decompresses to a few MB, with a few thousand nodes).
MAX_FILE_BYTES = 256 << 20  # a profile file (a profile log of many queries included)
MAX_DECOMPRESSED_BYTES = 64 << 20  # one profile line, inflated
MAX_THRIFT_VALUES = 2_000_000  # values read from one profile line (each costs microseconds in Python)
MAX_INSTANCES = 100_000  # instances of one fragment (1,000 executors at mt_dop 64 make 64,000)
MAX_INSTANCE_NODES = 2_000_000  # profile nodes built for one fragment's instances


# TUnit (Metrics.thrift), by enum value.
UNITS = ["UNIT", "UNIT_PER_SECOND", "CPU_TICKS", "BYTES", "BYTES_PER_SECOND", "TIME_NS", "DOUBLE_VALUE",
         "NONE", "TIME_MS", "TIME_S", "TIME_US", "BASIS_POINTS"]
# TExecState (ExecStats.thrift), by enum value.
EXEC_STATES = ["REGISTERED", "PLANNING", "QUEUED", "RUNNING", "FINISHED", "CANCELLED", "FAILED"]

# Field ids, as read in Impala's .thrift files (see the module docstring).
# TRuntimeProfileTree
F_TREE_NODES, F_TREE_EXEC_SUMMARY, F_TREE_VERSION = 1, 2, 3
# TRuntimeProfileNode
F_NODE_NAME, F_NODE_NUM_CHILDREN, F_NODE_COUNTERS, F_NODE_METADATA = 1, 2, 3, 4
F_NODE_INFO, F_NODE_EVENTS, F_NODE_SERIES, F_NODE_SUMMARY = 6, 9, 10, 11
F_NODE_NODE_METADATA, F_NODE_AGGREGATED = 12, 13
# TRuntimeProfileNodeMetadata (union)
F_META_PLAN_NODE_ID, F_META_DATA_SINK_ID = 1, 2
# TCounter
F_COUNTER_NAME, F_COUNTER_UNIT, F_COUNTER_VALUE = 1, 2, 3
# TEventSequence
F_EVSEQ_NAME, F_EVSEQ_TIMESTAMPS, F_EVSEQ_LABELS = 1, 2, 3
# TTimeSeriesCounter
F_SERIES_NAME, F_SERIES_UNIT, F_SERIES_PERIOD_MS, F_SERIES_VALUES = 1, 2, 3, 4
# TSummaryStatsCounter
F_SUMMARY_NAME, F_SUMMARY_UNIT, F_SUMMARY_SUM, F_SUMMARY_COUNT, F_SUMMARY_MIN, F_SUMMARY_MAX = 1, 2, 3, 4, 5, 6
# TAggregatedRuntimeProfileNode
F_AGG_NUM_INSTANCES, F_AGG_INPUT_PROFILES, F_AGG_COUNTERS, F_AGG_INFO = 1, 2, 3, 4
F_AGG_SUMMARY, F_AGG_EVENTS, F_AGG_SERIES = 5, 6, 7
# TAggCounter
F_AGGC_NAME, F_AGGC_UNIT, F_AGGC_HAS_VALUE, F_AGGC_VALUES = 1, 2, 3, 4
# TAggSummaryStatsCounter
F_AGGS_NAME, F_AGGS_UNIT, F_AGGS_HAS_VALUE, F_AGGS_SUM, F_AGGS_COUNT, F_AGGS_MIN, F_AGGS_MAX = 1, 2, 3, 4, 5, 6, 7
# TAggEventSequence
F_AGGE_NAME, F_AGGE_LABEL_DICT, F_AGGE_LABEL_IDXS, F_AGGE_TIMESTAMPS = 1, 2, 3, 4
# TExecSummary, TStatus
F_EXEC_STATE, F_EXEC_STATUS = 1, 2
F_STATUS_MSGS = 2


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

def read_profiles(path):
    """Every query profile in the file at `path`, in file order, as ProfileDocs."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)  # /dev/zero has no end
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ProfileError(f"{path}: is a directory, not an Impala profile") from None
    except OSError as e:
        raise ProfileError(f"{path}: cannot read: {e.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ProfileError(f"{path}: more than {MAX_FILE_BYTES >> 20} MiB: expected an Impala profile, at most "
                           f"{MAX_FILE_BYTES >> 20} MiB (split a larger profile log into several files)")
    if data.startswith(codecs.BOM_UTF8):  # an editor's byte-order mark is not part of the profile
        data = data[len(codecs.BOM_UTF8):]
    text = data.lstrip()
    if not text:
        raise ProfileError(f"{path}: empty file, not an Impala profile")
    if text[:1] == b"{":
        return _read_json(path, data)
    if text_form.looks_like_text(data):  # before '[': impala-shell's prompt line starts with one
        return text_form.read_text(path, data)
    if text[:1] == b"[":
        return _read_json(path, data)
    return _read_log(path, data)


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

def _read_json(path, data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProfileError(f"{path}: not UTF-8 text at byte {e.start}, not a JSON profile") from None
    objs = []
    dec = json.JSONDecoder()
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        if objs and text[i] not in "{[":
            line = text.count("\n", 0, i) + 1
            col = i - (text.rfind("\n", 0, i) + 1) + 1
            rest = len(text[i:].encode("utf-8"))
            raise ProfileError(f"{path}: {rest} trailing byte(s) after the JSON profile, from line {line} column "
                               f"{col} ({text[i:i + 20]!r}): expected the end of the file or another JSON "
                               "object; the profile itself is complete, remove what follows it")
        try:
            obj, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as e:
            tail = text.rstrip()
            if e.pos >= len(tail) - 1 or not tail.endswith(("}", "]")):
                raise ProfileError(f"{path}: truncated JSON: the file ends inside a value (line {e.lineno}, "
                                   f"{e.msg})") from None
            raise ProfileError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
        if isinstance(obj, list) and len(objs) == 0 and i >= len(text.rstrip()):
            # impala-profile-tool's pretty JSON of a log: one array of its profiles
            if not obj:
                raise ProfileError(f"{path}: an empty JSON array: no profile in it")
            objs.extend(obj)
            break
        objs.append(obj)
    docs = []
    for k, obj in enumerate(objs):
        where = path if len(objs) == 1 else f"{path}: object {k + 1}"
        if isinstance(obj, dict) and isinstance(obj.get("contents"), dict):
            root = obj["contents"]
        elif isinstance(obj, dict) and "profile_name" in obj:
            root = obj
        else:
            keys = ", ".join(sorted(obj)[:6]) if isinstance(obj, dict) else type(obj).__name__
            raise ProfileError(f"{where}: not an Impala runtime profile: expected an object with 'contents' "
                               f"(the web UI's /query_profile_json) or 'profile_name', found {keys}")
        try:
            node, aggregated = _json_node(root, "$" if len(objs) == 1 else f"$[{k}]")
        except ProfileError as e:
            raise ProfileError(f"{where}: {e}") from None
        doc = ProfileDoc(node, where, "JSON", 2 if aggregated else 1, approximate=aggregated)
        if aggregated:
            _explode_json_aggregates(doc)
        docs.append(doc)
    if not docs:
        raise ProfileError(f"{path}: no JSON object in the file")
    return docs


_STAT_KEYS = ("count", "min", "max", "mean")


def _json_node(obj, jpath):
    if not isinstance(obj, dict) or not isinstance(obj.get("profile_name"), str):
        raise ProfileError(f"{jpath}: expected a profile node with a string 'profile_name'")
    node = Node(obj["profile_name"])
    aggregated = False
    counters = [(f"{jpath}.counters[{i}]", c) for i, c in enumerate(obj.get("counters") or [])]
    while counters:  # child counters (e.g. DataWaitTime under TotalGetBatchTime) are nested in JSON
        cpath, c = counters.pop(0)
        if not isinstance(c, dict) or "counter_name" not in c:
            raise ProfileError(f"{cpath}: expected an object with 'counter_name'")
        counters.extend((f"{cpath}.child_counters[{i}]", cc) for i, cc in enumerate(c.get("child_counters") or []))
        if "value" in c:
            node.counters[c["counter_name"]] = Counter(c.get("unit", "UNIT"), c["value"])
        elif "count" in c:  # aggregated rendering: statistics over the instances
            aggregated = True
            mean = c.get("mean", c.get("min", 0))
            node.counters[c["counter_name"]] = Counter(c.get("unit", "UNIT"), mean,
                                                       {k: c[k] for k in _STAT_KEYS if k in c})
        else:
            raise ProfileError(f"{cpath} ({c['counter_name']}): expected 'value' or 'count'")
    for i, kv in enumerate(obj.get("info_strings") or []):
        if not isinstance(kv, dict) or "key" not in kv:
            raise ProfileError(f"{jpath}.info_strings[{i}]: expected an object with 'key' and 'value'")
        node.info[kv["key"]] = kv.get("value", "")
    for s in obj.get("summary_stats_counters") or []:
        if isinstance(s, dict) and "counter_name" in s:
            node.summary[s["counter_name"]] = SummaryStat(s.get("unit", "UNIT"), int(s.get("num_of_samples", 0)),
                                                          s.get("avg", s.get("value", 0)), s.get("min", 0),
                                                          s.get("max", 0))
    for seq in obj.get("event_sequences") or []:
        if isinstance(seq, dict):
            events = [(e.get("label", ""), e.get("timestamp", 0)) for e in seq.get("events") or []
                      if isinstance(e, dict)]
            node.events.append((seq.get("name", ""), events))
    for t in obj.get("time_series_counters") or []:
        if isinstance(t, dict):
            node.series.append(t.get("counter_name", ""))
    md = obj.get("node_metadata")
    if isinstance(md, dict):
        node.plan_node_id = md.get("plan_node_id")
        node.data_sink_id = md.get("data_sink_id")
    for i, ch in enumerate(obj.get("child_profiles") or []):
        child, agg = _json_node(ch, f"{jpath}.child_profiles[{i}]")
        node.children.append(child)
        aggregated = aggregated or agg
    return node, aggregated


_INSTANCE_RE = re.compile(r"Instance (\S+) \(host=([^)]+)\)")


def _explode_json_aggregates(doc):
    """Aggregated JSON rendering: give each fragment node per-instance children carrying the mean.

    The instance count is the `count` of the fragment's counters; the hosts are those whose
    entry under "Per Node Profiles" lists the fragment, instances dealt to them in turn."""
    exec_profile = next((c for c in doc.root.children if c.name.startswith("Execution Profile")), None)
    if exec_profile is None:
        return
    hosts_of = {}
    per_node = exec_profile.child("Per Node Profiles")
    for host in (per_node.children if per_node else []):
        for frag in host.children:
            m = re.match(r"Fragment (F\d+)$", frag.name)
            if m:
                hosts_of.setdefault(m.group(1), []).append(host.name)
    for i, frag in enumerate(exec_profile.children):
        m = re.match(r"(?:Coordinator )?Fragment (F\d+)$", frag.name)
        if not m or any(_INSTANCE_RE.match(c.name) for c in frag.children):
            continue
        counts = [c.stats["count"] for c in frag.counters.values() if c.stats]
        n = max(counts) if counts else 1
        if not isinstance(n, int) or not 1 <= n <= MAX_INSTANCES:
            raise ProfileError(f"{doc.where}: {frag.name}: a counter's count of {n!r}: expected the number of "
                               f"instances, at most {MAX_INSTANCES:,}")
        hosts = hosts_of.get(m.group(1)) or ["unknown"]
        exec_profile.children[i] = explode_aggregate(frag, [f"Instance {m.group(1)}#{k} (host={hosts[k % len(hosts)]})"
                                                            for k in range(n)])


# ---------------------------------------------------------------------------
# Profile log lines (base64, zlib, Thrift)
# ---------------------------------------------------------------------------

_NEITHER = ("not an Impala profile: neither JSON, nor a text profile (no line 'Query (id=...):'), nor a profile "
            "log of '<epoch ms> <query id> <base64>' lines")


def _read_log(path, data):
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as e:
        raise ProfileError(f"{path}: byte {e.start} is not ASCII: {_NEITHER}") from None
    docs = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        where = f"{path}:{no}"
        fields = line.split(" ")
        if len(fields) == 3:
            b64 = fields[2]
            if not fields[0].isdigit():
                raise ProfileError(f"{where}: expected '<epoch ms> <query id> <base64>', the first field "
                                   f"{fields[0][:20]!r} is not a time stamp; {_NEITHER}")
        elif len(fields) == 1:
            b64 = fields[0]
        else:
            raise ProfileError(f"{where}: expected '<epoch ms> <query id> <base64 profile>' or a base64 profile, "
                               f"found {len(fields)} fields; {_NEITHER}")
        docs.append(decode_archive(b64, where))
    if not docs:
        raise ProfileError(f"{path}: no profile line in the file")
    return docs


def decode_archive(b64, where):
    """A base64 profile archive (Impala's RuntimeProfile::SerializeToArchiveString) -> ProfileDoc."""
    bad = re.search(r"[^A-Za-z0-9+/=]", b64)
    if bad:
        raise ProfileError(f"{where}: not base64 (character {bad.group(0)!r} at column {bad.start() + 1} of the "
                           "profile field): not an Impala profile log line")
    if len(b64) % 4:
        raise ProfileError(f"{where}: the base64 profile is truncated ({len(b64)} characters, not a whole number "
                           "of 4-character groups)")
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ProfileError(f"{where}: not base64 ({e}): not an Impala profile log line") from None
    try:
        inflater = zlib.decompressobj()
        thrift_bytes = inflater.decompress(raw, MAX_DECOMPRESSED_BYTES)
        if inflater.unconsumed_tail:
            raise ProfileError(f"{where}: the zlib stream decompresses to more than {MAX_DECOMPRESSED_BYTES >> 20} "
                               "MiB: not an Impala profile")
        if not inflater.eof:
            raise zlib.error("incomplete or truncated stream")
        encoding = "profile log line (base64, zlib, Thrift compact protocol)"
    except zlib.error as e:
        if raw[:1] == b"\x78":  # a zlib header: the stream is there but broken
            raise ProfileError(f"{where}: the zlib stream is truncated or corrupt ({e})") from None
        thrift_bytes = raw  # Impala also accepts uncompressed archives
        encoding = "profile log line (base64, Thrift compact protocol)"
    tree, proto_err = None, None
    for proto in ("compact", "binary"):
        try:
            tree = _read_thrift_struct(thrift_bytes, proto)
            tree_nodes = tree.get(F_TREE_NODES)
            if not isinstance(tree_nodes, list) or not tree_nodes or not isinstance(tree_nodes[0], dict) \
                    or not isinstance(tree_nodes[0].get(F_NODE_NAME), str):
                raise ValueError("field 1 is not a list of TRuntimeProfileNode")
            if proto == "binary":
                encoding = encoding.replace("compact", "binary")
            break
        except ThriftTooLarge as e:
            raise ProfileError(f"{where}: {e}") from None
        except (EOFError, ValueError, struct.error, UnicodeDecodeError, RecursionError) as e:
            tree = None
            if proto_err is None:
                proto_err = e
        except ImportError:
            raise
        except Exception as e:  # thrift's TProtocolException and TTransportException
            tree = None
            if proto_err is None:
                proto_err = e
    if tree is None:
        why = "the data ends early (truncated)" if isinstance(proto_err, EOFError) else str(proto_err)
        raise ProfileError(f"{where}: not a Thrift TRuntimeProfileTree: {why}")
    nodes = tree[F_TREE_NODES]
    version = tree.get(F_TREE_VERSION) or 1
    try:
        root, used = _build_thrift_tree(nodes, 0)
    except ProfileError as e:
        raise ProfileError(f"{where}: {e}") from None
    except (KeyError, TypeError, IndexError) as e:
        raise ProfileError(f"{where}: malformed TRuntimeProfileTree: node list does not form a tree ({e})") from None
    if used != len(nodes):
        raise ProfileError(f"{where}: malformed TRuntimeProfileTree: {len(nodes) - used} node(s) after the root's "
                           "subtree")
    doc = ProfileDoc(root, where, encoding, version)
    summary = tree.get(F_TREE_EXEC_SUMMARY)
    if isinstance(summary, dict) and isinstance(summary.get(F_EXEC_STATE), int):
        st = summary[F_EXEC_STATE]
        doc.exec_state = EXEC_STATES[st] if 0 <= st < len(EXEC_STATES) else str(st)
        status = summary.get(F_EXEC_STATUS)
        if isinstance(status, dict):
            doc.exec_errors = [m for m in status.get(F_STATUS_MSGS) or [] if isinstance(m, str)]
    return doc


class ThriftTooLarge(ValueError):
    """A Thrift document past the values this reader builds for one profile."""


def _thrift():
    try:
        from thrift.protocol import TBinaryProtocol, TCompactProtocol
        from thrift.Thrift import TType
        from thrift.transport import TTransport
    except ImportError:
        raise ImportError("python3-thrift is missing (needed to decode Thrift profile logs): "
                          "apt-get install python3-thrift") from None
    return TBinaryProtocol, TCompactProtocol, TType, TTransport


def _read_thrift_struct(data, proto):
    """Read one Thrift struct from `data` as {field id: value}, recursively, by wire type alone."""
    TBinaryProtocol, TCompactProtocol, TType, TTransport = _thrift()
    buf = io.BytesIO(data)
    trans = TTransport.TFileObjectTransport(buf)
    p = TCompactProtocol.TCompactProtocol(trans) if proto == "compact" else \
        TBinaryProtocol.TBinaryProtocol(trans, strictRead=True)
    total = len(data)
    budget = [MAX_THRIFT_VALUES]

    def check_size(n):
        # Every element takes at least one byte: a larger count means corrupt data, not a long list.
        if n < 0 or n > total - buf.tell():
            raise ValueError(f"container of {n} elements at byte {buf.tell()} exceeds the data")

    def value(t):
        budget[0] -= 1
        if budget[0] < 0:
            raise ThriftTooLarge(f"more than {MAX_THRIFT_VALUES:,} Thrift values: expected at most that many in one "
                                 "profile (a real query's has far fewer)")
        if t == TType.STRUCT:
            return struct_()
        if t == TType.BOOL:
            return p.readBool()
        if t == TType.BYTE:
            return p.readByte()
        if t == TType.I16:
            return p.readI16()
        if t == TType.I32:
            return p.readI32()
        if t == TType.I64:
            return p.readI64()
        if t == TType.DOUBLE:
            return p.readDouble()
        if t == TType.STRING:
            b = p.readBinary()
            try:
                return b.decode("utf-8")
            except UnicodeDecodeError:
                return b
        if t == TType.LIST:
            et, n = p.readListBegin()
            check_size(n)
            v = [value(et) for _ in range(n)]
            p.readListEnd()
            return v
        if t == TType.SET:
            et, n = p.readSetBegin()
            check_size(n)
            v = [value(et) for _ in range(n)]
            p.readSetEnd()
            return v
        if t == TType.MAP:
            kt, vt, n = p.readMapBegin()
            check_size(n)
            v = {}
            for _ in range(n):
                k = value(kt)
                v[k if not isinstance(k, list) else tuple(k)] = value(vt)
            p.readMapEnd()
            return v
        raise ValueError(f"unknown Thrift wire type {t} at byte {buf.tell()}")

    def struct_():
        p.readStructBegin()
        out = {}
        while True:
            _, t, fid = p.readFieldBegin()
            if t == TType.STOP:
                break
            out[fid] = value(t)
            p.readFieldEnd()
        p.readStructEnd()
        return out

    return struct_()


def _unit(u):
    return UNITS[u] if isinstance(u, int) and 0 <= u < len(UNITS) else "UNIT"


def _counter_value(unit, v):
    if unit == "DOUBLE_VALUE" and isinstance(v, int):  # a double stored as its 64 bits
        return struct.unpack("<d", struct.pack("<q", v))[0]
    return v


def _thrift_node(t):
    node = Node(t[F_NODE_NAME])
    for c in t.get(F_NODE_COUNTERS) or []:
        unit = _unit(c.get(F_COUNTER_UNIT))
        node.counters[c[F_COUNTER_NAME]] = Counter(unit, _counter_value(unit, c.get(F_COUNTER_VALUE, 0)))
    for k, v in (t.get(F_NODE_INFO) or {}).items():
        node.info[k] = v
    for s in t.get(F_NODE_SUMMARY) or []:
        n = s.get(F_SUMMARY_COUNT, 0)
        node.summary[s[F_SUMMARY_NAME]] = SummaryStat(_unit(s.get(F_SUMMARY_UNIT)), n,
                                                      s.get(F_SUMMARY_SUM, 0) / n if n else 0,
                                                      s.get(F_SUMMARY_MIN, 0) if n else 0,
                                                      s.get(F_SUMMARY_MAX, 0) if n else 0)
    for e in t.get(F_NODE_EVENTS) or []:
        node.events.append((e.get(F_EVSEQ_NAME, ""),
                            list(zip(e.get(F_EVSEQ_LABELS) or [], e.get(F_EVSEQ_TIMESTAMPS) or []))))
    for s in t.get(F_NODE_SERIES) or []:
        node.series.append(s.get(F_SERIES_NAME, ""))
    md = t.get(F_NODE_NODE_METADATA)
    if isinstance(md, dict):
        node.plan_node_id = md.get(F_META_PLAN_NODE_ID)
        node.data_sink_id = md.get(F_META_DATA_SINK_ID)
    return node


def _build_thrift_tree(nodes, i):
    """The flattened pre-order node list -> tree; returns (root, index after its subtree)."""
    t = nodes[i]
    if not isinstance(t, dict) or not isinstance(t.get(F_NODE_NAME), str):
        raise TypeError(f"node {i} has no name")
    agg = t.get(F_NODE_AGGREGATED)
    inputs = agg.get(F_AGG_INPUT_PROFILES) if isinstance(agg, dict) else None
    if inputs and not t[F_NODE_NAME].startswith("Averaged"):
        # Root of an aggregated fragment: explode its subtree into per-instance subtrees.
        subtree, j = _collect_subtree(nodes, i)
        if len(inputs) > MAX_INSTANCES or len(inputs) * (j - i) > MAX_INSTANCE_NODES:
            raise ProfileError(f"{t[F_NODE_NAME]}: {len(inputs):,} instances of {j - i:,} node(s) each: expected at "
                               f"most {MAX_INSTANCES:,} instances and {MAX_INSTANCE_NODES:,} nodes in all")
        shell = Node(t[F_NODE_NAME])
        for k, name in enumerate(inputs):
            inst = _agg_instance(subtree, k)
            inst.name = name
            shell.children.append(inst)
        return shell, j
    node = _thrift_node(t)
    j = i + 1
    for _ in range(t.get(F_NODE_NUM_CHILDREN, 0)):
        child, j = _build_thrift_tree(nodes, j)
        node.children.append(child)
    return node, j


def _collect_subtree(nodes, i):
    """(raw node, [raw children subtrees]) of the subtree at i, and the index after it."""
    t = nodes[i]
    kids, j = [], i + 1
    for _ in range(t.get(F_NODE_NUM_CHILDREN, 0)):
        sub, j = _collect_subtree(nodes, j)
        kids.append(sub)
    return (t, kids), j


def _agg_instance(subtree, k):
    """Instance k's values of an aggregated subtree, as an ordinary Node tree."""
    t, kids = subtree
    agg = t.get(F_NODE_AGGREGATED) or {}
    node = Node(t[F_NODE_NAME])
    for c in agg.get(F_AGG_COUNTERS) or []:
        has, vals = c.get(F_AGGC_HAS_VALUE) or [], c.get(F_AGGC_VALUES) or []
        if k < len(has) and has[k] and k < len(vals):
            unit = _unit(c.get(F_AGGC_UNIT))
            node.counters[c[F_AGGC_NAME]] = Counter(unit, _counter_value(unit, vals[k]))
    for key, by_value in (agg.get(F_AGG_INFO) or {}).items():
        for v, idxs in by_value.items():
            if k in idxs:
                node.info[key] = v
    for s in agg.get(F_AGG_SUMMARY) or []:
        has = s.get(F_AGGS_HAS_VALUE) or []
        if k < len(has) and has[k]:
            n = s[F_AGGS_COUNT][k]
            node.summary[s[F_AGGS_NAME]] = SummaryStat(_unit(s.get(F_AGGS_UNIT)), n,
                                                       s[F_AGGS_SUM][k] / n if n else 0,
                                                       s[F_AGGS_MIN][k] if n else 0,
                                                       s[F_AGGS_MAX][k] if n else 0)
    for e in agg.get(F_AGG_EVENTS) or []:
        labels = e.get(F_AGGE_LABEL_DICT) or []
        idxs = (e.get(F_AGGE_LABEL_IDXS) or [])
        ts = (e.get(F_AGGE_TIMESTAMPS) or [])
        if k < len(idxs) and k < len(ts):
            node.events.append((e.get(F_AGGE_NAME, ""),
                                [(labels[a] if 0 <= a < len(labels) else "?", b) for a, b in zip(idxs[k], ts[k])]))
    for s in agg.get(F_AGG_SERIES) or []:
        node.series.append(s.get(F_SERIES_NAME, ""))
    md = t.get(F_NODE_NODE_METADATA)
    if isinstance(md, dict):
        node.plan_node_id = md.get(F_META_PLAN_NODE_ID)
        node.data_sink_id = md.get(F_META_DATA_SINK_ID)
    node.children = [_agg_instance(sub, k) for sub in kids]
    return node
