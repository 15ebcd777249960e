#include "harness/rig/protocol.h"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using ::testing::HasSubstr;

TEST(AgentProtocol, AWorkloadCrossesTheWireUnchanged) {
  Workload w;
  w.kind = Workload::Kind::builtin;
  w.name = "gemm-64";
  w.builtin.kind = "gemm";
  w.builtin.m = w.builtin.n = w.builtin.k = 64;
  w.builtin.slowdown = 1.5;
  w.timeout_s = 3;
  Result<Workload> back = protocol::workload_from_wire(nlohmann::json::parse(protocol::to_wire(w).dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->name, "gemm-64");
  EXPECT_EQ(back->builtin.k, 64);
  EXPECT_DOUBLE_EQ(back->builtin.slowdown, 1.5);
  EXPECT_DOUBLE_EQ(back->timeout_s, 3);

  Workload c;
  c.kind = Workload::Kind::command;
  c.command = {"./infer", "--model", "a b"};
  c.report.json_field = "latency_ms";
  c.report.unit_s = 1e-3;
  back = protocol::workload_from_wire(protocol::to_wire(c));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->command, c.command);
  EXPECT_EQ(back->report.json_field, "latency_ms");
  EXPECT_TRUE(back->cpus.empty());
  EXPECT_FALSE(protocol::to_wire(c).contains("cpus"));  // an unpinned request is the one of before

  c.cpus = {2, 0};
  back = protocol::workload_from_wire(protocol::to_wire(c));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cpus, (std::vector<int>{2, 0}));
  EXPECT_FALSE(back->first_cpu);
  c.cpus.clear();
  c.first_cpu = true;
  back = protocol::workload_from_wire(protocol::to_wire(c));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->first_cpu);
  EXPECT_TRUE(back->cpus.empty());
  c.cpus = {2, 0};
  nlohmann::json hostile = protocol::to_wire(c);
  hostile["cpus"] = {1e30};
  EXPECT_FALSE(protocol::workload_from_wire(hostile));
}

nlohmann::json parse_iterations_with_gap(const std::string& gap) {
  return nlohmann::json::parse(R"({"id": 1, "event": "iterations", "first_ns": 10, "gap_ns": [)" + gap +
                               R"(], "dur_ns": [5]})");
}

TEST(AgentProtocol, AStepOfLevelOneCrossesAndAMalformedOneIsRefused) {
  const ProgressEvent e{.kind = ProgressEvent::Kind::step,
                        .level = Level::roofline,
                        .text = "kernel gemm",
                        .elapsed_s = 7,  // the device's: not sent, the host adds its own
                        .done = 2,
                        .planned = 5,
                        .step_index = 3,
                        .step_count = 9,
                        .counted = "repetitions"};
  nlohmann::json wire = nlohmann::json::parse(protocol::encode_step(4, e).dump());
  EXPECT_EQ(wire["event"], "step");
  EXPECT_EQ(wire["id"], 4);
  Result<ProgressEvent> back = protocol::decode_step(wire);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->kind, ProgressEvent::Kind::step);
  EXPECT_EQ(back->level, Level::roofline);
  EXPECT_EQ(back->text, "kernel gemm");
  EXPECT_EQ(back->step_index, 3);
  EXPECT_EQ(back->step_count, 9);
  EXPECT_EQ(back->done, 2);
  EXPECT_EQ(back->planned, 5);
  EXPECT_EQ(back->counted, "repetitions");
  EXPECT_EQ(back->elapsed_s, 0);

  nlohmann::json beyond = wire;
  beyond["index"] = 10;
  EXPECT_EQ(protocol::decode_step(beyond).error().message, "agent protocol: a step event out of its bounds");
  nlohmann::json unknown = wire;
  unknown["level"] = "cache";
  EXPECT_EQ(protocol::decode_step(unknown).error().message, "agent protocol: a step event of an unknown level");
  nlohmann::json missing = wire;
  missing.erase("done");
  EXPECT_FALSE(protocol::decode_step(missing));
  // A float far beyond any integer (found by agent_protocol_fuzz: casting it
  // was undefined behaviour) or a fraction is refused as the wrong type.
  for (nlohmann::json number : {nlohmann::json(5.02222e80), nlohmann::json(2.5), nlohmann::json(-1e300)}) {
    nlohmann::json odd = wire;
    odd["done"] = number;
    Result<ProgressEvent> refused = protocol::decode_step(odd);
    ASSERT_FALSE(refused) << number;
    EXPECT_NE(refused.error().message.find("agent protocol: malformed step event: "), std::string::npos)
        << refused.error().message;
  }
  nlohmann::json huge = parse_iterations_with_gap("1e300");
  EXPECT_FALSE(protocol::decode_iterations(huge, 10));
}

