"""Rule C1: the LZ4 ratio of each exchange from what its rows hold.

The pooled 0.2709 of profiles.profile_lz4_ratio (kept as workload.json's
`exchange_defaults.compression_ratio`) is 98% the q72 profile's exchange 28. This module gives each
exchange its own ratio (the scenario's per-exchange `compression_ratio`) from the classes of bytes in
its row, with class ratios fitted to the per-exchange ratios the q72 profile shows.

What Impala compresses (apache/impala at b21595276c6c84161eb3194228df016f120ffc17)
----------------------------------------------------------------------------------
- One LZ4 block per RPC: OutboundRowBatch::TryCompress compresses the batch's whole tuple data with
  Lz4Compressor::ProcessBlock (be/src/runtime/outbound-row-batch.cc:51-86), level 1 =
  LZ4_compress_default (be/src/util/compress.cc:345-348, 369-389): a 64 KiB window, matches of 4 bytes
  or more, each match costing a token, a 2-byte offset and the literals before it. The compressed bytes
  are kept only if smaller (outbound-row-batch.cc:76-82). Tuple offsets (4 bytes per tuple of a row)
  travel uncompressed beside it (GetSerializedSize, outbound-row-batch.h:123-125).
- Which channels compress: a hash collector iff its channel is not in the sender's own daemon
  (PartitionRowCollector::SendCurrentBatch -> PrepareBatchForSend(..., !channel_->IsLocal()),
  krpc-data-stream-sender.cc:637-648, 1372-1382); a broadcast/unpartitioned sender serializes once and
  compresses unless it has a single, local channel (krpc-data-stream-sender.cc:1149-1165); a random or
  single-channel sender iff its channel is remote (:615-622, 1166-1172).
- What a batch holds: a hash sender copies every row into its channel's OutboundRowBatch, every tuple of
  it, with no deduplication (IMPALA-13509, commit 3d58eca93781, Impala 4.5.0:
  KrpcDataStreamSender::HashAndAddRows and PartitionRowCollector::AppendRow,
  krpc-data-stream-sender-ir.cc:30-67; OutboundRowBatch::AppendRow, outbound-row-batch.inline.h:28-47).
  So a dimension tuple joined onto many fact rows is serialized once per row, and only LZ4 removes the
  repeats: the q72 profile's exchange 28 carries 205.5 raw bytes per row, all five tuples. The other
  senders serialize a RowBatch with RowBatch::Serialize, which writes a tuple once when the previous row
  points to the same tuple (adjacent rows only; row-batch-ir.cc:30-60, outbound-row-batch-ir.cc:40-78)
  and builds a full dedup map only for rows of 3+ tuples with collection slots (RowBatch::UseFullDedup,
  row-batch.cc:223-235).
- Strings of at most 11 bytes are stored inside their 12-byte slot when copied into the batch
  (SmallableString::Smallify, smallable-string.h:46, 128-139; Tuple::TryDeepCopyStringSlot,
  tuple-ir.cc:86-102; IMPALA-12373, commit ae848a6cefc5, Impala 4.4.0): they add no string bytes, and the
  rest of the slot is zeroed "so compression algorithms will be more efficient".

What the profile measured (measured_ratios)
-------------------------------------------
TotalBytesSent / TotalBytesReceived count compressed (or raw) tuple data plus 4 offset bytes per tuple
(krpc-data-stream-sender.cc:524-526; krpc-data-stream-recvr.cc:498); UncompressedRowBatchSize and
TotalBytesDequeued count raw tuple data plus 8 pointer bytes per tuple (GetDeserializedSize,
outbound-row-batch.h:119-121; a broadcast sender counts them per channel, krpc-data-stream-sender.cc:
1352-1370). A counter mixes raw bytes (local channels) and compressed ones, in a share the rows give: a
hash sender sends its daemon's receivers their share of all rows; a receiver gets from its daemon's
senders their share of the raw bytes; a broadcast compresses everything. Solving
data = raw x (share + ratio x (1 - share)) pooled over the senders, and separately over the receivers,
gives two independent estimates per exchange. Exchange 27 (catalog_sales rows, HASH(cs_sold_date_sk,
cs_item_sk), 3 senders -> 3 receivers, no receiver with remote senders only): 0.4896 from the senders and
0.4896 from the receivers, so the "about 0.49" holds. The two agree within 0.01 everywhere (exchange 36:
0.539 / 0.530).

The model
---------
The raw tuple data of a row (its tuples' slots and null bytes, plus strings over 11 bytes) is split into
four classes (CLASSES), each with one ratio; the exchange's ratio is the byte-weighted mean:

  ratio = sum_c CLASS_RATIOS[c] x bytes_c / sum_c bytes_c

- num: fixed bytes of slots whose value changes from row to row (keys, measures, aggregates, strings of
  at most 11 bytes with many values, the slot of a longer string);
- lowcard: every byte of a slot whose column has fewer distinct values than a batch can hold (NDV at the
  scale < min(rows of a batch, the rows of the tuple's table)), and the null-indicator bytes;
- text: the characters of strings longer than 11 bytes (lengths: rowsize.external_string_bytes);
- repeat: every byte of a dimension tuple in a row of several tuples whose other tuples come from a
  larger table (a join's build-side tuple serialized again in each row it matched).

Rows of a batch: a hash collector's capacity, data_stream_sender_buffer_size // fixed row bytes; other
senders batch_size (the q72 broadcasts sent 1,015 to 1,022 rows per RPC), both Impala's defaults as the
simulator's parameter table holds them (rows_per_batch). NDV: stats-3TB.json numDVs, a key-like column as its
table's rows at the scale, a foreign key at most its dimension's rows. Evidence layouts: the q72 profile's
plan with the columns of the same scans in the planner test (as workload.q72_row_size_check), in the SF1
text schema's types (RUN_TYPES) at SF1. The layouts' raw bytes per row match the profile's to the byte for
every scan tuple (25.0, 17.0, 41.0 ...), with strings of at most 11 bytes inside the slot: exchange 26
(d_date as text), 29 (hd_buy_potential) and 31 (d_date) would otherwise be 10, 7.5 and 10 bytes longer.

Fit: weighted least squares (weights: each exchange's raw bytes on compressed channels), 4 parameters on 11
exchanges; exchanges 23 and 32 (batches of 144 and 1,500 raw bytes, where LZ4's fixed costs dominate) are
shown, not fitted (MIN_FIT_BATCH_BYTES). Fitted: num 0.5441, lowcard 0.1606, text 0.5090, repeat 0.2498.
Residual (derived - measured): byte-weighted RMS 0.007, unweighted RMS 0.063, largest 0.124 (26). The
pooled ratio of the fitted traffic is kept (0.2751 measured, 0.2751 derived).

| x | kind | tuples | rows/batch | rows sent | senders | receivers | measured | derived | residual | left out | class bytes per row | raw bytes on compressed channels | raw B/row profile / layout | fitted |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| 23 | BROADCAST | 2 | 1024 | 5 | 0.8958 | 0.8958 | 0.8958 | 0.5155 | -0.3803 | - | num 16.0 + lowcard 1.0 + text 16.0 | 288 | 28.8 / 33.0 | no (144 B batches) |
| 24 | BROADCAST | 3 | 1024 | 18,000 | 0.5087 | 0.5087 | 0.5087 | 0.5119 | +0.0032 | +0.1057 | num 20.0 + lowcard 1.0 + text 100.3 | 4,349,630 | 120.8 / 121.3 | yes |
| 25 | BROADCAST | 7 | 1024 | 73,049 | 0.5095 | 0.5095 | 0.5095 | 0.5015 | -0.0080 | -0.0083 | num 8.0 + lowcard 1.0 | 1,314,882 | 9.0 / 9.0 | yes |
| 26 | BROADCAST | 6 | 1024 | 365 | 0.3435 | 0.3435 | 0.3435 | 0.4674 | +0.1239 | +0.1240 | num 20.0 + lowcard 5.0 | 18,250 | 25.0 / 25.0 | yes |
| 27 | HASH | 0 | 399 | 1,441,548 | 0.4896 | 0.4896 | 0.4896 | 0.4599 | -0.0297 | -0.0897 | num 32.0 + lowcard 9.0 | 39,404,597 | 41.0 / 41.0 | yes |
| 28 | HASH | 1,2,3,7,6 | 176 | 16,380,000 | 0.2701 | 0.2702 | 0.2702 | 0.2702 | -0.0000 | - | num 16.0 + lowcard 5.0 + repeat 188.3 | 2,242,987,710 | 205.5 / 209.3 | yes |
| 29 | BROADCAST | 5 | 1024 | 1,200 | 0.2382 | 0.2382 | 0.2382 | 0.2508 | +0.0126 | +0.0127 | num 4.0 + lowcard 13.0 | 61,200 | 17.0 / 17.0 | yes |
| 30 | BROADCAST | 4 | 1024 | 384,160 | 0.2371 | 0.2371 | 0.2371 | 0.2508 | +0.0137 | +0.3779 | num 4.0 + lowcard 13.0 | 19,592,160 | 17.0 / 17.0 | yes |
| 31 | BROADCAST | 8 | 1024 | 73,049 | 0.4143 | 0.4143 | 0.4143 | 0.5215 | +0.1072 | +0.1207 | num 16.0 + lowcard 1.0 | 3,725,499 | 17.0 / 17.0 | yes |
| 32 | BROADCAST | 9 | 1024 | 300 | 0.8027 | 0.8027 | 0.8027 | 0.4674 | -0.3353 | - | num 4.0 + lowcard 1.0 | 4,500 | 5.0 / 5.0 | no (1,500 B batches) |
| 33 | BROADCAST | 10 | 1024 | 144,067 | 0.4518 | 0.4518 | 0.4518 | 0.5215 | +0.0697 | +0.0894 | num 16.0 + lowcard 1.0 | 7,347,417 | 17.0 / 17.0 | yes |
| 34 | HASH | 11 | 297 | 2,123 | 0.5305 | 0.5304 | 0.5305 | 0.4582 | -0.0723 | -0.0743 | num 41.4 + lowcard 29.0 + text 100.3 | 234,628 | 165.6 / 170.7 | yes |
| 36 | MERGING | 12 | 1024 | 300 | 0.5389 | 0.5302 | 0.5345 | 0.4582 | -0.0763 | -0.0766 | num 41.4 + lowcard 29.0 + text 100.3 | 34,183 | 169.6 / 170.7 | yes |

("senders" / "receivers": the ratio solved from each side; "left out": the residual when the fit leaves that
exchange out, leave_one_out; "-" where a class rests on that exchange alone.)

How sure: `repeat` rests on exchange 28 alone (its residual is 0 by construction), and exchange 28's rows
are unusually repetitive (inventory in date-item-warehouse order, each row x7 by the d_week_seq join), so
a TPC-DS hash exchange whose dimension tuples repeat less compresses worse than 0.25 on those bytes. Left
out of the fit, the other exchanges are predicted within 0.13, except 30 (0.38: without it `lowcard` rests
on exchange 29's 61 KB). Sequential dimension keys and dates (26, 31: date_dim in key order) compress
better than `num` says (+0.11, +0.12); a fifth class for them fits those two but not 25.

Other profiles (other_evidence; not fitted): the compute-stats logs (3 daemons) give 0.71 (hash, batches
of 165 raw bytes: 13-byte rows, 10 to 15 per batch) and 0.73-0.74 (unpartitioned, 122-125 B) for the
table-stats child and 0.655 for a 22.7 KB row of NDV sketches; the q1 profiles ran on one daemon (nothing
compressed); the Impala 4.0 legacy log compressed local channels too and is left out.

Effect on the workload when the rule was introduced (mt_dop=0, strings by the small-string rule, the plans
before rule J3):
the 585 hash exchanges get 0.161 to 0.541, 0.409 weighted by their raw bytes (485.9 GB raw -> 198.7 GB
compressed, against 131.6 GB at the pooled 0.2709); a full hash batch's wire bytes, averaged over the 21.8 M
full batches, go from 8.4 KB (0.2709, average string lengths) to 11.2 KB. Broadcasts 0.318, merging 0.418.

Use: ratio, how = exchange_ratio(sizes, node[, schema]) for each exchange node (fragments.Converter);
pass `schema` for the derived variants, whose layouts have none.
"""

