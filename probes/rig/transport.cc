#include "probes/rig/transport.h"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/base/find_named.h"

namespace harness {

const std::vector<TransportKind>& transport_kinds() {
  static const std::vector<TransportKind> kinds = {
      {"local", "the agent as a child process of the harness (the device is this machine)", {"agent"}, {}},
      {"ssh", "the system OpenSSH client (ssh -T host harness agent)",
       {"host", "user", "port", "identity", "ssh_options", "agent"}, {"host"}},
      {"command", "a command prefix that yields a shell on the device (adb shell, labgrid-client ssh, ...)",
       {"command", "agent"}, {"command"}},
  };
  return kinds;
}

Result<const TransportKind*> find_transport_kind(std::string_view name) {
  std::vector<std::string> names;
  if (const TransportKind* kind = find_named(transport_kinds(), name, names)) return kind;
  return Error::input(
      fmt::format("unknown transport \"{}\" (known: {}){}", name, fmt::join(names, ", "), did_you_mean(name, names)));
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%") ==
                           std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string this_executable() {
  if (const char* env = std::getenv("HARNESS_AGENT"); env && *env) return env;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "harness";
  return std::string(buf, static_cast<std::size_t>(n));
}

Result<std::vector<std::string>> agent_command(const TransportOptions& o) {
  HARNESS_TRY(find_transport_kind(o.kind));
  if (o.kind == "local") {
    if (!o.agent.empty()) return o.agent;
    return std::vector<std::string>{this_executable(), "agent"};
  }
  return device_command(o, o.agent.empty() ? std::vector<std::string>{"harness", "agent"} : o.agent);
}

Result<std::vector<std::string>> device_command(const TransportOptions& o, const std::vector<std::string>& remote) {
  HARNESS_TRY(find_transport_kind(o.kind));
  if (o.kind == "local") return remote;
  std::vector<std::string> argv;
  if (o.kind == "ssh") {
    if (o.host.empty()) return Error::input("rig transport ssh: no host");
    // -T: no terminal (the protocol is bytes); BatchMode: never prompt.
    argv = {"ssh", "-T", "-o", "BatchMode=yes"};
    if (o.port > 0) argv.insert(argv.end(), {"-p", std::to_string(o.port)});
    if (!o.identity.empty()) argv.insert(argv.end(), {"-i", o.identity});
    if (!o.user.empty()) argv.insert(argv.end(), {"-l", o.user});
    argv.insert(argv.end(), o.ssh_options.begin(), o.ssh_options.end());
    argv.push_back(o.host);
    argv.push_back("--");
  } else {
    if (o.command.empty()) return Error::input("rig transport command: no command");
    argv = o.command;
  }
  // The remote side gets a command line: quote every word of the agent's argv.
  for (const std::string& word : remote) argv.push_back(shell_quote(word));
  return argv;
}

std::string describe_transport(const TransportOptions& o) {
  if (o.kind == "ssh") {
    return fmt::format("ssh:{}{}{}", o.user.empty() ? "" : o.user + "@", o.host,
                       o.port > 0 ? fmt::format(":{}", o.port) : "");
  }
  if (o.kind == "command") return fmt::format("command:{}", fmt::join(o.command, " "));
  return "local";
}

}  // namespace harness
