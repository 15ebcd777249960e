// End to end: `harness accuracy REF DEV` on the synthetic model fixture and on
// bad inputs the test writes itself (exit 2 naming the file and the reason),
// NaN in the device output (exit 1, a failed check).
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/run_harness.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/tensor_bytes.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using testing_support::floats;
using testing_support::npy;
using testing_support::npy_unpadded_header;

const std::string kFixture = std::string(HARNESS_SOURCE_DIR) + "/fixtures/accuracy/tinynet/";

CommandResult run(const std::vector<std::string>& args) {
  return testing_support::run_harness(args, CommandOptions{});
}

class AccuracyCli : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    fs::create_directories(dir_ / "ref");
    fs::create_directories(dir_ / "dev");
  }
  std::string write(const std::string& rel, const std::string& bytes) {
    std::ofstream(dir_ / rel, std::ios::binary) << bytes;
    return (dir_ / rel).string();
  }
  std::string ref() const { return (dir_ / "ref").string(); }
  std::string dev() const { return (dir_ / "dev").string(); }
  // `harness accuracy ref dev`, refused as bad input (exit 2): what it said.
  std::string refusal() const {
    CommandResult r = run({"accuracy", ref(), dev()});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    return r.err;
  }
};

TEST_F(AccuracyCli, FixtureThroughTheLayerMapNamesTheWorstLayers) {
  CommandResult r = run({"accuracy", kFixture + "reference", kFixture + "device", "--map", kFixture + "layer-map.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("mode: cumulative (the device ran the model end to end; errors accumulate from layer to layer)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("PSNR = 10 log10(peak^2 / MSE), peak = max(ref) - min(ref) of the layer's reference"),
            std::string::npos);
  EXPECT_NE(r.out.find("5 layers compared, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("worst layers: softmax (cosine 0.986527, PSNR 21.33 dB); head_box (cosine 0.993730"),
            std::string::npos)
      << r.out;

  CommandResult j = run({"accuracy", kFixture + "reference", kFixture + "device-isolated", "--map",
                         kFixture + "layer-map.txt", "--mode", "isolated", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.out << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["mode"], "isolated");
  ASSERT_EQ(doc["layers"].size(), 5u);
  EXPECT_EQ(doc["layers"][0]["layer"], "conv1");
  EXPECT_EQ(doc["layers"][0]["device_layer"], "Conv_0");
  EXPECT_EQ(doc["layers"][0]["device_dtype"], "int8 (dequantized)");
  EXPECT_TRUE(doc["layers"][0]["cosine"].is_number());
  EXPECT_EQ(doc["worst_first"][0], "head_box");
}

TEST_F(AccuracyCli, CsvAndThresholdsFailTheWorstLayer) {
  CommandResult r = run({"accuracy", kFixture + "reference", kFixture + "device", "--map",
                         kFixture + "layer-map.txt", "--csv", "--psnr-min-db", "30"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "layer,device_layer,shape,elements,compared,cosine,psnr_db,sqnr_db,max_abs_error,mean_abs_error,"
            "relative_l2,psnr_peak,reference_nan,reference_inf,device_nan,device_inf,check,mode");
  EXPECT_NE(r.out.find("\nhead_box,Conv_9,\"(1, 4, 8, 8)\",256,256,"), std::string::npos) << r.out;
}

TEST_F(AccuracyCli, IdenticalTensorsGivePlusInfinity) {
  write("ref/a.npy", npy("<f4", "(3,)", floats({1, 2, 3})));
  write("dev/a.npy", npy("<f4", "(3,)", floats({1, 2, 3})));
  CommandResult r = run({"accuracy", ref(), dev(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["layers"][0]["psnr_db"], "+inf");
  EXPECT_EQ(doc["layers"][0]["sqnr_db"], "+inf");
  EXPECT_EQ(doc["layers"][0]["relative_l2"], 0.0);
}

TEST_F(AccuracyCli, UnpairedLayersAreListed) {
  write("ref/a.npy", npy("<f4", "(1,)", floats({1})));
  write("ref/b.npy", npy("<f4", "(1,)", floats({1})));
  write("dev/a.npy", npy("<f4", "(1,)", floats({1})));
  write("dev/c.npy", npy("<f4", "(1,)", floats({1})));
  CommandResult r = run({"accuracy", ref(), dev()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("unpaired layers (not compared):\n  reference only: b\n  device only: c\n"), std::string::npos)
      << r.out;
}

// A sidecar nested 400,000 deep (issue 29: it crashed `accuracy`) is read by
// the bounded reader: exit 2 at the bracket past the limit.
TEST_F(AccuracyCli, ADeeplyNestedSidecarIsExitTwo) {
  write("ref/a.npy", npy("<f4", "(3,)", floats({1, 2, 3})));
  write("dev/a.bin", floats({1, 2, 3}));
  const std::string sidecar =
      write("dev/a.json", "{\"shape\": " + std::string(400000, '[') + std::string(400000, ']') + "}");
  CommandResult r = run({"accuracy", ref(), dev()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "harness: error: " + sidecar + ":1:74: JSON nested deeper than 64 levels\n");
}

TEST_F(AccuracyCli, TruncatedNpyIsExitTwo) {
  std::string whole = npy("<f4", "(4,)", floats({1, 2, 3, 4}));
  write("ref/a.npy", whole);
  std::string p = write("dev/a.npy", whole.substr(0, whole.size() - 3));
  EXPECT_EQ(refusal(), "harness: error: " + p +
                           ": shape (4,) of float32 needs 16 bytes of data, the file holds 13: truncated, or the header "
                           "does not match the data\n");
}

TEST_F(AccuracyCli, HeaderLyingAboutTheShapeIsExitTwo) {
  write("ref/a.npy", npy("<f4", "(2,)", floats({1, 2})));
  std::string p = write("dev/a.npy", npy("<f4", "(2, 2)", floats({1, 2})));
  EXPECT_EQ(refusal(), "harness: error: " + p +
                           ": shape (2, 2) of float32 needs 16 bytes of data, the file holds 8: truncated, or the header "
                           "does not match the data\n");
}

TEST_F(AccuracyCli, UnsupportedDtypeIsExitTwo) {
  std::string p = write("ref/a.npy", npy("<c16", "(1,)", std::string(16, '\0')));
  write("dev/a.npy", npy("<f4", "(1,)", floats({1})));
  EXPECT_EQ(refusal(), "harness: error: " + p +
                           ": dtype '<c16' is not supported (float32, float16, bfloat16, float64, int8, uint8, int16, "
                           "int32)\n");
}

TEST_F(AccuracyCli, ShapeMismatchBetweenThePairIsExitTwo) {
  std::string a = write("ref/a.npy", npy("<f4", "(2, 2)", floats({1, 2, 3, 4})));
  std::string b = write("dev/a.npy", npy("<f4", "(4,)", floats({1, 2, 3, 4})));
  EXPECT_EQ(refusal(), "harness: error: layer 'a': shape (2, 2) in " + a + " but (4,) in " + b + "\n");
}

TEST_F(AccuracyCli, TwoToTheFortyElementsInAHundredBytesIsRefusedAtOnce) {
  write("ref/a.npy", npy("<f4", "(1,)", floats({1})));
  const std::string header = npy_unpadded_header("<f4", "(1099511627776,)");
  ASSERT_EQ(header.size(), 80u);  // the 69-byte dict and its newline
  std::string bytes = header + std::string(20, '\0');
  ASSERT_EQ(bytes.size(), 100u);
  std::string p = write("dev/a.npy", bytes);
  CommandResult r = run({"accuracy", ref(), dev()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "harness: error: " + p +
                       ": shape (1099511627776,) of float32 needs 4398046511104 bytes of data, the file holds 20: "
                       "truncated, or the header does not match the data\n");
  EXPECT_LT(r.seconds, 5.0);  // refused from the header, nothing streamed or allocated
}

TEST_F(AccuracyCli, NanInTheReferenceIsExitTwo) {
  std::string p = write("ref/a.npy", npy("<f4", "(3,)", floats({1, NAN, 3})));
  write("dev/a.npy", npy("<f4", "(3,)", floats({1, 2, 3})));
  EXPECT_EQ(refusal(),
            "harness: error: " + p + ": the reference holds 1 NaN and 0 Inf values: a reference must be finite\n");
}

TEST_F(AccuracyCli, NanInTheDeviceOutputFailsTheCheck) {
  write("ref/a.npy", npy("<f4", "(4,)", floats({1, 2, 3, 4})));
  write("dev/a.npy", npy("<f4", "(4,)", floats({1, NAN, 3, INFINITY})));
  CommandResult r = run({"accuracy", ref(), dev(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& l = doc["layers"][0];
  EXPECT_EQ(l["check"], "fail");
  EXPECT_EQ(l["failure"], "the device output holds 1 NaN and 1 Inf values");
  EXPECT_EQ(l["device_nan"], 1);
  EXPECT_EQ(l["compared"], 2);
  ASSERT_TRUE(l["cosine"].is_number());  // over the finite pairs: a number, never NaN
  EXPECT_NEAR(l["cosine"].get<double>(), 1.0, 1e-15);
}

TEST_F(AccuracyCli, MissingInputAndBadMapAreExitTwo) {
  CommandResult r = run({"accuracy", (dir_ / "nowhere").string(), dev()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "harness: error: " + (dir_ / "nowhere").string() + ": no such file or directory\n");
  write("ref/a.npy", npy("<f4", "(1,)", floats({1})));
  write("dev/b.npy", npy("<f4", "(1,)", floats({1})));
  std::string m = write("map.txt", "a b\nx y\n");
  CommandResult bad = run({"accuracy", ref(), dev(), "--map", m});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "harness: error: " + m + ": reference layer 'x' is not among the reference's tensors\n");
}

}  // namespace
}  // namespace harness
