// Timing work on several threads at once, as the microbenchmarks do.
#pragma once

#include <latch>
#include <thread>
#include <vector>

#include "probes/clock.h"

namespace harness {

// The seconds on `clock` that `threads` workers take to run work(t) each,
// t = 0 .. threads - 1. One runs on this thread; more are created before the
// clock starts and released together, and the clock stops when the last ends.
template <class Work>
double time_workers(Clock& clock, int threads, Work&& work) {
  if (threads <= 1) {
    std::uint64_t start = clock.now_ns();
    work(0);
    std::uint64_t end = clock.now_ns();
    return static_cast<double>(end - start) * 1e-9;
  }
  std::latch ready(threads), go(1);
  std::vector<std::jthread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      ready.count_down();
      go.wait();
      work(t);
    });
  }
  ready.wait();
  std::uint64_t start = clock.now_ns();
  go.count_down();
  for (std::jthread& w : workers) w.join();
  std::uint64_t end = clock.now_ns();
  return static_cast<double>(end - start) * 1e-9;
}

}  // namespace harness
