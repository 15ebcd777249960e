#include "probes/counters/sources.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "probes/counters/factories.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

class TempDir : public testing_support::ScratchDirTest {
 protected:
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
};

CounterSpec counter(std::string name, std::string key = "", std::string pattern = "") {
  CounterSpec c;
  c.name = std::move(name);
  c.key = std::move(key);
  c.pattern = std::move(pattern);
  return c;
}

CounterSourceSpec source(std::string kind, std::string path = "") {
  CounterSourceSpec s;
  s.name = "s";
  s.kind = std::move(kind);
  s.path = std::move(path);
  return s;
}

TEST(CounterSourceTable, ListsEveryKindAndSuggestsForTypos) {
  std::vector<std::string> names;
  for (const CounterSourceKind& k : counter_source_kinds()) {
    names.emplace_back(k.name);
    EXPECT_FALSE(k.description.empty());
    EXPECT_NE(k.make, nullptr);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"perf_event", "text_file", "command", "recorded"}));
  EXPECT_EQ(find_counter_source_kind("textfile").error().message,
            "unknown counter source kind \"textfile\" (expected one of \"perf_event\", \"text_file\", \"command\", "
            "\"recorded\"); did you mean \"text_file\"?");
}

TEST(CounterValues, DecimalHexAndGarbage) {
  EXPECT_EQ(parse_counter_value(" 123\n"), 123u);
  EXPECT_EQ(parse_counter_value("0xff"), 255u);
  EXPECT_EQ(parse_counter_value("18446744073709551615"), 18446744073709551615u);
  EXPECT_FALSE(parse_counter_value("18446744073709551616"));
  EXPECT_FALSE(parse_counter_value("-1"));
  EXPECT_FALSE(parse_counter_value("12 cycles"));
  EXPECT_FALSE(parse_counter_value(""));
}

TEST_F(TempDir, TextFileReadsKeyColonValueAndKeyEqualsValue) {
  write("stats", "NPU0 PMU statistics\ncycles: 1000\nmem_stall_cycles = 0x20\n\nl2 miss:  7 \nbad: lots\n");
  auto s = make_text_file_source(source("text_file", path("stats")),
                                 {counter("CYCLES", "cycles"), counter("MEM", "mem_stall_cycles"),
                                  counter("L2", "l2 miss"), counter("BAD", "bad"), counter("NONE", "none")},
                                 {});
  ASSERT_TRUE(s);
  std::vector<CounterSample> r = (*s)->read();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].value, 1000u);
  EXPECT_EQ(r[1].value, 32u);
  EXPECT_EQ(r[2].value, 7u);
  EXPECT_EQ(r[3].unavailable, "'bad' in " + path("stats") + " is not a counter value (an unsigned integer): \"lots\"");
  EXPECT_EQ(r[4].unavailable, "no key 'none' in " + path("stats"));
  EXPECT_EQ((*s)->describe(), "text_file:" + path("stats"));
}

TEST_F(TempDir, TextFileReadsADirectoryOfOneNumberFiles) {
  std::filesystem::create_directories(dir_ / "pmu");
  write("pmu/cycles", "42\n");
  auto s = make_text_file_source(source("text_file", path("pmu")),
                                 {counter("CYCLES", "cycles"), counter("GONE", "gone")}, {});
  ASSERT_TRUE(s);
  std::vector<CounterSample> r = (*s)->read();
  EXPECT_EQ(r[0].value, 42u);
  EXPECT_EQ(r[1].unavailable, "cannot read " + path("pmu/gone") + ": No such file or directory");
}

TEST_F(TempDir, TextFileThatVanishesSaysSo) {
  write("stats", "cycles: 5\n");
  auto s = make_text_file_source(source("text_file", path("stats")), {counter("CYCLES", "cycles")}, {});
  EXPECT_EQ((*s)->read()[0].value, 5u);
  std::filesystem::remove(dir_ / "stats");
  EXPECT_EQ((*s)->read()[0].unavailable, "cannot read " + path("stats") + ": No such file or directory");
}

CounterSourceSpec fake_tool(const std::string& state, const std::string& mode = "") {
  CounterSourceSpec s = source("command");
  s.command = {std::string(HARNESS_SOURCE_DIR) + "/tests/tools/fake-npu-stats", state};
  if (!mode.empty()) s.command.push_back(mode);
  s.deltas = mode == "--delta";
  return s;
}

