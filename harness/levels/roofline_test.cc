#include "harness/levels/roofline.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/levels/analyse.h"
#include "harness/model/metric_catalogue.h"
#include "probes/kernels.h"
#include "tests/support/analysis_metrics.h"

namespace harness {
namespace {

Scenario scenario(const std::string& rig, const std::string& roofline) {
  std::string text = "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n" + rig +
                     "\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n" + roofline;
  Result<Scenario> s = parse_scenario(text, "t.toml");
  EXPECT_TRUE(s) << s.error().message;
  return s ? *s : Scenario{};
}

using testing_support::named_metric;
using testing_support::named_value;

const Verdict* verdict(const Analysis& a, const std::string& check) {
  for (const Verdict& v : a.verdicts)
    if (v.check == check) return &v;
  ADD_FAILURE() << "no verdict " << check;
  return nullptr;
}

// --- the seed's figures -----------------------------------------------------

TEST(Roofline, VectorAddFp32IntensityIsOneTwelfth) {
  BuiltinKernel k;
  k.kind = "vector_add";
  k.elements = 1 << 20;
  KernelCost c = kernel_cost(k);
  EXPECT_DOUBLE_EQ(c.flops / c.model_bytes, 1.0 / 12);
}

TEST(Roofline, Gemm1024IntensityIs170Point7) {
  BuiltinKernel k;
  k.kind = "gemm";
  k.m = k.n = k.k = 1024;
  KernelCost c = kernel_cost(k);
  EXPECT_DOUBLE_EQ(c.flops / c.model_bytes, 2.0 * 1024 * 1024 * 1024 / (4.0 * 3 * 1024 * 1024));
  EXPECT_NEAR(c.flops / c.model_bytes, 170.7, 0.05);
}

TEST(Roofline, SeedCaseIsMemoryBoundLeftOfRidge600) {
  RooflinePlacement p = place_on_roofline(1.2e10, 1.01e12, 30e12, 50e9);
  EXPECT_NEAR(p.intensity, 0.0119, 5e-5);
  EXPECT_DOUBLE_EQ(p.ridge, 600);
  EXPECT_TRUE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.attainable, 50e9 * 1.2e10 / 1.01e12);
  EXPECT_NEAR(p.ridge_distance_decades, std::log10(0.0119 / 600), 2e-3);  // ~4.7 decades left
}

TEST(Roofline, IntensityTenAtFourTopsTwentyGBsIsFivePercent) {
  RooflinePlacement p = place_on_roofline(10, 1, 4e12, 20e9);
  EXPECT_DOUBLE_EQ(p.ridge, 200);
  EXPECT_DOUBLE_EQ(p.attainable, 200e9);
  EXPECT_DOUBLE_EQ(p.attainable / 4e12, 0.05);
  EXPECT_TRUE(p.memory_bound);
}

TEST(Roofline, AboveTheRidgeIsComputeBound) {
  // GEMM 1024^3 (AI 170.7) is left of a 200 op/B ridge, right of a 50 op/B one.
  EXPECT_TRUE(place_on_roofline(2.0 * 1024 * 1024 * 1024, 4.0 * 3 * 1024 * 1024, 4e12, 20e9).memory_bound);
  RooflinePlacement p = place_on_roofline(2.0 * 1024 * 1024 * 1024, 4.0 * 3 * 1024 * 1024, 1e12, 20e9);
  EXPECT_FALSE(p.memory_bound);
  EXPECT_DOUBLE_EQ(p.attainable, 1e12);
  EXPECT_GT(p.ridge_distance_decades, 0);
}

// --- the seed case through a scenario -------------------------------------------

const char* kSeedRig = "[rig.compute]\nint8 = \"30 TOPS\"\n[rig.memory]\ndram = \"50 GB/s\"\n";
const char* kSeedKernel =
    "[roofline]\nhost_benchmarks = false\n"
    "[[roofline.kernels]]\nname = \"whisper\"\nflops = 1.2e10\nbytes = \"1.01 TB\"\ntime = \"1240 ms\"\n"
    "precision = \"int8\"\n"
    "[roofline.kernels.expect]\nintensity_min = 0.08\nbound = \"memory\"\nintensity_gain_min = 6.0\n"
    "intensity_increased = true\n";

TEST(Roofline, SeedCasePlacementFromDeclaredFigures) {
  Scenario s = scenario(kSeedRig, kSeedKernel);
  Recording rec;
  rec.roofline.emplace();
  Analysis a = analyse(s, rec, Provenance::replayed);
  EXPECT_DOUBLE_EQ(named_value(a, "ridge.int8.dram"), 600);
  EXPECT_NEAR(named_value(a, "whisper.intensity"), 0.01188, 1e-5);
  EXPECT_EQ(named_metric(a, "whisper.bound").text, "memory");
  EXPECT_EQ(named_metric(a, "whisper.binding_ceiling").text, "memory.dram");
  EXPECT_EQ(named_metric(a, "whisper.bytes").provenance, Provenance::declared);
  EXPECT_EQ(named_metric(a, "whisper.bytes").source, "declared");
  EXPECT_DOUBLE_EQ(named_value(a, "whisper.achieved"), 1.2e10 / 1.24);
  EXPECT_DOUBLE_EQ(named_value(a, "whisper.utilisation"), (1.2e10 / 1.24) / (50e9 * 1.2e10 / 1.01e12));
  EXPECT_NEAR(named_value(a, "whisper.ridge_distance"), std::log10(1.2e10 / 1.01e12 / 600), 1e-12);
  // 1.01 TB in 1.24 s is 815 GB/s through a 50 GB/s memory: said, not hidden.
  ASSERT_EQ(a.hints.size(), 1u);
  EXPECT_EQ(a.hints[0],
            "whisper: achieved 9.677 Gop/s is 16.3x the attainable 594.1 Mop/s: the flops, bytes, time or ceilings "
            "are inconsistent (implied traffic 814.5 GB/s against ceiling.memory.dram 50 GB/s)");

  const Verdict* v = verdict(a, "whisper.expect.intensity_min");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::fail);
  EXPECT_EQ(v->expected, ">= 0.08");
  EXPECT_EQ(v->measured, "0.01188 op/B");
  EXPECT_EQ(verdict(a, "whisper.expect.bound")->status, VerdictStatus::pass);
  const Verdict* g = verdict(a, "whisper.expect.intensity_gain_min");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->status, VerdictStatus::unavailable);
  EXPECT_EQ(g->expected, ">= 6x baseline");
  EXPECT_EQ(g->measured, "unavailable: needs a baseline: evaluated by harness compare");
  EXPECT_EQ(verdict(a, "whisper.expect.intensity_increased")->expected, "> baseline");
}

