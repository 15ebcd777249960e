// `harness rig install`: the agent built for the device's architecture
// (scripts/build-agent) put at the agent's path on the device over the rig's
// own transport, then checked: its sha256 on the device and the version it
// answers. Nothing is copied when the right agent is already there.
#pragma once

#include <string>

#include "harness/base/result.h"
#include "probes/rig/transport.h"

namespace harness {

struct AgentInstallOptions {
  // Where the agents are: harness-agent for this host's architecture, and
  // agent-<arch>/harness-agent for the others (scripts/build-agent's layout).
  // Empty: the folder of this executable.
  std::string builds_dir;
  // The agent's path on the device. Empty: the first word of [rig] agent
  // that is a path (holds a '/').
  std::string device_path;
};

struct AgentInstall {
  std::string machine;     // the device's `uname -m`
  std::string local_file;  // the agent for that architecture on this host
  std::string device_path;
  std::string sha256;
  bool copied = false;     // false: the same agent was already there
  std::string version;     // what the installed agent answers to --version
};

Result<AgentInstall> install_agent(const TransportOptions& transport, const AgentInstallOptions& options);

// "harness-agent 0.1.0 (protocol 1)": what this build's agents answer.
std::string agent_version_line();

}  // namespace harness
