// An analysis's metrics by name in a test: a missing metric, or a missing
// value, fails the test (naming the metric and why) and gives a stand-in.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "harness/model/metric.h"

namespace harness::testing_support {

inline const Metric& named_metric(const Analysis& a, const std::string& name) {
  const Metric* m = a.find_metric(name);
  EXPECT_NE(m, nullptr) << name;
  static Metric none;
  return m ? *m : none;
}

// -1 where there is no value.
inline double named_value(const Analysis& a, const std::string& name) {
  const Metric& m = named_metric(a, name);
  EXPECT_TRUE(m.value.has_value()) << name << ": " << m.unavailable;
  return m.value.value_or(-1);
}

}  // namespace harness::testing_support
