#!/usr/bin/env python3
"""Write the instruction-cache microbenchmark traces (Accel-Sim format).

One CTA of one warp runs code whose only cost is fetching it: NOPs (no
registers, no memory), 8 bytes apart as Fermi/Kepler SASS is, so the code's
size alone decides the instruction cache's footprint. Each kernelslist.g
launches the kernel twice: the first launch brings the code into L2, the
second (with a cold instruction cache again: each kernel starts cold) misses
only to L2, whose latency is a constant, so its cycles are derived by hand
in tb/sc/tb_icache.cpp.

  straight/  2048 distinct instructions, no loop: 2047 NOPs, then EXIT.
  loop/      a 256-instruction body (255 NOPs and the backward BRA) run
             8 times, then a NOP and EXIT after it (PC 0x800, 0x808).

Deterministic; rerun after changing it:  tb/traces/icache/gen_icache_traces.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from trace_format import kernel_header  # noqa: E402 (tb/traces/trace_format.py)

HERE = os.path.dirname(os.path.abspath(__file__))
PC_STEP = 8  # bytes per instruction (Fermi/Kepler SASS; GPGPU-Sim's convention)

def header(name, count):
    return (kernel_header(name, ctas=1, threads=32, shmem=0, nregs=8, binary_version=35) +
            f"#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = {count}\n")


def line(pc, opcode):
    return f"{pc:04x} ffffffff 0 {opcode} 0 0 0\n"


def write(subdir, name, stream):
    out = os.path.join(HERE, subdir)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
        f.write(header(name, len(stream)))
        for pc, opcode in stream:
            f.write(line(pc, opcode))
        f.write("\n#END_TB\n")
    with open(os.path.join(out, "kernelslist.g"), "w") as f:
        f.write("kernel-1.traceg\nkernel-1.traceg\n")


def straight():
    n = 2048
    return [(i * PC_STEP, "EXIT" if i == n - 1 else "NOP") for i in range(n)]


def loop():
    body, iterations = 256, 8
    stream = []
    for _ in range(iterations):
        stream += [(i * PC_STEP, "BRA" if i == body - 1 else "NOP") for i in range(body)]
    stream += [(body * PC_STEP, "NOP"), ((body + 1) * PC_STEP, "EXIT")]
    return stream


if __name__ == "__main__":
    write("straight", "icache_straight_line_2048", straight())
    write("loop", "icache_loop_256x8", loop())
