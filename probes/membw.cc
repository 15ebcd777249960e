#include "probes/membw.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <fmt/format.h>

#include "probes/timed_workers.h"

namespace harness {
namespace {

// Written after every measurement so the loads cannot be proven dead.
volatile std::uint64_t g_bandwidth_sink;

// Hides a pointer's value from the optimiser, so two passes over the same
// buffer cannot be merged into one (a first version measured 62.9 GB/s on a
// ~30 GB/s host because of that).
template <class T>
T* hide_from_optimiser(T* p) {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}

#if defined(__x86_64__)
// The XOR of every 64-bit word in [p, p + bytes), bytes a multiple of 32.
// Eight independent loads per iteration keep enough misses in flight.
__attribute__((noinline)) std::uint64_t read_sse2(const std::byte* data, std::size_t bytes) {
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

__attribute__((noinline, target("avx2"))) std::uint64_t read_avx2(const std::byte* data,
                                                                  std::size_t bytes) {
  const __m256i* p = reinterpret_cast<const __m256i*>(data);
  const std::size_t vectors = bytes / sizeof(__m256i);
  __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  std::size_t i = 0;
  for (; i + 8 <= vectors; i += 8) {
    acc0 = _mm256_xor_si256(acc0, _mm256_load_si256(p + i));
    acc1 = _mm256_xor_si256(acc1, _mm256_load_si256(p + i + 1));
    acc2 = _mm256_xor_si256(acc2, _mm256_load_si256(p + i + 2));
    acc3 = _mm256_xor_si256(acc3, _mm256_load_si256(p + i + 3));
    acc0 = _mm256_xor_si256(acc0, _mm256_load_si256(p + i + 4));
    acc1 = _mm256_xor_si256(acc1, _mm256_load_si256(p + i + 5));
    acc2 = _mm256_xor_si256(acc2, _mm256_load_si256(p + i + 6));
    acc3 = _mm256_xor_si256(acc3, _mm256_load_si256(p + i + 7));
  }
  for (; i < vectors; ++i) acc0 = _mm256_xor_si256(acc0, _mm256_load_si256(p + i));
  __m256i acc = _mm256_xor_si256(_mm256_xor_si256(acc0, acc1), _mm256_xor_si256(acc2, acc3));
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  return lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3];
}

// Random blocks: the offsets are read sequentially, the blocks are not.
__attribute__((noinline)) std::uint64_t read_blocks_sse2(const std::byte* data, const std::size_t* offsets,
                                                         std::size_t count, std::size_t block) {
  __m128i acc0 = _mm_setzero_si128(), acc1 = acc0;
  for (std::size_t b = 0; b < count; ++b) {
    const __m128i* p = reinterpret_cast<const __m128i*>(data + offsets[b]);
    for (std::size_t i = 0; i < block / 16; i += 2) {
      acc0 = _mm_xor_si128(acc0, _mm_load_si128(p + i));
      acc1 = _mm_xor_si128(acc1, _mm_load_si128(p + i + 1));
    }
  }
  alignas(16) std::uint64_t lanes[2];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), _mm_xor_si128(acc0, acc1));
  return lanes[0] ^ lanes[1];
}

__attribute__((noinline, target("avx2"))) std::uint64_t read_blocks_avx2(const std::byte* data,
                                                                         const std::size_t* offsets,
                                                                         std::size_t count, std::size_t block) {
  __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0;
  for (std::size_t b = 0; b < count; ++b) {
    const __m256i* p = reinterpret_cast<const __m256i*>(data + offsets[b]);
    for (std::size_t i = 0; i < block / 32; i += 2) {
      acc0 = _mm256_xor_si256(acc0, _mm256_load_si256(p + i));
      acc1 = _mm256_xor_si256(acc1, _mm256_load_si256(p + i + 1));
    }
  }
  alignas(32) std::uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_xor_si256(acc0, acc1));
  return lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3];
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

std::uint64_t read_range(const std::byte* data, std::size_t bytes) {
  return has_avx2() ? read_avx2(hide_from_optimiser(data), bytes) : read_sse2(hide_from_optimiser(data), bytes);
}

std::uint64_t read_blocks(const std::byte* data, const std::size_t* offsets, std::size_t count, std::size_t block) {
  return has_avx2() ? read_blocks_avx2(data, offsets, count, block) : read_blocks_sse2(data, offsets, count, block);
}

