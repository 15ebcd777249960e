// The context stored with every run: host, kernel, CPU, governor, harness
// version, and the version strings the scenario asks for by command.
#pragma once

#include <map>
#include <string>

#include "harness/scenario/scenario.h"

namespace harness {

// Facts readable without running anything. Unreadable ones say why.
std::map<std::string, std::string> host_context(const std::string& proc_root = "/proc",
                                                const std::string& sys_root = "/sys");

// Runs each [rig.versions] command (argv, 10 s timeout) and stores its first
// line of output as "version.<name>"; a failing command stores its reason.
void collect_versions(const Rig& rig, std::map<std::string, std::string>& context);

}  // namespace harness
