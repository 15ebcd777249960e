// Mapping the device's monotonic clock onto the host's, as NTP does: the
// host sends a probe at h0, the device answers with its time d, the answer
// arrives at h1. With symmetric paths d = (h0 + h1) / 2 + offset; the
// probe with the smallest round trip bounds the error best, by half its
// round trip whatever the asymmetry. Pure: the probes are measured elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace harness {

struct ClockProbe {
  std::uint64_t host_send_ns = 0;
  std::uint64_t device_ns = 0;
  std::uint64_t host_receive_ns = 0;
};

struct ClockOffset {
  std::int64_t offset_ns = 0;        // device - host
  std::uint64_t uncertainty_ns = 0;  // half the best round trip: |true offset - offset_ns| <= it
  std::uint64_t rtt_ns = 0;          // the best round trip
  int probes = 0;
  bool valid() const { return probes > 0; }

  std::uint64_t to_host(std::uint64_t device_ns) const {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(device_ns) - offset_ns);
  }
};

ClockOffset estimate_offset(const std::vector<ClockProbe>& probes);

// Two estimates taken some time apart agree when their difference fits in
// their uncertainties plus the drift two crystals may accumulate
// (drift_ppm, over `elapsed_ns`) plus `tolerance_ns`. "" when stable, else why not.
std::string check_offset_stable(const ClockOffset& before, const ClockOffset& after, std::uint64_t elapsed_ns,
                                double drift_ppm, std::uint64_t tolerance_ns);

}  // namespace harness
