#include "harness/rig/clock_sync.h"

#include <cstdlib>

#include <fmt/format.h>

namespace harness {

ClockOffset estimate_offset(const std::vector<ClockProbe>& probes) {
  ClockOffset best;
  for (const ClockProbe& p : probes) {
    if (p.host_receive_ns < p.host_send_ns) continue;  // not a probe of one clock
    const std::uint64_t rtt = p.host_receive_ns - p.host_send_ns;
    ++best.probes;
    if (best.probes > 1 && rtt >= best.rtt_ns) continue;
    // Midpoint without overflow: send + rtt/2.
    const std::uint64_t mid = p.host_send_ns + rtt / 2;
    best.offset_ns = static_cast<std::int64_t>(p.device_ns - mid);
    best.rtt_ns = rtt;
    best.uncertainty_ns = rtt - rtt / 2;  // rounded up
  }
  return best;
}

std::string check_offset_stable(const ClockOffset& before, const ClockOffset& after, std::uint64_t elapsed_ns,
                                double drift_ppm, std::uint64_t tolerance_ns) {
  const std::uint64_t moved = static_cast<std::uint64_t>(std::llabs(after.offset_ns - before.offset_ns));
  const std::uint64_t allowed = before.uncertainty_ns + after.uncertainty_ns +
                                static_cast<std::uint64_t>(static_cast<double>(elapsed_ns) * drift_ppm * 1e-6) +
                                tolerance_ns;
  if (moved <= allowed) return "";
  return fmt::format("the clock offset moved by {:.3f} ms over {:.1f} s, more than the {:.3f} ms its uncertainties "
                     "and {} ppm drift allow (did the device reboot or its clock step?)",
                     static_cast<double>(moved) * 1e-6, static_cast<double>(elapsed_ns) * 1e-9,
                     static_cast<double>(allowed) * 1e-6, drift_ppm);
}

}  // namespace harness
