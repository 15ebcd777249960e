// harness store push / pull end to end, through a store of each engine in
// the middle: SQLite -> (SQLite | PostgreSQL) -> SQLite gives the same runs
// (show --json identical but for the store's own run numbers and artifact
// paths) and the same artifact bytes; a second push copies nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/store/store.h"
#include "probes/process.h"
#include "tests/support/file_bytes.h"
#include "tests/support/run_harness.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

using testing_support::StoreEngine;

using testing_support::file_bytes;

// The store on each engine is the middle one (a lab's server); the rig's and
// the one copied back are SQLite files beside it.
class StoreCliTest : public testing_support::StoreEngineTest {
 protected:
  StoreCliTest() : StoreEngineTest("harness-store-cli", "middle.sqlite") {}
  void SetUp() override {
    StoreEngineTest::SetUp();
    rig_ = (dir_ / "rig.sqlite").string();
    back_ = (dir_ / "back.sqlite").string();
  }

  CommandResult harness(const std::vector<std::string>& args) { return testing_support::run_harness(args); }
  nlohmann::json show(const std::string& db, const std::string& id) {
    CommandResult r = harness({"--json", "--db", db, "show", id});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  std::string rig_, back_;
};

TEST_P(StoreCliTest, ARoundTripKeepsEveryRunAndItsArtifactsAndASecondPushCopiesNothing) {
  const std::string middle = target_->target();
  // Two replayed runs, each with its DDR capture and its counter group as
  // artifacts (exit 1: their verdicts fail).
  for (const char* day : {"day1", "day5"}) {
    CommandResult r = harness({"--db", rig_, "replay", std::string(HARNESS_SOURCE_DIR) + "/fixtures/case-study/" + day});
    ASSERT_EQ(r.exit_code, 1) << r.err;
  }
  CommandResult pushed = harness({"--db", rig_, "store", "push", middle});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  const std::string& middle_name = middle;  // test URIs carry no password, so messages name them as they are
  EXPECT_EQ(pushed.out, "copied runs 1, 2 from " + rig_ + " to " + middle_name +
                            " (4 artifacts, 30.5 KiB, sha256 verified); 0 already there\n");
  CommandResult again = harness({"store", "push", rig_, middle});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "nothing to copy: " + middle_name + " already has the 2 runs of " + rig_ + "\n");

