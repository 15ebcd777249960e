#include <gtest/gtest.h>

#include "probes/profile/test_support.h"

namespace harness {
namespace {

using namespace profile_test;

// One line per event, as ONNX Runtime writes them.
std::string ort(const std::vector<std::string>& events) {
  std::string s = "[\n";
  for (std::size_t i = 0; i < events.size(); ++i) s += events[i] + (i + 1 < events.size() ? ",\n" : "\n");
  return s + "]\n";
}

std::string kernel(const std::string& node, const std::string& op, double ts, double dur, const std::string& provider,
                   const std::string& extra = "") {
  return "{\"cat\" : \"Node\",\"pid\" :1,\"tid\" :2,\"dur\" :" + std::to_string(dur) + ",\"ts\" :" + std::to_string(ts) +
         ",\"ph\" : \"X\",\"name\" :\"" + node + "_kernel_time\",\"args\" : {\"op_name\" : \"" + op +
         "\",\"provider\" : \"" + provider + "\"" + extra + "}}";
}

std::string fence(const std::string& node, const char* which, double ts, double dur) {
  return "{\"cat\" : \"Node\",\"pid\" :1,\"tid\" :2,\"dur\" :" + std::to_string(dur) + ",\"ts\" :" + std::to_string(ts) +
         ",\"ph\" : \"X\",\"name\" :\"" + node + "_fence_" + which + "\",\"args\" : {\"op_name\" : \"X\"}}";
}

TEST(OnnxRuntimeProfile, RealProfileOfTheTinyNetReadsEveryNodeOfFiveRuns) {
  // fixtures/profiles/onnxruntime-tinynet.json: a real onnxruntime-node 1.30
  // profile (scripts/profile-fixtures/make-onnxruntime-profile.js).
  Result<LayerProfile> p = read(fixture("onnxruntime-tinynet.json"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, "onnxruntime");
  EXPECT_EQ(p->runs, 5);
  ASSERT_EQ(p->layers.size(), 9u);
  const ProfileLayer& conv = layer(*p, "conv1");
  EXPECT_EQ(conv.op, "Conv");
  EXPECT_EQ(conv.calls, 5);
  // Truth from the file by hand (and a few lines of Python): conv1's five
  // kernel_time durations are 214, 108, 45, 41, 45 us.
  expect_rel(conv.time_s, (214 + 108 + 45 + 41 + 45) / 5.0 * 1e-6);
  expect_rel(*conv.median_s, 45e-6);
  expect_rel(layer(*p, "fc1").time_s, (69 + 81 + 61 + 49 + 48) / 5.0 * 1e-6);
  EXPECT_EQ(conv.device, LayerDevice::cpu);
  // Conv x[1,3,32,32] w[16,3,3,3] b[16] -> [1,16,32,32]: 2 x 16384 x 27 + 16384.
  EXPECT_DOUBLE_EQ(*conv.flops, 2.0 * 16384 * 27 + 16384);
  EXPECT_DOUBLE_EQ(*conv.bytes, 12288 + 1792 + 65536);  // activation + parameter + output sizes
  // MatMul [1,4096] x [4096,64]: 2 x 64 x 4096; Gemm [1,64] x [64,10] + C: 2 x 10 x 64 + 10.
  EXPECT_DOUBLE_EQ(*layer(*p, "fc1").flops, 2.0 * 64 * 4096);
  EXPECT_DOUBLE_EQ(*layer(*p, "fc2").flops, 2.0 * 10 * 64 + 10);
  EXPECT_DOUBLE_EQ(*layer(*p, "to_nhwc").flops, 0);  // data movement
  EXPECT_FALSE(layer(*p, "softmax").flops);          // no formula: timed, not placed
  EXPECT_TRUE(p->device_known);
  EXPECT_EQ(p->sync_events, 0);  // 1.30 writes no fence events
}

TEST(OnnxRuntimeProfile, SyntheticProfileTimesFencesRunsAndFallback) {
  // fixtures/profiles/onnxruntime-synthetic.json (README beside it): two
  // runs, fences around every kernel, a CUDA model with two CPU nodes.
  Result<LayerProfile> p = read(fixture("onnxruntime-synthetic.json"));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->runs, 2);
  expect_rel(layer(*p, "conv").time_s, 110e-6);
  expect_rel(*layer(*p, "conv").median_s, 110e-6);
  expect_rel(layer(*p, "topk").time_s, 60e-6);
  expect_rel(layer(*p, "matmul").time_s, 10e-6);
  EXPECT_EQ(layer(*p, "conv").calls, 2);
  EXPECT_EQ(p->sync_events, 20);
  expect_rel(*p->sync_time_s, 15e-6);  // (2 + 1) us around each of 5 kernels, per run
  EXPECT_EQ(layer(*p, "topk").device, LayerDevice::cpu);
  EXPECT_EQ(layer(*p, "fc").device, LayerDevice::accelerator);
  EXPECT_DOUBLE_EQ(*layer(*p, "conv").flops, 2.0 * 256 * 27 + 256);
  EXPECT_DOUBLE_EQ(*layer(*p, "fc").flops, 2.0 * 10 * 256 + 10);
  EXPECT_DOUBLE_EQ(*layer(*p, "matmul").flops, 2.0 * 30 * 4);
  EXPECT_EQ(p->kernels.size(), 10u);
}

TEST(OnnxRuntimeProfile, FencesAreNotKernelTime) {
  Result<LayerProfile> p = read(ort({fence("a", "before", 0, 5), kernel("a", "Relu", 5, 10, "CPUExecutionProvider"),
                                     fence("a", "after", 15, 7)}));
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->layers.size(), 1u);
  expect_rel(p->layers[0].time_s, 10e-6);
  EXPECT_EQ(p->sync_events, 2);
  expect_rel(*p->sync_time_s, 12e-6);
}

TEST(OnnxRuntimeProfile, WithoutModelRunEventsRunsAreCountedByOccurrence) {
  Result<LayerProfile> p = read(ort({kernel("a", "Relu", 0, 10, "CPUExecutionProvider"),
                                     kernel("b", "Add", 10, 4, "CPUExecutionProvider"),
                                     kernel("a", "Relu", 100, 20, "CPUExecutionProvider"),
                                     kernel("b", "Add", 120, 6, "CPUExecutionProvider"),
                                     kernel("a", "Relu", 200, 60, "CPUExecutionProvider")}));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->runs, 3);
  expect_rel(layer(*p, "a").time_s, 30e-6);           // (10 + 20 + 60) / 3
  expect_rel(*layer(*p, "a").median_s, 20e-6);
  expect_rel(layer(*p, "b").time_s, 10e-6 / 3);       // absent from run 3: counts 0 there
  expect_rel(*layer(*p, "b").median_s, 4e-6);
}

