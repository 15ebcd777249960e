#include "harness/scenario/counters_group.h"

#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "harness/scenario/scenario.h"

namespace harness {
namespace {

const char* kGroup = R"(name = "npu"
description = "test group"

[sources.stats]
kind = "text_file"
path = "/tmp/stats"
width = 48

[counters.CYCLES]
key = "cycles"
unit = "cycles"

[counters.MEM_STALL_CYCLES]
key = "mem_stall"
scale = 2

[metrics]
mem_stall_ratio = "MEM_STALL_CYCLES / CYCLES"
bytes = "CYCLES * 64"
ipc = { formula = "CYCLES / CYCLES", better = "higher", unit = "1" }
)";

std::string group_error(const std::string& text) {
  Result<CounterGroup> g = parse_counter_group(text, "g.toml");
  EXPECT_FALSE(g) << text;
  return g ? "" : g.error().message;
}

TEST(CounterGroupFile, ParsesSourcesCountersAndFormulas) {
  Result<CounterGroup> g = parse_counter_group(kGroup, "g.toml");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->name, "npu");
  ASSERT_EQ(g->sources.size(), 1u);
  EXPECT_EQ(g->sources[0].kind, "text_file");
  EXPECT_EQ(g->sources[0].path, "/tmp/stats");
  EXPECT_EQ(g->sources[0].width, 48);
  ASSERT_EQ(g->counters.size(), 2u);
  EXPECT_EQ(g->counters[0].name, "CYCLES");
  EXPECT_EQ(g->counters[0].source, "stats");  // the only source is the default
  EXPECT_EQ(g->counters[0].key, "cycles");
  EXPECT_EQ(g->counters[1].scale, 2);
  EXPECT_EQ(g->counters[1].unit, "events");
  ASSERT_EQ(g->metrics.size(), 3u);
  EXPECT_EQ(g->metrics[0].name, "bytes");
  EXPECT_EQ(g->metrics[0].unit, "B");
  EXPECT_EQ(g->metrics[0].better, Better::none);
  EXPECT_EQ(g->metrics[1].name, "ipc");
  EXPECT_EQ(g->metrics[1].better, Better::higher);
  EXPECT_EQ(g->metrics[2].formula.text(), "MEM_STALL_CYCLES / CYCLES");
  EXPECT_EQ(g->metrics[2].where, "g.toml:18:19");
}

TEST(CounterGroupFile, ErrorsPointIntoTheFile) {
  std::string base = "name = \"g\"\n[sources.perf]\nkind = \"perf_event\"\n";
  EXPECT_EQ(group_error("name = \"g\"\n[sources.perf]\nkind = \"perf-event\"\n[counters.A]\nevent = \"cycles\"\n"),
            "g.toml:3:8: [sources.perf] kind: unknown counter source kind \"perf-event\" (expected one of "
            "\"perf_event\", \"text_file\", \"command\", \"recorded\"); did you mean \"perf_event\"?");
  EXPECT_EQ(group_error(base + "[counters.A]\nevent = \"cycle\"\n"),
            "g.toml:5:9: [counters.A] event: unknown perf event 'cycle'; did you mean 'cycles'?");
  EXPECT_EQ(group_error(base + "[counters.A]\nevent = \"cycles\"\nkey = \"x\"\n"),
            "g.toml:6:1: unknown key 'key' in [counters.A]");
  EXPECT_EQ(group_error(base + "[counters.A]\n"),
            "g.toml:4:1: [counters.A] is missing required key 'event' (a counter of a perf_event source needs it)");
  EXPECT_EQ(group_error(base + "[counters.A]\nevent = \"cycles\"\nsource = \"pref\"\n"),
            "g.toml:6:10: [counters.A] source: no source \"pref\" in this group ([sources.pref] is not declared); "
            "did you mean \"perf\"?");
  EXPECT_EQ(group_error(base + "[counters.A]\nevent = \"cycles\"\n[metrics]\nr = \"A / CYLCES\"\n"),
            "g.toml:7:10: [metrics] r: unknown counter 'CYLCES'");
  EXPECT_EQ(group_error(base + "[counters.CYCLES]\nevent = \"cycles\"\n[metrics]\nr = \"A / CYLCES\"\n"),
            "g.toml:7:6: [metrics] r: unknown counter 'A'");
  EXPECT_EQ(group_error(base + "[counters.CYCLES]\nevent = \"cycles\"\n[metrics]\nr = \"CYLCES / 2\"\n"),
            "g.toml:7:6: [metrics] r: unknown counter 'CYLCES'; did you mean 'CYCLES'?");
  EXPECT_EQ(group_error(base + "[counters.A]\nevent = \"cycles\"\n[metrics]\nr = \"(A + 1\"\n"),
            "g.toml:7:12: [metrics] r: missing ')' at the end of the formula");
  EXPECT_EQ(group_error(base + "[counters.A]\nevent = \"cycles\"\n[metrics]\nA = \"1\"\n"),
            "g.toml:7:1: metric 'A' has the name of a counter");
  EXPECT_EQ(group_error(base + "[counters.\"L2-MISS\"]\nevent = \"cycles\"\n"),
            "g.toml:4:11: counter name 'L2-MISS' must be a letter or '_' followed by letters, digits or '_' "
            "(formulas refer to it)");
  EXPECT_EQ(group_error("name = \"g\"\n[sources.s]\nkind = \"text_file\"\npath = \"/x\"\nwidth = 40\n[counters.A]\nkey = \"a\"\n"),
            "g.toml:5:9: [sources.s] width: must be 32, 48 or 64 bits, got 40");
  EXPECT_EQ(group_error("name = \"g\"\n[sources.s]\nkind = \"text_file\"\n[counters.A]\nkey = \"a\"\n"),
            "g.toml:2:1: [sources.s] is missing required key 'path' (a text_file source needs it)");
  EXPECT_EQ(group_error("name = \"g\"\n[sources.s]\nkind = \"command\"\ncommand = [\"t\"]\n[counters.A]\npattern = \"a(\"\n"),
            "g.toml:6:11: [counters.A] pattern: pattern \"a(\" is not a valid regular expression: "
            + std::string(std::regex_error(std::regex_constants::error_paren).what()));
  EXPECT_EQ(group_error("name = \"g\"\n"), "g.toml: a counter group needs at least one [sources.<name>] table");
  EXPECT_EQ(group_error(base), "g.toml: a counter group needs at least one [counters.<NAME>] table");
  EXPECT_EQ(group_error("name = \"g\"\n[sources.a]\nkind = \"perf_event\"\n[sources.b]\nkind = \"perf_event\"\n"
                        "[counters.A]\nevent = \"cycles\"\n"),
            "g.toml:6:1: [counters.A] is missing required key 'source' (the group declares several sources)");
}

