#include "harness/model/metric_catalogue.h"

#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(MetricCatalogue, PatternsMatchANonEmptyPartOfTheName) {
  EXPECT_TRUE(name_matches("ddr.transactions.<N>B", "ddr.transactions.64B"));
  EXPECT_FALSE(name_matches("ddr.transactions.<N>B", "ddr.transactions.B"));
  EXPECT_FALSE(name_matches("ddr.transactions.<N>B", "ddr.transactions"));
  EXPECT_TRUE(name_matches("ridge.<compute>.<memory>", "ridge.fp32.dram"));
  // Layer names may hold dots.
  EXPECT_TRUE(name_matches("accuracy.<layer>.cosine", "accuracy.model.conv1.cosine"));
  EXPECT_FALSE(name_matches("accuracy.<layer>.cosine", "accuracy.conv1.cosine_min"));
  EXPECT_TRUE(name_matches("ddr.bytes", "ddr.bytes"));
  EXPECT_FALSE(name_matches("ddr.bytes", "ddr.bytes2"));
}

TEST(MetricCatalogue, ExactNamesWinOverPatternsAndSpecificPatternsComeFirst) {
  const CatalogueEntry* dram = find_catalogue_entry(Level::roofline, "ceiling.memory.dram");
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->name, "ceiling.memory.dram");
  EXPECT_EQ(find_catalogue_entry(Level::roofline, "ceiling.memory.l3")->name, "ceiling.memory.<name>");
  EXPECT_EQ(find_catalogue_entry(Level::roofline, "layer.conv1.time")->name, "layer.<layer>.time");
  EXPECT_EQ(find_catalogue_entry(Level::roofline, "gemm.time")->name, "<kernel>.time");
  EXPECT_EQ(find_catalogue_entry(Level::accuracy, "accuracy.isolated.conv1.cosine")->name,
            "accuracy.isolated.<layer>.cosine");
  EXPECT_EQ(find_catalogue_entry(Level::latency, "load.stress.latency_p95")->name, "load.<load>.latency_p95");
  EXPECT_EQ(find_catalogue_entry(Level::ddr, "ddr.nonsense"), nullptr);
  // Sample sets are looked up apart from metrics.
  EXPECT_EQ(find_catalogue_entry(Level::ddr, "ddr.dq_active_timeline"), nullptr);
  EXPECT_NE(find_catalogue_entry(Level::ddr, "ddr.dq_active_timeline", Series::samples), nullptr);
  EXPECT_NE(find_catalogue_entry(Level::roofline, "gemm.time", Series::samples), nullptr);
}

TEST(MetricCatalogue, EveryLevelHasATableWithUniqueNamesAndADescriptionEach) {
  for (Level level : kAllLevels) {
    std::set<std::string_view> names;
    ASSERT_FALSE(metric_catalogue(level).empty()) << level_name(level);
    for (const CatalogueEntry& e : metric_catalogue(level)) {
      EXPECT_TRUE(names.insert(e.name).second) << e.name;
      EXPECT_FALSE(e.description.empty()) << e.name;
      EXPECT_EQ(e.expect.empty(), e.forms == kNoExpectation) << e.name;
      // Every entry is reachable: no earlier pattern shadows it.
      if (!e.is_pattern()) {
        EXPECT_EQ(find_catalogue_entry(level, e.name, e.series)->name, e.name);
      }
    }
  }
}

TEST(MetricCatalogue, ExpectationKeysFollowTheForms) {
  const CatalogueEntry* bw = find_catalogue_entry(Level::ddr, "ddr.bandwidth");
  EXPECT_EQ(bw->expectation_keys(),
            (std::vector<std::string>{"bandwidth_min", "bandwidth_max", "bandwidth_vs_baseline"}));
  EXPECT_EQ(bw->table_of_keys(Level::ddr), "[ddr.expect]");
  const CatalogueEntry* ai = find_catalogue_entry(Level::roofline, "gemm.intensity");
  EXPECT_EQ(ai->expectation_keys(),
            (std::vector<std::string>{"intensity_min", "intensity_max", "intensity_gain_min", "intensity_increased"}));
  EXPECT_EQ(ai->table_of_keys(Level::roofline), "[[roofline.kernels]] expect");
  EXPECT_EQ(find_catalogue_entry(Level::latency, "efficiency_gain")->expectation_keys(),
            (std::vector<std::string>{"efficiency_gain_min"}));
  EXPECT_EQ(find_catalogue_entry(Level::counters, "counter.MEM_STALL")->expectation_keys(),
            (std::vector<std::string>{"<name>_min", "<name>_max", "baseline.<name>_drop_min",
                                      "baseline.<name>_rise_max", "baseline.<name>_follows"}));
}

