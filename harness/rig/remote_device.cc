#include "harness/rig/remote_device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/rig/counter_windows.h"
#include "harness/rig/protocol.h"

namespace harness {
namespace {

using nlohmann::json;
using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

// How long an agent has to answer a cancel before its link is ended: with
// the link's own end (0.2 s, then SIGTERM and 1 s), a stop takes under 2 s.
constexpr double kCancelGraceS = 0.5;
// One ceiling or kernel measurement of level 1: well under a second on any
// device the harness knows; a minute bounds it.
constexpr double kMeasurementBoundS = 60;
// An agent's version as a message or the run's context shows it.
constexpr std::size_t kShownVersionBytes = 64;

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
  return {.rig = rig.name,
          .transport = rig.transport,
          .versions = rig.versions,
          .heartbeat_timeout_s = rig.heartbeat_timeout_s,
          .connect_timeout_s = rig.connect_timeout_s};
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

Result<std::unique_ptr<RemoteDevice>> RemoteDevice::connect(const RemoteOptions& options, Clock& host_clock,
                                                            std::stop_token stop, DeviceInfo* hello_out) {
  Result<std::vector<std::string>> argv = agent_command(options.transport);
  if (!argv) return argv.error();
  auto device = std::unique_ptr<RemoteDevice>(new RemoteDevice(options, host_clock, std::move(stop)));
  Result<std::unique_ptr<AgentLink>> link = AgentLink::start(*argv, protocol::kMaxMessageBytes + 1);
  if (!link) return link.error().within(fmt::format("rig '{}'", options.rig));
  device->link_ = std::move(*link);

  json versions = json::array();
  for (const VersionCommand& v : options.versions) versions.push_back({{"name", v.name}, {"argv", v.argv}});
  Result<json> hello = device->call("hello",
                                    {{"protocol", protocol::kVersion},
                                     {"versions", versions},
                                     {"heartbeat_s", options.heartbeat_s}},
                                    "connect", {options.connect_timeout_s, "[rig] connect_timeout"});
  // An agent that refuses this host (another protocol) is the rig's fault, whatever exit it names.
  if (!hello) return Error::infra(hello.error().message);
  // A hello this host cannot read is the agent's fault (exit 3), not the user's input.
  Result<DeviceInfo> info = protocol::device_info_from_wire(*hello);
  if (!info) {
    device->give_up();
    return device->fault("connect", info.error().message);
  }
  if (hello_out) {
    hello_out->protocol = info->protocol;
    hello_out->harness_version = info->harness_version.substr(0, kShownVersionBytes);
  }
  if (Status checked = device->check_hello(*info); !checked) {
    device->give_up();
    return checked.error();
  }
  device->info_ = std::move(*info);
  if (device->info_.harness_version != HARNESS_VERSION) {
    device->info_.missing.push_back(fmt::format("version: the agent is harness {}, this host runs harness {}",
                                                device->info_.harness_version, HARNESS_VERSION));
  }
  Result<ClockOffset> synced = device->sync();
  if (!synced) return synced.error();
  return device;
}

Status RemoteDevice::check_hello(const DeviceInfo& info) const {
  if (info.protocol != protocol::kVersion) {
    return Error::infra(fmt::format(
        "rig '{}': the agent speaks protocol {} (harness {}) and this host protocol {} (harness {}): install "
        "harness {}'s agent on the device (harness rig install SCENARIO; or name its agent in [rig] agent) and run "
        "again",
        options_.rig, info.protocol, info.harness_version.substr(0, kShownVersionBytes), protocol::kVersion,
        HARNESS_VERSION, HARNESS_VERSION));
  }
  auto over = [](const std::vector<std::string>& texts) {
    return std::any_of(texts.begin(), texts.end(), [](const std::string& t) { return t.size() > kMaxHelloText; });
  };
  std::string broken;
  if (info.harness_version.size() > kMaxHelloText) broken = "a harness_version";
  else if (info.capabilities.size() > kMaxHelloItems || over(info.capabilities)) broken = "capabilities";
  else if (info.missing.size() > kMaxHelloItems || over(info.missing)) broken = "missing";
  else if (info.context.size() > kMaxHelloItems) broken = "context";
  for (const auto& [key, value] : info.context)
    if (key.size() > kMaxHelloText || value.size() > kMaxHelloText) broken = "context";
  if (!broken.empty()) {
    return fault("connect", fmt::format("the agent's hello has {} over its bounds ({} entries of {} bytes)", broken,
                                        kMaxHelloItems, kMaxHelloText));
  }
  return ok();
}

RemoteDevice::~RemoteDevice() { (void)bye(); }

Status RemoteDevice::bye() {
  if (!link_) return ok();
  if (info_.protocol == 0 || given_up_) {  // no agent ever answered, or it is not to be trusted with a bye
    link_->close(0.2);
    link_.reset();
    return ok();
  }
  Result<json> r = call("bye", json::object(), "disconnect", {5, "a bye"});
  link_->close(2);
  link_.reset();
  if (!r) return r.error();
  return ok();
}

void RemoteDevice::give_up() {
  given_up_ = true;
  if (link_) link_->close(0.2);  // stdin closed, then its process group ended
}

Result<json> RemoteDevice::call(const std::string& op, json args, std::string_view phase, const Deadline& deadline,
                                const EventHandler& on_event, std::stop_token stop) {
  if (!link_ || given_up_) return fault(phase, "the link to the agent is closed");
  const std::int64_t id = next_id_++;
  args["id"] = id;
  args["op"] = op;
  if (Status sent = link_->send(args.dump()); !sent) return connection_lost(phase);
  // The agent beats only once it runs: until its hello, connect_timeout alone bounds the wait.
  const double silence_limit = op == "hello" ? std::numeric_limits<double>::infinity() : options_.heartbeat_timeout_s;
  const Steady::time_point asked = Steady::now();
  Steady::time_point last_heard = asked, cancelled;
  bool cancel_sent = false;
  auto giving_up = [&](Error e) {
    give_up();
    return e;
  };
  for (;;) {
    if ((stop.stop_requested() || stop_.stop_requested()) && !cancel_sent) {
      cancel_sent = true;
      cancelled = Steady::now();
      (void)link_->send(json{{"id", next_id_++}, {"op", "cancel"}}.dump());
    }
    // An agent that does not answer its cancel in time is ended with its link.
    if (cancel_sent && seconds_since(cancelled) > kCancelGraceS) return giving_up(interrupted_error());
    if (seconds_since(asked) > deadline.seconds) {
      return giving_up(fault(phase, fmt::format("the agent did not answer within {:.3g} s ({})", deadline.seconds,
                                                deadline.why)));
    }
    std::string line;
    Result<AgentLink::Got> got = link_->receive(0.1, line);
    if (!got) return giving_up(fault(phase, got.error().message));
    if (*got == AgentLink::Got::timeout) {
      if (seconds_since(last_heard) > silence_limit) {
        return giving_up(
            fault(phase, fmt::format("the agent was silent for {:.3g} s (heartbeat timeout)", silence_limit)));
      }
      continue;
    }
    if (*got == AgentLink::Got::closed) return connection_lost(phase);
    last_heard = Steady::now();  // alive: the deadline stays where it was
    Result<json> message = protocol::parse_line(line);
    if (!message) return giving_up(fault(phase, message.error().message));
    try {
      const json& m = *message;
      if (m.value("event", "") == "heartbeat") continue;
      const bool ours = m.contains("id") && m["id"].is_number_integer() && m["id"].get<std::int64_t>() == id;
      if (!ours) {
        if (m.contains("ok") && !m.value("ok", true) && (!m.contains("id") || m["id"].is_null())) {
          return giving_up(fault(phase, "the agent refused a message: " + m.value("error", std::string("?"))));
        }
        continue;  // a cancel's reply, a late event of an earlier op
      }
      if (m.contains("event")) {
        if (!on_event) continue;
        if (Status taken = on_event(m); !taken) return giving_up(fault(phase, taken.error().message));
        continue;
      }
      if (m.value("ok", false)) return m.value("result", json::object());
      std::string error = m.value("error", std::string("(no message)"));
      int exit = m.value("exit", 3);
      if (cancel_sent) return Error::infra("interrupted");
      return Error{fmt::format("rig '{}': {}: {}", options_.rig, phase, error),
                   exit == 2 ? ExitCode::bad_input : ExitCode::infrastructure};
    } catch (const json::exception& e) {
      return giving_up(fault(phase, std::string("a malformed message from the agent: ") + e.what()));
    }
  }
}

RemoteDevice::Deadline RemoteDevice::short_op(std::string what, double extra_s) const {
  return {options_.heartbeat_timeout_s + extra_s, std::move(what)};
}

// The plan's warm-up iterations and one more past the window, each bounded
// by the workload's timeout, and the window's own bound.
RemoteDevice::Deadline RemoteDevice::workload_deadline(const Workload&, const IterationPlan& plan) const {
  const double each = plan.iteration_timeout_s, link = options_.heartbeat_timeout_s;
  return {static_cast<double>(plan.warmup + 1) * each + plan.run_timeout_s + link,
          fmt::format("the plan: {} warm-up iterations and one more of at most {:.3g} s each, a window of at most "
                      "{:.3g} s, and {:.3g} s for the link",
                      plan.warmup, each, plan.run_timeout_s, link)};
}

// A warm-up and the configured iterations of the workload, and the counter
// sources read before, between the windows and after.
RemoteDevice::Deadline RemoteDevice::counters_deadline(const Workload& w, const CountersConfig& c) const {
  double sources_s = 0;
  for (const CounterGroup& g : c.groups)
    for (const CounterSourceSpec& s : g.sources) sources_s += s.timeout_s;
  const double link = options_.heartbeat_timeout_s;
  return {static_cast<double>(c.iterations + 1) * w.timeout_s + static_cast<double>(c.windows + 1) * sources_s + link,
          fmt::format("the request: {} iterations and a warm-up of at most {:.3g} s each, {} readings of sources "
                      "of at most {:.3g} s, and {:.3g} s for the link",
                      c.iterations, w.timeout_s, c.windows + 1, sources_s, link)};
}

// The vendor tools' timeouts, and each ceiling and kernel measurement of
// every round (a warm-up round besides) within kMeasurementBoundS.
RemoteDevice::Deadline RemoteDevice::roofline_deadline(const RooflineConfig& c) const {
  double vendor_s = 0;
  for (const VendorTool& t : c.vendor) vendor_s += t.timeout_s;
  std::int64_t threads = c.threads;
  if (threads <= 0) {  // all of the device's CPUs, as it said in its hello
    auto it = info_.context.find("cpu_count");
    threads = it == info_.context.end() ? 0 : std::atoll(it->second.c_str());
    threads = std::clamp<std::int64_t>(threads, 1, 4096);
  }
  std::int64_t measurements = c.host_benchmarks ? 2 * threads + 2 + static_cast<std::int64_t>(c.bursts.size()) : 0;
  int most_rounds = c.repetitions;
  for (const RooflineKernel& k : c.kernels) {
    if (!k.builtin || k.time) continue;
    measurements += is_paired(c, k) ? 2 : 1;  // with its reference: two a round
    most_rounds = std::max(most_rounds, timed_rounds(c, k));
  }
  const double link = options_.heartbeat_timeout_s, rounds = most_rounds + 1.0;
  return {vendor_s + rounds * static_cast<double>(measurements) * kMeasurementBoundS + link,
          fmt::format("the request: vendor tools of at most {:.3g} s, {:.0f} rounds of {} measurements of at most "
                      "{:.3g} s each, and {:.3g} s for the link",
                      vendor_s, rounds, measurements, kMeasurementBoundS, link)};
}

Result<ClockOffset> RemoteDevice::sync() {
  std::vector<ClockProbe> probes;
  for (int i = 0; i < options_.sync_probes; ++i) {
    ClockProbe p;
    p.host_send_ns = clock_.now_ns();
    Result<json> r = call("time", json::object(), "clock sync", short_op("a clock reading"));
    p.host_receive_ns = clock_.now_ns();
    if (!r) return r.error();
    Result<std::uint64_t> t = field(*r, "t_ns", std::uint64_t{0});
    if (!t) return fault("clock sync", t.error().message);
    if (*t > protocol::kMaxClockNs) return fault("clock sync", fmt::format("the agent's clock says {} ns", *t));
    p.device_ns = *t;
    probes.push_back(p);
  }
  offset_ = estimate_offset(probes);
  return offset_;
}

Result<WorkloadWindow> RemoteDevice::run_workload(const Workload& workload, const IterationPlan& plan,
                                                  const IterationSink& sink, std::stop_token stop) {
  const std::string_view phase = "the workload window";
  const std::int64_t most = most_iterations(plan);
  std::int64_t received = 0;
  progress_ = fmt::format("0 of {} iterations", plan.iterations);
  // Every device time must fall inside the op as this host saw it, widened
  // by the sync's uncertainty and what two crystals may drift apart.
  const std::uint64_t asked_ns = clock_.now_ns();
  auto inside = [&](std::uint64_t device_ns, const char* what) -> Status {
    const std::uint64_t now_ns = clock_.now_ns();
    const __int128 slack = static_cast<__int128>(offset_.uncertainty_ns) + 1'000'000 + (now_ns - asked_ns) / 10'000;
    const __int128 host = static_cast<__int128>(device_ns) - offset_.offset_ns;
    if (host >= static_cast<__int128>(asked_ns) - slack && host <= static_cast<__int128>(now_ns) + slack) return ok();
    return Error::infra(fmt::format("the agent sent {} at {:.6g} s from the request, outside the {:.3g} s it has run",
                                    what, static_cast<double>(host - static_cast<__int128>(asked_ns)) * 1e-9,
                                    static_cast<double>(now_ns - asked_ns) * 1e-9));
  };
  auto on_event = [&](const json& m) -> Status {
    if (m.value("event", "") != "iterations") return ok();
    Result<IterationBatch> decoded = protocol::decode_iterations(m, static_cast<std::size_t>(most - received));
    if (!decoded) return decoded.error();
    IterationBatch& batch = *decoded;
    for (std::size_t i = 0; i < batch.start_ns.size(); ++i) {
      HARNESS_TRY(inside(batch.start_ns[i], "an iteration's start"));
      HARNESS_TRY(inside(batch.end_ns[i], "an iteration's end"));
      batch.start_ns[i] = offset_.to_host(batch.start_ns[i]);
      batch.end_ns[i] = offset_.to_host(batch.end_ns[i]);
    }
    received += static_cast<std::int64_t>(batch.start_ns.size());
    progress_ = fmt::format("{} of {} iterations", received, plan.iterations);
    sink(batch);
    return ok();
  };
  // The reply comes after the warm-up and the whole window: the heartbeats
  // keep the link alive meanwhile, the plan bounds how long.
  Result<json> r = call("workload", {{"workload", protocol::to_wire(workload)}, {"plan", protocol::to_wire(plan)}},
                        phase, workload_deadline(workload, plan), on_event, stop);
  if (!r) {
    progress_.clear();
    return r.error();
  }
  // The reply, believed only when it agrees with what the agent sent.
  WorkloadWindow window;
  auto check_reply = [&]() -> Status {
    Result<std::uint64_t> measuring = field(*r, "measuring_ns", std::uint64_t{0}), end = field(*r, "end_ns", std::uint64_t{0});
    Result<std::int64_t> count = field(*r, "iterations", std::int64_t{0});
    if (!measuring || !end || !count) return Error::infra("a malformed reply");
    if (*count != received) {
      return Error::infra(fmt::format("the agent's reply counts {} iterations, it sent {}", *count, received));
    }
    HARNESS_TRY(inside(*measuring, "the window's start"));
    HARNESS_TRY(inside(*end, "the window's end"));
    if (*measuring > *end) return Error::infra("the agent sent a window that ends before it starts");
    window = {offset_.to_host(*measuring), offset_.to_host(*end), *count, std::nullopt};
    if (plan.counters) {  // asked: the counters over exactly the iterations sent, in the windows asked
      if (!r->contains("counters")) return Error::infra("the reply has no counters, which the plan asked for");
      CountersRecording c;
      try {
        c = r->at("counters").get<CountersRecording>();
      } catch (const json::exception& e) {
        return Error::infra(std::string("malformed counters: ") + e.what());
      }
      std::int64_t sum = 0;
      for (std::int64_t l : c.window_iterations) sum += l >= 0 ? l : -*count - 1;
      const std::int64_t most_windows = std::clamp<std::int64_t>(plan.counters->windows, 1, plan.iterations);
      if (c.unavailable.empty() &&
          (c.iterations != *count || c.windows < 1 || c.windows > most_windows ||
           static_cast<std::int64_t>(c.window_iterations.size()) != c.windows || sum != *count ||
           c.groups.size() != plan.counters->groups.size() || !c.window_sides.empty() || !c.blocks.empty())) {
        return Error::infra(fmt::format("the agent's counters count {} iterations in {} windows of {} groups, the "
                                        "window ran {} in at most {} of {}",
                                        c.iterations, c.windows, c.groups.size(), *count, most_windows,
                                        plan.counters->groups.size()));
      }
      window.counters = std::move(c);
    }
    return ok();
  };
  Status checked = check_reply();
  Error refused = checked ? Error{} : fault(phase, checked.error().message);
  progress_.clear();
  if (!checked) {
    give_up();
    return refused;
  }
  return window;
}

namespace {

// A level's "step" events, handed on as they arrive; a malformed one ends
// the op as a fault.
struct StepForwarder {
  RunProgress* steps;
  Status operator()(const json& m) {
    if (m.value("event", "") != "step" || !steps) return ok();
    Result<ProgressEvent> e = protocol::decode_step(m);
    if (!e) return e.error();
    steps->report(*e);
    return ok();
  }
};

// Measured figures are finite and non-negative, and no more of them than
// the repetitions asked for.
Status check_repeated(const std::vector<double>& values, int repetitions, const std::string& name) {
  if (values.size() > static_cast<std::size_t>(std::max(repetitions, 0))) {
    return Error::infra(fmt::format("the agent sent {} values of {}, for {} repetitions", values.size(), name,
                                    repetitions));
  }
  for (double v : values)
    if (!std::isfinite(v) || v < 0) return Error::infra(fmt::format("the agent sent {} for {}", v, name));
  return ok();
}

}  // namespace

Result<CountersRecording> RemoteDevice::measure_counters(const Workload& workload, const CountersConfig& config,
                                                         std::stop_token stop, RunProgress* steps) {
  const std::string_view phase = "level 2 (counters)";
  Result<json> r = call("counters", {{"workload", protocol::to_wire(workload)}, {"counters", protocol::to_wire(config)}},
                        phase, counters_deadline(workload, config), StepForwarder{steps}, stop);
  if (!r) return r.error();
  CountersRecording recording;
  try {
    recording = r->get<CountersRecording>();
  } catch (const json::exception& e) {
    give_up();
    return fault(phase, std::string("malformed reply: ") + e.what());
  }
  // What the request asked for: with a reference, its rounds of both sides
  // (the agent's own plan).
  const WindowPlan asked = plan_windows(config);
  const auto asked_windows = static_cast<std::int64_t>(asked.length.size());
  if (recording.unavailable.empty() &&
      (recording.iterations != asked.total() || recording.windows != asked_windows ||
       recording.groups.size() != config.groups.size())) {
    give_up();
    return fault(phase, fmt::format("the agent's reply counts {} iterations in {} windows of {} groups, the request "
                                    "asked {} in {} of {}",
                                    recording.iterations, recording.windows, recording.groups.size(),
                                    asked.total(), asked_windows, config.groups.size()));
  }
  return recording;
}

Result<RooflineRecording> RemoteDevice::measure_roofline(const RooflineConfig& config, std::stop_token stop,
                                                         RunProgress* steps) {
  const std::string_view phase = "level 1 (ceilings and kernels)";
  Result<json> r = call("roofline", {{"roofline", protocol::to_wire(config)}}, phase, roofline_deadline(config),
                        StepForwarder{steps}, stop);
  if (!r) return r.error();
  RooflineRecording recording;
  Status checked = ok();
  try {
    recording = r->get<RooflineRecording>();
    for (const CeilingSamples& c : recording.ceilings)
      if (checked) checked = check_repeated(c.values, config.repetitions, c.name);
    for (const KernelTiming& k : recording.kernels) {
      auto asked = std::find_if(config.kernels.begin(), config.kernels.end(),
                                [&](const RooflineKernel& c) { return c.name == k.name && c.builtin && !c.time; });
      if (asked == config.kernels.end()) {
        checked = Error::infra("the agent sent the times of kernel " + k.name + ", which the request did not name");
        break;
      }
      const int rounds = timed_rounds(config, *asked);
      if (checked) checked = check_repeated(k.seconds, rounds, "kernel " + k.name);
      if (checked) checked = check_repeated(k.reference_seconds, is_paired(config, *asked) ? rounds : 0,
                                            "the reference of kernel " + k.name);
      if (!checked) break;
    }
  } catch (const json::exception& e) {
    checked = Error::infra(std::string("malformed reply: ") + e.what());
  }
  if (!checked) {
    give_up();
    return fault(phase, checked.error().message);
  }
  return recording;
}

Result<int> RemoteDevice::start_load(const std::vector<std::string>& argv) {
  Result<json> r = call("load.start", {{"argv", argv}}, "starting the background load", short_op("starting a load"));
  if (!r) return r.error();
  Result<int> id = field(*r, "id", 0);
  if (!id) return fault("starting the background load", id.error().message);
  return *id;
}

Status RemoteDevice::check_load(int id) {
  Result<json> r = call("load.check", {{"load", id}}, "the background load check", short_op("a load check"));
  if (!r) return r.error();
  return ok();
}

Result<LoadStopped> RemoteDevice::stop_load(int id) {
  Result<json> r = call("load.stop", {{"load", id}}, "stopping the background load",
                        short_op("stopping a load, which has 3 s to end", 3));
  if (!r) return r.error();
  Result<std::string> end = field(*r, "end", std::string()), output = field(*r, "output", std::string());
  if (!end || !output) return fault("stopping the background load", "a malformed reply");
  return LoadStopped{*end, *output};
}

Status RemoteDevice::begin_stability(const StabilityPlan& plan) {
  // An agent older than the readings would not know the op: not asked.
  if (!info_.offers("stability")) {
    return Error::infra(fmt::format("the agent (harness {}) takes no stability readings: install this host's "
                                    "(harness rig install SCENARIO)", info_.harness_version));
  }
  Result<json> r = call("stability.begin", {{"plan", protocol::to_wire(plan)}}, "the stability readings",
                        short_op("a stability reading and the canary, 30 s at most", 30));
  if (!r) return r.error();
  return ok();
}

Result<std::vector<StabilityReading>> RemoteDevice::end_stability() {
  Result<json> r = call("stability.end", json::object(), "the stability readings",
                        short_op("a stability reading and the canary, 30 s at most", 30));
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
                          "fetching " + path,
                          short_op("reading the file at 10 MB/s at least", static_cast<double>(max_bytes) / 1e7));
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