TEST(Roofline, BaselineExpectationsCompareTwoAnalyses) {
  Scenario s = scenario(kSeedRig, kSeedKernel);
  auto with_intensity = [](std::optional<double> ai) {
    Analysis a;
    Metric m;
    m.name = "whisper.intensity";
    m.value = ai;
    m.unavailable = ai ? "" : "no bytes";
    a.metrics.push_back(m);
    return a;
  };
  // Seed: AI from 0.012 to 0.08 moves the point right by 6.7x.
  std::vector<Verdict> v = evaluate_roofline_baseline(*s.roofline, with_intensity(0.012), with_intensity(0.08));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].check, "whisper.expect.intensity_gain_min");
  EXPECT_EQ(v[0].status, VerdictStatus::pass);
  EXPECT_EQ(v[0].measured, "0.012 -> 0.08 (6.667x)");
  EXPECT_EQ(v[1].status, VerdictStatus::pass);

  v = evaluate_roofline_baseline(*s.roofline, with_intensity(0.012), with_intensity(0.05));
  EXPECT_EQ(v[0].status, VerdictStatus::fail);
  EXPECT_EQ(v[0].detail, "whisper.intensity went from 0.012 to 0.05, expected >= 6x baseline (t.toml:24:22)");
  EXPECT_EQ(v[1].status, VerdictStatus::pass);

  v = evaluate_roofline_baseline(*s.roofline, with_intensity(0.012), with_intensity(0.012));
  EXPECT_EQ(v[1].status, VerdictStatus::fail);  // "increased" is strict

  v = evaluate_roofline_baseline(*s.roofline, with_intensity(std::nullopt), with_intensity(0.08));
  EXPECT_EQ(v[0].status, VerdictStatus::unavailable);
  EXPECT_EQ(v[0].measured, "unavailable: baseline whisper.intensity: no bytes");
  v = evaluate_roofline_baseline(*s.roofline, with_intensity(0.012), Analysis{});
  EXPECT_EQ(v[0].measured, "unavailable: the current run has no metric whisper.intensity");
}