  CommandResult pulled = harness({"--json", "--db", back_, "store", "pull", middle});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  nlohmann::json summary = nlohmann::json::parse(pulled.out);
  EXPECT_EQ(summary["copied"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(summary["already_there"], 0);
  EXPECT_EQ(summary["artifacts"], 4);

  for (const char* id : {"1", "2"}) {
    nlohmann::json first = show(rig_, id), there = show(middle, id), back = show(back_, id);
    EXPECT_EQ(first["uuid"].get<std::string>().size(), 36u);
    ASSERT_EQ(first["artifacts"].size(), 2u);
    for (nlohmann::json* j : {&there, &back}) {
      ASSERT_EQ((*j)["artifacts"].size(), 2u);
      for (std::size_t k = 0; k < 2; ++k) {
        const std::string copy = (*j)["artifacts"][k]["path"];
        EXPECT_NE(copy, first["artifacts"][k]["path"].get<std::string>());
        EXPECT_EQ(file_bytes(copy), file_bytes(first["artifacts"][k]["path"]));
      }
    }
    auto mask = [](nlohmann::json j) {
      j.erase("id");
      for (nlohmann::json& a : j["artifacts"]) a.erase("path");
      return j.dump(1);
    };
    EXPECT_EQ(mask(there), mask(first));
    EXPECT_EQ(mask(back), mask(first));
  }
  // The pulled copy is a store like any other: pushing it back finds nothing new.
  CommandResult home = harness({"store", "push", back_, rig_});
  ASSERT_EQ(home.exit_code, 0) << home.err;
  EXPECT_EQ(home.out, "nothing to copy: " + rig_ + " already has the 2 runs of " + back_ + "\n");
}

// A rig's baseline and its acknowledged regressions reach the lab's server
// with the runs, and the server's reach a laptop that pulls them, so that
// `compare --baseline` means the same in every store; a baseline of that name
// set otherwise in the destination is kept.
TEST_P(StoreCliTest, BaselinesAndTheirAcknowledgementsTravelWithTheirRuns) {
  const std::string middle = target_->target();
  for (const char* day : {"day1", "day5"}) {
    CommandResult r = harness({"--db", rig_, "replay", std::string(HARNESS_SOURCE_DIR) + "/fixtures/case-study/" + day});
    ASSERT_EQ(r.exit_code, 1) << r.err;
  }
  ASSERT_EQ(harness({"--db", rig_, "baseline", "set", "nightly", "1", "2"}).exit_code, 0);
  CommandResult acked = harness({"--db", rig_, "baseline", "ack", "nightly", "ddr.bandwidth", "--reason",
                                 "new DRAM timings, expected", "--by", "tester"});
  ASSERT_EQ(acked.exit_code, 0) << acked.err;
  CommandResult listed = harness({"--json", "--db", rig_, "baseline", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json original = nlohmann::json::parse(listed.out).at(0);
  const std::string what = fmt::format("'nightly' of scenario '{}' on rig '{}'", original["scenario"].get<std::string>(),
                                       original["rig"].get<std::string>());

  CommandResult pushed = harness({"--db", rig_, "store", "push", middle});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  EXPECT_THAT(pushed.out, ::testing::HasSubstr("baseline " + what + " copied\n1 acknowledged regression copied with "
                                               "its baseline\n"));
  CommandResult again = harness({"--db", rig_, "store", "push", middle});
  EXPECT_EQ(again.out, "nothing to copy: " + middle + " already has the 2 runs of " + rig_ + "\n");
  CommandResult pulled = harness({"--json", "--db", back_, "store", "pull", middle});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  nlohmann::json summary = nlohmann::json::parse(pulled.out)["baselines"];
  EXPECT_EQ(summary["copied"], nlohmann::json::array({what}));
  EXPECT_EQ(summary["acknowledgements"], 1);

  for (const std::string& db : {middle, back_}) {
    CommandResult there = harness({"--json", "--db", db, "baseline", "list"});
    ASSERT_EQ(there.exit_code, 0) << there.err;
    nlohmann::json b = nlohmann::json::parse(there.out).at(0);
    EXPECT_EQ(b["runs"], nlohmann::json::array({1, 2})) << db;  // the runs were copied in order
    EXPECT_EQ(b["set_at"], original["set_at"]) << db;
    Result<Store> store = Store::open(db);
    ASSERT_TRUE(store) << store.error().message;
    Result<std::vector<Acknowledgement>> acks =
        store->acknowledgements("nightly", original["scenario"], original["rig"]);
    ASSERT_TRUE(acks) << acks.error().message;
    ASSERT_EQ(acks->size(), 1u) << db;
    EXPECT_EQ((*acks)[0].metric, "ddr.bandwidth");
    EXPECT_EQ((*acks)[0].by, "tester");
    EXPECT_EQ((*acks)[0].reason, "new DRAM timings, expected");
    EXPECT_EQ((*acks)[0].baseline_run, 2);
  }

  // The laptop names its own 'nightly': the rig's does not replace it.
  ASSERT_EQ(harness({"--db", back_, "baseline", "set", "nightly", "2"}).exit_code, 0);
  CommandResult kept = harness({"--db", rig_, "store", "push", back_});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.out, "nothing to copy: " + back_ + " already has the 2 runs of " + rig_ + "\nbaseline " + what +
                          ": " + back_ + " has another baseline of that name, kept as it is (set it there with "
                          "'harness baseline set')\n");
  CommandResult mine = harness({"--json", "--db", back_, "baseline", "list"});
  EXPECT_EQ(nlohmann::json::parse(mine.out).at(0)["runs"], nlohmann::json::array({2}));
}

// Two rigs' CI jobs (or a retry beside a slow first attempt) pushing the same
// runs at once: every run is stored once, no push fails, and between them the
// pushes account for each run exactly once as copied.
TEST_P(StoreCliTest, ConcurrentPushesOfTheSameRunsStoreEachOnceAndNoneFails) {
  constexpr int kRuns = 6, kPushes = 3;
  for (int i = 0; i < kRuns; ++i) {
    CommandResult r = harness({"--db", rig_, "replay", std::string(HARNESS_SOURCE_DIR) + "/fixtures/case-study/day1"});
    ASSERT_EQ(r.exit_code, 1) << r.err;
  }
  std::vector<CommandResult> pushes(kPushes);
  std::vector<std::thread> threads;
  for (int p = 0; p < kPushes; ++p)
    threads.emplace_back([&, p] { pushes[p] = harness({"--json", "store", "push", rig_, target_->target()}); });
  for (std::thread& t : threads) t.join();
  std::size_t copied = 0;
  for (const CommandResult& p : pushes) {
    ASSERT_EQ(p.exit_code, 0) << p.err;
    nlohmann::json summary = nlohmann::json::parse(p.out);
    copied += summary["copied"].size();
    EXPECT_EQ(summary["copied"].size() + summary["already_there"].get<std::size_t>(), std::size_t{kRuns}) << p.out;
  }
  EXPECT_EQ(copied, std::size_t{kRuns});
  CommandResult runs = harness({"--json", "--db", target_->target(), "runs"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(nlohmann::json::parse(runs.out).size(), std::size_t{kRuns});
}

TEST_P(StoreCliTest, ADamagedArtifactStopsThePushNamingBothDigests) {
  CommandResult r = harness({"--db", rig_, "replay", std::string(HARNESS_SOURCE_DIR) + "/fixtures/case-study/day1"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json run = show(rig_, "1");
  const std::string stored = run["artifacts"][0]["path"];
  std::filesystem::permissions(stored, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  std::ofstream(stored, std::ios::app) << "x";
  CommandResult pushed = harness({"store", "push", rig_, target_->target()});
  EXPECT_EQ(pushed.exit_code, 3);
  EXPECT_NE(pushed.err.find("run 1 not copied: artifact ddr/capture.sr of store " + rig_ + ": " + stored +
                            " has sha256 "),
            std::string::npos)
      << pushed.err;
  EXPECT_NE(pushed.err.find("but " + run["artifacts"][0]["sha256"].get<std::string>() +
                            " was stored (altered since it was stored)"),
            std::string::npos)
      << pushed.err;
  CommandResult runs = harness({"--json", "--db", target_->target(), "runs"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(nlohmann::json::parse(runs.out).size(), 0u);
}

TEST(StoreCli, PushingAStoreIntoItselfIsBadInput) {
  Result<CommandResult> r = run_command({HARNESS_BINARY, "store", "push", "/tmp/x.sqlite", "/tmp/x.sqlite"}, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 2);
  EXPECT_EQ(r->err, "harness: error: store /tmp/x.sqlite: source and destination are the same store\n");
}

// --db names an SQLite file (or where one is to be made) or a URI: a FIFO,
// a device or a folder is bad input, said before SQLite opens it (a FIFO was
// exit 3 "disk I/O error"), and nothing is made there.
TEST(StoreCli, ADbThatIsNoFileIsBadInput) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("harness-store-cli-db-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo, "a FIFO"}, {"/dev/null", "a device"}, {dir.string(), "a folder"}};
  for (const auto& [db, kind] : cases) {
    Result<CommandResult> r = run_command({HARNESS_BINARY, "--db", db, "runs"}, {.timeout_s = 30});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->exit_code, 2) << db;
    EXPECT_EQ(r->err, "harness: error: store " + db + ": is " + kind +
                          ", not an SQLite file (a store is an SQLite file, or a postgresql:// URI)\n");
  }
  Result<CommandResult> nowhere =
      run_command({HARNESS_BINARY, "--db", (dir / "no-such" / "runs.sqlite").string(), "runs"}, {});
  ASSERT_TRUE(nowhere);
  EXPECT_EQ(nowhere->exit_code, 2);
  EXPECT_EQ(nowhere->err, "harness: error: store " + (dir / "no-such" / "runs.sqlite").string() +
                              ": no such folder " + (dir / "no-such").string() + "\n");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_FALSE(std::filesystem::exists(fifo + "-wal"));
  // A path not yet made is a new store.
  Result<CommandResult> fresh = run_command({HARNESS_BINARY, "--db", (dir / "new.sqlite").string(), "runs"}, {});
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->exit_code, 0) << fresh->err;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreCliTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
