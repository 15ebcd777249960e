// CPU seconds used so far, by this thread or this process: on a shared
// machine wall time measures the neighbours too. NaN where the clock cannot
// be read (errno tells why).
#pragma once

#include <cmath>
#include <ctime>

namespace harness {

inline double cpu_seconds(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return std::nan("");
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
inline double thread_cpu_seconds() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }
inline double process_cpu_seconds() { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID); }

}  // namespace harness
