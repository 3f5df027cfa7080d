MemcpyHtoD,0x00007f0000010000,8192
kernel-1.traceg
