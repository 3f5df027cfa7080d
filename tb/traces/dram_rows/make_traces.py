#!/usr/bin/env python3
"""Writes the DRAM row microbenchmark of this folder (Accel-Sim format,
tracer version 5): one warp whose lane 0 loads one word from each of four
128 B lines W, A, B, C that all live in one bank of one DRAM channel of the
Fermi GTX480 configuration (6 channels, 256 B interleave, 16 banks, 2 KB
rows): W, A and C in one row, B in another. The loads are independent, so
their line requests leave the SM one cycle apart, in that order, and reach
the channel while the bank is still opening W's row: FCFS serves A, B, C
(two row switches), FR-FCFS A, C, B (one). tb/sc/tb_dram_rows.cpp derives
both runs' cycles by hand. Deterministic: rerunning rewrites the same files.

  tb/traces/dram_rows/make_traces.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from trace_format import kernel_header  # noqa: E402 (tb/traces/trace_format.py)

BASE = 0x7F0000000000  # 128-byte aligned; W
# hw/mem/dram_address_map.hpp with the fermi-gtx480 DRAM keys.
CHANNELS, INTERLEAVE, ROW_BYTES, BANKS = 6, 256, 2048, 16


def where(addr):
    """(channel, bank, row) of a global address."""
    channel = addr // INTERLEAVE % CHANNELS
    local = addr // (INTERLEAVE * CHANNELS) * INTERLEAVE + addr % INTERLEAVE
    page = local // ROW_BYTES
    row = page // BANKS
    skew = (row * 0x9E3779B97F4A7C15 % 2**64) >> 40
    return channel, (page % BANKS + skew) % BANKS, row


def find(start, want):
    """The first 128 B line from `start` on at (channel, bank, row) `want`."""
    addr = start
    while where(addr) != want:
        addr += 128
    return addr


def lines():
    channel, bank, row = where(BASE)
    a = find(BASE + 128, (channel, bank, row))  # same row as W
    c = find(a + 128, (channel, bank, row))     # same row again
    addr = BASE
    while True:                                  # the first line of another row of that bank
        addr += 128
        ch, bk, rw = where(addr)
        if (ch, bk) == (channel, bank) and rw != row:
            return [BASE, a, addr, c]


def ldg(pc, dst, addr):
    """A 4-byte LDG by lane 0 (address format 1: base, stride 0)."""
    return "%04x %08x 1 R%d LDG.E.SYS 1 R2 4 1 0x%012x %d 0 " % (pc, 0x1, dst, addr, 0)


def kernel():
    w, a, b, c = lines()
    # Destinations R4, R5, R6, R7: different register banks.
    insts = [ldg(0x00, 4, w), ldg(0x10, 5, a), ldg(0x20, 6, b), ldg(0x30, 7, c), "0040 ffffffff 0 EXIT 0 0 0 "]
    out = kernel_header("_Z8dramrowsPf", ctas=1, threads=32, shmem=0, nregs=8, binary_version=70)
    out += "#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = %d\n" % len(insts)
    out += "".join(i + "\n" for i in insts)
    return out + "\n#END_TB\n", (w, a, b, c)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    text, addrs = kernel()
    with open(os.path.join(here, "dram_rows.traceg"), "w") as f:
        f.write(text)
    with open(os.path.join(here, "dram_rows.g"), "w") as f:
        f.write("dram_rows.traceg\n")
    for name, addr in zip("WABC", addrs):
        print(name, hex(addr), "channel %d bank %d row %d" % where(addr))
