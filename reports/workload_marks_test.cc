#include "reports/workload_marks.h"

#include <gtest/gtest.h>

#include "harness/bundle/bundle.h"
#include "harness/bundle/replay.h"
#include "reports/html.h"
#include "reports/run_clock.h"
#include "tests/support/replayed_fixture.h"

namespace harness {
namespace {

using testing_support::kFixtures;

constexpr std::uint64_t kWindowOpened = 1'000'000'000;  // host ns: the run clock's 0

// `count` iterations back to back, 5 ms each, the condition's window opened
// `after_ms` after the measurement window.
void back_to_back(LatencyCondition& c, int count, int after_ms) {
  c.start_s.clear();
  c.latency_s.clear();
  for (int i = 0; i < count; ++i) {
    c.start_s.push_back(0.005 * i);
    c.latency_s.push_back(0.005);
  }
  c.window_s = 0.005 * count;
  c.origin_host_ns = kWindowOpened + static_cast<std::uint64_t>(after_ms) * 1'000'000;
}

// Day 6 of the case study (a real capture, the real analysis) with level 4
// cut down to a run against a same-run reference: under stress-ng, two rounds
// of two iterations a side (candidate, reference; reference, candidate) with
// power readings; without load, one round, after the capture ended. The
// analyzer rode the latency window: capture from 5 ms to 55 ms.
Result<RunRecord> small_paired_run(const std::function<void(Recording&)>& change = {}) {
  Result<LoadedBundle> b = load_bundle((kFixtures / "case-study" / "day6").string());
  if (!b) return b.error();
  LatencyRecording& l = *b->recording.latency;
  l.reference_source = "command:whisper-infer (day 5 build)";
  l.pairing = "abba";
  LatencyCondition& loaded = l.conditions.at(0);
  back_to_back(loaded, 8, 10);
  loaded.blocks = {{0, false, 0, 2}, {0, true, 2, 2}, {1, true, 4, 2}, {1, false, 6, 2}};
  loaded.power.t_s = {0, 0.01, 0.02, 0.03, 0.04};
  loaded.power.value = {4.0, 5.5, 5.0, 5.5, 4.5};
  LatencyCondition& idle = l.conditions.at(1);
  back_to_back(idle, 2, 100);
  idle.blocks = {{0, false, 0, 1}, {0, true, 1, 1}};
  idle.power = PowerSeries{};
  RigRecording::Window w;
  w.level = "latency";
  w.condition = loaded.name;
  w.origin_host_ns = kWindowOpened;
  w.closed_s = 0.11;
  w.iterations_origin_s = 0.01;
  w.iterations_start_s = 0.01;
  w.iterations_end_s = 0.05;
  w.capture_start_s = 0.005;
  w.capture_end_s = 0.055;
  b->recording.rig.emplace();
  b->recording.rig->window = w;
  if (change) change(b->recording);
  return replay_bundle(*b);
}

// The SVG element that holds `title`, whole.
std::string chart_titled(const std::string& html, const std::string& title) {
  const std::size_t at = html.find("<title>" + title + "</title>");
  if (at == std::string::npos) return "";
  const std::size_t from = html.rfind("<svg", at), to = html.find("</svg>", at);
  return html.substr(from, to - from);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(WorkloadMarks, EachSidesIterationsLieInTheirOwnLaneOnTheDqTimelineAndThePowerTrace) {
  Result<RunRecord> run = small_paired_run();
  ASSERT_TRUE(run) << run.error().message;
  ASSERT_NE(run->analysis.find_samples("ddr.dq_active_timeline"), nullptr);
  const std::string html = render_html({*run, std::nullopt, std::nullopt});
  EXPECT_EQ(html.find("No iteration marks"), std::string::npos);

  // The capture spans 50 ms on 374 px (7.48 px per ms) from its first
  // sample, 5 ms after the window opened; the loaded condition's iterations
  // start 10 ms after it: at 5 ms of the capture, blocks of 10 ms.
  const std::string dq = chart_titled(html, "DQ bus activity over time (from DQS toggles)");
  ASSERT_FALSE(dq.empty()) << html;
  const std::string candidate = R"(" y="28.00" width="74.80" height="6.00" stroke="#1e8449" stroke-width="0.00" fill="#1e8449"/>)";
  for (const std::string& element : std::vector<std::string>{
           R"(<text x="64.00" y="34.00" text-anchor="end" font-size="9.00" fill="#1e8449">candidate</text>)",
           R"(<text x="64.00" y="43.00" text-anchor="end" font-size="9.00" fill="#7d3c98">reference</text>)",
           "<rect x=\"107.40" + candidate,  // round 1's candidate block, 5-15 ms
           "<rect x=\"331.80" + candidate,  // round 2's, 35-45 ms
           // both reference blocks, back to back from 15 to 35 ms
           R"(<rect x="182.20" y="37.00" width="149.60" height="6.00" stroke="#7d3c98" stroke-width="0.00" fill="#7d3c98"/>)",
           R"(>time from the capture&apos;s first sample</text>)",
       })
    EXPECT_NE(dq.find(element), std::string::npos) << element << "\n" << dq;
  EXPECT_EQ(count_of(dq, R"(height="6.00")"), 3u) << "the condition without load ran after the capture";

  // The power readings count from the first iteration: 40 ms on 374 px.
  const std::string power = chart_titled(html, "power under load: stress-ng --cpu 4");
  ASSERT_FALSE(power.empty()) << html;
  for (const char* element : {
           R"(<rect x="70.00" y="28.00" width="93.50" height="6.00" stroke="#1e8449" stroke-width="0.00" fill="#1e8449"/>)",
           R"(<rect x="350.50" y="28.00" width="93.50" height="6.00" stroke="#1e8449" stroke-width="0.00" fill="#1e8449"/>)",
           R"(<rect x="163.50" y="37.00" width="187.00" height="6.00" stroke="#7d3c98" stroke-width="0.00" fill="#7d3c98"/>)",
           R"(>time from the first measured iteration</text>)",
           R"(>power (W)</text>)",
       })
    EXPECT_NE(power.find(element), std::string::npos) << element << "\n" << power;
  EXPECT_EQ(count_of(html, "<title>power "), 1u) << "the condition without load has no power readings";
}

TEST(WorkloadMarks, WithoutAReferenceEveryIterationIsInOneLane) {
  Result<RunRecord> run = small_paired_run([](Recording& r) {
    for (LatencyCondition& c : r.latency->conditions) c.blocks.clear();
    r.latency->reference_source.clear();
  });
  ASSERT_TRUE(run) << run.error().message;
  const std::string html = render_html({*run, std::nullopt, std::nullopt});
  const std::string dq = chart_titled(html, "DQ bus activity over time (from DQS toggles)");
  EXPECT_NE(dq.find(R"(<text x="64.00" y="34.00" text-anchor="end" font-size="9.00" fill="#1e8449">iterations</text>)"),
            std::string::npos) << dq;
  // 5 to 45 ms of the capture, one lane: the plot starts at 28 + 9 + 4 px.
  EXPECT_NE(dq.find(R"(<rect x="107.40" y="28.00" width="299.20" height="6.00" stroke="#1e8449" stroke-width="0.00" fill="#1e8449"/>)"),
            std::string::npos) << dq;
  EXPECT_EQ(dq.find("reference"), std::string::npos);
}

// The sentence under the DQ activity chart when the iterations have no place on it.
std::string why_unmarked(const Result<RunRecord>& run) {
  EXPECT_TRUE(run) << run.error().message;
  if (!run) return "";
  const std::string html = render_html({*run, std::nullopt, std::nullopt});
  const std::size_t at = html.find("<li>No iteration marks");
  if (at == std::string::npos) return "";
  return html.substr(at + 4, html.find("</li>", at) - at - 4);
}

TEST(WorkloadMarks, WhereTheCaptureHasNoHostTimeOneSentenceSaysWhy) {
  // The bundled recording, made before windows were recorded.
  EXPECT_EQ(why_unmarked(testing_support::replayed(kFixtures / "case-study" / "day6")),
            "No iteration marks: the recording has no measurement window (the capture was taken on its own, or "
            "recorded before window times were kept), so the capture has no time on the host&apos;s clock.");
  // An imported capture: the window ran without the analyzer.
  EXPECT_EQ(why_unmarked(small_paired_run([](Recording& r) {
              r.rig->window->capture_start_s.reset();
              r.rig->window->capture_end_s.reset();
            })),
            "No iteration marks: the capture was not taken inside the measurement window (an imported capture), so "
            "it has no time on the host&apos;s clock.");
  // The analyzer rode level 2's window.
  EXPECT_EQ(why_unmarked(small_paired_run([](Recording& r) { r.rig->window->level = "counters"; })),
            "No iteration marks: the analyzer rode the counters level&apos;s window, whose iterations carry no times "
            "of their own.");
  // Level 4 recorded before host times were kept.
  EXPECT_EQ(why_unmarked(small_paired_run([](Recording& r) {
              for (LatencyCondition& c : r.latency->conditions) c.origin_host_ns.reset();
            })),
            "No iteration marks: none of level 4&apos;s measured iterations has a host time inside the capture.");
}

TEST(WorkloadMarks, AnEnergyCounterIsDrawnAsThePowerBetweenReadings) {
  Recording r;
  r.latency.emplace();
  LatencyCondition c;
  back_to_back(c, 2, 0);
  c.power.source = "rapl:package-0";
  c.power.quantity = "energy";
  c.power.unavailable.clear();
  c.power.t_s = {0, 0.004, 0.01};
  c.power.value = {100, 100.02, 100.05};  // 5 W, then 5 W; a wrapped counter would be left out
  r.latency->conditions.push_back(c);
  std::vector<PowerChart> charts = power_charts(r);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].spec.title, "power without load (from energy readings)");
  ASSERT_EQ(charts[0].spec.xs.size(), 2u);
  EXPECT_DOUBLE_EQ(charts[0].spec.xs[0], 0.002);
  EXPECT_DOUBLE_EQ(charts[0].spec.xs[1], 0.007);
  EXPECT_NEAR(charts[0].spec.ys[0], 5, 1e-9);
  EXPECT_NEAR(charts[0].spec.ys[1], 5, 1e-9);
  EXPECT_TRUE(charts[0].no_marks.empty());
  ASSERT_EQ(charts[0].spec.marks.size(), 2u);
  EXPECT_EQ(charts[0].spec.lanes.size(), 1u);
}

}  // namespace
}  // namespace harness
