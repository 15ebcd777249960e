#include "harness/bundle/bundle.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "harness/bundle/replay.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

const char* kScenario = R"([scenario]
name = "b"
[rig]
name = "r"
[rig.memory]
dram = "measure"
[workload]
builtin = "vector_add"
elements = 16
[roofline]
[latency]
[latency.expect]
latency_p50_max = "1 ms"
)";

class BundleTest : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    bundle_ = (dir_ / "bundle").string();
    std::ofstream(dir_ / "capture.bin") << "raw capture bytes";

    run_.scenario_name = "b";
    run_.scenario_text = kScenario;
    run_.rig = "r";
    run_.status = RunStatus::passed;
    run_.started_at = "2026-11-29T10:00:00.000Z";
    run_.context = {{"host", "box"}};
    rec_.context = run_.context;
    rec_.roofline.emplace();
    rec_.roofline->ceilings.push_back({"bandwidth.seq_read.1t", "B/s", "membw:seq_read", {30e9, 31e9, 29e9}, ""});
    rec_.latency.emplace();
    rec_.latency->source = "builtin:vector_add";
    LatencyCondition none;
    none.latency_s = {0.0005, 0.0006, 0.0004};
    none.start_s = {0, 0.001, 0.002};
    none.window_s = 0.003;
    rec_.latency->conditions.push_back(none);
    rec_.files.push_back({"files/capture.bin", "raw"});
    ASSERT_TRUE(write_bundle(bundle_, run_, rec_, {{(dir_ / "capture.bin").string(), "files/capture.bin", "raw", ""}},
                             "synthetic: made by bundle_test"));
  }

  nlohmann::json manifest() {
    std::ifstream in(fs::path(bundle_) / "manifest.json");
    return nlohmann::json::parse(in);
  }
  void set_manifest(const nlohmann::json& j) { std::ofstream(fs::path(bundle_) / "manifest.json") << j.dump(); }
  std::string load_error(const BundleLimits& limits = {}) {
    Result<LoadedBundle> b = load_bundle(bundle_, limits);
    EXPECT_FALSE(b) << "the bundle loaded, but an error was expected";
    return b ? "" : b.error().message;
  }

  // Rewrites a listed file and its manifest entry, so that only the rule
  // under test can refuse the bundle.
  void rewrite_listed(const std::string& path, const std::string& text) {
    std::ofstream(fs::path(bundle_) / path, std::ios::binary | std::ios::trunc) << text;
    nlohmann::json m = manifest();
    for (auto& f : m["files"]) {
      if (f["path"] == path) {
        f["size"] = text.size();
        f["sha256"] = sha256_hex(text);
      }
    }
    set_manifest(m);
  }
  std::string recording_text() {
    std::ifstream in(fs::path(bundle_) / "recording.json");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string bundle_;
  RunRecord run_;
  Recording rec_;
};

TEST_F(BundleTest, RoundTripsTheRecordingAndReplaysDeterministically) {
  Result<LoadedBundle> b = load_bundle(bundle_);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->scenario_text, kScenario);
  EXPECT_EQ(b->manifest.provenance, "synthetic: made by bundle_test");
  EXPECT_EQ(b->manifest.files.size(), 3u);
  EXPECT_EQ(b->recording.latency->conditions.at(0).latency_s, rec_.latency->conditions.at(0).latency_s);
  EXPECT_EQ(b->recording.base_dir, bundle_);
  Result<RunRecord> first = replay_bundle(*b);
  Result<RunRecord> second = replay_bundle(*b);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->origin, "replay");
  EXPECT_EQ(analysis_fingerprint(first->analysis).dump(), analysis_fingerprint(second->analysis).dump());
  const Metric* bw = first->analysis.find_metric("ceiling.memory.dram");
  ASSERT_TRUE(bw);
  ASSERT_TRUE(bw->value) << bw->unavailable;
  EXPECT_EQ(*bw->value, 30e9);
  EXPECT_EQ(bw->provenance, Provenance::replayed);
  EXPECT_EQ(first->status, RunStatus::passed);
}

