#include "harness/scenario/scenario.h"  // before gtest: <signal.h>'s si_value macro breaks units.h

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using ::testing::HasSubstr;

std::string with_roofline(const std::string& roofline) {
  return "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n" +
         roofline;
}

std::string error_of(const std::string& roofline) {
  Result<Scenario> s = parse_scenario(with_roofline(roofline), "s.toml");
  if (s) return "parsed";
  EXPECT_EQ(s.error().code, ExitCode::bad_input);
  return s.error().message;
}

TEST(ParseRoofline, ReadsMicrobenchmarkKnobsVendorToolsAndProfile) {
  Result<Scenario> s = parse_scenario(
      with_roofline("[roofline]\nthreads = 2\nrandom_reads = \"8 MiB\"\nbursts = [\"64 B\", \"2 KiB\"]\n"
                    "fma_iterations = 100000\nhost_benchmarks = false\n"
                    "[[roofline.vendor]]\nname = \"npu\"\ncommand = [\"npu-perf\", \"--all\"]\ntimeout = \"5 s\"\n"
                    "[roofline.vendor.figures]\n\"bandwidth.dram\" = { pattern = 'DDR: ([0-9.]+)', unit = \"GB/s\" }\n"
                    "[roofline.profile]\nfile = \"profiles/layers.csv\"\nprecision = \"int8\"\ntop = 3\n"),
      "dir/s.toml");
  ASSERT_TRUE(s) << s.error().message;
  const RooflineConfig& c = *s->roofline;
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.random_bytes, 8 << 20);
  EXPECT_EQ(c.bursts, (std::vector<std::int64_t>{64, 2048}));
  EXPECT_FALSE(c.host_benchmarks);
  ASSERT_EQ(c.vendor.size(), 1u);
  EXPECT_EQ(c.vendor[0].argv, (std::vector<std::string>{"npu-perf", "--all"}));
  EXPECT_EQ(c.vendor[0].timeout_s, 5);
  ASSERT_EQ(c.vendor[0].figures.size(), 1u);
  EXPECT_EQ(c.vendor[0].figures[0].metric, "bandwidth.dram");
  EXPECT_EQ(c.vendor[0].figures[0].dimension, Dimension::bandwidth);
  ASSERT_TRUE(c.profile);
  EXPECT_EQ(c.profile->path, "dir/profiles/layers.csv");  // relative to the scenario file
  EXPECT_EQ(c.profile->precision, "int8");
  EXPECT_EQ(c.profile->top, 3);
}

TEST(ParseRoofline, RejectsBadBytesSources) {
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes_source = \"pmu\"\n"),
            "s.toml:11:16: [roofline.kernels[0]] bytes_source: expected \"model\", \"declared\", "
            "\"counters[:<name>]\" or \"ddr\", got \"pmu\"");
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes = \"1 GB\"\nbytes_source = \"ddr\"\n"),
            "s.toml:12:16: [roofline.kernels[0]] bytes_source: 'bytes' is declared: remove it or set "
            "bytes_source = \"declared\"");
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\n"),
            "s.toml:8:1: [roofline.kernels[0]] kernel 'k' needs 'builtin' or both 'flops' and 'bytes' (or "
            "bytes_source)");
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes_source = \"ddr\"\nbytes_per_count = 64\n"),
            "s.toml:12:19: [roofline.kernels[0]] bytes_per_count: only applies to bytes_source = \"counters:<name>\"");
}

TEST(ParseRoofline, RejectsBadVendorFiguresAndProfiles) {
  EXPECT_EQ(error_of("[[roofline.vendor]]\nname = \"n\"\ncommand = [\"x\"]\n"
                     "[roofline.vendor.figures]\n\"dram\" = { pattern = '([0-9]+)', unit = \"GB/s\" }\n"),
            "s.toml:12:10: [roofline.vendor[0].figures] dram: a figure's name must start with \"bandwidth.\" or "
            "\"compute.\"");
  EXPECT_EQ(error_of("[[roofline.vendor]]\nname = \"n\"\ncommand = [\"x\"]\n"
                     "[roofline.vendor.figures]\n\"bandwidth.dram\" = { pattern = '[0-9]+', unit = \"GB/s\" }\n"),
            "s.toml:12:32: [roofline.vendor[0].figures.\"bandwidth.dram\"] pattern: the pattern must have exactly "
            "one capture group (the number), it has 0");
  EXPECT_EQ(error_of("[[roofline.vendor]]\nname = \"n\"\ncommand = [\"x\"]\n"
                     "[roofline.vendor.figures]\n\"compute.int8\" = { pattern = '([0-9]+)', unit = \"GB/s\" }\n"),
            "s.toml:12:49: [roofline.vendor[0].figures.\"compute.int8\"] unit: expected a compute rate such as "
            "\"30 TOPS\", got \"1 GB/s\", which is a bandwidth");
  EXPECT_EQ(error_of("[roofline.profile]\nfile = \"layers.txt\"\nformat = \"tflight\"\n"),
            "s.toml:10:10: [roofline.profile] format: unknown value \"tflight\" (expected one of \"auto\", "
            "\"onnxruntime\", \"chrome-trace\", \"json\", \"tflite\", \"vela\", \"rknn\", \"csv\")");
  EXPECT_EQ(error_of("[roofline.profile]\nfile = \"p.csv\"\nclock = \"5 GB/s\"\n").substr(0, 39),
            "s.toml:10:9: [roofline.profile] clock: ");
  EXPECT_EQ(error_of("[roofline]\nbursts = [\"96 B\"]\n"),
            "s.toml:9:10: [roofline] bursts: \"96 B\": a burst must be a multiple of 64 B no larger than the "
            "buffer");
}

