// The agent as a real child process (`harness agent`), reached through the
// local transport: the same code path as a board over SSH, minus ssh.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/rig/protocol.h"
#include "harness/rig/remote_device.h"
#include "probes/rig/agent_link.h"
#include "probes/stability/stability_probe.h"
#include "tests/support/fake_device.h"
#include "probes/process.h"

namespace harness {
namespace {

using ::testing::HasSubstr;

// Tests run from harness_tests: the local agent is the harness executable.
const bool kAgentIsHarness = (setenv("HARNESS_AGENT", HARNESS_BINARY, 0), true);

RemoteOptions local_options(std::vector<std::string> agent_args = {}) {
  RemoteOptions o;
  o.rig = "test-rig";
  o.transport.kind = "local";
  if (!agent_args.empty()) {
    o.transport.agent = {HARNESS_BINARY, "agent"};
    o.transport.agent.insert(o.transport.agent.end(), agent_args.begin(), agent_args.end());
  }
  o.heartbeat_timeout_s = 5;
  o.connect_timeout_s = 20;
  o.sync_probes = 8;
  return o;
}

Workload small_gemm() {
  Workload w;
  w.kind = Workload::Kind::builtin;
  w.name = "gemm";
  w.builtin.kind = "gemm";
  w.builtin.m = w.builtin.n = w.builtin.k = 32;
  return w;
}

// Processes whose command line holds `marker`, other than pgrep itself.
int count_processes(const std::string& marker) {
  Result<CommandResult> r = run_command({"pgrep", "-f", "-c", marker});
  return r ? std::atoi(r->out.c_str()) : -1;
}

TEST(Agent, HelloGivesTheDeviceContextAndCapabilities) {
  ASSERT_TRUE(kAgentIsHarness);
  MonotonicClock clock;
  RemoteOptions o = local_options();
  o.versions = {{"kernel", {"uname", "-r"}}};
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(o, clock);
  ASSERT_TRUE(d) << d.error().message;
  const DeviceInfo& info = (*d)->info();
  EXPECT_EQ(info.protocol, 1);
  EXPECT_EQ(info.harness_version, HARNESS_VERSION);
  EXPECT_THAT(info.capabilities, ::testing::Contains("workload"));
  for (const char* key : {"kernel", "cpu_model", "cpu_count", "governor", "os_release", "version.kernel"})
    EXPECT_TRUE(info.context.count(key)) << key;
  EXPECT_TRUE((*d)->offset().valid());
  EXPECT_TRUE((*d)->bye());
}

TEST(Agent, AnInjectedClockOffsetIsMappedBackWithinTheUncertainty) {
  MonotonicClock clock;
  const std::int64_t injected = 7'000'000'000;  // the device's clock runs 7 s ahead
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options({"--test-clock-offset", "7000000000"}), clock);
  ASSERT_TRUE(d) << d.error().message;
  const ClockOffset& o = (*d)->offset();
  // Both clocks are this machine's CLOCK_MONOTONIC: the true offset is the injected one.
  EXPECT_LE(std::llabs(o.offset_ns - injected), static_cast<long long>(o.uncertainty_ns));

