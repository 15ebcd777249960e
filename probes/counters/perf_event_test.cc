#include "probes/counters/perf_event.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "probes/process.h"

namespace harness {
namespace {

CounterSpec perf_counter(std::string name, std::string event) {
  CounterSpec c;
  c.name = std::move(name);
  c.source = "perf";
  c.event = std::move(event);
  return c;
}

CounterSourceSpec perf_source() {
  CounterSourceSpec s;
  s.name = "perf";
  s.kind = "perf_event";
  return s;
}

TEST(PerfEventNames, GenericHardwareCacheAndRawEvents) {
  auto code = [](const char* name) { return *parse_perf_event_name(name); };
  EXPECT_EQ(code("cycles").type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(code("stalled-cycles-backend").config, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
  EXPECT_EQ(code("task-clock").type, PERF_TYPE_SOFTWARE);
  EXPECT_EQ(code("task-clock").config, PERF_COUNT_SW_TASK_CLOCK);
  EXPECT_EQ(code("LLC-load-misses").type, PERF_TYPE_HW_CACHE);
  EXPECT_EQ(code("LLC-load-misses").config, PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                                (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
  EXPECT_EQ(code("L1-dcache-stores").config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_WRITE << 8));
  EXPECT_EQ(code("dTLB-prefetch-misses").config, PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_PREFETCH << 8) |
                                                     (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
  EXPECT_EQ(code("4/0x3c").type, 4u);
  EXPECT_EQ(code("4/0x3c").config, 0x3cu);
  EXPECT_EQ(code("1/1").config, 1u);
  EXPECT_EQ(code("r01c2").type, PERF_TYPE_RAW);
  EXPECT_EQ(code("r01c2").config, 0x1c2u);
  EXPECT_EQ(code("msr/tsc/").pmu, "msr");
  EXPECT_EQ(code("msr/tsc").pmu_event, "tsc");
}

TEST(PerfEventNames, UnknownNamesSuggestTheClosest) {
  EXPECT_EQ(parse_perf_event_name("LLC-load-mises").error().message,
            "unknown perf event 'LLC-load-mises'; did you mean 'LLC-load-misses'?");
  EXPECT_EQ(parse_perf_event_name("4/0xzz").error().message, "perf event '4/0xzz': config '0xzz' is not a number");
  EXPECT_EQ(parse_perf_event_name("/12").error().message,
            "perf event '/12': expected <type>/<config> or <pmu>/<event>");
  EXPECT_EQ(parse_perf_event_name("bogus").error().message, "unknown perf event 'bogus'");
}

class FakePmuTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("harness-pmu-" + std::to_string(getpid()));
    std::filesystem::create_directories(root_ / "npu_pmu/events");
    std::filesystem::create_directories(root_ / "npu_pmu/format");
    write("npu_pmu/type", "42\n");
    write("npu_pmu/events/mem_stall", "event=0x3c,umask=0x01\n");
    write("npu_pmu/events/odd", "event=0x1,cmask=2\n");
    write("npu_pmu/format/event", "config:0-7\n");
    write("npu_pmu/format/umask", "config:8-15\n");
    write("npu_pmu/format/cmask", "config1:0-7\n");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(root_ / rel) << text; }
  std::filesystem::path root_;
};

TEST_F(FakePmuTree, ResolvesSysfsPmuEventsThroughTheirFormat) {
  Result<PerfEventCode> code = resolve_pmu_event(*parse_perf_event_name("npu_pmu/mem_stall"), root_.string());
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_EQ(code->type, 42u);
  EXPECT_EQ(code->config, 0x013cu);
  EXPECT_EQ(resolve_pmu_event(*parse_perf_event_name("npu_pmu/0x99"), root_.string())->config, 0x99u);
  EXPECT_EQ(resolve_pmu_event(*parse_perf_event_name("npu_pmu/odd"), root_.string()).error().message,
            "PMU event npu_pmu/odd: term 'cmask' is placed in 'config1:0-7'; only config is supported");
  EXPECT_EQ(resolve_pmu_event(*parse_perf_event_name("gpu/x"), root_.string()).error().message,
            "no PMU 'gpu': cannot read " + root_.string() + "/gpu/type: No such file or directory");
}

// False where the system call itself is missing: qemu-user (the agent's
// tests for a board's architecture) does not implement perf_event_open.
// Opens one user-space event of this thread and closes it again: 0, or the
// errno of the refusal.
int try_perf_event(std::uint32_t type, std::uint64_t config) {
  perf_event_attr probe;
  std::memset(&probe, 0, sizeof probe);
  probe.size = sizeof probe;
  probe.type = type;
  probe.config = config;
  probe.exclude_kernel = 1;
  probe.exclude_hv = 1;
  long fd = syscall(SYS_perf_event_open, &probe, 0, -1, -1, 0);
  if (fd < 0) return errno;
  close(static_cast<int>(fd));
  return 0;
}

bool perf_event_open_exists() { return try_perf_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) != ENOSYS; }

// The real kernel, real events: software events count on any Linux host.
TEST(PerfEventSource, SoftwareEventsCountTheWorkForReal) {
  if (!perf_event_open_exists()) GTEST_SKIP() << "perf_event_open is not implemented here (qemu-user)";
  std::vector<CounterSpec> counters = {perf_counter("TASK_CLOCK", "task-clock"),
                                       perf_counter("PAGE_FAULTS", "page-faults"),
                                       perf_counter("CONTEXT_SWITCHES", "context-switches"),
                                       perf_counter("CPU_CLOCK", "cpu-clock")};
  auto source = make_perf_event_source(perf_source(), counters, {});
  ASSERT_TRUE(source);
  std::vector<CounterSample> before = (*source)->read();
  ASSERT_EQ(before.size(), 4u);
  if (!before[2].value && before[2].unavailable.find("it happens only in the kernel") != std::string::npos) {
    GTEST_SKIP() << "unprivileged (tests/counters_cli_test.cc covers it): " << before[2].unavailable;
  }
  for (const CounterSample& s : before) ASSERT_TRUE(s.value) << s.unavailable;
  // Touch fresh pages (page faults) and burn CPU (task clock).
  std::vector<char> pages(64 << 20);
  for (std::size_t i = 0; i < pages.size(); i += 4096) pages[i] = static_cast<char>(i);
  volatile double sink = 0;
  for (int i = 0; i < 2'000'000; ++i) sink = sink + i * 0.5;
  usleep(2000);  // a voluntary context switch
  std::vector<CounterSample> after = (*source)->read();
  EXPECT_GT(*after[0].value, *before[0].value) << "task-clock";
  EXPECT_GE(*after[1].value - *before[1].value, pages.size() / 4096 / 2) << "page-faults: at least half the pages";
  const bool user_only = (*source)->describe() == "perf_event:perf (user space only)";
  if (!user_only) {
    EXPECT_GT(*after[2].value, *before[2].value) << "context-switches";
  }
  EXPECT_GT(*after[3].value, *before[3].value) << "cpu-clock";
  for (const CounterSample& s : after) {
    ASSERT_TRUE(s.enabled_ns && s.running_ns);
    EXPECT_GE(*s.enabled_ns, *s.running_ns);
  }
  if (!user_only) {
    EXPECT_EQ((*source)->describe(), "perf_event:perf");
  }
}

// Hardware events: on a host without a PMU (this VM) the kernel refuses them
// and each one says why, with the kernel's errno, never a zero.
TEST(PerfEventSource, RefusedEventsCarryTheKernelsReasonEachOnTheirOwn) {
  if (!perf_event_open_exists()) GTEST_SKIP() << "perf_event_open is not implemented here (qemu-user)";
  const int refused = try_perf_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  if (refused == 0) GTEST_SKIP() << "this host has a hardware PMU: cycles can be counted";
  std::vector<CounterSpec> counters = {perf_counter("TASK_CLOCK", "task-clock"), perf_counter("CYCLES", "cycles"),
                                       perf_counter("LLC_MISSES", "LLC-load-misses"),
                                       perf_counter("PAGE_FAULTS", "page-faults")};
  auto source = make_perf_event_source(perf_source(), counters, {});
  ASSERT_TRUE(source);
  std::vector<CounterSample> s = (*source)->read();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_TRUE(s[0].value) << s[0].unavailable;
  EXPECT_FALSE(s[1].value);
  EXPECT_EQ(s[1].unavailable, std::string("the kernel refused perf event 'cycles': ") + std::strerror(refused) +
                                  " (" + strerrorname_np(refused) + ")");
  EXPECT_FALSE(s[2].value);
  EXPECT_EQ(s[2].unavailable.rfind("the kernel refused perf event 'LLC-load-misses': ", 0), 0u) << s[2].unavailable;
  EXPECT_TRUE(s[3].value) << "a refused event does not take the group down: " << s[3].unavailable;
}

// Where the system call is missing (qemu-user), every event is unavailable
// with the reason, and the source still opens: a level reports what it
// could not count instead of failing.
TEST(PerfEventSource, WithoutTheSystemCallEveryEventSaysWhy) {
  if (perf_event_open_exists()) GTEST_SKIP() << "perf_event_open exists here";
  std::vector<CounterSpec> counters = {perf_counter("TASK_CLOCK", "task-clock"), perf_counter("CYCLES", "cycles")};
  auto source = make_perf_event_source(perf_source(), counters, {});
  ASSERT_TRUE(source) << source.error().message;
  std::vector<CounterSample> s = (*source)->read();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_FALSE(s[0].value);
  EXPECT_EQ(s[0].unavailable, "the kernel refused perf event 'task-clock': Function not implemented (ENOSYS)");
  EXPECT_FALSE(s[1].value);
  EXPECT_EQ(s[1].unavailable, "the kernel refused perf event 'cycles': Function not implemented (ENOSYS)");
}

// msr/tsc: a PMU event named through sysfs, counted for real where the
// msr PMU exists.
TEST(PerfEventSource, SysfsPmuEventsOpenForReal) {
  if (!std::filesystem::exists("/sys/bus/event_source/devices/msr/events/tsc")) {
    GTEST_SKIP() << "no msr PMU on this host";
  }
  auto source = make_perf_event_source(perf_source(), {perf_counter("TSC", "msr/tsc")}, {});
  ASSERT_TRUE(source);
  CounterSample a = (*source)->read()[0];
  if (!a.value) GTEST_SKIP() << a.unavailable;
  volatile double spin = 0;
  for (int i = 0; i < 1'000'000; ++i) spin = spin + i;
  CounterSample b = (*source)->read()[0];
  ASSERT_TRUE(b.value) << b.unavailable;
  EXPECT_GT(*b.value, *a.value);
}

// A command workload runs in child processes: with follow_children the
// events count them (perf's inherit), without they count only the harness.
TEST(PerfEventSource, FollowsChildProcessesOfACommandWorkload) {
  auto task_clock_of_child = [](bool follow) -> std::optional<std::uint64_t> {
    CounterSourceOptions options;
    options.follow_children = follow;
    auto source = make_perf_event_source(perf_source(), {perf_counter("TASK_CLOCK", "task-clock")}, options);
    CounterSample before = (*source)->read()[0];
    if (!before.value) return std::nullopt;
    Result<CommandResult> r =
        run_command({"sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"}, {.timeout_s = 60});
    EXPECT_TRUE(r && r->succeeded());
    return *(*source)->read()[0].value - *before.value;
  };
  std::optional<std::uint64_t> followed = task_clock_of_child(true);
  std::optional<std::uint64_t> alone = task_clock_of_child(false);
  if (!followed || !alone) GTEST_SKIP() << "task-clock cannot be opened here";
  EXPECT_GT(*followed, 5 * *alone) << "followed " << *followed << " ns, alone " << *alone << " ns";
}

}  // namespace
}  // namespace harness
