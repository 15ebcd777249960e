#include <algorithm>
#include <filesystem>
#include <chrono>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/compare/calibration.h"
#include "harness/rig/agent_install.h"
#include "harness/rig/remote_device.h"
#include "harness/runner/preflight.h"
#include "harness/scenario/scenario.h"
#include "harness/store/store.h"
#include "reports/rig_stability.h"

namespace harness {
namespace {

// The rig's calibration of the scenario in the run store, in words; nothing
// is created: a store that does not exist yet has none.
Result<std::string> calibration_words(const GlobalOptions& global, const Scenario& s) {
  const std::string path = resolve_database_path(global.db);
  std::error_code ec;
  if (path.find("://") == std::string::npos && !std::filesystem::exists(path, ec))
    return std::string("none (no run store yet)");
  Result<Store> store = Store::open(path);
  if (!store) return store.error();
  Result<std::optional<Calibration>> c = store->latest_calibration(s.name, s.rig.name);
  if (!c) return c.error();
  if (!*c) {
    return fmt::format("none: 'harness calibrate {} --nights 20' measures this rig's false-alarm rate and the smallest "
                       "change it can tell",
                       s.path);
  }
  return calibration_summary(**c, s.compare.value_or(CompareConfig{}));
}

// The rig's steadiness as it is now, on the workload's CPUs: two full
// readings (each with the canary) a second apart, so that the second shows
// who used the CPUs in between and the canary's spread.
Result<std::vector<StabilityReading>> read_stability_twice(Device& device, const Scenario& s) {
  HARNESS_TRY(device.begin_stability({s.workload.cpus, s.workload.first_cpu, 0}));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return device.end_stability();
}

// The device's agent against the one `rig install` would copy there, by
// sha256 (a version says nothing between two builds of one version). The
// local transport's default agent is this harness itself.
struct AgentCheck {
  std::optional<AgentComparison> compared;
  std::string said;  // what rig check says of it, after "agent binary: "
};
AgentCheck check_agent_binary(const Scenario& s) {
  const TransportOptions& t = s.rig.transport;
  if (t.kind == "local" && t.agent.empty()) return {std::nullopt, "this harness itself (harness agent)"};
  Result<AgentComparison> c = compare_agent(t, {});
  if (!c) return {std::nullopt, "not compared with this host's: " + c.error().message};
  if (c->same()) {
    return {*c, fmt::format("{} on the device is this host's agent for {} (sha256 {})", c->device_path, c->arch,
                            c->sha256)};
  }
  return {*c, agent_difference(*c, s.path)};
}

Result<ExitCode> run_install(const std::string& path, const AgentInstallOptions& options, const GlobalOptions& global,
                             Io io) {
  Result<Scenario> scenario = load_scenario(path);
  if (!scenario) return scenario.error();
  const Rig& rig = scenario->rig;
  Result<AgentInstall> in = install_agent(rig.transport, options);
  if (!in) return in.error();
  if (global.json) {
    io.out << nlohmann::json{{"rig", rig.name},           {"transport", describe_transport(rig.transport)},
                             {"machine", in->machine},    {"agent", in->local_file},
                             {"device_path", in->device_path}, {"sha256", in->sha256},
                             {"copied", in->copied},      {"version", in->version}}
                  .dump(2)
           << "\n";
    return ExitCode::ok;
  }
  // The device's answers (its machine, the agent's version line) are data:
  // shown escaped, as rig check shows them.
  std::string text = fmt::format("rig '{}' via {}: the device is {}\n", terminal_safe(rig.name),
                                 describe_transport(rig.transport), terminal_safe(in->machine));
  if (in->copied) {
    text += fmt::format("copied {} to {} (sha256 {})\n", terminal_safe(in->local_file), terminal_safe(in->device_path),
                        in->sha256);
  } else {
    text += fmt::format("{} on the device is already {} (sha256 {}): nothing copied\n",
                        terminal_safe(in->device_path), terminal_safe(in->local_file), in->sha256);
  }
  text += fmt::format("it answers: {}\n", terminal_safe(in->version));
  io.out << text;
  return ExitCode::ok;
}

}  // namespace

Action setup_rig(CLI::App& app, const GlobalOptions& global, Io io) {
  app.require_subcommand(1);
  CLI::App* check = app.add_subcommand("check", "Reach the scenario's rig: agent version, device context, clock offset, what is missing");
  auto path = std::make_shared<std::string>();
  check->add_option("scenario", *path, "Scenario file (TOML)")->required();
  CLI::App* install = app.add_subcommand(
      "install", "Copy the agent built for the device's architecture to the device over the rig's transport, and check it");
  auto install_path = std::make_shared<std::string>();
  auto install_options = std::make_shared<AgentInstallOptions>();
  install->add_option("scenario", *install_path, "Scenario file (TOML)")->required();
  install->add_option("--to", install_options->device_path,
                      "The agent's path on the device (default: the path in the scenario's [rig] agent)");
  install->add_option("--from", install_options->builds_dir,
                      "Where the agents are (default: this executable's folder, with scripts/build-agent's "
                      "agent-<arch>/ beneath it)");
  return [=, &global]() -> Result<ExitCode> {
    if (install->parsed()) return run_install(*install_path, *install_options, global, io);
    Result<Scenario> scenario = load_scenario(*path);
    if (!scenario) return scenario.error();
    const Rig& rig = scenario->rig;
    MonotonicClock clock;
    Result<std::unique_ptr<RemoteDevice>> device = RemoteDevice::connect(RemoteOptions::for_rig(rig), clock);
    if (!device) return device.error();
    const DeviceInfo& info = (*device)->info();
    const ClockOffset& offset = (*device)->offset();
    std::vector<std::string> unmet = unmet_device_needs(*scenario, info);
    const AgentCheck agent = check_agent_binary(*scenario);
    Result<std::vector<StabilityReading>> stability = read_stability_twice(**device, *scenario);
    if (stability && stability->size() < 2) stability = Error::infra("the device returned fewer than two readings");
    (void)(*device)->bye();
    Result<std::string> calibration = calibration_words(global, *scenario);
    if (!calibration) return calibration.error();
    const StabilityConfig& limits = rig.stability;
    const bool pinned = !scenario->workload.cpus.empty() || scenario->workload.first_cpu;
    if (global.json) {
      nlohmann::json j = {{"rig", rig.name},
                          {"transport", describe_transport(rig.transport)},
                          {"agent_version", info.harness_version},
                          {"protocol", info.protocol},
                          {"capabilities", info.capabilities},
                          {"context", info.context},
                          {"clock_offset_ns", offset.offset_ns},
                          {"clock_uncertainty_ns", offset.uncertainty_ns},
                          {"rtt_ns", offset.rtt_ns},
                          {"missing", info.missing},
                          {"unmet", unmet},
                          {"calibration", *calibration}};
      if (agent.compared) {
        const AgentComparison& c = *agent.compared;
        j["agent_binary"] = {{"machine", c.machine},         {"arch", c.arch},
                             {"device_path", c.device_path}, {"device_sha256", c.device_sha256},
                             {"agent", c.local_file},        {"sha256", c.sha256},
                             {"same", c.same()}};
      } else {
        j["agent_binary"] = {{"unavailable", agent.said}};
      }
      j["stability"] = stability ? rig_stability_json(stability->front(), stability->back(), limits, pinned)
                                 : nlohmann::json{{"unavailable", stability.error().message}};
      io.out << j.dump(2) << "\n";
    } else {
      // What the agent says is data: each field shown escaped, on its own line.
      std::string text = fmt::format("rig '{}' via {}\n", terminal_safe(rig.name), describe_transport(rig.transport));
      text += fmt::format("agent: harness {} (protocol {}), capabilities: {}\n", terminal_safe(info.harness_version),
                          info.protocol, terminal_safe(fmt::format("{}", fmt::join(info.capabilities, ", "))));
      text += fmt::format("clock: device = host {:+.6f} ms (+- {:.3f} ms), round trip {:.3f} ms\n",
                          static_cast<double>(offset.offset_ns) * 1e-6, static_cast<double>(offset.uncertainty_ns) * 1e-6,
                          static_cast<double>(offset.rtt_ns) * 1e-6);
      for (const auto& [key, value] : info.context)
        text += fmt::format("  {}: {}\n", terminal_safe(key), terminal_safe(value));
      text += "agent binary: " + terminal_safe(agent.said) + "\n";
      for (const std::string& m : info.missing) text += "missing: " + terminal_safe(m) + "\n";
      for (const std::string& u : unmet) text += "cannot run: " + terminal_safe(u) + "\n";
      text += "calibration: " + terminal_safe(*calibration) + "\n";
      // The device's readings (its busiest processes' names among them) are data too.
      text += stability ? terminal_safe_lines(render_rig_stability(stability->front(), stability->back(), limits, pinned))
                        : "stability: unavailable (" + terminal_safe(stability.error().message) + ")\n";
      text += unmet.empty() ? "the rig can run this scenario\n" : "the rig cannot run this scenario as it is\n";
      io.out << text;
    }
    return unmet.empty() ? ExitCode::ok : ExitCode::infrastructure;
  };
}

}  // namespace harness
