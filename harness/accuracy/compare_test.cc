// The metrics against float64 NumPy values (scripts/gen-accuracy-vectors.py
// wrote tests/data/accuracy/ and expected.json), pairing and bad pairs.
#include "harness/accuracy/compare.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/scratch_dir.h"

namespace harness::accuracy {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/";

nlohmann::json expected() {
  std::ifstream in(kData + "expected.json");
  return nlohmann::json::parse(in);
}

void expect_figure(const Figure& f, const nlohmann::json& want, const std::string& what) {
  SCOPED_TRACE(what);
  if (want.is_null()) {
    EXPECT_FALSE(f.value) << *f.value;
    EXPECT_FALSE(f.unavailable.empty());
    return;
  }
  ASSERT_TRUE(f.value) << f.unavailable;
  if (want.is_string()) {
    ASSERT_EQ(want.get<std::string>(), "+inf");
    EXPECT_TRUE(std::isinf(*f.value) && *f.value > 0) << *f.value;
    return;
  }
  const double w = want.get<double>();
  if (w == 0) EXPECT_EQ(*f.value, 0.0);
  else EXPECT_LE(std::fabs(*f.value - w), 1e-9 * std::fabs(w)) << "got " << *f.value << " want " << w;
}

void expect_layer(const LayerAccuracy& l, const nlohmann::json& e) {
  SCOPED_TRACE(l.layer);
  EXPECT_EQ(l.stats.elements, e["elements"].get<std::uint64_t>());
  EXPECT_EQ(l.stats.compared, e["compared"].get<std::uint64_t>());
  EXPECT_EQ(l.stats.dev_nan, e["device_nan"].get<std::uint64_t>());
  EXPECT_EQ(l.stats.dev_inf, e["device_inf"].get<std::uint64_t>());
  EXPECT_EQ(l.stats.ref_nan + l.stats.ref_inf, 0u);
  expect_figure(l.metrics.cosine, e["cosine"], "cosine");
  expect_figure(l.metrics.psnr_db, e["psnr_db"], "psnr_db");
  expect_figure(l.metrics.sqnr_db, e["sqnr_db"], "sqnr_db");
  expect_figure(l.metrics.max_abs_error, e["max_abs_error"], "max_abs_error");
  expect_figure(l.metrics.mean_abs_error, e["mean_abs_error"], "mean_abs_error");
  expect_figure(l.metrics.relative_l2, e["relative_l2"], "relative_l2");
  expect_figure(Figure::of(l.metrics.peak), e["psnr_peak"], "psnr_peak");
}

TEST(AccuracyVectors, EveryMetricMatchesNumpyToOneInABillion) {
  Result<AccuracyComparison> c = compare_tensor_sets(kData + "ref", kData + "dev", {});
  ASSERT_TRUE(c) << c.error().message;
  nlohmann::json want = expected();
  ASSERT_EQ(c->layers.size(), want["directory"].size());
  for (const LayerAccuracy& l : c->layers) {
    ASSERT_TRUE(want["directory"].contains(l.layer)) << l.layer;
    expect_layer(l, want["directory"][l.layer]);
  }
  EXPECT_EQ(c->reference_only, (std::vector<std::string>{"only_in_reference"}));
  EXPECT_EQ(c->device_only, (std::vector<std::string>{"only_in_device"}));
}

TEST(AccuracyVectors, NpzStoredAgainstDeflatedMatchesNumpy) {
  Result<AccuracyComparison> c = compare_tensor_sets(kData + "ref.npz", kData + "dev.npz", {});
  ASSERT_TRUE(c) << c.error().message;
  nlohmann::json want = expected();
  ASSERT_EQ(c->layers.size(), 2u);
  for (const LayerAccuracy& l : c->layers) expect_layer(l, want["npz"][l.layer]);
}

TEST(AccuracyVectors, DeviceNanIsCountedAndTheMetricsStayNumbers) {
  Result<AccuracyComparison> c = compare_tensor_sets(kData + "ref", kData + "dev", {});
  ASSERT_TRUE(c) << c.error().message;
  auto l = std::find_if(c->layers.begin(), c->layers.end(), [](const LayerAccuracy& x) { return x.layer == "device_nan"; });
  ASSERT_NE(l, c->layers.end());
  EXPECT_TRUE(l->device_non_finite());
  EXPECT_EQ(l->stats.dev_nan, 2u);
  EXPECT_EQ(l->stats.dev_inf, 1u);
  ASSERT_TRUE(l->metrics.cosine.value);
  EXPECT_TRUE(std::isfinite(*l->metrics.cosine.value));
  // Worst first puts it ahead of every finite layer.
  EXPECT_EQ(worst_first(c->layers)[0]->layer, "device_nan");
}

TEST(ErrorAccumulatorTest, ChunkingDoesNotChangeTheSums) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  std::vector<double> r(100003), d(100003);
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] = static_cast<float>(g(rng));
    d[i] = static_cast<float>(r[i] + 0.01 * g(rng));
  }
  ErrorAccumulator whole, pieces;
  whole.add(r.data(), d.data(), r.size());
  for (std::size_t at = 0; at < r.size(); at += 777) pieces.add(r.data() + at, d.data() + at, std::min<std::size_t>(777, r.size() - at));
  ErrorStats a = whole.finish(), b = pieces.finish();
  EXPECT_EQ(a.compared, b.compared);
  EXPECT_NEAR(a.sum_ee, b.sum_ee, 1e-12 * a.sum_ee);
  EXPECT_NEAR(a.sum_rd, b.sum_rd, 1e-12 * a.sum_rd);
  EXPECT_EQ(a.max_abs_error, b.max_abs_error);
  EXPECT_EQ(a.ref_min, b.ref_min);
}

