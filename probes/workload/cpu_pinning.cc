#include "probes/workload/cpu_pinning.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace harness {

std::string cpu_list_text(const cpu_set_t& set) {
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    out += (out.empty() ? "" : ",") + (last == cpu ? std::to_string(cpu) : fmt::format("{}-{}", cpu, last));
    cpu = last;
  }
  return out;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  return cpu_list_text(set);
}

Result<CpuPin> CpuPin::to(const std::vector<int>& asked_cpus, bool first) {
  CpuPin pin;
  if (asked_cpus.empty() && !first) return pin;
  cpu_set_t before;
  CPU_ZERO(&before);
  if (sched_getaffinity(0, sizeof before, &before) != 0) {
    return Error::infra(fmt::format("workload cpus: sched_getaffinity: {}", std::strerror(errno)));
  }
  std::vector<int> cpus = asked_cpus;
  if (first) {
    for (int cpu = 0; cpu < CPU_SETSIZE && cpus.empty(); ++cpu)
      if (CPU_ISSET(cpu, &before)) cpus.push_back(cpu);
  }
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  std::string asked;
  for (int cpu : cpus) {
    asked += (asked.empty() ? "" : ", ") + std::to_string(cpu);
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
      return Error::input(fmt::format("workload cpus [{}]: CPU {} is outside 0..{}", asked, cpu, CPU_SETSIZE - 1));
    }
    CPU_SET(cpu, &wanted);
  }
  // The kernel takes a mask that shares one CPU with the allowed ones; the
  // workload must run on every CPU it names, so each must be allowed.
  for (int cpu : cpus) {
    if (!CPU_ISSET(cpu, &before)) {
      return Error::infra(fmt::format("workload cpus [{}]: CPU {} is not one this device lets the workload use "
                                      "(allowed: {})",
                                      asked, cpu, cpu_list_text(before)));
    }
  }
  if (sched_setaffinity(0, sizeof wanted, &wanted) != 0) {
    return Error::infra(fmt::format("workload cpus [{}]: sched_setaffinity: {} (allowed: {})", asked,
                                    std::strerror(errno), cpu_list_text(before)));
  }
  pin.before_ = before;
  return pin;
}

CpuPin::CpuPin(CpuPin&& other) noexcept : before_(other.before_) { other.before_.reset(); }

CpuPin::~CpuPin() {
  if (before_) (void)sched_setaffinity(0, sizeof *before_, &*before_);
}

}  // namespace harness
