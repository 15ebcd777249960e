#include "harness/cli/progress_view.h"

#include <regex>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using Kind = ProgressEvent::Kind;

ProgressEvent level_event(Kind kind, Level level, std::string text, double elapsed = 0) {
  ProgressEvent e;
  e.kind = kind;
  e.level = level;
  e.text = std::move(text);
  e.elapsed_s = elapsed;
  return e;
}

// Level 4 measuring condition `index` of 2 (100 iterations planned).
ProgressEvent latency_event(Kind kind, int index, std::int64_t done, double measuring_s, double elapsed_s) {
  ProgressEvent e = level_event(kind, Level::latency, index == 1 ? "without load" : "under load \"stress-ng --cpu 4\"",
                                elapsed_s);
  e.condition = index == 1 ? "none" : "stress-ng-cpu-4";
  e.condition_index = index;
  e.condition_count = 2;
  e.done = done;
  e.planned = 100;
  e.measuring_s = measuring_s;
  e.samples = (index - 1) * 100 + done;
  return e;
}

// Level 1 at step `index` of 4, `done` of 5 repetitions, `elapsed_s` into the level.
ProgressEvent roofline_step(int index, std::int64_t done, double elapsed_s) {
  ProgressEvent e = level_event(Kind::step, Level::roofline, index == 4 ? "kernel gemm" : "bandwidth.seq_read.1t", elapsed_s);
  e.step_index = index;
  e.step_count = 4;
  e.done = done;
  e.planned = 5;
  e.counted = "repetitions";
  return e;
}

bool has_sgr(const std::string& s) { return std::regex_search(s, std::regex("\x1b\\[[0-9;]*m")); }

TEST(ProgressText, DurationsAndCounts) {
  EXPECT_EQ(duration_text(0.04), "0.0 s");
  EXPECT_EQ(duration_text(9.96), "10.0 s");
  EXPECT_EQ(duration_text(12.7), "12 s");
  EXPECT_EQ(duration_text(125), "2:05");
  EXPECT_EQ(duration_text(3725), "1:02:05");
  EXPECT_EQ(duration_text(-1), "0.0 s");
  EXPECT_EQ(count_text(950), "950");
  EXPECT_EQ(count_text(9999), "9999");
  EXPECT_EQ(count_text(12345), "12.3k");
  EXPECT_EQ(count_text(999999), "1M");
  EXPECT_EQ(count_text(4560000), "4.56M");
}

TEST(ProgressText, ColourIsForTerminalsAndNeverWithNoColor) {
  EXPECT_TRUE(colour_wanted(ColorChoice::automatic, true, nullptr));
  EXPECT_TRUE(colour_wanted(ColorChoice::automatic, true, ""));  // set but empty: no-color.org says ignore it
  EXPECT_FALSE(colour_wanted(ColorChoice::automatic, true, "1"));
  EXPECT_FALSE(colour_wanted(ColorChoice::automatic, false, nullptr));
  EXPECT_TRUE(colour_wanted(ColorChoice::always, false, "1"));  // an explicit flag wins (no-color.org)
  EXPECT_FALSE(colour_wanted(ColorChoice::never, true, nullptr));
  EXPECT_EQ(color_choice_from_name("auto"), ColorChoice::automatic);
  EXPECT_EQ(color_choice_from_name("sometimes"), std::nullopt);
}

TEST(ProgressText, MilestonesAreOnePlainLineEach) {
  Palette plain;
  EXPECT_EQ(milestone_line(level_event(Kind::note, Level::roofline, "run 7 started (runs.sqlite)"), plain),
            "harness: run 7 started (runs.sqlite)");
  EXPECT_EQ(milestone_line(level_event(Kind::level_started, Level::latency, "iterations on the device"), plain),
            "harness: level 4: latency (iterations on the device)");
  EXPECT_EQ(milestone_line(latency_event(Kind::condition_started, 2, 0, 0, 3), plain),
            "harness: level 4: condition 2/2, under load \"stress-ng --cpu 4\"");
  EXPECT_EQ(milestone_line(latency_event(Kind::iterations, 2, 50, 1, 4), plain), "");
  EXPECT_EQ(milestone_line(latency_event(Kind::condition_finished, 1, 100, 2.04, 3), plain),
            "harness: level 4: condition 1/2, without load: 100 iterations in 2.0 s");
  ProgressEvent done = level_event(Kind::level_finished, Level::latency, "iterations on the device", 65);
  done.samples = 200;
  EXPECT_EQ(milestone_line(done, plain), "harness: level 4: latency done in 1:05, 200 samples");
  done.failure = "interrupted";
  EXPECT_EQ(milestone_line(done, plain), "harness: level 4: latency stopped after 1:05");
  EXPECT_EQ(milestone_line(done, Palette{true}), "harness: level 4: latency \x1b[31mstopped\x1b[0m after 1:05");
}

