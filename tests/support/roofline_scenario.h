// A scenario whose ceilings are measured on this machine (fp32 compute, dram
// bandwidth), running a 16-element vector_add, with `roofline` appended:
// the [roofline] section under test. A text that does not parse fails the
// test and gives an empty scenario.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "harness/scenario/scenario.h"

namespace harness::testing_support {

inline Scenario roofline_scenario(const std::string& roofline, const std::string& path = "s.toml") {
  Result<Scenario> s = parse_scenario(
      "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[rig.compute]\nfp32 = \"measure\"\n"
      "[rig.memory]\ndram = \"measure\"\n[workload]\nbuiltin = \"vector_add\"\nelements = 16\n" + roofline,
      path);
  EXPECT_TRUE(s) << s.error().message;
  return s ? *s : Scenario{};
}

}  // namespace harness::testing_support
