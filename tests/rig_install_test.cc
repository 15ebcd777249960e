// `harness rig install` against a real OpenSSH server on loopback playing
// the board (tests/support/ssh_device.h): the agent for the device's
// architecture (this host's: the build's harness-agent) is copied over the
// scenario's own ssh options, checked (sha256, --version), copied again
// only when what is there differs, and `rig check` then reaches it.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/rig/agent_install.h"
#include "probes/process.h"
#include "tests/support/ssh_device.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

class RigInstall : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!device_.available()) GTEST_SKIP() << device_.unavailable_reason();
    dir_ = std::filesystem::temp_directory_path() / ("harness-install-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    agent_ = (dir_ / "board" / "opt" / "harness-agent").string();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string scenario() {
    std::string options;
    for (const std::string& o : device_.ssh_options()) options += (options.empty() ? "" : ", ") + json(o).dump();
    const std::string path = (dir_ / "board.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"install\"\n[rig]\nname = \"loopback-board\"\n"
                        << "transport = \"ssh\"\nhost = \"127.0.0.1\"\nport = " << device_.port() << "\n"
                        << "user = " << json(device_.user()).dump() << "\n"
                        << "identity = " << json(device_.identity().string()).dump() << "\n"
                        << "ssh_options = [" << options << "]\n"
                        << "agent = [" << json(agent_).dump() << "]\n"
                        << "[workload]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n";
    return path;
  }

  CommandResult harness(std::vector<std::string> args) {
    args.insert(args.begin(), HARNESS_BINARY);
    Result<CommandResult> r = run_command(args, {.timeout_s = 120});
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CommandResult{};
  }

  test_support::SshDevice device_;
  std::filesystem::path dir_;
  std::string agent_;
};

TEST_F(RigInstall, CopiesOnceChecksItAndReplacesACorruptedCopy) {
  const std::string file = scenario();
  const std::string sha = *sha256_file(HARNESS_AGENT_BINARY);

  CommandResult first = harness({"rig", "install", file});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_EQ(first.out, "rig 'loopback-board' via ssh:" + device_.user() + "@127.0.0.1:" +
                           std::to_string(device_.port()) + ": the device is x86_64\n" + "copied " +
                           HARNESS_AGENT_BINARY + " to " + agent_ + " (sha256 " + sha + ")\n" +
                           "it answers: " + agent_version_line() + "\n");
  EXPECT_EQ(*sha256_file(agent_), sha);

  CommandResult check = harness({"rig", "check", file});
  EXPECT_THAT(check.out, HasSubstr("agent: harness " HARNESS_VERSION " (protocol 1)")) << check.out << check.err;

  CommandResult second = harness({"--json", "rig", "install", file});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  json j = json::parse(second.out);
  EXPECT_EQ(j["copied"], false);
  EXPECT_EQ(j["sha256"], sha);
  EXPECT_EQ(j["machine"], "x86_64");

  std::ofstream(agent_, std::ios::app) << "corrupted";
  ASSERT_NE(*sha256_file(agent_), sha);
  CommandResult third = harness({"rig", "install", file});
  ASSERT_EQ(third.exit_code, 0) << third.out << third.err;
  EXPECT_THAT(third.out, HasSubstr("copied "));
  EXPECT_EQ(*sha256_file(agent_), sha);
}

TEST_F(RigInstall, AnArchitectureWithoutABuildNamesTheScriptThatMakesIt) {
  AgentInstallOptions options;
  options.builds_dir = (dir_ / "no-builds").string();
  TransportOptions local;
  local.agent = {agent_};
  Result<AgentInstall> r = install_agent(local, options);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "rig install: no agent built for x86_64 (host): " + options.builds_dir +
                                   "/harness-agent missing (scripts/build-agent --arch host)");
}

}  // namespace
}  // namespace harness