  // Iterations come back on the host's clock, inside the call's span.
  IterationPlan plan;
  plan.warmup = 2;
  plan.iterations = 20;
  std::vector<std::uint64_t> starts, ends;
  const std::uint64_t before = clock.now_ns();
  Result<WorkloadWindow> w = (*d)->run_workload(small_gemm(), plan, [&](const IterationBatch& b) {
    starts.insert(starts.end(), b.start_ns.begin(), b.start_ns.end());
    ends.insert(ends.end(), b.end_ns.begin(), b.end_ns.end());
  }, {});
  const std::uint64_t after = clock.now_ns();
  ASSERT_TRUE(w) << w.error().message;
  ASSERT_EQ(starts.size(), 20u);
  EXPECT_EQ(w->iterations, 20);
  const std::uint64_t slack = o.uncertainty_ns;
  EXPECT_GE(starts.front() + slack, before);
  EXPECT_LE(ends.back(), after + slack);
  EXPECT_LE(w->measuring_ns, starts.front() + slack);
  for (std::size_t i = 0; i < starts.size(); ++i) EXPECT_LE(starts[i], ends[i]);
}

TEST(Agent, LoadsStartAndStopOnTheDeviceAndEveryLoadDiesWithTheAgent) {
  MonotonicClock clock;
  const std::string marker = "harness-agent-test-load-" + std::to_string(getpid());
  {
    Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options(), clock);
    ASSERT_TRUE(d) << d.error().message;
    Result<int> load = (*d)->start_load({"sh", "-c", "sleep 60; : " + marker});
    ASSERT_TRUE(load) << load.error().message;
    EXPECT_TRUE((*d)->check_load(*load));
    Result<LoadStopped> stopped = (*d)->stop_load(*load);
    ASSERT_TRUE(stopped) << stopped.error().message;
    EXPECT_THAT(stopped->end, HasSubstr("signal 15"));
    EXPECT_FALSE((*d)->check_load(*load));

    // A second load left running: the agent's end takes it along.
    ASSERT_TRUE((*d)->start_load({"sh", "-c", "sleep 60; : " + marker}));
    EXPECT_EQ(count_processes(marker), 1);
  }
  for (int i = 0; i < 100 && count_processes(marker) > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(count_processes(marker), 0);
}

TEST(Agent, OpsBackToBackNeverFindTheAgentBusy) {
  MonotonicClock clock;
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options(), clock);
  ASSERT_TRUE(d) << d.error().message;
  Result<int> load = (*d)->start_load({"sleep", "30"});
  ASSERT_TRUE(load) << load.error().message;
  // Each reply is followed at once by the next request.
  for (int i = 0; i < 300; ++i) {
    Status alive = (*d)->check_load(*load);
    ASSERT_TRUE(alive) << i << ": " << alive.error().message;
  }
  EXPECT_TRUE((*d)->stop_load(*load));
}

TEST(Agent, ASigtermedAgentStopsItsLoadsAndTheHostSaysTheLinkIsLost) {
  MonotonicClock clock;
  const std::string marker = "harness-agent-sigterm-" + std::to_string(getpid());
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options(), clock);
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_TRUE((*d)->start_load({"sh", "-c", "sleep 60; : " + marker}));
  ASSERT_EQ(count_processes(marker), 1);
  ASSERT_EQ(::kill((*d)->link_pid(), SIGTERM), 0);
  for (int i = 0; i < 100 && count_processes(marker) > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(count_processes(marker), 0);
  Result<int> again = (*d)->start_load({"true"});
  ASSERT_FALSE(again);
  EXPECT_THAT(again.error().message, HasSubstr("rig 'test-rig': connection lost (transport exit status 0"));
}

TEST(Agent, FilesComeBackWholeAndBounded) {
  MonotonicClock clock;
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options(), clock);
  ASSERT_TRUE(d) << d.error().message;
  const auto dir = std::filesystem::temp_directory_path() / ("harness-agent-file-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string big(2'500'000, '\0');  // three chunks
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 % 251);
  std::ofstream(dir / "dump.bin", std::ios::binary) << big;
  Result<std::string> got = (*d)->fetch_file((dir / "dump.bin").string(), 10'000'000);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, big);

  Result<std::string> over = (*d)->fetch_file((dir / "dump.bin").string(), 1000);
  ASSERT_FALSE(over);
  EXPECT_THAT(over.error().message, HasSubstr("2500000 bytes, over the limit of 1000 bytes"));
  EXPECT_EQ(over.error().code, ExitCode::bad_input);

  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  Result<std::string> fifo = (*d)->fetch_file((dir / "fifo").string(), 1000);
  ASSERT_FALSE(fifo);
  EXPECT_THAT(fifo.error().message, HasSubstr("not a regular file"));
  Result<std::string> missing = (*d)->fetch_file((dir / "nope").string(), 1000);
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("No such file or directory"));
  std::filesystem::remove_all(dir);
}

TEST(Agent, AnAgentThatNeverAnswersIsAFaultAfterTheTimeoutNotAHang) {
  MonotonicClock clock;
  RemoteOptions o = local_options();
  o.transport.agent = {"sleep", "30"};
  o.connect_timeout_s = 1;
  auto t0 = std::chrono::steady_clock::now();
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(o, clock);
  ASSERT_FALSE(d);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(d.error().message, "rig 'test-rig': the agent did not answer within 1 s ([rig] connect_timeout) during connect");
  EXPECT_EQ(d.error().code, ExitCode::infrastructure);
}

