one_lane.traceg
