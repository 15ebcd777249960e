// Pinning the workload to chosen CPUs ([workload] cpus): the calling thread,
// and every process it starts, runs only there until the pin is dropped,
// when the thread gets back the CPUs it had: what `taskset` does for a
// benchmark, so that a rig's runs use the cores its engineer chose (an
// isolated core, a big core of a big.LITTLE SoC) and not whichever the
// scheduler picked that night (docs/parts/latency.md).
#pragma once

#include <sched.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"

namespace harness {

class CpuPin {
 public:
  // Pins to `cpus`, or with `first` to the lowest-numbered CPU the thread
  // may use now (neither: leaves the thread where it is). An error names the
  // CPUs asked for, the OS error and the CPUs the thread may use.
  static Result<CpuPin> to(const std::vector<int>& cpus, bool first = false);
  CpuPin(CpuPin&& other) noexcept;
  CpuPin& operator=(CpuPin&&) = delete;
  ~CpuPin();

 private:
  CpuPin() = default;
  std::optional<cpu_set_t> before_;  // the mask to restore
};

// "0-3,6" for a set of CPUs.
std::string cpu_list_text(const cpu_set_t& set);
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace harness
