#!/usr/bin/env python3
"""Draws a sweep spec's `plot:` entries from the sweep's results.json.

  scripts/plot_sweep.py RESULTS [--spec SPEC] [--out DIR]

RESULTS is a sweep's results.json or its --out directory. SPEC defaults to the
spec copy the sweep keeps (<sweep dir>/spec.yaml); DIR to <sweep dir>/plots.
Entry n (from 1) of `plot:` becomes DIR/<n>-<metric>.png and .svg. Two kinds:

  {metric: M, x: A, lines: B}        M against axis A, one line per value of B
  {metric: M, bars: A, groups: B, normalize: {B: v}}
                                     one group of bars per value of A, one bar
                                     per value of B, each divided by the bar of
                                     B = v in its group (a speed-up when M is
                                     ipc); a last group holds their geometric mean

M is a report field as results.json names it (ipc, cycles,
counters.l1.misses, ...). Both kinds take `where: {axis: value, ...}` (keep
only those runs), `panels: C` (one subplot per value of axis C) and `title:`.
`lines:` and `normalize:` are optional. Runs of a grid without one of the
entry's axes are not part of its plot. Every run must land in its own point
or bar: an axis that still varies among the runs of one point is an error
naming it (fix it with `where:` or `panels:`), never an average.
Failed and pending runs are left out, with a warning counting them.
Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3); if the
running interpreter lacks it, the script re-runs itself with /usr/bin/python3.
Exit status: 0, 1 on a bad spec entry or results.json, 2 on bad usage.
"""
import argparse
import difflib
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_results import Results, SweepError, canon, label, load_spec, results_path, same, spec_axes  # noqa: E402

