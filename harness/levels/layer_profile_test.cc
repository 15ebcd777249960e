#include "harness/levels/layer_profile.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/support/analysis_metrics.h"

namespace harness {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/fixtures/profiles/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using testing_support::named_metric;
using testing_support::named_value;

// Seed 001's example rig: 4 TOPS, 20 GB/s, ridge 200 op/B.
ProfileCeilings seed_rig() {
  ProfileCeilings c;
  c.peak = 4e12;
  c.bandwidth = 20e9;
  c.peak_name = "ceiling.compute.int8";
  c.bandwidth_name = "ceiling.memory.dram";
  c.provenance = Provenance::declared;
  return c;
}

Result<LayerProfile> parse_layer_profile(const std::string& text, const std::string& path, double element_bytes = 4) {
  ProfileReadOptions o;
  o.element_bytes = element_bytes;
  return read_layer_profile(text, path, o);
}

Analysis analyse_fixture(const std::string& name, int top = 2) {
  Result<LayerProfile> p = parse_layer_profile(fixture(name), name);
  EXPECT_TRUE(p) << p.error().message;
  LayerProfileConfig config;
  config.written = name;
  config.top = top;
  Analysis a;
  if (p) analyse_layer_profile(*p, config, seed_rig(), Provenance::measured, a);
  return a;
}

// The answers worked out in fixtures/profiles/README.md, for both formats.
void expect_known_answers(const Analysis& a) {
  EXPECT_DOUBLE_EQ(named_value(a, "layer.conv1.intensity"), 500);
  EXPECT_DOUBLE_EQ(named_value(a, "layer.fc1.intensity"), 10);
  EXPECT_DOUBLE_EQ(named_value(a, "layer.permute1.intensity"), 0);
  EXPECT_NEAR(named_value(a, "layer.softmax1.intensity"), 0.625, 1e-12);
  EXPECT_NEAR(named_value(a, "layer.conv1.predicted_time"), 0.5e-3, 1e-12);
  EXPECT_NEAR(named_value(a, "layer.fc1.predicted_time"), 5e-3, 1e-12);
  EXPECT_NEAR(named_value(a, "layer.transpose1.predicted_time"), 0.1e-3, 1e-12);
  EXPECT_NEAR(named_value(a, "layer.fc1.time"), 6e-3, 1e-12);
  EXPECT_NEAR(named_value(a, "layer.conv1.prediction_error"), -0.5, 1e-9);
  EXPECT_NEAR(named_value(a, "layer.fc1.prediction_error"), -1.0 / 6, 1e-9);
  EXPECT_NEAR(named_value(a, "layer.permute1.prediction_error"), -1.0 / 3, 1e-9);
  EXPECT_NEAR(named_value(a, "layer.transpose1.prediction_error"), -0.8, 1e-9);
  EXPECT_NEAR(named_value(a, "layer.softmax1.prediction_error"), 0, 1e-9);
  EXPECT_EQ(named_metric(a, "layer.conv1.bound").text, "compute");
  EXPECT_EQ(named_metric(a, "layer.fc1.bound").text, "memory");
  EXPECT_EQ(named_metric(a, "profile.bandwidth_bound").text, "4 of 5: permute1, fc1, transpose1, softmax1");
  EXPECT_EQ(named_value(a, "profile.bandwidth_bound"), 4);
  EXPECT_NEAR(named_value(a, "profile.total_time"), 8.2e-3, 1e-12);
  EXPECT_NEAR(named_value(a, "profile.predicted_time"), 6.2e-3, 1e-12);
  EXPECT_NEAR(named_value(a, "profile.calibration"), 8.2 / 6.2, 1e-9);
  EXPECT_NEAR(named_value(a, "profile.top_time_share"), 7.0 / 8.2, 1e-9);
  EXPECT_EQ(named_metric(a, "profile.top_time_share").text,
            "85.4 % in fc1 6 ms memory-bound, conv1 1 ms compute-bound");
  EXPECT_NEAR(named_value(a, "profile.copy_time_share"), 0.8 / 8.2, 1e-9);
  EXPECT_EQ(named_metric(a, "profile.copy_time_share").text, "9.8 % in permute1, transpose1");
  EXPECT_NEAR(named_value(a, "profile.idle_time"), 0.4e-3, 1e-12);
  EXPECT_EQ(named_value(a, "profile.idle_gaps"), 2);
  EXPECT_NEAR(named_value(a, "profile.idle_gap_max"), 0.3e-3, 1e-12);
  EXPECT_EQ(named_metric(a, "profile.idle_gap_max").text, "0.3 ms between transpose1 and softmax1");
}

TEST(LayerProfile, SyntheticCsvFixtureGivesTheKnownAnswers) {
  expect_known_answers(analyse_fixture("synthetic_layers.csv"));
}

TEST(LayerProfile, SyntheticJsonFixtureGivesTheSameAnswers) {
  Analysis a = analyse_fixture("synthetic_layers.json");
  expect_known_answers(a);
  // Declared flops over bytes modelled from shapes: the weaker, declared.
  EXPECT_EQ(named_metric(a, "layer.softmax1.intensity").provenance, Provenance::declared);
  EXPECT_EQ(named_metric(a, "layer.softmax1.intensity").source,
            "flops (profile flops) / bytes (model: tensor shapes)");
}

TEST(LayerProfile, SeedLayerAtIntensityTenIsCappedAtFivePercent) {
  // 4 TOPS / 20 GB/s: AI 10 -> 200 GOPS attainable = 5 % of the peak.
  Analysis a = analyse_fixture("synthetic_layers.csv");
  double attainable = 1e9 / named_value(a, "layer.fc1.predicted_time");
  EXPECT_NEAR(attainable, 200e9, 1e-3);
  EXPECT_NEAR(attainable / 4e12, 0.05, 1e-12);
}

TEST(LayerProfile, WithoutCeilingsLayersAreUnavailableWithTheReason) {
  Result<LayerProfile> p = parse_layer_profile(fixture("synthetic_layers.csv"), "p.csv");
  ASSERT_TRUE(p);
  ProfileCeilings none;
  none.missing = "memory ceiling dram: no samples";
  Analysis a;
  analyse_layer_profile(*p, LayerProfileConfig{}, none, Provenance::measured, a);
  EXPECT_FALSE(named_metric(a, "layer.fc1.predicted_time").value);
  EXPECT_EQ(named_metric(a, "layer.fc1.predicted_time").unavailable, "memory ceiling dram: no samples");
  EXPECT_DOUBLE_EQ(named_value(a, "layer.fc1.intensity"), 10);  // needs no ceiling
}

TEST(LayerProfile, WithoutTimestampsIdleGapsAreUnavailable) {
  Result<LayerProfile> p = parse_layer_profile("layer,time_ms\na,1\nb,2\n", "p.csv");
  ASSERT_TRUE(p) << p.error().message;
  Analysis a;
  analyse_layer_profile(*p, LayerProfileConfig{}, seed_rig(), Provenance::measured, a);
  EXPECT_EQ(named_metric(a, "profile.idle_time").unavailable, "the profile has no start timestamps");
  EXPECT_EQ(named_metric(a, "layer.a.intensity").unavailable,
            "the profile gives no flops and no bytes for this layer");
  EXPECT_EQ(named_value(a, "profile.unplaced"), 2);
  EXPECT_EQ(named_metric(a, "profile.unplaced").text, "a, b");
}

TEST(LayerProfile, AcceptsColumnAliasesQuotesAndCrLf) {
  Result<LayerProfile> p =
      parse_layer_profile("Name,Op_Type,time_us,flops,bytes\r\n\"conv, first\",conv,10,100,50\r\n", "p.csv");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->layers.size(), 1u);
  EXPECT_EQ(p->layers[0].name, "conv, first");
  EXPECT_EQ(p->layers[0].op, "conv");
  EXPECT_DOUBLE_EQ(p->layers[0].time_s, 10e-6);
  EXPECT_EQ(p->layers[0].where, "p.csv:2");
}

