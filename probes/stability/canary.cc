#include "probes/stability/canary.h"

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "harness/base/cpu_time.h"

namespace harness {

std::uint64_t canary_chunk(std::uint64_t rounds) {
  std::array<std::uint32_t, 4096> table;  // 16 KiB
  for (std::uint32_t i = 0; i < table.size(); ++i) table[i] = i * 2654435761u;
  std::uint64_t x = 0x9E3779B97F4A7C15ull, sum = 0;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint32_t v = table[x & 4095];
    sum += v * (i | 1);
    table[(x >> 20) & 4095] = v ^ static_cast<std::uint32_t>(sum);
  }
  return sum ^ x;
}

namespace {

// The median of the chunks' times, times the number of chunks.
double median_total(std::array<double, kCanaryChunks> chunk_s) {
  std::nth_element(chunk_s.begin(), chunk_s.begin() + kCanaryChunks / 2, chunk_s.end());
  return chunk_s[kCanaryChunks / 2] * kCanaryChunks;
}

// Pins the calling thread to one CPU; empty, or why not.
std::string pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu < 0 || cpu >= CPU_SETSIZE) return fmt::format("cpu{}: outside 0..{}", cpu, CPU_SETSIZE - 1);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) return fmt::format("cpu{}: sched_setaffinity: {}", cpu, std::strerror(errno));
  return {};
}

}  // namespace

std::vector<CanaryTime> FixedWorkCanary::run(const std::vector<int>& cpus, const std::function<void()>& midway) {
  std::vector<CanaryTime> out(cpus.size());
  std::mutex mutex;
  std::condition_variable half_way;
  int past_half = 0, finished = 0;  // threads past half their chunks; threads done
  auto count = [&](int& which) {
    {
      std::lock_guard lock(mutex);
      ++which;
    }
    half_way.notify_all();
  };
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      CanaryTime& t = out[i];
      t.cpu = cpus[i];
      if (std::string why = pin_to(cpus[i]); !why.empty()) {
        t.seconds = t.cpu_seconds = Probed<double>::missing(why);
        count(finished);
        return;
      }
      volatile std::uint64_t sink = 0;
      for (const auto warm = std::chrono::steady_clock::now();
           std::chrono::duration<double>(std::chrono::steady_clock::now() - warm).count() < kCanaryWarmupSeconds;)
        sink = sink + canary_chunk(kCanaryRounds);
      std::array<double, kCanaryChunks> chunk_s{}, chunk_cpu_s{};
      std::string cpu_clock_error;
      for (int c = 0; c < kCanaryChunks; ++c) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = thread_cpu_seconds();
        sink = sink + canary_chunk(kCanaryRounds);
        chunk_cpu_s[static_cast<std::size_t>(c)] = thread_cpu_seconds() - cpu_start;
        if (!std::isfinite(chunk_cpu_s[static_cast<std::size_t>(c)]) && cpu_clock_error.empty())
          cpu_clock_error = fmt::format("clock_gettime(CLOCK_THREAD_CPUTIME_ID): {}", std::strerror(errno));
        chunk_s[static_cast<std::size_t>(c)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (c == kCanaryChunks / 2 - 1) count(past_half);
      }
      t.seconds = Probed<double>::known(median_total(chunk_s));
      t.cpu_seconds = cpu_clock_error.empty() ? Probed<double>::known(median_total(chunk_cpu_s))
                                              : Probed<double>::missing(cpu_clock_error);
      count(finished);
    });
  }
  {
    std::unique_lock lock(mutex);
    // The first thread half-way: the others still run (a slowed one surely).
    half_way.wait(lock, [&] { return past_half > 0 || finished == static_cast<int>(cpus.size()); });
  }
  if (midway) midway();
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace harness
