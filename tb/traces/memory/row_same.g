row_same.traceg
