#include "hw/mem/interconnect.hpp"

namespace smshare {

Interconnect::Interconnect(const InterconnectSpec& spec, uint32_t sms, uint32_t partitions, uint64_t core_period_ps)
    : latency_ps_(uint64_t(spec.latency) * core_period_ps),
      sm_up_(sms, PortReservation(core_period_ps, spec.bytes_per_cycle)),
      sm_down_(sms, PortReservation(core_period_ps, spec.bytes_per_cycle)),
      partition_in_(partitions, PortReservation(core_period_ps, spec.bytes_per_cycle)),
      partition_out_(partitions, PortReservation(core_period_ps, spec.bytes_per_cycle)) {}

uint64_t Interconnect::bytes_up() const {
  uint64_t b = 0;
  for (const auto& p : sm_up_) b += p.bytes();
  return b;
}

uint64_t Interconnect::bytes_down() const {
  uint64_t b = 0;
  for (const auto& p : sm_down_) b += p.bytes();
  return b;
}

}  // namespace smshare
