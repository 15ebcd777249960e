// Memory-bandwidth microbenchmarks: the measured memory ceiling of a host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "harness/base/result.h"
#include "probes/clock.h"

namespace harness {

// A buffer much larger than the caches, touched once so that its pages exist.
class BandwidthBuffer {
 public:
  static Result<BandwidthBuffer> allocate(std::size_t bytes);
  BandwidthBuffer(BandwidthBuffer&&) noexcept = default;
  BandwidthBuffer& operator=(BandwidthBuffer&&) noexcept = default;

  const std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct Free { void operator()(std::byte* p) const; };
  BandwidthBuffer(std::byte* data, std::size_t size) : data_(data), size_(size) {}
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

// Reads the whole buffer once, sequentially, with 16-byte vector loads whose
// results feed a checksum the compiler must keep. Returns bytes per second.
double sequential_read_bandwidth(const BandwidthBuffer& buffer, Clock& clock);

}  // namespace harness
