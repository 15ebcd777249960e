// The context stored with every run: host, kernel, CPU, governor, harness
// version, and the version strings the scenario asks for by command. Read
// where the work runs: on the device by the agent, on this host for a run
// that needs no device.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace harness {

// A command whose output is stored in the run's context (firmware, driver...).
struct VersionCommand {
  std::string name;
  std::vector<std::string> argv;
};

// Facts readable without running anything. Unreadable ones say why.
std::map<std::string, std::string> host_context(const std::string& proc_root = "/proc",
                                                const std::string& sys_root = "/sys");

// Runs each command (argv, 10 s timeout) and stores its first line of output
// as "version.<name>"; a failing command stores its reason.
void collect_versions(const std::vector<VersionCommand>& versions, std::map<std::string, std::string>& context);

}  // namespace harness
