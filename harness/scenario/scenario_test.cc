#include "harness/scenario/scenario.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace harness {
namespace {

const char* kMinimal = R"(
[scenario]
name = "t"
[rig]
name = "r"
[rig.memory]
dram = "50 GB/s"
[workload]
builtin = "vector_add"
elements = 1024
)";

std::string error_of(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.toml");
  EXPECT_FALSE(s.ok()) << "parsed, but an error was expected";
  return s ? "" : s.error().message;
}

// The shipped examples are documentation a user copies: each must load as is.
TEST(Scenario, EveryShippedScenarioLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HARNESS_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".toml") continue;
    Result<Scenario> s = load_scenario(entry.path().string());
    EXPECT_TRUE(s) << entry.path() << ": " << s.error().message;
    ++loaded;
  }
  EXPECT_GE(loaded, 6);
}

TEST(Scenario, ParsesTheMinimalScenario) {
  Result<Scenario> s = parse_scenario(kMinimal, "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->name, "t");
  EXPECT_EQ(s->rig.name, "r");
  ASSERT_EQ(s->rig.memory.size(), 1u);
  EXPECT_FALSE(s->rig.memory[0].measure);
  EXPECT_DOUBLE_EQ(s->rig.memory[0].value, 50e9);
  EXPECT_EQ(s->workload.kind, Workload::Kind::builtin);
  EXPECT_EQ(s->workload.builtin.elements, 1024);
  EXPECT_FALSE(s->roofline);
  EXPECT_EQ(s->text, kMinimal);
}

TEST(Scenario, BadTomlNamesLineAndColumn) {
  EXPECT_EQ(error_of("[scenario]\nname = \"t\nx = 1\n"),
            "s.toml:2:10: Error while parsing string: unescaped control characters other than TAB (U+0009) are "
            "explicitly prohibited");
}

// Code points toml++ 3.3 never expected where whitespace may stand (U+00A1..
// U+0499, U+FB46..U+FEFE) are an error, not its TOML_UNREACHABLE (an abort
// under UBSan; see harness/base/toml.h).
TEST(Scenario, NonAsciiWhereWhitespaceMayStandIsAnError) {
  EXPECT_EQ(error_of("[scenario]\nname = \xc3\xa9\n"),
            "s.toml:2:8: Error while parsing value: could not determine value type");
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\xef\xbc\xa0\n"),
            "s.toml:2:11: Error while parsing key-value pair: expected a comment or whitespace, saw '\xef\xbc\xa0'");
  // After a line-ending backslash in a multi-line string the parser skips
  // whitespace, asking the same question of the next line's first letter.
  Result<Scenario> s = parse_scenario("[scenario]\nname = \"t\"\ndescription = \"\"\"\\\n  \xd0\x96\"\"\"\n[rig]\n"
                                      "name = \"r\"\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n",
                                      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->description, "\xd0\x96");
}

TEST(Scenario, UnknownKeySuggestsTheClosest) {
  std::string text = kMinimal;
  text += "[latency]\niterations = 10\nwarmpu = 3\n";
  EXPECT_EQ(error_of(text), "s.toml:13:1: unknown key 'warmpu' in [latency]; did you mean 'warmup'?");
}

TEST(Scenario, UnknownSectionIsRejected) {
  std::string text = kMinimal;
  text += "[roofline2]\n";
  EXPECT_EQ(error_of(text), "s.toml:11:2: unknown key 'roofline2' in [top level]; did you mean 'roofline'?");
}

TEST(Scenario, WrongTypeSaysWhatWasExpected) {
  std::string text = kMinimal;
  text += "[latency]\niterations = \"many\"\n";
  EXPECT_EQ(error_of(text), "s.toml:12:14: [latency] iterations must be an integer, got a string");
}

TEST(Scenario, BadUnitIsRejectedWithTheDimension) {
  std::string text = R"([scenario]
name = "t"
[rig]
name = "r"
[rig.memory]
dram = "50 GHz"
[workload]
builtin = "vector_add"
elements = 1024
)";
  EXPECT_EQ(error_of(text),
            "s.toml:6:8: [rig.memory] dram: expected a bandwidth such as \"50 GB/s\", got \"50 GHz\", "
            "which is a frequency");
}

TEST(Scenario, MissingSectionIsNamed) {
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n"),
            "s.toml: missing required section [workload]");
}

TEST(Scenario, MissingKeyIsNamed) {
  EXPECT_EQ(error_of("[scenario]\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 1\nn = 1\nk = 1\n"),
            "s.toml:1:1: [scenario] is missing required key 'name' (a string)");
}

