#!/usr/bin/python3
"""Each channel's K over time under an adaptive policy, one panel per results file.

Reads results written with `--set rpcs_in_flight_series=true` (each exchange's k_window.series: a
channel's change points) and draws, for one exchange per file, every channel's K as a step line
and their mean. The exchange is the one given (--exchange ID), else the one whose channels changed
K most often: where a policy oscillates or starts slowly, it shows.

    build/exsim run scenarios/examples/backpressure.json --set rpcs_in_flight_policy=gradient \\
        --set rpcs_in_flight_series=true --output out/gradient.json
    analysis/window_series.py out/gradient.json out/bdp.json --output out/k_over_time.png
"""

import argparse
import json
import sys
from pathlib import Path

if not __package__:  # run as a script: the repository root on sys.path, as for every entry point
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from common import atomic  # noqa: E402
from common.figures import png_bytes  # noqa: E402


class SeriesError(Exception):
    """A results file without what the plot needs (the message says what)."""


def pick_exchange(results, exchange_id, path):
    """The exchange to draw and its series."""
    with_series = [x for x in results.get("exchanges", []) if "series" in x.get("k_window", {})]
    if not with_series:
        raise SeriesError(f"{path}: no exchange has k_window.series; run with an adaptive rpcs_in_flight_policy "
                          "and --set rpcs_in_flight_series=true")
    if exchange_id is not None:
        for x in with_series:
            if x["id"] == exchange_id:
                return x
        raise SeriesError(f"{path}: --exchange {exchange_id}: no such exchange with a K series "
                          f"(have: {', '.join(x['id'] for x in with_series)})")
    return max(with_series, key=lambda x: sum(len(s["k"]) for s in x["k_window"]["series"]))


def step_mean(series, end):
    """The mean over channels of K at each change point (each channel's K holds until its next point;
    before its first it does not count)."""
    times = sorted({t for s in series for t in s["t_s"]})
    out = []
    for t in times:
        ks = []
        for s in series:
            if s["t_s"] and s["t_s"][0] <= t:
                ks.append(next(k for tt, k in zip(reversed(s["t_s"]), reversed(s["k"])) if tt <= t))
        out.append(sum(ks) / len(ks))
    return times + [end], out + out[-1:]


def panel(ax, x, title):
    w = x["k_window"]
    end = x["end_s"]
    for s in w["series"]:
        if s["t_s"]:
            ax.step(s["t_s"] + [end], s["k"] + s["k"][-1:], where="post", color="tab:blue", alpha=0.15, linewidth=1)
    t, m = step_mean(w["series"], end)
    ax.step(t, m, where="post", color="black", linewidth=1.8, label="mean over channels")
    ax.axhline(w["k_cap"], color="tab:red", linestyle="--", linewidth=1, label=f"cap K_max = {w['k_cap']}")
    ax.set_title(f"{title}: exchange {x['id']}, {w['policy']} (mean K {w['k_mean']:.2f}, "
                 f"{x['rpcs_deferred']} RPCs deferred)", fontsize="small")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("K")
    ax.set_ylim(0, w["k_cap"] + 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("results", nargs="+", help="results files (exsim run --output), one panel each")
    ap.add_argument("--exchange", help="the exchange id to draw (default: the one whose K changed most)")
    ap.add_argument("--output", required=True, help="the PNG to write")
    args = ap.parse_args(argv)
    try:
        exchanges = []
        for path in args.results:
            try:
                results = json.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise SeriesError(f"{path}: cannot read results: {e}") from None
            title = results.get("scenario", {}).get("name") or Path(path).stem
            exchanges.append((pick_exchange(results, args.exchange, path), title))
    except SeriesError as e:
        sys.stderr.write(f"window_series: {e}\n")
        return 2
    fig, axes = plt.subplots(len(exchanges), 1, figsize=(8, 3.2 * len(exchanges)), squeeze=False)
    for ax, (x, title) in zip(axes[:, 0], exchanges):
        panel(ax, x, title)
    fig.tight_layout()
    atomic.write_bytes(args.output, png_bytes(fig, dpi=110))
    print(f"window_series: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
