#include "harness/runner/preflight.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/files.h"
#include "harness/base/input_limits.h"
#include "harness/rig/remote_device.h"
#include "harness/runner/acquire.h"
#include "harness/scenario/scenario_problems.h"
#include "probes/capture/readers.h"
#include "probes/capture/sigrok.h"
#include "probes/load/background_load.h"
#include "probes/power/power_source.h"
#include "probes/process.h"
#include "probes/workload/workload_runner.h"

namespace harness {
namespace {

// Stops a capture reader once it knows the header: the format, the channels
// and what the file declares have been checked against the run's limits by
// then, and nothing large is read.
class HeaderOnly final : public CaptureSink {
 public:
  static constexpr const char* kEnough = "pre-flight: header read";
  Status begin(const CaptureHeader& h) override {
    header = h;
    return Error::input(kEnough);
  }
  Status samples(const std::uint8_t*, std::size_t) override { return ok(); }
  Status end() override { return ok(); }
  CaptureHeader header;
};

// Whatever failed, before a run it means the scenario cannot run here: bad
// input. An unreachable rig is the exception (add_fault).
void add(Preflight& out, const std::string& where, const std::string& what, const Error& e) {
  out.problems.push_back(Error::input(fmt::format("{}: {}: {}", where, what, e.message)));
}

// A rig that cannot be reached, or whose agent refuses the host (another
// protocol, a malformed hello), is a fault of the rig, not of the scenario:
// `check` reports it with the rest, and `run` leaves it to the run, which
// stores itself aborted with the reason (exit 3) so the night is on record.
void add_fault(Preflight& out, const std::string& where, const std::string& what, const Error& e) {
  out.problems.push_back(Error::infra(fmt::format("{}: {}: {}", where, what, e.message)));
}

void check_capture(const Scenario& s, Preflight& out) {
  const DdrConfig& c = *s.ddr;
  if (c.capture.empty()) return;
  ReadOptions read;
  read.format = c.format;
  read.samplerate = c.samplerate;
  read.limits = c.reader_limits;
  read.jobs = 1;
  HeaderOnly sink;
  Status st = read_capture(c.capture_path, read, sink);
  if (!st && st.error().message != HeaderOnly::kEnough) {
    add(out, where_in_scenario(s, "ddr.capture"), fmt::format("[ddr] capture \"{}\"", c.capture), st.error());
    return;
  }
  out.checked.push_back(fmt::format("capture {}: {}, {} channels, {}", c.capture_path, sink.header.format,
                                    sink.header.channels.size(), samplerate_text(sink.header.samplerate)));
}

void check_sigrok_driver(const std::string& driver, const std::string& where, const std::string& what,
                         Preflight& out) {
  Result<std::shared_ptr<sigrok::Driver>> found = Error::input("");
  Status st = sigrok_guarded("sigrok", [&]() -> Status {
    found = find_sigrok_driver(driver);
    return ok();
  });
  if (!st) return add(out, where, what, st.error());
  if (!found) return add(out, where, what, found.error());
  out.checked.push_back(fmt::format("sigrok driver {}", driver));
}

// Level 5's host dumps: each set there, then their headers and pairing.
void check_accuracy(const AccuracyConfig& a, Preflight& out) {
  std::vector<std::pair<const AccuracyDumpSource*, const char*>> sets = {{&a.reference, "reference"}};
  if (!a.on_device) {
    sets.push_back({&a.device, "device"});
    if (a.isolated) sets.push_back({&*a.isolated, "isolated"});
  }
  std::vector<std::string> paths;
  bool all_there = true;
  for (const auto& [source, role] : sets) {
    Status there = check_accuracy_source(*source, role);
    if (!there) out.problems.push_back(there.error());
    all_there = all_there && there;
    paths.push_back(source->path);
  }
  if (!all_there) return;
  Status st = check_accuracy_dumps(a, paths);
  if (!st) add(out, a.reference.where, "[accuracy]", st.error());
  else out.checked.push_back(fmt::format("tensor dumps {}", fmt::join(paths, ", ")));
}

// The host's files and instruments, read as a run reads them.
void check_host(const Scenario& s, Preflight& out) {
  if (s.ddr) {
    check_capture(s, out);
    if (s.ddr->acquire)
      check_sigrok_driver(s.ddr->acquire->driver, where_in_scenario(s, "ddr.acquire.driver"), "[ddr.acquire] driver", out);
  }
  if (s.roofline && s.roofline->profile) {
    Status st = check_layer_profile(*s.roofline->profile);
    if (!st) out.problems.push_back(Error::input(st.error().message));
    else out.checked.push_back("layer profile " + s.roofline->profile->path);
  }
  if (s.accuracy) check_accuracy(*s.accuracy, out);
  if (s.latency) {
    const PowerConfig& p = s.latency->power;
    if (p.source == "sigrok") check_sigrok_driver(p.driver, where_in_scenario(s, "latency.power.driver"), "[latency.power] driver", out);
    Result<PowerOpen> power = open_power_source(p);
    if (!power) add(out, where_in_scenario(s, "latency.power"), "[latency.power]", power.error());
  }
}

// A program the scenario runs on the device, with where it is named.
struct Program {
  std::string name;  // argv[0]
  std::string where;
  std::string what;  // "[latency] load \"stress-ng --cpu 1\""
};

std::vector<Program> device_programs(const Scenario& s) {
  std::vector<Program> out;
  if (s.workload.kind == Workload::Kind::command && !s.workload.command.empty())
    out.push_back({s.workload.command.front(), where_in_scenario(s, "workload.command"), "[workload] command"});
  if (s.latency)
    for (const LoadCondition& l : s.latency->loads)
      if (!l.argv.empty()) out.push_back({l.argv.front(), l.where, fmt::format("[latency] load \"{}\"", fmt::join(l.argv, " "))});
  if (s.roofline)
    for (std::size_t i = 0; i < s.roofline->vendor.size(); ++i)
      if (const VendorTool& v = s.roofline->vendor[i]; !v.argv.empty())
        out.push_back({v.argv.front(), where_in_scenario(s, fmt::format("roofline.vendor[{}].command", i)),
                       fmt::format("[[roofline.vendor]] \"{}\" command", v.name)});
  if (s.counters)
    for (const CounterGroup& g : s.counters->groups)
      for (const CounterSourceSpec& src : g.sources)
        if (src.kind == "command" && !src.command.empty())
          out.push_back({src.command.front(), src.where, fmt::format("counter group \"{}\" source \"{}\"", g.name, src.name)});
  for (const VersionCommand& v : s.rig.versions)
    if (!v.argv.empty())
      out.push_back({v.argv.front(), where_in_scenario(s, "rig.versions." + v.name), fmt::format("[rig.versions] {}", v.name)});
  return out;
}

// A short command on the device, through its load mechanism (any agent has
// it): how it ended and its last output, or why it could not start.
Result<LoadStopped> run_briefly(Device& device, const std::vector<std::string>& argv, double timeout_s) {
  Result<int> id = device.start_load(argv);
  if (!id) return id.error();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (device.check_load(*id) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return device.stop_load(*id);
}

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  std::size_t at = t.rfind('\n');
  return at == std::string::npos ? t : t.substr(at + 1);
}

// Each stress-ng load parsed by stress-ng itself (--dry-run runs no
// stressor): an unknown option or stressor, a job file it cannot open. On
// the device when it is reached; else by this host's stress-ng, which is
// the device's for a local rig and the best guess for one not reached.
void check_stress_ng_loads(const Scenario& s, Device* device, Preflight& out) {
  if (!s.latency) return;
  for (const LoadCondition& l : s.latency->loads) {
    if (l.argv.empty() || std::filesystem::path(l.argv.front()).filename() != "stress-ng") continue;
    std::vector<std::string> argv = l.argv;
    argv.push_back("--dry-run");
    const std::string what = fmt::format("[latency] load \"{}\"", fmt::join(l.argv, " "));
    std::string end, output, note;
    if (device) {
      Result<LoadStopped> ran = run_briefly(*device, argv, 10);
      if (!ran) return add(out, l.where, what, ran.error());
      end = ran->end;
      output = ran->output;
    } else {
      if (!find_executable(argv.front())) continue;  // reported as a missing program, or the device's to have
      Result<CommandResult> ran = run_command(argv, {.timeout_s = 10, .max_output = 1 << 16});
      if (!ran) return add(out, l.where, what, ran.error());
      end = ran->describe_end();
      output = ran->out + ran->err;
      if (s.rig.transport.kind != "local") note = " (checked by this host's stress-ng: the device was not asked)";
    }
    if (end != "exit status 0")
      add(out, l.where, what, Error::input(fmt::format("stress-ng refuses it ({}): {}{}", end, last_line(output), note)));
  }
}

// On a remote device every program is looked up in the device's PATH.
void check_remote_programs(const Scenario& s, Device& device, Preflight& out) {
  for (const Program& p : device_programs(s)) {
    Result<LoadStopped> ran = run_briefly(device, {"sh", "-c", "command -v \"$1\"", "sh", p.name}, 10);
    if (!ran) add(out, p.where, p.what, ran.error());
    else if (ran->end != "exit status 0")
      add(out, p.where, p.what, Error::input(fmt::format("command '{}': not found in the device's PATH", p.name)));
  }
}

bool needs_device(const Scenario& s) {
  return s.roofline || s.counters || s.latency || (s.accuracy && s.accuracy->on_device);
}

// The device asked through the rig's transport; the loads' arguments are
// checked there, or here when it cannot be reached.
void check_rig(const Scenario& s, Preflight& out) {
  MonotonicClock clock;
  Result<std::unique_ptr<RemoteDevice>> device = RemoteDevice::connect(RemoteOptions::for_rig(s.rig), clock);
  if (!device) {
    add_fault(out, where_in_scenario(s, "rig"),
              fmt::format("[rig] \"{}\" via {} is unreachable", s.rig.name, describe_transport(s.rig.transport)),
              device.error());
    check_stress_ng_loads(s, nullptr, out);
    return;
  }
  const DeviceInfo& info = (*device)->info();
  out.checked.push_back(fmt::format("rig '{}' via {}: agent harness {} (protocol {})", s.rig.name,
                                    describe_transport(s.rig.transport), info.harness_version, info.protocol));
  for (const std::string& unmet : unmet_device_needs(s, info))
    out.problems.push_back(Error::input(fmt::format("{}: [rig] \"{}\": {}", where_in_scenario(s, "rig"), s.rig.name, unmet)));
  if (s.rig.transport.kind != "local") check_remote_programs(s, **device, out);
  check_stress_ng_loads(s, device->get(), out);
  (void)(*device)->bye();
}

}  // namespace

std::vector<std::string> unmet_device_needs(const Scenario& s, const DeviceInfo& info) {
  auto has = [&](const char* c) { return info.offers(c); };
  std::vector<std::string> unmet;
  if (s.latency) {
    for (const LoadCondition& l : s.latency->loads) {
      if (!l.argv.empty() && l.argv.front() == "stress-ng" && !has("stress-ng")) {
        unmet.push_back(fmt::format("load \"{}\" needs stress-ng on the device", l.name));
      }
    }
  }
  if (s.counters) {
    for (const CounterGroup& g : s.counters->groups)
      for (const CounterSourceSpec& src : g.sources)
        if (src.kind == "perf_event" && !has("perf_event")) {
          unmet.push_back(fmt::format("counter group \"{}\" reads perf_event, which the device does not allow", g.name));
        }
  }
  return unmet;
}

Preflight preflight_scenario(const Scenario& s, const PreflightOptions& options) {
  Preflight out;
  check_host(s, out);
  if (s.rig.transport.kind == "local") {
    // The device is this host: its programs are looked up here, without the agent.
    for (const Program& p : device_programs(s)) {
      Result<std::string> exe = find_executable(p.name);
      if (!exe) {
        Status st = p.name == "stress-ng" ? check_load_command({p.name}) : Status(exe.error());
        add(out, p.where, p.what, st.error());
      }
    }
  }
  if (options.ask_rig && needs_device(s)) check_rig(s, out);
  else if (s.rig.transport.kind == "local") check_stress_ng_loads(s, nullptr, out);
  out.problems = sorted_by_position(std::move(out.problems), s.path);
  return out;
}

Preflight preflight_file(const std::string& path, const PreflightOptions& options, std::optional<Scenario>* parsed) {
  Preflight out;
  Result<std::string> text = read_regular_file(path, kMaxScenarioBytes, "scenario");
  if (!text) {
    out.problems.push_back(text.error());
    return out;
  }
  ScenarioProblems p = parse_scenario_problems(std::move(*text), path);
  if (!p.problems.empty()) {
    out.problems = std::move(p.problems);
    // The sections that parsed are still checked: a missing capture or an
    // unreachable rig is worth knowing beside a mistyped key. The rig is not
    // asked when its own section (the transport) or the workload failed.
    auto failed = [&](const char* section) {
      return std::find(p.failed_sections.begin(), p.failed_sections.end(), section) != p.failed_sections.end();
    };
    Preflight more = preflight_scenario(p.scenario, {.ask_rig = options.ask_rig && !failed("rig") && !failed("workload")});
    for (Error& e : more.problems) out.problems.push_back(std::move(e));
    out.checked = std::move(more.checked);
    out.problems = sorted_by_position(std::move(out.problems), path);
    return out;
  }
  out = preflight_scenario(p.scenario, options);
  if (parsed) *parsed = std::move(p.scenario);
  return out;
}

}  // namespace harness