TEST(Agent, AMissingAgentSaysWhatTheTransportSaid) {
  MonotonicClock clock;
  RemoteOptions o = local_options();
  o.transport.agent = {"sh", "-c", "echo 'sh: 1: harness: not found' >&2; exit 127"};
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(o, clock);
  ASSERT_FALSE(d);
  EXPECT_THAT(d.error().message, HasSubstr("rig 'test-rig': connection lost (transport exit status 127: is harness "
                                           "installed on the device and in its PATH?; it said: sh: 1: harness: not found)"));
}

TEST(Agent, ALinkLostMidWindowSaysHowFarItGotAndKeepsTheIterations) {
  MonotonicClock clock;
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options(), clock);
  ASSERT_TRUE(d) << d.error().message;
  IterationPlan plan{.iterations = 1'000'000'000, .run_timeout_s = 60};
  std::atomic<std::size_t> seen{0};
  std::thread killer([&] {
    while (seen < 10) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::kill((*d)->link_pid(), SIGKILL);
  });
  Result<WorkloadWindow> w = (*d)->run_workload(small_gemm(), plan, [&](const IterationBatch& b) { seen += b.start_ns.size(); }, {});
  killer.join();
  ASSERT_FALSE(w);
  EXPECT_THAT(w.error().message, ::testing::MatchesRegex("rig 'test-rig': connection lost \\(transport killed by signal 9.*\\) during the "
                                                         "workload window \\(after [0-9]+ of 1000000000 iterations\\)"));
  EXPECT_GE(seen.load(), 10u);
}

TEST(Agent, AStopRequestCancelsTheWindow) {
  MonotonicClock clock;
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(local_options(), clock);
  ASSERT_TRUE(d) << d.error().message;
  const IterationPlan plan{.iterations = 1'000'000'000};
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.request_stop();
  });
  Result<WorkloadWindow> w = (*d)->run_workload(small_gemm(), plan, [](const IterationBatch&) {}, stop.get_token());
  stopper.join();
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message, "interrupted");
  EXPECT_TRUE((*d)->bye());  // the agent is still there and answers
}

// The stability readings taken by the agent on the device, here a fake
// /sys and /proc tree (--stability-root), the canary run for real.
TEST(Agent, StabilityReadingsComeBackFromTheDevice) {
  testing_support::FakeDeviceTree tree;
  const int cpu = allowed_cpus().front();
  const std::string cpufreq = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/";
  tree.put(cpufreq + "scaling_cur_freq", "2100000\n");
  tree.put(cpufreq + "scaling_governor", "performance\n");
  tree.put("/sys/class/thermal/thermal_zone0/type", "soc-thermal\n");
  tree.put("/sys/class/thermal/thermal_zone0/temp", "41500\n");
  tree.put("/proc/loadavg", "0.25 0.20 0.15 1/80 321\n");
  tree.put("/proc/stat", "cpu" + std::to_string(cpu) + " 100 0 0 900 0 0 0 0\n");
  MonotonicClock clock;
  Result<std::unique_ptr<RemoteDevice>> d =
      RemoteDevice::connect(local_options({"--stability-root", tree.root()}), clock);
  ASSERT_TRUE(d) << d.error().message;
  Result<std::vector<StabilityReading>> none = (*d)->end_stability();
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "rig 'test-rig': the stability readings: stability readings: none were begun");
  Status bad = (*d)->begin_stability({{5000}, false, 0});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "rig 'test-rig': the stability readings: agent protocol: no CPU 5000");

  ASSERT_TRUE((*d)->begin_stability({{cpu}, false, 0}));
  Result<std::vector<StabilityReading>> r = (*d)->end_stability();
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  const StabilityReading& after = r->back();
  EXPECT_EQ(r->front().at, "before");
  EXPECT_EQ(after.at, "after");
  ASSERT_EQ(after.cpus.size(), 1u);
  EXPECT_EQ(after.cpus[0].cur_hz.value, 2.1e9);
  EXPECT_EQ(after.cpus[0].governor.value, "performance");
  EXPECT_THAT(after.cpus[0].max_hz.unavailable, HasSubstr("cpuinfo_max_freq: No such file or directory"));
  EXPECT_EQ(after.thermal.value->at(0).celsius.value, 41.5);
  EXPECT_EQ(after.load.value->one, 0.25);
  ASSERT_TRUE(after.use) << after.use.unavailable;
  EXPECT_EQ(after.use.value->busy_s, 0);
  ASSERT_EQ(after.canary.size(), 1u);
  ASSERT_TRUE(after.canary[0].seconds) << after.canary[0].seconds.unavailable;
  EXPECT_GT(*after.canary[0].seconds.value, 0);
}

