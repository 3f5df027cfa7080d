#!/usr/bin/env python3
"""scripts/expars_reproduction.py reads the EXPARS sweep's results.json: a
results.json made (in the sweep's format) from the committed
docs/expars-reproduction-data.json must give that data back exactly, and the
generated section of docs/expars-reproduction.md; missing runs are named; the
overall utilization weighs the register file and the scratchpad by their
bytes; deadlocked runs are marked and left out of the averages.

  tb/sweep/test_expars_reproduction.py
"""
import copy
import json
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expars_reproduction as er  # noqa: E402
import sweep_fixtures  # noqa: E402
from sweep_results import SweepError, load_spec  # noqa: E402

with open(er.DATA) as f:
    DATA = json.load(f)
SPEC = load_spec(er.SPEC)


def row(data, kernel, run, **axes):
    """One results.json row holding `run`'s numbers."""
    r = {"sweep": "expars-reproduction", "status": "deadlock" if run["deadlock"] else "ok",
         "exit_code": 3 if run["deadlock"] else 0, "config": data["config"], "kernel": kernel,
         "ctas": data["ctas"][kernel], **axes,
         **{col: str(data["capacity"][key]) for key, col in er.CAPACITY_COLUMNS.items()},
         **{col: run[key] for key, col in er.RUN_COLUMNS.items()},
         **{f"mechanism_stats.{s}": n for s, n in run["mechanism_stats"].items()}}
    return r


def rows(data=DATA):
    """The rows `smshare sweep` collects for the spec, holding `data`'s numbers."""
    out = []
    for k in er.TABLE3:
        for s in er.SCHEDULERS:
            for m in er.MECHANISMS:
                out.append(row(data, k, data["runs"][k][s][m], grid=0, mechanism=m, scheduler=s))
        for v in er.DIAGNOSTICS:
            out.append(row(data, k, data["diagnostics"][k][v], grid=1, scheduler=er.DIAGNOSTIC_SCHEDULER,
                           variant=v, mechanism="expars" if v.startswith("expars") else "baseline"))
    for i, r in enumerate(out):
        r["hash"] = f"{i:016x}"
    return out


def results(row_list):
    return sweep_fixtures.results("expars-reproduction", er.SPEC, row_list)


class ReadResults(unittest.TestCase):
    def test_round_trip_gives_the_committed_data_and_section(self):
        data = er.reproduction_data(results(rows()), SPEC)
        with open(er.DATA) as f:
            self.assertEqual(json.dumps(data, indent=1, sort_keys=True), f.read())
        with open(er.DOC) as f:
            doc = f.read()
        generated, _ = er.section(data)
        begin, end = er.markers()
        self.assertIn(begin + generated + end, doc)

    def test_missing_runs_are_named(self):
        data = [r for r in rows() if not (r["kernel"] == "btree" and r.get("variant") == "expars-oc-8kb")]
        (failed,) = [r for r in data if r["kernel"] == "lbm" and r.get("scheduler") == "two-level"
                     and r.get("mechanism") == "expars" and "variant" not in r]
        failed["status"] = "failed"
        with self.assertRaises(SweepError) as cm:
            er.reproduction_data(results(data), SPEC)
        self.assertIn("no finished run for lbm expars two-level, btree expars-oc-8kb", str(cm.exception))


class Averages(unittest.TestCase):
    """Synthetic numbers: every kernel the same, so each average is one kernel's."""

    def uniform(self):
        data = copy.deepcopy(DATA)
        for k in er.TABLE3:
            for s in er.SCHEDULERS:
                b, e = data["runs"][k][s]["baseline"], data["runs"][k][s]["expars"]
                b.update(ipc=10.0, energy_j=2.0, rf_utilization=0.8821, spm_utilization=0.0558, deadlock=False)
                e.update(ipc=11.0, energy_j=1.5, rf_utilization=0.9985, spm_utilization=0.5378, deadlock=False)
        return data

    def test_overall_utilization_is_by_bytes_as_the_papers_numbers(self):
        a = er.averages(self.uniform())
        # 128 KB of registers and 48 KB of scratchpad on the GTX480: the
        # paper's 88.21 % and 5.58 % give its 65.68 %, 99.85 % and 53.78 % its
        # 87.28 % (to the paper's rounding).
        self.assertEqual(DATA["capacity"], {"registers": 32768, "scratchpad_bytes": 49152})
        self.assertAlmostEqual(a["overall_utilization/baseline"], 65.68, delta=0.01)
        self.assertAlmostEqual(a["overall_utilization/expars"], 87.28, delta=0.01)
        self.assertAlmostEqual(a["ipc_gain/ltlws-gto"], 10.0)
        self.assertAlmostEqual(a["energy_change/lrr"], -25.0)

    def test_a_deadlocked_kernel_is_marked_and_left_out_of_the_average(self):
        data = self.uniform()
        data["runs"]["btree"]["lrr"]["expars"].update(ipc=1.0, deadlock=True)
        a = er.averages(data)
        self.assertAlmostEqual(a["ipc_gain/lrr"], 10.0)
        generated, _ = er.section(data)
        self.assertIn("| IPC over the baseline, LRR (13 of 14 kernels: the others deadlocked) | +10.0 % | +12.0 % |",
                      generated)
        self.assertIn("| -90.0 % (deadlock) | +10.0 % |", generated)


if __name__ == "__main__":
    unittest.main()
