#!/usr/bin/env python3
"""scripts/plot_sweep.py on a synthetic sweep: the series each plot: entry
draws (exact values), its errors (file, entry, allowed values), and the
command line (PNG and SVG written, failed/pending runs counted, exit codes).

  tb/sweep/test_plot_sweep.py [unittest arguments, e.g. LineSeries]
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "plot_sweep.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import plot_sweep  # noqa: E402
from sweep_results import Results, SweepError  # noqa: E402

SPEC = """\
name: synthetic
axes:
  config: fermi-gtx480
  kernel: [hotspot, backprop]
  scheduler: [lrr, gto]
  variant:
    base: {mechanism: baseline}
    rs50: {mechanism: regshare, sharing: 0.5}
    rs90: {mechanism: regshare, sharing: 0.9}
  set:
    frontend.reorder_registers: [false, true]
plot:
"""


def ipc(kernel, scheduler, variant, reorder):
    """A made-up IPC with a distinct value for every run."""
    return ({"hotspot": 10.0, "backprop": 20.0}[kernel] * {"base": 1.0, "rs50": 1.25, "rs90": 1.5}[variant]
            + {"lrr": 0.0, "gto": 1.0}[scheduler] + (0.5 if reorder else 0.0))


def rows():
    out = []
    for k in ("hotspot", "backprop"):
        for s in ("lrr", "gto"):
            for v in ("base", "rs50", "rs90"):
                for reorder in (False, True):
                    out.append({"sweep": "synthetic", "hash": f"{len(out):016x}", "status": "ok", "exit_code": 0,
                                "config": "fermi-gtx480", "kernel": k, "scheduler": s, "variant": v,
                                "set.frontend.reorder_registers": reorder,
                                "ipc": ipc(k, s, v, reorder), "cycles": 1000 + len(out),
                                "counters.l1.misses": 7 * (len(out) + 1), "kernel.name": k})
    return out


class SweepCase(unittest.TestCase):
    """A sweep directory holding results.json and spec.yaml; `plots` are the
    spec's plot: entries (YAML flow mappings)."""
    extra_rows = []

    def make(self, plots, row_list=None, spec=SPEC):
        self.dir = tempfile.mkdtemp(prefix="plot_sweep_")
        self.addCleanup(shutil.rmtree, self.dir)
        self.spec = os.path.join(self.dir, "spec.yaml")
        with open(self.spec, "w") as f:
            f.write(spec + "".join(f"  - {p}\n" for p in plots))
        data = row_list if row_list is not None else rows() + self.extra_rows
        with open(os.path.join(self.dir, "results.json"), "w") as f:
            json.dump({"sweep": "synthetic", "spec": self.spec, "columns": sorted({c for r in data for c in r}),
                       "rows": data}, f)

    def series(self, plot, row_list=None, spec=SPEC):
        self.make([plot], row_list, spec)
        (e,) = plot_sweep.entries(self.spec, Results(os.path.join(self.dir, "results.json")))
        return plot_sweep.series(e)

    def error(self, plot, row_list=None, spec=SPEC):
        with self.assertRaises(SweepError) as cm:
            self.series(plot, row_list, spec)
        msg = str(cm.exception)
        self.assertTrue(msg.startswith(f"{self.spec}: plot entry 1: "), msg)
        return msg


