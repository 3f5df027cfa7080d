#!/usr/bin/env python3
"""Write the pipeline microbenchmark traces (Accel-Sim format).

One CTA whose cycles depend only on the SM pipeline: dependent chains of each
unit, independent work, register bank conflicts, barriers and dual issue. The
cycles of each, under GPGPU-Sim's rules and under smshare's compact timing,
are derived by hand in tb/sc/tb_pipeline_registers.cpp (and tabled in
docs/architecture.md, "Pipeline registers").

Registers: warp slot w reads register r from bank (r + w) % 16, so the
chains below read their sources from distinct banks unless a conflict is the
point; R255 is RZ (no register).

  int_chain/    1 warp: 32 x IADD3 R1 = R1 + R2 + R3, EXIT
  fp_chain/     1 warp: 32 x FFMA  R1 = R1 * R2 + R3, EXIT
  sfu_chain/    1 warp: 16 x MUFU.EX2 R1 = f(R1), EXIT
  lds_chain/    1 warp: 16 x LDS R1 = [R1] (stride 4 B: no scratchpad conflict), EXIT
  conflict2/    1 warp: 32 x IADD3 R1 = R1 + R17 (R1, R17 in one bank), EXIT
  conflict3/    1 warp: 32 x IADD3 R1 = R1 + R17 + R33 (three in one bank), EXIT
  independent/  2 warps: 64 x IADD3 Rd = R2 (Rd = R4..R16 in turn: no hazard), EXIT
  dual/         1 warp: 64 x IADD3 Rd = R2 or R3 in turn (Rd = R4..R33 but R18, R19), EXIT
  barrier/      2 warps, 16 rounds: warp 0 runs IADD3 R1 = R1 + R2 twice, then
                BAR; warp 1 runs BAR, then IADD3 R1 = R1 + R2; then EXIT

Deterministic; rerun after changing it:  tb/traces/pipeline/gen_pipeline_traces.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from trace_format import kernel_header  # noqa: E402 (tb/traces/trace_format.py)

HERE = os.path.dirname(os.path.abspath(__file__))
PC_STEP = 16  # bytes per instruction (Volta+ SASS; any constant step works)
RZ = "R255"


def alu(opcode, dst, srcs):
    return f"1 {dst} {opcode} {len(srcs)} {' '.join(srcs)} 0"


def lds(dst, addr_reg):
    # Address format 1: base 0, stride 4: lane i reads word i, one per bank.
    return f"1 {dst} LDS {1} {addr_reg} 4 1 0x0 4"


def warp_lines(body):
    body = body + ["0 EXIT 0 0"]
    return [f"{i * PC_STEP:04x} ffffffff {text} 0" for i, text in enumerate(body)]


def write(subdir, name, warps, shmem=0):
    out = os.path.join(HERE, subdir)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
        f.write(kernel_header(name, ctas=1, threads=32 * len(warps), shmem=shmem, nregs=64, binary_version=70))
        f.write("#BEGIN_TB\n\nthread block = 0,0,0\n")
        for w, body in enumerate(warps):
            lines = warp_lines(body)
            f.write(f"\nwarp = {w}\ninsts = {len(lines)}\n")
            f.writelines(line + "\n" for line in lines)
        f.write("\n#END_TB\n")
    with open(os.path.join(out, "kernelslist.g"), "w") as f:
        f.write("kernel-1.traceg\n")


def independent(n, dsts, srcs=("R2",)):
    return [alu("IADD3", f"R{dsts[i % len(dsts)]}", [srcs[i % len(srcs)], RZ, RZ]) for i in range(n)]


if __name__ == "__main__":
    write("int_chain", "int_chain", [[alu("IADD3", "R1", ["R1", "R2", "R3"])] * 32])
    write("fp_chain", "fp_chain", [[alu("FFMA", "R1", ["R1", "R2", "R3"])] * 32])
    write("sfu_chain", "sfu_chain", [[alu("MUFU.EX2", "R1", ["R1"])] * 16])
    write("lds_chain", "lds_chain", [[lds("R1", "R1")] * 16], shmem=4096)
    write("conflict2", "conflict2", [[alu("IADD3", "R1", ["R1", "R17", RZ])] * 32])
    write("conflict3", "conflict3", [[alu("IADD3", "R1", ["R1", "R17", "R33"])] * 32])
    # Warp 0 writes banks 4..15, 0 and warp 1 banks 5..15, 0, 1: never the
    # banks they read (2 and 3).
    write("independent", "independent", [independent(64, range(4, 17))] * 2)
    # Two instructions a cycle read banks 2 and 3 and write two consecutive
    # registers (different banks, neither 2 nor 3).
    write("dual", "dual", [independent(64, [r for r in range(4, 34) if r not in (18, 19)], ("R2", "R3"))])
    round0 = [alu("IADD3", "R1", ["R1", "R2", RZ])] * 2 + ["0 BAR 0 0"]
    round1 = ["0 BAR 0 0", alu("IADD3", "R1", ["R1", "R2", RZ])]
    write("barrier", "barrier", [round0 * 16, round1 * 16])
