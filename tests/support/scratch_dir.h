// A fresh, empty folder for one test: <tmp>/<prefix>-<pid>-<test name>.
// The pid keeps side-by-side processes (ctest -j) apart, the test name keeps
// the tests of one process apart (a parameterised test's "Name/sqlite" gives
// "Name-sqlite"); the caller removes it in TearDown.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

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

}  // namespace harness::testing_support
