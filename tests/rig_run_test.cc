// A run on a rig, end to end through the harness executable: the device is
// reached through a transport (a local child agent, or a real OpenSSH server
// on loopback playing the board), the analyzer (libsigrok's demo driver) and
// the power meter run on this host, and all of them must cover the same
// workload window, which the recording proves.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/run_harness.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/ssh_device.h"
#include "tests/support/store_engine_test.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

class RigRun : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = (dir_ / "runs.sqlite").string();
  }

  // `rig_keys`: the transport lines of [rig]; `marker` names the run's load
  // so that a test can look for it on the device.
  std::string write_scenario(const std::string& rig_keys, const std::string& marker, int iterations,
                             const std::string& extra = "") {
    std::string path = (dir_ / "rig.toml").string();
    std::ofstream(path) << R"([scenario]
name = "rig-window"
[rig]
name = "loopback-board"
)" << rig_keys << R"(
[rig.versions]
kernel = ["uname", "-r"]
[workload]
builtin = "gemm"
m = 48
n = 48
k = 48
[counters]
groups = ["linux-host"]
iterations = 5
[ddr]
standard = "lpddr4"
[ddr.acquire]
driver = "demo"
samplerate = "100 kHz"
duration = "120 s"
pattern = "walking-one"
[latency]
iterations = )" << iterations << R"(
warmup = 3
min_duration = "300 ms"
load = ["none", ["sh", "-c", "sleep 600; : )" << marker << R"("]]
load_settle = "100 ms"
[latency.power]
source = "sigrok"
driver = "demo"
channels = ["A0"]
read_as = "power"      # the demo's channels measure volts: a labelled test override
interval = "20 ms"
)" << extra;
    return path;
  }

  CommandResult harness(const std::vector<std::string>& args, double timeout_s = 180) {
    return testing_support::run_harness(args, {.timeout_s = timeout_s, .max_output = 1 << 22});
  }

  // `scenario` run with its recording kept in a bundle: the run's result and
  // the bundle's recording.json (discarded when there is none).
  std::pair<CommandResult, json> recorded_run(const std::string& scenario) {
    const std::string bundle = (dir_ / "bundle").string();
    CommandResult r = harness({"--db", db_, "run", "--no-report", "--record", bundle, scenario});
    std::ifstream in(std::filesystem::path(bundle) / "recording.json");
    return {r, json::parse(in, nullptr, false)};
  }
  // The recording of a run that must not abort.
  json unaborted_recording(const std::string& scenario) {
    auto [r, rec] = recorded_run(scenario);
    EXPECT_NE(r.exit_code, 3) << r.out << r.err;
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("aborted"))) << r.out;
    return rec;
  }

  // The analyzer's capture and the power trace both cover the measured
  // iterations of the window, on the host's timeline.
  static void expect_one_window(const json& rec) {
    ASSERT_TRUE(rec.contains("rig")) << rec.dump(1);
    const json& w = rec["rig"]["window"];
    ASSERT_TRUE(w.is_object()) << rec["rig"].dump(1);
    EXPECT_EQ(w["level"], "latency");
    EXPECT_EQ(w["condition"], "none");
    const double first = w["iterations_start_s"], last = w["iterations_end_s"];
    EXPECT_LT(first, last);
    ASSERT_TRUE(w["capture_start_s"].is_number()) << w.dump(1) << rec["ddr"].dump(1);
    EXPECT_LE(w["capture_start_s"].get<double>(), first) << w.dump(1);
    EXPECT_GE(w["capture_end_s"].get<double>(), last) << w.dump(1);
    ASSERT_TRUE(w["power_start_s"].is_number()) << w.dump(1);
    EXPECT_LE(w["power_start_s"].get<double>(), first) << w.dump(1);
    EXPECT_GE(w["power_end_s"].get<double>(), last) << w.dump(1);
    // The iterations the latency level stored are the ones the window saw.
    const json& c = rec["latency"]["conditions"][0];
    const double origin = w["iterations_origin_s"];
    const std::vector<double> starts = c["start_s"];
    ASSERT_FALSE(starts.empty());
    EXPECT_NEAR(origin + starts.front(), first, 1e-6);
    EXPECT_EQ(rec["ddr"]["capture"], "ddr/capture.sr");
    ASSERT_EQ(rec["rig"]["syncs"].size(), 2u);
  }

  std::string db_;
};

