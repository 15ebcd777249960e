// The runner reports its progress as events (progress.h) and knows nothing
// of terminals: a recording sink sees every step of a small live run.
#include "harness/runner/runner.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

using Kind = ProgressEvent::Kind;

class RunnerProgress : public testing_support::ScratchDirTest {
 protected:
  // A small live run on this machine (its ceilings declared, level 1 without
  // the host's benchmarks) with `levels` appended, every event recorded.
  Result<RunOutcome> run(const std::string& name, const std::string& levels) {
    Result<Scenario> s = parse_scenario("[scenario]\nname = \"" + name + R"("
[rig]
name = "test-host"
[rig.compute]
int8 = "4 TOPS"
[rig.memory]
dram = "20 GB/s"
[workload]
builtin = "vector_add"
elements = 1024
[roofline]
host_benchmarks = false
)" + levels,
                                        (dir_ / "s.toml").string());
    if (!s) return s.error();
    Result<Store> store = Store::open(db());
    if (!store) return store.error();
    RunOptions options;
    options.progress = &progress_;
    return run_scenario(*s, *store, options);
  }
  std::string db() const { return (dir_ / "runs.sqlite").string(); }

  RecordedProgress progress_;
};

TEST_F(RunnerProgress, EveryLevelStartsAndFinishesAndLevelFourReportsItsIterations) {
  Result<RunOutcome> outcome = run("progress", "[latency]\niterations = 200\nwarmup = 2\n");
  ASSERT_TRUE(outcome) << outcome.error().message;

  std::vector<std::string> steps;  // what happened, in order, iterations folded
  std::int64_t last_done = 0;
  for (const ProgressEvent& e : progress_.events) {
    switch (e.kind) {
      case Kind::note: steps.push_back("note: " + e.text); break;
      case Kind::level_started: steps.push_back(fmt::format("start {} ({})", level_name(e.level), e.text)); break;
      case Kind::condition_started: steps.push_back(fmt::format("condition {}/{} {}", e.condition_index, e.condition_count, e.text)); break;
      case Kind::iterations:
        EXPECT_GE(e.done, last_done);
        EXPECT_EQ(e.planned, 200);
        last_done = e.done;
        if (steps.back() != "iterations") steps.push_back("iterations");
        break;
      case Kind::condition_finished: steps.push_back(fmt::format("condition done: {} iterations", e.done)); break;
      case Kind::step: steps.push_back(fmt::format("step {}", e.text)); break;  // none: no kernel, no host tables
      case Kind::level_finished:
        EXPECT_GE(e.elapsed_s, 0);
        steps.push_back(fmt::format("done {}{}", level_name(e.level), e.failure.empty() ? "" : ": " + e.failure));
        if (e.level == Level::latency) {
          EXPECT_EQ(e.samples, last_done);  // every latency sample of the level
              break;
        }
    }
  }
  EXPECT_THAT(steps, testing::ElementsAre(
                         "note: run 1 started (" + db() + ")",
                         "note: rig 'test-host': connecting to the agent (local)", "start roofline (ceilings and kernels on the device)",
                         "done roofline", "start latency (iterations on the device)", "condition 1/1 without load",
                         "iterations", "condition done: " + std::to_string(last_done) + " iterations", "done latency",
                         "note: analysing the recording"));
  EXPECT_GE(last_done, 200);
}

// Levels 1 and 2 run on the device (a child agent here): their steps come
// back through the agent's link as they happen, each with its level and the
// time since the level started.
TEST_F(RunnerProgress, LevelsOneAndTwoReportTheirStepsFromTheDevice) {
  std::ofstream(dir_ / "stats") << "cycles: 1000\n";
  std::ofstream(dir_ / "fake.toml") << "name = \"fake\"\n[sources.stats]\nkind = \"text_file\"\npath = \""
                                    << (dir_ / "stats").string()
                                    << "\"\n[counters.CYCLES]\nsource = \"stats\"\nkey = \"cycles\"\n";
  Result<RunOutcome> outcome = run("steps", R"(repetitions = 5
[[roofline.kernels]]
name = "va"
builtin = "vector_add"
elements = 1024
[counters]
groups = ["fake.toml"]
iterations = 20
)");
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->exit, ExitCode::ok) << outcome->run.reason;

  std::vector<std::string> seen;  // level starts and ends, and each step's first and last count
  const ProgressEvent* previous = nullptr;
  for (const ProgressEvent& e : progress_.events) {
    if (e.kind == Kind::level_started) seen.push_back(fmt::format("start {}", level_name(e.level)));
    if (e.kind == Kind::level_finished) seen.push_back(fmt::format("done {}", level_name(e.level)));
    if (e.kind != Kind::step) continue;
    EXPECT_GE(e.elapsed_s, 0);
    const bool same_step = previous && previous->level == e.level && previous->step_index == e.step_index;
    if (same_step) {
      EXPECT_GE(e.done, previous->done);
    }
    if (!same_step) seen.push_back(fmt::format("{} step {}/{} {}: {}/{} {}", level_name(e.level), e.step_index,
                                               e.step_count, e.text, e.done, e.planned, e.counted));
    else if (e.done == e.planned) seen.push_back(fmt::format("... {}/{}", e.done, e.planned));
    previous = &e;
  }
  std::vector<std::string> expected = {"start roofline"};
  for (int round = 1; round <= 5; ++round) {  // level 1's repetitions are taken in rounds
    expected.push_back(fmt::format("roofline step {}/5 kernel va: 0/1 measurements this round", round));
    expected.push_back("... 1/1");
  }
  for (const char* line : {"done roofline", "start counters", "counters step 1/1 workload: 0/20 iterations",
                           "... 20/20", "done counters"})
    expected.push_back(line);
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace harness