TEST_F(BundleTest, RefusesAPathOutsideTheBundle) {
  nlohmann::json m = manifest();
  m["files"][2]["path"] = "../capture.bin";
  set_manifest(m);
  EXPECT_EQ(load_error(), bundle_ + ": file path \"../capture.bin\" points outside the bundle");
  m["files"][2]["path"] = "/etc/passwd";
  set_manifest(m);
  EXPECT_EQ(load_error(), bundle_ + ": file path \"/etc/passwd\" must be relative to the bundle");
}

TEST_F(BundleTest, RefusesASymlinkThatLeavesTheBundle) {
  fs::remove(fs::path(bundle_) / "files/capture.bin");
  fs::create_symlink(dir_ / "capture.bin", fs::path(bundle_) / "files/capture.bin");
  EXPECT_EQ(load_error(), bundle_ + ": file path \"files/capture.bin\" points outside the bundle");
}

TEST_F(BundleTest, NamesAnAlteredFile) {
  std::ofstream(fs::path(bundle_) / "files/capture.bin") << "RAW capture bytes";  // same size
  std::string e = load_error();
  EXPECT_EQ(e.rfind(bundle_ + "/files/capture.bin: sha256 ", 0), 0u) << e;
  EXPECT_NE(e.find("(altered)"), std::string::npos) << e;
}

TEST_F(BundleTest, NamesATruncatedFile) {
  fs::resize_file(fs::path(bundle_) / "files/capture.bin", 3);
  EXPECT_EQ(load_error(), bundle_ + "/files/capture.bin: 3 bytes, the manifest says 17 (truncated or altered)");
}

TEST_F(BundleTest, NamesAMissingFile) {
  fs::remove(fs::path(bundle_) / "files/capture.bin");
  EXPECT_EQ(load_error(),
            bundle_ + "/files/capture.bin: listed in the manifest but No such file or directory");
}

TEST_F(BundleTest, RefusesANewerFormatWithBothVersions) {
  nlohmann::json m = manifest();
  m["format_version"] = 7;
  set_manifest(m);
  EXPECT_EQ(load_error(), bundle_ + "/manifest.json: bundle format version 7 is newer than this harness reads (1)");
}

TEST_F(BundleTest, RefusesOversizedFilesBeforeReadingThem) {
  BundleLimits limits;
  limits.max_file_bytes = 10;
  EXPECT_EQ(load_error(limits), bundle_ + "/files/capture.bin: 17 bytes is more than the 10 allowed");
  nlohmann::json m = manifest();
  m["files"][2]["size"] = 1ull << 60;  // a lie about the size is refused too
  set_manifest(m);
  EXPECT_NE(load_error().find("is more than the"), std::string::npos);
  BundleLimits few;
  few.max_files = 2;
  EXPECT_EQ(load_error(few), bundle_ + "/manifest.json: 3 files is more than the 2 allowed");
}

TEST_F(BundleTest, RefusesGarbageManifests) {
  std::ofstream(fs::path(bundle_) / "manifest.json") << "{not json";
  EXPECT_EQ(load_error(), bundle_ + "/manifest.json:1:3: not valid JSON: syntax error while parsing object key - "
                                 "invalid literal; last read: '{no'; expected string literal");
  set_manifest({{"format", "something-else"}});
  EXPECT_EQ(load_error(), bundle_ + "/manifest.json: not a harness recording manifest (\"format\" is not "
                                 "\"harness-recording\")");
}

// ---- a bundle is a closed world (issue 14) ----

TEST_F(BundleTest, RefusesAManifestThatIsASymlink) {
  fs::rename(fs::path(bundle_) / "manifest.json", dir_ / "elsewhere.json");
  fs::create_symlink(dir_ / "elsewhere.json", fs::path(bundle_) / "manifest.json");
  EXPECT_EQ(load_error(), bundle_ + "/manifest.json: is a symbolic link, not a regular file");
}

TEST_F(BundleTest, RefusesAListedFifoWithoutBlocking) {
  fs::remove(fs::path(bundle_) / "files/capture.bin");
  ASSERT_EQ(::mkfifo((fs::path(bundle_) / "files/capture.bin").c_str(), 0600), 0);
  EXPECT_EQ(load_error(), bundle_ + "/files/capture.bin: is a FIFO, not a regular file (a bundle holds only regular files)");
}

