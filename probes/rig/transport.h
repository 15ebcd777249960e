// Transports: how the host reaches the agent on the device. One table
// (kTransports in transport.cc) of kinds; each turns the options into the
// argv of a child process whose stdin/stdout are the agent's:
//   local    the agent as a child of this process (the default)
//   ssh      the system OpenSSH client; host keys, ControlMaster and the
//            like are left to the user's ssh configuration
//   command  any command prefix that yields a shell on the device
//            ("adb shell", "labgrid-client -p PLACE ssh", a serial helper)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"

namespace harness {

struct TransportOptions {
  std::string kind = "local";
  std::string host;                      // ssh
  std::string user;                      // ssh, optional
  int port = 0;                          // ssh, 0: ssh's default
  std::string identity;                  // ssh -i, optional
  std::vector<std::string> ssh_options;  // ssh: passed through, e.g. {"-o", "ConnectTimeout=5"}
  std::vector<std::string> command;      // command: the prefix
  // The agent on the device (argv). Empty: this executable for "local",
  // "harness agent" from the device's PATH otherwise.
  std::vector<std::string> agent;
};

struct TransportKind {
  std::string_view name;
  std::string_view description;
  std::vector<std::string> keys;           // the [rig] keys it reads
  std::vector<std::string> required_keys;
};

const std::vector<TransportKind>& transport_kinds();
// The kind named `name`; an unknown one lists the kinds and suggests the closest.
Result<const TransportKind*> find_transport_kind(std::string_view name);

// The argv that starts the agent through the transport.
Result<std::vector<std::string>> agent_command(const TransportOptions& options);
// The argv that runs `remote` (an argv on the device) through the transport,
// its stdin and stdout carried as they are (local: `remote` itself).
Result<std::vector<std::string>> device_command(const TransportOptions& options,
                                                const std::vector<std::string>& remote);

// "ssh:user@host:port", "local", "command:adb shell"
std::string describe_transport(const TransportOptions& options);

// One word quoted for a POSIX shell (ssh and adb hand the remote side a
// command line, not an argv).
std::string shell_quote(const std::string& word);

// This executable, for the local agent: $HARNESS_AGENT when set (tests run
// from another binary), else /proc/self/exe.
std::string this_executable();

}  // namespace harness