TEST(LayerProfile, ModelsBytesFromShapesAndDtype) {
  Result<LayerProfile> p =
      parse_layer_profile("layer,time_ms,shapes,dtype\na,1,1x64x8x8;64x64x3x3,int8\nb,1,2x3,\n", "p.csv", 2);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_DOUBLE_EQ(*p->layers[0].bytes, 64 * 8 * 8 + 64 * 64 * 3 * 3);
  EXPECT_DOUBLE_EQ(*p->layers[1].bytes, 12);  // element_bytes = 2
  EXPECT_TRUE(p->layers[0].bytes_from_shapes);
}

TEST(LayerProfile, BadFilesNameFileAndLine) {
  auto error = [](const std::string& text, const std::string& path = "bad.csv") {
    Result<LayerProfile> p = parse_layer_profile(text, path);
    EXPECT_FALSE(p);
    EXPECT_EQ(p ? ExitCode::ok : p.error().code, ExitCode::bad_input);
    return p ? std::string("parsed") : p.error().message;
  };
  EXPECT_EQ(error("# c\nop,time_us\nconv,3\n"), "bad.csv:2: missing column 'layer' (the header has: op, time_us)");
  EXPECT_EQ(error("layer,flops\nconv,3\n"),
            "bad.csv:1: no time column: expected one of time_s, time_ms, time_us, time_ns");
  EXPECT_EQ(error("layer,time_us\nconv,3\nfc,abc\n"), "bad.csv:3: column 'time_us': \"abc\" is not a number");
  EXPECT_EQ(error("layer,time_us\nconv,-3\n"), "bad.csv:2: column 'time_us': negative time -3");
  EXPECT_EQ(error("layer,time_us\nconv,\n"), "bad.csv:2: column 'time_us': empty time");
  EXPECT_EQ(error("layer,time_us,flops\nconv,3,1e9,7\n"), "bad.csv:2: expected 3 cells as in the header, got 4");
  EXPECT_EQ(error("layer,time_us\nconv,3\nconv,4\n"), "bad.csv:3: duplicate layer 'conv' (first at bad.csv:2)");
  EXPECT_EQ(error("layer,time_us,time_ms\nconv,3,4\n"),
            "bad.csv:1: columns 'time_ms' and 'time_us' both give the time");
  EXPECT_EQ(error("layer,time_us,shapes\nconv,3,1x-4\n"),
            "bad.csv:2: column 'shapes': \"1x-4\" is not a shape such as 1x64x56x56");
  EXPECT_EQ(error("layer,time_us\n"), "bad.csv: the profile has a header but no layers");
  EXPECT_EQ(error("{\"layers\": [{\"layer\": \"a\", \"time_ms\": \"x\"}]}", "bad.json"),
            "bad.json:1: column 'time_ms': \"x\" is not a number");
  EXPECT_EQ(error("{\"layers\": [\n{\"layer\": \"a\",\n \"time_ms\": }]}", "bad.json"),
            "bad.json:3:13: not valid JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or "
            "a literal");
  EXPECT_EQ(error("[{\"layer\": \"a\", \"time_ms\": 1e999}]", "bad.json"),
            "bad.json:1:32: not valid JSON: number overflow parsing '1e999'");
  EXPECT_EQ(error("a,b\n1,2\n", "p.txt").substr(0, 50), "p.txt: not a profile format the harness reads: onn");
}

