#!/usr/bin/env python3
"""scripts/zorua_reproduction.py reads the zorua-cliffs sweep's results.json:
the performance range is (max - min) / min of an application's cycles over
its points, the best point and mean are the fastest run and the mean cycles;
deadlocked runs are left out; a mechanism without runs says "not run"; the
spec run leaves out the mechanisms smshare does not simulate, keeping
everything else; a work that varies across points is warned about.

  tb/sweep/test_zorua_reproduction.py
"""
import contextlib
import io
import os
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_fixtures  # noqa: E402
import zorua_reproduction as zr  # noqa: E402

WORK = 1_000_000


def row(kernel, mechanism, cycles, status="ok", work=WORK, **point):
    return {"sweep": "zorua-cliffs", "status": status, "exit_code": 3 if status == "deadlock" else 0,
            "config": "fermi-gtx480", "scheduler": "gto", "kernel": kernel, "mechanism": mechanism,
            "cycles": cycles, "warp_instructions": work, **point}


def runs(row_list):
    for i, r in enumerate(row_list):
        r["hash"] = f"{i:016x}"
    return zr.points(sweep_fixtures.results("zorua-cliffs", zr.SPEC, row_list))


# DCT at three points: the range is (300 - 100) / 100.
DCT = [row("dct", "baseline", 300, regs_per_thread=20, threads_per_cta=64),
       row("dct", "baseline", 100, regs_per_thread=28, threads_per_cta=256),
       row("dct", "baseline", 200, regs_per_thread=40, threads_per_cta=512)]


class Summary(unittest.TestCase):
    def test_range_best_point_and_mean(self):
        s = zr.summary(runs(DCT)["dct"]["baseline"])
        self.assertAlmostEqual(s["range"], 200.0)
        self.assertEqual(s["best_point"], (("regs_per_thread", 28), ("threads_per_cta", 256)))
        self.assertEqual(zr.point_label(s["best_point"]), "R28 T256")
        self.assertEqual(s["best"], 100)
        self.assertAlmostEqual(s["mean"], 200.0)

    def test_deadlocked_runs_are_left_out(self):
        rows = DCT + [row("dct", "baseline", 10, status="deadlock", regs_per_thread=24, threads_per_cta=64)]
        s = zr.summary(runs(rows)["dct"]["baseline"])
        self.assertEqual((s["best"], s["points"], s["deadlocks"]), (100, 3, 1))

    def test_scratchpad_points_are_named_by_threads_and_bytes(self):
        r = runs([row("nqueens", "baseline", 5, threads_per_cta=96, smem_per_cta=15744)])
        self.assertEqual(zr.point_label(zr.summary(r["nqueens"]["baseline"])["best_point"]), "T96 S15744")


class Warps(unittest.TestCase):
    def test_zorua_schedulable_warps_against_baseline_resident_warps(self):
        # Zorua: 3,000 schedulable warp-cycles over 100 cycles on 2 SMs = 15 a SM; Baseline: 10 resident.
        rows = [row("dct", "baseline", 100, regs_per_thread=20, threads_per_cta=64, avg_resident_warps_per_sm=10),
                row("dct", "zorua", 100, regs_per_thread=20, threads_per_cta=64,
                    **{"config.params.gpu.num_sms": "2", "mechanism_stats.schedulable_warp_cycles": 3000})]
        for i, r in enumerate(rows):
            r["hash"] = f"{i:016x}"
        w = zr.warps(sweep_fixtures.results("zorua-cliffs", zr.SPEC, rows))
        self.assertEqual((w["dct"]["baseline"], w["dct"]["zorua"]), ([10], [15.0]))
        (dct,) = [line for line in zr.warps_table(w).splitlines() if line.startswith("| dct (DCT)")]
        self.assertTrue(dct.endswith("| 10.0 | 15.0 | +50.0 % |"), dct)


class Table(unittest.TestCase):
    def test_zorua_not_run_says_so(self):
        text = zr.table(runs(DCT))
        (dct,) = [line for line in text.splitlines() if line.startswith("| dct (DCT)")]
        self.assertEqual(dct.count("not run"), 4)  # Zorua's three columns and the comparison
        self.assertIn("200.0 %", dct)
        self.assertIn("R28 T256 (100)", dct)

    def test_zorua_best_over_baseline_best(self):
        rows = DCT + [row("dct", "zorua", 80, regs_per_thread=20, threads_per_cta=64),
                      row("dct", "zorua", 120, regs_per_thread=28, threads_per_cta=256)]
        (dct,) = [line for line in zr.table(runs(rows)).splitlines() if line.startswith("| dct (DCT)")]
        self.assertIn("50.0 %", dct)  # Zorua's range: (120 - 80) / 80
        self.assertTrue(dct.endswith("| +25.0 % |"), dct)  # 100 / 80 - 1


class SpecToRun(unittest.TestCase):
    def setUp(self):
        self.saved = zr.simulated_mechanisms

    def tearDown(self):
        zr.simulated_mechanisms = self.saved

    def test_unsimulated_mechanisms_are_left_out_of_a_copy(self):
        zr.simulated_mechanisms = lambda smshare: {"baseline", "regshare"}
        full = yaml.safe_load(open(zr.SPEC))
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(io.StringIO()) as err:
            path = zr.runnable_spec("smshare", tmp)
            copy = yaml.safe_load(open(path))
        self.assertNotEqual(path, zr.SPEC)
        self.assertEqual(copy["axes"]["mechanism"], ["baseline"])
        self.assertIn("left out: zorua", err.getvalue())
        del full["axes"]["mechanism"], copy["axes"]["mechanism"]
        self.assertEqual(copy, full)

    def test_the_spec_itself_when_all_are_simulated(self):
        zr.simulated_mechanisms = lambda smshare: {"baseline", "zorua"}
        self.assertEqual(zr.runnable_spec("smshare", "/nonexistent"), zr.SPEC)


class ConstantWork(unittest.TestCase):
    def test_varying_work_is_warned_about(self):
        rows = DCT + [row("dct", "baseline", 100, work=2 * WORK, regs_per_thread=20, threads_per_cta=128)]
        with contextlib.redirect_stderr(io.StringIO()) as err:
            zr.check_constant_work(runs(rows))
        self.assertIn("dct: warp instructions vary from 1,000,000 to 2,000,000", err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()) as err:
            zr.check_constant_work(runs(DCT))
        self.assertEqual(err.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
