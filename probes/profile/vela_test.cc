#include <gtest/gtest.h>

#include "probes/profile/test_support.h"

namespace harness {
namespace {

using namespace profile_test;

TEST(VelaProfile, CyclesAtTheClockAndTwiceTheMacs) {
  // fixtures/profiles/vela-synthetic_per-layer.csv at 500 MHz.
  Result<LayerProfile> p = read(fixture("vela-synthetic_per-layer.csv"), "auto", "net_per-layer.csv");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, "vela");
  EXPECT_EQ(p->time_provenance, Provenance::model);
  ASSERT_EQ(p->layers.size(), 3u);
  const ProfileLayer& conv = layer(*p, "sequential/conv1/Relu;sequential/conv1/Conv2D");
  expect_rel(conv.time_s, 7312.0 / 500e6);
  EXPECT_DOUBLE_EQ(*conv.flops, 2.0 * 73008);
  EXPECT_EQ(conv.flops_provenance, Provenance::model);
  EXPECT_EQ(conv.op, "CONV_2D");
  EXPECT_FALSE(conv.bytes);
  expect_rel(layer(*p, "sequential/max_pooling2d/MaxPool").time_s, 2992.0 / 500e6);
  expect_rel(layer(*p, "dense, final").time_s, 1375.0 / 500e6);  // a quoted name, after the header again
  EXPECT_DOUBLE_EQ(*layer(*p, "dense, final").flops, 2.0 * 20480);
  EXPECT_FALSE(p->device_known);
}

TEST(VelaProfile, TosaHeaderAndColumnsInAnotherOrder) {
  const std::string text =
      "TOSA_operator,NNG Operator,Op Cycles,Network%,MAC Count,Network%,Name\n"
      "CONV2D,Conv2D,1000,50.0,400,80.0,conv\n";
  Result<LayerProfile> p = read(text, "vela", "t.csv");
  ASSERT_TRUE(p) << p.error().message;
  expect_rel(p->layers[0].time_s, 2e-6);
  EXPECT_DOUBLE_EQ(*p->layers[0].flops, 800);
}

TEST(VelaProfile, MalformedRowsAndAMissingClock) {
  const std::string header = "TFLite_operator,NNG Operator,Op Cycles,Network%,MAC Count,Network%,Name\n";
  EXPECT_EQ(refusal(read(header + "CONV_2D,Conv,-3,1,2,3,c\n", "vela", "v.csv")),
            "v.csv:2: column 'Op Cycles': negative cycle count -3");
  EXPECT_EQ(refusal(read(header + "CONV_2D,Conv,3,1\n", "vela", "v.csv")), "v.csv:2: expected 7 cells as in the header, got 4");
  EXPECT_EQ(refusal(read(header + "CONV_2D,Conv,3,1,\"2,3,c\n", "vela", "v.csv")),
            "v.csv:2: malformed CSV: a quoted cell is not closed");
  ProfileReadOptions no_clock;
  no_clock.format = "vela";
  EXPECT_EQ(refusal(read_layer_profile(header + "CONV_2D,Conv,3,1,2,3,c\n", "v.csv", no_clock)),
            "v.csv: Vela counts cycles: the profile needs clock = \"<frequency>\" (the accelerator clock of Vela's "
            "summary, such as \"500 MHz\")");
}

}  // namespace
}  // namespace harness