TEST(CompensatedSumTest, KeepsWhatAPlainSumLoses) {
  CompensatedSum s;
  s.add(1e16);
  for (int i = 0; i < 1000; ++i) s.add(1.0);
  s.add(-1e16);
  EXPECT_EQ(s.value(), 1000.0);
}

TEST(LayerMapTest, ParsesPairsAndNamesTheLineOfAnError) {
  Result<LayerMap> m = parse_layer_map("# ref dev\nconv1 Conv_0\n\n  fc  Gemm_7  # the head\n", "m.txt");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(*m, (LayerMap{{"conv1", "Conv_0"}, {"fc", "Gemm_7"}}));
  EXPECT_EQ(parse_layer_map("a b\nc\n", "m.txt").error().message,
            "m.txt:2: expected 'REFERENCE_LAYER DEVICE_LAYER', got 1 fields");
  EXPECT_EQ(parse_layer_map("a b\nc b\n", "m.txt").error().message, "m.txt:2: device layer 'b' is mapped twice");
}

TEST(Pairing, ThroughAMapAndUnpairedListed) {
  std::string fx = std::string(HARNESS_SOURCE_DIR) + "/fixtures/accuracy/tinynet/";
  CompareOptions o;
  o.map_path = fx + "layer-map.txt";
  Result<AccuracyComparison> c = compare_tensor_sets(fx + "reference", fx + "device", o);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->layers.size(), 5u);
  EXPECT_EQ(c->layers[0].layer, "conv1");
  EXPECT_EQ(c->layers[0].device_layer, "Conv_0");
  EXPECT_TRUE(c->reference_only.empty());
  EXPECT_TRUE(c->device_only.empty());
  // Without the map nothing pairs: bad input naming both sides' layers, not
  // a comparison of nothing (issue 29).
  Result<AccuracyComparison> none = compare_tensor_sets(fx + "reference", fx + "device", {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message,
            "no layer of " + fx + "reference pairs with one of " + fx +
                "device: reference layers (5): conv1, conv2, conv3, head_box, softmax; device layers (5): Conv_0, "
                "Conv_3, Conv_6, Conv_9, Softmax_12 (layers pair by name, or through a layer map when the names "
                "differ)");
}

class BadPair : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test and process: ctest -j runs the tests side by side.
    dir_ = testing_support::fresh_test_dir("harness-accuracy-badpair");
    fs::create_directories(dir_ / "ref");
    fs::create_directories(dir_ / "dev");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void raw(const std::string& side, const std::string& name, const std::vector<float>& v, const std::string& shape) {
    std::ofstream(dir_ / side / (name + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    std::ofstream(dir_ / side / (name + ".json")) << R"({"dtype": "float32", "shape": )" << shape << "}";
  }
  fs::path dir_;
};

TEST_F(BadPair, ShapeMismatchNamesBothFiles) {
  raw("ref", "l", {1, 2, 3, 4}, "[2, 2]");
  raw("dev", "l", {1, 2, 3, 4}, "[4]");
  EXPECT_EQ(compare_tensor_sets((dir_ / "ref").string(), (dir_ / "dev").string(), {}).error().message,
            "layer 'l': shape (2, 2) in " + (dir_ / "ref" / "l.bin").string() + " but (4,) in " +
                (dir_ / "dev" / "l.bin").string());
}

TEST_F(BadPair, NanInTheReferenceIsBadInput) {
  raw("ref", "l", {1, NAN, 3, INFINITY}, "[4]");
  raw("dev", "l", {1, 2, 3, 4}, "[4]");
  Result<AccuracyComparison> c = compare_tensor_sets((dir_ / "ref").string(), (dir_ / "dev").string(), {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ExitCode::bad_input);
  EXPECT_EQ(c.error().message,
            (dir_ / "ref" / "l.bin").string() + ": the reference holds 1 NaN and 1 Inf values: a reference must be finite");
}

}  // namespace
}  // namespace harness::accuracy
