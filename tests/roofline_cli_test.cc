// End to end: `harness run` on a scenario whose per-layer profile is bad
// stops with the file:line error and exit code 2 (found by the pre-flight,
// before anything runs; on stderr).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "probes/process.h"

namespace harness {
namespace {

TEST(RooflineCli, BadProfileFileIsExitTwoWithFileAndLine) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "harness_roofline_cli_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "layers.csv") << "layer,op,time_us\nconv1,conv,12\nfc1,matmul,fast\n";
  std::ofstream(dir / "s.toml") << "[scenario]\nname = \"bad-profile\"\n[rig]\nname = \"r\"\n"
                                   "[rig.compute]\nint8 = \"4 TOPS\"\n[rig.memory]\ndram = \"20 GB/s\"\n"
                                   "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                   "[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \"layers.csv\"\n";
  Result<CommandResult> r = run_command(
      {HARNESS_BINARY, "--db", (dir / "runs.db").string(), "run", (dir / "s.toml").string()});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 2) << r->out << r->err;
  EXPECT_NE(r->err.find((dir / "layers.csv").string() + ":3: column 'time_us': \"fast\" is not a number"),
            std::string::npos)
      << r->out << r->err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace harness
