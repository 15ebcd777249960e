#include "probes/rig/transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Transport, SshRunsTheAgentWithoutATerminalAndQuotesItsWords) {
  TransportOptions o;
  o.kind = "ssh";
  o.host = "board-3";
  o.user = "root";
  o.port = 2222;
  o.identity = "/keys/id";
  o.ssh_options = {"-o", "ConnectTimeout=5"};
  o.agent = {"/opt/harness dir/harness", "agent"};
  Result<std::vector<std::string>> argv = agent_command(o);
  ASSERT_TRUE(argv);
  EXPECT_THAT(*argv, ElementsAre("ssh", "-T", "-o", "BatchMode=yes", "-p", "2222", "-i", "/keys/id", "-l", "root", "-o",
                                 "ConnectTimeout=5", "board-3", "--", "'/opt/harness dir/harness'", "agent"));
  EXPECT_EQ(describe_transport(o), "ssh:root@board-3:2222");
}

TEST(Transport, ACommandPrefixGetsTheAgentAsAShellLine) {
  TransportOptions o;
  o.kind = "command";
  o.command = {"adb", "-s", "X1", "shell"};
  Result<std::vector<std::string>> argv = agent_command(o);
  ASSERT_TRUE(argv);
  EXPECT_THAT(*argv, ElementsAre("adb", "-s", "X1", "shell", "harness", "agent"));
}

TEST(Transport, LocalIsThisExecutable) {
  TransportOptions o;
  Result<std::vector<std::string>> argv = agent_command(o);
  ASSERT_TRUE(argv);
  ASSERT_EQ(argv->size(), 2u);
  EXPECT_EQ((*argv)[1], "agent");
}

TEST(Transport, AnUnknownKindSuggestsTheClosest) {
  Result<const TransportKind*> k = find_transport_kind("shh");
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().message, "unknown transport \"shh\" (known: local, ssh, command); did you mean \"ssh\"?");
}

TEST(Transport, ShellQuotingSurvivesQuotes) {
  EXPECT_EQ(shell_quote("plain-word_1.2"), "plain-word_1.2");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("it's $HOME"), "'it'\\''s $HOME'");
}

}  // namespace
}  // namespace harness
