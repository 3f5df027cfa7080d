stride128.traceg
