#!/usr/bin/env python3
"""scripts/jatala_misses.py's pieces that need no simulation: the IPC
decomposition multiplies back to the IPC, the grid copies keep every warp's
global chunk, the private-first copies keep the instructions and move only the
accesses they should into the private part, and the VCD reader finds signals
by scope.

  tb/sweep/test_jatala_misses.py
"""
import os
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import jatala_misses as jm  # noqa: E402


def instructions(p):
    return sum(ph["instructions"] * ph.get("repeat", 1) for ph in p["phases"])


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


class Decomposition(unittest.TestCase):
    def report(self, cycles, active, warps, waits, instructions, sms=2):
        return {"cycles": cycles, "active_cycles": active, "avg_resident_warps_per_sm": warps,
                "thread_instructions": instructions, "thread_ipc": instructions / cycles,
                "per_sm": [{}] * sms, "mechanism_stats": {"lock_wait_cycles": waits}}

    def test_factors_multiply_back_to_the_ipc(self):
        r = self.report(cycles=1000, active=1800, warps=12.0, waits=3600, instructions=640000)
        f = jm.factors(r)
        self.assertAlmostEqual(f["busy"], 0.9)
        self.assertAlmostEqual(f["working"], 10.0)   # 12 resident, 2 waiting per active SM
        self.assertAlmostEqual(f["waiting"], 2.0)
        self.assertAlmostEqual(2 * f["busy"] * f["working"] * f["rate"], r["thread_ipc"])

    def test_a_run_without_the_mechanism_has_no_waiting_warps(self):
        r = self.report(cycles=100, active=200, warps=8.0, waits=0, instructions=3200)
        del r["mechanism_stats"]
        self.assertEqual(jm.factors(r)["waiting"], 0.0)


class ProfileCopies(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.rn = jm.Runner("unused", self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_grid_copies_keep_each_warps_chunk(self):
        for kernel in ("btree", "hotspot", "mri-q", "stencil"):
            original = load(os.path.join(jm.KERNELS, kernel + ".yaml"))
            for scale in (0.9, 1.07, 4.0):
                copy = load(jm.grid_profile(self.rn, kernel, scale))
                self.assertEqual(copy["grid_ctas"], round(original["grid_ctas"] * scale))
                self.assertEqual(jm.chunk_lines(copy), jm.chunk_lines(original), f"{kernel} x{scale}")

    def test_a_strided_profile_keeps_its_footprint(self):
        original = load(os.path.join(jm.KERNELS, "mum.yaml"))
        copy = load(jm.grid_profile(self.rn, "mum", 4.0))
        self.assertEqual(copy["global"]["footprint_bytes"], original["global"]["footprint_bytes"])

    def test_private_copies_move_only_the_tile_accesses_before_the_loop(self):
        for kernel, level in jm.PRIVATE_POINTS:
            original = load(os.path.join(jm.KERNELS, kernel + ".yaml"))
            for kind in ("fill", "loop"):
                copy = load(jm.private_profile(self.rn, kernel, level, kind))
                self.assertEqual(instructions(copy), instructions(original), f"{kernel} {kind}")
                names = [ph["name"] for ph in copy["phases"]]
                main = max((ph for ph in original["phases"] if "shared" in ph),
                           key=lambda ph: ph["instructions"] * ph.get("repeat", 1))["name"]
                first_main = names.index(main + "_private" if kind == "loop" else main)
                for ph in copy["phases"][:first_main + (1 if kind == "loop" else 0)]:
                    if "shared" in ph:
                        self.assertLess(ph["shared"]["range"][1], 1 - level, f"{kernel} {kind} {ph['name']}")
                for ph in copy["phases"][first_main + (1 if kind == "loop" else 0):]:
                    before = next(o for o in original["phases"] if o["name"] == ph["name"])
                    self.assertEqual(ph.get("shared"), before.get("shared"), f"{kernel} {kind} {ph['name']}")


class Waveform(unittest.TestCase):
    VCD = """$comment one core cycle is 714 ps: cycle c is at time c * 714 $end
$scope module gpu $end
$scope module sm0 $end
$var wire 32 ! active_warps [31:0] $end
$scope module lock_array $end
$var wire 32 R waiting_warps [31:0] $end
$upscope $end
$upscope $end
$scope module sm1 $end
$var wire 32 # active_warps [31:0] $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
b110000 !
b0 R
b1 #
#7140
b10000 R
b0 #
#14280
b0 !
b0 R
"""

    def test_signals_are_read_by_scope_and_cycle(self):
        with tempfile.NamedTemporaryFile("w", suffix=".vcd", delete=False) as f:
            f.write(self.VCD)
        try:
            series = jm.vcd_series(f.name, ["active_warps", "lock_array.waiting_warps"])
            self.assertEqual(series, [(0, {"active_warps": 48, "lock_array.waiting_warps": 0}),
                                      (10, {"active_warps": 48, "lock_array.waiting_warps": 16}),
                                      (20, {"active_warps": 0, "lock_array.waiting_warps": 0})])
            with self.assertRaises(SystemExit):
                jm.vcd_series(f.name, ["lock_array.no_such_signal"])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
