"""Writes the two synthetic Impala 2.0 / 2.2 text profiles of this folder (see README.md).

Run from the repository root: /usr/bin/python3 tests/python/data/impala_2x/make_profiles.py
The numbers are made up; the layout follows the printing rules of Impala 2.0-2.2 as this project
read them (README.md lists the files and commits). One query, the same plan in both:

    select n_name, count(*) from customer join nation on c_nationkey = n_nationkey group by n_name

    F03 (coordinator)   07:EXCHANGE [UNPARTITIONED]            <- F02 x D
    F02 x D             06:AGGREGATE [MERGE FINALIZE] <- 05:EXCHANGE [HASH(n_name)] <- F00 x D
    F00 x D             03:AGGREGATE <- 02:HASH JOIN [INNER JOIN, BROADCAST]
                            probe 00:SCAN HDFS [tpcds.customer], build 04:EXCHANGE [BROADCAST] <- F01 x 1
    F01 x 1             01:SCAN HDFS [tpcds.nation]
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent


def t_ns(ns, legacy=True):
    """A time as Impala 2.0-2.2 print it (TIME_NS): >= 1 s as 2s015ms, >= 1 ms as whole ms, a dot
    and the remaining microseconds NOT zero padded (1,050,000 ns: 1.50ms), > 1 us likewise with
    nanoseconds, else ns. legacy=False: the three-decimal form of later versions."""
    if ns == 0:
        return "0ns"
    if ns >= 10**9:
        ms = ns // 10**6
        if ms >= 60_000:
            return f"{ms // 60_000}m{ms % 60_000 // 1000}s"
        return f"{ms // 1000}s{ms % 1000:03d}ms"
    if ns >= 10**6:
        us = ns // 1000
        return f"{us // 1000}.{us % 1000}ms" if legacy else f"{us / 1000:.3f}ms"
    if ns > 1000:
        return f"{ns // 1000}.{ns % 1000}us" if legacy else f"{ns / 1000:.3f}us"
    return f"{ns}ns"


def count(v, version):
    """UNIT, verbose: 2.0 adds the exact value only when it prints a K/M/B suffix; 2.2 always."""
    if v >= 1000:
        for div, suf in ((10**9, "B"), (10**6, "M"), (10**3, "K")):
            if v >= div:
                return f"{v / div:.2f}{suf} ({v})"
    return f"{v}" if version == "2.0" else f"{v} ({v})"


def nbytes(v):
    """BYTES, verbose: 0 bare, else two decimals in B/KB/MB/GB and the exact value."""
    if v == 0:
        return "0"
    for div, suf in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB"), (1, "B")):
        if v >= div:
            return f"{v / div:.2f} {suf} ({v})"


def rate(bytes_, ns):
    v = bytes_ * 10**9 // ns if ns else 0
    for div, suf in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB"), (1, "B")):
        if v >= div:
            return f"{v / div:.2f} {suf}/sec"
    return "0.00 B/sec"


def header(name, total, local):
    """'name:(Total: .., non-child: .., % non-child: ..%)', only when TotalTime is not 0."""
    if not total:
        return f"{name}:"
    return f"{name}:(Total: {t_ns(total)}, non-child: {t_ns(local)}, % non-child: {100 * local / total:.2f}%)"


def counters(pad, items):
    """Counter lines, in name order as a std::map prints them."""
    return [f"{pad}   - {k}: {v}" for k, v in sorted(items.items())]


class Q:
    """One profile's figures: D daemons, per-instance rows and bytes of each exchange."""

    def __init__(self, version, build, daemons, qid, with_summary):
        self.version, self.build, self.D, self.qid, self.with_summary = version, build, daemons, qid, with_summary
        self.hosts = [f"impala-{k + 1}.example.com:22000" for k in range(daemons)]
        D = daemons
        # 04 BROADCAST: F01 (1 instance, on the last daemon) sends 25 nation rows to each of D receivers:
        # per copy 550 tuple bytes (LZ4: 410) + 4 bytes per tuple offset + 4 for the batch's tuple id;
        # both counters count every copy.
        self.x4_copy_bytes, self.x4_copy_uncompressed = 410 + 100 + 4, 550 + 100 + 4
        # 05 HASH(n_name): each F00 instance sends its 25 pre-aggregated groups, spread over D channels.
        self.x5_sent = [812, 798, 805, 820][:D]
        self.x5_uncompressed = [900, 880, 890, 910][:D]
        total5 = sum(self.x5_sent)
        recv = [total5 // D] * D
        recv[0] += total5 - sum(recv)
        self.x5_received = recv
        # Of the 25 groups, receiver k of 05 gets groups[k], once from each of the D senders; its merge
        # aggregation emits one row per group.
        groups = [7, 6, 6, 6] if D == 4 else [9, 8, 8]
        self.x5_rows_in = [D * g for g in groups]
        # 07 UNPARTITIONED: each F02 instance sends its final groups to the coordinator.
        self.x7_rows = groups
        self.x7_sent = [9 * r + 2 for r in self.x7_rows]
        self.x7_uncompressed = [28 * r for r in self.x7_rows]
        self.customer_rows = [37_500, 37_500, 37_500, 37_500][:D] if D == 4 else [50_000] * 3
        self.n = 0

    def instance_id(self):
        self.n += 1
        return f"{self.qid[:17]}{self.qid[17:25]}{self.n:08x}"

    def c(self, v):
        return count(v, self.version)

    # -- blocks --------------------------------------------------------------------------------
    def sender(self, pad, dst, sent, uncompressed, serialize_ns, transmit_ns, total_ns):
        items = {"BytesSent": nbytes(sent), "UncompressedRowBatchSize": nbytes(uncompressed),
                 "SerializeBatchTime": t_ns(serialize_ns), "ThriftTransmitTime(*)": t_ns(transmit_ns),
                 "NetworkThroughput(*)": rate(sent, transmit_ns), "OverallThroughput": rate(sent, total_ns),
                 "PeakMemoryUsage": nbytes(16384)}
        return [pad + header(f"DataStreamSender (dst_id={dst})", total_ns, total_ns)] + counters(pad, items)

    def exchange(self, pad, xid, rows, received, total_ns, wait_ns, first_ns):
        items = {"BytesReceived": nbytes(received), "ConvertRowBatchTime": t_ns(3_200),
                 "DeserializeRowBatchTimer": t_ns(14_050 + 10 * xid), "FirstBatchArrivalWaitTime": t_ns(first_ns),
                 "PeakMemoryUsage": "0", "RowsReturned": self.c(rows),
                 "RowsReturnedRate": f"{rows * 10**9 // total_ns} /sec" if total_ns else "0",
                 "SendersBlockedTimer": t_ns(0), "SendersBlockedTotalTimer(*)": t_ns(0)}
        out = [pad + header(f"EXCHANGE_NODE (id={xid})", total_ns, total_ns - wait_ns)]
        out.append(f"{pad}  BytesReceived(500.0ms): 0, {nbytes(received).split(' (')[0]}")
        return out + counters(pad, items)

    def operator(self, pad, name, total_ns, local_ns, items):
        return [pad + header(name, total_ns, local_ns)] + counters(pad, items)

    def instance_counters(self, pad, rows, send_ns, recv_ns):
        items = {"AverageThreadTokens": "1.00 ", "PeakMemoryUsage": nbytes(2_150_400),
                 "PerHostPeakMemUsage": nbytes(4_300_800), "PrepareTime": t_ns(2_050_000),
                 "RowsProduced": self.c(rows), "TotalCpuTime": t_ns(41_005_000),
                 "TotalNetworkReceiveTime": t_ns(recv_ns), "TotalNetworkSendTime": t_ns(send_ns),
                 "TotalStorageWaitTime": t_ns(0)}
        return [f"{pad}  MemoryUsage(500.0ms): 16.00 KB, 2.05 MB"] + counters(pad, items)

    # -- the profile ---------------------------------------------------------------------------
    def text(self):
        D, h = self.D, self.hosts
        L = [f"Query (id={self.qid}):", "  Summary:",
             "    Session ID: 6c1e2d3f4a5b6c7d:8e9fa0b1c2d3e4f5", "    Session Type: BEESWAX",
             "    Start Time: 2015-02-10 09:30:00.000000000",
             f"    End Time: {'2015-02-10 09:30:03.350000000' if self.with_summary else ''}",
             "    Query Type: QUERY", "    Query State: FINISHED", "    Query Status: OK",
             f"    Impala Version: impalad version {self.build} RELEASE (build "
             "0123456789abcdef0123456789abcdef01234567)",
             "    User: analyst", "    Connected User: analyst", "    Delegated User: ",
             "    Network Address: 10.1.2.3:51000", "    Default Db: tpcds",
             "    Sql Statement: select n_name, count(*) from customer join nation on c_nationkey = n_nationkey "
             "group by n_name",
             f"    Coordinator: {h[0]}", "    Plan: ", "----------------",
             f"Estimated Per-Host Requirements: Memory=42.00MB VCores=2", "",
             "F03:PLAN FRAGMENT [UNPARTITIONED]",
             "  07:EXCHANGE [UNPARTITIONED]",
             f"     hosts={D} per-host-mem=unavailable",
             "     tuple-ids=2 row-size=20B cardinality=25", "",
             "F02:PLAN FRAGMENT [HASH(n_name)]",
             "  DATASTREAM SINK [FRAGMENT=F03, EXCHANGE=07, UNPARTITIONED]",
             "  06:AGGREGATE [MERGE FINALIZE]",
             "  |  output: sum(count(*))", "  |  group by: n_name",
             f"  |  hosts={D} per-host-mem=10.00MB", "  |  tuple-ids=2 row-size=20B cardinality=25", "  |",
             "  05:EXCHANGE [HASH(n_name)]",
             f"     hosts={D} per-host-mem=0B", "     tuple-ids=2 row-size=20B cardinality=25", "",
             "F00:PLAN FRAGMENT [RANDOM]",
             "  DATASTREAM SINK [FRAGMENT=F02, EXCHANGE=05, HASH(n_name)]",
             "  03:AGGREGATE", "  |  output: count(*)", "  |  group by: n_name",
             f"  |  hosts={D} per-host-mem=10.00MB", "  |  tuple-ids=2 row-size=20B cardinality=25", "  |",
             "  02:HASH JOIN [INNER JOIN, BROADCAST]", "  |  hash predicates: c_nationkey = n_nationkey",
             f"  |  hosts={D} per-host-mem=2.00KB", "  |  tuple-ids=0,1 row-size=26B cardinality=150000", "  |",
             "  |--04:EXCHANGE [BROADCAST]", f"  |     hosts=1 per-host-mem=0B",
             "  |     tuple-ids=1 row-size=22B cardinality=25", "  |",
             "  00:SCAN HDFS [tpcds.customer]", f"     partitions=1/1 size=12.60MB",
             f"     hosts={D} per-host-mem=32.00MB", "     tuple-ids=0 row-size=4B cardinality=150000", "",
             "F01:PLAN FRAGMENT [RANDOM]",
             "  DATASTREAM SINK [FRAGMENT=F00, EXCHANGE=04, BROADCAST]",
             "  01:SCAN HDFS [tpcds.nation, RANDOM]", "     partitions=1/1 size=2.17KB",
             "     hosts=1 per-host-mem=32.00MB", "     tuple-ids=1 row-size=22B cardinality=25",
             "----------------",
             "    Estimated Per-Host Mem: 44040192", "    Estimated Per-Host VCores: 2",
             "    Request Pool: root.analyst"]
        if self.with_summary:
            L += ["    ExecSummary: "] + self.exec_summary()
        L += ["    Query Timeline: 3s350ms",
              "       - Start execution: 52.0us (52.0us)",
              "       - Planning finished: 121.50ms (121.448ms)",
              "       - Ready to start remote fragments: 125.5ms (4.5ms)",
              "       - Remote fragments started: 401.340ms (275.835ms)",
              "       - Rows available: 3s201ms (2s799ms)",
              "       - First row fetched: 3s250ms (49.0ms)"]
        if self.with_summary:
            L.append("       - Unregister query: 3s350ms (100.0ms)")
        L += ["  ImpalaServer:", "     - ClientFetchWaitTimer: 49.0ms", "     - RowMaterializationTimer: 6.5us",
              header(f"  Execution Profile {self.qid}", 3_150_000_000, 0)]
        node_mem = " ".join(f"{x}(2.05 MB)" for x in h)
        L += [f"    Per Node Peak Memory Usage: {node_mem}", "     - FinalizationTimer: 0"]
        # Coordinator fragment F03: its operators directly below it (coordinator.cc renames the
        # coordinator's executor profile), no Instance child.
        x7_total, x7_wait = 2_850_000_000, 2_848_950_000
        L += [header("    Coordinator Fragment F03", 2_851_000_000, 0)]
        L += self.instance_counters("    ", 25, 0, x7_total)
        L += self.exchange("      ", 7, sum(self.x7_rows), sum(self.x7_sent), x7_total, x7_wait, 2_845_100_000)
        # Fragment F02: D instances, one per daemon.
        L += ["    Averaged Fragment F02:", "      num instances: %d" % D, "    Fragment F02:"]
        for k in range(D):
            send_ns = 150_000 + 5_000 * k
            x5_total, x5_wait = 2_700_000_000 + 1_000_000 * k, 2_690_000_000 + 1_000_000 * k
            pad = "        "
            L += [header(f"      Instance {self.instance_id()} (host={h[k]})", 2_800_000_000, 0)]
            L += self.instance_counters("      ", self.x7_rows[k], send_ns, x5_total)
            L += self.sender(pad, 7, self.x7_sent[k], self.x7_uncompressed[k], 21_050, 190_500 + 1000 * k,
                             400_000)
            L += self.operator(pad, "AGGREGATION_NODE (id=6)", x5_total + 4_000_000, 4_000_000,
                               {"BuildTime": t_ns(1_020_000), "GetResultsTime": t_ns(8_005),
                                "PeakMemoryUsage": nbytes(2_150_400), "RowsReturned": self.c(self.x7_rows[k])})
            L += self.exchange(pad, 5, self.x5_rows_in[k], self.x5_received[k], x5_total, x5_wait, 2_680_000_000)
        # Fragment F00: D instances: scan customer, join the broadcast nation, pre-aggregate, hash-send.
        L += ["    Averaged Fragment F00:", "      num instances: %d" % D, "    Fragment F00:"]
        for k in range(D):
            pad = "        "
            scan_rows = self.customer_rows[k]
            x4_total, x4_wait = 380_000_000 + 2_000_000 * k, 379_000_000 + 2_000_000 * k
            L += [header(f"      Instance {self.instance_id()} (host={h[k]})", 2_650_000_000, 0)]
            L += [f"        Hdfs split stats (<volume id>:<# splits>/<split lengths>): 0:1/3.15 MB "]
            L += self.instance_counters("      ", 25, 250_000 + 10_000 * k, x4_total)
            L += self.sender(pad, 5, self.x5_sent[k], self.x5_uncompressed[k], 60_500, 950_000 + 50_000 * k,
                             1_300_000)
            L += self.operator(pad, "AGGREGATION_NODE (id=3)", 2_600_000_000, 30_000_000,
                               {"BuildTime": t_ns(25_001_000), "PeakMemoryUsage": nbytes(2_150_400),
                                "RowsReturned": self.c(25)})
            L += self.operator(pad, "HASH_JOIN_NODE (id=2)", 2_570_000_000, 40_000_000,
                               {"BuildRows": self.c(25), "BuildTime": t_ns(20_500),
                                "ProbeRows": self.c(scan_rows), "RowsReturned": self.c(scan_rows)})
            L += self.exchange("          ", 4, 25, self.x4_copy_bytes, x4_total, x4_wait, 378_500_000)
            L += self.operator(pad, "HDFS_SCAN_NODE (id=0)", 2_150_000_000, 2_150_000_000,
                               {"BytesRead": nbytes(3_302_400), "RowsRead": self.c(scan_rows),
                                "RowsReturned": self.c(scan_rows), "ScanRangesComplete": self.c(1)})
        # Fragment F01: one instance, on the last daemon: scans nation and broadcasts it.
        L += ["    Averaged Fragment F01:", "      num instances: 1", "    Fragment F01:"]
        L += [header(f"      Instance {self.instance_id()} (host={h[-1]})", 360_000_000, 0)]
        L += self.instance_counters("      ", 25, 1_250_000, 0)
        L += self.sender("        ", 4, self.x4_copy_bytes * D, self.x4_copy_uncompressed * D, 40_500,
                         1_500_000, 1_700_000)
        L += self.operator("        ", "HDFS_SCAN_NODE (id=1)", 355_000_000, 355_000_000,
                           {"BytesRead": nbytes(2_224), "RowsRead": self.c(25), "RowsReturned": self.c(25),
                            "ScanRangesComplete": self.c(1)})
        return "\n".join(L) + "\n"

    def exec_summary(self):
        """The ExecSummary table of 2.x (summary-util.cc): no fragment (sender) rows, #Hosts is the
        number of instances, the exchange's detail its partitioning."""
        D = self.D
        rows = [("07:EXCHANGE", 1, "2s850ms", "2s850ms", "25", "25", "0", "-1.00 B", "UNPARTITIONED"),
                ("06:AGGREGATE", D, "4.0ms", "4.0ms", "25", "25", "2.05 MB", "10.00 MB", "MERGE FINALIZE"),
                ("05:EXCHANGE", D, "2s701ms", "2s703ms", str(25 * D), "25", "0", "0", "HASH(n_name)"),
                ("03:AGGREGATE", D, "30.0ms", "30.0ms", str(25 * D), "25", "2.05 MB", "10.00 MB", ""),
                ("02:HASH JOIN", D, "40.0ms", "40.0ms", "150.00K", "150.00K", "2.05 MB", "2.00 KB",
                 "INNER JOIN, BROADCAST"),
                ("|--04:EXCHANGE", D, "381.0ms", "384.0ms", "25", "25", "0", "0", "BROADCAST"),
                ("|  01:SCAN HDFS", 1, "355.0ms", "355.0ms", "25", "25", "2.05 MB", "32.00 MB", "tpcds.nation"),
                ("00:SCAN HDFS", D, "2s150ms", "2s150ms", "150.00K", "150.00K", "2.05 MB", "32.00 MB",
                 "tpcds.customer")]
        heads = ("Operator", "#Hosts", "Avg Time", "Max Time", "#Rows", "Est. #Rows", "Peak Mem", "Est. Peak Mem",
                 "Detail")
        cells = [heads] + [tuple(str(c) for c in r) for r in rows]
        widths = [max(len(r[i]) for r in cells) + 2 for i in range(len(heads))]
        left = {0, 8}

        def line(r):
            out = ""
            for i, v in enumerate(r):
                cell = (" " if i else "") + v + (" " if i != len(r) - 1 else "")
                out += cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
            return out
        return [line(heads), "-" * sum(widths)] + [line(r) for r in cells[1:]]


def main():
    profiles = {
        "impala20_4daemons.txt": Q("2.0", "2.0.0-cdh5", 4, "a1b2c3d4e5f60718:293a4b5c00000000", False),
        "impala22_3daemons.txt": Q("2.2", "2.2.0-cdh5", 3, "0f1e2d3c4b5a6978:8796a5b400000000", True),
    }
    for name, q in profiles.items():
        (HERE / name).write_text(q.text(), encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
