#include "probes/compute_peak.h"

#include <cmath>
#include <latch>
#include <thread>
#include <vector>

#include <immintrin.h>

namespace harness {
namespace {

// Read at run time so the compiler cannot fold the chains into constants.
volatile float g_multiplier = 0.999f;
volatile float g_addend_step = 0.001f;
volatile double g_compute_sink;

// Chain j computes acc = acc * 0.999 + 0.001 * (j + 1): it converges to j + 1,
// so it neither overflows nor reaches denormals however long it runs.
float chain_start(int j) { return 1.0f + 0.01f * static_cast<float>(j); }

__attribute__((noinline, target("avx512f"))) double fma_avx512(std::uint64_t iterations) {
  const __m512 m = _mm512_set1_ps(g_multiplier);
  __m512 add[kFmaChains], acc[kFmaChains];
  for (int j = 0; j < kFmaChains; ++j) {
    add[j] = _mm512_set1_ps(g_addend_step * static_cast<float>(j + 1));
    acc[j] = _mm512_set1_ps(chain_start(j));
  }
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kFmaChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], m, add[j]);
  }
  double sum = 0;
  for (int j = 0; j < kFmaChains; ++j) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, acc[j]);
    for (float v : lanes) sum += v;
  }
  return sum;
}

__attribute__((noinline, target("avx2,fma"))) double fma_avx2(std::uint64_t iterations) {
  const __m256 m = _mm256_set1_ps(g_multiplier);
  __m256 add[kFmaChains], acc[kFmaChains];
  for (int j = 0; j < kFmaChains; ++j) {
    add[j] = _mm256_set1_ps(g_addend_step * static_cast<float>(j + 1));
    acc[j] = _mm256_set1_ps(chain_start(j));
  }
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kFmaChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], m, add[j]);
  }
  double sum = 0;
  for (int j = 0; j < kFmaChains; ++j) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc[j]);
    for (float v : lanes) sum += v;
  }
  return sum;
}

__attribute__((noinline)) double fma_scalar(std::uint64_t iterations) {
  const float m = g_multiplier;
  float add[kFmaChains], acc[kFmaChains];
  for (int j = 0; j < kFmaChains; ++j) {
    add[j] = g_addend_step * static_cast<float>(j + 1);
    acc[j] = chain_start(j);
  }
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kFmaChains; ++j) acc[j] = std::fma(acc[j], m, add[j]);
  }
  double sum = 0;
  for (float v : acc) sum += v;
  return sum;
}

enum class Path { avx512, avx2, scalar };

Path path() {
  static const Path p = __builtin_cpu_supports("avx512f") ? Path::avx512
                        : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? Path::avx2
                                                                                             : Path::scalar;
  return p;
}

double run_path(std::uint64_t iterations) {
  switch (path()) {
    case Path::avx512: return fma_avx512(iterations);
    case Path::avx2: return fma_avx2(iterations);
    case Path::scalar: return fma_scalar(iterations);
  }
  return 0;
}

}  // namespace

int fma_lanes() {
  switch (path()) {
    case Path::avx512: return 16;
    case Path::avx2: return 8;
    case Path::scalar: return 1;
  }
  return 1;
}

const char* fma_instruction_set() {
  switch (path()) {
    case Path::avx512: return "avx512f";
    case Path::avx2: return "avx2+fma";
    case Path::scalar: return "scalar";
  }
  return "scalar";
}

float fma_reference_result(std::uint64_t iterations) {
  double sum = 0;
  for (int j = 0; j < kFmaChains; ++j) {
    float acc = chain_start(j);
    const float add = 0.001f * static_cast<float>(j + 1);
    for (std::uint64_t i = 0; i < iterations; ++i) acc = std::fma(acc, 0.999f, add);
    sum += static_cast<double>(acc) * fma_lanes();
  }
  return static_cast<float>(sum);
}

ComputeSample fma_fp32_peak(Clock& clock, std::uint64_t iterations, int threads) {
  threads = threads < 1 ? 1 : threads;
  std::vector<double> results(static_cast<std::size_t>(threads), 0);
  ComputeSample s;
  s.operations = 2.0 * kFmaChains * fma_lanes() * static_cast<double>(iterations) * threads;
  if (threads == 1) {
    std::uint64_t start = clock.now_ns();
    results[0] = run_path(iterations);
    std::uint64_t end = clock.now_ns();
    s.seconds = static_cast<double>(end - start) * 1e-9;
  } else {
    std::latch ready(threads), go(1);
    std::vector<std::jthread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        ready.count_down();
        go.wait();
        results[static_cast<std::size_t>(t)] = run_path(iterations);
      });
    }
    ready.wait();
    std::uint64_t start = clock.now_ns();
    go.count_down();
    for (std::jthread& w : workers) w.join();
    std::uint64_t end = clock.now_ns();
    s.seconds = static_cast<double>(end - start) * 1e-9;
  }
  double total = 0;
  for (double r : results) total += r;
  g_compute_sink = total;
  s.result = static_cast<float>(results[0]);
  return s;
}

}  // namespace harness
