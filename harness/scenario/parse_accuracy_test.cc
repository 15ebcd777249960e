#include <gtest/gtest.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/scenario.h"

namespace harness {
namespace {

Result<Scenario> parse(const std::string& accuracy) {
  return parse_scenario("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                        "elements = 4\n[accuracy]\n" + accuracy,
                        "dir/t.toml");
}

TEST(ParseAccuracy, PathsResolveAgainstTheScenarioAndPatternsKeepTheirOrder) {
  Result<Scenario> s = parse(R"(reference = "fp32"
device = "/abs/int8.npz"
isolated = "iso"
map = "m.txt"
cosine_min = 0.99
psnr_min_db = 30
worst = 5
[[accuracy.layer]]
pattern = "head_*"
cosine_min = 0.95
[[accuracy.layer]]
pattern = "*"
psnr_min_db = 20
[accuracy.baseline]
psnr_drop_max_db = 1
)");
  ASSERT_TRUE(s) << s.error().message;
  const AccuracyConfig& a = *s->accuracy;
  EXPECT_EQ(a.reference.path, "dir/fp32");
  EXPECT_EQ(a.device.path, "/abs/int8.npz");
  ASSERT_TRUE(a.isolated);
  EXPECT_EQ(a.isolated->path, "dir/iso");
  EXPECT_EQ(a.map_path, "dir/m.txt");
  EXPECT_EQ(a.cosine_min, 0.99);
  EXPECT_EQ(a.psnr_min_db, 30);
  EXPECT_EQ(a.worst, 5);
  ASSERT_EQ(a.layers.size(), 2u);
  EXPECT_EQ(a.layers[0].pattern, "head_*");
  EXPECT_EQ(a.layers[0].where, "dir/t.toml:16:1");
  EXPECT_EQ(a.psnr_drop_max_db, 1.0);
}

TEST(ParseAccuracy, ErrorsPointAtTheKey) {
  EXPECT_EQ(parse("device = \"d\"\n").error().message,
            "dir/t.toml:8:1: [accuracy] is missing required key 'reference' (the reference (FP32) dumps: a directory or an "
            ".npz archive)");
  EXPECT_EQ(parse("reference = \"r\"\ndevice = \"d\"\ncosine_min = 1.5\n").error().message,
            "dir/t.toml:11:14: [accuracy] cosine_min: a cosine similarity lies in [-1, 1]");
  EXPECT_EQ(parse("reference = \"r\"\ndevice = \"d\"\non_device = true\n").error().message,
            "dir/t.toml:10:10: [accuracy] device: with on_device = true the dumps are fetched as one file each: give "
            "an .npz archive");
  EXPECT_EQ(parse("reference = \"r\"\ndevice = \"d\"\n[[accuracy.layer]]\npattern = \"x\"\n").error().message,
            "dir/t.toml:11:1: [accuracy.layer] is missing required key 'cosine_min' (a threshold (cosine_min or "
            "psnr_min_db) for the layers it matches)");
}

// The bound keys are the catalogue's (accuracy.<layer>.cosine: cosine_min and
// baseline.cosine_drop_max; psnr_db likewise); a misspelt one names its line
// and the closest key.
TEST(ParseAccuracy, TheKeysAreTheCataloguesAndAnUnknownOneSaysTheClosest) {
  EXPECT_EQ(find_catalogue_entry(Level::accuracy, "accuracy.conv1.cosine")->expectation_keys(),
            (std::vector<std::string>{"cosine_min", "baseline.cosine_drop_max"}));
  EXPECT_EQ(find_catalogue_entry(Level::accuracy, "accuracy.conv1.psnr_db")->expectation_keys(),
            (std::vector<std::string>{"psnr_min_db", "baseline.psnr_drop_max_db"}));
  Result<Scenario> s = parse("reference = \"r\"\ndevice = \"d\"\n[accuracy.baseline]\ncosine_drop_max = 0.01\n");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->accuracy->cosine_drop_max, 0.01);
  EXPECT_EQ(s->accuracy->cosine_drop_where, "dir/t.toml:12:19");
  EXPECT_EQ(parse("reference = \"r\"\ndevice = \"d\"\ncosine_mim = 0.9\n").error().message,
            "dir/t.toml:11:1: unknown key 'cosine_mim' in [accuracy]; did you mean 'cosine_min'?");
  EXPECT_EQ(parse("reference = \"r\"\ndevice = \"d\"\n[[accuracy.layer]]\npattern = \"x\"\ncosine_min = 0.9\n"
                  "psnr_mindb = 20\n")
                .error()
                .message,
            "dir/t.toml:14:1: unknown key 'psnr_mindb' in [accuracy.layer]; did you mean 'psnr_min_db'?");
  EXPECT_EQ(parse("reference = \"r\"\ndevice = \"d\"\n[accuracy.baseline]\npsnr_drop_max = 1\n").error().message,
            "dir/t.toml:12:1: unknown key 'psnr_drop_max' in [accuracy.baseline]; did you mean 'psnr_drop_max_db'?");
}

TEST(LayerPattern, GlobMatchesWholeNames) {
  EXPECT_TRUE(layer_pattern_matches("head_*", "head_box"));
  EXPECT_TRUE(layer_pattern_matches("*conv?", "backbone.conv3"));
  EXPECT_TRUE(layer_pattern_matches("*", ""));
  EXPECT_FALSE(layer_pattern_matches("head_*", "a_head_box"));
  EXPECT_FALSE(layer_pattern_matches("conv?", "conv12"));
  EXPECT_TRUE(layer_pattern_matches("a*b*c", "aXXbYYbc"));
}

}  // namespace
}  // namespace harness