const char* instruction_set() { return has_avx2() ? "avx2" : "sse2"; }
#elif defined(__aarch64__)
// Advanced SIMD (every aarch64 core): 16-byte loads, eight in flight.
__attribute__((noinline)) std::uint64_t read_neon(const std::byte* data, std::size_t bytes) {
  const auto* p = reinterpret_cast<const std::uint64_t*>(data);
  const std::size_t vectors = bytes / 16;
  uint64x2_t acc0 = vdupq_n_u64(0), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  std::size_t i = 0;
  for (; i + 8 <= vectors; i += 8) {
    acc0 = veorq_u64(acc0, vld1q_u64(p + 2 * i));
    acc1 = veorq_u64(acc1, vld1q_u64(p + 2 * i + 2));
    acc2 = veorq_u64(acc2, vld1q_u64(p + 2 * i + 4));
    acc3 = veorq_u64(acc3, vld1q_u64(p + 2 * i + 6));
    acc0 = veorq_u64(acc0, vld1q_u64(p + 2 * i + 8));
    acc1 = veorq_u64(acc1, vld1q_u64(p + 2 * i + 10));
    acc2 = veorq_u64(acc2, vld1q_u64(p + 2 * i + 12));
    acc3 = veorq_u64(acc3, vld1q_u64(p + 2 * i + 14));
  }
  for (; i < vectors; ++i) acc0 = veorq_u64(acc0, vld1q_u64(p + 2 * i));
  uint64x2_t acc = veorq_u64(veorq_u64(acc0, acc1), veorq_u64(acc2, acc3));
  return vgetq_lane_u64(acc, 0) ^ vgetq_lane_u64(acc, 1);
}

constexpr auto read_vectors = read_neon;
const char* instruction_set() { return "neon"; }
#else
// Other architectures (armhf): 64-bit words, four in flight.
__attribute__((noinline)) std::uint64_t read_words(const std::byte* data, std::size_t bytes) {
  const auto* p = reinterpret_cast<const std::uint64_t*>(data);
  const std::size_t words = bytes / 8;
  std::uint64_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    acc0 ^= p[i];
    acc1 ^= p[i + 1];
    acc2 ^= p[i + 2];
    acc3 ^= p[i + 3];
  }
  for (; i < words; ++i) acc0 ^= p[i];
  return acc0 ^ acc1 ^ acc2 ^ acc3;
}

constexpr auto read_vectors = read_words;
const char* instruction_set() { return "64-bit words"; }
#endif

#if !defined(__x86_64__)
std::uint64_t read_range(const std::byte* data, std::size_t bytes) {
  return read_vectors(hide_from_optimiser(data), bytes);
}

std::uint64_t read_blocks(const std::byte* data, const std::size_t* offsets, std::size_t count, std::size_t block) {
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < count; ++b) sum ^= read_vectors(data + offsets[b], block);
  return sum;
}
#endif

double seconds_between(std::uint64_t start, std::uint64_t end) {
  return static_cast<double>(end - start) * 1e-9;
}

}  // namespace

void BandwidthBuffer::Free::operator()(std::byte* p) const { std::free(p); }

Result<BandwidthBuffer> BandwidthBuffer::allocate(std::size_t bytes) {
  bytes = (bytes / 4096) * 4096;
  if (bytes == 0) return Error::input("bandwidth buffer must be at least 4 KiB");
  constexpr std::size_t kHugePage = 2 << 20;
  void* p = nullptr;
  int rc = posix_memalign(&p, kHugePage, bytes);
  if (rc != 0) {
    return Error::infra(fmt::format("membw: cannot allocate {} bytes: {}", bytes, std::strerror(rc)));
  }
  // Advice only: with transparent huge pages off it fails and 4 KiB pages
  // are used, which costs some sequential bandwidth but is still a valid run.
  (void)madvise(p, bytes, MADV_HUGEPAGE);
  auto* data = static_cast<std::byte*>(p);
  // Distinct words, so a checksum over the wrong range cannot match.
  auto* words = reinterpret_cast<std::uint64_t*>(data);
  for (std::size_t i = 0; i < bytes / 8; ++i) words[i] = i * 0x9E3779B97F4A7C15ull + 7;
  return BandwidthBuffer(data, bytes);
}

