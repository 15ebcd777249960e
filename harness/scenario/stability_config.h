// [rig.stability]: whether the rig's steadiness is read around each
// acquisition on the device (levels 1, 2 and each load condition of level
// 4), how often inside a long one, and the limits beyond which a level's
// window is `unstable` (its metrics then judged `cannot tell`, never
// regressed or improved). Every field has a default that holds on a quiet
// board; docs/parts/stability.md says why each is what it is. Reference:
// scenarios/README.md "[rig.stability]".
#pragma once

#include <cstdint>

namespace harness {

class TableReader;

struct StabilityConfig {
  bool enabled = true;
  // Readings inside a window, without the canary; 0: only at its ends.
  double interval_s = 10;
  // |canary time after / before - 1| on any of the workload's CPUs
  // (Android's ThrottleDetector: a canary off by 10 %).
  double canary_change_max = 0.10;
  // 1 - the CPU's clock after / before, both read under the canary's load.
  double cpu_freq_drop_max = 0.10;
  // The warmest rise of any thermal zone from the start (Krun's 3 °C).
  double temperature_rise_max_c = 3;
  // Throttle events counted meanwhile (thermal_throttle/*_throttle_count).
  std::uint64_t throttle_increase_max = 0;
  // Others' CPU time (steal included) as a share of the workload's CPUs, in
  // the worst interval between two readings.
  double other_cpu_share_max = 0.10;
};

// Reads a [rig.stability] table (parse_stability.cc).
StabilityConfig read_stability_section(TableReader& reader);

}  // namespace harness
