// A device reached through a transport: requests go to the agent as JSON
// lines (protocol.h), device times come back mapped onto the host's
// monotonic clock through the clock sync. A silent agent is a fault after
// the heartbeat timeout, never a hang; a lost link is an Error naming the
// rig and the phase, with how far the phase got.
#pragma once

#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "harness/rig/clock_sync.h"
#include "harness/rig/device.h"
#include "probes/clock.h"
#include "probes/rig/agent_link.h"
#include "probes/rig/transport.h"

namespace harness {

struct RemoteOptions {
  std::string rig;                      // the rig's name, for messages
  TransportOptions transport;
  std::vector<VersionCommand> versions;  // [rig.versions], run on the device
  double heartbeat_s = 1;               // the agent's period
  double heartbeat_timeout_s = 10;      // silence longer than this is a fault
  double connect_timeout_s = 30;        // from starting the transport to the agent's hello
  int sync_probes = 16;

  // The options a scenario's [rig] gives.
  static RemoteOptions for_rig(const Rig& rig);
};

class RemoteDevice final : public Device {
 public:
  static Result<std::unique_ptr<RemoteDevice>> connect(const RemoteOptions& options, Clock& host_clock);
  ~RemoteDevice() override;  // says bye and closes the link

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

  // Measures the clock offset again (options.sync_probes round trips); the
  // new estimate replaces the one used to map device times.
  Result<ClockOffset> sync();
  const ClockOffset& offset() const { return offset_; }
  // The transport's process (the local agent, or ssh): for diagnostics and tests.
  pid_t link_pid() const { return link_ ? link_->pid() : -1; }
  // Ends the agent (it stops its loads) and closes the link.
  Status bye();

 private:
  RemoteDevice(RemoteOptions options, Clock& clock) : options_(std::move(options)), clock_(clock) {}
  using EventHandler = std::function<void(const nlohmann::json&)>;
  // One request and its reply; events of the request go to `on_event`. A
  // stop request sends "cancel" and waits for the op's reply.
  Result<nlohmann::json> call(const std::string& op, nlohmann::json args, std::string_view phase,
                              const EventHandler& on_event = {}, std::stop_token stop = {}, double first_timeout_s = 0);
  Error fault(std::string_view phase, const std::string& what) const;
  Error connection_lost(std::string_view phase);

  RemoteOptions options_;
  Clock& clock_;
  std::unique_ptr<AgentLink> link_;
  DeviceInfo info_;
  ClockOffset offset_;
  std::int64_t next_id_ = 1;
  std::string progress_;  // "412 of 1000 iterations": how far the phase got, for a fault's message
};

}  // namespace harness