TEST(AgentProtocol, CounterGroupsCrossWithoutTheirFormulas) {
  CountersConfig c;
  c.iterations = 7;
  c.windows = 3;
  CounterGroup g;
  g.name = "npu";
  g.sources.push_back({"stats", "text_file", "/sys/kernel/debug/npu/stats", {}, false, 10, 32, "g.toml:3:1"});
  g.counters.push_back({"MEM_STALL_CYCLES", "stats", "", "mem_stall", "", 1, 0, "cycles", "g.toml:7:1"});
  c.groups.push_back(g);
  Result<CountersConfig> back = protocol::counters_from_wire(protocol::to_wire(c));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->iterations, 7);
  EXPECT_EQ(back->windows, 3);
  ASSERT_EQ(back->groups.size(), 1u);
  EXPECT_EQ(back->groups[0].sources[0].path, "/sys/kernel/debug/npu/stats");
  EXPECT_EQ(back->groups[0].sources[0].width, 32);
  EXPECT_EQ(back->groups[0].counters[0].key, "mem_stall");
}

// A host older than `windows` sends read_each_iteration only; an agent older
// than it reads read_each_iteration, which says one window per iteration.
TEST(AgentProtocol, CounterWindowsCrossWithHostsAndAgentsOlderThanThem) {
  CountersConfig c;
  c.iterations = 5;
  nlohmann::json wire = protocol::to_wire(c);
  EXPECT_EQ(wire.at("read_each_iteration"), false);
  wire.erase("windows");
  wire["read_each_iteration"] = true;
  Result<CountersConfig> each = protocol::counters_from_wire(wire);
  ASSERT_TRUE(each) << each.error().message;
  EXPECT_EQ(each->windows, 5);
  c.windows = 5;
  EXPECT_EQ(protocol::to_wire(c).at("read_each_iteration"), true);
  nlohmann::json too_many = protocol::to_wire(c);
  too_many["windows"] = 6;
  ASSERT_FALSE(protocol::counters_from_wire(too_many));
  EXPECT_THAT(protocol::counters_from_wire(too_many).error().message, HasSubstr("windows"));
}

// A run with a same-run reference sends the reference and the run's seed, so
// the device alternates level 2's windows as the host would; a host older
// than it sends neither, and the agent counts the candidate alone.
TEST(AgentProtocol, CountersCarryTheReferenceTheirWindowsAlternateWith) {
  CountersConfig c;
  c.iterations = 40;
  EXPECT_FALSE(protocol::counters_from_wire(protocol::to_wire(c))->paired_with);
  ReferenceConfig r;
  r.workload.kind = Workload::Kind::command;
  r.workload.command = {"./infer", "--model", "last-good.tflite"};
  r.rounds = 8;
  r.order = "abba";
  r.seed = 18446744073709551557u;  // the largest 64-bit prime: a seed beyond int64
  r.first_round = 16;               // a later look continues the run's rounds
  c.paired_with = r;
  EXPECT_EQ(protocol::to_wire(c)["paired_with"]["first_round"], 16);
  Result<CountersConfig> back = protocol::counters_from_wire(protocol::to_wire(c));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->paired_with);
  EXPECT_EQ(back->paired_with->workload.command, r.workload.command);
  EXPECT_EQ(back->paired_with->rounds, 8);
  EXPECT_EQ(back->paired_with->order, "abba");
  EXPECT_EQ(back->paired_with->seed, 18446744073709551557u);
  EXPECT_EQ(back->paired_with->first_round, 16);
  nlohmann::json odd = protocol::to_wire(c);
  odd["paired_with"]["first_round"] = -1;
  EXPECT_EQ(protocol::counters_from_wire(odd).error().message,
            "agent protocol: paired rounds cannot start before round 0");
  odd["paired_with"].erase("first_round");  // a host older than looks: round 0
  EXPECT_EQ(protocol::counters_from_wire(odd)->paired_with->first_round, 0);
  odd["paired_with"]["order"] = "zigzag";
  ASSERT_FALSE(protocol::counters_from_wire(odd));
  EXPECT_EQ(protocol::counters_from_wire(odd).error().message, "agent protocol: unknown order of paired rounds zigzag");
  odd["paired_with"]["order"] = "random";
  odd["paired_with"]["rounds"] = 0;
  EXPECT_EQ(protocol::counters_from_wire(odd).error().message,
            "agent protocol: paired rounds need at least one round");
}

