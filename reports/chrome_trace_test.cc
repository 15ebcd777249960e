#include "reports/chrome_trace.h"

#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

LatencyCondition condition(const std::string& name, std::uint64_t origin_ns, int iterations, double period_s) {
  LatencyCondition c;
  c.name = name;
  for (int i = 0; i < iterations; ++i) {
    c.start_s.push_back(i * period_s);
    c.latency_s.push_back(period_s * 0.8);
  }
  c.window_s = iterations * period_s;
  c.origin_host_ns = origin_ns;
  return c;
}

// Two conditions (the second under stress-ng, with power readings), the
// rig window around the first with an analyzer capture, DQ activity.
std::pair<RunRecord, Recording> recorded_run() {
  Recording r;
  r.latency.emplace();
  r.latency->conditions.push_back(condition("none", 5'000'000'000, 40, 0.005));
  LatencyCondition loaded = condition("stress-ng-cpu-4", 6'000'000'000, 25, 0.006);
  loaded.load = {"stress-ng", "--cpu", "4"};
  loaded.power.source = "hwmon:board";
  loaded.power.quantity = "power";
  loaded.power.t_s = {0, 0.05, 0.1, 0.15};
  loaded.power.value = {4.5, 5.0, 5.25, 4.75};
  r.latency->conditions.push_back(loaded);
  r.rig.emplace();
  RigRecording::Window w;
  w.level = "latency";
  w.condition = "none";
  w.origin_host_ns = 4'990'000'000;  // opened 10 ms before the first iteration
  w.closed_s = 0.215;
  w.iterations_start_s = 0.010;
  w.iterations_end_s = 0.210;
  w.capture_start_s = 0.005;
  w.capture_end_s = 0.205;
  r.rig->window = w;
  RunRecord run;
  run.id = 7;
  run.scenario_name = "trace-test";
  SampleSet dq;
  dq.level = Level::ddr;
  dq.name = "ddr.dq_active_timeline";
  dq.values = {0.1, 0.6, 0.65, 0.2};
  run.analysis.samples.push_back(dq);
  return {run, r};
}

TEST(ChromeTrace, EveryEventHasPhTsPidTidAndTracksRunForward) {
  auto [run, recording] = recorded_run();
  RunTrace trace = run_trace(run, recording);
  // What a viewer reads: the JSON text, parsed back.
  nlohmann::json doc = nlohmann::json::parse(trace.doc.dump());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  std::map<std::string, double> last_ts;  // per track: tid for slices, name for counters
  std::size_t iterations = 0;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    for (const char* key : {"ph", "ts", "pid", "tid"}) ASSERT_TRUE(e.contains(key)) << e.dump();
    const std::string ph = e["ph"];
    const std::string track = ph == "C" ? "C:" + e["name"].get<std::string>() : "T:" + e["tid"].dump();
    const double ts = e["ts"];
    if (last_ts.count(track)) {
      EXPECT_LE(last_ts[track], ts) << e.dump();
    }
    last_ts[track] = ts;
    if (ph == "X" && e["name"] == "iteration") ++iterations;
  }
  EXPECT_EQ(iterations, 65u);
  EXPECT_EQ(trace.iteration_slices, 65u);
  EXPECT_TRUE(trace.notes.empty());
}

TEST(ChromeTrace, ConditionsSitOnTheHostClock) {
  auto [run, recording] = recorded_run();
  nlohmann::json doc = run_trace(run, recording).doc;
  std::map<std::string, double> first_iteration;
  double capture = -1, first_dq = -1, load_dur = -1;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "iteration" && !first_iteration.count(e["args"]["condition"]))
      first_iteration[e["args"]["condition"]] = e["ts"];
    if (e["ph"] == "X" && e["name"] == "capture") capture = e["ts"];
    if (e["ph"] == "C" && e["name"] == "DQ bus activity" && first_dq < 0) first_dq = e["ts"];
    if (e["ph"] == "X" && e["name"] == "stress-ng --cpu 4") load_dur = e["dur"];
  }
  // Time 0 is the rig window's opening, 10 ms before the first condition.
  EXPECT_DOUBLE_EQ(first_iteration["none"], 10'000);
  EXPECT_DOUBLE_EQ(first_iteration["stress-ng-cpu-4"], 1'010'000);
  EXPECT_DOUBLE_EQ(capture, 5'000);
  EXPECT_DOUBLE_EQ(first_dq, 5'000);
  EXPECT_DOUBLE_EQ(load_dur, 150'000);
}

TEST(ChromeTrace, OlderRecordingsWithoutHostTimesSayWhereTheyPlacedConditions) {
  auto [run, recording] = recorded_run();
  recording.rig.reset();
  for (LatencyCondition& c : recording.latency->conditions) c.origin_host_ns.reset();
  RunTrace trace = run_trace(run, recording);
  EXPECT_EQ(trace.iteration_slices, 65u);
  ASSERT_EQ(trace.notes.size(), 3u);
  EXPECT_EQ(trace.notes[0], "the recording has no host times: conditions are laid out one after another from 0");
}

// The counter events of the trace, "name @ts: value", in the trace's order.
std::vector<std::string> counter_events(const nlohmann::json& doc, const std::string& prefix) {
  std::vector<std::string> out;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    const std::string name = e["name"];
    if (e["ph"] != "C" || name.rfind(prefix, 0) != 0) continue;
    out.push_back(fmt::format("{} @{:.0f}: {}", name, e["ts"].get<double>(), e["args"]["value"].get<double>()));
  }
  return out;
}

CounterBlock counter_block(int round, const std::string& side, std::uint64_t before, std::uint64_t after) {
  CounterReading cycles;
  cycles.name = "CYCLES";
  cycles.unit = "cycles";
  cycles.before = before;
  cycles.after = after;
  CounterReading delta_only;  // a source that reports its delta has no edges to draw
  delta_only.name = "energy";
  delta_only.delta = 5;
  return {round, side, 10, {cycles, delta_only}};
}

TEST(ChromeTrace, EachPairedBlocksCounterReadingsSitAtItsEdgesPerSide) {
  auto [run, recording] = recorded_run();
  // Condition "none" (40 iterations every 5 ms, 4 ms each, from 10 ms) in
  // two ABBA rounds of 10 iterations a block.
  recording.latency->conditions[0].blocks = {{0, false, 0, 10}, {0, true, 10, 10}, {1, true, 20, 10}, {1, false, 30, 10}};
  CountersRecording& counters = recording.counters.emplace();
  counters.window = "latency";
  counters.window_condition = "none";
  counters.pairing = "ABBA order";
  counters.blocks = {counter_block(0, "candidate", 100, 1100), counter_block(0, "reference", 200, 1400),
                     counter_block(1, "reference", 300, 1500), counter_block(1, "candidate", 400, 1300),
                     counter_block(2, "candidate", 500, 1600)};
  RunTrace trace = run_trace(run, recording);
  EXPECT_EQ(counter_events(trace.doc, "counter "),
            (std::vector<std::string>{"counter CYCLES (cycles): none [candidate] @10000: 100",
                                      "counter CYCLES (cycles): none [candidate] @59000: 1100",
                                      "counter CYCLES (cycles): none [reference] @60000: 200",
                                      "counter CYCLES (cycles): none [reference] @109000: 1400",
                                      "counter CYCLES (cycles): none [reference] @110000: 300",
                                      "counter CYCLES (cycles): none [reference] @159000: 1500",
                                      "counter CYCLES (cycles): none [candidate] @160000: 400",
                                      "counter CYCLES (cycles): none [candidate] @209000: 1300"}));
  EXPECT_EQ(trace.notes, std::vector<std::string>{"counters: block 5 (round 3, candidate) has no iterations of its "
                                                  "own in condition \"none\": its readings are not drawn"});
  // Another condition's blocks, or level 2 in a window of its own: not these.
  counters.window_condition = "stress-ng-cpu-4";
  EXPECT_EQ(counter_events(run_trace(run, recording).doc, "counter "), std::vector<std::string>{});
}

TEST(ChromeTrace, SidesGetTracksOfTheirOwn) {
  EXPECT_EQ(iteration_track_name("none"), "iterations: none");
  EXPECT_EQ(iteration_track_name("none", "reference"), "iterations: none [reference]");
}

}  // namespace
}  // namespace harness
