// Figures and names a scenario cannot mean (issue 29): sizes whose products
// overflow, figures beyond any device, non-finite numbers, empty names;
// each refused at parse time with file:line:column (exit 2).
#include <gtest/gtest.h>

#include "harness/scenario/scenario.h"

namespace harness {
namespace {

std::string scenario(const std::string& rig_extra, const std::string& workload) {
  return "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n" + rig_extra + "[workload]\n" + workload;
}

std::string error_of(const std::string& text) {
  Result<Scenario> s = parse_scenario(text, "s.toml");
  EXPECT_FALSE(s.ok()) << "parsed, but an error was expected";
  if (s) return "";
  EXPECT_EQ(s.error().code, ExitCode::bad_input);
  return s.error().message;
}

TEST(ScenarioNumbers, KernelSizesWhoseProductsOverflowAreRefused) {
  const std::string gemm = "builtin = \"gemm\"\nm = 4294967296\nn = 4294967296\nk = 4294967296\n";
  EXPECT_EQ(error_of(scenario("", gemm)),
            "s.toml:6:11: [workload] builtin: built-in kernel \"gemm\" of these sizes needs 2.21e+20 bytes of buffers, "
            "more than any device has (at most 1.1e+12: harness/base/input_limits.h)");
  // Buffers that fit (103 GB), work that does not: a 65536-square filter
  // slid over a 131072-square input is 3.7e19 operations an iteration.
  EXPECT_EQ(error_of(scenario("", "builtin = \"conv2d\"\nbatch = 1\nchannels = 1\nheight = 131072\n"
                                  "width = 131072\nfilters = 1\nkernel_h = 65536\nkernel_w = 65536\n")),
            "s.toml:6:11: [workload] builtin: built-in kernel \"conv2d\" of these sizes does 3.69e+19 operations an "
            "iteration, more than any device does in minutes (at most 1e+18: harness/base/input_limits.h)");
  EXPECT_EQ(error_of(scenario("", "builtin = \"conv2d\"\nbatch = 65536\nchannels = 65536\nheight = 65536\n"
                                  "width = 65536\nfilters = 1\nkernel_h = 1\nkernel_w = 1\n")),
            "s.toml:6:11: [workload] builtin: built-in kernel \"conv2d\" of these sizes needs 7.38e+19 bytes of "
            "buffers, more than any device has (at most 1.1e+12: harness/base/input_limits.h)");
  EXPECT_TRUE(parse_scenario(scenario("", "builtin = \"gemm\"\nm = 4096\nn = 4096\nk = 4096\n"), "s.toml"));
}

TEST(ScenarioNumbers, CeilingsBeyondAnyDeviceOrBelowOneAreRefused) {
  const std::string vector_add = "builtin = \"vector_add\"\nelements = 16\n";
  EXPECT_EQ(error_of(scenario("[rig.memory]\ndram = \"1e308 TB/s\"\n", vector_add)),
            "s.toml:6:8: [rig.memory] dram: expected a bandwidth such as \"50 GB/s\": \"1e308 TB/s\" is not a finite "
            "number");
  EXPECT_EQ(error_of(scenario("[rig.compute]\nfp32 = \"1e9 TOPS\"\n", vector_add)),
            "s.toml:6:8: [rig.compute] fp32: \"1e9 TOPS\" is more than 1000 Pop/s, beyond any device (the limits of "
            "harness/base/input_limits.h)");
  EXPECT_EQ(error_of(scenario("[rig.memory]\ndram = \"0 GB/s\"\n", vector_add)),
            "s.toml:6:8: [rig.memory] dram: a ceiling below 1 B/s is no ceiling");
  EXPECT_EQ(error_of(scenario("[rig.memory]\ndram = \"1e-300 GB/s\"\n", vector_add)),
            "s.toml:6:8: [rig.memory] dram: a ceiling below 1 B/s is no ceiling");
  EXPECT_EQ(error_of(scenario("heartbeat_timeout = \"1e300 s\"\n", vector_add)),
            "s.toml:5:21: [rig] heartbeat_timeout: \"1e300 s\" is more than 3.156e+07 s, beyond any device (the "
            "limits of harness/base/input_limits.h)");
}

TEST(ScenarioNumbers, PlainNumbersMustBeFiniteAndOfAnySensibleSize) {
  const std::string base = "builtin = \"vector_add\"\nelements = 16\n";
  EXPECT_EQ(error_of(scenario("", base + "tokens_per_iteration = inf\n")),
            "s.toml:8:24: [workload] tokens_per_iteration must be a finite number");
  EXPECT_EQ(error_of(scenario("", base + "tokens_per_iteration = nan\n")),
            "s.toml:8:24: [workload] tokens_per_iteration must be a finite number");
  EXPECT_EQ(error_of(scenario("", base + "tokens_per_iteration = 1e300\n")),
            "s.toml:8:24: [workload] tokens_per_iteration = 1e+300 is beyond any figure a scenario states (at most "
            "1e+18: harness/base/input_limits.h)");
}

TEST(ScenarioNumbers, ScenarioAndRigNamesMustNotBeEmptyOrHoldControlCharacters) {
  const std::string rest = "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n";
  EXPECT_EQ(error_of("[scenario]\nname = \"\"\n[rig]\nname = \"r\"\n" + rest),
            "s.toml:2:8: [scenario] name: must not be empty");
  EXPECT_EQ(error_of("[scenario]\nname = \"t\"\n[rig]\nname = \"  \"\n" + rest),
            "s.toml:4:8: [rig] name: must not be empty");
  EXPECT_EQ(error_of("[scenario]\nname = \"\\u001b[2J\\u001b]0;owned\\u0007\"\n[rig]\nname = \"r\"\n" + rest),
            "s.toml:2:8: [scenario] name: must not hold control characters (a name is shown in terminals and "
            "reports)");
}

}  // namespace
}  // namespace harness
