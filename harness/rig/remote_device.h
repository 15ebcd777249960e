// A device reached through a transport: requests go to the agent as JSON
// lines (protocol.h), device times come back mapped onto the host's
// monotonic clock through the clock sync. A silent agent is a fault after
// the heartbeat timeout, never a hang; a lost link is an Error naming the
// rig and the phase, with how far the phase got.
//
// An agent is not believed: every request has a deadline derived from what
// it asks (the plan's iterations times the workload's timeout, the window,
// the counters' and ceilings' work; connect_timeout for the hello), which
// heartbeats prove the agent alive within but never extend; a stop request
// (SIGINT, SIGTERM) ends any wait within a second and a half, the agent told
// to cancel and, if it does not, its process group ended. Its answers are
// checked against the request before anything is kept: no more iterations
// than the plan gives, every time inside the op, a hello of this protocol
// with bounded fields. Anything else is a fault (exit 3) saying what the
// agent said.
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

// A hello's strings and lists: a real one has a dozen entries of tens of bytes.
inline constexpr std::size_t kMaxHelloText = 4096;
inline constexpr std::size_t kMaxHelloItems = 512;

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
  // `stop` ends the connect and every later wait (SIGINT/SIGTERM); `hello`,
  // when given, receives what the agent said of itself even when its hello
  // is refused (the run records it).
  static Result<std::unique_ptr<RemoteDevice>> connect(const RemoteOptions& options, Clock& host_clock,
                                                       std::stop_token stop = {}, DeviceInfo* hello = nullptr);
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
  RemoteDevice(RemoteOptions options, Clock& clock, std::stop_token stop)
      : options_(std::move(options)), clock_(clock), stop_(std::move(stop)) {}
  // How long an op may take from its request to its reply, and what says so
  // ("the plan: 3 warm-up and 300 iterations of at most 1 s, ...").
  struct Deadline {
    double seconds = 0;
    std::string why;
  };
  // An event of the op in progress; an Error ends the op as a fault.
  using EventHandler = std::function<Status(const nlohmann::json&)>;
  // One request and its reply; events of the request go to `on_event`. A
  // stop request (`stop` or the device's) sends "cancel" and waits a moment
  // for the op's reply; past its deadline, or when the agent ignores the
  // cancel, the link is given up.
  Result<nlohmann::json> call(const std::string& op, nlohmann::json args, std::string_view phase,
                              const Deadline& deadline, const EventHandler& on_event = {}, std::stop_token stop = {});
  Deadline short_op(std::string what, double extra_s = 0) const;
  Deadline workload_deadline(const Workload& workload, const IterationPlan& plan) const;
  Deadline counters_deadline(const Workload& workload, const CountersConfig& config) const;
  Deadline roofline_deadline(const RooflineConfig& config) const;
  Error fault(std::string_view phase, const std::string& what) const;
  Error connection_lost(std::string_view phase);
  // Checks the hello against this host before the device is used.
  Status check_hello(const DeviceInfo& info) const;
  // The agent broke a deadline or the protocol: its link is ended (stdin
  // closed, then its process group signalled) and it gets no bye.
  void give_up();

  RemoteOptions options_;
  Clock& clock_;
  std::stop_token stop_;
  std::unique_ptr<AgentLink> link_;
  bool given_up_ = false;  // the agent broke a deadline or the protocol: no bye, the link is ended
  DeviceInfo info_;
  ClockOffset offset_;
  std::int64_t next_id_ = 1;
  std::string progress_;  // "412 of 1000 iterations": how far the phase got, for a fault's message
};

}  // namespace harness
