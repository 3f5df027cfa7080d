#include "hw/common/progress.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace smshare {
namespace {

// Three significant digits and an SI suffix: 950, 1.23k, 12.3k, 123k, 1.23M.
std::string compact(double v) {
  static const char* const kSuffix[] = {"", "k", "M", "G", "T", "P"};
  size_t unit = 0;
  // 999.5 and up would print as "1000": the next unit's "1.00" instead.
  while (unit + 1 < std::size(kSuffix) && v >= 999.5) {
    v /= 1000;
    ++unit;
  }
  char buf[32];
  if (unit == 0) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.*f%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, kSuffix[unit]);
  return buf;
}

// Tenths of a second below a minute, then 2m05s, then 1h02m.
std::string duration(double seconds) {
  char buf[32];
  if (seconds < 59.95) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    return buf;
  }
  const long s = std::lround(seconds);
  if (s < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s % 3600 / 60);
  return buf;
}

}  // namespace

double ProgressLine::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProgressLine::ProgressLine(std::ostream& out, HostClock clock)
    : out_(out), clock_(std::move(clock)), start_(clock_()), last_draw_(start_) {}

ProgressLine::~ProgressLine() {
  if (width_) out_ << '\n' << std::flush;
}

bool ProgressLine::due() { return clock_() - last_draw_ >= kRedrawSeconds; }

void ProgressLine::draw(const ProgressSample& s) { write(s, clock_(), ""); }

void ProgressLine::finish(const ProgressSample& s) {
  if (!width_) return;
  write(s, clock_(), "\n");
  width_ = 0;
}

void ProgressLine::write(const ProgressSample& s, double now, const char* end) {
  std::string line = format(s, now - start_);
  const size_t width = line.size();
  if (width < width_) line.append(width_ - width, ' ');  // blanks what a longer previous line left
  out_ << ('\r' + line + end) << std::flush;             // one write: nothing interleaves within the line
  width_ = width;
  last_draw_ = now;
}

std::string ProgressLine::format(const ProgressSample& s, double elapsed_seconds) {
  std::string line;
  if (s.kernels > 1) line += "kernel " + std::to_string(s.kernel) + "/" + std::to_string(s.kernels) + " | ";
  line += compact(static_cast<double>(s.cycles)) + " cycles | " + compact(static_cast<double>(s.warp_instructions));
  const std::optional<uint64_t>& total = s.total_warp_instructions;
  if (total) line += "/" + compact(static_cast<double>(*total));
  line += " warp-inst";
  if (total && *total > 0) {
    // Rounded down: 100.0% only once everything is done.
    const double permille = std::floor(1000.0 * static_cast<double>(s.warp_instructions) / *total);
    char pct[32];
    std::snprintf(pct, sizeof pct, " (%.1f%%)", permille / 10);
    line += pct;
  }
  const double rate = elapsed_seconds > 0 ? s.warp_instructions / elapsed_seconds : 0;
  line += " | " + compact(rate) + " warp-inst/s | " + duration(elapsed_seconds);
  if (total && rate > 0 && s.warp_instructions < *total)
    line += ", ~" + duration((*total - s.warp_instructions) / rate) + " left";
  return line;
}

}  // namespace smshare