import math
import os
import re

from common import exsim_runner
from tools.impala_profile import decode, model
from tools.tpcds import PROFILE_Q72, PlanError
from tools.tpcds import profiles as prof
from tools.tpcds.ddl import SF1_TEXT_TYPES, Schema, slot_size
from tools.tpcds.plans import exchange_kind, parse_plan_file, query_sql
from tools.tpcds.rowsize import RowSizes, external_string_bytes

# --------------------------------------------------------------------------
# Fixed inputs
# --------------------------------------------------------------------------

# The classes of tuple-data bytes, in the order of CLASS_RATIOS.
CLASSES = ("num", "lowcard", "text", "repeat")
CLASS_WHAT = {
    "num": "fixed bytes of slots whose value changes from row to row: keys, measures, aggregates, "
           "strings of 11 bytes or less with more distinct values than a batch has rows, and the "
           "12-byte slot of a longer string",
    "lowcard": "every byte (slot and characters) of a slot whose column has fewer distinct values than a "
               "batch has rows, and the null-indicator bytes (the same byte in nearly every row)",
    "text": "the characters of strings longer than 11 bytes (out of the slot) of columns with more distinct "
            "values than a batch has rows",
    "repeat": "every byte of a dimension tuple joined onto the rows of a larger table (a row of several "
              "tuples): the same tuple again and again in the rows of a batch",
}

