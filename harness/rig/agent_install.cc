#include "harness/rig/agent_install.h"

#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "harness/base/digest.h"
#include "harness/rig/protocol.h"
#include "probes/process.h"

namespace harness {
namespace {

// `uname -m` of a board, and the build of scripts/build-agent that runs there.
struct MachineBuild {
  const char* machine;
  const char* build;  // "host": this host's own harness-agent
};
constexpr MachineBuild kMachineBuilds[] = {
    {"aarch64", "aarch64"}, {"arm64", "aarch64"}, {"armv7l", "armhf"}, {"armv8l", "armhf"}, {"x86_64", "host"},
};

// Runs `remote` on the device through the transport.
Result<CommandResult> on_device(const TransportOptions& t, const std::vector<std::string>& remote,
                                const std::string& stdin_path = "") {
  Result<std::vector<std::string>> argv = device_command(t, remote);
  if (!argv) return argv.error();
  return run_command(*argv, {.timeout_s = 300, .max_output = 1 << 16, .stdin_path = stdin_path});
}

Result<std::string> device_output(const TransportOptions& t, const std::vector<std::string>& remote,
                                  const std::string& what) {
  Result<CommandResult> r = on_device(t, remote);
  if (!r) return r.error();
  if (!r->succeeded()) {
    return Error::infra(fmt::format("rig install: {} on the device ({}): {}{}", what, describe_transport(t),
                                    r->describe_end(), r->err.empty() ? "" : ": " + r->err.substr(0, 400)));
  }
  std::string out = r->out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

// The sha256 of the file on the device, or "" when it is not there.
Result<std::string> device_sha256(const TransportOptions& t, const std::string& path) {
  Result<std::string> out = device_output(
      t, {"sh", "-c", "if [ -f \"$1\" ]; then sha256sum \"$1\"; fi", "sh", path}, "sha256sum of the agent");
  if (!out) return out.error();
  return out->substr(0, std::min<std::size_t>(out->find(' '), 64));
}

Result<std::string> local_agent(const std::string& builds_dir, const std::string& machine) {
  for (const MachineBuild& m : kMachineBuilds) {
    if (machine != m.machine) continue;
    const std::string build = m.build;
    std::filesystem::path file = build == "host" ? std::filesystem::path(builds_dir) / "harness-agent"
                                                 : std::filesystem::path(builds_dir) / ("agent-" + build) / "harness-agent";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      return Error::input(fmt::format("rig install: no agent built for {} ({}): {} missing (scripts/build-agent --arch {})",
                                      machine, build, file.string(), build));
    }
    return file.string();
  }
  std::vector<std::string> known;
  for (const MachineBuild& m : kMachineBuilds) known.push_back(m.machine);
  return Error::input(fmt::format("rig install: the device is '{}', for which no agent is built (known: {})", machine,
                                  fmt::join(known, ", ")));
}

Result<std::string> device_path_of(const TransportOptions& t, const AgentInstallOptions& o) {
  if (!o.device_path.empty()) return o.device_path;
  for (const std::string& word : t.agent) {
    if (word.find('/') != std::string::npos) return word;
  }
  return Error::input(
      "rig install: where on the device? [rig] agent names no path (e.g. agent = [\"/opt/harness/harness-agent\"]); "
      "or pass --to PATH");
}

}  // namespace

std::string agent_version_line() {
  return fmt::format("harness-agent {} (protocol {})", HARNESS_VERSION, protocol::kVersion);
}

Result<AgentInstall> install_agent(const TransportOptions& t, const AgentInstallOptions& o) {
  AgentInstall in;
  Result<std::string> device_path = device_path_of(t, o);
  if (!device_path) return device_path.error();
  in.device_path = *device_path;
  Result<std::string> machine = device_output(t, {"uname", "-m"}, "uname -m");
  if (!machine) return machine.error();
  in.machine = *machine;
  const std::string dir =
      o.builds_dir.empty() ? std::filesystem::path(this_executable()).parent_path().string() : o.builds_dir;
  Result<std::string> local_file = local_agent(dir, in.machine);
  if (!local_file) return local_file.error();
  in.local_file = *local_file;
  Result<std::string> sha256 = sha256_file(in.local_file);
  if (!sha256) return sha256.error();
  in.sha256 = *sha256;
  Result<std::string> there = device_sha256(t, in.device_path);
  if (!there) return there.error();
  if (*there != in.sha256) {
    // Into a temporary name first, so that a broken link leaves no half agent.
    const char* copy = "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1.tmp\" && chmod 755 \"$1.tmp\" && mv -f \"$1.tmp\" \"$1\"";
    Result<CommandResult> r = on_device(t, {"sh", "-c", copy, "sh", in.device_path}, in.local_file);
    if (!r) return r.error();
    if (!r->succeeded()) {
      return Error::infra(fmt::format("rig install: copying {} to {} ({}): {}: {}", in.local_file, in.device_path,
                                      describe_transport(t), r->describe_end(), r->err.substr(0, 400)));
    }
    in.copied = true;
    there = device_sha256(t, in.device_path);
    if (!there) return there.error();
    if (*there != in.sha256) {
      return Error::infra(fmt::format("rig install: {} on the device has sha256 '{}' after the copy, not {}",
                                      in.device_path, *there, in.sha256));
    }
  }
  // The agent as the scenario starts it (an emulator word before it stays).
  std::vector<std::string> argv = t.agent.empty() ? std::vector<std::string>{in.device_path} : t.agent;
  argv.push_back("--version");
  Result<std::string> version = device_output(t, argv, "the agent's --version");
  if (!version) return version.error();
  in.version = *version;
  if (in.version != agent_version_line()) {
    return Error::infra(fmt::format("rig install: the agent at {} answers '{}', not '{}'", in.device_path, in.version,
                                    agent_version_line()));
  }
  return in;
}

}  // namespace harness
