dram_rows.traceg
