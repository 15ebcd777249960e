// Helpers of the profile readers' tests: fixtures, layers by name, reading
// text in a format, and the 1e-6 relative check of times against truth.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "probes/profile/profile.h"

namespace harness::profile_test {

inline std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/fixtures/profiles/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline const ProfileLayer& layer(const LayerProfile& p, const std::string& name) {
  for (const ProfileLayer& l : p.layers)
    if (l.name == name) return l;
  ADD_FAILURE() << "no layer " << name;
  static ProfileLayer none;
  return none;
}

inline void expect_rel(double actual, double truth) {
  EXPECT_NEAR(actual, truth, 1e-6 * std::abs(truth)) << "truth " << truth;
}

inline Result<LayerProfile> read(const std::string& text, const std::string& format = "auto",
                                 const std::string& path = "p.json") {
  ProfileReadOptions o;
  o.format = format;
  o.clock_hz = 500e6;
  return read_layer_profile(text, path, o);
}

// The message of a refused profile (and that it is refused as bad input).
inline std::string refusal(const Result<LayerProfile>& p) {
  EXPECT_FALSE(p);
  EXPECT_EQ(p ? ExitCode::ok : p.error().code, ExitCode::bad_input);
  return p ? std::string("read") : p.error().message;
}

}  // namespace harness::profile_test
