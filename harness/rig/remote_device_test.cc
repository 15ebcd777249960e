// The host against an agent that lies or hangs (tests/tools/fake_agent.py,
// a child process behind the local transport like the real agent): every
// wait ends at a deadline the plan gives, which heartbeats do not stretch; a
// stop ends it within 2 s; answers that break the plan are refused before
// they are kept; and nothing of the agent is left running.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/rig/remote_device.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

// Requests `stop` 300 ms from now (as SIGINT would), saying when in `at`.
std::thread stop_soon(std::stop_source& stop, Steady::time_point& at) {
  return std::thread([&stop, &at] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    at = Steady::now();
    stop.request_stop();
  });
}

class LyingAgent : public ::testing::Test {
 protected:
  void SetUp() override {
    pid_file_ = std::filesystem::temp_directory_path() /
                ("harness-fake-agent-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove(pid_file_);
    ::setenv("FAKE_AGENT_PID_FILE", pid_file_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FAKE_AGENT_PID_FILE");
    std::filesystem::remove(pid_file_);
  }

  static RemoteOptions options(const std::string& mode) {
    RemoteOptions o;
    o.rig = "test-rig";
    o.transport.kind = "local";
    o.transport.agent = {"python3", HARNESS_SOURCE_DIR "/tests/tools/fake_agent.py", mode};
    o.heartbeat_timeout_s = 2;
    o.connect_timeout_s = 10;
    o.sync_probes = 4;
    return o;
  }
  static Workload gemm() {
    Workload w;
    w.kind = Workload::Kind::builtin;
    w.name = "gemm";
    w.builtin.kind = "gemm";
    return w;
  }
  static IterationPlan plan(std::int64_t iterations) {
    IterationPlan p;
    p.iterations = iterations;
    p.run_timeout_s = 1;
    p.iteration_timeout_s = 0.5;
    return p;
  }
  // The fake's process has ended (and was reaped: no zombie either).
  bool agent_gone() {
    std::ifstream in(pid_file_);
    pid_t pid = 0;
    if (!(in >> pid) || pid <= 0) return false;
    for (int i = 0; i < 100; ++i) {
      if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // Connects to a fake that answers the hello; the test fails otherwise.
  std::unique_ptr<RemoteDevice> connected(const std::string& mode) {
    Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(options(mode), clock_);
    EXPECT_TRUE(d) << d.error().message;
    return d ? std::move(*d) : nullptr;
  }
  // The workload window of `plan` on the fake; the iterations it kept.
  Result<WorkloadWindow> window(RemoteDevice& d, const IterationPlan& p, std::size_t& kept,
                                std::stop_token stop = {}) {
    return d.run_workload(gemm(), p, [&](const IterationBatch& b) { kept += b.start_ns.size(); }, stop);
  }

  MonotonicClock clock_;
  std::filesystem::path pid_file_;
};

TEST_F(LyingAgent, HeartbeatsDoNotStretchTheConnectTimeout) {
  RemoteOptions o = options("silent-hello");
  o.connect_timeout_s = 1;
  const Steady::time_point t0 = Steady::now();
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(o, clock_);
  ASSERT_FALSE(d);
  EXPECT_LT(seconds_since(t0), 4);
  EXPECT_EQ(d.error().message, "rig 'test-rig': the agent did not answer within 1 s ([rig] connect_timeout) during "
                               "connect");
  EXPECT_EQ(d.error().code, ExitCode::infrastructure);
  EXPECT_TRUE(agent_gone());
}

TEST_F(LyingAgent, HeartbeatsDoNotStretchTheWorkloadsDeadline) {
  std::unique_ptr<RemoteDevice> d = connected("hang-workload");
  ASSERT_TRUE(d);
  std::size_t kept = 0;
  const Steady::time_point t0 = Steady::now();
  Result<WorkloadWindow> w = window(*d, plan(3), kept);
  ASSERT_FALSE(w);
  EXPECT_GE(seconds_since(t0), 3.5);
  EXPECT_LT(seconds_since(t0), 8);
  EXPECT_EQ(w.error().message,
            "rig 'test-rig': the agent did not answer within 3.5 s (the plan: 0 warm-up iterations and one more of "
            "at most 0.5 s each, a window of at most 1 s, and 2 s for the link) during the workload window (after 0 "
            "of 3 iterations)");
  EXPECT_EQ(w.error().code, ExitCode::infrastructure);
  EXPECT_TRUE(agent_gone());
}

TEST_F(LyingAgent, AStopEndsTheWaitForTheHelloWithinTwoSeconds) {
  RemoteOptions o = options("silent-hello");
  o.connect_timeout_s = 60;
  std::stop_source stop;
  Steady::time_point stopped_at;
  std::thread stopper = stop_soon(stop, stopped_at);
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(o, clock_, stop.get_token());
  stopper.join();
  ASSERT_FALSE(d);
  EXPECT_LT(seconds_since(stopped_at), 2);
  EXPECT_EQ(d.error().message, "interrupted");
  EXPECT_TRUE(agent_gone());
}

TEST_F(LyingAgent, AStopEndsAWorkloadTheAgentNeverAnswersWithinTwoSeconds) {
  std::unique_ptr<RemoteDevice> d = connected("hang-workload");
  ASSERT_TRUE(d);
  IterationPlan p = plan(3);
  p.run_timeout_s = 600;
  std::stop_source stop;
  Steady::time_point stopped_at;
  std::thread stopper = stop_soon(stop, stopped_at);
  std::size_t kept = 0;
  Result<WorkloadWindow> w = window(*d, p, kept, stop.get_token());
  stopper.join();
  ASSERT_FALSE(w);
  EXPECT_LT(seconds_since(stopped_at), 2);
  EXPECT_EQ(w.error().message, "interrupted");
  EXPECT_TRUE(agent_gone());
}

// Each lie about the window, with what the run then says: refused before any
// of its iterations is kept (the flood before one is allocated), exit 3, the
// agent ended.
TEST_F(LyingAgent, AnswersThatBreakThePlanAreRefusedBeforeTheyAreKept) {
  const struct {
    const char* mode;
    std::string said;  // a regular expression: the fault's message, after "rig 'test-rig': "
    std::size_t kept;
  } lies[] = {
      {"flood", "agent protocol: an iterations event of 400 iterations, more than the 300 the plan leaves", 0},
      {"negative-gap", "agent protocol: an iteration before the device's clock began \\(a gap of -1000000000000000000 ns\\)", 0},
      {"future", "the agent sent an iteration's start at 3600 s from the request, outside the [0-9.e-]+ s it has run", 0},
      {"lie-count", "the agent's reply counts 20000000 iterations, it sent 300", 300},
  };
  for (const auto& lie : lies) {
    std::unique_ptr<RemoteDevice> d = connected(lie.mode);
    ASSERT_TRUE(d) << lie.mode;
    std::size_t kept = 0;
    Result<WorkloadWindow> w = window(*d, plan(300), kept);
    ASSERT_FALSE(w) << lie.mode;
    EXPECT_THAT(w.error().message,
                ::testing::MatchesRegex("rig 'test-rig': " + lie.said + " during the workload window \\(after " +
                                        std::to_string(lie.kept) + " of 300 iterations\\)"));
    EXPECT_EQ(w.error().code, ExitCode::infrastructure) << lie.mode;
    EXPECT_EQ(kept, lie.kept) << lie.mode;
    EXPECT_TRUE(agent_gone()) << lie.mode;
  }
}

TEST_F(LyingAgent, AnotherProtocolIsRefusedNamingBothAndHowToUpdate) {
  DeviceInfo said;
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(options("protocol-99"), clock_, {}, &said);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message, "rig 'test-rig': the agent speaks protocol 99 (harness 0.0.0-evil) and this host "
                               "protocol 1 (harness " HARNESS_VERSION "): install harness " HARNESS_VERSION
                               "'s agent on the device (harness rig install SCENARIO; or name its agent in "
                               "[rig] agent) and run again");
  EXPECT_EQ(d.error().code, ExitCode::infrastructure);
  EXPECT_EQ(said.protocol, 99);
  EXPECT_EQ(said.harness_version, "0.0.0-evil");
  EXPECT_TRUE(agent_gone());
}

TEST_F(LyingAgent, AMalformedHelloIsTheAgentsFaultNotTheUsers) {
  Result<std::unique_ptr<RemoteDevice>> d = RemoteDevice::connect(options("malformed-hello"), clock_);
  ASSERT_FALSE(d);
  EXPECT_THAT(d.error().message, ::testing::StartsWith("rig 'test-rig': agent protocol: malformed hello: "));
  EXPECT_THAT(d.error().message, ::testing::EndsWith(" during connect"));
  EXPECT_EQ(d.error().code, ExitCode::infrastructure);
  EXPECT_TRUE(agent_gone());
}

}  // namespace
}  // namespace harness