TEST_F(BundleTest, RefusesAListedDeviceBehindASymlink) {
  fs::remove(fs::path(bundle_) / "files/capture.bin");
  fs::create_symlink("/dev/zero", fs::path(bundle_) / "files/capture.bin");
  EXPECT_EQ(load_error(), bundle_ + ": file path \"files/capture.bin\" points outside the bundle");
}

TEST_F(BundleTest, RefusesAListedSymlinkInsideTheBundle) {
  fs::rename(fs::path(bundle_) / "files/capture.bin", fs::path(bundle_) / "files/real.bin");
  fs::create_symlink("real.bin", fs::path(bundle_) / "files/capture.bin");
  EXPECT_EQ(load_error(), bundle_ + "/files/capture.bin: is a symbolic link, not a regular file (a bundle holds only regular files)");
}

TEST_F(BundleTest, RefusesACapturePathTheManifestDoesNotList) {
  for (const char* capture : {"/etc/passwd", "../capture.bin", "files/other.sr"}) {
    nlohmann::json r = nlohmann::json::parse(recording_text());
    r["ddr"] = {{"capture", capture}, {"sha256", ""}, {"format", "vcd"}};
    rewrite_listed("recording.json", r.dump());
    EXPECT_EQ(load_error(), bundle_ + ": recording.json names the capture \"" + capture +
                                "\", which is not a file listed in the manifest (a replay reads only the bundle's "
                                "listed files)");
  }
}

// Issue 29: level 5's dumps and layer map, named by recording.json, were read
// wherever they pointed (absolute, "../..", /dev/zero, a FIFO).
TEST_F(BundleTest, RefusesAccuracyDumpsAndMapsTheManifestDoesNotList) {
  auto with_accuracy = [&](const std::string& path, const std::string& file, const std::string& map) {
    nlohmann::json r = nlohmann::json::parse(recording_text());
    r["accuracy"] = {{"dumps", {{{"role", "reference"}, {"path", path}, {"source", "file:x"},
                                 {"files", {{{"name", file}, {"sha256", ""}, {"size", 0}}}}}}},
                     {"map", map},
                     {"unavailable", ""}};
    rewrite_listed("recording.json", r.dump());
  };
  with_accuracy("files", "files/capture.bin", "");
  ASSERT_TRUE(load_bundle(bundle_)) << "a folder of listed files is a dump";
  with_accuracy("files/capture.bin", "files/capture.bin", "files/capture.bin");
  ASSERT_TRUE(load_bundle(bundle_)) << "so is a listed file";
  const std::string tail = "in the manifest (a replay reads only the bundle's listed files)";
  for (const std::string name : {"/etc/passwd", "../capture.bin", "/dev/zero", "files/../../x", ".", ""}) {
    SCOPED_TRACE(name);
    with_accuracy(name, "files/capture.bin", "");
    EXPECT_EQ(load_error(), bundle_ + ": recording.json names the accuracy dump \"" + name +
                                "\", which is neither a file nor a folder listed " + tail);
    if (name.empty()) continue;
    with_accuracy("files", name, "");
    EXPECT_EQ(load_error(), bundle_ + ": recording.json names the file \"" + name + "\", which is not a file listed " + tail);
    with_accuracy("files", "files/capture.bin", name);
    EXPECT_EQ(load_error(), bundle_ + ": recording.json names the file \"" + name + "\", which is not a file listed " + tail);
  }
}

TEST_F(BundleTest, RefusesACaptureWhoseDigestDiffersFromTheRecording) {
  nlohmann::json r = nlohmann::json::parse(recording_text());
  r["ddr"] = {{"capture", "files/capture.bin"}, {"sha256", "00"}, {"format", "vcd"}};
  rewrite_listed("recording.json", r.dump());
  EXPECT_EQ(load_error(), bundle_ + ": the capture files/capture.bin has sha256 " + sha256_hex("raw capture bytes") +
                              ", but the recording says 00 (altered)");
}

TEST_F(BundleTest, RefusesADeeplyNestedRecordingBeforeBuildingIt) {
  std::string nested = "{\"format_version\": 1, \"x\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
  rewrite_listed("recording.json", nested);
  EXPECT_EQ(load_error(), bundle_ + "/recording.json:1:91: JSON nested deeper than 64 levels");
}

