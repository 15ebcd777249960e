// The fixtures of a test that runs on each store engine (store_engines.h): a
// fresh folder of its own (scratch_dir.h) with an empty store there; it skips,
// with the reason, where the engine is not available. A derived SetUp that
// goes on after the fixture's SetUp returns first when IsSkipped().
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "harness/store/store.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/store_engines.h"

namespace harness::testing_support {

class StoreEngineTest : public ::testing::TestWithParam<StoreEngine> {
 protected:
  // `prefix` names the folder (fresh_test_dir), `file` the SQLite file.
  explicit StoreEngineTest(std::string prefix, std::string file = "runs.sqlite")
      : prefix_(std::move(prefix)), file_(std::move(file)) {}

  void SetUp() override {
    dir_ = fresh_test_dir(prefix_);
    target_.emplace(GetParam(), dir_, file_);
    if (!target_->unavailable().empty()) GTEST_SKIP() << target_->unavailable();
    db_ = target_->target();
  }
  void TearDown() override {
    target_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::optional<TestStore> target_;
  std::string db_;  // what --db and Store::open take

 private:
  std::string prefix_, file_;
};

// The same with the store open (store_).
class OpenStoreTest : public StoreEngineTest {
 protected:
  using StoreEngineTest::StoreEngineTest;

  void SetUp() override {
    StoreEngineTest::SetUp();
    if (IsSkipped()) return;
    Result<Store> s = Store::open(db_);
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  void TearDown() override {
    store_.reset();
    StoreEngineTest::TearDown();
  }

  std::optional<Store> store_;
};

// An existing fixture `Base` (a folder dir_, a db_ its tests pass to --db)
// run on each store engine: db_ names an empty store of the parameter's
// engine in dir_ (store_).
template <class Base>
class OnEachEngine : public Base, public ::testing::WithParamInterface<StoreEngine> {
 protected:
  void SetUp() override {
    Base::SetUp();
    if (this->IsSkipped()) return;
    store_.emplace(this->GetParam(), this->dir_);
    if (!store_->unavailable().empty()) GTEST_SKIP() << store_->unavailable();
    this->db_ = store_->target();
  }
  void TearDown() override {
    store_.reset();
    Base::TearDown();
  }

  std::optional<TestStore> store_;
};

}  // namespace harness::testing_support
