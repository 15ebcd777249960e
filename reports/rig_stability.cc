#include "reports/rig_stability.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/levels/stability.h"
#include "probes/workload/cpu_pinning.h"

namespace harness {
namespace {

template <class T>
std::string or_reason(const Probed<T>& p, const std::string& known) {
  return p ? known : "unavailable (" + p.unavailable + ")";
}

std::string cpu_line(const CpuClock& c) {
  std::string clock = "clock unavailable (" + c.cur_hz.unavailable + ")";
  if (c.cur_hz) {
    clock = fmt::format("clock {:.3g} GHz", *c.cur_hz.value * 1e-9);
    if (c.max_hz) clock += fmt::format(" of {:.3g} GHz", *c.max_hz.value * 1e-9);
  }
  std::string throttles;
  if (c.throttles)
    for (const auto& [kind, n] : *c.throttles.value) throttles += fmt::format("{}{} {}", throttles.empty() ? "" : ", ", kind, n);
  return fmt::format("  cpu{}  {}, governor {}, throttle counts {}\n", c.cpu, clock,
                     or_reason(c.governor, c.governor.value.value_or("")), or_reason(c.throttles, throttles));
}

std::string thermal_line(const StabilityReading& r) {
  if (!r.thermal) return "  thermal  unavailable (" + r.thermal.unavailable + ")\n";
  std::string zones;
  for (const ThermalZone& z : *r.thermal.value)
    zones += fmt::format("{}{}{} {}", zones.empty() ? "" : ", ", z.zone, z.type.empty() ? "" : " (" + z.type + ")",
                         or_reason(z.celsius, fmt::format("{:.1f} °C", z.celsius.value.value_or(0))));
  return "  thermal  " + zones + "\n";
}

std::string share(double cpu_s, const CpuUse& u) { return fmt::format("{:.0f} %", 100 * cpu_s / (u.seconds * u.cpus)); }

std::string others_line(const StabilityReading& r) {
  if (!r.use) return "  others  unavailable (" + r.use.unavailable + ")\n";
  const CpuUse& u = *r.use.value;
  std::string busiest;
  for (const BusyProcess& p : u.busiest)
    busiest += fmt::format("{}{} (pid {}) {:.0f} % of a CPU", busiest.empty() ? "" : ", ", p.name, p.pid,
                           100 * p.cpu_s / u.seconds);
  return fmt::format("  others  {:.0f} % of the CPUs over {:.1f} s (steal {:.0f} %); busiest: {}\n", 100 * u.other_share(),
                     u.seconds, 100 * u.steal_share(), busiest.empty() ? "none" : busiest);
}

// The canary's change from the first run to the second, per CPU.
// (On the clock the gate compares: compared_canary_clock.)
std::vector<std::pair<int, double>> canary_spread(const StabilityReading& first, const StabilityReading& second) {
  const CanaryClock clock = compared_canary_clock(first, second);
  std::vector<std::pair<int, double>> out;
  for (const CanaryTime& a : first.canary)
    for (const CanaryTime& b : second.canary) {
      const Probed<double>& a_s = canary_time(a, clock);
      const Probed<double>& b_s = canary_time(b, clock);
      if (a.cpu == b.cpu && a_s && b_s && *a_s.value > 0) out.push_back({a.cpu, *b_s.value / *a_s.value - 1});
    }
  return out;
}

std::string canary_line(const StabilityReading& first, const StabilityReading& second) {
  const CanaryClock clock = compared_canary_clock(first, second);
  std::string out;
  for (const CanaryTime& a : first.canary) {
    std::string text = fmt::format("cpu{} ", a.cpu);
    const CanaryTime* b = nullptr;
    for (const CanaryTime& c : second.canary)
      if (c.cpu == a.cpu) b = &c;
    const Probed<double>& a_s = canary_time(a, clock);
    const Probed<double>* b_s = b ? &canary_time(*b, clock) : nullptr;
    if (!a_s) text += "unavailable (" + a_s.unavailable + ")";
    else if (!b_s || !*b_s) text += "unavailable (" + (b_s ? b_s->unavailable : std::string("not run twice")) + ")";
    else
      text += fmt::format("{:.1f} ms then {:.1f} ms ({:+.1f} %)", *a_s.value * 1e3, *b_s->value * 1e3,
                          100 * (*b_s->value / *a_s.value - 1));
    out += (out.empty() ? "" : ", ") + text;
  }
  if (out.empty()) return "  canary  not run\n";
  return std::string("  canary  ") + (clock == CanaryClock::cpu ? "(CPU time) " : "") + out + "\n";
}

}  // namespace

std::vector<std::string> rig_stability_advice(const StabilityReading& first, const StabilityReading& r,
                                              const StabilityConfig& limits, bool workload_pinned) {
  std::vector<std::string> advice;
  std::vector<int> not_performance, cpus;
  for (const CpuClock& c : r.cpus) {
    cpus.push_back(c.cpu);
    if (c.governor && *c.governor.value != "performance") not_performance.push_back(c.cpu);
  }
  if (!not_performance.empty())
    advice.push_back(fmt::format("set the governor of cpu{} to performance (cpupower frequency-set -g performance): "
                                 "other governors move the clock with the load",
                                 cpu_list_text(not_performance)));
  if (r.boost && *r.boost.value == "on")
    advice.push_back("turn boost off (0 > /sys/devices/system/cpu/cpufreq/boost, or 1 > intel_pstate/no_turbo): a "
                     "boosted clock depends on temperature and on the other cores");
  const bool isolated = r.isolated && *r.isolated.value != "none";
  if (!isolated || !workload_pinned)
    advice.push_back(fmt::format("{}: the scheduler then keeps other work off them",
                                 isolated ? "pin the workload to the isolated CPUs ([workload] cpus)"
                                          : fmt::format("isolate the workload's CPUs (isolcpus=<cpus> on the kernel "
                                                        "command line) and pin the workload there ([workload] cpus)")));
  if (r.use) {
    const CpuUse& u = *r.use.value;
    std::string busy;
    for (const BusyProcess& p : u.busiest)
      if (p.cpu_s >= 0.05 * u.seconds)
        busy += fmt::format("{}{} (pid {}, {:.0f} % of a CPU)", busy.empty() ? "" : ", ", p.name, p.pid, 100 * p.cpu_s / u.seconds);
    if (!busy.empty()) advice.push_back("stop the busy processes: " + busy);
    if (u.steal_share() >= 0.01)
      advice.push_back(fmt::format("the hypervisor took {} of the CPUs (steal): a virtual machine shares its host; "
                                   "use a dedicated one",
                                   share(u.steal_s, u)));
  }
  for (const auto& [cpu, change] : canary_spread(first, r))
    if (std::fabs(change) > limits.canary_change_max)
      advice.push_back(fmt::format("the canary on cpu{} moved {:+.0f} % between two runs a moment apart, beyond "
                                   "canary_change_max ({:.0f} %): runs on this rig will often read unstable",
                                   cpu, 100 * change, 100 * limits.canary_change_max));
  return advice;
}

std::string render_rig_stability(const StabilityReading& first, const StabilityReading& second,
                                 const StabilityConfig& limits, bool workload_pinned) {
  std::vector<int> cpus;
  for (const CpuClock& c : second.cpus) cpus.push_back(c.cpu);
  std::string out = fmt::format("stability of cpu{} ({}):\n", cpu_list_text(cpus),
                                workload_pinned ? "the workload's CPUs" : "every CPU the workload may use");
  for (const CpuClock& c : second.cpus) out += cpu_line(c);
  out += thermal_line(second);
  out += "  load average  " +
         or_reason(second.load, second.load ? fmt::format("{:.2f}, {:.2f}, {:.2f} (1, 5, 15 min)", second.load.value->one,
                                                          second.load.value->five, second.load.value->fifteen)
                                            : "") +
         "\n";
  out += others_line(second);
  out += canary_line(first, second);
  out += "  boost  " + or_reason(second.boost, second.boost.value.value_or("")) + "\n";
  out += "  isolated CPUs  " + or_reason(second.isolated, second.isolated.value.value_or("")) + "\n";
  std::vector<std::string> advice = rig_stability_advice(first, second, limits, workload_pinned);
  if (advice.empty()) return out + "nothing to change: the rig reads as steady\n";
  out += "to make runs on this rig steadier:\n";
  for (const std::string& a : advice) out += "  - " + a + "\n";
  return out;
}

nlohmann::json rig_stability_json(const StabilityReading& first, const StabilityReading& second,
                                  const StabilityConfig& limits, bool workload_pinned) {
  return {{"readings", {first, second}}, {"advice", rig_stability_advice(first, second, limits, workload_pinned)}};
}

}  // namespace harness
