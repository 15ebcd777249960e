// Level 5 under hostile input (issue 29): every case ends with exit 2 (bad
// input) naming the file, under 500 MB of memory and within 30 s (a hang
// guard, not a speed goal), reading nothing outside its place: dumps and
// maps named by a bundle's recording.json, a sidecar or a layer map are
// resolved inside their folder and opened as regular files only.
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/base/digest.h"
#include "tests/support/measured_command.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/tensor_bytes.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

const std::string kFixture = std::string(HARNESS_SOURCE_DIR) + "/fixtures/accuracy/tinynet/";
constexpr long kMaxRssKb = 500 * 1024;
constexpr double kHangGuardS = 30;
const std::string kFolderRule = " (a tensor folder holds regular files only)";

class AccuracyHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_dir("harness-accuracy-hostile");
    fs::create_directories(dir_ / "ref");
    fs::create_directories(dir_ / "dev");
    fs::create_directories(dir_ / "out");
    write("ref/a.npy", npy("<f4", "(2,)", floats({1, 2})));
    write("dev/a.npy", npy("<f4", "(2,)", floats({1, 2.5})));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& rel, const std::string& bytes) {
    std::ofstream(dir_ / rel, std::ios::binary) << bytes;
    return (dir_ / rel).string();
  }
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }

  // Runs harness and checks the bounds every hostile case is held to.
  MeasuredRun harness(std::vector<std::string> args) {
    args.insert(args.begin(), HARNESS_BINARY);
    MeasuredRun r = run_measured(args, path("out"), kHangGuardS);
    EXPECT_FALSE(r.timed_out) << "still running after " << kHangGuardS << " s";
    EXPECT_EQ(r.signal, 0);
    EXPECT_LT(r.max_rss_kb, kMaxRssKb);
    return r;
  }

  // `harness args` ends as bad input (exit 2) with exactly `message`.
  void expect_bad_input(const std::vector<std::string>& args, const std::string& message) {
    MeasuredRun r = harness(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "harness: error: " + message + "\n");
  }

  fs::path dir_;
};

TEST_F(AccuracyHostile, AMapThatIsADeviceOrAFifoIsRefused) {
  expect_bad_input({"accuracy", path("ref"), path("dev"), "--map", "/dev/zero"},
                   "/dev/zero: is a device, not a regular file");
  ASSERT_EQ(::mkfifo(path("map.fifo").c_str(), 0644), 0);
  expect_bad_input({"accuracy", path("ref"), path("dev"), "--map", path("map.fifo")},
                   path("map.fifo") + ": is a FIFO, not a regular file");
}

// A dump named on the command line, or found in a dump folder, that is a
// device or a FIFO is refused by what it is, before a byte is read (reading
// /dev/zero would never end; opening a FIFO without a writer would block).
TEST_F(AccuracyHostile, ADumpThatIsADeviceOrAFifoIsRefused) {
  expect_bad_input({"accuracy", "/dev/zero", path("dev")}, "/dev/zero: is a device, not a regular file");
  ASSERT_EQ(::mkfifo(path("ref.npy").c_str(), 0644), 0);
  expect_bad_input({"accuracy", path("ref.npy"), path("dev")},
                   path("ref.npy") + ": is a FIFO, not a regular file");
  ASSERT_EQ(::mkfifo(path("dev/b.npy").c_str(), 0644), 0);
  expect_bad_input({"accuracy", path("ref"), path("dev")},
                   path("dev/b.npy") + ": is a FIFO, not a regular file" + kFolderRule);
  fs::remove(dir_ / "dev/b.npy");
  fs::create_symlink("/dev/zero", dir_ / "dev/z.npy");
  expect_bad_input({"accuracy", path("ref"), path("dev")},
                   path("dev/z.npy") + ": is a symbolic link, not a regular file" + kFolderRule);
}

// A sidecar's data named outside its folder (absolute, "..", or a device)
// is refused before anything is opened.
TEST_F(AccuracyHostile, ASidecarNamingDataOutsideItsFolderIsRefused) {
  fs::remove(dir_ / "dev/a.npy");
  for (const std::string name : {"/dev/zero", "../ref/a.npy"}) {
    SCOPED_TRACE(name);
    write("dev/b.json", R"({"name": "a", "shape": [2], "dtype": "float32", "data": ")" + name + R"("})");
    expect_bad_input({"accuracy", path("ref"), path("dev")},
                     path("dev/b.json") + ": file path \"" + name + "\" " +
                         (name[0] == '/' ? "must be relative to" : "points outside") + " the sidecar's folder");
  }
}

TEST_F(AccuracyHostile, ASidecarWhoseDataIsAFifoIsRefused) {
  // In a subfolder, which the folder view does not read: only the sidecar
  // leads to it.
  fs::create_directories(dir_ / "dev/data");
  ASSERT_EQ(::mkfifo(path("dev/data/b.bin").c_str(), 0644), 0);
  write("dev/b.json", R"({"name": "a", "shape": [2], "dtype": "float32", "data": "data/b.bin"})");
  fs::remove(dir_ / "dev/a.npy");
  expect_bad_input({"accuracy", path("ref"), path("dev")},
                   path("dev/data/b.bin") + ": is a FIFO, not a regular file (named by " + path("dev/b.json") + ")");
}

TEST_F(AccuracyHostile, ASymlinkLoopInADumpFolderIsBadInputNamingIt) {
  fs::create_symlink("loop", dir_ / "dev/loop");
  expect_bad_input({"accuracy", path("ref"), path("dev")},
                   path("dev/loop") + ": is a symbolic link, not a regular file" + kFolderRule);
}