# Compressed / uncompressed bytes of each class: the least-squares fit of `fit(evidence(...))` to the
# measured ratios of the q72 profile (weights: each exchange's uncompressed bytes on compressed channels),
# frozen here so that the generator needs no profile to use them; tests/python/test_tpcds_compression.py
# refits and checks these values.
CLASS_RATIOS = {"num": 0.5441, "lowcard": 0.1606, "text": 0.5090, "repeat": 0.2498}

# Column types of the SF1 text schema the q72 profile ran on (database `tpcds`, apache/impala
# testdata/datasets/tpcds/tpcds_schema_template.sql at commit b21595276c6c, last changed by 60a0e9a03e38),
# for every column of the profile's exchanges: BIGINT item keys and order numbers, STRING dates.
RUN_TYPES = dict(SF1_TEXT_TYPES)
RUN_TYPES.update({
    "cs_sold_date_sk": "INT", "cs_ship_date_sk": "INT", "cs_bill_cdemo_sk": "INT", "cs_bill_hdemo_sk": "INT",
    "cs_item_sk": "BIGINT", "cs_promo_sk": "INT", "cs_order_number": "BIGINT", "cs_quantity": "INT",
    "cr_item_sk": "BIGINT", "cr_order_number": "BIGINT", "hd_demo_sk": "INT", "hd_buy_potential": "STRING",
    "cd_demo_sk": "INT", "cd_marital_status": "STRING", "p_promo_sk": "INT",
})

