#include "reports/metric_list.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using ::testing::HasSubstr;

TEST(MetricList, TextListsEachEntryWithUnitDirectionAndExpectationKeys) {
  const std::string ddr = render_metric_list_text(Level::ddr);
  EXPECT_THAT(ddr, HasSubstr("level 3: ddr\n"));
  EXPECT_EQ(ddr.find("level 1: "), std::string::npos);
  // name, unit, better, description; the keys on the next line.
  EXPECT_THAT(ddr, testing::ContainsRegex("\n  ddr\\.bandwidth +B/s +higher +bytes / capture duration\n +expect in "
                                          "\\[ddr\\.expect\\]: bandwidth_min, bandwidth_max, bandwidth_vs_baseline\n"));
  EXPECT_THAT(ddr, testing::ContainsRegex("\n  ddr\\.transactions\\.<N>B +1 +none +transactions of N bytes"));
  EXPECT_THAT(ddr, HasSubstr("[samples]"));
  const std::string all = render_metric_list_text(std::nullopt);
  for (const char* level :
       {"level 1: roofline", "level 2: counters", "level 3: ddr", "level 4: latency", "level 5: accuracy"})
    EXPECT_THAT(all, HasSubstr(level));
  EXPECT_THAT(all, testing::ContainsRegex("\n  counter\\.<name> +\\(source\\) +\\(source\\) "));
}

TEST(MetricList, JsonHasOneObjectPerEntry) {
  nlohmann::json j = metric_list_to_json(Level::latency);
  ASSERT_TRUE(j.is_array());
  const nlohmann::json* p95 = nullptr;
  for (const nlohmann::json& e : j)
    if (e["name"] == "latency_p95") p95 = &e;
  ASSERT_NE(p95, nullptr);
  EXPECT_EQ((*p95)["unit"], "s");
  EXPECT_EQ((*p95)["better"], "lower");
  EXPECT_EQ((*p95)["expect"], nlohmann::json::array({"latency_p95_min", "latency_p95_max"}));
  EXPECT_EQ((*p95)["expect_table"], "[latency.expect]");
  EXPECT_EQ((*p95)["pattern"], false);
}

// docs/parts/metrics.md carries the catalogue as `harness metrics --markdown`
// prints it, between two markers, so that the page cannot drift from the table.
TEST(MetricList, TheDocsPageIsTheCatalogue) {
  const std::filesystem::path doc = std::filesystem::path(HARNESS_SOURCE_DIR) / "docs" / "parts" / "metrics.md";
  std::ifstream in(doc);
  ASSERT_TRUE(in) << doc;
  std::stringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  const std::string begin = "<!-- begin: harness metrics --markdown -->\n", end = "<!-- end: harness metrics -->";
  const std::size_t from = page.find(begin), to = page.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(page.substr(from + begin.size(), to - from - begin.size()), render_metric_list_markdown())
      << "regenerate the tables with: harness metrics --markdown";
}

}  // namespace
}  // namespace harness