TEST(MetricCatalogue, MetricsTakeTheirUnitAndDirectionFromTheEntry) {
  Metric m = catalogued_metric(Level::ddr, "ddr.bandwidth", 5e9, Provenance::measured, "capture:x");
  EXPECT_EQ(m.unit, "B/s");
  EXPECT_EQ(m.better, Better::higher);
  Metric gone = catalogued_missing(Level::latency, "load.cpu.latency_p95", "no samples");
  EXPECT_EQ(gone.unit, "s");
  EXPECT_EQ(gone.better, Better::lower);
  EXPECT_EQ(gone.unavailable, "no samples");
  // One of the entry's alternatives; a counter group's own unit and direction.
  EXPECT_EQ(catalogued_metric(Level::latency, "efficiency", 2, Provenance::measured, "", {}, "token/J").unit,
            "token/J");
  Metric c = catalogued_metric(Level::counters, "counter.l2_miss_ratio", 0.1, Provenance::measured, "", {}, "1",
                               Better::lower);
  EXPECT_EQ(c.unit, "1");
  EXPECT_EQ(c.better, Better::lower);
  // A direction passed for an entry that fixes its own is the entry's.
  EXPECT_EQ(catalogued_metric(Level::ddr, "ddr.bytes", 1, Provenance::measured, "", {}, {}, Better::higher).better,
            Better::none);
}

TEST(MetricCatalogue, ANameOutsideTheCatalogueCannotBeEmitted) {
  try {
    catalogued_metric(Level::ddr, "ddr.burst_bytes", 64, Provenance::measured, "");
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(),
                 "ddr metric \"ddr.burst_bytes\" is not in the metric catalogue (harness/model/metric_catalogue.cc)");
  }
  try {
    catalogued_metric(Level::ddr, "ddr.bandwidth", 1, Provenance::measured, "", {}, "GB/s");
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "ddr metric \"ddr.bandwidth\": unit \"GB/s\" where the catalogue says \"B/s\"");
  }
  EXPECT_THROW(catalogue_pattern("ddr.utilisation_timeline"), std::logic_error);
}

TEST(MetricCatalogue, ViolationsNameTheMetricAndWhatDiffers) {
  Analysis a;
  a.metrics.push_back(Metric::known(Level::ddr, "ddr.burst_bytes", 64, "B", Provenance::measured, ""));
  a.metrics.push_back(Metric::known(Level::ddr, "ddr.bandwidth", 1, "B/s", Provenance::measured, "", Better::lower));
  a.metrics.push_back(catalogued_metric(Level::ddr, "ddr.bytes", 1, Provenance::measured, ""));
  EXPECT_EQ(
      catalogue_violations(a),
      (std::vector<std::string>{"ddr: ddr.burst_bytes (not in the catalogue)",
                                "ddr: ddr.bandwidth is better lower, the catalogue (ddr.bandwidth) says higher"}));
}

TEST(MetricCatalogue, PlaceholdersAreReadAndFilled) {
  EXPECT_EQ(placeholder_value("ddr.transactions.<N>B", "ddr.transactions.128B"), "128");
  EXPECT_EQ(placeholder_value("ddr.transactions.<N>B", "ddr.reads"), std::nullopt);
  EXPECT_EQ(instance_name("<kernel>.achieved", {"gemm"}), "gemm.achieved");
  EXPECT_EQ(instance_name("ridge.<compute>.<memory>", {"fp32", "dram"}), "ridge.fp32.dram");
}

}  // namespace
}  // namespace harness