TEST_F(AccuracyHostile, AnNpzWhoseEntriesShareOneGibibyteStreamIsRefused) {
  const std::string bytes = npz_sharing_one_stream(4000, std::uint64_t{1} << 30);
  ASSERT_LT(bytes.size(), 1'400'000u);
  const std::string bomb = write("dev.npz", bytes);
  // Every entry is the one local header at 0 and the stream after it, up to
  // the central directory (its offset: the end record's bytes 16-19).
  std::uint32_t end = 0;
  std::memcpy(&end, bytes.data() + bytes.size() - 22 + 16, 4);
  const std::string span = "0-" + std::to_string(end);
  expect_bad_input({"accuracy", path("ref"), bomb},
                   bomb + ": entries 't0.npy' and 't1.npy' overlap (bytes " + span + " and " + span + "): corrupt file");
}

TEST_F(AccuracyHostile, TwoSetsWithNoLayerInCommonAreBadInputNamingBothSides) {
  fs::remove(dir_ / "dev/a.npy");
  write("dev/b.npy", npy("<f4", "(2,)", floats({1, 2})));
  expect_bad_input({"accuracy", path("ref"), path("dev")},
                   "no layer of " + path("ref") + " pairs with one of " + path("dev") +
                       ": reference layers (1): a; device layers (1): b (layers pair by name, or through a layer "
                       "map when the names differ)");
}

// A recorded run's bundle, its recording.json then altered as an attacker
// would (the manifest made to agree, so that only the rule under test
// refuses it).
class AccuracyBundleHostile : public AccuracyHostile {
 protected:
  void SetUp() override {
    AccuracyHostile::SetUp();
    std::ofstream(dir_ / "s.toml") << "[scenario]\nname = \"tinynet-accuracy\"\n[rig]\nname = \"localhost\"\n"
                                      "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                      "[accuracy]\nreference = \""
                                   << kFixture << "reference\"\ndevice = \"" << kFixture << "device\"\nmap = \""
                                   << kFixture << "layer-map.txt\"\n";
    bundle_ = path("bundle");
    MeasuredRun live = harness({"run", path("s.toml"), "--record", bundle_, "--db", path("runs.db")});
    ASSERT_EQ(live.exit_code, 0) << live.err;
  }
  nlohmann::json read_json(const std::string& rel) {
    std::ifstream in(fs::path(bundle_) / rel);
    return nlohmann::json::parse(in);
  }
  void rewrite_recording(const nlohmann::json& recording) {
    const std::string text = recording.dump(1);
    std::ofstream(fs::path(bundle_) / "recording.json", std::ios::trunc) << text;
    nlohmann::json m = read_json("manifest.json");
    for (auto& f : m["files"])
      if (f["path"] == "recording.json") f["size"] = text.size(), f["sha256"] = sha256_hex(text);
    std::ofstream(fs::path(bundle_) / "manifest.json", std::ios::trunc) << m.dump(2);
  }
  std::string bundle_;
};

TEST_F(AccuracyBundleHostile, DumpsAndMapsNamedOutsideTheBundleAreRefused) {
  MeasuredRun clean = harness({"replay", bundle_, "--db", path("runs.db")});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  const nlohmann::json original = read_json("recording.json");
  ASSERT_TRUE(original.contains("accuracy"));
  ASSERT_EQ(::mkfifo(path("outside.fifo").c_str(), 0644), 0);
  const std::vector<std::string> names = {kFixture + "reference", "../../" + fs::path(kFixture).filename().string(),
                                          "/dev/zero", path("outside.fifo"), "accuracy/../../out"};
  for (const std::string& name : names) {
    for (const char* field : {"dump", "file", "map"}) {
      SCOPED_TRACE(name + " as the " + field);
      nlohmann::json r = original;
      std::string what = "the file \"" + name + "\", which is not a file listed";
      if (std::string(field) == "dump") {
        r["accuracy"]["dumps"][0]["path"] = name;
        what = "the accuracy dump \"" + name + "\", which is neither a file nor a folder listed";
      } else if (std::string(field) == "file") {
        r["accuracy"]["dumps"][0]["files"][0]["name"] = name;
      } else {
        r["accuracy"]["map"] = name;

      }
      rewrite_recording(r);
      expect_bad_input({"replay", bundle_, "--db", path("runs.db")},
                       bundle_ + ": recording.json names " + what + " in the manifest (a replay reads only the bundle's listed files)");
    }
  }
}

TEST_F(AccuracyHostile, ASymlinkLoopInARunsDumpFolderIsBadInputBeforeTheRunStarts) {
  fs::create_symlink("loop", dir_ / "dev/loop");
  std::ofstream(dir_ / "s.toml") << "[scenario]\nname = \"loop\"\n[rig]\nname = \"localhost\"\n"
                                    "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                                    "[accuracy]\nreference = \""
                                 << path("ref") << "\"\ndevice = \"" << path("dev") << "\"\n";
  MeasuredRun r = harness({"run", path("s.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The scenario's check of its dump folders refuses it, naming the line.
  EXPECT_NE(r.err.find(path("s.toml") + ":9:13: [accuracy]: " + path("dev/loop") +
                       ": is a symbolic link, not a regular file (a tensor folder holds regular files only)\n"),
            std::string::npos)
      << r.err;
  MeasuredRun runs = harness({"runs", "--db", path("runs.db")});
  EXPECT_EQ(runs.out, "no runs stored\n") << runs.err;
}

}  // namespace
}  // namespace harness
