// Level 5's baseline expectations on hand-made analyses: +inf to +inf is no
// drop, +inf to a number drops without bound, the verdict names the layers.
#include "harness/levels/accuracy.h"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

using ::testing::HasSubstr;

Analysis psnr(std::initializer_list<std::pair<const char*, double>> layers) {
  Analysis a;
  for (auto [layer, db] : layers)
    a.metrics.push_back(Metric::known(Level::accuracy, accuracy_metric_name(layer, "psnr_db"), db, "dB",
                                      Provenance::measured, "t", Better::higher));
  return a;
}

TEST(AccuracyBaseline, PsnrDropsBeyondTheBoundFailNamingTheLayers) {
  const double inf = std::numeric_limits<double>::infinity();
  AccuracyConfig cfg;
  cfg.psnr_drop_max_db = 1.0;
  cfg.psnr_drop_where = "s.toml:20:20";
  Analysis base = psnr({{"conv1", 50}, {"same", inf}, {"softmax", inf}, {"fc", 40}});
  Analysis cur = psnr({{"conv1", 49.5}, {"same", inf}, {"softmax", 30}, {"fc", 38}});
  std::vector<Verdict> v = evaluate_accuracy_baseline(cfg, base, cur);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].check, "accuracy.baseline.psnr_drop_max_db");
  EXPECT_EQ(v[0].status, VerdictStatus::fail);
  EXPECT_EQ(v[0].measured, "largest drop +inf dB (softmax +inf -> 30.00 dB)");
  EXPECT_EQ(v[0].detail, "softmax +inf -> 30.00 dB; fc 40.00 -> 38.00 dB (s.toml:20:20)");
  // Within the bound, and +inf kept: a pass.
  std::vector<Verdict> ok = evaluate_accuracy_baseline(cfg, psnr({{"a", inf}, {"b", 30}}), psnr({{"a", inf}, {"b", 29.5}}));
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].status, VerdictStatus::pass);
  EXPECT_EQ(ok[0].measured, "largest drop 0.50 dB (b 30.00 -> 29.50 dB)");
}

TEST(AccuracyBaseline, NoCommonLayerIsUnavailable) {
  AccuracyConfig cfg;
  cfg.psnr_drop_max_db = 1.0;
  std::vector<Verdict> v = evaluate_accuracy_baseline(cfg, psnr({{"a", 1}}), psnr({{"b", 1}}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, VerdictStatus::unavailable);
  EXPECT_EQ(v[0].measured, "unavailable: no layer has the figure in both runs");
}

}  // namespace
}  // namespace harness