// --- measured ceilings ------------------------------------------------------------

RooflineRecording host_recording() {
  RooflineRecording r;
  r.ceilings.push_back({"bandwidth.seq_read.1t", "B/s", "membw:seq_read", {30e9, 28e9, 31e9}, ""});
  r.ceilings.push_back({"bandwidth.seq_read.2t", "B/s", "membw:seq_read", {33e9, 34e9, 35e9}, ""});
  r.ceilings.push_back({"bandwidth.random_4k", "B/s", "membw:random_read", {9e9, 8e9, 10e9}, ""});
  r.ceilings.push_back({"compute.fma_fp32.1t", "op/s", "fma_peak", {100e9, 90e9, 110e9}, ""});
  r.ceilings.push_back({"compute.fma_fp32.2t", "op/s", "fma_peak", {180e9, 200e9, 190e9}, ""});
  r.kernels.push_back({"vector_add", {0.002, 0.001, 0.003}, "", {}, 0});
  return r;
}

// A recording whose level 1 is host_recording().
Recording host_roofline() {
  Recording rec;
  rec.roofline = host_recording();
  return rec;
}

const char* kHostRig = "[rig.compute]\nfp32 = \"measure\"\n[rig.memory]\ndram = \"measure\"\n";
const char* kHostKernels =
    "[roofline]\n[[roofline.kernels]]\nname = \"vector_add\"\nbuiltin = \"vector_add\"\nelements = 1048576\n"
    "[roofline.kernels.expect]\nbound = \"memory\"\nutilisation_min = 0.7\n";

TEST(Roofline, MeasuredCeilingsAreTheBestThreadCountAndKeepTheirSamples) {
  Scenario s = scenario(kHostRig, kHostKernels);
  Recording rec = host_roofline();
  Analysis a = analyse(s, rec, Provenance::measured);
  EXPECT_DOUBLE_EQ(named_value(a, "bandwidth.seq_read.1t"), 30e9);
  EXPECT_DOUBLE_EQ(named_value(a, "bandwidth.random_4k"), 9e9);
  EXPECT_DOUBLE_EQ(named_value(a, "ceiling.memory.dram"), 34e9);
  EXPECT_EQ(named_metric(a, "ceiling.memory.dram").source, "bandwidth.seq_read.2t: membw:seq_read (median of 3)");
  EXPECT_DOUBLE_EQ(named_value(a, "ceiling.compute.fp32"), 190e9);
  EXPECT_DOUBLE_EQ(named_value(a, "ridge.fp32.dram"), 190e9 / 34e9);
  bool has_samples = false;
  for (const SampleSet& ss : a.samples)
    if (ss.name == "bandwidth.random_4k") has_samples = ss.values.size() == 3;
  EXPECT_TRUE(has_samples);

  // vector add: 2^20 additions in a median 2 ms, bytes from the model (12 B per element).
  EXPECT_DOUBLE_EQ(named_value(a, "vector_add.intensity"), 1.0 / 12);
  EXPECT_EQ(named_metric(a, "vector_add.bytes").source, "model: compulsory traffic");
  EXPECT_EQ(named_metric(a, "vector_add.bytes").provenance, Provenance::model);
  EXPECT_DOUBLE_EQ(named_value(a, "vector_add.achieved"), 1048576 / 0.002);
  EXPECT_DOUBLE_EQ(named_value(a, "vector_add.attainable"), 34e9 / 12);
  EXPECT_DOUBLE_EQ(named_value(a, "vector_add.utilisation"), (1048576 / 0.002) / (34e9 / 12));
  EXPECT_EQ(verdict(a, "vector_add.expect.bound")->status, VerdictStatus::pass);
  EXPECT_EQ(verdict(a, "vector_add.expect.utilisation_min")->status, VerdictStatus::fail);
}