TEST(ProgressText, TheLiveLineShowsDoneOfPlannedElapsedEtaSamplesAndTheCondition) {
  Palette plain;
  // 40 of 100 iterations in 2 s: 3 s more for this condition, 5 s for the next.
  ProgressEvent e = latency_event(Kind::iterations, 1, 40, 2.0, 2.5);
  e.analyzer_samples = 12'500'000;
  EXPECT_EQ(live_progress_line(e, 0, 200, plain),
            "level 4 latency  condition 1/2, without load  40/100 iterations  2.5 s  ETA 8.0 s  40 samples  "
            "analyzer 12.5M samples");
  // Half a second after the event: the clock and the estimate move on.
  EXPECT_THAT(live_progress_line(e, 0.5, 200, plain), testing::HasSubstr("  3.0 s  ETA 7.5 s"));
  // Cut to the terminal's width less one column, so it never wraps.
  EXPECT_EQ(live_progress_line(e, 0, 30, plain), "level 4 latency  condition 1/");
  ProgressEvent started = level_event(Kind::level_started, Level::roofline, "ceilings and kernels on the device", 75);
  EXPECT_EQ(live_progress_line(started, 0, 200, plain), "level 1 roofline  ceilings and kernels on the device  1:15");
  ProgressEvent done = level_event(Kind::level_finished, Level::latency, "", 48.2);
  done.samples = 200;
  EXPECT_EQ(live_progress_line(done, 9, 200, plain), "level 4 latency  done in 48 s  200 samples");
  EXPECT_EQ(live_progress_line(done, 0, 200, Palette{true}),
            "\x1b[1;36mlevel 4 latency\x1b[0m  \x1b[32mdone\x1b[0m in 48 s  200 samples");
}

TEST(ProgressText, LevelsOneAndTwoShowTheirStepTheCountElapsedAndEta) {
  Palette plain;
  // Step 2 of 4 with 2 of 5 repetitions after 8 s: 1.4 of 4 steps done, 14.9 s to go.
  EXPECT_EQ(live_progress_line(roofline_step(2, 2, 8.0), 0, 200, plain),
            "level 1 roofline  step 2/4  bandwidth.seq_read.1t  2/5 repetitions  8.0 s  ETA 14 s");
  EXPECT_THAT(live_progress_line(roofline_step(4, 5, 20.0), 2, 200, plain),
              testing::HasSubstr("step 4/4  kernel gemm  5/5 repetitions  22 s  ETA 0.0 s"));
  // Level 2's one step: no step number.
  ProgressEvent counted = level_event(Kind::step, Level::counters, "workload", 3.0);
  counted.step_index = counted.step_count = 1;
  counted.done = 750;
  counted.planned = 1000;
  counted.counted = "iterations";
  EXPECT_EQ(live_progress_line(counted, 0, 200, plain), "level 2 counters  workload  750/1000 iterations  3.0 s  ETA 1.0 s");
  // Nothing counted yet: no estimate.
  EXPECT_EQ(live_progress_line(roofline_step(1, 0, 0.5), 0, 200, plain),
            "level 1 roofline  step 1/4  bandwidth.seq_read.1t  0/5 repetitions  0.5 s");
  // A step is no milestone: a log keeps the level's start and end only.
  EXPECT_EQ(milestone_line(counted, plain), "");
}

TEST(ProgressText, TheEstimateOfAStepCountsTheWorkLeft) {
  EXPECT_DOUBLE_EQ(estimated_remaining_s(roofline_step(2, 1, 6.0)), 14.0);
  EXPECT_DOUBLE_EQ(estimated_remaining_s(roofline_step(3, 0, 10.0)), 10.0);  // half the steps done in 10 s
  EXPECT_LT(estimated_remaining_s(roofline_step(1, 0, 3.0)), 0);
}

TEST(ProgressText, TheEstimateCoversTheMinimumDurationAndTheConditionsToCome) {
  ProgressEvent e = latency_event(Kind::iterations, 1, 40, 2.0, 2.5);
  EXPECT_DOUBLE_EQ(estimated_remaining_s(e), 3.0 + 5.0);
  e.min_duration_s = 10;  // the plan runs at least 10 s: 8 s more, then 10 s for the next
  EXPECT_DOUBLE_EQ(estimated_remaining_s(e), 8.0 + 10.0);
  e.condition_index = 2;
  EXPECT_DOUBLE_EQ(estimated_remaining_s(e), 8.0);
  e.done = 0;
  EXPECT_LT(estimated_remaining_s(e), 0);  // nothing measured yet: no estimate
  EXPECT_LT(estimated_remaining_s(level_event(Kind::level_started, Level::roofline, "")), 0);
}