TEST(CounterGroupFile, ShippedGroupsParse) {
  for (const char* name : {"linux-host", "npu-driver-stats"}) {
    Result<CounterGroup> g =
        load_counter_group(std::string(HARNESS_SOURCE_DIR) + "/scenarios/groups/" + name + ".toml");
    ASSERT_TRUE(g) << g.error().message;
    EXPECT_EQ(g->name, name);
    bool has_bytes = false;
    for (const DerivedCounterMetric& m : g->metrics) has_bytes |= m.name == "bytes";
    EXPECT_TRUE(has_bytes) << name << " gives level 1 its bytes";
  }
}

TEST(CountersScenario, TheNpuRigExampleParsesWithItsGroupAndExpectations) {
  Result<Scenario> s = load_scenario(std::string(HARNESS_SOURCE_DIR) + "/scenarios/rig-npu-example.toml");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->counters);
  const CountersConfig& c = *s->counters;
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].name, "npu-driver-stats");
  EXPECT_EQ(c.iterations, 10);
  ASSERT_EQ(c.expectations.size(), 1u);
  EXPECT_EQ(c.expectations[0].metric, "counter.mem_stall_ratio");
  EXPECT_EQ(c.expectations[0].bound, Bound::max);
  EXPECT_EQ(c.expectations[0].number, 0.6);
  ASSERT_EQ(c.baseline_expectations.size(), 3u);
  using Kind = BaselineCounterExpectation::Kind;
  EXPECT_EQ(c.baseline_expectations[0].kind, Kind::rise_max);
  EXPECT_EQ(c.baseline_expectations[0].counter, "ALU_STALL_CYCLES");
  EXPECT_DOUBLE_EQ(c.baseline_expectations[0].fraction, 0.1);
  EXPECT_EQ(c.baseline_expectations[1].kind, Kind::follows);
  EXPECT_EQ(c.baseline_expectations[1].counter, "L2_MISS_CYCLES");
  EXPECT_EQ(c.baseline_expectations[1].lead, "MEM_STALL_CYCLES");
  EXPECT_EQ(c.baseline_expectations[2].kind, Kind::drop_min);
  EXPECT_DOUBLE_EQ(c.baseline_expectations[2].fraction, 0.5);
}

TEST(CountersScenario, TheHostScenarioUsesTheLinuxHostGroup) {
  Result<Scenario> s = load_scenario(std::string(HARNESS_SOURCE_DIR) + "/scenarios/host.toml");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->counters);
  ASSERT_EQ(s->counters->groups.size(), 1u);
  EXPECT_EQ(s->counters->groups[0].name, "linux-host");
  EXPECT_TRUE(s->counters->find_counter("TASK_CLOCK"));
}

