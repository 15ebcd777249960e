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
  if (actual == expected.str()) return;
  // Name the first line that differs rather than printing both texts whole.
  std::istringstream a(actual), e(expected.str());
  std::string la, le;
  int line = 0;
  while (true) {
    ++line;
    bool more_a = static_cast<bool>(std::getline(a, la)), more_e = static_cast<bool>(std::getline(e, le));
    if (!more_a && !more_e) break;
    if (la != le || more_a != more_e) {
      ADD_FAILURE() << path << ":" << line << ": differs\n  expected: " << (more_e ? le : "<end of file>")
                    << "\n  actual:   " << (more_a ? la : "<end of file>")
                    << "\n(HARNESS_UPDATE_GOLDEN=1 rewrites the file; review the diff)";
      return;
    }
  }
  ADD_FAILURE() << path << ": differs only in the final line break";
}

}  // namespace harness::testing_golden
