#include "hw/sweep/sweep_progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace smshare {

SweepProgress::SweepProgress(std::ostream& out, bool terminal, std::string name, size_t total)
    : out_(out), terminal_(terminal), name_(std::move(name)), total_(total) {}

std::string SweepProgress::clock(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

std::string SweepProgress::line(double elapsed, size_t running) const {
  std::string s = std::to_string(done_) + "/" + std::to_string(total_) + " done";
  if (failed_) s += ", " + std::to_string(failed_) + " failed";
  if (running) s += ", " + std::to_string(running) + " running";
  s += ", " + clock(elapsed) + " elapsed";
  if (done_ > 0 && done_ < total_) {
    // Runs finish `running` at a time: the remaining ones take about
    // (remaining / done) of the time the done ones took.
    s += ", ETA " + clock(elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_));
  }
  return s;
}

void SweepProgress::finished(const std::string& status, const std::string& what, double run_seconds,
                             double elapsed, size_t running) {
  ++done_;
  if (status == "failed") ++failed_;
  if (terminal_) {
    if (status == "failed") {  // a failure stays on screen above the progress line
      out_ << "\r" << std::string(last_width_, ' ') << "\r" << "sweep " << name_ << ": failed: " << what << "\n";
      last_width_ = 0;
    }
    last_draw_ = -1;
    tick(elapsed, running);
    return;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", run_seconds);
  out_ << "sweep " << name_ << ": [" << done_ << "/" << total_ << "] " << status << " " << what << " (" << seconds
       << ")\n";
  out_.flush();
}

void SweepProgress::tick(double elapsed, size_t running) {
  if (!terminal_ || (last_draw_ >= 0 && elapsed - last_draw_ < 0.25)) return;
  last_draw_ = elapsed;
  const std::string text = "sweep " + name_ + ": " + line(elapsed, running);
  out_ << "\r" << text;
  if (text.size() < last_width_) out_ << std::string(last_width_ - text.size(), ' ');
  last_width_ = text.size();
  out_.flush();
}

void SweepProgress::close(double elapsed) {
  if (!terminal_) return;
  last_draw_ = -1;
  tick(elapsed, 0);
  out_ << "\n";
  out_.flush();
}

}  // namespace smshare