// A recording within its size but whose values would take gigabytes: refused
// by the memory its values take, as they are built.
TEST_F(BundleTest, RefusesARecordingWhoseValuesWouldTakeTooMuchMemory) {
  std::string wide = "{\"format_version\": 1, \"x\": [{}";
  for (int i = 0; i < 200000; ++i) wide += ",{}";
  rewrite_listed("recording.json", wide + "]}");
  BundleLimits limits;
  limits.recording.memory = 8 << 20;
  EXPECT_EQ(load_error(limits), bundle_ + "/recording.json: JSON values would take more than 8388608 bytes of memory "
                                       "(the limit for this input)");
}

TEST_F(BundleTest, RefusesAnOversizedManifestBeforeReadingIt) {
  std::ofstream(fs::path(bundle_) / "manifest.json", std::ios::app) << std::string(5 << 20, ' ');
  std::string e = load_error();
  EXPECT_EQ(e.rfind(bundle_ + "/manifest.json: ", 0), 0u) << e;
  EXPECT_NE(e.find(" bytes is more than the 4194304 allowed"), std::string::npos) << e;
}

TEST_F(BundleTest, CounterGroupsResolveInsideTheBundle) {
  std::string scenario = std::string(kScenario) + "[counters]\ngroups = [\"../outside.toml\"]\n";
  rewrite_listed("scenario.toml", scenario);
  Result<LoadedBundle> b = load_bundle(bundle_);
  ASSERT_TRUE(b) << b.error().message;
  Result<RunRecord> r = replay_bundle(*b);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("counter group \"../outside.toml\" is not a file of the bundle " + bundle_ +
                                   " (in a bundle, a group named by path must be relative and listed in its "
                                   "manifest)"),
            std::string::npos)
      << r.error().message;
  // A bare name is the bundle's own groups/<name>.toml only when listed:
  // an unlisted file there is not read, the shipped group is.
  rewrite_listed("scenario.toml", std::string(kScenario) + "[counters]\ngroups = [\"linux-host\"]\n");
  fs::create_directories(fs::path(bundle_) / "groups");
  std::ofstream(fs::path(bundle_) / "groups/linux-host.toml") << "not toml at all [";
  b = load_bundle(bundle_);
  ASSERT_TRUE(b) << b.error().message;
  r = replay_bundle(*b);
  EXPECT_TRUE(r) << r.error().message;
}

TEST_F(BundleTest, TheScenariosCounterGroupsTravelWithTheBundle) {
  RunRecord run = run_;
  run.scenario_text = std::string(kScenario) + "[counters]\ngroups = [\"linux-host\"]\n";
  const std::string dir = (dir_ / "with-groups").string();
  ASSERT_TRUE(write_bundle(dir, run, rec_, {{(dir_ / "capture.bin").string(), "files/capture.bin", "raw", ""}}, "x"));
  Result<LoadedBundle> b = load_bundle(dir);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->files.count("groups/linux-host.toml"), 1u);
  std::ifstream shipped(std::string(HARNESS_SOURCE_DIR) + "/scenarios/groups/linux-host.toml");
  std::ifstream copied(dir + "/groups/linux-host.toml");
  std::stringstream a, c;
  a << shipped.rdbuf();
  c << copied.rdbuf();
  EXPECT_EQ(a.str(), c.str());
  Result<RunRecord> r = replay_bundle(*b);
  ASSERT_TRUE(r) << r.error().message;
}

TEST_F(BundleTest, WritingIntoANonEmptyFolderIsRefused) {
  Status s = write_bundle(bundle_, run_, rec_, {}, "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, bundle_ + ": the recording folder must be empty or absent");
}

TEST(FingerprintDifference, NamesTheMetricAndBothValues) {
  Analysis a;
  Metric m;
  m.name = "latency_p95";
  m.value = 0.5;
  m.unit = "s";
  a.metrics.push_back(m);
  Analysis b = a;
  b.metrics[0].value = 0.75;
  EXPECT_EQ(describe_fingerprint_difference(analysis_fingerprint(a), analysis_fingerprint(b)),
            "metric latency_p95: value 0.75 expected 0.5\n");
  EXPECT_EQ(describe_fingerprint_difference(analysis_fingerprint(a), analysis_fingerprint(a)), "");
}

}  // namespace
}  // namespace harness