# Evidence: exchanges whose mean uncompressed tuple data per compressed batch is below this are reported
# but not fitted (LZ4's fixed costs and a few bytes of rows dominate a block of a few hundred bytes).
MIN_FIT_BATCH_BYTES = 4096


# --------------------------------------------------------------------------
# What a row holds
# --------------------------------------------------------------------------

def rows_per_batch(kind, fixed_row_bytes, buffer_bytes=None, batch_size=None, row_bytes=None):
    """Rows of one serialized (and compressed) batch: a hash sender's collector holds
    buffer / fixed row size rows (KrpcDataStreamSender::Channel::CalculateRowBatchCapacity), no more
    than its tuple-data flush allows of `row_bytes` rows (the simulator's rule, asked of it:
    exsim_runner.collector_rows, so the generator needs a built exsim); the other
    senders serialize the RowBatch they are given whole (batch_size rows, the rows of the RowBatch a
    broadcast or unpartitioned sender serializes whole: the q72 profile's broadcasts sent 1,015 to 1,022
    rows per RPC). Unset, the buffer and batch_size are the parameter table's defaults of
    data_stream_sender_buffer_size and batch_size, Impala's (krpc-data-stream-sender.cc)."""
    if kind == "HASH":
        if buffer_bytes is None:
            buffer_bytes = exsim_runner.parameter_default("flags", "data_stream_sender_buffer_size")
        return exsim_runner.collector_rows(buffer_bytes, math.ceil(fixed_row_bytes),
                                           None if row_bytes is None else math.ceil(row_bytes))
    return exsim_runner.parameter_default("flags", "batch_size") if batch_size is None else batch_size


def column_ndv(schema, name, scale):
    """Distinct values of a column at a scale factor, or None for a slot that is not a column: the
    SF3000 NDV of stats-3TB.json, a key-like column (NDV >= half its table) as its table's rows at the
    scale, a foreign key at most the rows of the table it references, any column at most its table's."""
    col = schema.column(name) if re.match(r"^[a-z0-9_.]+$", name) else None
    if col is None:
        return None
    tables = schema.tables
    rows = tables.rows(col.table, scale)
    stats_rows = tables.rows(col.table, schema.stats_scale)
    ndv = col.ndv if col.ndv and col.ndv > 0 else stats_rows
    if ndv >= 0.5 * stats_rows:
        return rows
    ref = tables.referenced(col.name, col.table)
    if ref is not None:
        return min(ndv, tables.rows(ref, scale), rows)
    return min(ndv, rows)


def tuple_table(schema, layout):
    """The table a scan's tuple comes from, else None."""
    m = re.match(r"^scan of ([a-z_]+)", layout.how)
    return m.group(1) if m else None


