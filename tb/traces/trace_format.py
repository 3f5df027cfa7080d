"""The header of an Accel-Sim kernel trace (tracer version 5, post-processed),
shared by every script that writes traces for the tests: gen_trace.py, the
instruction-cache and sector microbenchmarks."""


def kernel_header(name, ctas, threads, shmem, nregs, binary_version):
    """The `-key = value` lines and the format comment, up to (not including)
    the first #BEGIN_TB."""
    return (f"-kernel name = {name}\n"
            "-kernel id = 1\n"
            f"-grid dim = ({ctas},1,1)\n"
            f"-block dim = ({threads},1,1)\n"
            f"-shmem = {shmem}\n"
            f"-nregs = {nregs}\n"
            f"-binary version = {binary_version}\n"
            "-cuda stream id = 0\n"
            "-shmem base_addr = 0x00007f5000000000\n"
            "-local mem base_addr = 0x00007f5100000000\n"
            "-nvbit version = 1.5.5\n"
            "-accelsim tracer version = 5\n"
            "-enable lineinfo = 0\n"
            "\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
            "mem_width [adrrescompress?] [mem_addresses] immediate\n\n")
