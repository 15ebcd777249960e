// `harness init`: each variant passes `harness check`, the local one runs as
// written, and every key it writes is documented.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "harness/model/metric_catalogue.h"
#include "probes/process.h"
#include "tests/support/harness_cli_test.h"
#include "tests/support/ssh_device.h"

namespace harness {
namespace {

using ::testing::HasSubstr;

// The variants that run a scenario over ssh or a command get five minutes.
class Init : public testing_support::HarnessCliTest {
 protected:
  Init() : HarnessCliTest({.timeout_s = 300, .max_output = 1 << 22}) {}
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every key of the file, dotted from its table ("latency.power.source"); the
// entries of the tables whose keys are names the user chooses (ceilings,
// version commands) count as one "name".
void collect_keys(const toml::table& t, const std::string& prefix, std::vector<std::string>& out) {
  for (auto&& [key, node] : t) {
    std::string name = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    out.push_back(name);
    if (prefix == "rig" && (key.str() == "memory" || key.str() == "compute" || key.str() == "versions")) continue;
    if (const toml::table* sub = node.as_table()) collect_keys(*sub, name, out);
    if (const toml::array* a = node.as_array(); a && a->is_array_of_tables())
      for (const toml::node& e : *a) collect_keys(*e.as_table(), name, out);
  }
}

// A key is documented when the reference names it in a code span (`key`,
// `key = "..."`) or sets it in one of its example blocks (key = ...).
bool documented(const std::string& reference, const std::string& key) {
  const std::regex named("^\\s*" + key + "\\s*(=.*)?$");
  const std::regex set_in_example("^\\s*" + key + "\\s*=");
  std::istringstream lines(reference);
  bool fenced = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("```")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      if (std::regex_search(line, set_in_example)) return true;
      continue;
    }
    std::istringstream spans(line);
    std::string span;
    for (int i = 0; std::getline(spans, span, '`'); ++i)
      if (i % 2 == 1 && std::regex_match(span, named)) return true;
  }
  return false;
}

TEST_F(Init, EveryKeyItWritesIsDocumented) {
  ASSERT_EQ(harness({"init", "--levels", "1,2,3,4,5", path("all.toml")}).exit_code, 0);
  toml::parse_result parsed = toml::parse_file(path("all.toml"));
  ASSERT_TRUE(parsed) << parsed.error().description();
  std::vector<std::string> keys;
  collect_keys(parsed.table(), "", keys);
  ASSERT_GT(keys.size(), 30u);
  const std::string reference = read_text(HARNESS_SOURCE_DIR "/scenarios/README.md");
  std::vector<std::string> expectation_keys;
  for (Level level : kAllLevels)
    for (const CatalogueEntry& e : metric_catalogue(level))
      for (const std::string& k : e.expectation_keys()) expectation_keys.push_back(k);
  for (const std::string& dotted : keys) {
    const std::string key = dotted.substr(dotted.rfind('.') + 1);
    // A section is documented by its heading or a mention such as `[ddr.acquire]`.
    const bool section = parsed.table().at_path(dotted).is_table() || parsed.table().at_path(dotted).is_array_of_tables();
    if (section) {
      EXPECT_TRUE(reference.find("[" + dotted + "]") != std::string::npos) << "[" << dotted << "] is not in scenarios/README.md";
      continue;
    }
    if (std::find(expectation_keys.begin(), expectation_keys.end(), key) != expectation_keys.end()) continue;
    EXPECT_TRUE(documented(reference, key)) << dotted << " is documented neither in scenarios/README.md nor in the catalogue";
  }
}

TEST_F(Init, TheLocalScenarioPassesCheckAndRunsAsWritten) {
  CommandResult init = harness({"init", path("mine.toml")});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_EQ(init.out, "wrote " + path("mine.toml") + "; check it with: harness check " + path("mine.toml") + "\n");
  EXPECT_THAT(read_text(path("mine.toml")), HasSubstr("harness metrics"));
  CommandResult check = harness({"check", path("mine.toml")});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  CommandResult run = harness({"run", "--no-report", path("mine.toml")});
  EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;  // 1: a verdict of this noisy host
  EXPECT_THAT(run.out, HasSubstr("stored as run 1 in "));
  // Never overwritten by accident.
  CommandResult again = harness({"init", path("mine.toml")});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err, "harness: error: " + path("mine.toml") + ": exists already (--force overwrites it)\n");
}

TEST_F(Init, TheCommandVariantWithItsPrefixPassesCheck) {
  // A prefix that yields a shell on "the board" as adb shell does (it runs
  // the command line it is given): this machine's own sh.
  ASSERT_EQ(harness({"init", "--rig", "command", "--command", "sh -c 'eval \"$*\"' sh", "--agent",
                     std::string(HARNESS_BINARY) + " agent", path("cmd.toml")})
                .exit_code,
            0);
  CommandResult check = harness({"check", path("cmd.toml")});
  EXPECT_EQ(check.exit_code, 0) << read_text(path("cmd.toml")) << check.err;
}

TEST_F(Init, TheSshVariantWithItsTransportPassesCheckOnALoopbackBoard) {
  test_support::SshDevice board;
  if (!board.available()) GTEST_SKIP() << board.unavailable_reason();
  std::vector<std::string> args = {"init", "--rig", "ssh", "--host", board.host(), "--port", std::to_string(board.port()),
                                   "--user", board.user(), "--identity", board.identity().string(), "--agent",
                                   std::string(HARNESS_BINARY) + " agent"};
  for (const std::string& o : board.ssh_options()) args.push_back("--ssh-option=" + o);
  args.push_back(path("ssh.toml"));
  ASSERT_EQ(harness(args).exit_code, 0);
  CommandResult check = harness({"check", path("ssh.toml")});
  EXPECT_EQ(check.exit_code, 0) << read_text(path("ssh.toml")) << check.err;
  EXPECT_THAT(check.out, HasSubstr("checked: rig 'board-1' via ssh:"));
}

}  // namespace
}  // namespace harness
