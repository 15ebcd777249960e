// Golden files for report tests: compares text with tests/golden/<name>;
// HARNESS_UPDATE_GOLDEN=1 rewrites the file instead (review the diff!).
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace harness::testing_golden {

inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(HARNESS_SOURCE_DIR) + "/tests/golden/" + name;
  if (const char* update = std::getenv("HARNESS_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (run with HARNESS_UPDATE_GOLDEN=1 to create it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path;
}

}  // namespace harness::testing_golden
