#include <gtest/gtest.h>

#include "probes/profile/test_support.h"

namespace harness {
namespace {

using namespace profile_test;

TEST(ChromeTraceProfile, SyntheticTraceSlicesNestingAndTiledOps) {
  // fixtures/profiles/chrome-trace-synthetic.json: a graph slice around its
  // ops, a B/E pair, an op seen twice (tiled), a counter and an instant.
  Result<LayerProfile> p = read(fixture("chrome-trace-synthetic.json"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, "chrome-trace");
  ASSERT_EQ(p->layers.size(), 4u);
  expect_rel(layer(*p, "graph_execute").time_s, 70e-6);  // 1000 us less its ops' 930
  expect_rel(layer(*p, "conv_0").time_s, 300e-6);
  expect_rel(layer(*p, "relu_0").time_s, 80e-6);
  expect_rel(layer(*p, "conv_1").time_s, 550e-6);
  EXPECT_EQ(layer(*p, "conv_1").calls, 2);
  EXPECT_EQ(layer(*p, "conv_0").op, "Conv2d");
  EXPECT_EQ(p->kernels.size(), 4u);  // the innermost slices
  EXPECT_FALSE(p->device_known);
}

TEST(ChromeTraceProfile, BareArrayWithFractionalMicroseconds) {
  Result<LayerProfile> p = read(
      "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 0.5, \"dur\": 12.25, \"pid\": 1, \"tid\": 1},\n"
      " {\"name\": \"b\", \"ph\": \"X\", \"ts\": 20, \"dur\": 0.125, \"pid\": 1, \"tid\": 2}]");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, "chrome-trace");
  expect_rel(layer(*p, "a").time_s, 12.25e-6);
  expect_rel(layer(*p, "b").time_s, 0.125e-6);
}

TEST(ChromeTraceProfile, DisplayTimeUnitDoesNotChangeTheUnitOfTs) {
  Result<LayerProfile> p = read(
      "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 7}]}");
  ASSERT_TRUE(p) << p.error().message;
  expect_rel(layer(*p, "a").time_s, 7e-6);
}

TEST(ChromeTraceProfile, RunsDivideTheTimes) {
  ProfileReadOptions o;
  o.runs = 2;
  Result<LayerProfile> p = read_layer_profile(
      "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 0, \"dur\": 10}, {\"name\": \"a\", \"ph\": \"X\", \"ts\": 50, \"dur\": 30}]",
      "t.json", o);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->runs, 2);
  expect_rel(layer(*p, "a").time_s, 20e-6);
}

TEST(ChromeTraceProfile, MalformedTracesNameTheLine) {
  auto error = [](const std::string& text) { return refusal(read(text, "chrome-trace", "t.json")); };
  EXPECT_EQ(error("[\n{\"name\": \"a\", \"ph\": \"X\", \"ts\": 3, \"dur\": -1}\n]"),
            "t.json:2: event \"a\": negative duration -1 us");
  EXPECT_EQ(error("[\n{\"name\": \"a\", \"ph\": \"E\", \"ts\": 3, \"pid\": 1, \"tid\": 1}\n]"),
            "t.json:2: an \"E\" event with no open \"B\" event on pid:tid 1:1");
  EXPECT_EQ(error("{\"traceEvents\": [\n{\"name\": \"a\", \"ph\": \"B\", \"ts\": 3}\n]}"),
            "t.json:2: \"B\" event of \"a\" has no \"E\" event");
  EXPECT_EQ(error("[\n{\"name\": \"a\", \"ph\": \"B\", \"ts\": 9},\n{\"ph\": \"E\", \"ts\": 3}\n]"),
            "t.json:3: \"E\" event of \"a\" ends before it began (3 us < 9 us)");
  EXPECT_EQ(error("[{\"name\": \"a\", \"ph\": \"X\", \"ts\": \"soon\", \"dur\": 1}]"),
            "t.json:1: \"ts\": \"soon\" is not a number");
  // Found by profile_chrome_trace_fuzz: a slice without a name made the
  // metric "layer..time", which the catalogue refuses by throwing.
  EXPECT_EQ(error("[\n{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1},\n{\"ph\": \"X\", \"ts\": 3, \"dur\": 1}\n]"),
            "t.json:3: a layer (or slice) with no name");
  EXPECT_EQ(error("{\"traceEvents\": 3}"),
            "t.json: expected a Chrome trace: an array of events or an object with \"traceEvents\"");
}

}  // namespace
}  // namespace harness
