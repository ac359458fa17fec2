"""A seeded fuzz of `exsim profile import` on text profiles (the sibling of test_fuzz_inputs.py,
which fuzzes scenarios and results): Impala's text rendering of a v1 and of an aggregated profile,
cut at a byte or at a line, with a line duplicated or deleted, a counter's unit dropped, a value
made huge, a byte-order mark added, its line breaks made CR-only or CRLF.

Whatever the input: exit 0 or exit 2 with a message naming the file, never a traceback. A cut, a
dropped unit, a byte-order mark and other line breaks must give exit 2 or the intact profile's
scenario: never exit 0 with a changed one. (A duplicated or deleted line may be one a profile can
lack or repeat, so it may import differently.) The seed is fixed: the same cases every run."""

import codecs
import json
import random
import re

import pytest

from conftest import REPO
from tools.impala_profile import cli

SEED = 34
PROFILES = (REPO / ".." / "shared" / "impala-profiles").resolve()
V1 = PROFILES / "impala_profile_log_tpcds_compute_stats.expected.txt"
V2 = PROFILES / "impala_profile_log_tpcds_compute_stats_v2_default.expected.txt"
needs_profiles = pytest.mark.skipif(not V1.exists() or not V2.exists(), reason="../shared/impala-profiles is absent")

UNIT_RE = re.compile(rb"^(\s*- (?:RowsSent|RowsReturned|TotalBytesSent|SerializeBatchTime|TransmitDataTime|"
                     rb"DataWaitTime|TotalTime|BytesReceived|TotalBytesReceived|DeserializeRowBatchTime): )"
                     rb"([\d.]+)( ?(?:ns|us|ms|s|KB|MB|B|K|M))?(.*)$")
HUGE = [b"9" * 25, b"9" * 5000, b"1" + b"0" * 400 + b".5ms", b"-5ms", b"1e308", b"nan", b"99999999999999999999 KB"]


def base(path):
    """The file's queries with an exchange: the second query of V1 (the first is a SET), all of V2."""
    data = path.read_bytes()
    if path == V1:
        starts = [m.start() for m in re.finditer(rb"(?m)^Query \(id=", data)]
        data = data[starts[1]:starts[2]]
    return data


def mutations(data, rng):
    lines = data.split(b"\n")
    k = rng.randrange(1, len(lines) - 1)
    cases = [("byte cut", data[:rng.randrange(1, len(data))], True),
             ("line cut", b"\n".join(lines[:k]) + b"\n", True),
             ("duplicated line", b"\n".join(lines[:k + 1] + lines[k:]), False),
             ("deleted line", b"\n".join(lines[:k] + lines[k + 1:]), False)]
    counters = [i for i, line in enumerate(lines) if UNIT_RE.match(line)]
    i = rng.choice(counters)
    m = UNIT_RE.match(lines[i])
    cases.append(("unit dropped", b"\n".join(lines[:i] + [m.group(1) + m.group(2) + m.group(4)] + lines[i + 1:]),
                  not m.group(3) is None))
    cases.append(("huge value", b"\n".join(lines[:i] + [m.group(1) + rng.choice(HUGE)] + lines[i + 1:]), False))
    return cases


def scenario_of(path, tmp_path, capsys):
    """(exit status, stderr, the scenario without where it came from)."""
    out = tmp_path / "out.json"
    if out.exists():
        out.unlink()
    code = cli.main(["profile", "import", str(path), "--output", str(out)])
    err = capsys.readouterr().err
    doc = None
    if code == 0:
        doc = json.loads(out.read_text())
        doc.pop("provenance")
        for q in doc["queries"]:
            q.pop("source", None)
    return code, err, doc


@needs_profiles
@pytest.mark.parametrize("source", [V1, V2], ids=["v1", "aggregated"])
def test_mutated_text_profiles_import_the_same_or_are_refused(source, tmp_path, capsys):
    rng = random.Random(f"{SEED}:{source.name}")
    data = base(source)
    (tmp_path / "intact").mkdir()
    intact = tmp_path / "intact" / "p.txt"
    intact.write_bytes(data)
    code, err, reference = scenario_of(intact, tmp_path, capsys)
    assert code == 0, err
    cases = [("byte-order mark", codecs.BOM_UTF8 + data, True), ("CR-only", data.replace(b"\n", b"\r"), True),
             ("CRLF", data.replace(b"\n", b"\r\n"), True)]
    for _ in range(8):
        cases += mutations(data, rng)
    for n, (what, text, same_or_refused) in enumerate(cases):
        (tmp_path / str(n)).mkdir()
        path = tmp_path / str(n) / "p.txt"
        path.write_bytes(text)
        code, err, doc = scenario_of(path, tmp_path, capsys)
        label = f"case {n} ({what})"
        assert code in (0, 2), f"{label}: exit {code}: {err[-400:]}"
        assert "Traceback" not in err, f"{label}: {err[-400:]}"
        if code == 2:
            assert err.startswith(f"exsim: {path}") or "exsim: --" in err, f"{label}: names no file: {err[:300]}"
        elif same_or_refused:
            assert doc == reference, f"{label}: imported with exit 0 and a different scenario"
        if what in ("byte-order mark", "CR-only", "CRLF"):
            assert code == 0 and doc == reference, f"{label}: {err[:300]}"