// fixtures/profiles/onnxruntime-synthetic.json: 2 runs, a CUDA model with a
// MemcpyToHost and a TopK on the CPU (README beside it has the truth).
TEST(LayerProfile, OnnxRuntimePreAnalysisCountsFallbackCopiesGapsAndFences) {
  Result<LayerProfile> p = read_layer_profile(fixture("onnxruntime-synthetic.json"), "ort.json");
  ASSERT_TRUE(p) << p.error().message;
  LayerProfileConfig config;
  config.written = "ort.json";
  config.top = 2;
  Analysis a;
  analyse_layer_profile(*p, config, seed_rig(), Provenance::measured, a);
  EXPECT_NEAR(named_value(a, "profile.total_time"), 250e-6, 1e-12);
  EXPECT_EQ(named_value(a, "profile.runs"), 2);
  EXPECT_NEAR(named_value(a, "profile.cpu_fallback_share"), 90.0 / 250, 1e-9);
  EXPECT_EQ(named_metric(a, "profile.cpu_fallback_share").text,
            "CPUExecutionProvider 36.0 %, CUDAExecutionProvider 64.0 %");
  EXPECT_NEAR(named_value(a, "profile.copy_time_share"), 30.0 / 250, 1e-9);
  EXPECT_EQ(named_metric(a, "profile.copy_time_share").text, "12.0 % in copy_out");
  EXPECT_NEAR(named_value(a, "profile.idle_time"), 17.5e-6, 1e-12);  // (20 + 15) us over 2 runs
  EXPECT_NEAR(named_value(a, "profile.idle_gap_max"), 10e-6, 1e-12);
  EXPECT_EQ(named_metric(a, "profile.idle_gap_max").text, "0.01 ms between topk and fc");
  EXPECT_NEAR(named_value(a, "profile.sync_time"), 15e-6, 1e-12);
  EXPECT_NEAR(named_value(a, "layer.conv.time_share"), 110.0 / 250, 1e-9);
  EXPECT_EQ(named_metric(a, "layer.conv.intensity").provenance, Provenance::declared);  // model flops, declared sizes
  EXPECT_NEAR(named_value(a, "layer.conv.intensity"), (2.0 * 256 * 27 + 256) / (768 + 448 + 1024), 1e-9);
  EXPECT_EQ(named_value(a, "profile.unplaced"), 1);
  EXPECT_EQ(named_metric(a, "profile.unplaced").text, "topk");
  EXPECT_EQ(named_metric(a, "profile.top_time_share").text,
            "68.0 % in conv 0.11 ms memory-bound, topk 0.06 ms not placed");
}