Result<std::size_t> BandwidthBuffer::huge_page_bytes() const {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return Error::infra(fmt::format("membw: cannot open /proc/self/smaps: {}", std::strerror(errno)));
  const auto begin = reinterpret_cast<std::uintptr_t>(data());
  const auto end = begin + size();
  std::size_t total = 0;
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    // A mapping's header: "start-end perms offset dev inode path"; its fields follow.
    std::uintptr_t lo = 0, hi = 0;
    const char* p = line.data();
    const char* e = p + line.size();
    auto [dash, ec1] = std::from_chars(p, e, lo, 16);
    if (ec1 == std::errc() && dash < e && *dash == '-') {
      auto [after, ec2] = std::from_chars(dash + 1, e, hi, 16);
      if (ec2 == std::errc() && after < e && *after == ' ') {
        inside = lo < end && hi > begin;
        continue;
      }
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      std::size_t kb = 0;
      std::string_view rest(line.data() + 14, line.size() - 14);
      rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
      std::from_chars(rest.data(), rest.data() + rest.size(), kb);
      total += kb << 10;
    }
  }
  return std::min(total, size());
}

BandwidthSample sequential_read(const BandwidthBuffer& buffer, Clock& clock, int threads, int passes) {
  threads = std::max(1, threads);
  passes = std::max(1, passes);
  // Parts are multiples of 64 bytes; the last one takes the remainder.
  const std::size_t part = buffer.size() / static_cast<std::size_t>(threads) / 64 * 64;
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads), 0);
  auto read_part = [&](int t) {
    const std::size_t begin = part * static_cast<std::size_t>(t);
    const std::size_t end = t == threads - 1 ? buffer.size() : begin + part;
    std::uint64_t sum = 0;
    for (int pass = 0; pass < passes; ++pass) {
      sum ^= std::rotl(read_range(buffer.data() + begin, end - begin), pass);
    }
    sums[static_cast<std::size_t>(t)] = sum;
  };

  BandwidthSample s;
  s.bytes = static_cast<double>(buffer.size()) * passes;
  s.seconds = time_workers(clock, threads, read_part);
  for (std::uint64_t v : sums) s.checksum ^= v;
  g_bandwidth_sink = s.checksum;
  return s;
}

BandwidthSample random_block_read(const BandwidthBuffer& buffer, Clock& clock, std::size_t block_bytes,
                                  std::size_t count, std::uint64_t seed) {
  BandwidthSample s;
  if (block_bytes < 64 || block_bytes % 64 != 0 || block_bytes > buffer.size()) return s;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, buffer.size() / block_bytes - 1);
  std::vector<std::size_t> offsets(count);
  for (std::size_t& o : offsets) o = pick(rng) * block_bytes;

  const std::byte* data = hide_from_optimiser(buffer.data());
  std::uint64_t start = clock.now_ns();
  s.checksum = read_blocks(data, offsets.data(), count, block_bytes);
  std::uint64_t end = clock.now_ns();
  s.seconds = seconds_between(start, end);
  s.bytes = static_cast<double>(block_bytes) * static_cast<double>(count);
  g_bandwidth_sink = s.checksum;
  return s;
}

Result<std::size_t> cache_bytes(int level, const std::string& root) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    auto read = [&](const char* name) {
      std::ifstream in(entry.path() / name);
      std::string text;
      std::getline(in, text);
      return text;
    };
    if (read("level") != std::to_string(level) || read("type") == "Instruction") continue;
    const std::string size = read("size");
    std::size_t value = 0;
    auto [ptr, err] = std::from_chars(size.data(), size.data() + size.size(), value);
    std::string_view suffix(ptr, static_cast<std::size_t>(size.data() + size.size() - ptr));
    if (err != std::errc() || value == 0) break;
    if (suffix == "K") return value << 10;
    if (suffix == "M") return value << 20;
    if (suffix.empty()) return value;
    break;
  }
  if (ec) return Error::infra(fmt::format("membw: cannot read {}: {}", root, ec.message()));
  return Error::infra(fmt::format("membw: {} describes no level-{} data cache with a size", root, level));
}

std::uint64_t reference_checksum(const std::byte* data, std::size_t bytes) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, data + i, 8);
    sum ^= word;
  }
  return sum;
}

const char* bandwidth_instruction_set() { return instruction_set(); }

}  // namespace harness
