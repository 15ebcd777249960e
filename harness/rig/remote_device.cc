#include "harness/rig/remote_device.h"

#include <chrono>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/rig/protocol.h"

namespace harness {
namespace {

using nlohmann::json;
using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

// A reply's field of the wrong type is the agent's fault, not a crash.
template <class T>
Result<T> field(const json& reply, const char* key, T fallback) {
  try {
    return reply.value(key, fallback);
  } catch (const json::exception& e) {
    return Error::infra(fmt::format("agent protocol: reply field '{}': {}", key, e.what()));
  }
}

}  // namespace

RemoteOptions RemoteOptions::for_rig(const Rig& rig) {
  RemoteOptions o;
  o.rig = rig.name;
  o.transport = rig.transport;
  o.versions = rig.versions;
  o.heartbeat_timeout_s = rig.heartbeat_timeout_s;
  o.connect_timeout_s = rig.connect_timeout_s;
  return o;
}

Error RemoteDevice::fault(std::string_view phase, const std::string& what) const {
  return Error::infra(fmt::format("rig '{}': {} during {}{}", options_.rig, what, phase,
                                  progress_.empty() ? "" : " (after " + progress_ + ")"));
}

// The transport ended (its stdout closed, or a write found no reader): how
// it ended and what it said last are the user's best clue.
Error RemoteDevice::connection_lost(std::string_view phase) {
  std::optional<ChildEnd> end = link_->wait_end(2);
  std::string tail = link_->stderr_tail();
  std::string how = end ? end->describe() : "still running";
  // A shell that cannot find the agent exits 127.
  if (end && end->exit_code == 127) how += ": is harness installed on the device and in its PATH?";
  if (tail.size() > 400) tail = tail.substr(tail.size() - 400);
  return fault(phase, fmt::format("connection lost (transport {}{}{})", how, tail.empty() ? "" : "; it said: ", tail));
}

Result<std::unique_ptr<RemoteDevice>> RemoteDevice::connect(const RemoteOptions& options, Clock& host_clock) {
  Result<std::vector<std::string>> argv = agent_command(options.transport);
  if (!argv) return argv.error();
  auto device = std::unique_ptr<RemoteDevice>(new RemoteDevice(options, host_clock));
  Result<std::unique_ptr<AgentLink>> link = AgentLink::start(*argv, protocol::kMaxMessageBytes + 1);
  if (!link) return link.error().within(fmt::format("rig '{}'", options.rig));
  device->link_ = std::move(*link);

  json versions = json::array();
  for (const VersionCommand& v : options.versions) versions.push_back({{"name", v.name}, {"argv", v.argv}});
  Result<json> hello = device->call("hello",
                                    {{"protocol", protocol::kVersion},
                                     {"versions", versions},
                                     {"heartbeat_s", options.heartbeat_s}},
                                    "connect", {}, {}, options.connect_timeout_s);
  if (!hello) return hello.error();
  Result<DeviceInfo> info = protocol::device_info_from_wire(*hello);
  if (!info) return info.error().within(fmt::format("rig '{}'", options.rig));
  device->info_ = std::move(*info);
  if (device->info_.harness_version != HARNESS_VERSION) {
    device->info_.missing.push_back(fmt::format("version: the agent is harness {}, this host runs harness {}",
                                                device->info_.harness_version, HARNESS_VERSION));
  }
  Result<ClockOffset> synced = device->sync();
  if (!synced) return synced.error();
  return device;
}

RemoteDevice::~RemoteDevice() { (void)bye(); }

Status RemoteDevice::bye() {
  if (!link_) return ok();
  if (info_.protocol == 0) {  // no agent ever answered: nothing to say bye to
    link_->close(0.2);
    link_.reset();
    return ok();
  }
  Result<json> r = call("bye", json::object(), "disconnect", {}, {}, 5);
  link_->close(2);
  link_.reset();
  if (!r) return r.error();
  return ok();
}

Result<json> RemoteDevice::call(const std::string& op, json args, std::string_view phase, const EventHandler& on_event,
                                std::stop_token stop, double first_timeout_s) {
  if (!link_) return fault(phase, "the link to the agent is closed");
  const std::int64_t id = next_id_++;
  args["id"] = id;
  args["op"] = op;
  if (Status sent = link_->send(args.dump()); !sent) return connection_lost(phase);
  double silence_limit = first_timeout_s > 0 ? first_timeout_s : options_.heartbeat_timeout_s;
  Steady::time_point last_heard = Steady::now();
  bool cancel_sent = false;
  for (;;) {
    if (stop.stop_requested() && !cancel_sent) {
      cancel_sent = true;
      (void)link_->send(json{{"id", next_id_++}, {"op", "cancel"}}.dump());
    }
    std::string line;
    Result<AgentLink::Got> got = link_->receive(0.1, line);
    if (!got) return fault(phase, got.error().message);
    if (*got == AgentLink::Got::timeout) {
      if (seconds_since(last_heard) > silence_limit) {
        return fault(phase, fmt::format("the agent was silent for {:.3g} s (heartbeat timeout)", silence_limit));
      }
      continue;
    }
    if (*got == AgentLink::Got::closed) return connection_lost(phase);
    last_heard = Steady::now();
    silence_limit = options_.heartbeat_timeout_s;
    Result<json> message = protocol::parse_line(line);
    if (!message) return fault(phase, message.error().message);
    try {
      const json& m = *message;
      if (m.value("event", "") == "heartbeat") continue;
      const bool ours = m.contains("id") && m["id"].is_number_integer() && m["id"].get<std::int64_t>() == id;
      if (!ours) {
        if (m.contains("ok") && !m.value("ok", true) && (!m.contains("id") || m["id"].is_null())) {
          return fault(phase, "the agent refused a message: " + m.value("error", std::string("?")));
        }
        continue;  // a cancel's reply, a late event of an earlier op
      }
      if (m.contains("event")) {
        if (on_event) on_event(m);
        continue;
      }
      if (m.value("ok", false)) return m.value("result", json::object());
      std::string error = m.value("error", std::string("(no message)"));
      int exit = m.value("exit", 3);
      if (cancel_sent && stop.stop_requested()) return Error::infra("interrupted");
      return Error{fmt::format("rig '{}': {}: {}", options_.rig, phase, error),
                   exit == 2 ? ExitCode::bad_input : ExitCode::infrastructure};
    } catch (const json::exception& e) {
      return fault(phase, std::string("a malformed message from the agent: ") + e.what());
    }
  }
}

Result<ClockOffset> RemoteDevice::sync() {
  std::vector<ClockProbe> probes;
  for (int i = 0; i < options_.sync_probes; ++i) {
    ClockProbe p;
    p.host_send_ns = clock_.now_ns();
    Result<json> r = call("time", json::object(), "clock sync");
    p.host_receive_ns = clock_.now_ns();
    if (!r) return r.error();
    Result<std::uint64_t> t = field(*r, "t_ns", std::uint64_t{0});
    if (!t) return fault("clock sync", t.error().message);
    p.device_ns = *t;
    probes.push_back(p);
  }
  offset_ = estimate_offset(probes);
  return offset_;
}

Result<WorkloadWindow> RemoteDevice::run_workload(const Workload& workload, const IterationPlan& plan,
                                                  const IterationSink& sink, std::stop_token stop) {
  std::int64_t received = 0;
  progress_ = fmt::format("0 of {} iterations", plan.iterations);
  std::optional<Error> malformed;
  auto on_event = [&](const json& m) {
    if (m.value("event", "") != "iterations" || malformed) return;
    Result<IterationBatch> decoded = protocol::decode_iterations(m);
    if (!decoded) {
      malformed = decoded.error();
      return;
    }
    IterationBatch& batch = *decoded;
    for (std::uint64_t& t : batch.start_ns) t = offset_.to_host(t);
    for (std::uint64_t& t : batch.end_ns) t = offset_.to_host(t);
    received += static_cast<std::int64_t>(batch.start_ns.size());
    progress_ = fmt::format("{} of {} iterations", received, plan.iterations);
    sink(batch);
  };
  // The reply comes after the warm-up and the whole window: the heartbeats,
  // not the reply, keep the link alive meanwhile.
  Result<json> r = call("workload", {{"workload", protocol::to_wire(workload)}, {"plan", protocol::to_wire(plan)}},
                        "the workload window", on_event, stop);
  progress_.clear();
  if (!r) return r.error();
  if (malformed) return fault("the workload window", malformed->message);
  Result<std::uint64_t> measuring = field(*r, "measuring_ns", std::uint64_t{0}), end = field(*r, "end_ns", std::uint64_t{0});
  Result<std::int64_t> count = field(*r, "iterations", std::int64_t{0});
  if (!measuring || !end || !count) return fault("the workload window", "a malformed reply");
  return WorkloadWindow{offset_.to_host(*measuring), offset_.to_host(*end), *count};
}

namespace {

// A level's "step" events, handed on as they arrive; a malformed one is a
// fault of the op once it ends.
struct StepForwarder {
  RunProgress* steps;
  std::optional<Error> malformed;
  void operator()(const json& m) {
    if (m.value("event", "") != "step" || malformed || !steps) return;
    Result<ProgressEvent> e = protocol::decode_step(m);
    if (!e) malformed = e.error();
    else steps->report(*e);
  }
};

}  // namespace

Result<CountersRecording> RemoteDevice::measure_counters(const Workload& workload, const CountersConfig& config,
                                                         std::stop_token stop, RunProgress* steps) {
  StepForwarder forward{steps, std::nullopt};
  Result<json> r = call("counters", {{"workload", protocol::to_wire(workload)}, {"counters", protocol::to_wire(config)}},
                        "level 2 (counters)", std::ref(forward), stop);
  if (r && forward.malformed) return fault("level 2 (counters)", forward.malformed->message);
  if (!r) return r.error();
  try {
    return r->get<CountersRecording>();
  } catch (const json::exception& e) {
    return fault("level 2 (counters)", std::string("malformed reply: ") + e.what());
  }
}

Result<RooflineRecording> RemoteDevice::measure_roofline(const RooflineConfig& config, std::stop_token stop,
                                                         RunProgress* steps) {
  StepForwarder forward{steps, std::nullopt};
  Result<json> r = call("roofline", {{"roofline", protocol::to_wire(config)}}, "level 1 (ceilings and kernels)",
                        std::ref(forward), stop);
  if (r && forward.malformed) return fault("level 1 (ceilings and kernels)", forward.malformed->message);
  if (!r) return r.error();
  try {
    return r->get<RooflineRecording>();
  } catch (const json::exception& e) {
    return fault("level 1", std::string("malformed reply: ") + e.what());
  }
}

Result<int> RemoteDevice::start_load(const std::vector<std::string>& argv) {
  Result<json> r = call("load.start", {{"argv", argv}}, "starting the background load");
  if (!r) return r.error();
  Result<int> id = field(*r, "id", 0);
  if (!id) return fault("starting the background load", id.error().message);
  return *id;
}

Status RemoteDevice::check_load(int id) {
  Result<json> r = call("load.check", {{"load", id}}, "the background load check");
  if (!r) return r.error();
  return ok();
}

Result<LoadStopped> RemoteDevice::stop_load(int id) {
  Result<json> r = call("load.stop", {{"load", id}}, "stopping the background load");
  if (!r) return r.error();
  Result<std::string> end = field(*r, "end", std::string()), output = field(*r, "output", std::string());
  if (!end || !output) return fault("stopping the background load", "a malformed reply");
  return LoadStopped{*end, *output};
}

Status RemoteDevice::begin_stability(const StabilityPlan& plan) {
  Result<json> r = call("stability.begin", {{"plan", protocol::to_wire(plan)}}, "the stability readings");
  if (!r) return r.error();
  return ok();
}

Result<std::vector<StabilityReading>> RemoteDevice::end_stability() {
  Result<json> r = call("stability.end", json::object(), "the stability readings");
  if (!r) return r.error();
  // Their times are the series' own, from its first reading: nothing to map.
  Result<std::vector<StabilityReading>> readings = protocol::stability_readings_from_wire(*r);
  if (!readings) return fault("the stability readings", readings.error().message);
  return readings;
}

Result<std::string> RemoteDevice::fetch_file(const std::string& path, std::uint64_t max_bytes) {
  std::string data, sha;
  std::uint64_t size = 0;
  do {
    Result<json> r = call("file.read", {{"path", path}, {"offset", data.size()}, {"max_bytes", max_bytes}},
                          "fetching " + path);
    if (!r) return r.error();
    Result<std::uint64_t> total = field(*r, "size", std::uint64_t{0});
    Result<std::string> digest = field(*r, "sha256", std::string()), text = field(*r, "data", std::string());
    if (!total || !digest || !text) return fault("fetching " + path, "a malformed reply");
    size = *total;
    sha = *digest;
    if (size > max_bytes) return fault("fetching " + path, "the device sent more than the limit");
    Result<std::string> chunk = protocol::base64_decode(*text);
    if (!chunk) return chunk.error();
    if (chunk->empty() && data.size() < size) return fault("fetching " + path, "the device sent an empty chunk");
    data += *chunk;
  } while (data.size() < size);
  if (data.size() != size || sha256_hex(data) != sha) {
    return fault("fetching " + path, fmt::format("the file arrived damaged ({} of {} bytes, sha256 mismatch)",
                                                 data.size(), size));
  }
  return data;
}

}  // namespace harness
