stride32.traceg