TEST_F(TempDir, CommandSourceParsesTheVendorToolsOutput) {
  auto s = make_command_source(fake_tool(path("state")),
                               {counter("MEM_STALL_CYCLES", "", R"(mem_stall_cycles\s*=\s*(\d+))"),
                                counter("L2_MISS_CYCLES", "", R"(l2_miss_cycles\s*=\s*(\d+))"),
                                counter("TEMP", "", R"(temperature\s*=\s*(\w+))"),
                                counter("ECC", "", R"(ecc_errors\s*=\s*(\d+))")},
                               {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE((*s)->reports_deltas());
  std::vector<CounterSample> first = (*s)->read();
  EXPECT_EQ(first[0].value, 1000000u);
  EXPECT_EQ(first[1].value, 2000u);
  EXPECT_EQ(first[2].unavailable, "TEMP: '" + fake_tool("").command[0] + "' printed \"41C\", not an unsigned integer");
  EXPECT_EQ(first[3].unavailable,
            "the output of '" + fake_tool("").command[0] + "' has no match for the pattern of ECC");
  std::vector<CounterSample> second = (*s)->read();
  EXPECT_EQ(*second[0].value - *first[0].value, 5000u);
  EXPECT_EQ(*second[1].value - *first[1].value, 700u);
}

TEST_F(TempDir, CommandSourceInDeltaModeAndWhenTheToolFails) {
  auto d = make_command_source(fake_tool(path("state"), "--delta"),
                               {counter("MEM_STALL_CYCLES", "", R"(mem_stall_cycles\s*=\s*(\d+))")}, {});
  ASSERT_TRUE(d);
  EXPECT_TRUE((*d)->reports_deltas());
  EXPECT_EQ((*d)->read()[0].value, 5000u);
  auto f = make_command_source(fake_tool(path("state"), "--fail"),
                               {counter("MEM_STALL_CYCLES", "", R"(mem_stall_cycles\s*=\s*(\d+))")}, {});
  EXPECT_EQ((*f)->read()[0].unavailable,
            "command '" + fake_tool("").command[0] + "' exit status 3: npu0: device not responding");
  CounterSourceSpec missing = source("command");
  missing.command = {"no-such-npu-tool"};
  auto m = make_command_source(missing, {counter("X", "", "(\\d+)")}, {});
  EXPECT_EQ((*m)->read()[0].unavailable, "command 'no-such-npu-tool': not found in PATH");
}

TEST_F(TempDir, RecordedSourceHandsOutOneSnapshotPerRead) {
  write("rec.json", R"({"snapshots": [{"CYCLES": 10, "L2": 3}, {"CYCLES": 25, "L2": -1}]})");
  auto s = make_recorded_source(source("recorded", path("rec.json")), {counter("CYCLES"), counter("L2")}, {});
  ASSERT_TRUE(s);
  std::vector<CounterSample> a = (*s)->read();
  EXPECT_EQ(a[0].value, 10u);
  EXPECT_EQ(a[1].value, 3u);
  std::vector<CounterSample> b = (*s)->read();
  EXPECT_EQ(b[0].value, 25u);
  EXPECT_EQ(b[1].unavailable, path("rec.json") + ": snapshot 2: 'L2' is not an unsigned integer");
  EXPECT_EQ((*s)->read()[0].unavailable, path("rec.json") + " holds 2 snapshots; reading 3 has none");
  auto broken = make_recorded_source(source("recorded", path("none.json")), {counter("CYCLES")}, {});
  EXPECT_EQ((*broken)->read()[0].unavailable,
            path("none.json") + ": cannot open counter snapshots: No such file or directory");
  // Read by the bounded reader: nesting past the limit is a reason, not a crash.
  write("deep.json", "{\"snapshots\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  auto deep = make_recorded_source(source("recorded", path("deep.json")), {counter("CYCLES")}, {});
  EXPECT_EQ((*deep)->read()[0].unavailable, path("deep.json") + ":1:78: JSON nested deeper than 64 levels");
}

}  // namespace
}  // namespace harness
