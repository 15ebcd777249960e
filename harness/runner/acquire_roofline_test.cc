// Harness headers first: gtest pulls in <signal.h>, whose si_value macro
// breaks harness/base/units.h.
#include "harness/scenario/scenario.h"
#include "harness/runner/acquire.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/roofline_scenario.h"

namespace harness {
namespace {

using testing_support::roofline_scenario;

TEST(AcquireRoofline, ProfileTextIsRecordedAndABadOneIsABadInputError) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "harness_acquire_roofline_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "good.csv") << "layer,time_us,flops,bytes\na,10,100,50\n";
  std::ofstream(dir / "bad.csv") << "layer,time_us\na,10\nb,-1\n";
  const std::string scenario_path = (dir / "s.toml").string();

  Scenario good = roofline_scenario("[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \"good.csv\"\n",
                                    scenario_path);
  RooflineRecording rec;
  ASSERT_TRUE(read_roofline_profile(*good.roofline->profile, rec));
  ASSERT_TRUE(rec.profile);
  EXPECT_EQ(rec.profile->text, "layer,time_us,flops,bytes\na,10,100,50\n");

  Scenario bad = roofline_scenario("[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \"bad.csv\"\n",
                                   scenario_path);
  RooflineRecording rec2;
  Status st = read_roofline_profile(*bad.roofline->profile, rec2);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ExitCode::bad_input);
  EXPECT_EQ(st.error().message, (dir / "bad.csv").string() + ":3: column 'time_us': negative time -1");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace harness
