// Harness headers first: gtest pulls in <signal.h>, whose si_value macro
// breaks harness/base/units.h.
#include "harness/scenario/scenario.h"
#include "harness/runner/acquire.h"
#include "harness/rig/device.h"

#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/roofline_scenario.h"

namespace harness {
namespace {

using testing_support::roofline_scenario;

TEST(AcquireRoofline, ProfileTextIsRecordedAndABadOneIsABadInputError) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "harness_acquire_roofline_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "good.csv") << "layer,time_us,flops,bytes\na,10,100,50\n";
  std::ofstream(dir / "bad.csv") << "layer,time_us\na,10\nb,-1\n";
  const std::string scenario_path = (dir / "s.toml").string();

  Scenario good = roofline_scenario("[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \"good.csv\"\n",
                                    scenario_path);
  RooflineRecording rec;
  ASSERT_TRUE(read_roofline_profile(*good.roofline->profile, rec));
  ASSERT_TRUE(rec.profile);
  EXPECT_EQ(rec.profile->text, "layer,time_us,flops,bytes\na,10,100,50\n");

  Scenario bad = roofline_scenario("[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \"bad.csv\"\n",
                                   scenario_path);
  RooflineRecording rec2;
  Status st = read_roofline_profile(*bad.roofline->profile, rec2);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ExitCode::bad_input);
  EXPECT_EQ(st.error().message, (dir / "bad.csv").string() + ":3: column 'time_us': negative time -1");
  std::filesystem::remove_all(dir);
}

// Level 1 on a device that times each paired kernel as a script says: the
// ratio candidate / reference of the run's round r is ratio(r). Records each
// request it got; the rest of a device is never asked for.
class ScriptedRooflineDevice final : public Device {
 public:
  explicit ScriptedRooflineDevice(std::function<double(int)> ratio) : ratio_(std::move(ratio)) {}
  std::vector<RooflineConfig> asked;

  const DeviceInfo& info() const override { return info_; }
  Result<RooflineRecording> measure_roofline(const RooflineConfig& c, std::stop_token, RunProgress*) override {
    asked.push_back(c);
    RooflineRecording r;
    for (const RooflineKernel& k : c.kernels) {
      KernelTiming t{k.name, {}, "", {}, 0};
      for (int i = 0; i < timed_rounds(c, k); ++i) {
        const int round = (c.paired_with ? c.paired_with->first_round : 0) + i;
        t.seconds.push_back(is_paired(c, k) ? 1e-3 * ratio_(round) : 1e-3);
        if (is_paired(c, k)) t.reference_seconds.push_back(1e-3);
      }
      r.kernels.push_back(std::move(t));
    }
    if (c.paired_with) r.pairing = "ABBA order";
    return r;
  }
  Result<WorkloadWindow> run_workload(const Workload&, const IterationPlan&, const IterationSink&,
                                      std::stop_token) override { return unasked(); }
  Result<CountersRecording> measure_counters(const Workload&, const CountersConfig&, std::stop_token,
                                             RunProgress*) override { return unasked(); }
  Result<int> start_load(const std::vector<std::string>&) override { return unasked(); }
  Status check_load(int) override { return unasked(); }
  Result<LoadStopped> stop_load(int) override { return unasked(); }
  Status begin_stability(const StabilityPlan&) override { return unasked(); }
  Result<std::vector<StabilityReading>> end_stability() override { return unasked(); }
  Result<std::string> fetch_file(const std::string&, std::uint64_t) override { return unasked(); }

 private:
  static Error unasked() { return Error::infra("not asked of level 1"); }
  std::function<double(int)> ratio_;
  DeviceInfo info_;
};

Scenario paired_kernels(const std::string& compare) {
  return roofline_scenario("[reference]\nbuiltin = \"vector_add\"\nelements = 16\nrounds = 6\norder = \"abba\"\n"
                           "[roofline]\nrepetitions = 2\n"
                           "[[roofline.kernels]]\nname = \"va\"\nbuiltin = \"vector_add\"\nelements = 1024\nreference = \"same\"\n"
                           "[[roofline.kernels]]\nname = \"sm\"\nbuiltin = \"softmax\"\nrows = 4\ncols = 8\n"
                           "[compare]\n" + compare);
}