def _slot_parts(schema, slot, types):
    """(fixed bytes, external string bytes, is a string) of a slot, in the run's column types if given."""
    t = (types or {}).get(slot.name)
    fixed = slot_size(t) if t else slot.size
    is_string = (t.upper().startswith(("STRING", "VARCHAR")) if t else (slot.size == 12 and slot.var > 0))
    if not is_string:
        return fixed, 0.0, False
    col = schema.column(slot.name)
    avg = col.avg if col is not None and col.string else slot.var
    mx = None
    if col is not None and col.string:
        mx = schema.stats.get(col.table, {}).get("columns", {}).get(col.name, {}).get("maxColLen")
    return fixed, external_string_bytes(avg, mx), True


def class_bytes(schema, layouts, kind, scale=100, classes=1, types=None, buffer_bytes=None,
                batch_size=None):
    """Uncompressed tuple-data bytes per row by class (CLASSES), and the rows of a batch.

    `layouts`: the rowsize.Layout of each tuple of the row; `kind`: HASH, BROADCAST, UNPARTITIONED,
    RANDOM or MERGING; `classes` > 1: a multi-class aggregation's row (one class's tuple per row, the
    others NULL and not serialized: the mean over the tuples); `types`: column types that replace the
    workload schema's (RUN_TYPES for the q72 profile)."""
    parts = []
    fixed_all = 0.0
    for lay in layouts:
        p = [_slot_parts(schema, s, types) for s in lay.slots]
        null_bytes = (len(lay.slots) + 7) // 8
        fixed_all += sum(f for f, _, _ in p) + null_bytes
        parts.append((lay, p, null_bytes))
    row_all = fixed_all + sum(ext for _, p, _ in parts for _, ext, _ in p)
    per_batch = rows_per_batch(kind, fixed_all, buffer_bytes, batch_size, row_bytes=row_all)
    tables = [tuple_table(schema, lay) for lay in layouts]
    rows = schema.tables.rows
    biggest = max((rows(t, scale) if t else float("inf")) for t in tables) if tables else 0
    out = {c: 0.0 for c in CLASSES}
    for (lay, p, null_bytes), table in zip(parts, tables):
        mine = {c: 0.0 for c in CLASSES}
        repeats = (len(layouts) > 1 and table is not None and table not in schema.tables.facts
                   and rows(table, scale) < biggest)
        # rows of a batch that can repeat a value: a scan's tuple has at most its table's rows
        reach = min(per_batch, rows(table, scale)) if table else per_batch
        for slot, (fixed, ext, is_string) in zip(lay.slots, p):
            if repeats:
                mine["repeat"] += fixed + ext
                continue
            ndv = column_ndv(schema, slot.name, scale)
            if ndv is not None and ndv < reach:
                mine["lowcard"] += fixed + ext
            else:
                mine["num"] += fixed
                mine["text"] += ext
        mine["repeat" if repeats else "lowcard"] += null_bytes
        for c in CLASSES:
            out[c] += mine[c] / (len(layouts) if classes > 1 else 1)
    return out, per_batch


def ratio_of(bytes_by_class, ratios=None):
    """Compressed / uncompressed tuple data of a row with these class bytes."""
    ratios = ratios or CLASS_RATIOS
    total = sum(bytes_by_class.values())
    if total <= 0:
        return 1.0
    r = sum(ratios[c] * b for c, b in bytes_by_class.items()) / total
    return min(1.0, max(1e-3, r))


def exchange_ratio(sizes, node, schema=None, scale=100, types=None, ratios=None, buffer_bytes=None,
                   batch_size=None):
    """(compression_ratio, how) of an exchange node of a plan whose tuples `sizes` (rowsize.RowSizes)
    solved: the class ratios (CLASS_RATIOS) weighted by the bytes of each class in its row
    (class_bytes). `schema`: the ddl.Schema when `sizes` has none (the derived variants' layouts).
    Always in (0, 1]."""
    schema = schema or sizes.schema
    lays = [sizes.layouts[RowSizes.tid(t)] for t in node.tuple_ids if RowSizes.tid(t) in sizes.layouts]
    kind = exchange_kind(node)
    classes = node.children[0].classes if node.children else 0
    by, per_batch = class_bytes(schema, lays, kind, scale, classes, types, buffer_bytes, batch_size)
    ratios = ratios or CLASS_RATIOS
    r = ratio_of(by, ratios)
    total = sum(by.values())
    how = "LZ4 %.3f: %s of %.1f B per row (%d rows per batch)" % (r, ", ".join(
        "%s %.1f B x %.3f" % (c, by[c], ratios[c]) for c in CLASSES if by[c] > 0), total, per_batch)
    return r, how


# --------------------------------------------------------------------------
# What the profiles measured
# --------------------------------------------------------------------------

