// scenario.h first: <signal.h>, which gtest pulls in, defines si_value as a
// macro, and units.h uses that name for a parameter.
#include "harness/scenario/scenario.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

std::string with_compare(const std::string& compare) {
  return "[scenario]\nname = \"s\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
         "[compare]\n" + compare;
}

std::string error_of(const std::string& compare) {
  Result<Scenario> s = parse_scenario(with_compare(compare), "t.toml");
  return s ? "" : s.error().message;
}

TEST(ParseCompare, AbsentMeansDefaults) {
  Result<Scenario> s = parse_scenario(with_compare("").substr(0, with_compare("").size() - 10), "t.toml");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE(s->compare);
  CompareConfig d;
  EXPECT_EQ(d.alpha, 0.05);
  EXPECT_EQ(d.method, Correction::holm);
  EXPECT_EQ(d.default_threshold, 0.10);
  EXPECT_EQ(d.sample_threshold, 0.03);
}

TEST(ParseCompare, ReadsEveryKey) {
  Result<Scenario> s = parse_scenario(
      with_compare("alpha = 0.01\nmethod = \"bh\"\ndefault_threshold = 0.05\nsample_threshold = 0.02\n"
                   "min_samples = 20\nhistory_runs = 30\nmin_history_runs = 8\nignore = [\"latency_max\"]\n"
                   "metric_threshold = { \"latency_p95\" = 0.1, throughput = 0.25 }\n"),
      "t.toml");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->compare);
  const CompareConfig& c = *s->compare;
  EXPECT_EQ(c.alpha, 0.01);
  EXPECT_EQ(c.method, Correction::bh);
  EXPECT_EQ(c.default_threshold, 0.05);
  EXPECT_EQ(c.sample_threshold, 0.02);
  EXPECT_EQ(c.min_samples, 20u);
  EXPECT_EQ(c.history_runs, 30u);
  EXPECT_EQ(c.min_history_runs, 8u);
  EXPECT_EQ(c.ignore, (std::set<std::string>{"latency_max"}));
  EXPECT_EQ(c.threshold_for("latency_p95", true), 0.1);
  EXPECT_EQ(c.threshold_for("throughput", false), 0.25);
  EXPECT_EQ(c.threshold_for("latency_p50", true), 0.02);
  EXPECT_EQ(c.threshold_for("other", false), 0.05);
}

TEST(ParseCompare, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(error_of("method = \"holmes\"\n"),
            "t.toml:11:10: [compare] method: unknown value \"holmes\" (expected one of \"holm\", \"bh\", "
            "\"none\"); did you mean \"holm\"?");
  EXPECT_EQ(error_of("alpha = 1.5\n"), "t.toml:11:9: [compare] alpha: must be between 0 and 1 (exclusive)");
  EXPECT_EQ(error_of("metric_threshold = { latency_p95 = 0 }\n"),
            "t.toml:11:36: [compare.metric_threshold] latency_p95: must be a relative change greater than 0 and "
            "below 10 (0.05 is 5 %)");
  EXPECT_EQ(error_of("default_treshold = 0.1\n"),
            "t.toml:11:1: unknown key 'default_treshold' in [compare]; did you mean 'default_threshold'?");
  EXPECT_EQ(error_of("history_runs = 4\nmin_history_runs = 5\n"),
            "t.toml:12:20: [compare] min_history_runs: must not exceed history_runs (4)");
}

// More rounds need a reference to take them from, at least its rounds, and
// gating names that a paired metric of the scenario answers to: a misspelt
// one would never add a round.
TEST(ParseCompare, MoreRoundsNeedAReferenceAndGatingNamesItsPairedMetrics) {
  auto paired = [](const std::string& rest) {
    Result<Scenario> s = parse_scenario(
        "[scenario]\nname = \"s\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
        "[reference]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\nrounds = 10\n" + rest,
        "t.toml");
    return s ? "" : s.error().message;
  };
  EXPECT_EQ(error_of("max_rounds = 40\n"), "t.toml: [compare] max_rounds = 40 needs a [reference] to add rounds of");
  EXPECT_EQ(paired("[latency]\niterations = 20\n[compare]\nmax_rounds = 5\n"),
            "t.toml: [compare] max_rounds = 5 is fewer than [reference] rounds = 10");
  EXPECT_EQ(paired("[latency]\niterations = 20\n[compare]\nmax_rounds = 40\ngating = [\"latency_p50\", \"throughput\"]\n"), "");
  EXPECT_EQ(paired("[latency]\niterations = 20\n[compare]\nmax_rounds = 40\ngating = [\"latncy_p50\"]\n"),
            "t.toml: [compare] gating names 'latncy_p50', which no paired metric of this scenario is (its paired "
            "metrics: latency_p50, latency_p90, latency_mean, throughput, power_mean)");
  const std::string kernels =
      "[roofline]\nhost_benchmarks = false\n"
      "[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\nreference = \"same\"\n"
      "[[roofline.kernels]]\nname = \"sm\"\nbuiltin = \"softmax\"\nrows = 4\ncols = 8\n";
  EXPECT_EQ(paired(kernels + "[compare]\nmax_rounds = 40\ngating = [\"g.achieved\"]\n"), "");
  // A kernel without a reference is timed alone: nothing to take rounds of.
  EXPECT_EQ(paired(kernels + "[compare]\nmax_rounds = 40\ngating = [\"sm.achieved\"]\n"),
            "t.toml: [compare] gating names 'sm.achieved', which no paired metric of this scenario is (its paired "
            "metrics: g.achieved)");
  // The default gates latency_p50, which a scenario without level 4 has not.
  EXPECT_EQ(paired(kernels + "[compare]\nmax_rounds = 40\n"),
            "t.toml: [compare] gating (by default) names 'latency_p50', which no paired metric of this scenario is "
            "(its paired metrics: g.achieved)");
}

}  // namespace
}  // namespace harness