TEST(ProgressView, WithoutATerminalEveryMilestoneIsALineAndIterationsAreNot) {
  std::ostringstream out;
  FakeClock clock(1'000'000);
  std::unique_ptr<RunProgress> view = make_progress_view(out, clock, {});
  view->report(level_event(Kind::level_started, Level::latency, "iterations on the device"));
  view->report(latency_event(Kind::condition_started, 1, 0, 0, 0.1));
  for (int i = 1; i <= 10; ++i) view->report(latency_event(Kind::iterations, 1, i * 10, i * 0.2, i * 0.2));
  view->report(latency_event(Kind::condition_finished, 1, 100, 2.0, 2.1));
  view->report(level_event(Kind::level_finished, Level::latency, "", 2.2));
  EXPECT_EQ(out.str(),
            "harness: level 4: latency (iterations on the device)\n"
            "harness: level 4: condition 1/2, without load\n"
            "harness: level 4: condition 1/2, without load: 100 iterations in 2.0 s\n"
            "harness: level 4: latency done in 2.2 s\n");
}

TEST(ProgressView, OnATerminalTheLineIsRedrawnInPlaceAtMostTenTimesASecond) {
  std::ostringstream out;
  FakeClock clock(10'000'000);  // every reading 10 ms later
  ProgressViewOptions o;
  o.live = true;
  o.columns = 120;
  std::unique_ptr<RunProgress> view = make_progress_view(out, clock, o);
  view->report(level_event(Kind::level_started, Level::latency, "iterations on the device"));
  view->report(latency_event(Kind::condition_started, 1, 0, 0, 0));
  for (int i = 1; i <= 100; ++i) view->report(latency_event(Kind::iterations, 1, i, i * 0.01, i * 0.01));
  view->report(level_event(Kind::note, Level::roofline, "level 3: analyzer armed for the latency window"));
  view->report(level_event(Kind::level_finished, Level::latency, "", 1.0));
  const std::string s = out.str();
  // 100 batches 10 ms apart (1 s): about 10 redraws, not 100.
  std::size_t redraws = 0;
  for (std::size_t at = 0; (at = s.find("\r\x1b[K", at)) != std::string::npos; at += 3) ++redraws;
  EXPECT_GE(redraws, 10u);
  EXPECT_LE(redraws, 16u) << s;
  // A note goes above the live line, which comes back under it.
  EXPECT_THAT(s, testing::HasSubstr("\r\x1b[Kharness: level 3: analyzer armed for the latency window\n\r\x1b[Klevel 4"));
  // The level's last line stays, ended by a newline; one line per level in all.
  EXPECT_THAT(s, testing::EndsWith("\r\x1b[Klevel 4 latency  done in 1.0 s\n"));
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 2);
  EXPECT_FALSE(has_sgr(s));
}

TEST(ProgressView, OnATerminalLevelOnesStepsRedrawItsLineAndALogShowsOnlyItsEnds) {
  FakeClock clock(200'000'000);  // every reading 200 ms later: each step is drawn
  ProgressViewOptions o;
  o.live = true;
  o.columns = 120;
  std::ostringstream live;
  std::unique_ptr<RunProgress> view = make_progress_view(live, clock, o);
  view->report(level_event(Kind::level_started, Level::roofline, "ceilings and kernels on the device"));
  view->report(roofline_step(1, 0, 0.1));
  view->report(roofline_step(4, 5, 1.0));
  view->report(level_event(Kind::level_finished, Level::roofline, "", 1.1));
  EXPECT_EQ(live.str(),
            "\r\x1b[Klevel 1 roofline  ceilings and kernels on the device  0.0 s"
            "\r\x1b[Klevel 1 roofline  step 1/4  bandwidth.seq_read.1t  0/5 repetitions  0.1 s"
            "\r\x1b[Klevel 1 roofline  step 4/4  kernel gemm  5/5 repetitions  1.0 s  ETA 0.0 s"
            "\r\x1b[Klevel 1 roofline  done in 1.1 s\n");
  std::ostringstream log;
  std::unique_ptr<RunProgress> milestones = make_progress_view(log, clock, {});
  milestones->report(level_event(Kind::level_started, Level::roofline, "ceilings and kernels on the device"));
  milestones->report(roofline_step(1, 0, 0.1));
  milestones->report(level_event(Kind::level_finished, Level::roofline, "", 1.1));
  EXPECT_EQ(log.str(),
            "harness: level 1: roofline (ceilings and kernels on the device)\n"
            "harness: level 1: roofline done in 1.1 s\n");
}

TEST(ProgressView, ColourOnlyWhenAsked) {
  for (bool colour : {false, true}) {
    std::ostringstream out;
    FakeClock clock;
    ProgressViewOptions o;
    o.live = true;
    o.color = colour;
    std::unique_ptr<RunProgress> view = make_progress_view(out, clock, o);
    view->report(level_event(Kind::level_started, Level::counters, "on the device"));
    view->report(level_event(Kind::level_finished, Level::counters, "on the device", 1));
    EXPECT_EQ(has_sgr(out.str()), colour) << out.str();
  }
}

}  // namespace
}  // namespace harness