TEST(Roofline, EachRoundPlacesTheKernelWithThatRoundsCeilings) {
  Scenario s = scenario(kHostRig, kHostKernels);
  Recording rec = host_roofline();
  Analysis a = analyse(s, rec, Provenance::measured);
  auto set = [&](const std::string& name) -> std::vector<double> {
    const SampleSet* found = a.find_samples(name);
    EXPECT_TRUE(found) << name;
    return found ? found->values : std::vector<double>{};
  };
  // The ceilings' sets are the repetitions of the figure each copies.
  EXPECT_EQ(set("ceiling.memory.dram"), (std::vector<double>{33e9, 34e9, 35e9}));
  EXPECT_EQ(set("ceiling.compute.fp32"), (std::vector<double>{180e9, 200e9, 190e9}));
  EXPECT_EQ(a.find_samples("ceiling.memory.dram")->source, "bandwidth.seq_read.2t: each repetition, in rounds");
  const std::vector<double> achieved = set("vector_add.achieved");
  ASSERT_EQ(achieved.size(), 3u);
  EXPECT_DOUBLE_EQ(achieved[1], 1048576 / 0.001);
  // Round 2 placed under round 2's DRAM roof (memory-bound: 34 GB/s / 12 B per op).
  const std::vector<double> attainable = set("vector_add.attainable");
  ASSERT_EQ(attainable.size(), 3u);
  EXPECT_DOUBLE_EQ(attainable[1], 34e9 / 12);
  EXPECT_DOUBLE_EQ(attainable[2], 35e9 / 12);
  const std::vector<double> utilisation = set("vector_add.utilisation");
  ASSERT_EQ(utilisation.size(), 3u);
  EXPECT_DOUBLE_EQ(utilisation[2], (1048576 / 0.003) / (35e9 / 12));
  // The metrics stay the run's: medians of the repetitions.
  EXPECT_DOUBLE_EQ(named_value(a, "vector_add.achieved"), 1048576 / 0.002);
  EXPECT_TRUE(catalogue_violations(a).empty());

  // Declared roofs are the same in every round: no attainable or utilisation
  // sets; a roof measured with fewer rounds than the kernel gives none either.
  Analysis declared = analyse(scenario("[rig.compute]\nfp32 = \"200 GFLOPS\"\n[rig.memory]\ndram = \"30 GB/s\"\n",
                                       kHostKernels),
                              rec, Provenance::measured);
  EXPECT_TRUE(declared.find_samples("vector_add.achieved"));
  EXPECT_FALSE(declared.find_samples("vector_add.attainable"));
  EXPECT_FALSE(declared.find_samples("ceiling.memory.dram"));
  // A round that read a roof of 0 (a hostile or broken recording) places nothing.
  RooflineRecording zero = host_recording();
  zero.ceilings[1].values[1] = 0;
  rec.roofline = zero;
  Analysis broken = analyse(s, rec, Provenance::measured);
  EXPECT_TRUE(broken.find_samples("vector_add.achieved"));
  EXPECT_FALSE(broken.find_samples("vector_add.utilisation"));
  rec.roofline = host_recording();
  rec.roofline->ceilings[1].values.pop_back();
  rec.roofline->ceilings[0].values.pop_back();
  Analysis uneven = analyse(s, rec, Provenance::measured);
  EXPECT_TRUE(uneven.find_samples("ceiling.memory.dram"));
  EXPECT_FALSE(uneven.find_samples("vector_add.utilisation"));
}