def _pooled(pairs):
    """sum(compressed part) / sum(raw bytes on compressed channels) over (data, raw, local share) triples."""
    num = sum(d - f * r for d, r, f in pairs)
    den = sum((1.0 - f) * r for d, r, f in pairs)
    return (num / den if den > 0 else None), den


def measured_ratios(path):
    """{exchange id: detail} of the LZ4 ratios a profile shows, solved twice: from the senders and from
    the receivers. A channel to the sender's own daemon is not compressed unless the sender broadcasts
    to several channels (krpc-data-stream-sender.cc: a hash collector compresses iff !channel->IsLocal();
    a broadcast skips compression only when its single channel is local), so a counter mixes compressed
    and raw bytes in a share that the rows tell:

    - tuple data: TotalBytesSent / TotalBytesReceived less 4 bytes of tuple offset per tuple of each row
      (GetSerializedSize; receiver AddBatch), raw tuple data: UncompressedRowBatchSize / TotalBytesDequeued
      less 8 bytes of pointer per tuple (GetDeserializedSize); a broadcast sender counts both once per
      channel, its RowsSent once;
    - a hash sender's local share: the rows its own daemon's receivers returned / all receivers' rows
      (hashing does not depend on the sender); a receiver's local share: the raw bytes its own daemon's
      senders sent / all senders' raw bytes; a broadcast to several channels: 0; an unpartitioned sender
      with one channel: 1 on the receiver's daemon, else 0;
    - data = raw x (share + ratio x (1 - share)), pooled: ratio = sum(data - share x raw) /
      sum((1 - share) x raw).

    Each detail: ratio_senders, ratio_receivers, ratio (their mean, or the one there is), compressed_raw
    (raw bytes on compressed channels, the fit's weight), batch_raw (mean raw bytes of a compressed batch),
    rows, raw_row_bytes (raw tuple data per row), tuples, kind, senders, receivers."""
    return _measured(prof._profiled_query(path))


def _measured(q):
    """measured_ratios of one tools.impala_profile Query."""
    out = {}
    for xid in sorted(q.exchanges):
        x = q.exchanges[xid]
        T = x.tuples or 1
        senders = [s for s in x.senders if s.rows > 0 and s.uncompressed]
        receivers = [r for r in x.receivers if r.bytes_dequeued > 0]
        if not senders or not receivers:
            continue
        n_ch = len(x.receivers)
        broadcast = x.partitioning == "UNPARTITIONED" and n_ch > 1
        kind = "BROADCAST" if broadcast else ("HASH" if x.partitioning == "HASH_PARTITIONED" else x.partitioning)
        recv_rows = sum(r.rows for r in receivers)
        offset, pointer = exsim_runner.batch_bytes("tuple_offset_bytes"), exsim_runner.batch_bytes("tuple_pointer_bytes")
        mult = n_ch if broadcast else 1
        s_pairs = []
        s_raw = {}
        for s in senders:
            data = s.bytes_sent - offset * T * s.rows * mult
            raw = s.uncompressed - pointer * T * s.rows * mult
            host = s.instance.host
            s_raw[host] = s_raw.get(host, 0) + raw
            if broadcast:
                share = 0.0
            elif x.partitioning == "HASH_PARTITIONED":
                share = sum(r.rows for r in receivers if r.instance.host == host) / float(recv_rows or 1)
            elif x.partitioning == "RANDOM":
                share = sum(1 for r in x.receivers if r.instance.host == host) / float(n_ch)
            else:
                share = 1.0 if all(r.instance.host == host for r in x.receivers) else 0.0
            s_pairs.append((data, raw, share))
        total_raw = float(sum(s_raw.values()))
        r_pairs = []
        for r in receivers:
            data = r.bytes_received - offset * T * r.rows
            raw = r.bytes_dequeued - pointer * T * r.rows
            share = 0.0 if broadcast else s_raw.get(r.instance.host, 0) / total_raw
            r_pairs.append((data, raw, share))
        rs, weight = _pooled(s_pairs)
        rr, _ = _pooled(r_pairs)
        if weight <= 0:
            continue
        got = [v for v in (rs, rr) if v is not None]
        rpcs = sum(s.rpcs for s in senders)
        comp_batches = sum(s.rpcs * (1.0 - f) for s, (_, _, f) in zip(senders, s_pairs))
        rows_sent = sum(s.rows for s in senders)
        out[xid] = {
            "kind": kind, "detail": x.detail, "tuples": T, "senders": len(senders), "receivers": n_ch,
            "rows": rows_sent, "raw_row_bytes": round(sum(r for _, r, _ in s_pairs) / (rows_sent * mult), 2),
            "ratio_senders": round(rs, 4) if rs is not None else None,
            "ratio_receivers": round(rr, 4) if rr is not None else None,
            "ratio": round(sum(got) / len(got), 4),
            "compressed_raw": int(round(weight)), "data_rpcs": rpcs,
            "batch_raw": int(round(weight / comp_batches)) if comp_batches > 0 else 0,
        }
    return out


