// A real OpenSSH server on loopback that plays the device board in
// integration tests: throwaway host and user keys in a temporary folder,
// sshd as a child of the test, ssh client options that neither read nor
// write the user's configuration. Missing openssh-server or -client is a
// state (available() false, with a reason to GTEST_SKIP() with), not a crash.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/process.h"

// Not harness::testing: that would hide gtest's ::testing in tests that sit
// in namespace harness.
namespace harness::test_support {

class SshDevice {
 public:
  // Starts the server; on failure the device is unavailable and says why.
  SshDevice();
  // Shuts the connection master down, stops sshd and every session it
  // started (SIGTERM, then SIGKILL), removes the folder.
  ~SshDevice();
  SshDevice(const SshDevice&) = delete;
  SshDevice& operator=(const SshDevice&) = delete;

  bool available() const { return sshd_ != nullptr; }
  // Why the device is unavailable ("" while it is available).
  const std::string& unavailable_reason() const { return unavailable_; }

  int port() const { return port_; }
  const std::string& user() const { return user_; }  // the current user's name
  std::string host() const { return "127.0.0.1"; }
  std::string destination() const { return user_ + "@" + host(); }
  std::filesystem::path identity() const { return folder_ / "user_key"; }
  std::filesystem::path known_hosts() const { return folder_ / "known_hosts"; }
  const std::filesystem::path& folder() const { return folder_; }

  // Options for the system ssh client, before the destination: no user or
  // system configuration, no prompt, only this device's key, its host key
  // pinned, and one shared connection that later calls reuse.
  std::vector<std::string> ssh_options() const;
  // ssh OPTIONS DESTINATION -- ARGV, each argument quoted for the remote
  // shell so that it arrives as one word whatever it holds.
  std::vector<std::string> ssh_command(const std::vector<std::string>& argv) const;
  // Runs argv on the device. A non-zero exit of the remote command is not an
  // error (ssh passes it on as its own exit status; 255 is ssh's own failure).
  Result<CommandResult> run(const std::vector<std::string>& argv, double timeout_s = 30) const;

 private:
  Status start();
  Status start_sshd();
  void stop();

  std::string unavailable_;
  std::filesystem::path folder_;
  std::string user_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> sshd_;
};


// True when a TCP connection to 127.0.0.1:port is accepted.
bool loopback_port_accepts(int port);

}  // namespace harness::test_support
