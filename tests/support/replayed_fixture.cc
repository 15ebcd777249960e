#include "tests/support/replayed_fixture.h"

#include <gtest/gtest.h>

#include "harness/bundle/replay.h"

namespace harness::testing_support {

RunRecord replayed(const std::filesystem::path& dir) {
  Result<LoadedBundle> b = load_bundle(dir.string());
  EXPECT_TRUE(b) << dir << ": " << b.error().message;
  if (!b) return {};
  Result<RunRecord> run = replay_bundle(*b);
  EXPECT_TRUE(run) << dir << ": " << run.error().message;
  return run ? *run : RunRecord{};
}

}  // namespace harness::testing_support