TEST_F(RigRun, ALocalAgentRunsTheDeviceSideAndTheInstrumentsCoverItsWindow) {
  std::string scenario = write_scenario("transport = \"local\"", "harness-rig-local-" + std::to_string(getpid()), 60);
  auto [r, rec] = recorded_run(scenario);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_one_window(rec);
  EXPECT_EQ(rec["rig"]["transport"], "local");
  EXPECT_EQ(rec["context"]["rig.transport"], "local");
  EXPECT_TRUE(rec["context"].contains("version.kernel"));
  EXPECT_THAT(r.err, HasSubstr("rig 'loopback-board': connecting to the agent (local)"));
  // Level 2 read at the edges of the window's measured iterations: the
  // counters count what the analyzer and the power meter saw.
  const json& counters = rec["counters"];
  EXPECT_EQ(counters["window"], "latency") << counters.dump(1).substr(0, 2000);
  EXPECT_EQ(counters["window_condition"], "none");
  const std::size_t measured = rec["latency"]["conditions"][0]["latency_s"].size();
  EXPECT_EQ(counters["iterations"].get<std::size_t>(), measured);
  std::int64_t in_windows = 0;
  for (const json& n : counters["window_iterations"]) in_windows += n.get<std::int64_t>();
  EXPECT_EQ(in_windows, static_cast<std::int64_t>(measured));
  bool task_clock = false;
  for (const json& c : counters["readings"])
    if (c["name"] == "TASK_CLOCK") task_clock = c["after"].get<std::uint64_t>() > c["before"].get<std::uint64_t>();
  EXPECT_TRUE(task_clock) << counters["readings"].dump(1).substr(0, 2000);
  // No stability readings around a level 2 that ran inside level 4's.
  for (const json& series : rec["stability"]["series"]) EXPECT_NE(series["level"], "counters");
}

