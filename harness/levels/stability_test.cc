// The stability gate's decisions on constructed readings: each limit on
// both sides of it, what the text names, the figures behind it, and the
// recording's JSON.
#include "harness/levels/stability.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/levels/analyse.h"
#include "harness/levels/recording.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

template <class T>
Probed<T> known(T v) {
  return Probed<T>::known(std::move(v));
}
Probed<double> none(std::string why) { return Probed<double>::missing(std::move(why)); }

// A quiet board's reading of cpu0: 2.1 GHz, 45 °C, no throttling, the
// canary at 100 ms, and (after the first) a second in which cron took 10 ms.
StabilityReading quiet(const std::string& at) {
  StabilityReading r;
  r.at = at;
  r.cpus = {{0, known(2.1e9), known(3.0e9), known(std::string("performance")),
             known(std::map<std::string, std::uint64_t>{{"core", 5}, {"package", 9}})}};
  r.thermal = known(std::vector<ThermalZone>{{"thermal_zone0", "x86_pkg_temp", known(45.0)}});
  r.load = known(LoadAverage{0.1, 0.2, 0.3});
  if (at != "during") r.canary = {{.cpu = 0, .seconds = known(0.100)}};
  if (at == "before") r.use = Probed<CpuUse>::missing("the first reading of its series: no interval yet");
  else r.use = known(CpuUse{1.0, 1, 0.56, 0.0, 0.55, {{812, "cron", 0.01}}});
  return r;
}

StabilitySeries series_of(std::vector<StabilityReading> readings, std::string level = "latency") {
  return {std::move(level), "none", std::move(readings), ""};
}

std::string verdict(const StabilitySeries& s, const StabilityConfig& limits = {}) {
  Analysis a;
  analyse_stability(limits, StabilityRecording{{s}}, Provenance::measured, a);
  const Metric* m = a.find_metric("stability." + s.level);
  if (!m) return "(no metric)";
  return m->value ? m->text : "unavailable: " + m->unavailable;
}

TEST(StabilityGate, AQuietWindowIsStableWithItsFigures) {
  Analysis a;
  analyse_stability({}, StabilityRecording{{series_of({quiet("before"), quiet("during"), quiet("after")})}},
                    Provenance::measured, a);
  EXPECT_TRUE(catalogue_violations(a).empty());
  const Metric* gate = a.find_metric("stability.latency");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->text, "stable");
  EXPECT_EQ(gate->value, 1);
  EXPECT_EQ(gate->level, Level::latency);
  EXPECT_EQ(a.find_metric("stability.latency.canary_change")->value, 0);
  EXPECT_EQ(a.find_metric("stability.latency.cpu_freq_drop")->value, 0);
  EXPECT_EQ(a.find_metric("stability.latency.temperature_rise")->value, 0);
  EXPECT_EQ(a.find_metric("stability.latency.throttle_increase")->value, 0);
  EXPECT_NEAR(*a.find_metric("stability.latency.other_cpu_share")->value, 0.01, 1e-12);
  EXPECT_EQ(a.find_metric("stability.latency.steal_share")->value, 0);
  EXPECT_EQ(a.find_metric("stability.latency.temperature_rise")->unit, "\xC2\xB0" "C");
  EXPECT_EQ(a.find_metric("stability.latency.other_cpu_share")->source, "rig readings around 1 acquisition");
}

TEST(StabilityGate, TheCanaryChangeEitherWay) {
  StabilityReading after = quiet("after");
  after.canary[0].seconds = known(0.109);
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "stable");
  after.canary[0].seconds = known(0.111);
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "unstable: canary cpu0 +11 %");
  after.canary[0].seconds = known(0.088);
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "unstable: canary cpu0 -12 %");
  StabilityConfig loose;
  loose.canary_change_max = 0.15;
  EXPECT_EQ(verdict(series_of({quiet("before"), after}), loose), "stable");
}

TEST(StabilityGate, ACpuClockDrop) {
  StabilityReading after = quiet("after");
  after.cpus[0].cur_hz = known(1.9e9);  // -9.5 %
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "stable");
  after.cpus[0].cur_hz = known(1.2e9);
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "unstable: cpu0 2.1→1.2 GHz");
  Analysis a;
  analyse_stability({}, StabilityRecording{{series_of({quiet("before"), after})}}, Provenance::measured, a);
  EXPECT_DOUBLE_EQ(*a.find_metric("stability.latency.cpu_freq_drop")->value, 1 - 1.2 / 2.1);
  // A rise is no drop.
  after.cpus[0].cur_hz = known(2.4e9);
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "stable");
}

