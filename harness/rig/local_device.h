// The device is this machine: the work runs in this process. The agent
// (agent.h) serves one of these on the device; tests use it directly.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "harness/rig/device.h"
#include "probes/clock.h"
#include "probes/load/background_load.h"
#include "probes/stability/stability_probe.h"

namespace harness {

class LocalDevice final : public Device {
 public:
  // `versions`: the scenario's [rig.versions] commands, run for the context;
  // `stability_root`: where the stability readings find /sys and /proc (a
  // fake tree in tests).
  explicit LocalDevice(Clock& clock, const std::vector<VersionCommand>& versions = {},
                       std::string stability_root = "/");
  ~LocalDevice() override;  // stops every load still running

  const DeviceInfo& info() const override { return info_; }
  Result<WorkloadWindow> run_workload(const Workload& workload, const IterationPlan& plan,
                                      const IterationSink& sink, std::stop_token stop) override;
  Result<CountersRecording> measure_counters(const Workload& workload, const CountersConfig& config,
                                             std::stop_token stop, RunProgress* steps) override;
  Result<RooflineRecording> measure_roofline(const RooflineConfig& config, std::stop_token stop,
                                             RunProgress* steps) override;
  Result<int> start_load(const std::vector<std::string>& argv) override;
  Status check_load(int id) override;
  Result<LoadStopped> stop_load(int id) override;
  Result<std::string> fetch_file(const std::string& path, std::uint64_t max_bytes) override;
  Status begin_stability(const StabilityPlan& plan) override;
  Result<std::vector<StabilityReading>> end_stability() override;

  // Stops every load (the agent calls it on a lost link or a signal).
  void stop_all_loads();

 private:
  Clock& clock_;
  DeviceInfo info_;
  std::mutex loads_mutex_;
  std::map<int, std::unique_ptr<BackgroundLoad>> loads_;
  int next_load_ = 1;
  std::string stability_root_;
  FixedWorkCanary canary_;
  std::mutex stability_mutex_;
  std::unique_ptr<StabilitySampler> stability_;
};

// The device's own description: context, capabilities and what is missing.
DeviceInfo describe_this_device(const std::vector<VersionCommand>& versions);

}  // namespace harness
