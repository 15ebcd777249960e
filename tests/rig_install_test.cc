// `harness rig install` against a real OpenSSH server on loopback playing
// the board (tests/support/ssh_device.h): the agent for the device's
// architecture (this host's: the build's harness-agent) is copied over the
// scenario's own ssh options, checked (sha256, --version), copied again
// only when what is there differs, and `rig check` then reaches it.
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/rig/agent_install.h"
#include "probes/process.h"
#include "tests/support/run_harness.h"
#include "tests/support/ssh_device.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

// This host's `uname -m`: the device's, when the "board" is this machine.
std::string host_machine() {
  struct utsname u {};
  EXPECT_EQ(::uname(&u), 0);
  return u.machine;
}

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

  CommandResult harness(const std::vector<std::string>& args) {
    return testing_support::run_harness(args, {.timeout_s = 120});
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
                           std::to_string(device_.port()) + ": the device is " + host_machine() + "\n" + "copied " +
                           HARNESS_AGENT_BINARY + " to " + agent_ + " (sha256 " + sha + ")\n" +
                           "it answers: " + agent_version_line() + "\n");
  EXPECT_EQ(*sha256_file(agent_), sha);

  const std::string arch = host_agent_architecture()->arch;
  CommandResult check = harness({"rig", "check", file});
  EXPECT_THAT(check.out, HasSubstr("agent: harness " HARNESS_VERSION " (protocol 1)")) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("agent binary: " + agent_ + " on the device is this host's agent for " + arch +
                                   " (sha256 " + sha + ")\n"));

  CommandResult second = harness({"--json", "rig", "install", file});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  json j = json::parse(second.out);
  EXPECT_EQ(j["copied"], false);
  EXPECT_EQ(j["sha256"], sha);
  EXPECT_EQ(j["machine"], host_machine());

  // Same version, another build: told apart by its sha256 (trailing bytes
  // leave it runnable, so rig check still reaches it).
  std::ofstream(agent_, std::ios::app) << "corrupted";
  const std::string corrupted = *sha256_file(agent_);
  ASSERT_NE(corrupted, sha);
  CommandResult differs = harness({"rig", "check", file});
  EXPECT_THAT(differs.out, HasSubstr("agent: harness " HARNESS_VERSION)) << differs.out << differs.err;
  EXPECT_THAT(differs.out, HasSubstr("agent binary: the agent at " + agent_ + " on the device (sha256 " + corrupted +
                                     ") is not this host's agent for " + arch + " (" + HARNESS_AGENT_BINARY +
                                     ", sha256 " + sha + "): harness rig install " + file + " copies it there\n"));
  CommandResult differs_json = harness({"--json", "rig", "check", file});
  json dj = json::parse(differs_json.out);
  EXPECT_EQ(dj["agent_binary"]["same"], false);
  EXPECT_EQ(dj["agent_binary"]["device_sha256"], corrupted);
  EXPECT_EQ(dj["agent_binary"]["sha256"], sha);
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
  EXPECT_EQ(r.error().message, "rig install: no agent built for " + host_machine() + " (" +
                                   host_agent_architecture()->arch + "): " + options.builds_dir +
                                   "/harness-agent missing (scripts/build builds this host's)");
}

// One table of architectures: every name `uname -m` gives for a board maps
// to the build that runs there.
TEST(AgentArchitectures, UnameNamesMapToTheirBuild) {
  EXPECT_EQ(std::string(agent_architecture("x86_64")->arch), "x86_64");
  EXPECT_EQ(std::string(agent_architecture("aarch64")->arch), "aarch64");
  EXPECT_EQ(std::string(agent_architecture("arm64")->arch), "aarch64");
  EXPECT_EQ(std::string(agent_architecture("armv7l")->arch), "armhf");
  EXPECT_EQ(std::string(agent_architecture("armhf")->arch), "armhf");
  EXPECT_EQ(agent_architecture("mips"), nullptr);
  EXPECT_EQ(agent_architecture(""), nullptr);
  ASSERT_NE(host_agent_architecture(), nullptr);
  EXPECT_EQ(host_agent_architecture(), agent_architecture(host_machine()));
}

// A "board" reached through a command transport (a shell on this machine)
// whose uname -m says what the test wants: the agent it gets is the one for
// that name, whatever this host is.
class RigInstallArchitecture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("harness-arch-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "bin");
    agent_ = (dir_ / "board" / "harness-agent").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  TransportOptions board(const std::string& machine) {
    const std::filesystem::path uname = dir_ / "bin" / "uname";
    std::ofstream(uname) << "#!/bin/sh\necho " << machine << "\n";
    std::filesystem::permissions(uname, std::filesystem::perms::owner_all);
    TransportOptions t;
    t.kind = "command";
    t.command = {"sh", "-c", "PATH=" + (dir_ / "bin").string() + ":$PATH; eval \"$*\"", "sh"};
    t.agent = {agent_};
    return t;
  }

  std::filesystem::path dir_;
  std::string agent_;
};

TEST_F(RigInstallArchitecture, AnUnknownArchitectureIsRefusedNamingTheKnownOnes) {
  Result<AgentInstall> r = install_agent(board("mips64"), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ExitCode::bad_input);
  EXPECT_EQ(r.error().message,
            "rig install: the device's architecture is 'mips64' (its uname -m), for which harness builds no agent; it "
            "builds them for x86_64 (amd64), aarch64 (arm64), armhf (armv7l, armv8l)");
  EXPECT_FALSE(std::filesystem::exists(agent_));
}

TEST_F(RigInstallArchitecture, ABoardOfAnotherArchitectureGetsScriptBuildAgentsBuild) {
  // Whichever architecture this host is, the board says another one.
  const std::string machine = std::string(host_agent_architecture()->arch) == "aarch64" ? "armv7l" : "arm64";
  const std::string arch = agent_architecture(machine)->arch;
  AgentInstallOptions options;
  options.builds_dir = (dir_ / "builds").string();
  Result<AgentInstall> missing = install_agent(board(machine), options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "rig install: no agent built for " + machine + " (" + arch + "): " +
                                         options.builds_dir + "/agent-" + arch +
                                         "/harness-agent missing (scripts/build-agent --arch " + arch + ")");

  // Its build (here a copy of this host's agent, so that it answers --version).
  std::filesystem::create_directories(dir_ / "builds" / ("agent-" + arch));
  const std::string built = (dir_ / "builds" / ("agent-" + arch) / "harness-agent").string();
  std::filesystem::copy_file(HARNESS_AGENT_BINARY, built);
  Result<AgentInstall> r = install_agent(board(machine), options);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->machine, machine);
  EXPECT_EQ(r->local_file, built);
  EXPECT_TRUE(r->copied);
  EXPECT_EQ(*sha256_file(agent_), *sha256_file(built));

  Result<AgentComparison> c = compare_agent(board(machine), options);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->same());
  EXPECT_EQ(agent_difference(*c, "board.toml"), "");
}

}  // namespace
}  // namespace harness
