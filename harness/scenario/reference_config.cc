#include "harness/scenario/reference_config.h"

#include <fmt/format.h>

namespace harness {
namespace {

// splitmix64: a fixed, portable mix of the seed and the round.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

bool reference_first(const ReferenceConfig& config, std::uint64_t seed, int round) {
  if (config.order == "abba") return round % 2 == 1;
  return (mix(seed ^ mix(static_cast<std::uint64_t>(round))) & 1) != 0;
}

std::string pairing_text(const ReferenceConfig& config, std::uint64_t seed) {
  if (config.order == "abba") return "ABBA order";
  return fmt::format("random order, seed {}", seed);
}

}  // namespace harness
