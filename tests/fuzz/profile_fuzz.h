// What every profile format's fuzz target does: read the bytes in the named
// format (never "auto", so that each target reaches its own reader), and
// analyse what reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/levels/layer_profile.h"

namespace harness {

inline void fuzz_profile(const std::string& format, const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ProfileReadOptions options;
  options.format = format;
  options.clock_hz = 1e9;
  Result<LayerProfile> p = read_layer_profile(text, "fuzz", options);
  if (!p) return;
  ProfileCeilings c;
  c.peak = 4e12;
  c.bandwidth = 20e9;
  Analysis a;
  analyse_layer_profile(*p, LayerProfileConfig{}, c, Provenance::measured, a);
}

}  // namespace harness
