// A capture sink for the fuzz targets: counts samples and stops the reader
// after a million, so that an input announcing a long capture (a huge
// timestamp span is valid) costs at most one rendered chunk, not seconds.
// The readers are run with fuzz_limits(): the reader limits scaled down so
// that the fuzzer reaches them (and their errors) with small inputs, the way
// the defaults are reached by large ones.
#pragma once

#include <cstddef>
#include <cstdint>

#include "probes/capture/capture.h"
#include "probes/capture/limits.h"

namespace harness {

inline ReaderLimits fuzz_limits() {
  ReaderLimits l;
  l.samples = std::uint64_t{1} << 21;  // past the sink's million: the sink's stop stays reachable
  l.file_bytes = std::uint64_t{1} << 20;
  l.signal_bits = 1 << 10;
  l.declared_bits = 1 << 12;
  l.changes = 1 << 14;
  l.entry_bytes = std::uint64_t{1} << 22;
  l.inflated_bytes = std::uint64_t{1} << 23;
  l.in_memory_bytes = std::uint64_t{1} << 22;
  return l;
}

class BoundedSink : public CaptureSink {
 public:
  Status begin(const CaptureHeader& header) override {
    if (header.unitsize == 0 || header.unitsize > 8) __builtin_trap();
    return ok();
  }
  Status samples(const std::uint8_t*, std::size_t count) override {
    samples_ += count;
    if (samples_ > (std::uint64_t{1} << 20)) return Error::input("fuzz: enough samples");
    return ok();
  }
  Status end() override { return ok(); }

 private:
  std::uint64_t samples_ = 0;
};

}  // namespace harness
