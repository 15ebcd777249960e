#include "probes/stability/stability_probe.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>

namespace harness {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

StabilityProbe::StabilityProbe(StabilityProbeOptions options, Clock& clock, Canary& canary)
    : options_(std::move(options)), clock_(clock), canary_(canary) {
  if (options_.cpus.empty()) options_.cpus = allowed_cpus();
  if (options_.own_pid == 0) options_.own_pid = static_cast<int>(::getpid());
  const long ticks = ::sysconf(_SC_CLK_TCK);
  ticks_per_second_ = ticks > 0 ? static_cast<double>(ticks) : 100;
}

StabilityReading StabilityProbe::read(const std::string& at, bool canary) {
  const std::string& root = options_.root;
  StabilityReading r;
  r.at = at;
  const std::uint64_t now = clock_.now_ns();
  if (!previous_) first_ns_ = now;
  r.t_s = static_cast<double>(now - first_ns_) * 1e-9;
  if (previous_) {
    CpuSnapshot snap = take_cpu_snapshot(root, now);
    r.use = cpu_use_between(*previous_, snap, options_.cpus, options_.own_pid, ticks_per_second_, options_.busiest);
    previous_ = std::move(snap);
  } else {
    r.use = Probed<CpuUse>::missing("the first reading of its series: no interval yet");
  }
  std::vector<CpuClock> clocks;
  for (int cpu : options_.cpus) clocks.push_back({cpu, {}, {}, {}, {}});
  if (canary) r.canary = canary_.run(options_.cpus, [&] { read_current_frequencies(root, clocks); });
  r.cpus = read_cpu_clocks(root, options_.cpus);
  if (canary)  // the clocks under the canary's load, not the idle ones after it
    for (std::size_t i = 0; i < clocks.size(); ++i) r.cpus[i].cur_hz = clocks[i].cur_hz;
  r.thermal = read_thermal_zones(root);
  r.load = read_load_average(root);
  r.boost = read_boost(root);
  r.isolated = read_isolated(root);
  // The series' interval starts after its first reading's canary.
  if (!previous_) previous_ = take_cpu_snapshot(root, clock_.now_ns());
  return r;
}

StabilitySampler::StabilitySampler(StabilityProbeOptions options, Clock& clock, Canary& canary, double interval_s)
    : probe_(std::move(options), clock, canary) {
  readings_.push_back(probe_.read("before", true));
  if (interval_s <= 0) return;
  during_ = std::thread([this, interval = std::chrono::duration<double>(interval_s)] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) readings_.push_back(probe_.read("during", false));
  });
}

StabilitySampler::~StabilitySampler() { stop_thread(); }

void StabilitySampler::stop_thread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (during_.joinable()) during_.join();
}

std::vector<StabilityReading> StabilitySampler::finish() {
  stop_thread();
  readings_.push_back(probe_.read("after", true));
  return std::move(readings_);
}

}  // namespace harness