// The agent spoken to in raw lines: what a host that is not this one may send.
class RawAgent {
 public:
  RawAgent() {
    Result<std::unique_ptr<AgentLink>> link = AgentLink::start({HARNESS_BINARY, "agent"}, 1 << 23);
    EXPECT_TRUE(link) << link.error().message;
    if (link) link_ = std::move(*link);
  }
  void send(const std::string& line) { EXPECT_TRUE(link_->send(line)); }
  // The heartbeats received in `seconds`; the other lines go to `others`.
  int heartbeats(double seconds, std::vector<std::string>* others = nullptr) {
    int beats = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      std::string line;
      Result<AgentLink::Got> got = link_->receive(0.05, line);
      if (!got || *got == AgentLink::Got::closed) break;
      if (*got != AgentLink::Got::line) continue;
      if (line.find("\"heartbeat\"") != std::string::npos) ++beats;
      else if (others) others->push_back(line);
    }
    return beats;
  }
  AgentLink& link() { return *link_; }

 private:
  std::unique_ptr<AgentLink> link_;
};

TEST(Agent, TheHeartbeatPeriodAHostAsksForIsClamped) {
  for (const char* period : {"1e300", "1e-9"}) {
    RawAgent agent;
    agent.send(std::string("{\"id\":1,\"op\":\"hello\",\"protocol\":1,\"heartbeat_s\":") + period + "}");
    std::vector<std::string> replies;
    agent.heartbeats(0.5, &replies);  // the hello's reply, and the beats of the old period
    ASSERT_FALSE(replies.empty()) << period;
    EXPECT_THAT(replies.front(), HasSubstr("\"ok\":true")) << period;
    const int beats = agent.heartbeats(1);
    // 1e300 s: 60 s, at most the beat of the period before the hello (1 s)
    // in a second; 1e-9 s: 50 ms, about 20 (not a billion).
    const bool slow = std::string(period) == "1e300";
    EXPECT_THAT(beats, slow ? ::testing::AllOf(::testing::Ge(0), ::testing::Le(1))
                            : ::testing::AllOf(::testing::Ge(5), ::testing::Le(25)))
        << period;
  }
}

// A host that vanishes mid-op (its stdin closes): the agent cancels the op,
// stops its loads and exits by itself, not by a signal.
TEST(Agent, TheEndOfItsStdinEndsTheAgentItsOpAndItsLoads) {
  const std::string marker = "harness-agent-stdin-" + std::to_string(getpid());
  RawAgent agent;
  // One op at a time: each request after the previous one's reply.
  std::vector<std::string> replies;
  auto answered = [&](int id) {
    const std::string key = "\"id\":" + std::to_string(id) + ",";
    for (int i = 0; i < 100; ++i) {
      for (const std::string& r : replies)
        if (r.find(key) != std::string::npos) return true;
      agent.heartbeats(0.1, &replies);
    }
    return false;
  };
  agent.send("{\"id\":1,\"op\":\"hello\",\"protocol\":1}");
  ASSERT_TRUE(answered(1)) << ::testing::PrintToString(replies);
  agent.send("{\"id\":2,\"op\":\"load.start\",\"argv\":[\"sh\",\"-c\",\"sleep 60; : " + marker + "\"]}");
  ASSERT_TRUE(answered(2)) << ::testing::PrintToString(replies);
  ASSERT_EQ(count_processes(marker), 1) << ::testing::PrintToString(replies);
  nlohmann::json workload = {{"id", 3}, {"op", "workload"}, {"workload", protocol::to_wire(small_gemm())}};
  const IterationPlan plan{.iterations = 1'000'000'000};
  workload["plan"] = protocol::to_wire(plan);
  agent.send(workload.dump());
  agent.heartbeats(0.3);
  const auto t0 = std::chrono::steady_clock::now();
  ChildEnd end = agent.link().close(10);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(end.describe(), "exit status 0");
  EXPECT_EQ(count_processes(marker), 0);
}

}  // namespace
}  // namespace harness