// A workload window's plan may carry level 2's counters, read over the
// window's own iterations and never paired (docs/parts/counters.md).
TEST(AgentProtocol, AWindowsPlanCarriesItsCountersOverItsOwnIterations) {
  IterationPlan p{2, 40, 0.5, 30, 4, {}};
  p.counters.emplace();
  p.counters->groups.emplace_back();
  p.counters->groups[0].name = "linux-host";
  p.counters->iterations = 40;
  p.counters->windows = 4;
  Result<IterationPlan> back = protocol::plan_from_wire(protocol::to_wire(p));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->counters);
  EXPECT_EQ(back->counters->windows, 4);
  EXPECT_EQ(protocol::to_wire(*back), protocol::to_wire(p));
  EXPECT_FALSE(protocol::to_wire(IterationPlan{}).contains("counters"));

  IterationPlan other = p;
  other.counters->iterations = 41;
  Result<IterationPlan> refused = protocol::plan_from_wire(protocol::to_wire(other));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "agent protocol: a window's counters are read over its own iterations, unpaired");
  other = p;
  other.counters->paired_with.emplace();
  EXPECT_FALSE(protocol::plan_from_wire(protocol::to_wire(other)));
}

TEST(AgentProtocol, MalformedRequestsAreErrorsNotCrashes) {
  Result<Workload> w = protocol::workload_from_wire(nlohmann::json{{"kind", "builtin"}});
  ASSERT_FALSE(w);
  EXPECT_THAT(w.error().message, HasSubstr("agent protocol: malformed workload"));
  EXPECT_FALSE(protocol::plan_from_wire(nlohmann::json{{"warmup", -1}, {"iterations", 0}, {"min_duration_s", 0},
                                                       {"run_timeout_s", 1}, {"iteration_timeout_s", 1}}));
  EXPECT_FALSE(protocol::parse_line("[1,2]"));
  EXPECT_FALSE(protocol::parse_line("{\"id\": 1"));
  Result<nlohmann::json> big = protocol::parse_line(std::string(protocol::kMaxMessageBytes + 1, ' '));
  ASSERT_FALSE(big);
  EXPECT_THAT(big.error().message, HasSubstr("over the limit"));
  // 1.9 M levels under the line limit once crashed the reader by recursion.
  const std::size_t deep = protocol::kMaxMessageBytes / 2 - 8;
  Result<nlohmann::json> nested =
      protocol::parse_line("{\"a\":" + std::string(deep, '[') + std::string(deep, ']') + "}");
  ASSERT_FALSE(nested);
  EXPECT_THAT(nested.error().message, HasSubstr("nested deeper than 64 levels"));
}

TEST(AgentProtocol, Base64RoundTripsAnyBytes) {
  for (std::string s : {std::string(), std::string("a"), std::string("ab"), std::string("abc"),
                        std::string("\0\xff\x10\n", 4)}) {
    Result<std::string> back = protocol::base64_decode(protocol::base64_encode(s));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(protocol::base64_decode("abc"));
}

}  // namespace
}  // namespace harness

namespace harness {
namespace {

TEST(AgentProtocol, IterationsTravelAsDifferencesAndComeBackExact) {
  IterationBatch b;
  b.start_ns = {1'000'000'000'000, 1'000'000'001'500, 1'000'000'001'400};  // the third overlaps (a pipelined stream)
  b.end_ns = {1'000'000'001'000, 1'000'000'002'000, 1'000'000'003'000};
  nlohmann::json e = protocol::encode_iterations(7, b);
  EXPECT_EQ(e["gap_ns"], nlohmann::json({0, 500, -600}));
  EXPECT_EQ(e["dur_ns"], nlohmann::json({1000, 500, 1600}));
  Result<IterationBatch> back = protocol::decode_iterations(nlohmann::json::parse(e.dump()), 3);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->start_ns, b.start_ns);
  EXPECT_EQ(back->end_ns, b.end_ns);

