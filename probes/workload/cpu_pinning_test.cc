#include "probes/workload/cpu_pinning.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace harness {
namespace {

cpu_set_t allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

TEST(CpuPin, TheThreadAndWhatItStartsRunOnlyThereUntilThePinIsDropped) {
  const cpu_set_t before = allowed();
  int last = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &before)) last = cpu;
  ASSERT_GE(last, 0);
  {
    Result<CpuPin> pin = CpuPin::to({last});
    ASSERT_TRUE(pin) << pin.error().message;
    EXPECT_EQ(cpu_list_text(allowed()), std::to_string(last));
    EXPECT_EQ(sched_getcpu(), last);
    // A child inherits the CPUs: it exits 0 only when it has exactly that one.
    pid_t child = fork();
    if (child == 0) {
      cpu_set_t mine;
      CPU_ZERO(&mine);
      sched_getaffinity(0, sizeof mine, &mine);
      _exit(CPU_COUNT(&mine) == 1 && CPU_ISSET(last, &mine) ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(cpu_list_text(allowed()), cpu_list_text(before));
}

TEST(CpuPin, FirstIsTheLowestCpuTheThreadMayUse) {
  const cpu_set_t before = allowed();
  int lowest = 0;
  while (!CPU_ISSET(lowest, &before)) ++lowest;
  {
    Result<CpuPin> pin = CpuPin::to({}, true);
    ASSERT_TRUE(pin) << pin.error().message;
    EXPECT_EQ(cpu_list_text(allowed()), std::to_string(lowest));
  }
  EXPECT_EQ(cpu_list_text(allowed()), cpu_list_text(before));
}

TEST(CpuPin, NoCpusLeavesTheThreadWhereItIs) {
  const std::string before = cpu_list_text(allowed());
  Result<CpuPin> pin = CpuPin::to({});
  ASSERT_TRUE(pin);
  EXPECT_EQ(cpu_list_text(allowed()), before);
}

TEST(CpuPin, ACpuTheThreadMayNotUseNamesTheOnesItMay) {
  const std::string before = cpu_list_text(allowed());
  Result<CpuPin> pin = CpuPin::to({0, CPU_SETSIZE - 1});
  ASSERT_FALSE(pin);
  EXPECT_EQ(pin.error().message, "workload cpus [0, 1023]: CPU 1023 is not one this device lets the workload use "
                                 "(allowed: " + before + ")");
  EXPECT_EQ(pin.error().code, ExitCode::infrastructure);
  EXPECT_EQ(CpuPin::to({-1}).error().message, "workload cpus [-1]: CPU -1 is outside 0..1023");
  EXPECT_EQ(cpu_list_text(allowed()), before);
}

TEST(CpuPin, ListsRunsOfCpusAsRanges) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : {0, 1, 2, 3, 6, 8, 9}) CPU_SET(cpu, &set);
  EXPECT_EQ(cpu_list_text(set), "0-3,6,8-9");
}

}  // namespace
}  // namespace harness
