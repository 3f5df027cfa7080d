// What a sweep shows while it runs: on a terminal one line redrawn in place
// (runs done/total, failures, running, elapsed, ETA); otherwise, for logs, a
// line per finished run. Plain C++: the caller gives the times.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace smshare {

class SweepProgress {
 public:
  SweepProgress(std::ostream& out, bool terminal, std::string name, size_t total);

  // A run ended: `status` ok|deadlock|failed, `what` the run's axis values.
  void finished(const std::string& status, const std::string& what, double run_seconds, double elapsed_seconds,
                size_t running);
  // Redraws the terminal line (no-op for logs) if `elapsed` moved on by 0.25 s.
  void tick(double elapsed_seconds, size_t running);
  // Ends the terminal line.
  void close(double elapsed_seconds);

  size_t done() const { return done_; }
  size_t failed() const { return failed_; }

  // "3/8 done, 1 failed, 2 running, 0:12 elapsed, ETA 0:20": ETA from the
  // mean time per finished run, with `running` runs in flight.
  std::string line(double elapsed_seconds, size_t running) const;
  static std::string clock(double seconds);  // "1:02:03" or "2:03"

 private:
  std::ostream& out_;
  bool terminal_;
  std::string name_;
  size_t total_;
  size_t done_ = 0, failed_ = 0;
  double last_draw_ = -1;
  size_t last_width_ = 0;
};

}  // namespace smshare