TEST(ParseRoofline, KernelNamesAreUniqueAndNotReserved) {
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes = \"1 GB\"\n"
                     "[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes = \"1 GB\"\n"),
            "s.toml:13:8: [roofline.kernels[1]] name: a kernel named \"k\" is already declared at s.toml:8:1");
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"bandwidth\"\nflops = 1e9\nbytes = \"1 GB\"\n"),
            "s.toml:9:8: [roofline.kernels[0]] name: \"bandwidth\" is reserved for the level's own metrics");
  // Its metrics are "<kernel>.time", ...: the catalogue has no name for an empty one.
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"\"\nflops = 1e9\nbytes = \"1 GB\"\n"),
            "s.toml:9:8: [roofline.kernels[0]] name: a kernel needs a name (its metrics are <name>.time, ...)");
}

TEST(ParseRoofline, BaselineExpectationsAreKeptApart) {
  Result<Scenario> s = parse_scenario(
      with_roofline("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes = \"1 GB\"\n"
                    "[roofline.kernels.expect]\nintensity_gain_min = 6.0\nintensity_min = 0.08\n"),
      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->roofline->baseline_expectations.size(), 1u);
  EXPECT_EQ(s->roofline->baseline_expectations[0].metric, "k.intensity");
  EXPECT_EQ(s->roofline->baseline_expectations[0].min_ratio, 6.0);
  EXPECT_EQ(s->roofline->baseline_expectations[0].where, "s.toml:13:22");
  ASSERT_EQ(s->roofline->expectations.size(), 1u);
  EXPECT_EQ(s->roofline->expectations[0].metric, "k.intensity");
  EXPECT_EQ(error_of("[[roofline.kernels]]\nname = \"k\"\nflops = 1e9\nbytes = \"1 GB\"\n"
                     "[roofline.kernels.expect]\nintensity_gain = 6.0\n"),
            "s.toml:13:1: unknown key 'intensity_gain' in [roofline.kernels[0].expect]");
}

// A kernel's same-run reference: "same" (A/A) or a built-in kernel's keys;
// only for a kernel the harness times, and only beside the scenario's
// [reference], whose rounds it is timed in.
TEST(ParseRoofline, AKernelsReferenceIsItselfOrABuiltInKernel) {
  const std::string reference = "[reference]\nbuiltin = \"vector_add\"\nelements = 16\nrounds = 6\n";
  Result<Scenario> s = parse_scenario(
      with_roofline(reference + "[roofline]\n"
                                "[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
                                "reference = \"same\"\n"
                                "[[roofline.kernels]]\nname = \"g2\"\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
                                "slowdown = 1.1\n"
                                "[roofline.kernels.reference]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 4\n"
                                "[[roofline.kernels]]\nname = \"plain\"\nbuiltin = \"softmax\"\nrows = 2\ncols = 2\n"),
      "s.toml");
  ASSERT_TRUE(s) << s.error().message;
  const std::vector<RooflineKernel>& k = s->roofline->kernels;
  ASSERT_EQ(k.size(), 3u);
  ASSERT_TRUE(k[0].reference);
  EXPECT_EQ(k[0].reference->kind, "gemm");
  EXPECT_EQ(k[0].reference->k, 8);
  EXPECT_EQ(k[0].reference_where, "s.toml:19:13");
  ASSERT_TRUE(k[1].reference);
  EXPECT_EQ(k[1].reference->k, 4);
  EXPECT_EQ(k[1].reference->slowdown, 1);  // the candidate's slowdown is its own
  EXPECT_FALSE(k[2].reference);
  // The runner hands the device the pairing; without it nothing is paired.
  EXPECT_FALSE(is_paired(*s->roofline, k[0]));
  EXPECT_EQ(timed_rounds(*s->roofline, k[0]), 5);
  RooflineConfig paired = *s->roofline;
  paired.paired_with = *s->reference;
  EXPECT_TRUE(is_paired(paired, k[0]));
  EXPECT_EQ(timed_rounds(paired, k[0]), 6);
  EXPECT_EQ(timed_rounds(paired, k[2]), 5);

  EXPECT_EQ(error_of("[roofline]\n[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
                     "reference = \"same\"\n"),
            "s.toml:15:13: [[roofline.kernels]] 'g' names a reference, which is timed beside it in the rounds of the "
            "scenario's [reference]: add one (scenarios/README.md \"[reference]\")");
  EXPECT_THAT(error_of(reference + "[roofline]\n[[roofline.kernels]]\nname = \"d\"\nflops = 1e6\nbytes = \"1 MB\"\n"
                                   "time = \"1 ms\"\nreference = \"same\"\n"),
              HasSubstr("only a built-in kernel the harness times"));
  EXPECT_THAT(error_of(reference + "[roofline]\n[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 8\n"
                                   "n = 8\nk = 8\nreference = \"previous\"\n"),
              HasSubstr("takes \"same\""));
  EXPECT_THAT(error_of(reference + "[roofline]\n[[roofline.kernels]]\nname = \"g\"\nbuiltin = \"gemm\"\nm = 8\n"
                                   "n = 8\nk = 8\n[roofline.kernels.reference]\nm = 8\n"),
              HasSubstr("builtin"));
  EXPECT_THAT(error_of(reference + "[roofline]\n[[roofline.kernels]]\nname = \"vs_reference\"\nbuiltin = \"gemm\"\n"
                                   "m = 8\nn = 8\nk = 8\n"),
              HasSubstr("reserved"));
}

}  // namespace
}  // namespace harness