// [workload] cpus pins what the agent runs: a command that exits 0 only
// when it may run on CPU 0 alone passes every iteration pinned, and fails
// unpinned on a machine with more CPUs; a CPU the device lacks aborts the run.
TEST_F(RigRun, APinnedWorkloadRunsOnlyOnItsCpus) {
  auto scenario = [&](const std::string& cpus) {
    std::string path = (dir_ / "pinned.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"pinned\"\n[rig]\nname = \"loopback-board\"\ntransport = \"local\"\n"
                           "[workload]\ncommand = [\"grep\", \"-q\", \"^Cpus_allowed_list:[[:space:]]*0$\", "
                           "\"/proc/self/status\"]\n"
                        << cpus << "\n[latency]\niterations = 3\nwarmup = 0\n";
    return path;
  };
  CommandResult pinned = harness({"--db", db_, "run", "--no-report", scenario("cpus = [0]")});
  EXPECT_EQ(pinned.exit_code, 0) << pinned.out << pinned.err;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  if (CPU_COUNT(&mine) > 1 && CPU_ISSET(0, &mine)) {
    CommandResult free = harness({"--db", db_, "run", "--no-report", scenario("")});
    EXPECT_NE(free.exit_code, 0) << free.out << free.err;
  }
  CommandResult absent = harness({"--db", db_, "run", "--no-report", scenario("cpus = [1023]")});
  EXPECT_EQ(absent.exit_code, 3) << absent.out << absent.err;
  EXPECT_THAT(absent.out, HasSubstr("reason: rig 'loopback-board': the workload window: workload cpus [1023]: CPU "
                                    "1023 is not one this device lets the workload use (allowed: "));
  CommandResult runs = harness({"--db", db_, "runs"});
  EXPECT_THAT(runs.out, HasSubstr("aborted")) << runs.out;
}

// Level 2 against a same-run reference through the agent: the reply counts
// the rounds of both sides, which the host expects (the bundled host
// scenario's shape, small).
TEST_F(RigRun, PairedCounterWindowsThroughTheAgentAreWhatTheRequestAsked) {
  const std::string path = (dir_ / "paired.toml").string();
  std::ofstream(path) << "[scenario]\nname = \"paired\"\n[rig]\nname = \"loopback-board\"\ntransport = \"local\"\n"
                         "[workload]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\n"
                         "[reference]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\nrounds = 3\n"
                         "[counters]\ngroups = [\"linux-host\"]\niterations = 7\nwindows = 2\n";
  const json counters = unaborted_recording(path)["counters"];
  // 3 rounds of one window of each side, ceil(7 / 3) = 3 iterations each,
  // in level 2's own window (there is no level 4 to read them in).
  EXPECT_EQ(counters["window"], "counters");
  EXPECT_EQ(counters["windows"], 6) << counters.dump(1).substr(0, 2000);
  EXPECT_EQ(counters["iterations"], 18);
  EXPECT_EQ(counters["window_sides"].size(), 6u);
}

// Level 1's kernels against their references through the agent: the device
// times each with its reference once a round of [reference] rounds, the host
// expects as many, and the run is judged on the rounds' ratios.
// Level 2 in level 4's paired rounds through an agent reached by a command
// transport (a shell, as `adb shell` is): each block's request carries the
// plan's counters, the agent reads a session of its own at the block's
// edges, and the host pairs the blocks by round. An agent that does not
// offer "counters.window" (played by a filter on its hello) gets level 2's
// own request, and the recording says why.
TEST_F(RigRun, CountersInPairedBlocksThroughACommandTransport) {
  auto scenario = [&](const std::string& agent) {
    const std::string path = (dir_ / "paired-window.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"paired-window\"\n[rig]\nname = \"shell-board\"\n"
                           "transport = \"command\"\ncommand = [\"sh\", \"-c\", \"eval \\\"$*\\\"\", \"device-shell\"]\n"
                        << "agent = " << agent << "\n"
                        << "[workload]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\n"
                           "[reference]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\nrounds = 3\n"
                           "[counters]\ngroups = [\"linux-host\"]\niterations = 5\n"
                           "[latency]\niterations = 12\nwarmup = 2\n";
    return path;
  };
  const json rec = unaborted_recording(scenario(json::array({HARNESS_AGENT_BINARY}).dump()));
  const json& counters = rec["counters"];
  EXPECT_EQ(counters["window"], "latency") << counters.dump(1).substr(0, 2000);
  EXPECT_EQ(counters["iterations"], 24);
  ASSERT_EQ(counters["blocks"].size(), 6u) << counters.dump(1).substr(0, 2000);
  const json& blocks = rec["latency"]["conditions"][0]["blocks"];  // [round, reference?, first, count]
  ASSERT_EQ(blocks.size(), 6u) << rec["latency"]["conditions"][0].dump(1).substr(0, 1000);
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(counters["blocks"][k]["round"], blocks[k][0]);
    EXPECT_EQ(counters["blocks"][k]["side"], blocks[k][1] == 1 ? "reference" : "candidate");
    EXPECT_EQ(counters["blocks"][k]["iterations"], 4);
    json task_clock;
    for (const json& c : counters["blocks"][k]["readings"])
      if (c["name"] == "TASK_CLOCK") task_clock = c;
    ASSERT_TRUE(task_clock.is_object()) << counters["blocks"][k].dump(1).substr(0, 2000);
    if (task_clock["before"].is_null()) GTEST_SKIP() << "perf_event_open: " << task_clock["unavailable"];
    EXPECT_GT(task_clock["after"].get<std::uint64_t>(), task_clock["before"].get<std::uint64_t>());
  }

  // An older agent: level 2 alone, its windows alternating the sides.
  std::filesystem::remove_all(dir_ / "bundle");
  const std::string older = std::string(HARNESS_AGENT_BINARY) + " | sed -u 's/\"counters.window\",//'";
  const json fallback = unaborted_recording(scenario(json::array({"sh", "-c", older}).dump()))["counters"];
  EXPECT_EQ(fallback["window"], "none") << fallback.dump(1).substr(0, 2000);
  EXPECT_EQ(fallback["window_reason"],
            "the device's agent does not offer counters.window (older than it): level 2's own iterations, in a "
            "request of their own");
  EXPECT_FALSE(fallback.contains("blocks"));
  EXPECT_EQ(fallback["window_sides"].size(), 6u);
}

TEST_F(RigRun, PairedKernelsThroughTheAgentAreTimedInTheReferencesRounds) {
  const std::string path = (dir_ / "paired-kernels.toml").string();
  std::ofstream(path) << "[scenario]\nname = \"paired-kernels\"\n[rig]\nname = \"loopback-board\"\n"
                         "transport = \"local\"\n"
                         "[workload]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\n"
                         "[reference]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\nrounds = 6\n"
                         "[roofline]\nrepetitions = 2\nhost_benchmarks = false\n"
                         "[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 32\nn = 32\nk = 32\n"
                         "reference = \"same\"\n"
                         "[[roofline.kernels]]\nname = \"sm\"\nbuiltin = \"softmax\"\nrows = 4\ncols = 8\n";
  const json roofline = unaborted_recording(path)["roofline"];
  ASSERT_EQ(roofline["kernels"].size(), 2u) << roofline.dump(1);
  EXPECT_EQ(roofline["kernels"][0]["seconds"].size(), 6u);
  EXPECT_EQ(roofline["kernels"][0]["reference_seconds"].size(), 6u);
  EXPECT_EQ(roofline["kernels"][1]["seconds"].size(), 2u);
  EXPECT_FALSE(roofline["kernels"][1].contains("reference_seconds"));
  EXPECT_THAT(roofline["pairing"].get<std::string>(), ::testing::StartsWith("random order, seed "));
  CommandResult shown = harness({"--db", db_, "show", "1"});
  // The run's own verdict against its reference, beside the other levels'.
  EXPECT_THAT(shown.out, HasSubstr("reference.g.achieved within ±5 % of the reference")) << shown.out;
  EXPECT_THAT(shown.out, HasSubstr("vs_reference.g.achieved")) << shown.out;
}

// An agent that lies or hangs (tests/tools/fake_agent.py) behind the local
// transport: the run ends aborted, exit 3, saying what the agent said, and
// leaves nothing of it running; what its hello said is in the run's context.
class RigRunWithAFakeAgent : public RigRun {
 protected:
  std::string scenario(const std::string& mode) {
    std::string path = (dir_ / "fake.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"fake-agent\"\n[rig]\nname = \"fake-board\"\ntransport = \"local\"\n"
                           "agent = [\"python3\", \"" HARNESS_SOURCE_DIR "/tests/tools/fake_agent.py\", \""
                        << mode << "\"]\nconnect_timeout = \"30 s\"\n[workload]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
                                   "[latency]\niterations = 3\nwarmup = 0\ntimeout = \"600 s\"\n";
    return path;
  }
  json stored_run() {
    CommandResult shown = harness({"--json", "--db", db_, "show", "1"});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    return shown.exit_code == 0 ? json::parse(shown.out) : json::object();
  }
  // A run with the agent in `mode`, which must abort (exit 3): the run as stored.
  json aborted_run(const std::string& mode) {
    CommandResult r = harness({"--db", db_, "run", "--no-report", scenario(mode)});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    json stored = stored_run();
    EXPECT_EQ(stored["status"], "aborted");
    return stored;
  }
  std::string pid_file() const { return (dir_ / "agent.pid").string(); }
  bool agent_gone() {
    pid_t pid = 0;
    if (!(std::ifstream(pid_file()) >> pid) || pid <= 0) return false;
    for (int i = 0; i < 100; ++i) {
      if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  void SetUp() override {
    RigRun::SetUp();
    ::setenv("FAKE_AGENT_PID_FILE", pid_file().c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("FAKE_AGENT_PID_FILE");
    RigRun::TearDown();
  }
};

TEST_F(RigRunWithAFakeAgent, SigtermWhileTheAgentHangsAbortsTheRunWithinTwoSeconds) {
  for (int sig : {SIGTERM, SIGINT}) {
    std::filesystem::remove(db_);
    std::filesystem::remove(pid_file());
    Result<std::unique_ptr<ChildProcess>> run =
        ChildProcess::start({HARNESS_BINARY, "--db", db_, "run", "--no-report", scenario("hang-workload")});
    ASSERT_TRUE(run) << run.error().message;
    for (int i = 0; i < 200 && !std::filesystem::exists(pid_file()); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // connected, synced, waiting for the workload
    const auto signalled = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill((*run)->pid(), sig), 0);
    std::optional<ChildEnd> end = (*run)->wait_for(30);
    ASSERT_TRUE(end) << (*run)->output_tail();
    EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(2)) << (*run)->output_tail();
    EXPECT_EQ(end->exit_code, 3) << (*run)->output_tail();
    json stored = stored_run();
    EXPECT_EQ(stored["status"], "aborted");
    EXPECT_EQ(stored["reason"], sig == SIGTERM ? "interrupted by SIGTERM" : "interrupted by SIGINT");
    EXPECT_TRUE(agent_gone());
  }
}

TEST_F(RigRunWithAFakeAgent, AnotherProtocolAbortsTheRunAndIsRecorded) {
  json stored = aborted_run("protocol-99");
  EXPECT_THAT(stored["reason"].get<std::string>(),
              HasSubstr("rig 'fake-board': the agent speaks protocol 99 (harness 0.0.0-evil) and this host protocol 1"));
  EXPECT_EQ(stored["context"]["rig.agent_protocol"], "99");
  EXPECT_EQ(stored["context"]["rig.agent_version"], "0.0.0-evil");
  EXPECT_TRUE(agent_gone());
}

TEST_F(RigRunWithAFakeAgent, AMalformedHelloIsExitThree) {
  CommandResult r = harness({"--db", db_, "run", "--no-report", scenario("malformed-hello")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("rig 'fake-board': agent protocol: malformed hello: "));
  EXPECT_TRUE(agent_gone());
}

TEST_F(RigRunWithAFakeAgent, MoreIterationsThanPlannedAbortTheRun) {
  EXPECT_THAT(aborted_run("flood")["reason"].get<std::string>(),
              HasSubstr("rig 'fake-board': agent protocol: an iterations event of 103 iterations, more than the 3 "
                        "the plan leaves during the workload window"));
}

class RigOverSsh : public RigRun {
 protected:
  void SetUp() override {
    RigRun::SetUp();
    if (!device_.available()) GTEST_SKIP() << device_.unavailable_reason();
  }
  std::string ssh_keys() const {
    std::string options;
    for (const std::string& o : device_.ssh_options()) options += (options.empty() ? "" : ", ") + json(o).dump();
    return "transport = \"ssh\"\nhost = \"127.0.0.1\"\n" + fmt_port() + "user = " + json(device_.user()).dump() +
           "\nidentity = " + json(device_.identity().string()).dump() + "\nssh_options = [" + options +
           "]\nagent = [" + json(std::string(HARNESS_BINARY)).dump() + ", \"agent\", \"--test-clock-offset\", \"" +
           agent_mark() + "\"]\nheartbeat_timeout = \"5 s\"\n";
  }
  // Tells this test's agents from those of tests running beside it: an
  // offset of a few microseconds, mapped back like any other.
  static std::string agent_mark() { return std::to_string(getpid()); }
  std::string fmt_port() const { return "port = " + std::to_string(device_.port()) + "\n"; }
  // "[h]arness-...": a pattern that does not match the remote shell running pgrep.
  int device_processes(const std::string& marker) {
    Result<CommandResult> r = device_.run({"pgrep", "-f", "-c", "[" + marker.substr(0, 1) + "]" + marker.substr(1)});
    return r ? std::atoi(r->out.c_str()) : -1;
  }
  test_support::SshDevice device_;
};

TEST_F(RigOverSsh, LevelsTwoAndFourRunOnTheBoardInsideTheAnalyzersAndMetersWindow) {
  const std::string marker = "harness-rig-ssh-" + std::to_string(getpid());
  std::string scenario = write_scenario(ssh_keys(), marker, 60);
  CommandResult check = harness({"rig", "check", scenario}, 60);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("rig 'loopback-board' via ssh:"));
  EXPECT_THAT(check.out, HasSubstr("agent: harness " HARNESS_VERSION " (protocol 1)"));
  EXPECT_THAT(check.out, HasSubstr("clock: device = host"));

  auto [r, rec] = recorded_run(scenario);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_one_window(rec);
  EXPECT_THAT(rec["rig"]["transport"].get<std::string>(), HasSubstr("ssh:"));
  EXPECT_GT(rec["counters"]["readings"].size(), 0u);
  EXPECT_EQ(device_processes(marker), 0);
}

// On each store engine: a rig over SSH writing to a lab's PostgreSQL server
// loses its link as often as one writing to its own SQLite file.
using RigOverSshOnEachEngine = testing_support::OnEachEngine<RigOverSsh>;

TEST_P(RigOverSshOnEachEngine, AConnectionKilledMidRunAbortsTheRunAndLeavesNothingOnTheBoard) {
  const std::string marker = "harness-rig-kill-" + std::to_string(getpid());
  // Many iterations under the load condition: the run is inside it when the link dies.
  std::string scenario = write_scenario(ssh_keys(), marker, 1'000'000, "");
  // The load condition comes second; put the window's iterations count high
  // so that the run is still measuring when the connection is killed.
  std::string text;
  {
    std::ifstream in(scenario);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const std::string both = "load = [\"none\", ";
  text.replace(text.find(both), both.size(), "load = [");
  const std::string min_duration = "min_duration = \"300 ms\"";
  text.replace(text.find(min_duration), min_duration.size(), "timeout = \"600 s\"");
  std::ofstream(scenario) << text;

  std::vector<std::string> args = {HARNESS_BINARY, "--db", db_, "run", "--no-report", scenario};
  Result<std::unique_ptr<ChildProcess>> run = ChildProcess::start(args);
  ASSERT_TRUE(run) << run.error().message;
  // Wait for the load to be running on the board, then kill the ssh client of the run.
  bool loaded = false;
  for (int i = 0; i < 200 && !loaded; ++i) {
    loaded = device_processes(marker) > 0;
    if (!loaded) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(loaded) << (*run)->output_tail();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  Result<CommandResult> killed = run_command({"pkill", "-KILL", "-f", "--", "-T -o BatchMode=yes -p " + std::to_string(device_.port())});
  ASSERT_TRUE(killed);
  ASSERT_EQ(killed->exit_code, 0) << "no ssh client of the run was found";
  std::optional<ChildEnd> end = (*run)->wait_for(60);
  ASSERT_TRUE(end) << (*run)->output_tail();
  EXPECT_EQ(end->exit_code, 3) << (*run)->output_tail();

  CommandResult shown = harness({"--json", "--db", db_, "show", "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  json stored = json::parse(shown.out);
  EXPECT_EQ(stored["status"], "aborted");
  EXPECT_THAT(stored["reason"].get<std::string>(),
              ::testing::MatchesRegex("rig 'loopback-board': connection lost .* during the workload window \\(after [0-9]+ "
                                      "of 1000000 iterations\\)"));
  // The agent saw its stdin end and stopped the load and the workload.
  int left = -1;
  for (int i = 0; i < 100 && left != 0; ++i) {
    left = device_processes(marker);
    if (left != 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(left, 0);
  EXPECT_EQ(device_processes("agent --test-clock-offset " + agent_mark()), 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, RigOverSshOnEachEngine, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