class LineSeries(SweepCase):
    def test_one_line_per_value_in_spec_order(self):
        d = self.series("{metric: ipc, x: kernel, lines: variant, "
                        "where: {scheduler: gto, set.frontend.reorder_registers: false}}")
        self.assertFalse(d["x_numeric"])
        ((panel, lines),) = d["panels"]
        self.assertIsNone(panel)
        self.assertEqual(list(lines), ["base", "rs50", "rs90"])
        self.assertEqual(lines["rs50"], [("hotspot", 13.5), ("backprop", 26.0)])
        self.assertEqual(lines["base"], [("hotspot", 11.0), ("backprop", 21.0)])

    def test_panels_and_a_numeric_x_in_order(self):
        d = self.series("{metric: cycles, x: set.frontend.reorder_registers, lines: scheduler, panels: kernel, "
                        "where: {variant: rs90}}")
        self.assertEqual([p for p, _ in d["panels"]], ["hotspot", "backprop"])
        lines = dict(d["panels"])["backprop"]
        self.assertEqual(list(lines), ["lrr", "gto"])
        # backprop rows start at 12; gto is 6 further, rs90 4, reorder=true 1
        self.assertEqual(lines["gto"], [(False, 1000 + 12 + 6 + 4), (True, 1000 + 12 + 6 + 5)])

    def test_numeric_axis_is_sorted(self):
        data = [r for r in rows() if r["variant"] == "base" and not r["set.frontend.reorder_registers"]]
        for r, c in zip(data, (90, 10, 50, 30)):
            r["ctas"] = c
        d = self.series("{metric: ipc, x: ctas, where: {variant: base}}", data,
                        SPEC.replace("plot:", "  ctas: [90, 10, 50, 30]\nzip: [[kernel, scheduler, ctas]]\nplot:"))
        self.assertTrue(d["x_numeric"])
        ((_, lines),) = d["panels"]
        self.assertEqual(lines[None], [(10, 11.0), (30, 21.0), (50, 20.0), (90, 10.0)])

    def test_axes_still_varying_are_named(self):
        msg = self.error("{metric: ipc, x: kernel, lines: variant}")
        self.assertIn("axes scheduler, set.frontend.reorder_registers still vary within one point", msg)
        self.assertIn("add them to where: (one value each) or name one of them as panels:", msg)
        msg = self.error("{metric: ipc, bars: kernel, groups: variant, panels: scheduler}")
        self.assertIn("axis set.frontend.reorder_registers still varies within one bar (2 runs); "
                      "add it to where: (one value)", msg)
        self.assertNotIn("panels:", msg.split("; ")[-1])

    def test_unknown_axis_lists_the_spec_axes(self):
        msg = self.error("{metric: ipc, x: sharing, lines: variant}")
        self.assertIn("x: unknown axis 'sharing'; the spec's axes: config, kernel, scheduler, variant, "
                      "set.frontend.reorder_registers", msg)

    def test_unknown_metric_suggests_fields(self):
        msg = self.error("{metric: l1.misses, x: kernel, where: {scheduler: lrr}}")
        self.assertIn("unknown metric 'l1.misses'; did you mean counters.l1.misses? "
                      "(the 4 numeric report fields are results.json's columns)", msg)
        self.assertIn("did you mean ipc?", self.error("{metric: ipcc, x: kernel}"))
        self.assertIn("unknown metric 'warp'; numeric report fields: counters.l1.misses, cycles, exit_code, ipc",
                      self.error("{metric: warp, x: kernel}"))

    def test_where_value_not_in_the_spec(self):
        msg = self.error("{metric: ipc, x: kernel, where: {scheduler: owf}}")
        self.assertIn("where: scheduler: no value owf; allowed: lrr, gto", msg)

    def test_runs_of_a_grid_without_the_axis_are_not_plotted(self):
        data = rows() + [{"sweep": "synthetic", "hash": "a" * 16, "status": "ok", "grid": 1, "config": "fermi-gtx480",
                          "kernel": "hotspot", "ipc": 99.0}]
        spec = SPEC.replace("plot:", "grids:\n  - {}\n  - {kernel: hotspot}\nplot:")
        d = self.series("{metric: ipc, x: kernel, lines: variant, "
                        "where: {scheduler: gto, set.frontend.reorder_registers: false}}", data, spec)
        ((_, lines),) = d["panels"]
        self.assertEqual(lines["base"], [("hotspot", 11.0), ("backprop", 21.0)])
        self.assertIn("no finished run has a value for every one of kernel, grid",
                      self.error("{metric: ipc, x: kernel, lines: grid, where: {scheduler: gto}}", data, spec))

    def test_unknown_key_and_kind(self):
        self.assertIn("unknown key 'line'; allowed: metric, x, lines, panels, where, title",
                      self.error("{metric: ipc, x: kernel, line: variant}"))
        self.assertIn("needs exactly one of x:", self.error("{metric: ipc, x: kernel, bars: kernel}"))