TEST(StabilityGate, ATemperatureRiseCountsAtItsPeak) {
  StabilityReading during = quiet("during"), after = quiet("after");
  during.thermal.value->at(0).celsius = known(47.9);
  EXPECT_EQ(verdict(series_of({quiet("before"), during, after})), "stable");
  during.thermal.value->at(0).celsius = known(48.2);  // and cooled again by the end
  EXPECT_EQ(verdict(series_of({quiet("before"), during, after})), "unstable: thermal_zone0 (x86_pkg_temp) +3.2 °C");
  StabilityConfig warm;
  warm.temperature_rise_max_c = 5;
  EXPECT_EQ(verdict(series_of({quiet("before"), during, after}), warm), "stable");
}

TEST(StabilityGate, AnyThrottleEventByDefault) {
  StabilityReading after = quiet("after");
  after.cpus[0].throttles = known(std::map<std::string, std::uint64_t>{{"core", 6}, {"package", 9}});
  EXPECT_EQ(verdict(series_of({quiet("before"), after})), "unstable: cpu0 core_throttle_count +1");
  StabilityConfig one;
  one.throttle_increase_max = 1;
  EXPECT_EQ(verdict(series_of({quiet("before"), after}), one), "stable");
  after.cpus[0].throttles = known(std::map<std::string, std::uint64_t>{{"core", 6}, {"package", 10}});
  EXPECT_EQ(verdict(series_of({quiet("before"), after}), one),
            "unstable: cpu0 core_throttle_count +1; cpu0 package_throttle_count +1");
}

TEST(StabilityGate, OthersShareOfTheWorkloadsCpusInTheWorstInterval) {
  StabilityReading during = quiet("during"), after = quiet("after");
  during.use = known(CpuUse{1.0, 1, 0.64, 0.0, 0.55, {}});  // 9 %
  EXPECT_EQ(verdict(series_of({quiet("before"), during, after})), "stable");
  // A hog in the second interval only; steal is counted and shown apart.
  after.use = known(CpuUse{2.0, 2, 2.9, 0.04, 0.3,
                           {{4100, "stress-ng-cpu", 2.44}, {4101, "cc1plus", 0.12}, {9, "kworker/0:1", 0.02}, {1, "init", 0.01}}});
  EXPECT_EQ(verdict(series_of({quiet("before"), during, after})),
            "unstable: others used 65 % of cpu0 (stress-ng-cpu 61 %, cc1plus 3 %, kworker/0:1 0 %; steal 1 %)");
  Analysis a;
  analyse_stability({}, StabilityRecording{{series_of({quiet("before"), during, after})}}, Provenance::measured, a);
  EXPECT_DOUBLE_EQ(*a.find_metric("stability.latency.other_cpu_share")->value, 2.6 / 4);
  EXPECT_DOUBLE_EQ(*a.find_metric("stability.latency.steal_share")->value, 0.01);
  StabilityConfig shared;
  shared.other_cpu_share_max = 0.7;
  EXPECT_EQ(verdict(series_of({quiet("before"), during, after}), shared), "stable");
}

TEST(StabilityGate, EverythingThatBrokeIsNamedInOrder) {
  StabilityReading after = quiet("after");
  after.cpus[0].cur_hz = known(1.2e9);
  after.canary[0].seconds = known(0.123);
  after.use = known(CpuUse{1.0, 1, 1.0, 0.0, 0.2, {{77, "hog", 0.8}}});
  EXPECT_EQ(verdict(series_of({quiet("before"), after})),
            "unstable: cpu0 2.1→1.2 GHz; canary cpu0 +23 %; others used 80 % of cpu0 (hog 80 %)");
}

