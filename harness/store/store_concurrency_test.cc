// Many writers into one store, on both engines: 8 processes x 25 runs, each
// run one transaction; a writer killed inside its transaction leaves nothing.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/store/sql/connection.h"
#include "harness/store/store.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"
#include "tests/support/writer_run.h"

namespace harness {
namespace {

using testing_support::StoreEngine;
using testing_support::writer_run;

constexpr int kWriters = 8;
constexpr int kRunsPerWriter = 25;
constexpr int kMetricsPerRun = 20;

class StoreConcurrencyTest : public testing_support::StoreEngineTest {
 protected:
  StoreConcurrencyTest() : StoreEngineTest("harness-store-writers") {}
};

// Each writer opens the store itself, so the first opens also race on the
// migration (one lock, the version read again under it).
TEST_P(StoreConcurrencyTest, EightWritersStoreEveryRunWithoutAnError) {
  std::vector<pid_t> writers;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Result<Store> s = Store::open(target_->target());
      if (!s) {
        std::fprintf(stderr, "writer %d: %s\n", w, s.error().message.c_str());
        ::_exit(1);
      }
      for (int n = 0; n < kRunsPerWriter; ++n) {
        Result<std::int64_t> id = s->insert_run(writer_run(w, n, kMetricsPerRun));
        if (!id) {
          std::fprintf(stderr, "writer %d run %d: %s\n", w, n, id.error().message.c_str());
          ::_exit(1);
        }
      }
      ::_exit(0);
    }
    writers.push_back(pid);
  }
  for (pid_t pid : writers) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed (its error is on stderr)";
  }
  Result<Store> s = Store::open(target_->target());
  ASSERT_TRUE(s) << s.error().message;
  Result<std::vector<RunSummary>> runs = s->list_runs(kWriters * kRunsPerWriter + 10);
  ASSERT_TRUE(runs) << runs.error().message;
  ASSERT_EQ(runs->size(), static_cast<std::size_t>(kWriters * kRunsPerWriter));
  std::set<std::string> uuids;
  std::map<std::string, int> per_rig;
  for (const RunSummary& r : *runs) {
    EXPECT_EQ(r.status, RunStatus::passed);
    EXPECT_EQ(r.metric_count, kMetricsPerRun);
    uuids.insert(r.uuid);
    ++per_rig[r.rig];
  }
  EXPECT_EQ(uuids.size(), runs->size());
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(per_rig[fmt::format("rig-{}", w)], kRunsPerWriter);
  Result<RunRecord> one = s->load_run(runs->front().id);
  ASSERT_TRUE(one);
  ASSERT_EQ(one->analysis.samples.size(), 1u);
  EXPECT_EQ(one->analysis.samples[0].values.size(), 1000u);
}

// True while another connection holds an open transaction that has written:
// PostgreSQL shows it as a backend with a transaction id; SQLite as a write
// lock that a BEGIN IMMEDIATE without waiting cannot take.
bool a_writer_is_inside_its_transaction(sql::Connection& c) {
  if (c.engine() == sql::Engine::postgres) {
    Result<std::unique_ptr<sql::Rows>> rows = c.query(
        "SELECT count(*) FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() "
        "AND datname = current_database()");
    return rows && (*rows)->next() && (*rows)->int64(0) > 0;
  }
  if (!c.exec("PRAGMA busy_timeout = 0")) return false;
  Status took = c.exec("BEGIN IMMEDIATE");
  if (took) (void)c.rollback();
  return !took;
}

TEST_P(StoreConcurrencyTest, AWriterKilledInsideItsTransactionLeavesNoPartialRun) {
  {
    Result<Store> s = Store::open(target_->target());
    ASSERT_TRUE(s) << s.error().message;
    ASSERT_TRUE(s->insert_run(writer_run(0, 0, 3)));
  }
  RunRecord big = writer_run(1, 0, 200000);  // long enough to be caught inside its transaction
  big.uuid = "00000000-0000-4000-8000-00000000dead";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Result<Store> s = Store::open(target_->target());
    if (!s) ::_exit(1);
    (void)s->insert_run(big);
    ::_exit(0);
  }
  std::unique_ptr<sql::Connection> watch = target_->connect();
  ASSERT_TRUE(watch);
  bool caught = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!caught && std::chrono::steady_clock::now() < give_up) {
    caught = a_writer_is_inside_its_transaction(*watch);
    if (!caught) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(caught) << "the writer was never seen inside its transaction";
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer finished before it was killed";
  watch.reset();

  // PostgreSQL rolls the dead client's transaction back once its backend
  // sees the connection gone; SQLite's next writer rolls the hot journal
  // back. Either way the run is not there, whole or in part.
  Result<Store> s = Store::open(target_->target());
  ASSERT_TRUE(s) << s.error().message;
  Result<std::optional<std::int64_t>> found = s->find_run(big.uuid);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_FALSE(*found);
  std::unique_ptr<sql::Connection> c = target_->connect();
  Result<std::unique_ptr<sql::Rows>> orphans =
      c->query("SELECT count(*) FROM metrics WHERE run_id NOT IN (SELECT id FROM runs)");
  ASSERT_TRUE(orphans && (*orphans)->next());
  EXPECT_EQ((*orphans)->int64(0), 0);
  Result<std::vector<RunSummary>> runs = s->list_runs();
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->size(), 1u);
  // And the store takes the next run at once: no lock was left behind.
  Result<std::int64_t> next = s->insert_run(writer_run(2, 0, 3));
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(s->list_runs()->size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreConcurrencyTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
