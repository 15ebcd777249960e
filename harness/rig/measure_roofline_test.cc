// Harness headers first: gtest pulls in <signal.h>, whose si_value macro
// breaks harness/base/units.h.
#include "harness/levels/analyse.h"
#include "harness/rig/local_device.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/roofline_scenario.h"

namespace harness {
namespace {

using testing_support::roofline_scenario;

// The real probes, made tiny: every table of seed 001 is recorded and becomes
// a metric with samples.
TEST(MeasureRoofline, HostTablesAreMeasuredAndAnalysed) {
  Scenario s = roofline_scenario(
      "[roofline]\nrepetitions = 2\nbuffer = \"2 MiB\"\nthreads = 2\nrandom_reads = \"64 KiB\"\n"
      "fma_iterations = 1000\n"
      "[[roofline.kernels]]\nname = \"va\"\nbuiltin = \"vector_add\"\nelements = 1024\n");
  MonotonicClock clock;
  std::stop_source stop;
  LocalDevice device(clock);
  Result<RooflineRecording> measured = device.measure_roofline(*s.roofline, stop.get_token(), nullptr);
  ASSERT_TRUE(measured) << measured.error().message;
  Recording rec;
  rec.roofline = std::move(*measured);
  std::vector<std::string> names;
  for (const CeilingSamples& c : rec.roofline->ceilings) {
    names.push_back(c.name);
    // The L2 size comes from sysfs, which a container may hide: then it says why.
    EXPECT_EQ(c.values.size(), c.unavailable.empty() ? 2u : 0u) << c.name << ": " << c.unavailable;
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "bandwidth.seq_read.1t", "bandwidth.seq_read.2t", "bandwidth.l2", "bandwidth.random_4k",
                       "bandwidth.burst_64B", "bandwidth.burst_128B", "bandwidth.burst_256B", "bandwidth.burst_512B",
                       "bandwidth.burst_1024B", "bandwidth.burst_2048B", "compute.fma_fp32.1t",
                       "compute.fma_fp32.2t"}));
  Analysis a = analyse(s, rec, Provenance::measured);
  const Metric* dram = a.find_metric("ceiling.memory.dram");
  ASSERT_TRUE(dram && dram->value);
  EXPECT_GT(*dram->value, 0);
  const Metric* util = a.find_metric("va.utilisation");
  ASSERT_TRUE(util && util->value) << (util ? util->unavailable : "absent");
}