  e["dur_ns"][1] = -5;
  EXPECT_FALSE(protocol::decode_iterations(e, 3));
  e["dur_ns"] = {1};
  EXPECT_FALSE(protocol::decode_iterations(e, 3));
}

// An agent's answer is checked before it is believed: no more iterations
// than the plan leaves (counted before any is allocated), no negative
// duration, no time off the clock either way.
TEST(AgentProtocol, AnIterationsEventThatBreaksThePlanOrTheClockIsRefused) {
  auto refused = [](const nlohmann::json& e, std::size_t most) {
    Result<IterationBatch> r = protocol::decode_iterations(e, most);
    return r ? std::string("accepted") : r.error().message;
  };
  nlohmann::json e = {{"id", 1}, {"event", "iterations"}, {"first_ns", 10}, {"gap_ns", {0, 0, 0, 0}},
                      {"dur_ns", {1, 1, 1, 1}}};
  EXPECT_EQ(refused(e, 3), "agent protocol: an iterations event of 4 iterations, more than the 3 the plan leaves");
  EXPECT_EQ(refused(e, 4), "accepted");
  e["gap_ns"] = {0, -1'000'000'000'000'000'000};
  e["dur_ns"] = {1, 1};
  EXPECT_EQ(refused(e, 4), "agent protocol: an iteration before the device's clock began (a gap of "
                           "-1000000000000000000 ns)");
  e["gap_ns"] = {0, -11};  // back to 0: the clock's first nanosecond
  EXPECT_EQ(refused(e, 4), "accepted");
  e["gap_ns"] = {0, -12};
  EXPECT_THAT(refused(e, 4), HasSubstr("before the device's clock began"));
  e["gap_ns"] = {0, 0};
  e["dur_ns"] = {1, -1};
  EXPECT_EQ(refused(e, 4), "agent protocol: an iteration with a negative duration (-1 ns)");
  e["dur_ns"] = {std::numeric_limits<std::int64_t>::max(), 1};
  EXPECT_EQ(refused(e, 4), "agent protocol: an iteration past the end of the device's clock");
  e["first_ns"] = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(refused(e, 4), "agent protocol: an iteration past the end of the device's clock");
}

}  // namespace
}  // namespace harness