TOOL = "plot_sweep"
LINE_KEYS = ("metric", "x", "lines", "panels", "where", "title")
BAR_KEYS = ("metric", "bars", "groups", "normalize", "panels", "where", "title")


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Entry:
    """One `plot:` entry checked against the sweep: its runs (after `where:`),
    and the errors it raises name the spec file and the entry."""

    def __init__(self, spec_path, n, entry, results, axes):
        self.where_ = f"{spec_path}: plot entry {n}"
        self.n = n
        self.results = results
        self.axes = axes
        if not isinstance(entry, dict):
            self.fail("must be a mapping such as {metric: ipc, x: sharing, lines: mechanism}")
        self.entry = entry
        kinds = [k for k in ("x", "bars") if k in entry]
        if len(kinds) != 1:
            self.fail("needs exactly one of x: (metric against an axis) or bars: (grouped bars)")
        self.kind = "lines" if kinds[0] == "x" else "bars"
        allowed = LINE_KEYS if self.kind == "lines" else BAR_KEYS
        for key in entry:
            if key not in allowed:
                self.fail(f"unknown key '{key}'; allowed: {', '.join(allowed)}")
        self.metric = entry.get("metric")
        if not isinstance(self.metric, str):
            self.fail("needs metric: a report field such as ipc, cycles or counters.l1.misses")
        if self.metric in axes:
            self.fail(f"metric '{self.metric}' is an axis, not a report field")
        # Runs of a grid that lacks one of the entry's axes are not part of its plot.
        used = [self.axis(k) for k in ("x", "lines", "panels", "bars", "groups") if k in entry]
        self.rows = [r for r in self.filter(entry.get("where") or {}) if all(a in r for a in used)]
        if not self.rows:
            self.fail(f"no finished run has a value for every one of {', '.join(used)}")
        self.check_metric()

    def fail(self, msg):
        raise SweepError(f"{self.where_}: {msg}")

    def axis(self, key):
        """The axis named by entry[key], checked."""
        name = self.entry.get(key)
        if name not in self.axes:
            self.fail(f"{key}: unknown axis '{name}'; the spec's axes: {', '.join(self.axes)}")
        return name

    def filter(self, where):
        if not isinstance(where, dict):
            self.fail("where: must be a mapping axis: value")
        rows = self.results.rows
        for name, value in where.items():
            if name not in self.axes:
                self.fail(f"where: unknown axis '{name}'; the spec's axes: {', '.join(self.axes)}")
            allowed = self.axes[name]
            if not any(same(value, v) for v in allowed):
                self.fail(f"where: {name}: no value {label(value)}; allowed: {', '.join(map(label, allowed))}")
            rows = [r for r in rows if name in r and same(r[name], value)]
        if not rows:
            self.fail("no finished run matches where:" if where else "the sweep has no finished run")
        return rows

    def check_metric(self):
        m = self.metric
        if m not in self.results.columns and not any(m in r for r in self.rows):
            numeric = sorted({c for r in self.rows for c, v in r.items() if is_number(v) and c not in self.axes})
            close = difflib.get_close_matches(m, numeric, n=4)
            close += [c for c in numeric if c not in close and (m in c or c.split(".")[-1] == m.split(".")[-1])]
            if close:
                self.fail(f"unknown metric '{m}'; did you mean {', '.join(close[:8])}? "
                          f"(the {len(numeric)} numeric report fields are results.json's columns)")
            self.fail(f"unknown metric '{m}'; numeric report fields: {', '.join(numeric)}")
        bad = [r for r in self.rows if m in r and not is_number(r[m])]
        if bad:
            self.fail(f"metric '{m}' is not a number (run {bad[0].get('hash', '?')}: {bad[0][m]!r})")
        lacking = [r for r in self.rows if m not in r]
        if lacking:
            print(f"{TOOL}: warning: plot entry {self.n}: {len(lacking)} run(s) have no '{m}'; left out",
                  file=sys.stderr)
        self.rows = [r for r in self.rows if m in r]

    def values(self, name, rows):
        """The values of axis `name` among `rows`, in the spec's order."""
        present = [v for v in self.axes[name] if any(name in r and same(r[name], v) for r in rows)]
        for r in rows:  # values the spec does not spell the same way, in run order
            if name in r and not any(same(r[name], v) for v in present):
                present.append(r[name])
        return present

    def panel_title(self, p):
        """"C = p", and the axes the entry does not name that have one value in
        this panel but several across panels (e.g. a grid's mechanism)."""
        pname = self.entry["panels"]
        named = {self.entry.get(k) for k in ("x", "lines", "panels", "bars", "groups")}
        named |= set(self.entry.get("where") or {})
        inside = [r for r in self.rows if same(r[pname], p)]
        notes = []
        for a in self.axes:
            if a in named:
                continue
            here = {canon(r[a]) for r in inside if a in r}
            if len(here) == 1 and len(here) < len({canon(r[a]) for r in self.rows if a in r}) \
                    and all(a in r for r in inside):
                notes.append(f"{a} = {label(inside[0][a])}")
        return f"{pname} = {label(p)}" + (f" ({', '.join(notes)})" if notes else "")

    def cells(self, keys):
        """{(canon(value) of each axis in keys): row}; an error if two runs share a cell."""
        cells = {}
        for r in self.rows:
            cells.setdefault(tuple(canon(r[k]) for k in keys), []).append(r)
        for group in cells.values():
            if len(group) > 1:
                varying = [a for a in self.axes if a not in keys
                           and len({repr(g.get(a)) for g in group}) > 1]
                what = ", ".join(varying) or "(no axis: the same run twice?)"
                if len(varying) == 1:
                    says, advice = f"axis {what} still varies", "add it to where: (one value)"
                    advice += " or name it as panels:" if "panels" not in self.entry else ""
                else:
                    says, advice = f"axes {what} still vary", "add them to where: (one value each)"
                    advice += " or name one of them as panels:" if "panels" not in self.entry else ""
                self.fail(f"{says} within one {'point' if self.kind == 'lines' else 'bar'} "
                          f"({len(group)} runs); {advice}")
        return {k: g[0] for k, g in cells.items()}


def panel_values(e):
    if "panels" not in e.entry:
        return None, [None]
    name = e.axis("panels")
    return name, e.values(name, e.rows)


def line_series(e):
    """{"x_numeric": bool, "panels": [(panel value, {line value: [(x, y), ...]})]}
    with points in x order and lines in the spec's order."""
    x = e.axis("x")
    lines = e.axis("lines") if "lines" in e.entry else None
    pname, pvalues = panel_values(e)
    keys = [k for k in (pname, lines, x) if k]
    cells = e.cells(keys)
    xs = e.values(x, e.rows)
    numeric = all(is_number(v) for v in xs)
    if numeric:
        xs = sorted(xs)
    panels = []
    for p in pvalues:
        series = {}
        for lv in (e.values(lines, e.rows) if lines else [None]):
            pts = []
            for xv in xs:
                key = tuple(canon(v) for k, v in ((pname, p), (lines, lv), (x, xv)) if k)
                if key in cells:
                    pts.append((xv, cells[key][e.metric]))
            if pts:
                series[lv] = pts
        panels.append((p, series))
    return {"x_numeric": numeric, "panels": panels}