std::string scenario_error(const std::string& counters) {
  std::string text = "[scenario]\nname = \"s\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                     "elements = 16\n" + counters;
  Result<Scenario> s = parse_scenario(text, std::string(HARNESS_SOURCE_DIR) + "/scenarios/t.toml");
  EXPECT_FALSE(s) << counters;
  if (s) return "";
  std::string m = s.error().message;
  std::string prefix = std::string(HARNESS_SOURCE_DIR) + "/scenarios/";
  if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
  return m;
}

TEST(CountersScenario, ErrorsInTheCountersSection) {
  EXPECT_EQ(scenario_error("[counters]\ngroups = [\"linux-hots\"]\n"),
            "t.toml:9:11: [counters] groups: no counter group \"linux-hots\" (looked for "
            + std::string(HARNESS_SOURCE_DIR) + "/scenarios/groups/linux-hots.toml, " + HARNESS_SOURCE_DIR +
            "/scenarios/groups/linux-hots.toml); did you mean \"linux-host\"?");
  EXPECT_EQ(scenario_error("[counters]\niterations = 3\n"),
            "t.toml:8:1: [counters] is missing required key 'groups' (the counter groups to read, e.g. "
            "[\"linux-host\"])");
  EXPECT_EQ(scenario_error("[counters]\ngroups = \"linux-host\"\n[counters.expect]\nmem_stall_ration_max = 1\n"),
            "t.toml:11:1: unknown key 'mem_stall_ration_max' in [counters.expect]; did you mean 'mem_stall_ratio_max'?");
  EXPECT_EQ(scenario_error("[counters]\ngroups = \"npu-driver-stats\"\n[counters.expect.baseline]\n"
                           "MEM_STALL_CYCLE_drop_min = 0.5\n"),
            "t.toml:11:1: unknown key 'MEM_STALL_CYCLE_drop_min' in [counters.expect.baseline] (expected "
            "<counter>_drop_min, <counter>_rise_max or <counter>_follows); did you mean 'MEM_STALL_CYCLES_drop_min'?");
  EXPECT_EQ(scenario_error("[counters]\ngroups = \"npu-driver-stats\"\n[counters.expect.baseline]\n"
                           "MEM_STALL_CYCLES_drop_min = \"fifty\"\n"),
            "t.toml:11:29: [counters.expect.baseline] MEM_STALL_CYCLES_drop_min: expected a fraction such as 0.5 "
            "or a percentage such as \"50 %\", got \"fifty\"");
  EXPECT_EQ(scenario_error("[counters]\ngroups = \"npu-driver-stats\"\n[counters.expect.baseline]\n"
                           "MEM_STALL_CYCLES_drop_min = 50\n"),
            "t.toml:11:29: [counters.expect.baseline] MEM_STALL_CYCLES_drop_min: must be between 0 and 1 "
            "(0 % and 100 %), got 50");
  EXPECT_EQ(scenario_error("[counters]\ngroups = \"npu-driver-stats\"\n[counters.expect.baseline]\n"
                           "L2_MISS_CYCLES_follows = \"MEM_STAL_CYCLES\"\n"),
            "t.toml:11:26: [counters.expect.baseline] L2_MISS_CYCLES_follows: no counter or metric "
            "\"MEM_STAL_CYCLES\" in the groups; did you mean \"MEM_STALL_CYCLES\"?");
  EXPECT_EQ(scenario_error("[counters]\ngroups = \"npu-driver-stats\"\n[counters.sources.npu_stat]\npath = \"/x\"\n"),
            "t.toml:10:1: [counters.sources] npu_stat: no counter group declares a source \"npu_stat\"; "
            "did you mean \"npu_stats\"?");
  EXPECT_EQ(scenario_error("[counters]\ngroups = [\"linux-host\", \"linux-host\"]\n"),
            "t.toml:9:25: [counters] groups: counter CONTEXT_SWITCHES is defined by both groups \"linux-host\" "
            "and \"linux-host\"");
}

TEST(CountersScenario, ASourceOverrideGivesTheRigItsPath) {
  std::string text = "[scenario]\nname = \"s\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                     "elements = 16\n[counters]\ngroups = \"npu-driver-stats\"\n"
                     "[counters.sources.npu_stats]\npath = \"/tmp/fake/stats\"\n";
  Result<Scenario> s = parse_scenario(text, std::string(HARNESS_SOURCE_DIR) + "/scenarios/t.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->counters->groups[0].sources[0].path, "/tmp/fake/stats");
}

}  // namespace
}  // namespace harness
