// The compact summary of `harness run` and `replay`, on replayed fixtures
// (the names and figures the levels really emit).
#include "reports/console.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/bundle/replay.h"
#include "harness/model/metric_catalogue.h"

#include "tests/support/replayed_fixture.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using testing_support::kFixtures;
using testing_support::replayed;

TEST(RunSummary, HeadlineFiguresOfEveryLevelWithTheirProvenance) {
  RunRecord day1 = replayed(kFixtures / "case-study" / "day1");
  EXPECT_THAT(headline_lines(day1),
              testing::ElementsAre(
                  "level 1 roofline  int8 30 Top/s (declared), dram 48 GB/s (replayed)",
                  "                  1 kernel or layer placed: 1 memory-bound",
                  "level 2 counters  memory stalls 0.87, L2 miss rate 0.47, bytes/iteration 1.5 TB (replayed)",
                  "level 3 ddr       bandwidth 5.037 GB/s, DQ active 0.3165, row hits 0.3294, commonest transaction "
                  "size 32 (replayed)",
                  // Two conditions: the first line says which one it is.
                  "level 4 latency   under load \"stress-ng --cpu 4\": p50 1.24 s, p95 3.463 s, p99 5.26 s, throughput 0.6633 1/s, power 12 W, "
                  "iterations 1000 (replayed); 4 of 38 figures unavailable",
                  "                  load none p95 2.01 s (replayed)",
                  "level 5 accuracy  unavailable: the scenario has no [accuracy] section"));
}

// A power source overridden for a test (sigrok's read_as) is said to be one
// beside its figure: it measured something, but not power.
TEST(RunSummary, ATestOverrideIsMarkedAsOne) {
  RunRecord day1 = replayed(kFixtures / "case-study" / "day1");
  for (Metric& m : day1.analysis.metrics)
    if (m.name == "power_mean")
      m.source = "sigrok:demo A0 (read_as = \"power\": voltage readings in volt taken as watts, a test override, not a "
                 "power measurement)";
  EXPECT_THAT(headline_lines(day1)[4], testing::HasSubstr(", power 12 W (a test override, not a measurement), "));
}

TEST(RunSummary, ALevelWithoutItsHeadlineFiguresShowsWhatItHasAndSaysWhatIsMissing) {
  RunRecord host = replayed(kFixtures / "host" / "localhost-2026-11-29");
  std::vector<std::string> lines = headline_lines(host);
  ASSERT_GE(lines.size(), 4u);
  // This machine's kernel refused most perf events: no IPC, no stall ratio.
  EXPECT_EQ(lines[2], "level 2 counters  counter.CONTEXT_SWITCHES 0 events, counter.PAGE_FAULTS 0 events, "
                      "counter.TASK_CLOCK 8.96 ms (replayed); 10 of 13 figures unavailable");
  EXPECT_EQ(lines[3], "level 3 ddr       unavailable: the scenario has no [ddr] section (no logic-analyzer source)");
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_THAT(lines[4], testing::StartsWith("level 4 latency   without load: p50 355 us, p95 480 us, "));
  EXPECT_EQ(lines[5], "                  load stress-ng-cpu-1 p95 738 us (replayed)");
  EXPECT_EQ(lines[6], "level 5 accuracy  unavailable: the scenario has no [accuracy] section");
}

// A roofline level with no ceiling (none declared, none measured) still says
// which kernels it timed rather than that nothing was measured.
TEST(RunSummary, KernelsTimedWithoutACeilingAreCounted) {
  RunRecord host = replayed(kFixtures / "host" / "localhost-2026-11-29");
  std::erase_if(host.analysis.metrics, [](const Metric& m) {
    return m.level == Level::roofline && (m.name.rfind("ceiling.", 0) == 0 || m.name.find(".bound") != std::string::npos);
  });
  std::vector<std::string> lines = headline_lines(host);
  ASSERT_GE(lines.size(), 1u);
  EXPECT_EQ(lines[0], "level 1 roofline  no ceiling measured or declared; 3 kernels or layers timed, none placed");
}

TEST(RunSummary, VerdictsComeFirstAndArePaintedOnlyWithColour) {
  RunRecord day6 = replayed(kFixtures / "case-study" / "day5");  // fails dq_active_ratio_min
  std::string plain = render_run_summary_text(day6);
  EXPECT_EQ(plain.find("run 0  scenario whisper-medium-ryzen-ai  rig ryzen-ai-7840hs-tablet  replay  failed\n"
                       "reason: a verdict failed\n\nlevel     check"),
            0u)
      << plain;
  EXPECT_LT(plain.find("ddr.expect.dq_active_ratio_min"), plain.find("\nlevel 1 roofline  "));
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  std::string painted = render_run_summary_text(day6, Palette{true});
  EXPECT_NE(painted.find("replay  \x1b[31mfailed\x1b[0m\n"), std::string::npos);
  EXPECT_NE(painted.find(" \x1b[31mfail\x1b[0m\n"), std::string::npos);
  EXPECT_NE(painted.find(" \x1b[32mpass\x1b[0m\n"), std::string::npos);
  EXPECT_NE(painted.find(" \x1b[33munavailable\x1b[0m\n"), std::string::npos);
  // Not every metric: that is `show` (render_run_text).
  EXPECT_EQ(plain.find("latency_p50_ci_low"), std::string::npos);
  EXPECT_NE(render_run_text(day6).find("latency_p50_ci_low"), std::string::npos);
}

// A level whose rig moved under it says so plainly, in the summary and in
// `harness show`; its stability figures do not count as its own.
TEST(RunSummary, AnUnstableLevelIsSaidPlainly) {
  RunRecord host = replayed(kFixtures / "host" / "localhost-2026-11-29");
  const std::vector<std::string> before = headline_lines(host);
  host.analysis.metrics.push_back(catalogued_metric(Level::latency, "stability.latency", 0, Provenance::measured,
                                                    "rig readings around 2 acquisitions",
                                                    "unstable: cpu0 2.1→1.2 GHz; canary cpu0 +23 %"));
  host.analysis.metrics.push_back(
      catalogued_missing(Level::latency, "stability.latency.temperature_rise", "/sys/class/thermal: no zones"));
  host.analysis.metrics.push_back(catalogued_metric(Level::counters, "stability.counters", 1, Provenance::measured,
                                                    "rig readings around 1 acquisition", "stable"));
  std::vector<std::string> lines = headline_lines(host);
  ASSERT_EQ(lines.size(), before.size() + 1);
  EXPECT_EQ(lines[2], before[2]);  // a stable level: nothing more, nothing counted as missing
  EXPECT_EQ(lines[4], before[4]);
  EXPECT_EQ(lines[6], "                  rig unstable: cpu0 2.1→1.2 GHz; canary cpu0 +23 % (its metrics cannot be judged)");
  const std::string shown = render_run_details_text(host);
  EXPECT_THAT(shown, testing::HasSubstr("\n  rig unstable: cpu0 2.1→1.2 GHz; canary cpu0 +23 % (its metrics cannot be "
                                        "judged)\n"));
  EXPECT_THAT(shown, testing::ContainsRegex("  stability\\.latency\\.temperature_rise +unavailable: /sys/class/thermal: "
                                            "no zones\n"));
}

}  // namespace
}  // namespace harness
