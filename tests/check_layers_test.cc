// scripts/check-layers: the source tree passes, and a tree with an include
// planted against the order of docs/layers.txt fails, naming the file, the
// line and both layers.
#include "probes/process.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

const std::string kScript = std::string(HARNESS_SOURCE_DIR) + "/scripts/check-layers";

CommandResult check(const std::string& root) {
  Result<CommandResult> r = run_command({kScript, root}, {.timeout_s = 60});
  EXPECT_TRUE(r) << r.error().message;
  return r ? *r : CommandResult{};
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

class CheckLayers : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testing_support::fresh_test_dir("harness-layers");
    fs::create_directories(root_ / "docs");
    fs::copy_file(fs::path(HARNESS_SOURCE_DIR) / "docs/layers.txt", root_ / "docs/layers.txt");
    for (const char* folder : {"harness/base", "harness/model", "harness/store", "probes", "harness/scenario",
                               "harness/ddr", "harness/accuracy", "harness/levels", "harness/compare", "harness/rig",
                               "harness/bundle", "reports", "harness/runner", "harness/cli"}) {
      fs::create_directories(root_ / folder);
    }
    write(root_ / "harness/base/result.h", "#pragma once\n");
    write(root_ / "harness/runner/runner.h", "#pragma once\n#include \"harness/base/result.h\"\n");
    write(root_ / "harness/rig/device.h", "#pragma once\n#include \"harness/rig/protocol.h\"\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  // What the check says of a tree it must refuse (exit 1).
  std::string problems() const {
    CommandResult r = check(root_.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    return r.out;
  }
  fs::path root_;
};

TEST(CheckLayersOnTheTree, EveryIncludeOfTheSourcesPointsDownOrAcross) {
  CommandResult r = check(HARNESS_SOURCE_DIR);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(CheckLayers, DownAndAcrossPass) {
  CommandResult r = check(root_.string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "check-layers: 2 includes in 3 files point down or across (8 layers, docs/layers.txt)\n");
}

TEST_F(CheckLayers, AnIncludeThatPointsUpFailsNamingTheFileLineAndLayers) {
  write(root_ / "harness/rig/local_device.cc", "#include \"harness/rig/device.h\"\n\n#include \"harness/runner/runner.h\"\n");
  // A test may include what it likes.
  write(root_ / "harness/base/result_test.cc", "#include \"harness/cli/cli.h\"\n");
  EXPECT_EQ(problems(),
            "harness/rig/local_device.cc:3: includes harness/runner/runner.h: harness/rig (layer 5) is below "
            "harness/runner (layer 7)\n"
            "check-layers: 1 problem (the order: docs/layers.txt)\n");
}

TEST_F(CheckLayers, AFolderInNoLayerAndAnIncludeOfOneFail) {
  write(root_ / "harness/gadgets/gadget.h", "#pragma once\n");
  write(root_ / "harness/cli/main.cc", "#include \"tests/support/scratch_dir.h\"\n");
  EXPECT_EQ(problems(),
            "harness/cli/main.cc:1: includes tests/support/scratch_dir.h, which is in no layer\n"
            "harness/gadgets/gadget.h: its folder is in no layer of docs/layers.txt\n"
            "check-layers: 2 problems (the order: docs/layers.txt)\n");
}

TEST_F(CheckLayers, ALayerFolderThatIsGoneFails) {
  fs::remove_all(root_ / "harness/ddr");
  EXPECT_EQ(problems(), "docs/layers.txt: harness/ddr does not exist\ncheck-layers: 1 problem (the order: docs/layers.txt)\n");
}

}  // namespace
}  // namespace harness