// Level 1 takes the repetitions of every ceiling and kernel in rounds, one
// of each per round; each round is a step, reported through the same progress
// interface as level 4 (harness/model/progress.h).
TEST(MeasureRoofline, EveryMeasurementIsRepeatedInRoundsEachAStep) {
  Scenario s = roofline_scenario(
      "[roofline]\nrepetitions = 3\nbuffer = \"1 MiB\"\nthreads = 1\nrandom_reads = \"64 KiB\"\n"
      "fma_iterations = 1000\nbursts = [\"64 B\"]\n"
      "[[roofline.kernels]]\nname = \"va\"\nbuiltin = \"vector_add\"\nelements = 1024\n");
  FakeClock clock(1'000'000'000);  // every reading a second later: no count is held back
  std::stop_source stop;
  RecordedProgress progress;
  LocalDevice device(clock);
  Result<RooflineRecording> got = device.measure_roofline(*s.roofline, stop.get_token(), &progress);
  ASSERT_TRUE(got) << got.error().message;
  const RooflineRecording& rec = *got;
  // bandwidth.l2 reads the L2's size from sysfs: hidden in a container, it is not measured.
  std::vector<std::string> measured = {"bandwidth.seq_read.1t", "bandwidth.l2", "bandwidth.random_4k",
                                       "bandwidth.burst_64B", "compute.fma_fp32.1t", "kernel va"};
  ASSERT_EQ(rec.ceilings.size(), 5u);
  if (!rec.ceilings[1].unavailable.empty()) measured.erase(measured.begin() + 1);
  std::vector<std::string> seen;
  for (const ProgressEvent& e : progress.events) {
    ASSERT_EQ(e.kind, ProgressEvent::Kind::step);
    EXPECT_EQ(e.level, Level::roofline);
    EXPECT_EQ(e.step_count, 3);
    EXPECT_EQ(e.counted, "measurements this round");
    seen.push_back(fmt::format("{} {} {}/{}", e.step_index, e.text, e.done, e.planned));
  }
  // A round starts at 0 and counts each measurement as it is taken, naming it.
  std::vector<std::string> expected;
  const std::size_t n = measured.size();
  for (int round = 1; round <= 3; ++round) {
    expected.push_back(fmt::format("{} {} 0/{}", round, measured.front(), n));
    for (std::size_t i = 0; i < n; ++i) expected.push_back(fmt::format("{} {} {}/{}", round, measured[i], i + 1, n));
  }
  EXPECT_EQ(seen, expected);
  // Each measurement keeps its place in the recording and gets one value a round.
  for (const CeilingSamples& c : rec.ceilings)
    if (c.unavailable.empty()) {
      EXPECT_EQ(c.values.size(), 3u) << c.name;
    }
  ASSERT_EQ(rec.kernels.size(), 1u);
  EXPECT_EQ(rec.kernels[0].name, "va");
  EXPECT_EQ(rec.kernels[0].seconds.size(), 3u);
}

// A kernel with a same-run reference is timed with it once a round of the
// pairing's rounds, in the round's drawn order (here ABBA: the candidate
// first in round 1, the reference in round 2, ...); the others keep the
// repetitions, in the same rounds.
TEST(MeasureRoofline, AKernelWithAReferenceAlternatesWithItInThePairingsRounds) {
  Scenario s = roofline_scenario(
      "[reference]\nbuiltin = \"vector_add\"\nelements = 16\nrounds = 4\norder = \"abba\"\n"
      "[roofline]\nrepetitions = 2\nhost_benchmarks = false\n"
      "[[roofline.kernels]]\nname = \"va\"\nbuiltin = \"vector_add\"\nelements = 1024\nreference = \"same\"\n"
      "[[roofline.kernels]]\nname = \"sm\"\nbuiltin = \"softmax\"\nrows = 4\ncols = 8\n");
  RooflineConfig config = *s.roofline;
  config.paired_with = *s.reference;
  config.paired_with->seed = 7;
  FakeClock clock(1'000'000'000);  // every reading a second later: no count is held back
  std::stop_source stop;
  RecordedProgress progress;
  LocalDevice device(clock);
  Result<RooflineRecording> got = device.measure_roofline(config, stop.get_token(), &progress);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->kernels.size(), 2u);
  EXPECT_EQ(got->kernels[0].seconds.size(), 4u);
  EXPECT_EQ(got->kernels[0].reference_seconds.size(), 4u);
  EXPECT_EQ(got->kernels[1].seconds.size(), 2u);
  EXPECT_TRUE(got->kernels[1].reference_seconds.empty());
  EXPECT_EQ(got->pairing, "ABBA order");
  EXPECT_EQ(got->kernels[0].runs_per_round, 1);  // a run of a second fills a block alone
  EXPECT_EQ(got->kernels[1].runs_per_round, 0);
  std::vector<std::string> taken;  // each measurement as it completes
  for (const ProgressEvent& e : progress.events)
    if (e.done > 0) taken.push_back(fmt::format("{} {}", e.step_index, e.text));
  EXPECT_EQ(taken, (std::vector<std::string>{"1 kernel sm", "1 kernel va", "1 reference of kernel va",
                                             "2 kernel sm", "2 reference of kernel va", "2 kernel va",
                                             "3 kernel va", "3 reference of kernel va",
                                             "4 reference of kernel va", "4 kernel va"}));

  // A later look (acquire_roofline.cc) continues the run's rounds: from round
  // 1 the ABBA order starts with the reference.
  config.paired_with->first_round = 1;
  progress.events.clear();
  ASSERT_TRUE(device.measure_roofline(config, stop.get_token(), &progress));
  taken.clear();
  for (const ProgressEvent& e : progress.events)
    if (e.done > 0 && e.text.find("va") != std::string::npos) taken.push_back(fmt::format("{} {}", e.step_index, e.text));
  EXPECT_EQ(taken, (std::vector<std::string>{"1 reference of kernel va", "1 kernel va", "2 kernel va",
                                             "2 reference of kernel va", "3 reference of kernel va", "3 kernel va",
                                             "4 kernel va", "4 reference of kernel va"}));
  config.paired_with->first_round = 0;

  // A run of a millisecond: a block of 20 a round, each side, their median kept.
  FakeClock fast(1'000'000);
  LocalDevice quick(fast);
  Result<RooflineRecording> blocks = quick.measure_roofline(config, stop.get_token(), nullptr);
  ASSERT_TRUE(blocks) << blocks.error().message;
  EXPECT_EQ(blocks->kernels[0].runs_per_round, 20);
  EXPECT_EQ(blocks->kernels[0].seconds, std::vector<double>(4, 1e-3));
  EXPECT_EQ(blocks->kernels[0].reference_seconds, std::vector<double>(4, 1e-3));

  // In random order each round's coin comes from the seed, as on any device.
  config.paired_with->order = "random";
  progress.events.clear();
  got = device.measure_roofline(config, stop.get_token(), &progress);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->pairing, "random order, seed 7");
  std::vector<std::string> firsts, expected;
  for (const ProgressEvent& e : progress.events)
    if (e.done > 0 && e.text.find("va") != std::string::npos && (firsts.size() < static_cast<std::size_t>(e.step_index)))
      firsts.push_back(e.text);
  for (int round = 0; round < 4; ++round)
    expected.push_back(reference_first(*config.paired_with, 7, round) ? "reference of kernel va" : "kernel va");
  EXPECT_EQ(firsts, expected);
}

TEST(MeasureRoofline, StopsWhenAsked) {
  Scenario s = roofline_scenario("[roofline]\nbuffer = \"1 MiB\"\nthreads = 1\n");
  MonotonicClock clock;
  std::stop_source stop;
  stop.request_stop();
  LocalDevice device(clock);
  Result<RooflineRecording> measured = device.measure_roofline(*s.roofline, stop.get_token(), nullptr);
  ASSERT_FALSE(measured);
  EXPECT_EQ(measured.error().message, "interrupted");
}

}  // namespace
}  // namespace harness