TEST(OnnxRuntimeProfile, OlderVersionWithoutShapesKeepsSizesAsBytes) {
  // ONNX Runtime before 1.7: graph_index/exec_plan_index, no type shapes.
  const std::string extra =
      ",\"graph_index\" : \"0\",\"exec_plan_index\" : \"0\",\"activation_size\" : \"400\",\"parameter_size\" : \"36\","
      "\"output_size\" : \"400\"";
  Result<LayerProfile> p = read(ort({kernel("c", "Conv", 0, 8, "CPUExecutionProvider", extra)}));
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_FALSE(p->layers[0].flops);
  EXPECT_DOUBLE_EQ(*p->layers[0].bytes, 836);
  EXPECT_EQ(p->layers[0].bytes_provenance, Provenance::declared);
}

TEST(OnnxRuntimeProfile, ControlFlowNodesKeepOnlyTheirOwnTime) {
  // An If node whose subgraph ran a kernel inside it, on the same thread.
  Result<LayerProfile> p = read(ort({kernel("if", "If", 0, 100, "CPUExecutionProvider"),
                                     kernel("then_add", "Add", 20, 30, "CPUExecutionProvider")}));
  ASSERT_TRUE(p) << p.error().message;
  expect_rel(layer(*p, "if").time_s, 70e-6);
  expect_rel(layer(*p, "then_add").time_s, 30e-6);
}

TEST(OnnxRuntimeProfile, HostileProfilesAreRefusedWithFileAndLine) {
  auto error = [](const std::string& text) { return refusal(read(text, "onnxruntime")); };
  EXPECT_EQ(error(ort({kernel("a", "Relu", 0, -5, "CPUExecutionProvider")})),
            "p.json:2: event \"a_kernel_time\": negative duration -5 us");
  EXPECT_EQ(error(ort({kernel("a", "Relu", 0, 1, "CPUExecutionProvider"),
                       kernel("b", "Conv", 1, 1, "CPUExecutionProvider",
                              ",\"input_type_shape\" : [{\"float\":[1000,1000,1000]}]")})),
            "p.json:3: \"input_type_shape\": a tensor of 1e+09 elements (at most 5.369e+08, 2^29)");
  EXPECT_EQ(error(ort({kernel("a", "Relu", 0, 1, "CPUExecutionProvider", ",\"output_size\" : \"-4\"")})),
            "p.json:2: \"output_size\": negative size -4");
  EXPECT_EQ(error("[\n{\"cat\": \"Node\", \"name\": \"a_kernel_time\",\n\"ts\": 1, \"dur\": }\n]"),
            "p.json:3:17: not valid JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or a "
            "literal");
  EXPECT_EQ(error("[{\"cat\": \"Session\", \"name\": \"model_run\", \"ts\": 0, \"dur\": 5}]"),
            "p.json: no \"<node>_kernel_time\" events of category \"Node\" (was profiling on?)");
  EXPECT_EQ(error(std::string(65 << 20, ' ')).substr(0, 42), "p.json: 68157440 bytes: a profile may have");
  // A 10 MB name within the size limit: refused where it stands, not made a metric name.
  EXPECT_EQ(error(ort({kernel(std::string(10 << 20, 'n'), "Relu", 0, 1, "CPUExecutionProvider")})),
            "p.json:2: a name of 10485760 bytes (at most 4096)");
}

}  // namespace
}  // namespace harness
