#include "probes/workload/workload_runner.h"

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

const std::string kTools = HARNESS_SOURCE_DIR "/tests/tools/";

Workload command(std::vector<std::string> argv) {
  Workload w;
  w.kind = Workload::Kind::command;
  w.command = std::move(argv);
  w.timeout_s = 5;
  return w;
}

Workload stream(const std::string& format, int count, const std::string& after) {
  Workload w = command({kTools + "latency_stream.sh", format, std::to_string(count), after});
  if (format == "json") {
    w.report.json_field = "latency_ms";
  } else {
    w.report.pattern = "took ([0-9.]+) ms";
  }
  w.report.unit_s = 1e-3;
  return w;
}

// How `w` fails: started, `good` iterations that succeed, then the one that
// does not within `timeout_s`: its error (a failed test when it succeeds).
Error failure_after(const Workload& w, int good, double timeout_s) {
  MonotonicClock clock;
  auto runner = make_workload_runner(w, clock);
  EXPECT_TRUE(runner) << runner.error().message;
  if (!runner) return runner.error();
  EXPECT_TRUE((*runner)->start());
  for (int i = 0; i < good; ++i) EXPECT_TRUE((*runner)->next(5));
  Result<IterationSample> end = (*runner)->next(timeout_s);
  EXPECT_FALSE(end);
  return end ? Error::infra("no failure") : end.error();
}

TEST(WorkloadRunner, StreamedJsonLinesGiveTheReportedLatencies) {
  MonotonicClock clock;
  auto runner = make_workload_runner(stream("json", 50, "exit"), clock);
  ASSERT_TRUE(runner) << runner.error().message;
  ASSERT_TRUE((*runner)->start());
  for (int i = 1; i <= 50; ++i) {
    Result<IterationSample> s = (*runner)->next(5);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_DOUBLE_EQ(s->latency_s, i * 1e-3);
  }
  Result<IterationSample> end = (*runner)->next(5);
  ASSERT_FALSE(end);
  // The last output is cut to its last 400 bytes.
  EXPECT_THAT(end.error().message,
              testing::StartsWith("workload " + kTools +
                                  "latency_stream.sh ended after reporting 50 iterations (exit status 0); last "
                                  "output: 39}\n{\"iteration\": 40, "));
  EXPECT_THAT(end.error().message, testing::EndsWith("{\"iteration\": 50, \"latency_ms\": 50}"));
}

TEST(WorkloadRunner, StreamedTextLinesAreReadWithThePattern) {
  MonotonicClock clock;
  auto runner = make_workload_runner(stream("text", 3, "exit"), clock);
  ASSERT_TRUE(runner);
  ASSERT_TRUE((*runner)->start());
  std::vector<double> got;
  for (int i = 0; i < 3; ++i) got.push_back((*runner)->next(5)->latency_s);
  EXPECT_THAT(got, testing::ElementsAre(1e-3, 2e-3, 3e-3));  // "loading model" is not a report
}

TEST(WorkloadRunner, AStreamThatCrashesEndsWithItsSignalAndLastOutput) {
  Error end = failure_after(stream("json", 2, "crash"), 2, 5);
  EXPECT_EQ(end.message,
            "workload " + kTools +
                "latency_stream.sh ended after reporting 2 iterations (killed by signal 11 (Segmentation fault)); "
                "last output: loading model\n{\"iteration\": 1, \"latency_ms\": 1}\n{\"iteration\": 2, \"latency_ms\": "
                "2}\nfatal: device lost");
  EXPECT_EQ(end.code, ExitCode::infrastructure);
}

TEST(WorkloadRunner, AStreamThatHangsIsStoppedAtThePerIterationTimeout) {
  EXPECT_EQ(failure_after(stream("json", 1, "hang"), 1, 0.3).message,
            "workload " + kTools +
                "latency_stream.sh reported no iteration within the per-iteration timeout of 0.3 s and was stopped "
                "(killed by signal 15 (Terminated)); last output: loading model\n{\"iteration\": 1, \"latency_ms\": 1}");
}

TEST(WorkloadRunner, AStopRequestEndsTheWaitForAStreamedIteration) {
  MonotonicClock clock;
  auto runner = make_workload_runner(stream("json", 1, "hang"), clock);
  std::stop_source stop;
  (*runner)->set_stop_token(stop.get_token());
  ASSERT_TRUE((*runner)->start());
  ASSERT_TRUE((*runner)->next(5));
  std::thread interrupt([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.request_stop();
  });
  Result<IterationSample> s = (*runner)->next(60);
  interrupt.join();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "interrupted");
}

TEST(WorkloadRunner, AReportWhoseNumberDoesNotParseEndsTheRun) {
  Workload w = stream("text", 1, "exit");
  w.report.pattern = "^(\\w+) 1 took";
  EXPECT_EQ(failure_after(w, 0, 5).message,
            "workload " + kTools +
                "latency_stream.sh: cannot read a latency from the line \"iteration 1 took 1 ms\" (pattern ^(\\w+) 1 took)");
}

TEST(WorkloadRunner, ACommandRunPerIterationIsTimedByTheHarness) {
  MonotonicClock clock;
  auto runner = make_workload_runner(command({"sleep", "0.02"}), clock);
  ASSERT_TRUE(runner);
  EXPECT_EQ((*runner)->source(), "command:sleep");
  Result<IterationSample> s = (*runner)->next(5);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_GE(s->latency_s, 0.02);  // a lower bound only: the host is shared
}

TEST(WorkloadRunner, ACrashingCommandNamesItsSignalAndLastOutput) {
  EXPECT_EQ(failure_after(command({kTools + "crash_workload.sh"}), 0, 5).message,
            "workload " + kTools +
                "crash_workload.sh killed by signal 11 (Segmentation fault); last output: loading model\nfatal: device lost");
}

TEST(WorkloadRunner, AHangingCommandIsKilledAtThePerIterationTimeout) {
  EXPECT_EQ(failure_after(command({"sleep", "10"}), 0, 0.3).message,
            "workload sleep did not finish within the per-iteration timeout of 0.3 s and was killed; last output: (none)");
}

TEST(WorkloadRunner, AMissingProgramIsAnErrorNamingIt) {
  MonotonicClock clock;
  auto runner = make_workload_runner(command({"no-such-inference-tool"}), clock);
  ASSERT_FALSE(runner);
  EXPECT_EQ(runner.error().message, "workload: command 'no-such-inference-tool': not found in PATH");
  EXPECT_EQ(check_workload_command(command({"no-such-inference-tool"})).error().message,
            "workload: command 'no-such-inference-tool': not found in PATH");
}

TEST(WorkloadRunner, BuiltinKernelsAreTimedOnTheGivenClock) {
  FakeClock clock(1000);  // every reading advances 1 us
  Workload w;
  w.builtin.kind = "vector_add";
  w.builtin.elements = 16;
  auto runner = make_workload_runner(w, clock);
  ASSERT_TRUE(runner);
  Result<IterationSample> s = (*runner)->next(1);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->latency_s, 1e-6);
  EXPECT_EQ(s->end_ns, 2000u);
}

}  // namespace
}  // namespace harness
