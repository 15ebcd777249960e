// A capture sink for the fuzz targets: counts samples and stops the reader
// after a million, so that an input announcing a long capture (a huge
// timestamp span is valid) costs at most one rendered chunk, not seconds.
#pragma once

#include <cstddef>
#include <cstdint>

#include "probes/capture/capture.h"

namespace harness {

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