# Profiles with compressed traffic besides q72 (impala-profiles/README.md): the compute-stats logs, 3 daemons,
# each with two child queries that exchange rows (the q1 profiles ran on one daemon: nothing compressed).
# The Impala 4.0 legacy log is left out: there a sender compressed for its own daemon too (its column-stats
# senders on the coordinator's daemon sent 14.8-15.0 KB of 22.7 KB, as the remote ones did), so the local
# shares above do not hold for it.
OTHER_PROFILES = ("impala_profile_log_tpcds_compute_stats", "impala_profile_log_tpcds_compute_stats_v2")


def other_evidence(profiles):
    """[dict] measured ratios of every exchange with compressed traffic in OTHER_PROFILES: profile, query
    (index in the log), exchange, kind, rows, ratio_senders, ratio_receivers, ratio, batch_raw. Not
    fitted: their batches hold 10 to 15 rows of 13 bytes (GROUP BY ss_sold_date_sk; 12 receivers
    share 150 rows per sender) or one 22.7 KB row of NDV sketches, outside the TPC-DS exchanges' range."""
    out = []
    for name in OTHER_PROFILES:
        path = os.path.join(profiles, name)
        if not os.path.isfile(path):
            continue
        for i, doc in enumerate(decode.read_profiles(path)):
            q = model.build_query(doc)
            for xid, m in sorted(_measured(q).items()):
                out.append({"profile": name, "query": i, "exchange": xid, "kind": m["kind"], "rows": m["rows"],
                            "ratio_senders": m["ratio_senders"], "ratio_receivers": m["ratio_receivers"],
                            "ratio": m["ratio"], "batch_raw": m["batch_raw"], "raw_row_bytes": m["raw_row_bytes"]})
    return out


def q72_layouts(plans, profiles):
    """(plan, RowSizes) of the q72 profile's plan: the tuples of its exchanges, with the columns of the
    same scans in the SF3000 planner test (as workload.q72_row_size_check does)."""
    schema = Schema(plans)
    top, data = parse_plan_file(os.path.join(plans, "tpcds-q72.test"), "DISTRIBUTEDPLAN")
    sql = query_sql(data.decode("utf-8"))
    top_sizes = RowSizes(top, schema, sql)
    cols = {(n.table, n.alias): [s.name for s in top_sizes.layouts[top_sizes.tid(n.tuple_ids[0])].slots]
            for n in top.nodes.values() if n.kind == "SCAN HDFS"}
    plan, _ = prof.measured_plan(os.path.join(profiles, PROFILE_Q72))
    return plan, RowSizes(plan, schema, sql, scan_columns=cols)


def evidence(plans, profiles, ratios=None):
    """The evidence table: one row per exchange of the q72 profile with compressed traffic: exchange,
    kind, measured (ratio_senders, ratio_receivers, their mean), derived (exchange_ratio on the
    exchange's tuples in the run's column types at SF1), residual = derived - measured, class bytes per
    row, the row's raw bytes measured against the layout's (fixed + strings over 11 bytes), the weight
    (raw bytes on compressed channels) and whether it is fitted (mean compressed batch >=
    MIN_FIT_BATCH_BYTES of raw tuple data)."""
    plan, sizes = q72_layouts(plans, profiles)
    meas = measured_ratios(os.path.join(profiles, PROFILE_Q72))
    rows = []
    for xid in sorted(meas):
        m = meas[xid]
        node = plan.nodes[xid]
        lays = [sizes.layouts[RowSizes.tid(t)] for t in node.tuple_ids if RowSizes.tid(t) in sizes.layouts]
        kind = exchange_kind(node)
        by, per_batch = class_bytes(sizes.schema, lays, kind, scale=1, types=RUN_TYPES)
        derived = ratio_of(by, ratios)
        rows.append({
            "exchange": xid, "kind": kind, "tuples": ",".join(node.tuple_ids), "rows": m["rows"],
            "ratio_senders": m["ratio_senders"], "ratio_receivers": m["ratio_receivers"],
            "measured": m["ratio"], "derived": round(derived, 4), "residual": round(derived - m["ratio"], 4),
            "class_bytes": {c: round(v, 2) for c, v in by.items()}, "rows_per_batch": per_batch,
            "raw_row_bytes": m["raw_row_bytes"], "layout_row_bytes": round(sum(by.values()), 2),
            "weight": m["compressed_raw"], "batch_raw": m["batch_raw"],
            "fitted": m["batch_raw"] >= MIN_FIT_BATCH_BYTES,
        })
    return rows


