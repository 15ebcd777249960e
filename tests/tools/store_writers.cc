// store_writers STORE WRITERS RUNS METRICS: WRITERS processes each insert
// RUNS runs of METRICS metrics (and one set of 1000 samples) into STORE (an
// SQLite file or a postgresql:// URI) through Store::insert_run, one
// transaction per run. Prints the runs stored and the wall time; for
// scripts/bench-store (insert throughput of concurrent writers).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/store/store.h"
#include "tests/support/writer_run.h"

using namespace harness;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: store_writers STORE WRITERS RUNS METRICS\n");
    return 2;
  }
  const std::string target = argv[1];
  const int writers = std::atoi(argv[2]), runs = std::atoi(argv[3]), metrics = std::atoi(argv[4]);
  {
    Result<Store> s = Store::open(target);  // migrated before the clock starts
    if (!s) {
      std::fprintf(stderr, "store_writers: %s\n", s.error().message.c_str());
      return 3;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  for (int w = 0; w < writers; ++w) {
    pid_t pid = ::fork();
    if (pid == 0) {
      Result<Store> s = Store::open(target);
      if (!s) ::_exit(3);
      for (int n = 0; n < runs; ++n) {
        Result<std::int64_t> id = s->insert_run(testing_support::writer_run(w, n, metrics));
        if (!id) {
          std::fprintf(stderr, "writer %d: %s\n", w, id.error().message.c_str());
          ::_exit(3);
        }
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d %.3f %d\n", writers * runs, seconds, failed);
  return failed ? 3 : 0;
}