TEST(Roofline, AnUnmeasuredCeilingSaysWhyAndNothingIsPlaced) {
  Scenario s = scenario("[rig.compute]\nint8 = \"measure\"\n[rig.memory]\ndram = \"measure\"\n", kHostKernels);
  Recording rec = host_roofline();
  rec.roofline->ceilings[0].values.clear();
  rec.roofline->ceilings[0].unavailable = "interrupted";
  Analysis a = analyse(s, rec, Provenance::measured);
  EXPECT_EQ(named_metric(a, "ceiling.compute.int8").unavailable,
            "nothing measures compute ceiling 'int8': add a vendor figure \"compute.int8\" or declare a value");
  EXPECT_EQ(named_metric(a, "bandwidth.seq_read.1t").unavailable, "interrupted");
  EXPECT_DOUBLE_EQ(named_value(a, "ceiling.memory.dram"), 34e9);  // 2 threads still measured
  EXPECT_EQ(named_metric(a, "vector_add.attainable").unavailable, "the rig declares no compute ceiling 'fp32'");
  EXPECT_EQ(verdict(a, "vector_add.expect.bound")->status, VerdictStatus::unavailable);
}

TEST(Roofline, VendorToolOutputFillsCeilingsAndTables) {
  Scenario s = scenario(
      "[rig.compute]\nint8 = \"measure\"\n[rig.memory]\ndram = \"measure\"\n",
      "[roofline]\nhost_benchmarks = false\n[[roofline.vendor]]\nname = \"npu-perf\"\ncommand = [\"npu-perf\"]\n"
      "[roofline.vendor.figures]\n\"bandwidth.dram\" = { pattern = 'DDR read: *([0-9.]+)', unit = \"GB/s\" }\n"
      "\"bandwidth.random_4k\" = { pattern = 'random 4K: ([0-9.]+) MB/s', unit = \"MB/s\" }\n"
      "\"compute.int8\" = { pattern = 'INT8 peak ([0-9.]+)', unit = \"TOPS\" }\n");
  Recording rec;
  rec.roofline.emplace();
  rec.roofline->vendor.push_back({"npu-perf", {"npu-perf"}, "DDR read:  48.2 GB/s\nINT8 peak 30 TOPS\n", ""});
  Analysis a = analyse(s, rec, Provenance::measured);
  EXPECT_DOUBLE_EQ(named_value(a, "ceiling.memory.dram"), 48.2e9);
  EXPECT_EQ(named_metric(a, "ceiling.memory.dram").source,
            "bandwidth.dram: vendor tool npu-perf: /DDR read: *([0-9.]+)/");
  EXPECT_DOUBLE_EQ(named_value(a, "ceiling.compute.int8"), 30e12);
  EXPECT_EQ(named_metric(a, "bandwidth.random_4k").unavailable,
            "vendor tool npu-perf: pattern /random 4K: ([0-9.]+) MB/s/ not found in the tool's output");

  rec.roofline->vendor[0].unavailable = "cannot run npu-perf: not found in PATH";
  a = analyse(s, rec, Provenance::measured);
  EXPECT_EQ(named_metric(a, "ceiling.memory.dram").unavailable,
            "bandwidth.dram: vendor tool npu-perf: cannot run npu-perf: not found in PATH");
}

