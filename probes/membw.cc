#include "probes/membw.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <emmintrin.h>
#include <fmt/format.h>

namespace harness {
namespace {

// Written by every pass so the loads cannot be proven dead.
volatile std::uint64_t g_bandwidth_sink;

std::uint64_t read_pass(const std::byte* data, std::size_t bytes) {
  const __m128i* p = reinterpret_cast<const __m128i*>(data);
  const std::size_t vectors = bytes / sizeof(__m128i);
  __m128i acc0 = _mm_setzero_si128(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  std::size_t i = 0;
  for (; i + 8 <= vectors; i += 8) {
    acc0 = _mm_xor_si128(acc0, _mm_load_si128(p + i));
    acc1 = _mm_xor_si128(acc1, _mm_load_si128(p + i + 1));
    acc2 = _mm_xor_si128(acc2, _mm_load_si128(p + i + 2));
    acc3 = _mm_xor_si128(acc3, _mm_load_si128(p + i + 3));
    acc0 = _mm_xor_si128(acc0, _mm_load_si128(p + i + 4));
    acc1 = _mm_xor_si128(acc1, _mm_load_si128(p + i + 5));
    acc2 = _mm_xor_si128(acc2, _mm_load_si128(p + i + 6));
    acc3 = _mm_xor_si128(acc3, _mm_load_si128(p + i + 7));
  }
  for (; i < vectors; ++i) acc0 = _mm_xor_si128(acc0, _mm_load_si128(p + i));
  __m128i acc = _mm_xor_si128(_mm_xor_si128(acc0, acc1), _mm_xor_si128(acc2, acc3));
  alignas(16) std::uint64_t lanes[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), acc);
  return lanes[0] ^ lanes[1];
}

}  // namespace

void BandwidthBuffer::Free::operator()(std::byte* p) const { std::free(p); }

Result<BandwidthBuffer> BandwidthBuffer::allocate(std::size_t bytes) {
  bytes = (bytes / 4096) * 4096;
  if (bytes == 0) return Error::input("bandwidth buffer must be at least 4 KiB");
  void* p = nullptr;
  int rc = posix_memalign(&p, 4096, bytes);
  if (rc != 0) {
    return Error::infra(fmt::format("membw: cannot allocate {} bytes: {}", bytes, std::strerror(rc)));
  }
  auto* data = static_cast<std::byte*>(p);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>(i * 131 + 7);
  return BandwidthBuffer(data, bytes);
}

double sequential_read_bandwidth(const BandwidthBuffer& buffer, Clock& clock) {
  std::uint64_t start = clock.now_ns();
  std::uint64_t sum = read_pass(buffer.data(), buffer.size());
  std::uint64_t end = clock.now_ns();
  g_bandwidth_sink = g_bandwidth_sink ^ sum;
  double seconds = static_cast<double>(end - start) * 1e-9;
  return seconds > 0 ? static_cast<double>(buffer.size()) / seconds : 0;
}

}  // namespace harness
