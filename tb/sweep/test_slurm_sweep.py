#!/usr/bin/env python3
"""`smshare sweep --backend slurm` against a real one-node Slurm cluster.

usage: test_slurm_sweep.py SMSHARE

Starts a cluster with tb/sweep/slurm_cluster.sh in a temporary directory
(stopped again however the test ends), then runs one small sweep three ways:
  A  --backend slurm, waiting for the job array;
  B  --backend local (the reference);
  C  --backend slurm --no-wait, then `--collect` once the array has left squeue.
and checks that A and C hold the same runs as B with the same reports (host
timing aside), every run ok and executed by Slurm, and a 4-row results.csv; and that
submitting a finished sweep again submits nothing. Then
  D  the spec with host_threads: 2, --backend slurm: the same runs and reports
     as B, its job array asking for 2 CPUs per task.

Exit status: 0 pass, 1 fail, 77 skipped (Slurm cannot start on this machine:
not root, or its packages cannot be installed; CTest SKIP_RETURN_CODE 77).
"""

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "cli"))
from cli_tests import HOST_FIELDS, first_difference  # noqa: E402  (one list of host fields)

CLUSTER = HERE / "slurm_cluster.sh"
SKIP = 77
# 2 kernels x 2 mechanisms of a 2-SM GTX480, 8 CTAs each: 0.05-0.12 s of host
# time per run (measured with smshare run), so Slurm's scheduling dominates.
SPEC = """\
name: slurm-backend
description: tb/sweep/test_slurm_sweep.py, the same runs on Slurm and locally
axes:
  config: fermi-gtx480
  kernel: [hotspot, sgemm]
  mechanism: [baseline, regshare]
  ctas: 8
  set:
    gpu.num_sms: 2
"""
RUNS = 4
SQUEUE_TIMEOUT_S = 300
# Below the CTest TIMEOUT (600 s, tb/sweep/CMakeLists.txt): CTest (before 3.27,
# so Debian 12's) ends a test with SIGKILL, which would leave the daemons running.
DEADLINE_S = 540


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def _raise(exception):
    raise exception


def run(args, env, timeout=SQUEUE_TIMEOUT_S, **kw):
    t0 = time.monotonic()
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout, **kw)
    return proc, time.monotonic() - t0


def describe(args, proc):
    return f"command: {' '.join(map(str, args))}\nexit code: {proc.returncode}\n" \
           f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"


def sweep(smshare, spec, out, env, *flags):
    args = [smshare, "sweep", str(spec), "--out", str(out), *flags]
    proc, seconds = run(args, env, cwd=spec.parent)
    check(proc.returncode == 0, f"sweep failed\n{describe(args, proc)}")
    return seconds


def run_hashes(out):
    runs = out / "runs"
    check(runs.is_dir(), f"{runs} does not exist")
    return {p.name for p in runs.iterdir() if p.is_dir()}


def without_host_fields(report):
    return {k: v for k, v in report.items() if k not in HOST_FIELDS}


def check_like_local(out, local, backend):
    """`out` holds local's runs, each with an equal report, ok, run by `backend`."""
    hashes = run_hashes(out)
    check(hashes == run_hashes(local),
          f"{out} and {local} hold different runs: {sorted(hashes)} vs {sorted(run_hashes(local))}")
    check(len(hashes) == RUNS, f"{out}/runs holds {len(hashes)} runs, the spec has {RUNS}")
    for h in sorted(hashes):
        report = json.loads((out / "runs" / h / "report.json").read_text())
        reference = json.loads((local / "runs" / h / "report.json").read_text())
        d = first_difference(without_host_fields(report), without_host_fields(reference))
        check(d is None, f"run {h}: its {backend} report differs from the local one at {d}")
        status = json.loads((out / "runs" / h / "status.json").read_text())
        check(status.get("status") == "ok" and status.get("backend") == backend,
              f"run {h}: status.json is {status}, expected status ok and backend {backend}")
    rows = results_rows(out)
    check(len(rows) == RUNS, f"{out}/results.csv has {len(rows)} rows, expected {RUNS}")
    check({r["hash"] for r in rows} == hashes, f"{out}/results.csv names other runs than {out}/runs")
    bad = [(r["hash"], r["status"]) for r in rows if r["status"] != "ok"]
    check(not bad, f"{out}/results.csv has runs that are not ok: {bad}")


