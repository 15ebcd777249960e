// Memory-bandwidth microbenchmarks: the measured memory ceilings of a host
// (seed 001's "bandwidth" regression table: sequential reads on 1..N threads,
// random 4 KiB blocks, and the burst-size sweep 64 B .. 2 KiB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "harness/base/result.h"
#include "probes/clock.h"

namespace harness {

// A buffer much larger than the caches, touched once so that its pages exist.
// Aligned to 2 MiB and advised as huge pages where the kernel allows it, so
// that TLB misses do not cap the sequential stream.
class BandwidthBuffer {
 public:
  static Result<BandwidthBuffer> allocate(std::size_t bytes);
  BandwidthBuffer(BandwidthBuffer&&) noexcept = default;
  BandwidthBuffer& operator=(BandwidthBuffer&&) noexcept = default;

  const std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  // Bytes of the buffer the kernel backs with huge pages (AnonHugePages of
  // its mapping in /proc/self/smaps), or an error saying why it is unknown.
  Result<std::size_t> huge_page_bytes() const;

 private:
  struct Free { void operator()(std::byte* p) const; };
  BandwidthBuffer(std::byte* data, std::size_t size) : data_(data), size_(size) {}
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

// One timed measurement. The checksum is the XOR of every 64-bit word read;
// tests compare it with a scalar reference, which proves the loads happened.
struct BandwidthSample {
  double bytes = 0;
  double seconds = 0;
  std::uint64_t checksum = 0;
  double bytes_per_second() const { return seconds > 0 ? bytes / seconds : 0; }
};

// Reads the whole buffer `passes` times, split into `threads` equal
// contiguous parts read concurrently. Uses 32-byte AVX2 loads when the CPU
// has them (16-byte SSE2 otherwise).
BandwidthSample sequential_read(const BandwidthBuffer& buffer, Clock& clock, int threads = 1,
                                int passes = 1);

// Reads `count` blocks of `block_bytes` at random block-aligned offsets
// (drawn before timing from a fixed seed), one thread. block_bytes must be a
// multiple of 64 and at most the buffer size.
BandwidthSample random_block_read(const BandwidthBuffer& buffer, Clock& clock,
                                  std::size_t block_bytes, std::size_t count,
                                  std::uint64_t seed = 1);

// The size of the level-`level` data or unified cache of CPU 0, read from
// sysfs (`<root>/index*/level`, `type`, `size` such as "2048K"). An error
// says what is missing; nothing is guessed.
Result<std::size_t> cache_bytes(int level, const std::string& root = "/sys/devices/system/cpu/cpu0/cache");

// Scalar reference for the checksum of reading [data, data + bytes) once.
std::uint64_t reference_checksum(const std::byte* data, std::size_t bytes);

// "avx2" or "sse2" (x86-64), "neon" (aarch64), "64-bit words" (others):
// which load path this CPU uses.
const char* bandwidth_instruction_set();

}  // namespace harness
