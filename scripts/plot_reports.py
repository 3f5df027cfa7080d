#!/usr/bin/env python3
"""Plots smshare run reports: IPC per kernel, and where the SM-cycles went.

  scripts/plot_reports.py [-o OUT.png] REPORT.json|DIR ...

Left panel: IPC (warp instructions per cycle, whole GPU) per report. Right
panel: each report's active SM-cycles split into issue, stall (a ready warp
found no free operand collector) and idle (no warp ready), in %. A directory
stands for its *.json, sorted. Default output: ipc.png beside the first report.
Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3); if the
running interpreter lacks it, the script re-runs itself with /usr/bin/python3.
Exit status: 0, 1 on a bad report or missing matplotlib, 2 on bad usage.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smshare_reports  # noqa: E402

TOOL = "plot_reports"


def die(msg):
    smshare_reports.die(TOOL, msg)


def expand(args):
    return smshare_reports.expand(args)


def load(path):
    return smshare_reports.load_report(TOOL, path, ('kernel', 'config', 'ipc', 'active_cycles', 'issue_cycles', 'stall_cycles', 'idle_cycles'))


def main(argv):
    out = None
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "-o":
            if i + 1 >= len(argv):
                print("plot_reports: -o needs a file name", file=sys.stderr)
                return 2
            out = argv[i + 1]
            i += 2
            continue
        if argv[i].startswith("-"):
            print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
            return 2
        args.append(argv[i])
        i += 1
    if not args:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    files = expand(args)
    if not files:
        die("no .json reports in " + " ".join(args))
    reports = [load(f) for f in files]
    if out is None:
        out = os.path.join(os.path.dirname(os.path.abspath(files[0])), "ipc.png")

    try:
        import matplotlib
    except ImportError:
        if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
        die("matplotlib is missing: apt-get install -y python3-matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = sorted({r["config"]["name"] for r in reports})
    names = [r["kernel"]["name"] + ("" if len(configs) == 1 else "\n" + r["config"]["name"]) for r in reports]
    ipc = [float(r["ipc"]) for r in reports]

    def share(r, key):
        a = r["active_cycles"]
        return 100.0 * r[key] / a if a else 0.0

    issue = [share(r, "issue_cycles") for r in reports]
    stall = [share(r, "stall_cycles") for r in reports]
    idle = [share(r, "idle_cycles") for r in reports]

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(max(8.0, 1.6 * len(reports) + 4), 4.2))
    x = range(len(reports))
    bars = ax1.bar(x, ipc, color="#4c72b0")
    for b, v in zip(bars, ipc):
        ax1.annotate(f"{v:.2f}", (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom",
                     fontsize=8)
    ax1.set_xticks(list(x))
    ax1.set_xticklabels(names, rotation=30, ha="right")
    ax1.set_ylabel("IPC (warp instructions / cycle, GPU)")
    ax1.set_title("IPC")

    ax2.bar(x, issue, label="issue", color="#55a868")
    ax2.bar(x, stall, bottom=issue, label="stall (pipeline)", color="#dd8452")
    ax2.bar(x, idle, bottom=[a + b for a, b in zip(issue, stall)], label="idle (no warp ready)", color="#c44e52")
    ax2.set_xticks(list(x))
    ax2.set_xticklabels(names, rotation=30, ha="right")
    ax2.set_ylabel("% of active SM-cycles")
    ax2.set_ylim(0, 100)
    ax2.set_title("SM-cycles")
    ax2.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))

    mechanisms = sorted({r.get("mechanism", "?") for r in reports})
    fig.suptitle(f"smshare: {', '.join(configs)}, mechanism {', '.join(mechanisms)}")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"plot_reports: wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
