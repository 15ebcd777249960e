// [rig.stability]: the defaults, each key, and the errors a user sees.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/scenario/scenario.h"

namespace harness {
namespace {

std::string scenario(const std::string& stability_keys) {
  return "[scenario]\nname = \"t\"\n[rig]\nname = \"board-3\"\n[rig.stability]\n" + stability_keys +
         "\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n";
}

std::string error_of(const std::string& keys) {
  Result<Scenario> s = parse_scenario(scenario(keys), "s.toml");
  EXPECT_FALSE(s.ok()) << "parsed, but an error was expected";
  return s ? "" : s.error().message;
}

TEST(ScenarioStability, DefaultsHoldWithoutTheTable) {
  Result<Scenario> s = parse_scenario("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                                      "elements = 16\n",
                                      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  const StabilityConfig& c = s->rig.stability;
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.interval_s, 10);
  EXPECT_EQ(c.canary_change_max, 0.10);
  EXPECT_EQ(c.cpu_freq_drop_max, 0.10);
  EXPECT_EQ(c.temperature_rise_max_c, 3);
  EXPECT_EQ(c.throttle_increase_max, 0u);
  EXPECT_EQ(c.other_cpu_share_max, 0.10);
}

TEST(ScenarioStability, EveryKeyIsRead) {
  Result<Scenario> s = parse_scenario(scenario("enabled = false\ninterval = \"30 s\"\ncanary_change_max = \"5 %\"\n"
                                               "cpu_freq_drop_max = 0.2\ntemperature_rise_max = \"4.5 °C\"\n"
                                               "throttle_increase_max = 2\nother_cpu_share_max = \"25 %\""),
                                      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  const StabilityConfig& c = s->rig.stability;
  EXPECT_FALSE(c.enabled);
  EXPECT_EQ(c.interval_s, 30);
  EXPECT_DOUBLE_EQ(c.canary_change_max, 0.05);
  EXPECT_EQ(c.cpu_freq_drop_max, 0.2);
  EXPECT_EQ(c.temperature_rise_max_c, 4.5);
  EXPECT_EQ(c.throttle_increase_max, 2u);
  EXPECT_DOUBLE_EQ(c.other_cpu_share_max, 0.25);
  Result<Scenario> kelvin = parse_scenario(scenario("temperature_rise_max = \"2 K\"\ninterval = \"0 s\""), "s.toml");
  ASSERT_TRUE(kelvin) << kelvin.error().message;
  EXPECT_EQ(kelvin->rig.stability.temperature_rise_max_c, 2);
  EXPECT_EQ(kelvin->rig.stability.interval_s, 0);
}

TEST(ScenarioStability, AnUnknownKeyGetsDidYouMean) {
  EXPECT_EQ(error_of("canary_change = \"5 %\""),
            "s.toml:6:1: unknown key 'canary_change' in [rig.stability]; did you mean 'canary_change_max'?");
  EXPECT_EQ(error_of("enable = true"), "s.toml:6:1: unknown key 'enable' in [rig.stability]; did you mean 'enabled'?");
}

TEST(ScenarioStability, ValuesWithUnitsAreChecked) {
  EXPECT_EQ(error_of("interval = 10"),
            "s.toml:6:12: [rig.stability] interval must be a time written as a string with a unit, such as \"60 s\", "
            "got an integer");
  EXPECT_EQ(error_of("interval = \"10 GB\""),
            "s.toml:6:12: [rig.stability] interval: expected a time such as \"60 s\", got \"10 GB\", which is a size");
  EXPECT_EQ(error_of("interval = \"200 ms\""),
            "s.toml:6:12: [rig.stability] interval: must be 0 s (readings only at a window's ends) or at least 1 s");
  EXPECT_EQ(error_of("temperature_rise_max = 3"),
            "s.toml:6:24: [rig.stability] temperature_rise_max: must be a temperature rise written with its unit, "
            "such as \"3 °C\" or \"3 K\", got an integer");
  EXPECT_EQ(error_of("temperature_rise_max = \"3 F\""),
            "s.toml:6:24: [rig.stability] temperature_rise_max: must be a temperature rise written with its unit, "
            "such as \"3 °C\" or \"3 K\", got \"3 F\"");
  EXPECT_EQ(error_of("temperature_rise_max = \"-1 K\""),
            "s.toml:6:24: [rig.stability] temperature_rise_max: must be above 0 °C, got \"-1 K\"");
  EXPECT_EQ(error_of("canary_change_max = \"ten %\""),
            "s.toml:6:21: [rig.stability] canary_change_max: expected a fraction such as 0.5 or a percentage such as "
            "\"50 %\", got \"ten %\"");
  EXPECT_EQ(error_of("other_cpu_share_max = \"150 %\""),
            "s.toml:6:23: [rig.stability] other_cpu_share_max: must be between 0 and 1 (0 % and 100 %), got 1.5");
  EXPECT_EQ(error_of("cpu_freq_drop_max = \"nan %\""),
            "s.toml:6:21: [rig.stability] cpu_freq_drop_max: must be between 0 and 1 (0 % and 100 %), got nan");
  EXPECT_EQ(error_of("canary_change_max = 0"),
            "s.toml:6:21: [rig.stability] canary_change_max: must be above 0 % (no window stays exactly the same)");
  EXPECT_EQ(error_of("throttle_increase_max = -1"),
            "s.toml:6:25: [rig.stability] throttle_increase_max must be between 0 and 1000000000, got -1");
  EXPECT_EQ(error_of("enabled = \"yes\""),
            "s.toml:6:11: [rig.stability] enabled must be a boolean (true or false), got a string");
}

}  // namespace
}  // namespace harness
