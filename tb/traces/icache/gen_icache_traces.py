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

HERE = os.path.dirname(os.path.abspath(__file__))
PC_STEP = 8  # bytes per instruction (Fermi/Kepler SASS; GPGPU-Sim's convention)

HEADER = """-kernel name = {name}
-kernel id = 1
-grid dim = (1,1,1)
-block dim = (32,1,1)
-shmem = 0
-nregs = 8
-binary version = 35
-cuda stream id = 0
-shmem base_addr = 0x00007f5000000000
-local mem base_addr = 0x00007f5100000000
-nvbit version = 1.5.5
-accelsim tracer version = 5
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = {count}
"""


def line(pc, opcode):
    return f"{pc:04x} ffffffff 0 {opcode} 0 0 0\n"


def write(subdir, name, stream):
    out = os.path.join(HERE, subdir)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
        f.write(HEADER.format(name=name, count=len(stream)))
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
