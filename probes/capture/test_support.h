// Helpers of the capture readers' tests: a VCD text read into a Capture,
// binary fields appended in the host's byte order (little-endian, as Saleae's
// files are), and a Saleae binary channel made of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// A Saleae binary (version 0) digital channel: its initial level, the span
// [begin, end] in seconds and the times of its transitions; `announced`, when
// given, is the transition count the header claims instead of theirs.
inline std::string saleae_v0(std::uint32_t initial, double begin, double end, const std::vector<double>& toggles,
                             std::optional<std::uint64_t> announced = std::nullopt) {
  std::string b = "<SALEAE>";
  put<std::int32_t>(b, 0);  // version
  put<std::int32_t>(b, 0);  // digital
  put<std::uint32_t>(b, initial);
  put<double>(b, begin);
  put<double>(b, end);
  put<std::uint64_t>(b, announced.value_or(toggles.size()));
  for (double t : toggles) put<double>(b, t);
  return b;
}

}  // namespace harness::capture_test