namespace harness {
namespace {

// Every message type both ways: each field of the sample is set away from
// its default, so that a field one direction drops (or reads under another
// key) shows as a difference. Both directions come from one table per
// message (protocol.cc), which this pins.
template <class T, class FromWire>
void expect_round_trip(const T& sample, FromWire from_wire, const nlohmann::json& plain,
                       const std::string& same_as_default = "") {
  const nlohmann::json wire = nlohmann::json::parse(protocol::to_wire(sample).dump());
  Result<T> back = from_wire(wire);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(protocol::to_wire(*back), wire);
  for (const auto& [key, value] : wire.items()) {
    if (key == same_as_default) continue;
    EXPECT_NE(plain.value(key, nlohmann::json()), value) << key;
  }
}

BuiltinKernel every_kernel_field() {
  BuiltinKernel k;
  k.kind = "conv2d";
  k.precision = "fp16";
  std::int64_t n = 1;
  for (std::int64_t* f : {&k.elements, &k.m, &k.n, &k.k, &k.rows, &k.cols, &k.batch, &k.channels, &k.height, &k.width,
                          &k.filters, &k.kernel_h, &k.kernel_w})
    *f = ++n;
  k.slowdown = 1.25;
  return k;
}

TEST(AgentProtocol, EveryMessageTypeRoundTrips) {
  Workload w;
  w.kind = Workload::Kind::builtin;
  w.name = "conv";
  w.builtin = every_kernel_field();
  w.command = {"./infer", "--once"};
  w.report = {"took ([0-9.]+) ms", "latency_ms", 1e-3};
  w.timeout_s = 3;
  w.tokens_per_iteration = 32;
  w.cpus = {0, 2};
  w.first_cpu = true;
  expect_round_trip(w, protocol::workload_from_wire, protocol::to_wire(Workload{}), "kind");  // the other kind below
  Workload command = w;
  command.kind = Workload::Kind::command;
  const nlohmann::json command_wire = protocol::to_wire(command);
  EXPECT_FALSE(command_wire.contains("builtin"));
  EXPECT_EQ(protocol::to_wire(*protocol::workload_from_wire(command_wire)), command_wire);

  CountersConfig c;
  c.iterations = 4;
  c.windows = 4;
  CounterGroup g;
  g.name = "npu";
  g.path = "groups/npu.toml";
  g.sha256 = "ab12";
  g.sources.push_back({"stats", "command", "/sys/npu", {"npu-stats", "-j"}, true, 5, 48, "g.toml:3:1"});
  g.counters.push_back({"STALLS", "stats", "4/0x3c", "stall", "s=([0-9]+)", 64, 32, "cycles", "g.toml:7:1"});
  c.groups.push_back(g);
  expect_round_trip(c, protocol::counters_from_wire, protocol::to_wire(CountersConfig{}));
  // A source and a counter as they are by default, beside the sample's.
  CountersConfig plain_group;
  plain_group.groups.push_back(CounterGroup{});
  plain_group.groups[0].sources.emplace_back();
  plain_group.groups[0].counters.emplace_back();
  const nlohmann::json group = protocol::to_wire(c)["groups"][0], plain = protocol::to_wire(plain_group)["groups"][0];
  for (const auto& [key, value] : group["sources"][0].items()) EXPECT_NE(plain["sources"][0][key], value) << key;
  for (const auto& [key, value] : group["counters"][0].items()) EXPECT_NE(plain["counters"][0][key], value) << key;
  EXPECT_EQ(group["sources"][0].size(), 8u);
  EXPECT_EQ(group["counters"][0].size(), 9u);

  RooflineConfig r;
  r.repetitions = 3;
  r.buffer_bytes = 1 << 20;
  r.host_benchmarks = false;
  r.threads = 2;
  r.random_bytes = 4096;
  r.bursts = {64};
  r.fma_iterations = 1000;
  BuiltinKernel last_good = every_kernel_field();
  last_good.slowdown = 1;
  r.kernels.push_back({"conv", every_kernel_field(), {}, {}, {}, {}, "fp32", "dram", last_good, "s.toml:9:1", ""});
  r.kernels.push_back({"timed-elsewhere", every_kernel_field(), {}, {}, {}, 0.5, "fp32", "dram", {}, "", ""});  // not sent
  r.vendor.push_back({"npu-bench", {"npu-bench", "--all"}, 30, {}});
  r.paired_with.emplace();
  r.paired_with->workload.name = "last-good";
  r.paired_with->rounds = 7;
  r.paired_with->order = "abba";
  r.paired_with->seed = 99;
  expect_round_trip(r, protocol::roofline_from_wire, protocol::to_wire(RooflineConfig{}));
  EXPECT_EQ(protocol::to_wire(r)["kernels"].size(), 1u);
  EXPECT_EQ(protocol::to_wire(r)["kernels"][0]["builtin"], protocol::to_wire(w)["builtin"]);
  EXPECT_EQ(protocol::to_wire(r)["kernels"][0]["reference"]["slowdown"], 1);
  Result<RooflineConfig> paired = protocol::roofline_from_wire(protocol::to_wire(r));
  ASSERT_TRUE(paired) << paired.error().message;
  EXPECT_EQ(timed_rounds(*paired, paired->kernels[0]), 7);

  IterationPlan p{5, 300, 2.5, 30, 4, {}};
  expect_round_trip(p, protocol::plan_from_wire, protocol::to_wire(IterationPlan{}));

  DeviceInfo i{1, "0.1.0", {"workload", "counters"}, {{"host", "board-3"}, {"kernel", "6.1"}}, {"stress-ng: absent"}};
  expect_round_trip(i, protocol::device_info_from_wire, protocol::to_wire(DeviceInfo{}));

  const ProgressEvent e{.kind = ProgressEvent::Kind::step, .level = Level::counters, .text = "workload", .done = 7,
                        .planned = 9, .step_index = 2, .step_count = 3, .counted = "iterations"};
  const nlohmann::json step = protocol::encode_step(4, e);
  Result<ProgressEvent> back = protocol::decode_step(nlohmann::json::parse(step.dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(protocol::encode_step(4, *back), step);
  ProgressEvent first = e;
  first.level = Level::roofline;
  first.text = "";
  first.step_index = first.step_count = 1;
  first.done = first.planned = 0;
  first.counted = "";
  for (const auto& [key, value] : step.items()) {
    if (key == "id" || key == "event") continue;  // the envelope's, the same for every step
    EXPECT_NE(protocol::encode_step(4, first)[key], value) << key;
  }

  StabilityPlan sp{{1, 3}, true, 2};
  expect_round_trip(sp, protocol::stability_plan_from_wire, protocol::to_wire(StabilityPlan{}));
}

}  // namespace
}  // namespace harness