def bar_series(e):
    """{"groups": [values of the groups axis], "reference": v or None,
        "panels": [(panel value, bars, {group value: [y per bar or None]},
                    {group value: geometric mean or None})]}"""
    bars = e.axis("bars")
    groups = e.axis("groups")
    norm = e.entry.get("normalize")
    gvalues = e.values(groups, e.rows)
    ref = None
    if norm is not None:
        if not isinstance(norm, dict) or len(norm) != 1 or groups not in norm:
            e.fail(f"normalize: must be {{{groups}: value}} (the groups axis and the value to divide by)")
        ref = next((v for v in gvalues if same(v, norm[groups])), None)
        if ref is None:
            e.fail(f"normalize: {groups}: no value {label(norm[groups])}; "
                   f"allowed: {', '.join(map(label, gvalues))}")
    pname, pvalues = panel_values(e)
    cells = e.cells([k for k in (pname, bars, groups) if k])
    panels = []
    for p in pvalues:
        prows = [r for r in e.rows if pname is None or same(r[pname], p)]
        bvalues = e.values(bars, prows)
        ys = {g: [] for g in gvalues}
        for b in bvalues:
            at = {g: cells.get(tuple(canon(v) for k, v in ((pname, p), (bars, b), (groups, g)) if k)) for g in gvalues}
            base = 1.0
            if ref is not None:
                if at[ref] is None:
                    have = [label(g) for g in gvalues if at[g] is not None]
                    inp = f" in panel {pname}={label(p)}" if pname else ""
                    e.fail(f"normalize: no run with {groups}={label(ref)} for {bars}={label(b)}{inp} "
                           f"(it has {groups}: {', '.join(have)})")
                base = at[ref][e.metric]
                if base == 0:
                    e.fail(f"normalize: {e.metric} is 0 for {bars}={label(b)}, {groups}={label(ref)}")
            for g in gvalues:
                ys[g].append(at[g][e.metric] / base if at[g] is not None else None)
        geo = {g: geomean([y for y in ys[g] if y is not None]) for g in gvalues}
        panels.append((p, bvalues, ys, geo))
    return {"groups": gvalues, "reference": ref, "panels": panels}


def geomean(ys):
    if not ys or any(y <= 0 for y in ys):
        return None
    return math.exp(sum(math.log(y) for y in ys) / len(ys))


def series(e):
    return line_series(e) if e.kind == "lines" else bar_series(e)


