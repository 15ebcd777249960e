#include "probes/compute_peak.h"

#include <cmath>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "probes/timed_workers.h"

namespace harness {
namespace {

// Read at run time so the compiler cannot fold the chains into constants.
volatile float g_multiplier = 0.999f;
volatile float g_addend_step = 0.001f;
volatile double g_compute_sink;

// Chain j computes acc = acc * 0.999 + 0.001 * (j + 1): it converges to j + 1,
// so it neither overflows nor reaches denormals however long it runs.
float chain_start(int j) { return 1.0f + 0.01f * static_cast<float>(j); }

#if defined(__x86_64__)
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

#elif defined(__aarch64__)
// Advanced SIMD is part of every aarch64 core: four fp32 lanes a vector.
__attribute__((noinline)) double fma_neon(std::uint64_t iterations) {
  const float32x4_t m = vdupq_n_f32(g_multiplier);
  float32x4_t add[kFmaChains], acc[kFmaChains];
  for (int j = 0; j < kFmaChains; ++j) {
    add[j] = vdupq_n_f32(g_addend_step * static_cast<float>(j + 1));
    acc[j] = vdupq_n_f32(chain_start(j));
  }
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (int j = 0; j < kFmaChains; ++j) acc[j] = vfmaq_f32(add[j], acc[j], m);
  }
  double sum = 0;
  for (int j = 0; j < kFmaChains; ++j) {
    float lanes[4];
    vst1q_f32(lanes, acc[j]);
    for (float v : lanes) sum += v;
  }
  return sum;
}
#endif

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

enum class Path { avx512, avx2, neon, scalar };

Path path() {
#if defined(__x86_64__)
  static const Path p = __builtin_cpu_supports("avx512f") ? Path::avx512
                        : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? Path::avx2
                                                                                             : Path::scalar;
  return p;
#elif defined(__aarch64__)
  return Path::neon;
#else
  return Path::scalar;
#endif
}

double run_path(std::uint64_t iterations) {
  switch (path()) {
#if defined(__x86_64__)
    case Path::avx512: return fma_avx512(iterations);
    case Path::avx2: return fma_avx2(iterations);
#elif defined(__aarch64__)
    case Path::neon: return fma_neon(iterations);
#endif
    default: return fma_scalar(iterations);
  }
}

}  // namespace

int fma_lanes() {
  switch (path()) {
    case Path::avx512: return 16;
    case Path::avx2: return 8;
    case Path::neon: return 4;
    case Path::scalar: return 1;
  }
  return 1;
}

const char* fma_instruction_set() {
  switch (path()) {
    case Path::avx512: return "avx512f";
    case Path::avx2: return "avx2+fma";
    case Path::neon: return "neon";
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
  s.seconds = time_workers(clock, threads,
                           [&](int t) { results[static_cast<std::size_t>(t)] = run_path(iterations); });
  double total = 0;
  for (double r : results) total += r;
  g_compute_sink = total;
  s.result = static_cast<float>(results[0]);
  return s;
}

}  // namespace harness
