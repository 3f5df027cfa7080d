l1_mshr-1.traceg
l1_mshr-2.traceg
