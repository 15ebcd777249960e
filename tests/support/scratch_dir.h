// A fresh, empty folder for one test: <tmp>/<prefix>-<pid>-<test name>.
// The pid keeps side-by-side processes (ctest -j) apart, the test name keeps
// the tests of one process apart (a parameterised test's "Name/sqlite" gives
// "Name-sqlite"); the caller removes it in TearDown.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace harness::testing_support {

inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : name) c = c == '/' ? '-' : c;
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              (prefix + "-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A fixture whose every test gets such a folder (dir_), removed after it;
// without a prefix the folder is named after the test suite.
class ScratchDirTest : public ::testing::Test {
 protected:
  ScratchDirTest() : prefix_("harness-" + current_suite()) {}
  explicit ScratchDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override { dir_ = fresh_test_dir(prefix_); }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;

 private:
  // The suite's name as one path component ("Engines/RigOverSsh" gives
  // "Engines-RigOverSsh").
  static std::string current_suite() {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = test ? test->test_suite_name() : "test";
    for (char& c : name) c = c == '/' ? '-' : c;
    return name;
  }

  std::string prefix_;
};

}  // namespace harness::testing_support