TEST(Roofline, BytesFromCountersOrDdrAreReadFromThoseLevelsMetrics) {
  Scenario s = scenario(kSeedRig,
                        "[roofline]\nhost_benchmarks = false\n"
                        "[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes_source = \"counters:mem_events\"\n"
                        "bytes_per_count = 64\ntime = \"1 s\"\nprecision = \"int8\"\n"
                        "[[roofline.kernels]]\nname = \"d\"\nflops = 1e9\nbytes_source = \"ddr\"\n"
                        "precision = \"int8\"\n");
  Analysis a;
  Metric events;
  events.level = Level::counters;
  events.name = "counter.mem_events";
  events.value = 1e6;
  events.provenance = Provenance::measured;
  a.metrics.push_back(events);
  RooflineRecording rec;
  analyse_roofline(s, &rec, Provenance::measured, a);
  EXPECT_DOUBLE_EQ(named_value(a, "k.bytes"), 64e6);
  EXPECT_EQ(named_metric(a, "k.bytes").source, "counters:mem_events: counter.mem_events x 64 B");
  EXPECT_EQ(named_metric(a, "k.bytes").provenance, Provenance::measured);
  EXPECT_DOUBLE_EQ(named_value(a, "k.intensity"), 1e9 / 64e6);
  EXPECT_EQ(named_metric(a, "d.bytes").unavailable, "bytes_source \"ddr\": level 3 produced no metric ddr.bytes");
  EXPECT_EQ(named_metric(a, "d.bound").unavailable, "bytes_source \"ddr\": level 3 produced no metric ddr.bytes");
  EXPECT_EQ(named_metric(a, "d.time").unavailable, "no time: declare 'time' for a kernel the harness does not run");
}

// Replay: a recording read back from JSON (profile text and vendor output
// included, no files, no tools) analyses to the same metrics and verdicts.
TEST(Roofline, ReplayOfTheRecordingGivesIdenticalAnalysis) {
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/fixtures/profiles/synthetic_layers.csv");
  std::ostringstream text;
  text << in.rdbuf();
  Scenario s = scenario(
      "[rig.compute]\nfp32 = \"measure\"\nint8 = \"measure\"\n[rig.memory]\ndram = \"measure\"\n",
      std::string(kHostKernels) +
          "[[roofline.vendor]]\nname = \"npu\"\ncommand = [\"npu\"]\n[roofline.vendor.figures]\n"
          "\"compute.int8\" = { pattern = 'INT8 ([0-9.]+)', unit = \"TOPS\" }\n"
          "[roofline.profile]\nfile = \"layers.csv\"\nprecision = \"int8\"\n"
          "[roofline.profile.expect]\ncopy_time_share_max = 0.05\nidle_time_max = \"1 ms\"\n");
  Recording rec = host_roofline();
  rec.roofline->vendor.push_back({"npu", {"npu"}, "INT8 4 TOPS\n", ""});
  rec.roofline->profile = ProfileText{"layers.csv", text.str()};
  Analysis live = analyse(s, rec, Provenance::replayed);
  Recording back = nlohmann::json(rec).get<Recording>();
  Analysis replayed = analyse(s, back, Provenance::replayed);
  ASSERT_EQ(live.metrics.size(), replayed.metrics.size());
  for (std::size_t i = 0; i < live.metrics.size(); ++i) {
    EXPECT_EQ(live.metrics[i].name, replayed.metrics[i].name);
    EXPECT_EQ(live.metrics[i].value, replayed.metrics[i].value) << live.metrics[i].name;
    EXPECT_EQ(live.metrics[i].text, replayed.metrics[i].text) << live.metrics[i].name;
  }
  EXPECT_EQ(live.verdicts.size(), replayed.verdicts.size());
  EXPECT_DOUBLE_EQ(named_value(replayed, "layer.conv1.predicted_time"), 2e9 / 4e12);  // int8 from the vendor tool
  EXPECT_EQ(named_metric(replayed, "profile.bandwidth_bound").text, "4 of 5: permute1, fc1, transpose1, softmax1");
  const Verdict* copies = verdict(replayed, "profile.expect.copy_time_share_max");
  ASSERT_TRUE(copies);
  EXPECT_EQ(copies->status, VerdictStatus::fail);  // 9.8 % of the time in permute/transpose
  EXPECT_EQ(copies->measured, "0.09756");
  EXPECT_EQ(verdict(replayed, "profile.expect.idle_time_max")->status, VerdictStatus::pass);
}

