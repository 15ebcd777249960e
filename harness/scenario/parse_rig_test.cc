// [rig] transport keys: checked against the transport kind's own keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/scenario/scenario.h"

namespace harness {
namespace {

std::string scenario(const std::string& rig_keys, const std::string& extra = "") {
  return "[scenario]\nname = \"t\"\n[rig]\nname = \"board-3\"\n" + rig_keys +
         "\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n" + extra;
}

std::string error_of(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.toml");
  EXPECT_FALSE(s.ok()) << "parsed, but an error was expected";
  return s ? "" : s.error().message;
}

TEST(ScenarioRig, TheDefaultTransportIsALocalAgentWithLevelFoursWindow) {
  Result<Scenario> s = parse_scenario(scenario(""), "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->rig.transport.kind, "local");
  EXPECT_EQ(s->rig.window.level, "latency");
  EXPECT_DOUBLE_EQ(s->rig.heartbeat_timeout_s, 10);
}

TEST(ScenarioRig, ACeilingNeedsAName) {
  EXPECT_EQ(error_of(scenario("[rig.compute]\n\"\" = \"4 TOPS\"\n")), "s.toml:6:6: [rig.compute]: a ceiling needs a name");
}

TEST(ScenarioRig, SshKeysAreRead) {
  Result<Scenario> s = parse_scenario(scenario("transport = \"ssh\"\nhost = \"board-3.lab\"\nuser = \"root\"\nport = 2222\n"
                                               "identity = \"/keys/lab\"\nssh_options = [\"-o\", \"ConnectTimeout=5\"]\n"
                                               "agent = [\"/opt/harness/bin/harness\", \"agent\"]\n"
                                               "heartbeat_timeout = \"4 s\"\nclock_tolerance = \"200 us\"\n"),
                                      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  const TransportOptions& t = s->rig.transport;
  EXPECT_EQ(t.kind, "ssh");
  EXPECT_EQ(t.host, "board-3.lab");
  EXPECT_EQ(t.port, 2222);
  EXPECT_EQ(t.agent.front(), "/opt/harness/bin/harness");
  EXPECT_DOUBLE_EQ(s->rig.heartbeat_timeout_s, 4);
  EXPECT_DOUBLE_EQ(s->rig.clock_tolerance_s, 200e-6);
}

TEST(ScenarioRig, WrongTransportKeysAreNamed) {
  EXPECT_EQ(error_of(scenario("transport = \"shh\"")),
            "s.toml:5:13: [rig] transport: unknown value \"shh\" (expected one of \"local\", \"ssh\", \"command\"); did you mean \"ssh\"?");
  EXPECT_EQ(error_of(scenario("host = \"board-3\"")),
            "s.toml:5:8: [rig] host: does not apply to transport \"local\"");
  EXPECT_THAT(error_of(scenario("transport = \"ssh\"")), ::testing::HasSubstr("'host'"));
  EXPECT_THAT(error_of(scenario("transport = \"command\"\ncommand = []")),
              ::testing::HasSubstr("the command must not be empty"));
  EXPECT_THAT(error_of(scenario("heartbeat_timeout = \"1 s\"")), ::testing::HasSubstr("at least 2 s"));
}

// Found by scenario_fuzz: once an earlier key of [rig] is in error, the
// reader hands out no more nodes; the window's keys read after it must not
// take one for granted.
TEST(ScenarioRig, AnErrorBeforeTheWindowKeysIsTheOneReported) {
  EXPECT_EQ(error_of(scenario("heartbeat_timeout = \"15 sA\"\nwindow = \"latency\"\nwindow_condition = \"none\"")),
            error_of(scenario("heartbeat_timeout = \"15 sA\"")));
  EXPECT_THAT(error_of(scenario("heartbeat_timeout = \"15 sA\"\nwindow = \"latency\"")),
              ::testing::HasSubstr("s.toml:5:21: [rig] heartbeat_timeout"));
}

TEST(ScenarioRig, TheWindowConditionMustBeALoadCondition) {
  EXPECT_THAT(error_of(scenario("window_condition = \"stress\"",
                                "[latency]\nload = [\"none\", \"stress-ng --cpu 1\"]\n")),
              ::testing::HasSubstr("[rig] window_condition \"stress\" is not a [latency] load condition (they are: none, "
                                   "stress-ng-cpu-1)"));
  Result<Scenario> s = parse_scenario(scenario("window_condition = \"stress-ng-cpu-1\"",
                                               "[latency]\nload = [\"none\", \"stress-ng --cpu 1\"]\n"),
                                      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->rig.window.condition, "stress-ng-cpu-1");
}

}  // namespace
}  // namespace harness