def results_rows(out):
    with open(out / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def submitted_job_id(out):
    ids = sorted((out / "slurm").glob("*/job_id"))
    check(len(ids) == 1, f"expected one submission under {out}/slurm, found {[str(p) for p in ids]}")
    job = ids[0].read_text().strip()
    check(job.isdigit(), f"{ids[0]} holds {job!r}, not a Slurm job id")
    return job


def wait_until_gone(job, env):
    deadline = time.monotonic() + SQUEUE_TIMEOUT_S
    while time.monotonic() < deadline:
        args = ["squeue", "-h", "-j", job]
        proc, _ = run(args, env, timeout=30)
        if proc.returncode == 0 and not proc.stdout.strip():
            return
        # squeue refuses the id once the controller has forgotten the job.
        if proc.returncode != 0:
            check("Invalid job id" in proc.stderr, f"squeue failed\n{describe(args, proc)}")
            return
        time.sleep(0.5)
    raise Failure(f"job {job} still in squeue after {SQUEUE_TIMEOUT_S} s")


def test(smshare, tmp, cluster):
    times = {}
    t0 = time.monotonic()
    proc = subprocess.run(["bash", str(CLUSTER), "start", str(cluster)], capture_output=True, text=True)
    times["cluster start"] = time.monotonic() - t0
    sys.stderr.write(proc.stderr)
    if proc.returncode == SKIP:
        print(f"SKIP sweep_slurm_backend: {proc.stderr.strip().splitlines()[-1]}")
        return SKIP
    check(proc.returncode == 0, f"slurm_cluster.sh start failed (exit {proc.returncode})")
    env = dict(os.environ, SLURM_CONF=str(cluster / "slurm.conf"))

    spec = tmp / "spec.yaml"
    spec.write_text(SPEC)
    times["slurm sweep (wait)"] = sweep(smshare, spec, tmp / "A", env, "--backend", "slurm")
    times["local sweep"] = sweep(smshare, spec, tmp / "B", env, "--jobs", "2")
    check_like_local(tmp / "A", tmp / "B", "slurm")
    # Done runs are never redone: a second submission finds nothing to submit.
    sweep(smshare, spec, tmp / "A", env, "--backend", "slurm")
    submissions = sorted(p.name for p in (tmp / "A" / "slurm").iterdir())
    check(submissions == ["1"], f"re-running a finished sweep submitted again: {tmp / 'A' / 'slurm'} holds {submissions}")

    t0 = time.monotonic()
    sweep(smshare, spec, tmp / "C", env, "--backend", "slurm", "--no-wait")
    statuses = [r["status"] for r in results_rows(tmp / "C")]
    check(len(statuses) == RUNS and set(statuses) <= {"pending", "ok"},
          f"right after --no-wait, {tmp / 'C'}/results.csv should list {RUNS} pending or ok runs: {statuses}")
    wait_until_gone(submitted_job_id(tmp / "C"), env)
    sweep(smshare, spec, tmp / "C", env, "--collect")
    times["slurm sweep (--no-wait, --collect)"] = time.monotonic() - t0
    check_like_local(tmp / "C", tmp / "B", "slurm")

    # host_threads: 2: each task asks Slurm for 2 CPUs, and the runs are the
    # local ones (same hashes, same reports).
    spec2 = tmp / "spec2.yaml"
    spec2.write_text(SPEC + "host_threads: 2\n")
    times["slurm sweep, 2 host threads"] = sweep(smshare, spec2, tmp / "D", env, "--backend", "slurm")
    check_like_local(tmp / "D", tmp / "B", "slurm")
    args = ["scontrol", "show", "job", submitted_job_id(tmp / "D")]
    proc, _ = run(args, env, timeout=30)
    check(proc.returncode == 0 and "CPUs/Task=2" in proc.stdout,
          f"the job array did not ask for 2 CPUs per task\n{describe(args, proc)}")

    t0 = time.monotonic()
    subprocess.run(["bash", str(CLUSTER), "stop", str(cluster)], check=True)
    times["cluster stop"] = time.monotonic() - t0
    print("PASS sweep_slurm_backend: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    return 0


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    smshare = str(Path(argv[1]).resolve())
    # munged's socket lives in the cluster directory: keep its path well under
    # the 108 bytes a Unix socket's path may have, whatever TMPDIR is.
    base = tempfile.gettempdir() if len(tempfile.gettempdir()) < 40 else "/tmp"
    tmp = Path(tempfile.mkdtemp(prefix="smshare-slurm-", dir=base))
    cluster = tmp / "cluster"
    # Whatever ends the test, leave through `finally`, which stops the daemons.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("test_slurm_sweep.py: terminated"))
    signal.signal(signal.SIGALRM, lambda *_: _raise(Failure(f"the test took more than {DEADLINE_S} s")))
    signal.alarm(DEADLINE_S)
    try:
        return test(smshare, tmp, cluster)
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL sweep_slurm_backend: {e}", file=sys.stderr)
        for log in sorted((cluster / "log").glob("*.log")):
            print(f"---- last lines of {log}", file=sys.stderr)
            print("\n".join(log.read_text(errors="replace").splitlines()[-15:]), file=sys.stderr)
        return 1
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(cluster)])
        subprocess.run(["rm", "-rf", str(tmp)])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