TEST(Roofline, RecordingRoundTripsThroughJson) {
  RooflineRecording r = host_recording();
  r.vendor.push_back({"t", {"t", "-x"}, "out", ""});
  r.profile = ProfileText{"p.csv", "layer,time_us\na,1\n"};
  nlohmann::json j = r;
  RooflineRecording back = j.get<RooflineRecording>();
  EXPECT_EQ(nlohmann::json(back).dump(), j.dump());
  ASSERT_TRUE(back.profile);
  EXPECT_EQ(back.profile->text, "layer,time_us\na,1\n");
}

// --- a kernel with a same-run reference -------------------------------------------

const char* kPairedKernel =
    "[reference]\nbuiltin = \"vector_add\"\nelements = 16\nrounds = 4\n"
    "[roofline]\n[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 64\nn = 64\nk = 64\n"
    "[roofline.kernels.reference]\nbuiltin = \"gemm\"\nm = 64\nn = 64\nk = 32\n";

// Each round's ratio is of achieved op/s, each side with its own flops (the
// reference does half the work here): the sample set the paired test judges.
TEST(Roofline, AKernelWithAReferenceGetsTheRoundsRatiosOfAchievedOpsPerSecond) {
  Scenario s = scenario(kHostRig, kPairedKernel);
  Recording rec = host_roofline();
  rec.roofline->kernels = {{"g", {2e-3, 4e-3, 2e-3, 1e-3}, "", {1e-3, 1e-3, 2e-3, 0.5e-3}, 8}};
  rec.roofline->pairing = "random order, seed 3";
  Analysis a = analyse(s, rec, Provenance::measured);
  const double flops = 2.0 * 64 * 64 * 64;
  // Candidate flops / time over reference (flops / 2) / time: 1, 0.5, 2, 1.
  const SampleSet* ratios = a.find_samples("vs_reference.g.achieved");
  ASSERT_NE(ratios, nullptr);
  EXPECT_EQ(ratios->values, (std::vector<double>{1, 0.5, 2, 1}));
  EXPECT_EQ(ratios->better, Better::higher);
  EXPECT_DOUBLE_EQ(named_value(a, "vs_reference.g.achieved"), 1.0);  // geometric mean
  EXPECT_EQ(named_metric(a, "vs_reference.g.achieved").source,
            "geometric mean of 4 rounds' achieved op/s, candidate / reference (random order, seed 3, each the "
            "median of 8 runs)");
  EXPECT_EQ(named_metric(a, "vs_reference.g.achieved").unit, "1");
  // The flops differ: a model's ratio.
  EXPECT_EQ(named_metric(a, "vs_reference.g.achieved").provenance, Provenance::model);
  EXPECT_DOUBLE_EQ(named_value(a, "reference.g.time"), 1e-3);
  EXPECT_DOUBLE_EQ(named_value(a, "reference.g.achieved"), flops / 2 / 1e-3);
  EXPECT_DOUBLE_EQ(named_value(a, "g.time"), 2e-3);  // the candidate's own figures as ever
  EXPECT_TRUE(catalogue_violations(a).empty()) << catalogue_violations(a).front();

  // Of the same work on both sides, the ratio is of measured times alone.
  Scenario same = scenario(kHostRig, std::string(kPairedKernel).replace(std::string(kPairedKernel).rfind("k = 32"), 6,
                                                                        "k = 64"));
  a = analyse(same, rec, Provenance::measured);
  EXPECT_EQ(named_metric(a, "vs_reference.g.achieved").provenance, Provenance::measured);
  EXPECT_EQ(a.find_samples("vs_reference.g.achieved")->values, (std::vector<double>{0.5, 0.25, 1, 0.5}));

  // An agent older than kernel references times the candidate alone.
  rec.roofline->kernels[0].reference_seconds.clear();
  a = analyse(s, rec, Provenance::measured);
  EXPECT_EQ(a.find_samples("vs_reference.g.achieved"), nullptr);
  EXPECT_EQ(named_metric(a, "vs_reference.g.achieved").unavailable,
            "the device did not time the reference (an agent older than kernel references: harness rig install "
            "SCENARIO)");
  EXPECT_FALSE(named_metric(a, "reference.g.time").value);
}

}  // namespace
}  // namespace harness
