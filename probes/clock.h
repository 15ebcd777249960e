// The clock every probe times with, behind an interface so tests can step it.
#pragma once

#include <cstdint>
#include <ctime>

namespace harness {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::uint64_t now_ns() = 0;  // monotonic
};

class MonotonicClock final : public Clock {
 public:
  std::uint64_t now_ns() override {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
  }
};

// Advances by `step_ns` at every reading.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(std::uint64_t step_ns = 1000) : step_ns_(step_ns) {}
  std::uint64_t now_ns() override { return now_ += step_ns_; }
  void set_step(std::uint64_t step_ns) { step_ns_ = step_ns; }

 private:
  std::uint64_t now_ = 0;
  std::uint64_t step_ns_;
};

}  // namespace harness