# --------------------------------------------------------------------------
# The fit
# --------------------------------------------------------------------------

def _solve(a, b):
    """Solve the square system a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [list(row) + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12:
            raise PlanError("compression fit: the classes are not identifiable from the evidence")
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(rows, classes=CLASSES):
    """Class ratios by weighted least squares on the fitted evidence rows: minimise
    sum w (measured - sum_c ratio_c x share_c)^2, share_c = the class's share of the row's bytes,
    w = the exchange's raw bytes on compressed channels. A class that the evidence does not hold is
    an error. Returns {class: ratio}."""
    use = [r for r in rows if r["fitted"]]
    if len(use) <= len(classes):
        raise PlanError("compression fit: %d evidence rows for %d classes" % (len(use), len(classes)))
    xs = []
    for r in use:
        tot = sum(r["class_bytes"].values())
        xs.append([r["class_bytes"][c] / tot for c in classes])
    ws = [float(r["weight"]) for r in use]
    ys = [r["measured"] for r in use]
    k = len(classes)
    a = [[sum(w * x[i] * x[j] for w, x in zip(ws, xs)) for j in range(k)] for i in range(k)]
    b = [sum(w * x[i] * y for w, x, y in zip(ws, xs, ys)) for i in range(k)]
    sol = _solve(a, b)
    return {c: v for c, v in zip(classes, sol)}


# --------------------------------------------------------------------------
# The workload's exchanges under both rules (a report for the integration; writes nothing)
# --------------------------------------------------------------------------

def leave_one_out(rows, classes=CLASSES):
    """{exchange: residual of that exchange when the fit leaves it out} for every fitted row whose
    removal leaves every class identifiable (a class held by that row alone, such as `repeat` by q72's
    exchange 28, is not checked: its residual is 0 by construction)."""
    out = {}
    for r in rows:
        if not r["fitted"]:
            continue
        rest = [o for o in rows if o is not r]
        if any(all(o["class_bytes"][c] == 0 for o in rest if o["fitted"]) for c in classes):
            continue
        ratios = fit(rest, classes)
        tot = sum(r["class_bytes"].values())
        pred = sum(ratios[c] * r["class_bytes"][c] for c in classes) / tot
        out[r["exchange"]] = round(pred - r["measured"], 4)
    return out


# The evidence table (README of the integration; tests/python/test_tpcds_compression.py reproduces it):
# exchange of the q72 profile -> (kind, rows sent, ratio from the senders, from the receivers, measured
# (their mean), derived with CLASS_RATIOS, residual = derived - measured, fitted).
EVIDENCE = {
    23: ("BROADCAST", 5, 0.8958, 0.8958, 0.8958, 0.5155, -0.3803, False),
    24: ("BROADCAST", 18000, 0.5087, 0.5087, 0.5087, 0.5119, 0.0032, True),
    25: ("BROADCAST", 73049, 0.5095, 0.5095, 0.5095, 0.5015, -0.0080, True),
    26: ("BROADCAST", 365, 0.3435, 0.3435, 0.3435, 0.4674, 0.1239, True),
    27: ("HASH", 1441548, 0.4896, 0.4896, 0.4896, 0.4599, -0.0297, True),
    28: ("HASH", 16380000, 0.2701, 0.2702, 0.2702, 0.2702, -0.0000, True),
    29: ("BROADCAST", 1200, 0.2382, 0.2382, 0.2382, 0.2508, 0.0126, True),
    30: ("BROADCAST", 384160, 0.2371, 0.2371, 0.2371, 0.2508, 0.0137, True),
    31: ("BROADCAST", 73049, 0.4143, 0.4143, 0.4143, 0.5215, 0.1072, True),
    32: ("BROADCAST", 300, 0.8027, 0.8027, 0.8027, 0.4674, -0.3353, False),
    33: ("BROADCAST", 144067, 0.4518, 0.4518, 0.4518, 0.5215, 0.0697, True),
    34: ("HASH", 2123, 0.5305, 0.5304, 0.5305, 0.4582, -0.0723, True),
    36: ("MERGING", 300, 0.5389, 0.5302, 0.5345, 0.4582, -0.0763, True),
}