class BarSeries(SweepCase):
    def test_normalized_bars_and_geomean(self):
        d = self.series("{metric: ipc, bars: kernel, groups: variant, normalize: {variant: base}, "
                        "where: {scheduler: lrr, set.frontend.reorder_registers: false}}")
        self.assertEqual(d["groups"], ["base", "rs50", "rs90"])
        self.assertEqual(d["reference"], "base")
        ((panel, bars, ys, geo),) = d["panels"]
        self.assertEqual(bars, ["hotspot", "backprop"])
        self.assertEqual(ys["base"], [1.0, 1.0])
        self.assertEqual(ys["rs90"], [1.5, 1.5])
        self.assertAlmostEqual(geo["rs50"], 1.25)
        # with gto the offset makes the two kernels' speed-ups differ
        d = self.series("{metric: ipc, bars: kernel, groups: variant, normalize: {variant: base}, "
                        "where: {scheduler: gto, set.frontend.reorder_registers: false}}")
        ((_, _, ys, geo),) = d["panels"]
        self.assertEqual(ys["rs90"], [16.0 / 11.0, 31.0 / 21.0])
        self.assertAlmostEqual(geo["rs90"], math.sqrt(16.0 / 11.0 * 31.0 / 21.0))

    def test_panels_without_normalize(self):
        d = self.series("{metric: counters.l1.misses, bars: variant, groups: scheduler, panels: kernel, "
                        "where: {set.frontend.reorder_registers: true}}")
        self.assertIsNone(d["reference"])
        panels = {p: (bars, ys) for p, bars, ys, _ in d["panels"]}
        bars, ys = panels["hotspot"]
        self.assertEqual(bars, ["base", "rs50", "rs90"])
        self.assertEqual(ys["gto"], [7 * 8, 7 * 10, 7 * 12])  # rows 7, 9, 11

    def test_missing_reference_names_the_bar_group(self):
        data = [r for r in rows() if not (r["kernel"] == "backprop" and r["variant"] == "base")]
        msg = self.error("{metric: ipc, bars: kernel, groups: variant, normalize: {variant: base}, "
                         "where: {scheduler: lrr, set.frontend.reorder_registers: false}}", data)
        self.assertIn("normalize: no run with variant=base for kernel=backprop (it has variant: rs50, rs90)", msg)

    def test_normalize_value_and_axis_are_checked(self):
        where = "where: {scheduler: lrr, set.frontend.reorder_registers: false}"
        self.assertIn("normalize: variant: no value rs70; allowed: base, rs50, rs90",
                      self.error("{metric: ipc, bars: kernel, groups: variant, normalize: {variant: rs70}, "
                                 + where + "}"))
        self.assertIn("normalize: must be {variant: value}",
                      self.error("{metric: ipc, bars: kernel, groups: variant, normalize: {kernel: hotspot}, "
                                 + where + "}"))


class CommandLine(SweepCase):
    extra_rows = [{"sweep": "synthetic", "hash": "f" * 16, "status": "failed", "exit_code": 4,
                   "kernel": "hotspot", "scheduler": "lrr", "variant": "rs90"},
                  {"sweep": "synthetic", "hash": "e" * 16, "status": "pending", "kernel": "backprop"}]

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)

    def test_png_and_svg_per_entry(self):
        self.make(["{metric: ipc, x: kernel, lines: variant, panels: scheduler, "
                   "where: {set.frontend.reorder_registers: true}}",
                   "{metric: counters.l1.misses, bars: kernel, groups: variant, normalize: {variant: base}, "
                   "panels: scheduler, where: {set.frontend.reorder_registers: false}, title: Misses}"])
        p = self.run_script(self.dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("2 run(s) without a report left out (1 failed, 1 pending)", p.stderr)
        for name in ("1-ipc", "2-counters.l1.misses"):
            for ext in ("png", "svg"):
                path = os.path.join(self.dir, "plots", f"{name}.{ext}")
                self.assertTrue(os.path.getsize(path) > 1000, path)
        with open(os.path.join(self.dir, "plots", "1-ipc.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(self.dir, "plots", "2-counters.l1.misses.svg")) as f:
            self.assertIn("Misses", f.read())

    def test_explicit_spec_and_out(self):
        self.make(["{metric: ipc, x: kernel, where: {variant: base, scheduler: lrr, "
                   "set.frontend.reorder_registers: false}}"])
        other = os.path.join(self.dir, "elsewhere")
        os.rename(self.spec, self.spec + ".moved")
        p = self.run_script(os.path.join(self.dir, "results.json"), "--spec", self.spec + ".moved", "--out", other)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(other, "1-ipc.svg")))

    def test_bad_entry_exits_1_and_draws_nothing(self):
        self.make(["{metric: ipc, x: kernel, where: {scheduler: lrr, variant: base, "
                   "set.frontend.reorder_registers: true}}", "{metric: ipc, x: nothing}"])
        p = self.run_script(self.dir)
        self.assertEqual(p.returncode, 1)
        self.assertIn(f"plot_sweep: error: {self.spec}: plot entry 2: x: unknown axis 'nothing'", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "plots")))

    def test_usage_and_missing_results(self):
        self.assertEqual(self.run_script().returncode, 2)
        p = self.run_script("/nonexistent/results.json")
        self.assertEqual(p.returncode, 1)
        self.assertIn("/nonexistent/results.json: No such file or directory", p.stderr)


if __name__ == "__main__":
    unittest.main()
