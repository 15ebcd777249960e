// `harness rig install`: the agent built for the device's architecture
// (scripts/build-agent) put at the agent's path on the device over the rig's
// own transport, then checked: its sha256 on the device and the version it
// answers. Nothing is copied when the right agent is already there.
#pragma once

#include <string>
#include <vector>

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

// A board architecture an agent is built for: the names `uname -m` gives for
// it and scripts/build-agent's --arch. One row each; a machine in no row has
// no agent.
struct AgentArchitecture {
  const char* arch;                      // "aarch64": scripts/build-agent --arch, build/agent-<arch>/
  std::vector<const char*> machines;     // `uname -m`: "aarch64", "arm64"
};
const std::vector<AgentArchitecture>& agent_architectures();
// The row of a `uname -m` name, or null.
const AgentArchitecture* agent_architecture(const std::string& machine);
// This host's row (its uname(2) machine), or null on an architecture no agent is built for.
const AgentArchitecture* host_agent_architecture();

// The device's agent against the one this host would install there.
struct AgentComparison {
  std::string machine;        // the device's `uname -m`
  std::string arch;           // its row's arch
  std::string local_file;     // the agent for that architecture on this host
  std::string sha256;         // of local_file
  std::string device_path;
  std::string device_sha256;  // of the file there; empty: no file there
  bool same() const { return device_sha256 == sha256; }
};
// Asks the device (over the transport) for its architecture and the sha256
// of the file at the agent's path; copies nothing.
Result<AgentComparison> compare_agent(const TransportOptions& transport, const AgentInstallOptions& options);
// What differs, in words, with what to do: "the agent at PATH on the device
// (sha256 X) is not this host's agent for aarch64 (FILE, sha256 Y): harness
// rig install SCENARIO copies it there"; empty when they are the same.
std::string agent_difference(const AgentComparison& c, const std::string& scenario_path);

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