// This machine (a VM): no cpufreq, no thermal zones, no throttle counts.
TEST(StabilityGate, WhatTheDeviceLacksIsUnavailableNotZero) {
  auto vm = [](const std::string& at) {
    StabilityReading r = quiet(at);
    r.cpus[0].cur_hz = none("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq: No such file or directory");
    r.cpus[0].throttles = Probed<std::map<std::string, std::uint64_t>>::missing(
        "/sys/devices/system/cpu/cpu0/thermal_throttle: No such file or directory");
    r.thermal = Probed<std::vector<ThermalZone>>::missing("/sys/class/thermal: No such file or directory");
    return r;
  };
  Analysis a;
  analyse_stability({}, StabilityRecording{{series_of({vm("before"), vm("after")})}}, Provenance::measured, a);
  EXPECT_EQ(a.find_metric("stability.latency")->text, "stable");
  const Metric* drop = a.find_metric("stability.latency.cpu_freq_drop");
  EXPECT_FALSE(drop->value);
  EXPECT_EQ(drop->unavailable, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq: No such file or directory");
  EXPECT_EQ(a.find_metric("stability.latency.temperature_rise")->unavailable,
            "/sys/class/thermal: No such file or directory");
  EXPECT_EQ(a.find_metric("stability.latency.throttle_increase")->unavailable,
            "/sys/devices/system/cpu/cpu0/thermal_throttle: No such file or directory");
  EXPECT_TRUE(catalogue_violations(a).empty());
}

TEST(StabilityGate, NothingReadIsUnavailableWithTheReason) {
  StabilitySeries none_taken{"counters", "", {}, "the agent (harness 0.0.9) takes no stability readings"};
  EXPECT_EQ(verdict(none_taken), "unavailable: the agent (harness 0.0.9) takes no stability readings");
  auto blind = [](const std::string& at) {
    StabilityReading r;
    r.at = at;
    r.cpus = {{0, none("cpufreq: absent"), none("x"), Probed<std::string>::missing("x"),
               Probed<std::map<std::string, std::uint64_t>>::missing("throttle: absent")}};
    r.thermal = Probed<std::vector<ThermalZone>>::missing("thermal: absent");
    r.canary = {{0, none("cpu0: sched_setaffinity: Invalid argument")}};
    r.use = Probed<CpuUse>::missing("/proc/stat: Permission denied");
    return r;
  };
  EXPECT_EQ(verdict(series_of({blind("before"), blind("after")}, "roofline")),
            "unavailable: nothing could be read (canary: cpu0: sched_setaffinity: Invalid argument; CPU use: "
            "/proc/stat: Permission denied)");
  // The window never ended (the run stopped inside it): what can be judged is.
  EXPECT_EQ(verdict(series_of({quiet("before")})),
            "unavailable: nothing could be read (canary: no reading after the window; CPU use: no reading after the "
            "window)");
}

// On several CPUs the canary is judged on their total: a busy thread that
// moved from cpu1 to cpu0 between the ends (level 4's own unpinned stress-ng)
// changes neither; one CPU slowed for good does, each CPU named beside.
TEST(StabilityGate, TheCanaryIsJudgedOnTheWorkloadCpusTogether) {
  StabilityReading before = quiet("before"), after = quiet("after");
  before.canary = {{.cpu = 0, .seconds = known(0.100)}, {.cpu = 1, .seconds = known(0.200)}};
  after.canary = {{.cpu = 0, .seconds = known(0.200)}, {.cpu = 1, .seconds = known(0.100)}};
  EXPECT_EQ(verdict(series_of({before, after})), "stable");
  after.canary = {{.cpu = 0, .seconds = known(0.100)}, {.cpu = 1, .seconds = known(0.350)}};
  EXPECT_EQ(verdict(series_of({before, after})), "unstable: canary cpu0-1 +50 % (cpu0 +0 %, cpu1 +75 %)");
}

// CPU time leaves out the moments the canary waited for its CPU (level 4's
// own stress-ng time-sharing it, judged apart as others' share): here the
// wall clock doubled while the work's CPU time did not move. Where an end
// lacks CPU time (an older agent, an older recording), both ends are compared
// on the wall clock.
TEST(StabilityGate, TheCanaryIsJudgedOnItsCpuTimeWhereBothEndsHaveIt) {
  StabilityReading before = quiet("before"), after = quiet("after");
  before.canary = {{.cpu = 0, .seconds = known(0.100), .cpu_seconds = known(0.098)}};
  after.canary = {{.cpu = 0, .seconds = known(0.200), .cpu_seconds = known(0.099)}};
  EXPECT_EQ(compared_canary_clock(before, after), CanaryClock::cpu);
  EXPECT_EQ(verdict(series_of({before, after})), "stable");
  after.canary[0].cpu_seconds = known(0.125);
  EXPECT_EQ(verdict(series_of({before, after})), "unstable: canary cpu0 +28 % in CPU time");
  after.canary[0].cpu_seconds = none("not recorded");
  EXPECT_EQ(compared_canary_clock(before, after), CanaryClock::wall);
  EXPECT_EQ(verdict(series_of({before, after})), "unstable: canary cpu0 +100 %");
  // A CPU whose canary could not run at all does not send the others back to
  // the wall clock.
  after.canary[0].cpu_seconds = known(0.099);
  before.canary.push_back({.cpu = 1, .seconds = none("cpu1: sched_setaffinity: Invalid argument"),
                           .cpu_seconds = none("cpu1: sched_setaffinity: Invalid argument")});
  EXPECT_EQ(compared_canary_clock(before, after), CanaryClock::cpu);
  EXPECT_EQ(verdict(series_of({before, after})), "stable");
}

TEST(StabilityGate, ALevelWithSeveralConditionsNamesWhichBroke) {
  StabilityReading hot = quiet("after");
  hot.canary[0].seconds = known(0.2);
  StabilityRecording r{{{"latency", "none", {quiet("before"), quiet("after")}, ""},
                        {"latency", "stress", {quiet("before"), hot}, ""},
                        {"counters", "", {quiet("before"), quiet("after")}, ""}}};
  Analysis a;
  analyse_stability({}, r, Provenance::replayed, a);
  EXPECT_EQ(a.find_metric("stability.latency")->text, "unstable: under \"stress\": canary cpu0 +100 %");
  EXPECT_EQ(a.find_metric("stability.latency")->value, 0);
  EXPECT_EQ(a.find_metric("stability.latency")->provenance, Provenance::replayed);
  EXPECT_DOUBLE_EQ(*a.find_metric("stability.latency.canary_change")->value, 1.0);
  EXPECT_EQ(a.find_metric("stability.latency")->source, "rig readings around 2 acquisitions");
  EXPECT_EQ(a.find_metric("stability.counters")->text, "stable");
  EXPECT_EQ(a.find_metric("stability.counters")->level, Level::counters);
}

TEST(StabilityGate, ALevelWithoutStabilityRowsIsNotJudged) {
  Analysis a;
  analyse_stability({}, StabilityRecording{{series_of({quiet("before"), quiet("after")}, "ddr"),
                                            series_of({quiet("before"), quiet("after")}, "nonsense")}},
                    Provenance::measured, a);
  EXPECT_TRUE(a.metrics.empty());
}

TEST(StabilityRecordingJson, RoundTripsEveryFigureAndEveryReason) {
  StabilityReading vm = quiet("after");
  vm.thermal = Probed<std::vector<ThermalZone>>::missing("/sys/class/thermal: No such file or directory");
  vm.boost = Probed<std::string>::missing("boost: absent");
  vm.isolated = known(std::string("2-3"));
  vm.canary[0].cpu_seconds = known(0.097);
  vm.thermal = known(std::vector<ThermalZone>{{"thermal_zone1", "", none("temp: EIO")}});
  StabilityRecording r{{{"latency", "stress", {quiet("before"), quiet("during"), vm}, ""},
                        {"counters", "", {}, "[rig.stability] enabled = false"}}};
  const nlohmann::json j = r;
  const StabilityRecording back = j.get<StabilityRecording>();
  EXPECT_EQ(nlohmann::json(back), j);
  ASSERT_EQ(back.series.size(), 2u);
  EXPECT_EQ(back.series[1].unavailable, "[rig.stability] enabled = false");
  const StabilityReading& b = back.series[0].readings[2];
  EXPECT_EQ(b.boost.unavailable, "boost: absent");
  EXPECT_EQ(b.isolated.value, "2-3");
  EXPECT_EQ(b.thermal.value->at(0).celsius.unavailable, "temp: EIO");
  EXPECT_EQ(b.use.value->busiest.at(0).name, "cron");
  EXPECT_EQ(back.series[0].readings[0].use.unavailable, "the first reading of its series: no interval yet");
  EXPECT_EQ(b.cpus.at(0).throttles.value->at("package"), 9u);
  EXPECT_EQ(b.canary.at(0).cpu_seconds.value, 0.097);
  // A reading from an agent before the canary's CPU time says so.
  nlohmann::json older = j;
  older["series"][0]["readings"][2]["canary"][0].erase("cpu_s");
  EXPECT_EQ(older.get<StabilityRecording>().series[0].readings[2].canary.at(0).cpu_seconds.unavailable, "not recorded");
}

Scenario latency_scenario() {
  Scenario s;
  s.latency.emplace();
  return s;
}

TEST(StabilityRecordingJson, ARecordingKeepsItAndAnOldOneWithoutItStillLoads) {
  Recording rec;
  rec.context = {{"host", "board-3"}};
  rec.stability = StabilityRecording{{series_of({quiet("before"), quiet("after")})}};
  const nlohmann::json j = rec;
  Recording back = j.get<Recording>();
  ASSERT_TRUE(back.stability);
  EXPECT_EQ(nlohmann::json(back), j);
  Analysis replayed = analyse(latency_scenario(), back, Provenance::replayed);
  EXPECT_EQ(replayed.find_metric("stability.latency")->text, "stable");

  nlohmann::json old = j;
  old.erase("stability");
  Recording before_stability = old.get<Recording>();
  EXPECT_FALSE(before_stability.stability);
  Analysis a = analyse(latency_scenario(), before_stability, Provenance::replayed);
  EXPECT_EQ(a.find_metric("stability.latency"), nullptr);
}

}  // namespace
}  // namespace harness