RooflineConfig paired_config(const Scenario& s) {
  RooflineConfig c = *s.roofline;
  c.paired_with = *s.reference;
  c.paired_with->seed = 7;
  return c;
}

// A paired kernel that cannot be told from its reference after a look gets
// another look of [reference] rounds (the paired kernels alone, the run's
// rounds continued), until decided or max_rounds; its times are appended.
TEST(AcquireRoofline, AnUndecidedGatingKernelGetsMoreRoundsUpToMaxRounds) {
  // Every round 30 % slower or faster than the reference, alternately: the
  // spread is far too wide for a 5 % threshold at any count of rounds.
  const Scenario s = paired_kernels("gating = [\"va.achieved\"]\nmax_rounds = 18\n");
  ScriptedRooflineDevice device([](int round) { return round % 2 ? 1.3 : 0.7; });
  FakeClock clock(1'000);
  AcquireContext ctx{s, clock, {}, {}};
  ctx.device = &device;
  Result<RooflineRecording> got = measure_roofline_until_decided(ctx, paired_config(s), nullptr);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(device.asked.size(), 3u);  // 6 + 6 + 6 = max_rounds
  EXPECT_TRUE(device.asked[0].host_benchmarks);
  for (std::size_t look = 1; look < 3; ++look) {
    const RooflineConfig& c = device.asked[look];
    EXPECT_FALSE(c.host_benchmarks);
    ASSERT_EQ(c.kernels.size(), 1u);  // the paired kernel alone
    EXPECT_EQ(c.kernels[0].name, "va");
    EXPECT_EQ(c.paired_with->rounds, 6);
    EXPECT_EQ(c.paired_with->first_round, static_cast<int>(6 * look));
    EXPECT_EQ(c.paired_with->seed, 7u);
  }
  const KernelTiming* va = got->find_kernel("va");
  ASSERT_NE(va, nullptr);
  EXPECT_EQ(va->seconds.size(), 18u);
  EXPECT_EQ(va->reference_seconds.size(), 18u);
  EXPECT_DOUBLE_EQ(va->seconds[13], 1.3e-3);  // round 13 of the run, from the third look
  EXPECT_EQ(got->find_kernel("sm")->seconds.size(), 2u);  // unpaired: its repetitions, once
  EXPECT_EQ(got->pairing, "ABBA order; 3 looks of 6 rounds (undecided after each but the last)");
}

TEST(AcquireRoofline, ADecidedOrNonGatingKernelOrASpentBudgetTakesNoMoreRounds) {
  auto looks = [](const std::string& compare, std::function<double(int)> ratio, std::int64_t tick_ns = 1'000) {
    const Scenario s = paired_kernels(compare);
    ScriptedRooflineDevice device(std::move(ratio));
    FakeClock clock(tick_ns);
    AcquireContext ctx{s, clock, {}, {}};
    ctx.device = &device;
    Result<RooflineRecording> got = measure_roofline_until_decided(ctx, paired_config(s), nullptr);
    EXPECT_TRUE(got) << got.error().message;
    return device.asked.size();
  };
  const auto wild = [](int round) { return round % 2 ? 1.3 : 0.7; };
  // The same time every round: unchanged after the first look.
  EXPECT_EQ(looks("gating = [\"va.achieved\"]\nmax_rounds = 18\n", [](int) { return 1.0; }), 1u);
  // Undecided, but not gating (the default gates level 4's latency_p50 only).
  EXPECT_EQ(looks("max_rounds = 18\n[latency]\niterations = 10\n", wild), 1u);
  // Undecided and gating, but no more rounds allowed.
  EXPECT_EQ(looks("gating = [\"va.achieved\"]\n", wild), 1u);
  // 1.5 s of extra measuring allowed, each clock reading a second later: one more look.
  EXPECT_EQ(looks("gating = [\"va.achieved\"]\nmax_rounds = 18\ntime_budget = \"1.5 s\"\n", wild, 1'000'000'000), 2u);
}

}  // namespace
}  // namespace harness
