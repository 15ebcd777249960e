// Helpers of the capture readers' tests: a VCD text read into a Capture, and
// binary fields appended in the host's byte order (little-endian, as Saleae's
// files are).
#pragma once

#include <string>

#include "probes/capture/readers.h"

namespace harness::capture_test {

// `text` read as the VCD file `name` (the name its errors give).
inline Result<Capture> read_vcd_text(const std::string& text, const std::string& name, ReadOptions o = {}) {
  CaptureCollector c;
  Status s = read_vcd(text, name, o, c);
  if (!s) return s.error();
  return c.capture();
}

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace harness::capture_test
