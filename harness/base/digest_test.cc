#include "harness/base/digest.h"

#include <algorithm>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "harness/base/sha256.h"

namespace harness {
namespace {

// The agent's digest (plain C++) and the host's (OpenSSL) agree on every
// length around the block and padding edges, fed whole or in pieces.
TEST(Sha256, AgreesWithTheHostsDigest) {
  std::mt19937 rng(7);
  for (std::size_t n = 0; n < 300; ++n) {
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    Sha256 pieces;
    for (std::size_t at = 0; at < n; at += 1 + at % 37) pieces.update(bytes.data() + at, std::min(n - at, 1 + at % 37));
    const std::string host = sha256_hex(bytes);
    ASSERT_EQ(sha256_portable_hex(bytes), host) << n << " bytes";
    ASSERT_EQ(pieces.finish_hex(), host) << n << " bytes in pieces";
  }
}

}  // namespace
}  // namespace harness
