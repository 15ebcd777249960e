#include "harness/rig/agent_install.h"

#include <sys/utsname.h>

#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/digest.h"
#include "harness/rig/protocol.h"
#include "probes/process.h"

namespace harness {
namespace {

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

std::string known_machines() {
  std::vector<std::string> rows;
  for (const AgentArchitecture& a : agent_architectures()) {
    std::vector<std::string> others;
    for (const char* m : a.machines)
      if (std::string(m) != a.arch) others.push_back(m);
    rows.push_back(others.empty() ? std::string(a.arch) : fmt::format("{} ({})", a.arch, fmt::join(others, ", ")));
  }
  return fmt::format("{}", fmt::join(rows, ", "));
}

// The agent for the device's architecture among this host's builds: the
// build's own harness-agent when the device is of this host's architecture,
// else scripts/build-agent's agent-<arch>/harness-agent.
Result<std::string> local_agent(const std::string& builds_dir, const AgentArchitecture& arch,
                                const std::string& machine) {
  const bool own = host_agent_architecture() == &arch;
  const std::filesystem::path file = own ? std::filesystem::path(builds_dir) / "harness-agent"
                                         : std::filesystem::path(builds_dir) / (std::string("agent-") + arch.arch) /
                                               "harness-agent";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return Error::input(fmt::format("rig install: no agent built for {} ({}): {} missing ({})", machine, arch.arch,
                                    file.string(),
                                    own ? std::string("scripts/build builds this host's")
                                        : fmt::format("scripts/build-agent --arch {}", arch.arch)));
  }
  return file.string();
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

const std::vector<AgentArchitecture>& agent_architectures() {
  // armv8l: a 32-bit ARM userland on a 64-bit core runs the armhf agent.
  static const std::vector<AgentArchitecture> rows = {
      {"x86_64", {"x86_64", "amd64"}},
      {"aarch64", {"aarch64", "arm64"}},
      {"armhf", {"armv7l", "armv8l", "armhf"}},
  };
  return rows;
}

const AgentArchitecture* agent_architecture(const std::string& machine) {
  for (const AgentArchitecture& a : agent_architectures())
    for (const char* m : a.machines)
      if (machine == m) return &a;
  return nullptr;
}

const AgentArchitecture* host_agent_architecture() {
  struct utsname u {};
  if (::uname(&u) != 0) return nullptr;
  return agent_architecture(u.machine);
}

Result<AgentComparison> compare_agent(const TransportOptions& t, const AgentInstallOptions& o) {
  AgentComparison c;
  Result<std::string> device_path = device_path_of(t, o);
  if (!device_path) return device_path.error();
  c.device_path = *device_path;
  Result<std::string> machine = device_output(t, {"uname", "-m"}, "uname -m");
  if (!machine) return machine.error();
  c.machine = *machine;
  const AgentArchitecture* arch = agent_architecture(c.machine);
  if (!arch) {
    return Error::input(fmt::format("rig install: the device's architecture is '{}' (its uname -m), for which harness "
                                    "builds no agent; it builds them for {}",
                                    c.machine, known_machines()));
  }
  c.arch = arch->arch;
  const std::string dir =
      o.builds_dir.empty() ? std::filesystem::path(this_executable()).parent_path().string() : o.builds_dir;
  Result<std::string> local_file = local_agent(dir, *arch, c.machine);
  if (!local_file) return local_file.error();
  c.local_file = *local_file;
  Result<std::string> sha256 = sha256_file(c.local_file);
  if (!sha256) return sha256.error();
  c.sha256 = *sha256;
  Result<std::string> there = device_sha256(t, c.device_path);
  if (!there) return there.error();
  c.device_sha256 = *there;
  return c;
}

std::string agent_difference(const AgentComparison& c, const std::string& scenario_path) {
  if (c.same()) return "";
  const std::string fix = fmt::format("harness rig install {} copies it there", scenario_path);
  if (c.device_sha256.empty()) {
    return fmt::format("there is no agent at {} on the device; this host's agent for {} is {} (sha256 {}): {}",
                       c.device_path, c.arch, c.local_file, c.sha256, fix);
  }
  return fmt::format("the agent at {} on the device (sha256 {}) is not this host's agent for {} ({}, sha256 {}): {}",
                     c.device_path, c.device_sha256, c.arch, c.local_file, c.sha256, fix);
}

std::string agent_version_line() {
  return fmt::format("harness-agent {} (protocol {})", HARNESS_VERSION, protocol::kVersion);
}

Result<AgentInstall> install_agent(const TransportOptions& t, const AgentInstallOptions& o) {
  Result<AgentComparison> compared = compare_agent(t, o);
  if (!compared) return compared.error();
  AgentInstall in;
  in.machine = compared->machine;
  in.local_file = compared->local_file;
  in.device_path = compared->device_path;
  in.sha256 = compared->sha256;
  if (!compared->same()) {
    // Into a temporary name first, so that a broken link leaves no half agent.
    const char* copy = "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1.tmp\" && chmod 755 \"$1.tmp\" && mv -f \"$1.tmp\" \"$1\"";
    Result<CommandResult> r = on_device(t, {"sh", "-c", copy, "sh", in.device_path}, in.local_file);
    if (!r) return r.error();
    if (!r->succeeded()) {
      return Error::infra(fmt::format("rig install: copying {} to {} ({}): {}: {}", in.local_file, in.device_path,
                                      describe_transport(t), r->describe_end(), r->err.substr(0, 400)));
    }
    in.copied = true;
    Result<std::string> there = device_sha256(t, in.device_path);
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
