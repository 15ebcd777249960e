// End to end: a scenario with [accuracy] (level 5) on the synthetic model
// fixture: run, recorded as a bundle that carries the dumps, replayed to the
// same metrics and verdicts, compared against a baseline run.
#include <filesystem>
#include <fstream>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/run_harness.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kFixture = std::string(HARNESS_SOURCE_DIR) + "/fixtures/accuracy/tinynet/";

class AccuracyRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("harness_accuracy_run_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "runs.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string scenario(const std::string& file, const std::string& device, const std::string& extra) {
    std::ofstream(dir_ / file) << "[scenario]\nname = \"tinynet-accuracy\"\n[rig]\nname = \"localhost\"\n"
                                  "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                  "[accuracy]\nreference = \""
                               << kFixture << "reference\"\ndevice = \"" << kFixture << device << "\"\nmap = \""
                               << kFixture << "layer-map.txt\"\n"
                               << extra;
    return (dir_ / file).string();
  }

  CommandResult harness(std::vector<std::string> args) {
    args.push_back("--db");
    args.push_back(db_);
    return testing_support::run_harness(args, CommandOptions{});
  }

  static const nlohmann::json* metric(const nlohmann::json& run, const std::string& name) {
    for (const nlohmann::json& m : run["metrics"])
      if (m["name"] == name) return &m;
    return nullptr;
  }
  static const nlohmann::json* verdict(const nlohmann::json& run, const std::string& check) {
    for (const nlohmann::json& v : run["verdicts"])
      if (v["check"] == check) return &v;
    return nullptr;
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(AccuracyRun, VerdictsNameTheWorstLayerAndTheReplayIsIdentical) {
  std::string s = scenario("s.toml", "device",
                           "isolated = \"" + kFixture + "device-isolated\"\ncosine_min = 0.995\n"
                           "[[accuracy.layer]]\npattern = \"soft*\"\ncosine_min = 0.98\n");
  std::string bundle = (dir_ / "bundle").string();
  CommandResult live = harness({"--json", "run", s, "--record", bundle});
  ASSERT_EQ(live.exit_code, 1) << live.out << live.err;  // head_box's cosine is below 0.995
  nlohmann::json run = nlohmann::json::parse(live.out);
  const nlohmann::json* cos = metric(run, "accuracy.head_box.cosine");
  ASSERT_NE(cos, nullptr);
  EXPECT_EQ((*cos)["level"], "accuracy");
  EXPECT_EQ((*cos)["unit"], "1");
  EXPECT_EQ((*cos)["better"], "higher");
  EXPECT_NEAR((*cos)["value"].get<double>(), 0.99373, 1e-5);
  const nlohmann::json* psnr = metric(run, "accuracy.isolated.softmax.psnr_db");
  ASSERT_NE(psnr, nullptr);
  EXPECT_EQ((*psnr)["unit"], "dB");
  const nlohmann::json* v = verdict(run, "accuracy.expect.cosine_min");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ((*v)["status"], "fail");
  // softmax (0.9865) passes its own pattern's 0.98; head_box alone fails.
  EXPECT_THAT((*v)["detail"].get<std::string>(), HasSubstr("1 of 5 layers below: head_box 0.99373"));
  const nlohmann::json* finite = verdict(run, "accuracy.expect.device_finite");
  ASSERT_NE(finite, nullptr);
  EXPECT_EQ((*finite)["status"], "pass");
  // The bundle carries the dumps, and the replay reads its copies.
  EXPECT_TRUE(fs::exists(fs::path(bundle) / "accuracy" / "reference" / "conv1.npy"));
  EXPECT_TRUE(fs::exists(fs::path(bundle) / "accuracy" / "device" / "Conv_9.bin"));
  EXPECT_TRUE(fs::exists(fs::path(bundle) / "accuracy" / "layer-map.txt"));
  CommandResult replay = harness({"--json", "replay", bundle});
  ASSERT_EQ(replay.exit_code, 1) << replay.err;
  auto mask = [](nlohmann::json j) {
    for (const char* key : {"id", "uuid", "started_at", "ended_at", "origin", "context", "artifacts"}) j.erase(key);
    j["scenario"].erase("path");
    std::string text = j.dump(1);
    for (std::size_t at; (at = text.find("\"replayed\"")) != std::string::npos;) text.replace(at, 10, "\"measured\"");
    return text;
  };
  EXPECT_EQ(mask(run), mask(nlohmann::json::parse(replay.out)));
}

TEST_F(AccuracyRun, BaselinePsnrDropFailsCompareNamingTheLayers) {
  const std::string drop = "[accuracy.baseline]\npsnr_drop_max_db = 1.0\n";
  CommandResult good = harness({"run", scenario("a.toml", "device-isolated", drop)});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  CommandResult worse = harness({"run", scenario("b.toml", "device", drop)});
  ASSERT_EQ(worse.exit_code, 0) << worse.err;
  CommandResult c = harness({"--json", "compare", "2", "--against", "1"});
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  nlohmann::json doc = nlohmann::json::parse(c.out);
  std::string all = doc.dump();
  EXPECT_THAT(all, HasSubstr("accuracy.baseline.psnr_drop_max_db"));
  EXPECT_THAT(all, HasSubstr("no layer's PSNR drops by more than 1 dB against the baseline"));
  EXPECT_THAT(all, HasSubstr("softmax 60.62 -> 21.33 dB"));
}

TEST_F(AccuracyRun, Fp16CandidatesSitBesideTheLayerProfileAndTheHtmlDrawsTheBars) {
  std::string s = scenario("s.toml", "device",
                           "cosine_min = 0.995\n"
                           "[rig.compute]\nint8 = \"4 TOPS\"\n[rig.memory]\ndram = \"20 GB/s\"\n"
                           "[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \"" +
                               kFixture + "layer-profile.csv\"\nprecision = \"int8\"\n");
  CommandResult live = harness({"--json", "run", s});
  ASSERT_EQ(live.exit_code, 1) << live.out << live.err;
  nlohmann::json run = nlohmann::json::parse(live.out);
  const nlohmann::json* share = metric(run, "accuracy.fp16_candidate.head_box.latency_share");
  ASSERT_NE(share, nullptr) << live.out;
  EXPECT_NEAR((*share)["value"].get<double>(), 95.0 / 747.0, 1e-12);
  EXPECT_EQ(metric(run, "accuracy.fp16_candidate.conv1.latency_share"), nullptr);  // passes its threshold
  EXPECT_THAT(run.dump(), HasSubstr("accuracy: FP16-fallback candidates (layers failing a threshold): softmax "
                                    "(cosine 0.986527, 1.6 % of the profiled latency); head_box (cosine 0.993730, "
                                    "12.7 % of the profiled latency); together 14.3 % of the profiled latency would "
                                    "leave INT8"));
  std::string html = (dir_ / "r.html").string();
  CommandResult rep = harness({"report", "1", "--format", "html", "-o", html});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::ifstream in(html);
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(page, HasSubstr("<h2>Level 5: layer-wise accuracy</h2>"));
  EXPECT_THAT(page, HasSubstr("cosine similarity per layer, worst first"));
  EXPECT_THAT(page, HasSubstr("<h3>FP16-fallback candidates</h3>"));
  EXPECT_THAT(page, HasSubstr("<td>head_box</td><td class=\"num\">0.993730</td>"));
  // Level 1 joined by layer name: head_box at 16384 op / 3072 B sits below the 200 op/B ridge.
  EXPECT_THAT(page, HasSubstr("<td class=\"num\">12.7 %</td><td>memory-bound</td>"));
  // Worst first: head_box's bar label comes before conv1's.
  EXPECT_LT(page.find(">head_box</text>"), page.find(">conv1</text>"));
}

TEST_F(AccuracyRun, OnDeviceDumpsComeThroughTheRigTransport) {
  // The local transport's agent is a child process; its file.read op serves the .npz.
  const std::string data = std::string(HARNESS_SOURCE_DIR) + "/tests/data/accuracy/";
  std::ofstream(dir_ / "s.toml") << "[scenario]\nname = \"on-device\"\n[rig]\nname = \"localhost\"\n"
                                    "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                    "[accuracy]\nreference = \""
                                 << data << "ref.npz\"\ndevice = \"" << data << "dev.npz\"\non_device = true\n";
  std::string bundle = (dir_ / "bundle").string();
  CommandResult live = harness({"--json", "run", (dir_ / "s.toml").string(), "--record", bundle});
  ASSERT_EQ(live.exit_code, 0) << live.out << live.err;
  nlohmann::json run = nlohmann::json::parse(live.out);
  const nlohmann::json* cos = metric(run, "accuracy.layer_b.cosine");
  ASSERT_NE(cos, nullptr);
  EXPECT_EQ((*cos)["source"], "accuracy:accuracy/device.npz:layer_b.npy vs accuracy/reference.npz:layer_b.npy");
  EXPECT_TRUE(fs::exists(fs::path(bundle) / "accuracy" / "device.npz"));
  // Over the limit: the agent refuses the file, and the run stops naming it.
  std::ofstream(dir_ / "s.toml", std::ios::app) << "max_fetch_bytes = 100\n";
  CommandResult small = harness({"run", (dir_ / "s.toml").string()});
  EXPECT_NE(small.exit_code, 0);
  EXPECT_THAT(small.out + small.err, HasSubstr("dev.npz"));
  EXPECT_THAT(small.out + small.err, HasSubstr("over the limit of 100 bytes"));
}

TEST_F(AccuracyRun, NanInTheReferenceFailsTheDumpsVerdictNamingTheFile) {
  fs::create_directories(dir_ / "ref");
  fs::create_directories(dir_ / "dev");
  const float ref[] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  const float dev[] = {1.0f, 2.0f, 3.0f};
  std::ofstream(dir_ / "ref" / "l.bin", std::ios::binary).write(reinterpret_cast<const char*>(ref), sizeof ref);
  std::ofstream(dir_ / "dev" / "l.bin", std::ios::binary).write(reinterpret_cast<const char*>(dev), sizeof dev);
  std::ofstream(dir_ / "ref" / "l.json") << R"({"shape": [3], "dtype": "float32"})";
  std::ofstream(dir_ / "dev" / "l.json") << R"({"shape": [3], "dtype": "float32"})";
  std::ofstream(dir_ / "s.toml") << "[scenario]\nname = \"nan\"\n[rig]\nname = \"localhost\"\n"
                                    "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                    "[accuracy]\nreference = \"ref\"\ndevice = \"dev\"\n";
  CommandResult r = harness({"--json", "run", (dir_ / "s.toml").string()});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  nlohmann::json run = nlohmann::json::parse(r.out);
  const nlohmann::json* v = verdict(run, "accuracy.expect.dumps");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ((*v)["status"], "fail");
  EXPECT_THAT((*v)["detail"].get<std::string>(),
              HasSubstr("accuracy/reference/l.bin: the reference holds 1 NaN and 0 Inf values: a reference must be finite"));
}

TEST_F(AccuracyRun, ABadDumpStopsTheRunAsBadInput) {
  fs::create_directories(dir_ / "dev");
  std::ofstream(dir_ / "dev" / "Conv_0.json") << R"({"name": "Conv_0", "shape": [1, 8, 16, 16], "dtype": "int8"})";
  std::ofstream(dir_ / "dev" / "Conv_0.bin") << "short";
  std::ofstream(dir_ / "s.toml") << "[scenario]\nname = \"bad\"\n[rig]\nname = \"localhost\"\n"
                                    "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                    "[accuracy]\nreference = \""
                                 << kFixture << "reference\"\ndevice = \"dev\"\n";
  CommandResult r = harness({"run", (dir_ / "s.toml").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr((dir_ / "dev" / "Conv_0.bin").string() +
                                       ": shape (1, 8, 16, 16) of int8 needs 2048 bytes of data, the file holds 5"));
}

TEST_F(AccuracyRun, MissingDumpsAreNamedWithTheScenarioLine) {
  std::ofstream(dir_ / "s.toml") << "[scenario]\nname = \"bad\"\n[rig]\nname = \"localhost\"\n"
                                    "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                    "[accuracy]\nreference = \"nowhere\"\ndevice = \"dev\"\n";
  CommandResult r = harness({"run", (dir_ / "s.toml").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr((dir_ / "s.toml").string() + ":9:13: [accuracy] reference: " +
                                       (dir_ / "nowhere").string() + ": no such file or directory"));
}

}  // namespace
}  // namespace harness