TEST(LayerProfile, WorkJoinedByNameFromASecondFile) {
  ProfileReadOptions o;
  o.format = "tflite";
  Result<LayerProfile> p = read_layer_profile(fixture("tflite-synthetic.txt"), "bench.txt", o);
  ASSERT_TRUE(p) << p.error().message;
  ProfileReadOptions csv;
  Result<LayerProfile> work =
      read_layer_profile("layer,time_us,flops,bytes\nconv_a,1,2e9,4e6\npool,1,1e6,2e6\nextra,1,1,1\n", "work.csv", csv);
  ASSERT_TRUE(work) << work.error().message;
  std::vector<std::string> unmatched = join_layer_work(*p, *work);
  EXPECT_EQ(unmatched, std::vector<std::string>{"extra"});
  const ProfileLayer& conv = p->layers[0];  // "[conv_a, relu_a]:12" by its output conv_a
  EXPECT_DOUBLE_EQ(*conv.flops, 2e9);
  EXPECT_EQ(conv.flops_source, "profile flops (csv layer \"conv_a\")");
  EXPECT_DOUBLE_EQ(*p->layers[1].bytes, 2e6);
  EXPECT_FALSE(p->layers[2].flops);
}

TEST(LayerProfile, CopyLikeOps) {
  EXPECT_TRUE(is_copy_like("Transpose"));
  EXPECT_TRUE(is_copy_like("reshape_copy"));
  EXPECT_FALSE(is_copy_like("reshape"));
  EXPECT_FALSE(is_copy_like("conv"));
  EXPECT_TRUE(is_copy_like("MemcpyToHost"));
  EXPECT_TRUE(is_copy_like("Transpose (ND, X8)"));  // XNNPACK's name of its operator
  EXPECT_TRUE(is_copy_like("TRANSPOSE"));
}

}  // namespace
}  // namespace harness
