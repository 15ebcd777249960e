#include <gtest/gtest.h>

#include "probes/profile/test_support.h"

namespace harness {
namespace {

using namespace profile_test;

TEST(RknnProfile, PerfDetailTableTimesTargetsAndWork) {
  Result<LayerProfile> p = read(fixture("rknn-synthetic.txt"), "auto", "perf.txt");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, "rknn");
  ASSERT_EQ(p->layers.size(), 5u);
  const ProfileLayer& conv = layer(*p, "Conv:/model/conv1/Conv");
  expect_rel(conv.time_s, 25e-6);
  EXPECT_EQ(conv.device, LayerDevice::accelerator);
  // ConvRelu x(1,3,8,8) w(4,3,3,3) b(4) -> (1,4,8,8): 2 x 256 x 27 + 256.
  EXPECT_DOUBLE_EQ(*conv.flops, 2.0 * 256 * 27 + 256);
  EXPECT_DOUBLE_EQ(*conv.bytes, 3 * 1024);
  EXPECT_DOUBLE_EQ(*layer(*p, "MatMul:/model/fc").flops, 2.0 * 10 * 256);
  expect_rel(layer(*p, "Reshape:/model/flatten").time_s, 40e-6);
  EXPECT_EQ(layer(*p, "Reshape:/model/flatten").device, LayerDevice::cpu);
  EXPECT_TRUE(p->device_known);
  EXPECT_FALSE(p->has_start);
}

TEST(RknnProfile, OlderHeaderWithCyclesInThreeColumns) {
  const std::string text =
      "ID   OpType           DataType Target InputShape        OutputShape   DDRCycles  NPUCycles  MaxCycles  "
      "Time(us)  MacUsage(%)  TaskNumber  RW(KB)  FullName\n"
      "1    Conv             INT8     NPU    (1,8,4,4),(8,8,1,1) (1,8,4,4)   100        200        200        "
      "12        3.1          2           1.5     Conv:conv one\n";
  Result<LayerProfile> p = read(text, "rknn", "old.txt");
  ASSERT_TRUE(p) << p.error().message;
  const ProfileLayer& l = layer(*p, "Conv:conv one");  // a full name with a space
  expect_rel(l.time_s, 12e-6);
  EXPECT_DOUBLE_EQ(*l.flops, 2.0 * 128 * 8);
  EXPECT_DOUBLE_EQ(*l.bytes, 1.5 * 1024);
}

TEST(RknnProfile, MalformedRowsNameFileAndLine) {
  const std::string header = "ID OpType Target Time(us) FullName\n";
  EXPECT_EQ(refusal(read(header + "1 Conv NPU\n", "rknn", "r.txt")), "r.txt:2: expected 5 cells as in the header, got 3");
  EXPECT_EQ(refusal(read(header + "1 Conv NPU x12 c\n", "rknn", "r.txt")), "r.txt:2: column 'Time(us)': \"x12\" is not a number");
  EXPECT_EQ(refusal(read("ID OpType InputShape OutputShape Time(us) FullName\n1 Conv (1,3,999999,999999) (1) 3 c\n",
                         "rknn", "r.txt")),
            "r.txt:2: column 'InputShape': a tensor of 3e+12 elements (at most 5.369e+08, 2^29)");
}

}  // namespace
}  // namespace harness