// Each section is read on its own: a problem in one does not hide the
// others', and all come in the order of their place in the file.
TEST(Scenario, EverySectionsProblemIsReportedInOnePass) {
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\nheartbeat_timeout = \"1 s\"\n"
                     "[workload]\nbuiltin = \"gemm\"\nm = 1\nn = 1\nk = 1\n"
                     "[latency]\niterations = 0\nwarmpu = 3\n"
                     "[compare]\nalpha = 2\n"),
            "s.toml: 3 problems:\n"
            "  s.toml:5:21: [rig] heartbeat_timeout: must be at least 2 s (the agent beats every second)\n"
            "  s.toml:12:14: [latency] iterations must be between 1 and 100000000, got 0\n"
            "  s.toml:15:9: [compare] alpha: must be between 0 and 1 (exclusive)");
}

TEST(Scenario, AMissingRequiredKeyBesideAMisspellingNamesIt) {
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                     "elemnts = 1024\n"),
            "s.toml:7:1: [workload] unknown key 'elemnts'; did you mean 'elements'? (a required key)");
  // A key that is valid where it stands is not taken for a misspelling.
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 2\nk = 2\n"),
            "s.toml:5:1: [workload] is missing required key 'n' (built-in kernel \"gemm\" needs it)");
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workloda]\nbuiltin = \"gemm\"\n"),
            "s.toml:5:1: unknown section [workloda]; did you mean [workload]? (a required section)");
}

TEST(Scenario, UnknownBuiltinKernelSuggestsOne) {
  std::string text = "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gem\"\n";
  EXPECT_EQ(error_of(text),
            "s.toml:6:11: [workload] builtin: unknown value \"gem\" (expected one of \"vector_add\", \"gemm\", "
            "\"softmax\", \"conv2d\"); did you mean \"gemm\"?");
}

TEST(Scenario, WorkloadNeedsExactlyOneKind) {
  std::string text = "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nname = \"w\"\n";
  EXPECT_EQ(error_of(text),
            "s.toml:5:1: [workload] needs exactly one of 'builtin' (a kernel run in-process) or 'command' "
            "(an argv array)");
}

TEST(Scenario, WorkloadCpusAreDistinctCpuNumbers) {
  const std::string head = "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 1\nn = 1\nk = 1\n";
  Result<Scenario> s = parse_scenario(head + "cpus = [3, 0]\n", "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->workload.cpus, (std::vector<int>{3, 0}));
  EXPECT_FALSE(s->workload.first_cpu);
  s = parse_scenario(head + "cpus = \"first\"\n", "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->workload.cpus.empty());
  EXPECT_TRUE(s->workload.first_cpu);
  for (const std::string bad : {"[]", "0", "\"last\""}) {
    EXPECT_EQ(error_of(head + "cpus = " + bad + "\n"),
              "s.toml:10:8: [workload] cpus: must be a non-empty array of CPU numbers, e.g. [0] or [2, 3], or \"first\"");
  }
  EXPECT_EQ(error_of(head + "cpus = [0, -1]\n"), "s.toml:10:12: [workload] cpus: each must be a CPU number from 0 to 1023");
  EXPECT_EQ(error_of(head + "cpus = [\"0\"]\n"), "s.toml:10:9: [workload] cpus: each must be a CPU number from 0 to 1023");
  EXPECT_EQ(error_of(head + "cpus = [1, 1]\n"), "s.toml:10:12: [workload] cpus: CPU 1 is named twice");
}

TEST(Scenario, MissingFileNamesTheOsError) {
  Result<Scenario> s = load_scenario("/nonexistent/x.toml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "/nonexistent/x.toml: cannot open scenario: No such file or directory");
  EXPECT_EQ(s.error().code, ExitCode::bad_input);
}

TEST(Scenario, ExpectationsCarryUnitsAndPosition) {
  std::string text = kMinimal;
  text += "[latency]\n[latency.expect]\nlatency_p95_max = \"800 ms\"\np95_over_p50_max = 1.3\n";
  Result<Scenario> s = parse_scenario(text, "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->latency->expectations.size(), 2u);
  const Expectation& e = s->latency->expectations[0];
  EXPECT_EQ(e.metric, "latency_p95");
  EXPECT_EQ(e.bound, Bound::max);
  EXPECT_DOUBLE_EQ(e.number, 0.8);
  EXPECT_EQ(e.where, "s.toml:13:19");
}

// Every example scenario shipped in scenarios/ must parse.
TEST(Scenario, EveryBundledScenarioParses) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HARNESS_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".toml") continue;
    Result<Scenario> s = load_scenario(entry.path().string());
    EXPECT_TRUE(s) << entry.path() << ": " << (s ? "" : s.error().message);
    ++count;
  }
  EXPECT_GE(count, 1);
}

}  // namespace
}  // namespace harness
