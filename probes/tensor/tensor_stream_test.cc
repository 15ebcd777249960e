#include "probes/tensor/tensor_stream.h"

#include <cmath>

#include <gtest/gtest.h>

#include "tests/support/tensor_bytes.h"

namespace harness::tensor {
namespace {

using namespace testing_support;

TEST(HalfFloats, ConvertExactly) {
  EXPECT_EQ(half_to_double(0x3c00), 1.0);
  EXPECT_EQ(half_to_double(0xc000), -2.0);
  EXPECT_EQ(half_to_double(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(half_to_double(0x7bff), 65504.0);
  EXPECT_TRUE(std::isinf(half_to_double(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_double(0x7e00)));
  EXPECT_EQ(bfloat16_to_double(0x3f80), 1.0);
  EXPECT_EQ(bfloat16_to_double(0xc0a0), -5.0);
}

}  // namespace
}  // namespace harness::tensor
