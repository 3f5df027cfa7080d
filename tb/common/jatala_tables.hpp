// Jatala et al. 2016, Tables VI (register sharing) and VIII (scratchpad
// sharing): resident CTAs per SM at 0, 10, 30, 50, 70, 90 % sharing on the
// paper's Fermi (configs/gpu/jatala-fermi.yaml), as printed.
#pragma once

#include <array>
#include <cstdint>

namespace smshare::tb {

struct JatalaTableRow {
  const char* kernel;  // configs/kernels/<kernel>.yaml
  bool registers;      // Table VI (regshare) or Table VIII (spmshare)
  std::array<uint32_t, 6> ctas;
};

constexpr std::array<uint32_t, 6> kJatalaSharingPercents = {0, 10, 30, 50, 70, 90};

constexpr JatalaTableRow kJatalaTables[] = {
    {"backprop", true, {5, 5, 5, 5, 6, 6}}, {"btree", true, {2, 2, 2, 3, 3, 3}},
    {"hotspot", true, {3, 3, 3, 4, 4, 6}},  {"lib", true, {4, 4, 5, 5, 6, 8}},
    {"mum", true, {4, 4, 4, 5, 5, 6}},      {"mri-q", true, {5, 5, 5, 5, 6, 6}},
    {"sgemm", true, {5, 5, 5, 5, 6, 8}},    {"stencil", true, {2, 2, 2, 2, 2, 3}},
    {"conv1", false, {6, 6, 6, 6, 7, 8}},   {"conv2", false, {3, 3, 3, 3, 3, 4}},
    {"lavamd", false, {2, 2, 2, 2, 2, 4}},  {"nw1", false, {7, 7, 7, 8, 8, 8}},
    {"nw2", false, {7, 7, 7, 8, 8, 8}},     {"srad1", false, {2, 2, 2, 3, 4, 4}},
    {"srad2", false, {3, 3, 3, 3, 3, 5}},
};

// The one printed entry a 16 KB scratchpad cannot hold: hotspot at 90 %
// register sharing. Table VI prints 6 CTAs, but hotspot's CTA uses 3072 B of
// scratchpad (three 16x16 float tiles) and 6 x 3072 B > 16384 B, so 5 fit.
// Sec. III-C caps M only by threads and CTA slots; a simulator must also
// respect the scratchpad (the paper's GPGPU-Sim run evidently had more).
inline bool jatala_scratchpad_exception(const char* kernel, uint32_t percent) {
  return percent == 90 && kernel[0] == 'h' && kernel[1] == 'o';  // "hotspot"
}
constexpr uint32_t kHotspot90ScratchpadLimited = 5;

}  // namespace smshare::tb
