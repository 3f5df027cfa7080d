#!/usr/bin/env python3
"""Writes the memory-system microbenchmark traces of this folder (Accel-Sim
format, tracer version 5), each a .traceg per kernel and a .g kernel list.
tb/sc/tb_memory_microbench.cpp derives their counts and cycles by hand;
docs/microbenchmarks.md tabulates them. Deterministic: rerunning rewrites the
same files.

  tb/traces/memory/make_traces.py

Coalescing (one warp, 32 lanes unless said): cold_<p> is the load alone;
warm_<p> first loads one word from each of the 32 lines at BASE (stride 128,
filling the L1), then <p>, which depends on that load (it reads its
destination register), so <p> hits the L1 in every line it touches.

L1 MSHRs: l1_mshr = kernel 1 stores 32 whole lines at BASE (16 B per lane,
8 stores: the L2 holds them, valid and dirty, with no DRAM read), then loads
one word of each (its requests queue behind the store data at the L2 ports,
so when kernel 1 ends every port is idle); kernel 2 (cold L1, warm L2, idle
memory) loads one word of each line again (stride 128): 32 L2 hits.

DRAM (fermi-gtx480's address map, hw/mem/dram_address_map.hpp): row_same
loads 8 lines of one DRAM page (one row of one bank of channel 0);
row_alternate loads 8 lines of channel 0 alternating between two rows of
one bank.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from trace_format import kernel_header  # noqa: E402 (tb/traces/trace_format.py)

BASE = 0x7F0000000000  # 4 KB aligned: line k of the warm-up is BASE + 128 k
ALL = 0xFFFFFFFF


def header(name, threads):
    return (kernel_header(f"_Z{len(name)}{name}Pf", ctas=1, threads=threads, shmem=0, nregs=16, binary_version=70) +
            "#BEGIN_TB\n\nthread block = 0,0,0\n")


def kernel(name, insts):
    out = header(name, 32)
    out += "\nwarp = 0\ninsts = %d\n" % len(insts)
    out += "".join(i + "\n" for i in insts)
    return out + "\n#END_TB\n"


def width_suffix(width):
    return {4: "", 8: ".64", 16: ".128"}[width]


def ldg_stride(pc, dst, src, base, stride, width=4, mask=ALL):
    """LDG, address format 1: the k-th active lane reads base + k * stride."""
    return "%04x %08x 1 R%d LDG.E%s.SYS 1 R%d %d 1 0x%012x %d 0 " % (
        pc, mask, dst, width_suffix(width), src, width, base, stride)


def ldg_list(pc, dst, src, addrs, width=4):
    """LDG, address format 0: one address per lane (all 32 or len(addrs) lanes active)."""
    mask = (1 << len(addrs)) - 1
    return "%04x %08x 1 R%d LDG.E%s.SYS 1 R%d %d 0 %s 0 " % (
        pc, mask, dst, width_suffix(width), src, width, " ".join("0x%012x" % a for a in addrs))


def stg_stride(pc, base, stride, width):
    return "%04x %08x 0 STG.E%s.SYS 2 R2 R4 %d 1 0x%012x %d 0 " % (pc, ALL, width_suffix(width), width, base, stride)


def exit_(pc):
    return "%04x ffffffff 0 EXIT 0 0 0 " % pc


# Each coalescing pattern: (width in bytes, lane addresses or (base, stride)).
SCATTERED = [BASE + ((13 * i) % 32) * 128 + (i % 4) * 32 + 4 for i in range(32)]  # 32 lines, one sector each
PATTERNS = {
    "one_lane": (4, None),                    # lane 0 only: the reference, one line
    "coalesced4": (4, (BASE, 4)),
    "coalesced8": (8, (BASE, 8)),
    "coalesced16": (16, (BASE, 16)),
    "stride2": (4, (BASE, 8)),                # every second word
    "stride4": (4, (BASE, 16)),
    "stride32": (4, (BASE, 128)),             # one word per line
    "same_address": (4, (BASE, 0)),
    "misaligned4": (4, (BASE + 4, 4)),        # 128 B from BASE + 4: two lines
    "scattered": (4, SCATTERED),
}


def pattern_load(name, pc, dst, src):
    width, where = PATTERNS[name]
    if where is None:
        return ldg_stride(pc, dst, src, BASE, 4, width, mask=0x1)
    if isinstance(where, list):
        return ldg_list(pc, dst, src, where, width)
    return ldg_stride(pc, dst, src, where[0], where[1], width)


# fermi-gtx480's DRAM address map (hw/mem/dram_address_map.hpp), to place lines.
INTERLEAVE, CHANNELS, ROW_BYTES, BANKS = 256, 6, 2048, 16


def bank_row(page):
    row = page // BANKS
    skew = ((row * 0x9E3779B97F4A7C15) & (2**64 - 1)) >> 40
    return (page % BANKS + skew) % BANKS, row


def channel0_global(local):
    """The global address of channel 0's local address `local`."""
    return (local // INTERLEAVE) * INTERLEAVE * CHANNELS + local % INTERLEAVE


P0 = 0x7E0000000000 // (INTERLEAVE * CHANNELS) // (ROW_BYTES // INTERLEAVE)  # a page of channel 0
P1 = next(p for p in range(P0 + 1, P0 + 4096) if bank_row(p)[0] == bank_row(P0)[0] and bank_row(p)[1] != bank_row(P0)[1])


def page_line(page, j):
    return channel0_global(page * ROW_BYTES + j * INTERLEAVE)


def write(here, name, kernels):
    names = []
    for i, (kname, insts) in enumerate(kernels):
        fname = name + ("" if len(kernels) == 1 else "-%d" % (i + 1)) + ".traceg"
        with open(os.path.join(here, fname), "w") as f:
            f.write(kernel(kname, insts))
        names.append(fname)
    with open(os.path.join(here, name + ".g"), "w") as f:
        f.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for p in PATTERNS:
        write(here, "cold_" + p, [("cold_" + p, [pattern_load(p, 0x00, 5, 2), exit_(0x10)])])
        write(here, "warm_" + p, [("warm_" + p, [ldg_stride(0x00, 4, 2, BASE, 128),
                                                 pattern_load(p, 0x10, 5, 4), exit_(0x20)])])
    write(here, "l1_mshr", [("l2_warmup", [stg_stride(0x10 * s, BASE + 512 * s, 16, 16) for s in range(8)] +
                             [ldg_stride(0x80, 5, 2, BASE, 128), exit_(0x90)]),
                            ("l1_mshr", [ldg_stride(0x00, 5, 2, BASE, 128), exit_(0x10)])])
    write(here, "row_same", [("row_same", [ldg_list(0x00, 5, 2, [page_line(P0, j) for j in range(8)]),
                                           exit_(0x10)])])
    alternate = [page_line(P0 if k % 2 == 0 else P1, k // 2) for k in range(8)]
    write(here, "row_alternate", [("row_alternate", [ldg_list(0x00, 5, 2, alternate), exit_(0x10)])])