def draw(e, data, stem):
    """Writes stem.png and stem.svg."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = data["panels"]
    pname = e.entry.get("panels")
    if e.kind == "lines":
        cols = min(3, len(panels))
        rows = (len(panels) + cols - 1) // cols
        fig, axs = plt.subplots(rows, cols, figsize=(4.5 * cols, 3.4 * rows), squeeze=False, sharey=True)
        flat = [a for row in axs for a in row]
        for ax, (p, lines) in zip(flat, panels):
            xs = [] if data["x_numeric"] else e.values(e.entry["x"], e.rows)
            for lv, pts in lines.items():
                px = [x if data["x_numeric"] else xs.index(x) for x, _ in pts]
                name = label(lv) if lv is not None else e.metric
                ax.plot(px, [y for _, y in pts], marker="o", label=name)
            if not data["x_numeric"]:
                ax.set_xticks(range(len(xs)))
                ax.set_xticklabels([label(v) for v in xs], rotation=30, ha="right")
            ax.set_xlabel(e.entry["x"])
            ax.set_ylabel(e.metric)
            if pname:
                ax.set_title(e.panel_title(p), fontsize=10)
            if "lines" in e.entry:
                ax.legend(fontsize=7, title=e.entry["lines"], title_fontsize=7)
        for ax in flat[len(panels):]:
            ax.set_visible(False)
        default_title = f"{e.metric} against {e.entry['x']}"
    else:
        groups, ref = data["groups"], data["reference"]
        most_bars = max(len(b) for _, b, _, _ in panels) + 1  # and the geometric mean
        fig, axs = plt.subplots(len(panels), 1, squeeze=False, figsize=(max(6.0, 0.9 * most_bars + 4), 3.4 * len(panels)))
        width = 0.8 / len(groups)
        # Normalized bars grow from 1 (no change), so a few percent either way shows.
        base = 1.0 if ref is not None else 0.0
        for ax, (p, bars, ys, geo) in zip([row[0] for row in axs], panels):
            for i, g in enumerate(groups):
                vals = [float("nan") if y is None else y for y in ys[g]] + [geo[g] if geo[g] else float("nan")]
                ax.bar([j + (i - (len(groups) - 1) / 2) * width for j in range(len(vals))],
                       [v - base for v in vals], width, bottom=base, label=label(g))
            ax.axhline(base, color="black", linewidth=0.6)
            ax.set_xticks(range(len(bars) + 1))
            ax.set_xticklabels([label(b) for b in bars] + ["geomean"], rotation=30, ha="right")
            ax.axvline(len(bars) - 0.5, color="grey", linewidth=0.6, linestyle="--")
            ax.set_ylabel(f"{e.metric}\nrelative to {label(ref)}" if ref is not None else e.metric)
            if pname:
                ax.set_title(e.panel_title(p), fontsize=10)
            ax.legend(fontsize=7, title=e.entry["groups"], title_fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
        default_title = f"{e.metric} per {e.entry['bars']}" + (
            f", normalized to {e.entry['groups']} = {label(ref)}" if ref is not None else "")
    fig.suptitle(e.entry.get("title") or f"{e.results.name}: {default_title}", fontsize=11)
    fig.tight_layout()
    fig.savefig(stem + ".png", dpi=100)
    fig.savefig(stem + ".svg", metadata={"Date": None})
    plt.close(fig)


def entries(spec_path, results):
    """The spec's `plot:` entries, each checked: [(n, Entry)]."""
    spec = load_spec(spec_path)
    plots = spec.get("plot")
    if plots is None:
        raise SweepError(f"{spec_path}: no plot: entries to draw")
    if not isinstance(plots, list):
        raise SweepError(f"{spec_path}: plot: must be a list of entries")
    axes = spec_axes(spec)
    return [Entry(spec_path, n, p, results, axes) for n, p in enumerate(plots, 1)]


def file_stem(out, e):
    return os.path.join(out, f"{e.n}-{e.metric}")


def ensure_matplotlib():
    """Re-runs the running script (this one or one that imports it) with
    Debian's python3 when this interpreter has no matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        debian = "/usr/bin/python3"
        if os.path.exists(debian) and os.path.realpath(sys.executable) != os.path.realpath(debian):
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(sys.argv[0])] + sys.argv[1:])
        print(f"{TOOL}: error: matplotlib is missing: apt-get install -y python3-matplotlib", file=sys.stderr)
        sys.exit(1)


def main(argv):
    ap = argparse.ArgumentParser(prog="plot_sweep.py", description=__doc__.split("\n")[0])
    ap.add_argument("results", metavar="RESULTS", help="a sweep's results.json or its --out directory")
    ap.add_argument("--spec", help="the spec whose plot: entries to draw (default: <sweep dir>/spec.yaml)")
    ap.add_argument("--out", help="where the plots go (default: <sweep dir>/plots)")
    a = ap.parse_args(argv)
    ensure_matplotlib()
    try:
        results = Results(results_path(a.results))
        spec = a.spec or os.path.join(results.dir, "spec.yaml")
        todo = entries(spec, results)
        checked = [(e, series(e)) for e in todo]  # every entry is checked before anything is drawn
    except SweepError as err:
        print(f"{TOOL}: error: {err}", file=sys.stderr)
        return 1
    if results.skipped:
        what = ", ".join(f"{n} {s}" for s, n in sorted(results.skipped.items()))
        print(f"{TOOL}: warning: {sum(results.skipped.values())} run(s) without a report left out ({what})",
              file=sys.stderr)
    out = a.out or os.path.join(results.dir, "plots")
    os.makedirs(out, exist_ok=True)
    for e, data in checked:
        draw(e, data, file_stem(out, e))
        print(f"{TOOL}: wrote {file_stem(out, e)}.png, .svg", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
